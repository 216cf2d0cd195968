#!/bin/sh
# Parent/child double count (issue 17): a shell looping dd on a real disk.
# /proc/PID/io of the shell grows by each dd's bytes when it reaps it; the
# live daemon must show those bytes once, on the dd rows, and not again on
# the shell's (doc/netlink.md). Needs exit notices (root: CAP_NET_ADMIN).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (taskstats exit notices)"; exit 77; }
tmp=$(mktemp -d)
# a real filesystem: tmpfs writes are not storage IO (write_bytes stays 0)
data=$(mktemp -d /var/tmp/iotr-cost-dc.XXXXXX)
loop=
cleanup() {
	[ -n "$loop" ] && kill "$loop" 2>/dev/null && wait "$loop" 2>/dev/null
	rm -rf "$tmp" "$data"
}
trap cleanup EXIT

# each dd lives well under a second: most start and end between two samples
sh -c 'while :; do dd if=/dev/zero of="$1/f" bs=1M count=8 oflag=direct status=none; done' \
	sh "$data" &
loop=$!

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" "$loop" <<'PY' || fail "double count"
import sys, time
from daemon_lib import *

tmp, shell = sys.argv[1], int(sys.argv[2])
# --cpu-budget 0: every sample scans, whatever the host's process count
d = Daemon(tmp, interval=1000, extra=("--cpu-budget", "0"))
try:
    deadline = time.monotonic() + TIMEOUT
    while d.status()["samples"] < 3:
        check(time.monotonic() < deadline, "no third sample")
        time.sleep(0.05)
    c = d.client()
    seen_dd = 0
    for _ in range(4):
        s = c.req({"cmd": "snapshot"})["sample"]
        p = s["processes"]
        check("no exit notices" not in str(s["sources"]["taskstats"]),
              "exit notices needed: %r" % s["sources"]["taskstats"])
        rows = {r["pid"]: r for r in p["top_io"]}
        dd = sum(r["kB_wr/s"] for r in p["top_io"] if r["comm"] == "dd")
        seen_dd += dd > 1000
        sh = rows.get(shell)
        print("dd rows %.0f kB/s, shell row %r" % (dd, sh))
        # before the rule the shell showed the sum of its reaped dd's
        check(sh is None or sh["kB_wr/s"] < 100,
              "shell %d counted its children's IO again: %r" % (shell, sh))
        time.sleep(1.0)
    check(seen_dd >= 2, "dd's own rows missing: the test measured nothing")
    c.close()
finally:
    d.stop()
PY
exit 0
