#!/bin/sh
# iotriaged as systemd and a shell see it: READY=1 on $NOTIFY_SOCKET only
# after the first sample, STOPPING=1 at exit; "<N>" priority prefixes when
# stderr is the journal stream ($JOURNAL_STREAM names it), plain
# "iotriaged: ..." otherwise; without --foreground it detaches once the socket
# answers (the parent exits 0) and still exits 0 on SIGTERM, removing the socket.
set -u
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
fx="$FIXTURES/live-vm/t0"
[ -d "$fx/proc" ] || { echo "SKIP: no $fx fixture"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$fx" "$tmp" <<'PY' || exit 1
import os, signal, socket, subprocess, sys, time
from daemon_lib import *

fx, tmp = sys.argv[1], sys.argv[2]
daemons = []
detached_pid = None
try:
    # sd_notify: a datagram socket standing in for systemd, abstract and path
    for abstract in (False, True):
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract:
            addr = "\0iotriage-test-%d" % os.getpid()
            shown = "@" + addr[1:]
        else:
            addr = shown = os.path.join(tmp, "notify")
        ns.bind(addr)
        ns.settimeout(TIMEOUT)
        d = Daemon(tmp, root=fx, interval=100, name="n%d" % abstract,
                   env_extra={"NOTIFY_SOCKET": shown})
        daemons.append(d)
        msg = ns.recv(4096).decode()
        check(msg.split("\n")[0] == "READY=1", "first notification %r" % msg)
        # READY came after the first sample: status already counts one
        check(d.status()["samples"] >= 1, "no sample at READY")
        check(d.stop() == 0, "exit code under NOTIFY_SOCKET")
        msg = ns.recv(4096).decode()
        check(msg == "STOPPING=1", "last notification %r" % msg)
        ns.close()

    # journald: the stream is stderr itself -> "<N>" prefixes, no program name
    def journal(log):
        st = os.fstat(log.fileno())
        return {"JOURNAL_STREAM": "%d:%d" % (st.st_dev, st.st_ino)}
    d = Daemon(tmp, root=fx, interval=100, name="j", env_extra=journal)
    daemons.append(d)
    check(d.stop() == 0, "exit code under journald")
    lines = d.log_text().splitlines()
    check(lines and all(l[:3] in ("<6>", "<5>", "<4>", "<3>") for l in lines),
          "journal lines without a priority: %r" % lines)
    check(any(l.startswith("<6>listening on ") for l in lines), "no <6>listening line: %r" % lines)
    # a JOURNAL_STREAM that is not our stderr (a wrapper redirected it) is ignored
    d = Daemon(tmp, root=fx, interval=100, name="nj", env_extra={"JOURNAL_STREAM": "1:2"})
    daemons.append(d)
    check(d.stop() == 0, "exit code with a foreign JOURNAL_STREAM")
    check(d.log_text().startswith("iotriaged: listening on "), "plain log %r" % d.log_text())

    # without --foreground: the parent returns once the daemon serves
    sock = os.path.join(tmp, "bg.sock")
    p = subprocess.run([env("IOTRIAGED"), "--socket", sock, "--root", fx, "--interval", "100"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 0, "detaching start exit %d: %s" % (p.returncode, p.stderr))
    c = Client(sock)
    r = c.req({"cmd": "status"})
    c.close()
    detached_pid = r["pid"]
    check(r["samples"] >= 1, "detached status %r" % r)
    with open("/proc/%d/stat" % detached_pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    check(int(fields[3]) == detached_pid, "detached daemon is not a session leader")
    os.kill(detached_pid, signal.SIGTERM)
    deadline = time.monotonic() + TIMEOUT
    while os.path.exists("/proc/%d" % detached_pid) and os.path.exists(sock):
        check(time.monotonic() < deadline, "detached daemon did not stop")
        time.sleep(0.02)
    while os.path.exists(sock):
        check(time.monotonic() < deadline, "detached daemon left its socket")
        time.sleep(0.02)
    detached_pid = None
finally:
    cleanup(daemons)
    if detached_pid:
        os.kill(detached_pid, signal.SIGKILL)
print("ok")
PY
