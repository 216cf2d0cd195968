#!/bin/sh
# iotriaged under many and misbehaving clients: 200 concurrent clients all
# served; --max-clients refuses the next one with "busy"; a subscriber that
# never reads is cut off (logged) while another keeps getting every sample and
# the daemon's memory stays bounded; a client that floods requests without
# reading its replies is not read further and does not grow the daemon.
# Samples are made large (a tree with 1200 disks) so the limits are hit
# within a few samples.
set -u
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" <<'PY' || exit 1
import errno, os, re, resource, select, socket, sys, threading, time
from daemon_lib import *

tmp = sys.argv[1]
NDISK = 1200


def big_tree(root):
    os.makedirs(os.path.join(root, "proc"))
    w = lambda name, text: open(os.path.join(root, "proc", name), "w").write(text)
    w("uptime", "1000.00 1900.00\n")
    w("stat", "cpu  10 0 10 1000 0 0 0 0 0 0\ncpu0 5 0 5 500 0 0 0 0 0 0\n"
      "cpu1 5 0 5 500 0 0 0 0 0 0\nintr 100\nctxt 1\nbtime 1\nprocesses 1\n"
      "procs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n")
    # whole disks are always in a sample (idle IRQ lines are not): many disks
    disks = []
    for i in range(NDISK):
        name = "vd%d" % i
        os.makedirs(os.path.join(root, "sys", "block", name))
        disks.append("%4d %7d %s 1 0 8 1 1 0 8 1 0 2 2 0 0 0 0 0 0\n" % (252, i, name))
    w("diskstats", "".join(disks))
    w("interrupts", "           CPU0       CPU1\n  0:         10          0   IO-APIC   2-edge      timer\n")
    w("softirqs", "                    CPU0       CPU1\n          HI:          0          0\n")


tree = os.path.join(tmp, "tree")
big_tree(tree)
need = 260
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < need:
    if hard < need:
        skip("RLIMIT_NOFILE hard limit %d is below the %d sockets this test opens" % (hard, need))
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))

daemons = []
try:
    d = Daemon(tmp, root=tree, interval=100, extra=["--max-clients", "250", "--history", "1"])
    daemons.append(d)

    # 200 concurrent clients, each with two pipelined requests
    cs = [d.client() for _ in range(200)]
    for i, c in enumerate(cs):
        c.send_raw(b'{"cmd":"hello","version":1,"id":%d}\n{"cmd":"snapshot","id":%d}\n' % (i, i))
    # every socket drained as its bytes come, parsed after: the daemon cuts
    # off a client whose replies sit unread for 30 s, and reading 200
    # snapshots one client after another took longer on a loaded machine
    left = {c.s: c for c in cs}
    deadline = time.monotonic() + TIMEOUT * 4
    while left:
        check(time.monotonic() < deadline, "%d clients without both replies" % len(left))
        for sk in select.select(list(left), [], [], 1.0)[0]:
            c = left[sk]
            chunk = sk.recv(1 << 20)
            c.buf += chunk
            if not chunk or c.buf.count(b"\n") >= 2:
                del left[sk]  # recv() below reports an early end
    for i, c in enumerate(cs):
        r = c.recv()
        check(r["ok"] and r["id"] == i and r["version"] == 1, "client %d hello %r" % (i, r))
        r = c.recv()
        check(r["ok"] and r["id"] == i and r["sample"]["mode"] == "daemon",
              "client %d snapshot %r" % (i, str(r)[:200]))
    st = d.status()
    check(st["clients"] == 201, "status counts %d clients, 201 connected" % st["clients"])
    for c in cs:
        c.close()
    deadline = time.monotonic() + TIMEOUT
    while d.status()["clients"] != 1:
        check(time.monotonic() < deadline, "closed clients never reaped")
        time.sleep(0.02)

    # a subscriber that never reads (tiny receive buffer), and one that does
    base_rss = d.rss_kib()
    stalled = d.client(rcvbuf=4096)
    stalled.send({"cmd": "subscribe"})
    # the reader asks for every 10th sample (~480 KB each): 1 MiB of backlog
    # is then ~2 s of slack, where at every sample (0.2 s) a reader
    # descheduled on a loaded machine was cut off with the stalled one
    EVERY = 10
    reader = d.client()
    r = reader.req({"cmd": "subscribe", "every": EVERY})
    check(r["subscribed"] and r["every"] == EVERY, "reader subscribe %r" % r)
    ev, raw = reader.event()
    sample_bytes = len(raw)
    check(sample_bytes > 200000, "samples are only %d bytes: the tree is too small" % sample_bytes)
    last = ev["sample"]["sample"]

    def next_sample():
        """The next sample's number, read from its first bytes (parsing each
        ~480 KB sample in Python is slow under load)."""
        while True:
            raw = reader.line()
            check(raw, "the reader's connection closed: %s" % d.log_text()[-400:])
            if b'"event":"sample"' in raw[:64]:
                m = re.search(rb'"sample":(\d+),', raw[:1024])
                check(m, "a sample without its number: %r" % raw[:200])
                return int(m.group(1))

    deadline = time.monotonic() + TIMEOUT
    while "subscriber not reading" not in d.log_text():
        check(time.monotonic() < deadline, "stalled subscriber never cut off: %s" % d.log_text())
        sid = next_sample()
        check(sid == last + EVERY, "reader skipped from %d to %d while another stalled" % (last, sid))
        last = sid
    check(stalled.at_eof(), "stalled subscriber's connection was not closed")
    stalled.close()
    st = d.status()
    check(st["subscribers"] == 1 and st["clients"] == 2, "after the cut: %r" % st)
    rss = d.rss_kib()
    # the ring (10 samples) plus one client's pinned backlog, with slack for malloc
    # (right after the cut: under ASan its quarantine of freed samples grows
    # with every second the test waits)
    bound = base_rss + (10 * sample_bytes + (1 << 20)) // 1024 * 2 + 8192
    check(rss < bound, "RSS %d KiB after the stall, bound %d KiB" % (rss, bound))
    print("stall: sample %d bytes, RSS %d -> %d KiB (bound %d)" % (sample_bytes, base_rss, rss, bound))
    # the reader keeps getting every sample after the cut
    for _ in range(3):
        sid = next_sample()
        check(sid == last + EVERY, "reader skipped from %d to %d after the cut" % (last, sid))
        last = sid
    reader.close()

    # a client that floods requests and never reads: not read any further
    flood = d.client()
    flood.s.setblocking(False)
    req = b'{"cmd":"history","since":0}\n' * 64
    sent = 0
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            sent += flood.s.send(req)
        except BlockingIOError:
            break
    check(time.monotonic() < deadline, "the daemon kept reading a client that never reads")
    time.sleep(0.5)  # let the daemon try its worst; correctness does not depend on it
    rss_flood = d.rss_kib()
    check(rss_flood < bound + 16384, "RSS %d KiB with a flooding client" % rss_flood)
    st = d.status()
    check(st["ok"], "daemon not serving during a flood")
    print("flood: %d request bytes accepted before the daemon stopped reading, RSS %d KiB"
          % (sent, rss_flood))
    flood.close()
    check(d.stop() == 0, "exit code after the client tests")

    # pipelined requests filling the 64 KiB input buffer while their large
    # replies hold the daemon back: every request answered, in order
    fx = os.path.join(env("FIXTURES"), "live-vm", "t0")
    # (twice the 256 KiB mark: a loaded machine may drop ticks while the
    # replies are written, and old samples still leave the window)
    d3 = Daemon(tmp, root=fx, interval=100, extra=["--history", "30"], name="pipe")
    daemons.append(d3)
    deadline = time.monotonic() + TIMEOUT
    while d3.status()["history"]["bytes"] < 600 * 1024:
        check(time.monotonic() < deadline, "history never grew")
        time.sleep(0.1)
    p = d3.client()
    n = 100
    pad = "x" * 700
    lines = b"".join(b'{"cmd":"history","since":0,"id":%d,"pad":"%s"}\n' % (i, pad.encode())
                     for i in range(n))
    check(len(lines) > 64 * 1024, "pipelined requests are only %d bytes" % len(lines))
    sender = threading.Thread(target=p.send_raw, args=(lines,))
    sender.start()
    big = 0
    for i in range(n):
        raw = p.line()
        check(raw.startswith(b'{"ok":true,"id":%d,' % i), "pipelined reply %d: %r" % (i, raw[:200]))
        big += len(raw) > 256 * 1024
    sender.join(TIMEOUT)
    check(not sender.is_alive(), "the daemon stopped reading pipelined requests")
    check(big == n, "only %d of %d replies over 256 KiB: backpressure not exercised" % (big, n))
    print("pipelined: %d requests (%d bytes), all answered in order" % (n, len(lines)))
    p.close()
    check(d3.stop() == 0, "exit code of the pipelining daemon")

    # --max-clients: the third is refused with "busy" and closed
    d2 = Daemon(tmp, root=tree, interval=100, extra=["--max-clients", "2", "--history", "1"],
                name="max")
    daemons.append(d2)

    def admitted():
        """A client the daemon accepted: until it has noticed that earlier
        connections closed, a new one may still be refused as busy."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            c = d2.client()
            try:
                r = c.req({"cmd": "status"})
            except (BrokenPipeError, ConnectionResetError):
                r = {"refused": True}  # busy and closed before the request went out
            if r.get("ok"):
                return c, r
            c.close()
            check(time.monotonic() < deadline, "never admitted: %r" % r)
            time.sleep(0.02)

    a, _ = admitted()
    b, r = admitted()
    check(r["clients"] == 2, "second client sees %d clients" % r["clients"])
    c = d2.client()
    r = c.recv()
    check(r.get("ok") is False and r["error"]["code"] == "busy", "third client got %r" % r)
    check(c.at_eof(), "busy client not closed")
    c.close()
    a.close()
    c, _ = admitted()  # a's slot frees once the daemon has reaped it
    c.close()
    b.close()
    check(d2.stop() == 0, "exit code of the --max-clients daemon")
finally:
    cleanup(daemons)
print("ok")
PY
