#!/bin/sh
# Our compute equals Debian's iostat -x and mpstat (-u, -I SUM, -I CPU,
# -I SCPU) to two decimals on identical input: the recorded live host, the
# 14-field kernel, the hot-IRQ host, a disk new in the interval (rated from
# zero) and a generated 256-CPU host with 2000 IRQ lines and 128 disks.
# See oracle.py for how the input is made identical.
set -u
here=$(cd "$(dirname "$0")" && pwd)
command -v iostat >/dev/null && command -v mpstat >/dev/null ||
	{ echo "SKIP: sysstat (iostat, mpstat) not installed"; exit 77; }
unshare -m true 2>/dev/null || { echo "SKIP: unshare -m not permitted here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$FIXTURES/make-trees.py" "$tmp" big-256 big-256-dense || exit 1
rc=0
for pair in "$FIXTURES/live-vm" "$FIXTURES/edge-14field" "$FIXTURES/hot-irq" \
	"$FIXTURES/edge-removed" "$tmp/big-256" "$tmp/big-256-dense"; do
	python3 "$here/oracle.py" "$IOTRIAGE" "$pair/t0" "$pair/t1"
	r=$?
	[ $r -eq 77 ] && exit 77
	[ $r -ne 0 ] && rc=1
done
exit $rc
