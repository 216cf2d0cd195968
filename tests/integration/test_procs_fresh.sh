#!/bin/sh
# Fresh processes (issue 22): with the CPUs >= 90 % busy (or a disk at util
# >= 50 %, loop/zram/ram aside) the daemon reads the processes every sample,
# whatever the CPU budget's cadence, and says why ("busy"); the burners are
# in top_cpu with their command lines.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
tmp=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
for i in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' iotr-fresh-burner &
	pids="$pids $!"
done

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" <<'PY' || fail "fresh"
import sys, time
from daemon_lib import *

tmp = sys.argv[1]
# 1 s samples, the default budget (0.5 %): the load rule holds while a scan
# costs at most 4 x 5 ms
d = Daemon(tmp, interval=1000)
try:
    deadline = time.monotonic() + TIMEOUT
    while d.status()["samples"] < 2:
        check(time.monotonic() < deadline, "no second sample")
        time.sleep(0.05)
    c = d.client()
    check(c.req({"cmd": "subscribe"})["ok"], "subscribe")
    run, seen = 0, []
    deadline = time.monotonic() + TIMEOUT
    while run < 4:
        check(time.monotonic() < deadline, "not 4 busy scans in a row: %r" % seen[-8:])
        s = c.event()[0]["sample"]
        p = s.get("processes", {})
        sc = p.get("scan", {})
        a = [x for x in s.get("cpu-load", []) if x.get("cpu") == "all" and x.get("valid")]
        busy = round(100 - a[0]["idle"] - a[0]["iowait"], 1) if a else None
        seen.append((sc.get("reason"), sc.get("scanned"), busy, sc.get("cpu_us")))
        # "finding": a cpu_saturated finding standing on this busy machine
        # keeps the scan fresh too (its rule comes first)
        run = run + 1 if sc.get("scanned") and sc.get("reason") in ("busy", "finding") else 0
    print("scans: %r" % seen[-4:])
    rows = [r for r in p.get("top_cpu", []) if "iotr-fresh-burner" in r.get("cmdline", "")]
    check(rows, "no burner in top_cpu: %r" % p.get("top_cpu"))
finally:
    d.stop()
PY
echo "ok"
