#!/bin/sh
# iotriaged carries processes, NICs, pressure and writeback in its samples:
# a daemon on a copy of the recorded netlink-live/t1 tree (netlink answers
# read from files, no socket opened) must send them, and the statuses of
# every issue-8 source, in the sample a client asks for.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$FIXTURES/netlink-live/t1" "$tmp" <<'PY' || fail "daemon sample"
import os, sys, time
from daemon_lib import *

src, tmp = sys.argv[1], sys.argv[2]
root = os.path.join(tmp, "root")
copy_tree(src, root)
d = Daemon(tmp, root=root, interval=200)
try:
    deadline = time.monotonic() + TIMEOUT
    while d.status()["samples"] < 2:  # sections need an interval
        check(time.monotonic() < deadline, "no second sample")
        time.sleep(0.02)
    c = d.client()
    r = c.req({"cmd": "snapshot"})
    check(r["ok"], "snapshot %r" % r)
    s = r["sample"]
    for k in ("procfs_io", "taskstats", "rtnetlink", "ethtool", "pressure_io", "vmstat",
              "vm_dirty_sysctl"):
        check(s["sources"][k]["available"], "%s: %r" % (k, s["sources"][k]))
    check("no recorded" not in str(s["sources"]), "sources %r" % s["sources"])
    p = s["processes"]
    check(p["count"] == 107 and p["delay_accounting"] == "on", "processes %r" % p)
    check(p["top_io"] == [], "the same tree twice has no IO: %r" % p["top_io"])
    eth0 = [n for n in s["nics"] if n["name"] == "eth0"]
    check(eth0 and eth0[0]["channels"]["combined_max"] == 1, "nics %r" % s["nics"])
    check(eth0[0]["rxpck/s"] == 0, "no packets between identical samples")
    check(s["pressure"]["io"]["some"]["stall%"] == 0, "pressure %r" % s["pressure"])
    check(s["writeback"]["vm"]["dirty_ratio"] == 20, "writeback %r" % s["writeback"])
    c.close()
finally:
    d.stop()
PY
exit 0
