#!/bin/sh
# cgroup v2 attribution on this machine (issue 17): a cgroup made for the
# test under the live hierarchy, a dd of 64 MiB (O_DIRECT, a real disk) run
# in it; the real daemon's samples must attribute those bytes to the cgroup
# (the rates summed over the samples = 64 MiB +- 10 %) and `capture` must
# record its io.stat and io.pressure. Before that (and on any v2 host):
# capture records the hierarchy and compute reads it back. The cgroup is
# removed on exit, and
# the io controller given back to the state it was found in. Exits 77 when
# the machine has no cgroup v2 hierarchy or its io controller is elsewhere
# (the hybrid layout binds it to cgroup v1 blkio: then capture must record
# the blkio hierarchy instead, and test_cgroup_v1_live.sh attributes IO).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to make a cgroup"; exit 77; }
top=
for t in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -f "$t/cgroup.controllers" ] && { top=$t; break; }
done
[ -n "$top" ] || { echo "SKIP: no cgroup v2 hierarchy (no cgroup.controllers)"; exit 77; }
# the collector's choice: v2 with io, else v1 blkio, else v2 without io
first=cgroup.controllers
if ! grep -qw io "$top/cgroup.controllers" &&
	[ -f /sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes ]; then
	top=/sys/fs/cgroup/blkio first=blkio.throttle.io_service_bytes
fi
# capture records the hierarchy, whatever its controllers, and compute
# reads it back under --root
cap=$(mktemp -d)
rmdir "$cap"
"$IOTRIAGE" capture "$cap" >/dev/null 2>&1 || { rm -rf "$cap"; fail "capture"; }
rel=${top#/}
[ -f "$cap/$rel/$first" ] || { rm -rf "$cap"; fail "capture lacks $rel/$first"; }
if [ -f "$top/io.pressure" ] && [ ! -f "$cap/$rel/io.pressure" ]; then
	rm -rf "$cap"
	fail "capture lacks $rel/io.pressure"
fi
"$IOTRIAGE" compute "$cap" "$cap" --interval 1000 --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["cgroups"]
assert c["hierarchy"] == "/" + sys.argv[1] and c["count"] >= 1, c
print("captured hierarchy read back: %r" % {k: v for k, v in c.items() if k != "top"})
' "$rel" || { rm -rf "$cap"; fail "compute on the captured tree"; }
rm -rf "$cap"

grep -qw io "$top/cgroup.controllers" ||
	{ echo "SKIP: the io controller is not in cgroup v2 at $top (bound to v1 blkio)"; exit 77; }

name=iotr-cost-$$
cg=$top/$name
tmp=$(mktemp -d)
data=$(mktemp -d /var/tmp/iotr-cost-cg.XXXXXX)
added_io=
cleanup() {
	if [ -d "$cg" ]; then
		for p in $(cat "$cg/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null; done
		sleep 0.2
		rmdir "$cg" 2>/dev/null || echo "warning: $cg not removed"
	fi
	[ -n "$added_io" ] && echo -io > "$top/cgroup.subtree_control" 2>/dev/null
	rm -rf "$tmp" "$data"
}
trap cleanup EXIT INT TERM
if ! grep -qw io "$top/cgroup.subtree_control"; then
	echo +io > "$top/cgroup.subtree_control" ||
		{ echo "SKIP: cannot enable io in $top/cgroup.subtree_control"; exit 77; }
	added_io=1
fi
mkdir "$cg" || fail "mkdir $cg"
[ -f "$cg/io.stat" ] || { echo "SKIP: $cg has no io.stat"; exit 77; }

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" "$cg" "$name" "$data" <<'PY' || fail "cgroup attribution"
import os, subprocess, sys
from daemon_lib import *
from cgroup_lib import dd_attributed_kb

tmp, cg, name, data = sys.argv[1:5]


def v2(g):
    check(g["io_controller"], "io controller %r" % g)


d = Daemon(tmp, interval=500)
try:
    total_kb = dd_attributed_kb(d, cg, data, lambda r: r["path"].endswith("/" + name), v2)
    print("cgroup %s: %.0f kB written by the samples' rates (dd wrote 65536)" % (name, total_kb))
    check(abs(total_kb - 65536) < 6554, "rates sum to %.0f kB, not 64 MiB" % total_kb)
finally:
    d.stop()
# capture records the cgroup's two files
cap = os.path.join(tmp, "cap")
subprocess.run([env("IOTRIAGE"), "capture", cap], check=True, stdout=subprocess.DEVNULL)
rel = cg.lstrip("/")
for f in ("io.stat", "io.pressure"):
    check(os.path.isfile(os.path.join(cap, rel, f)), "capture lacks %s/%s" % (rel, f))
PY
exit 0
