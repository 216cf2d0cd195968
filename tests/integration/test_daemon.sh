#!/bin/sh
# iotriaged as a client sees it: command line and exit codes, then a daemon
# on a copy of the live-vm fixture that the test rewrites from t0 to t1 between
# two samples: hello, snapshot, subscribe (with decimation), history (seconds
# and since), status; the pushed t1 sample must carry exactly the numbers of
# `iotriage compute t0 t1`; `iotriage snapshot --socket` prints the daemon's
# latest sample as served. SIGTERM exits 0 and removes the socket.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$IOTRIAGED" --version | grep -q '^iotriaged ' || fail "--version"
"$IOTRIAGED" --help | grep -q '^Usage: iotriaged' || fail "--help"
"$IOTRIAGED" --bogus 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown option must exit 2"
grep -q '^iotriaged: --bogus: unknown option' "$tmp/err" || fail "unknown option: $(cat "$tmp/err")"
"$IOTRIAGED" -x 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown short option must exit 2"
grep -q '^iotriaged: -x: unknown option' "$tmp/err" || fail "unknown -x: $(cat "$tmp/err")"
"$IOTRIAGED" --socket 2>"$tmp/err"; [ $? -eq 2 ] || fail "missing value must exit 2"
grep -q '^iotriaged: --socket: needs a value' "$tmp/err" || fail "missing value: $(cat "$tmp/err")"
"$IOTRIAGED" --interval 50 2>"$tmp/err"; [ $? -eq 2 ] || fail "--interval 50 must exit 2"
grep -q "^iotriaged: --interval: '50' is not a whole number from 100" "$tmp/err" ||
	fail "interval message: $(cat "$tmp/err")"
"$IOTRIAGED" --foreground extra 2>/dev/null; [ $? -eq 2 ] || fail "stray argument must exit 2"
"$IOTRIAGED" --foreground --root /nonexistent-iotriage --socket "$tmp/x.sock" 2>"$tmp/err"
[ $? -eq 1 ] || fail "missing root must exit 1"
grep -q '^iotriaged: --root /nonexistent-iotriage: No such file or directory' "$tmp/err" ||
	fail "root message: $(cat "$tmp/err")"
[ ! -e "$tmp/x.sock" ] || fail "a failed start left its socket"

fx="$FIXTURES/live-vm"
[ -d "$fx/t0/proc" ] && [ -d "$fx/t1/proc" ] || { echo "SKIP: no $fx fixture"; exit 77; }
"$IOTRIAGE" compute "$fx/t0" "$fx/t1" --json >"$tmp/expect.json" 2>/dev/null ||
	fail "iotriage compute on the fixture"

cd "$tmp" || exit 1
PYTHONPATH="$SRCDIR/tests/integration" python3 - "$fx" "$tmp" <<'PY' || exit 1
import json, os, signal, socket, subprocess, sys
from daemon_lib import *

fx, tmp = sys.argv[1], sys.argv[2]
tree = os.path.join(tmp, "tree")
copy_tree(os.path.join(fx, "t0"), tree)
t0_up, t1_up = uptime_cs(os.path.join(fx, "t0")), uptime_cs(os.path.join(fx, "t1"))
expect = json.load(open(os.path.join(tmp, "expect.json")))

# every source read every sample (no CPU budget): the t0 -> t1 sample must
# read turbostat and the rest, not carry an older read (a slow build, such
# as a sanitizer's, would spend a 0.5 % budget at 100 ms)
d = Daemon(tmp, root=tree, interval=100, extra=["--cpu-budget", "0"])
try:
    sock_mode = os.stat(d.sock).st_mode & 0o777
    check(sock_mode == 0o660, "socket mode %o, not 660" % sock_mode)

    a = d.client()
    r = a.req({"cmd": "hello", "version": 1, "id": "h1"})
    check(r == {"ok": True, "id": "h1", "version": 1, "server": r["server"],
                "interval_ms": 100, "history_s": 600}, "hello reply %r" % r)
    check(r["server"].startswith("iotriaged "), "server %r" % r["server"])

    r = a.req({"cmd": "status", "id": 5})
    check(r["ok"] and r["id"] == 5 and r["root"] == tree, "status %r" % r)
    r0_core_only = r.get("core_only")
    for name in ("uptime", "stat", "diskstats", "interrupts", "softirqs", "sysblock"):
        check(r["sources"][name] == {"available": True}, "source %s: %r" % (name, r["sources"]))
    check(r["clients"] == 1 and r["subscribers"] == 0 and r["overruns"] >= 0, "status %r" % r)
    t = r["tick_us"]
    check(all(isinstance(t[k], int) and t[k] >= 0 for k in ("last", "avg", "max"))
          and t["max"] >= t["avg"], "tick_us %r" % t)

    # set up, it keeps only the capabilities a running daemon uses, in every
    # thread, and can gain none back (man iotriaged, PRIVILEGES)
    KEEP = {1: "dac_override", 2: "dac_read_search", 12: "net_admin", 14: "ipc_lock",
            17: "sys_rawio", 19: "sys_ptrace", 38: "perfmon"}
    def caps(path):
        f = dict(l.split(":", 1) for l in open(path).read().splitlines() if ":" in l)
        return {k: int(f[k], 16) for k in ("CapEff", "CapPrm", "CapBnd", "CapInh", "CapAmb")}, f
    mine, _ = caps("/proc/self/status")
    for task in os.listdir("/proc/%d/task" % r["pid"]):
        got, f = caps("/proc/%d/task/%s/status" % (r["pid"], task))
        want = mine["CapPrm"] & sum(1 << b for b in KEEP)
        check(got["CapEff"] == got["CapPrm"] == want, "thread %s kept %x, want %x (of %x)"
              % (task, got["CapEff"], want, mine["CapPrm"]))
        check(got["CapBnd"] & ~want == 0 or not mine["CapEff"] & (1 << 8),
              "bounding set %x kept more than %x" % (got["CapBnd"], want))
        check(got["CapInh"] == got["CapAmb"] == 0 and f["NoNewPrivs"].strip() == "1",
              "inheritable/ambient/no_new_privs: %r" % f)
    if mine["CapEff"]:
        check("capabilities kept: " in d.log_text(), "no capabilities line: %s" % d.log_text())

    r = a.req({"cmd": "snapshot"})
    s = r["sample"]
    check(r["ok"] and s["mode"] == "daemon" and s["version"] == 1, "snapshot %r" % r)
    check(s["uptime_cs"] == t0_up, "snapshot uptime %r, tree has %d" % (s["uptime_cs"], t0_up))

    # a subscriber sees every sample, in order; another one every 3rd
    b = d.client()
    r = b.req({"cmd": "subscribe", "id": 9})
    check(r == {"ok": True, "id": 9, "subscribed": True, "every": 1, "interval_ms": 100},
          "subscribe reply %r" % r)
    c = d.client()
    check(c.req({"cmd": "subscribe", "every": 3})["every"] == 3, "subscribe every 3")
    first, _ = b.event()
    check(first["sample"]["uptime_cs"] == t0_up, "event before the rewrite is t0")

    # t0 -> t1 while the daemon waits for its timer: one clean transition
    d.pause_idle()
    rewrite_tree(os.path.join(fx, "t1"), tree)
    d.resume()

    prev_id = first["sample"]["sample"]
    while True:
        ev, raw = b.event()
        sid = ev["sample"]["sample"]
        check(sid == prev_id + 1, "subscriber skipped from %d to %d" % (prev_id, sid))
        prev_id = sid
        if ev["sample"]["uptime_cs"] == t1_up:
            break
    got = ev["sample"]
    check(got["interval_ms"] == expect["interval_ms"] == (t1_up - t0_up) * 10,
          "interval %r vs compute %r" % (got["interval_ms"], expect["interval_ms"]))
    # every metric key compute writes (new sources add keys); not identity
    keys = set(expect) | set(got)
    keys -= {"host", "mode", "sample", "timestamp_ms", "sources"}
    # compute appends advise's output (tui/cmd_core.c); samples do not carry it
    keys -= {"findings", "suggestions"}
    # how the live sampler read its optional sources (the CPU budget)
    keys -= {"cadence"}
    check({"disks", "cpu-load", "interrupts", "softirqs"} <= keys, "keys %r" % sorted(keys))
    avail = lambda doc: {k: v["available"] for k, v in doc["sources"].items()}
    check(avail(got) == avail(expect), "sources %r vs %r" % (got["sources"], expect["sources"]))
    # reasons name files under the root: the daemon's tree vs compute's t1
    norm = lambda v, root: json.loads(json.dumps(v).replace(root, "ROOT"))
    got = norm(got, tree)
    expect = norm(norm(expect, os.path.join(fx, "t1")), os.path.join(fx, "t0"))
    for key in sorted(keys):
        check(got.get(key) == expect.get(key),
              "%s differs from iotriage compute t0 t1:\n daemon  %s\n compute %s"
              % (key, json.dumps(got.get(key))[:400], json.dumps(expect.get(key))[:400]))
    check(any(x["valid"] and x["w/s"] > 0 for x in got["disks"]), "no disk activity in t1?")
    t1_id = sid
    t1_doc = raw[len(b'{"ok":true,"event":"sample","sample":'):-2]

    ids = [c.event()[0]["sample"]["sample"] for _ in range(3)]
    check(ids[1] - ids[0] == 3 and ids[2] - ids[1] == 3, "every 3 gave ids %r" % ids)

    # history: since an id, and by seconds; the very same bytes as pushed
    a.send({"cmd": "history", "since": t1_id - 1, "id": "h"})
    raw = a.line()
    r = json.loads(raw)
    check(r["ok"] and r["id"] == "h" and r["first"] == t1_id, "history since %r" % {k: r[k] for k in r if k != "samples"})
    check(r["count"] == len(r["samples"]) == r["last"] - r["first"] + 1, "history count")
    check([x["sample"] for x in r["samples"]] == list(range(r["first"], r["last"] + 1)),
          "history ids not consecutive")
    check(t1_doc in raw, "history does not carry the pushed sample's bytes")
    r = a.req({"cmd": "history", "seconds": 0})
    check(r["count"] == 1 and r["first"] == r["last"], "history seconds 0: %r" % r["count"])
    r = a.req({"cmd": "history", "since": 0})
    st = a.req({"cmd": "status"})
    check(r["first"] == 1 and r["count"] >= t1_id, "history since 0 starts at %r" % r["first"])
    check(st["history"]["first"] == 1 and st["samples"] >= r["last"], "status history %r" % st["history"])
    r = a.req({"cmd": "history", "since": 10 ** 12})
    check(r == {"ok": True, "count": 0, "first": None, "last": None, "samples": []},
          "history in the future %r" % r)
    check(st["subscribers"] == 2 and st["clients"] == 3, "status clients %r" % st)

    # iotriage snapshot --socket: the daemon's latest sample, the very bytes it
    # serves (its history carries them), nothing measured here
    cli = env("IOTRIAGE")
    p = subprocess.run([cli, "snapshot", "--socket", d.sock, "--json"], capture_output=True,
                       timeout=TIMEOUT)
    check(p.returncode == 0 and p.stderr == b"",
          "snapshot --socket: exit %d %r" % (p.returncode, p.stderr))
    check(p.stdout.endswith(b"\n") and p.stdout.count(b"\n") == 1,
          "snapshot --socket: not one line: %r" % p.stdout[:200])
    doc = json.loads(p.stdout)
    check(doc["mode"] == "daemon" and doc["version"] == 1 and doc["sample"] >= t1_id,
          "snapshot --socket: %r" % {k: doc.get(k) for k in ("mode", "version", "sample")})
    a.send({"cmd": "history", "since": doc["sample"] - 1})
    raw = a.line()
    check(json.loads(raw)["first"] == doc["sample"], "history since the CLI's sample")
    check(b'"samples":[' + p.stdout[:-1] in raw,
          "snapshot --socket is not the daemon's sample as served: %r" % p.stdout[:200])
    check(doc["host"] == json.loads(raw)["samples"][0]["host"], "host %r" % doc["host"])
    # without --json, with a measurement option, or nobody at the path
    p = subprocess.run([cli, "snapshot", "--socket", d.sock], capture_output=True, text=True,
                       timeout=TIMEOUT)
    check(p.returncode == 2 and "iotriage: snapshot: --socket needs --json" in p.stderr
          and p.stdout == "", "snapshot --socket without --json: %d %r" % (p.returncode, p.stderr))
    p = subprocess.run([cli, "snapshot", "--socket", d.sock, "--json", "--root", tree],
                       capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 2 and p.stdout == "", "snapshot --socket --root: %d" % p.returncode)
    dead = os.path.join(tmp, "dead.sock")  # bound once, nobody listens
    ds = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ds.bind(dead)
    ds.close()
    for path, why in ((os.path.join(tmp, "nobody.sock"), "No such file or directory"),
                      (dead, "Connection refused")):
        p = subprocess.run([cli, "snapshot", "--socket", path, "--json"], capture_output=True,
                           text=True, timeout=TIMEOUT)
        check(p.returncode == 1 and p.stdout == ""
              and p.stderr == "iotriage: snapshot: %s: %s\n" % (path, why),
              "snapshot --socket %s: %d %r" % (path, p.returncode, p.stderr))

    r = b.req({"cmd": "unsubscribe"})
    check(r == {"ok": True, "subscribed": False}, "unsubscribe %r" % r)
    for x in (a, b, c):
        x.close()

    rc = d.stop(signal.SIGTERM)
    check(rc == 0, "SIGTERM exit %d" % rc)
    check(not os.path.exists(d.sock), "socket left behind after SIGTERM")
    check("exiting" in d.log_text(), "no exit log line: %s" % d.log_text())
    check(r0_core_only is False, "core_only %r without --core-only" % r0_core_only)

    # --core-only: only what iostat and mpstat read
    d = Daemon(tmp, root=tree, interval=100, extra=["--core-only"], name="core")
    st = d.status()
    check(st["core_only"] is True, "status core_only %r" % st.get("core_only"))
    c = d.client()
    check(c.req({"cmd": "subscribe"})["subscribed"], "subscribe under --core-only")
    c.event()
    ev, _ = c.event()  # surely not the daemon's first sample: it has rates
    doc = ev["sample"]
    check({"disks", "cpu-load", "interrupts", "softirqs"} <= set(doc),
          "core sample keys %r" % sorted(doc))
    for key in ("turbostat", "processes", "nics", "pressure", "writeback"):
        check(key not in doc, "--core-only sample has %s" % key)
    c.close()
    check(d.stop() == 0, "--core-only exit code")
finally:
    d.kill()
print("ok")
PY
