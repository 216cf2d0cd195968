#!/bin/sh
# cgroup v1 blkio attribution on this machine (issue 22; RHEL 8's default
# layout, and this VM's hybrid one): a blkio cgroup made for the test, a dd
# of 64 MiB (O_DIRECT, the disk under /var/tmp) run in it; the daemon's
# samples must attribute those bytes to the cgroup (the rates summed over
# the samples = 64 MiB +- 10 %) with "version":1, and capture must record
# its two throttle files. Newer kernels (6.x) count a v1 cgroup's IO only on
# a device it has a throttle rule for: the cgroup gets one of 1 TiB/s on
# that disk (never reached). The cgroup is removed on exit. Exits 77 when
# the io controller is not bound to a v1 blkio hierarchy here.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to make a cgroup"; exit 77; }
top=/sys/fs/cgroup/blkio
[ -f "$top/blkio.throttle.io_service_bytes" ] ||
	{ echo "SKIP: no cgroup v1 blkio hierarchy at $top"; exit 77; }
for t in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	if [ -f "$t/cgroup.controllers" ] && grep -qw io "$t/cgroup.controllers"; then
		echo "SKIP: the io controller is in cgroup v2 at $t"
		exit 77
	fi
done

name=iotr-v1-$$
cg=$top/$name
tmp=$(mktemp -d)
data=$(mktemp -d /var/tmp/iotr-v1-cg.XXXXXX)
cleanup() {
	if [ -d "$cg" ]; then
		for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null; done
		sleep 0.2
		rmdir "$cg" 2>/dev/null || echo "warning: $cg not removed"
	fi
	rm -rf "$tmp" "$data"
}
trap cleanup EXIT INT TERM
# the whole disk under $data (a throttle rule takes no partition)
dev=$(findmnt -no MAJ:MIN -T "$data" | tr -d ' ')
[ -n "$dev" ] && [ -e "/sys/dev/block/$dev" ] || { echo "SKIP: no block device under $data"; exit 77; }
if [ -f "/sys/dev/block/$dev/partition" ]; then
	dev=$(cat "$(readlink -f "/sys/dev/block/$dev")/../dev")
fi
mkdir "$cg" || fail "mkdir $cg"
echo "$dev 1099511627776" > "$cg/blkio.throttle.write_bps_device" ||
	{ echo "SKIP: no throttle rule for $dev (not a request-based disk?)"; exit 77; }

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" "$cg" "$name" "$data" <<'PY' || fail "cgroup v1 attribution"
import os, subprocess, sys
from daemon_lib import *
from cgroup_lib import dd_attributed_kb

tmp, cg, name, data = sys.argv[1:5]


def v1(g):
    check(g["hierarchy"] == "/sys/fs/cgroup/blkio" and g["version"] == 1 and g["io_controller"],
          "cgroups %r" % {k: v for k, v in g.items() if k != "top"})


# every sample reads the cgroups (no CPU budget): each sample's rates
# cover its own interval, so their sum is the bytes written
d = Daemon(tmp, interval=500, extra=["--cpu-budget", "0"])
try:
    total_kb = dd_attributed_kb(d, cg, data, lambda r: r["path"] == "/" + name, v1)
    print("blkio cgroup %s: %.0f kB written by the samples' rates (dd wrote 65536)"
          % (name, total_kb))
    check(abs(total_kb - 65536) < 6554, "rates sum to %.0f kB, not 64 MiB" % total_kb)
finally:
    d.stop()
# capture records the cgroup's two files, and compute reads them back
cap = os.path.join(tmp, "cap")
subprocess.run([env("IOTRIAGE"), "capture", cap], check=True, stdout=subprocess.DEVNULL)
rel = cg.lstrip("/")
for f in ("blkio.throttle.io_service_bytes", "blkio.throttle.io_serviced"):
    check(os.path.isfile(os.path.join(cap, rel, f)), "capture lacks %s/%s" % (rel, f))
print("capture recorded %s's throttle files" % rel)
PY
echo ok
exit 0
