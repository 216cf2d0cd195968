# Shared by the bench integration tests: a loop device over a file in
# /dev/shm, removed in every case; skip (77) with the reason when the
# machine refuses loop devices. Source it, then call bench_loop_setup SIZE_MB.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
BENCH_TMP=$(mktemp -d)
BENCH_IMG=""
BENCH_LOOPS=""
BENCH_MOUNTS=""
BENCH_SWAPS=""
BENCH_DMS=""
bench_cleanup() {
	for m in $BENCH_MOUNTS; do umount "$m" 2>/dev/null; done
	for s in $BENCH_SWAPS; do swapoff "$s" 2>/dev/null; done
	for d in $BENCH_DMS; do dmsetup remove "$d" 2>/dev/null; done
	for l in $BENCH_LOOPS; do losetup -d "$l" 2>/dev/null; done
	[ -n "$BENCH_IMG" ] && rm -f $BENCH_IMG
	rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT
trap 'exit 1' INT TERM HUP
# bench_loop_setup SIZE_MB [losetup options]: sets BENCH_DEV (not in a
# subshell: the cleanup must see every device and file it made)
bench_loop_setup() {
	size=$1; shift
	[ "$(id -u)" = 0 ] || skip "loop devices need root"
	command -v losetup >/dev/null || skip "no losetup"
	img=$(mktemp /dev/shm/iotriage-bench.XXXXXX) || skip "cannot create a file in /dev/shm"
	BENCH_IMG="$BENCH_IMG $img"
	truncate -s "${size}M" "$img" || skip "cannot size $img"
	dev=$(losetup -f --show "$@" "$img" 2>"$BENCH_TMP/losetup.err") ||
		skip "losetup refused: $(cat "$BENCH_TMP/losetup.err")"
	BENCH_LOOPS="$BENCH_LOOPS $dev"
	BENCH_DEV=$dev
}
# diskstats_of DEV: "read_ios read_sectors write_ios write_sectors" of the device
diskstats_of() {
	awk -v n="$(basename "$1")" '$3 == n { print $4, $6, $8, $10 }' /proc/diskstats
}
sum_of() { sha256sum "$1" | cut -d' ' -f1; }
