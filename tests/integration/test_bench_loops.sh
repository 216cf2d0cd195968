#!/bin/sh
# Loop devices that write into something else: a loop over a mounted (or
# signed) device, over another loop, over an image file that another loop
# serves, at an offset (no signature, holder or mount of its own), and a
# hard link to a loop's backing file. Each is refused like the device it
# writes into, with its bytes unchanged; a loop over a range of the image
# that no other loop uses is written.
. "$SRCDIR/tests/integration/bench_lib.sh"
T=$BENCH_TMP
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"

refused() {
	target=$1 pattern=$2
	shift 2
	sum0=$(sum_of "$target")
	"$IOTRIAGE" bench --filename="$target" --size=1m --direct=0 "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$target $*: exit $rc, want 1 (refused): $(cat "$T/err")"
	grep -q "refused: .*$pattern" "$T/err" || fail "$target $*: reason '$(cat "$T/err")' lacks '$pattern'"
	[ "$(sum_of "$target")" = "$sum0" ] || fail "$target $*: bytes changed after a refusal"
}
allowed() {
	target=$1
	shift
	"$IOTRIAGE" bench --filename="$target" --size=1m --direct=0 "$@" >/dev/null 2>"$T/err" ||
		fail "$target $*: refused: $(cat "$T/err")"
}
# loop_on BACKING [losetup options]: a loop device over BACKING, detached on exit
loop_on() {
	back=$1
	shift
	dev=$(losetup -f --show "$@" "$back" 2>"$T/losetup.err") ||
		skip "losetup refused: $(cat "$T/losetup.err")"
	BENCH_LOOPS="$dev $BENCH_LOOPS" # detached before what it sits on
	LOOP=$dev
}
mib=1048576

# A: an ext4 image in /dev/shm; B: a loop over A at 1 MiB (past A's superblock)
bench_loop_setup 32
A=$BENCH_DEV
img=$(losetup -nO BACK-FILE "$A")
mkfs.ext4 -q -F "$A" >/dev/null 2>&1 || fail "mkfs.ext4"
loop_on "$A" -o $mib
B=$LOOP
[ -z "$(blkid -p "$B" 2>/dev/null)" ] || echo "note: $B shows a signature of its own"
refused "$B" "${A#/dev/}.*ext4 signature" --rw=write
# the same range of the image through a second loop on the file
loop_on "$img" -o $mib
C=$LOOP
refused "$C" "${A#/dev/}" --rw=write
# writing A itself destroys what B and C show
refused "$A" "in use by .*${B#/dev/}" --rw=write
# a loop over B (over A) at an offset: loop over loop over loop
loop_on "$B" -o 4096
D=$LOOP
refused "$D" "in use by .*${C#/dev/}" --rw=write
# a hard link to the image: the same inode backs A and C
link=/dev/shm/iotriage-bench-link.$$
BENCH_IMG="$BENCH_IMG $link"
ln "$img" "$link" || fail "ln"
refused "$link" "backs" --rw=write --overwrite

mkdir "$T/mnt"
if mount -o ro "$A" "$T/mnt" 2>"$T/merr"; then
	BENCH_MOUNTS="$T/mnt $BENCH_MOUNTS"
	# mounted: refused even with --allow-destroy naming the loop itself
	refused "$B" "mounted on $T/mnt" --rw=write --allow-destroy="$B"
	refused "$C" "mounted on $T/mnt" --rw=write --allow-destroy="$C"
	refused "$D" "mounted on $T/mnt" --rw=write --allow-destroy="$D"
	allowed "$D" --rw=read
	umount "$T/mnt"
else
	echo "note: mount refused here ($(cat "$T/merr")): mounted cases not run"
fi

# block ranges: E serves the first 8 MiB of an image, F the next 8 MiB
bench_loop_setup 16
detach=$BENCH_DEV
img2=$(losetup -nO BACK-FILE "$detach")
losetup -d "$detach"
loop_on "$img2" --sizelimit $((8 * mib))
E=$LOOP
mkfs.ext4 -q -F "$E" >/dev/null 2>&1 || fail "mkfs.ext4 E"
loop_on "$img2" -o $((8 * mib))
F=$LOOP
allowed "$F" --rw=write
loop_on "$img2" -o $((7 * mib))
G=$LOOP
refused "$G" "in use by .*${E#/dev/}" --rw=write
echo "ok"
