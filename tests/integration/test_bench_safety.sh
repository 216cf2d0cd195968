#!/bin/sh
# Nothing is lost: every refusal of the bench's safety rules on real loop
# devices and files, each followed by a checksum showing the bytes did not
# change; and the --allow-destroy / --overwrite ways through.
. "$SRCDIR/tests/integration/bench_lib.sh"
T=$BENCH_TMP

# refused TARGET WHY_PATTERN BENCH_ARGS...: exit 1, the reason, bytes unchanged
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
	"$IOTRIAGE" bench --filename="$target" --size=1m "$@" >/dev/null 2>"$T/err" ||
		fail "$target $*: refused: $(cat "$T/err")"
}

# --- regular files
printf 'precious data\n' >"$T/existing"
refused "$T/existing" "pass --overwrite" --rw=write
refused "$T/existing" "pass --overwrite" --rw=randrw
refused "$T/existing" "pass --overwrite" --rw=read --precondition
allowed "$T/existing" --rw=read --bs=2 --size=8
allowed "$T/existing" --rw=write --overwrite
[ -e "$T/existing" ] || fail "--overwrite removed a file it did not create"
refused "$T/existing" "block device" --rw=write --overwrite --allow-destroy="$T/existing"

# --- a loop device with a swap signature (not in use): needs --allow-destroy naming it
bench_loop_setup 16
sig=$BENCH_DEV
mkswap "$sig" >/dev/null 2>&1 || fail "mkswap"
refused "$sig" "swap signature" --rw=write
refused "$sig" "swap signature" --rw=randread --precondition
allowed "$sig" --rw=read
bench_loop_setup 16
other=$BENCH_DEV
refused "$sig" "must name the same device" --rw=write --allow-destroy="$other"
# the image file backing the device: writing it would change the device under its user
img=$(losetup -nO BACK-FILE "$sig")
refused "$img" "backs $sig" --rw=write --overwrite
# a symlink to the same device is the same device
ln -s "$sig" "$T/alias"
allowed "$sig" --rw=write --allow-destroy="$T/alias"

# --- partitions
if command -v sfdisk >/dev/null; then
	bench_loop_setup 16 -P
	part=$BENCH_DEV
	echo 'label: dos
,8M,L' | sfdisk -q "$part" >/dev/null 2>&1 || fail "sfdisk"
	partx -u "$part" 2>/dev/null
	refused "$part" "partitions\|dos signature" --rw=write
else
	echo "note: no sfdisk, partition case not run"
fi

# --- mounted (the device, then a partition): refused even with --allow-destroy
if command -v mkfs.ext4 >/dev/null; then
	bench_loop_setup 16
	fs=$BENCH_DEV
	mkfs.ext4 -q -F "$fs" >/dev/null 2>&1 || fail "mkfs.ext4"
	refused "$fs" "ext4 signature" --rw=write
	mkdir "$T/mnt"
	if mount "$fs" "$T/mnt" 2>"$T/merr"; then
		BENCH_MOUNTS="$T/mnt $BENCH_MOUNTS"
		umount "$T/mnt"
		# checksum while unmounted, then mount again: ext4 writes its superblock at mount
		mount -o ro "$fs" "$T/mnt" || fail "mount -o ro"
		refused "$fs" "mounted on $T/mnt" --rw=write --allow-destroy="$fs"
		allowed "$fs" --rw=read
		umount "$T/mnt"
		if [ -n "${part:-}" ] && [ -b "${part}p1" ]; then
			mkfs.ext4 -q -F "${part}p1" >/dev/null 2>&1 || fail "mkfs.ext4 p1"
			mount -o ro "${part}p1" "$T/mnt" || fail "mount p1"
			refused "$part" "partition ${part#/dev/}p1 .*mounted" --rw=write --allow-destroy="$part"
			umount "$T/mnt"
		fi
	else
		echo "note: mount refused here ($(cat "$T/merr")): mounted cases not run"
	fi
fi

# --- in use as swap: refused even with --allow-destroy
mkswap "$sig" >/dev/null 2>&1 || fail "mkswap again"
if swapon "$sig" 2>"$T/serr"; then
	BENCH_SWAPS="$sig"
	refused "$sig" "swap (/proc/swaps)" --rw=write --allow-destroy="$sig"
	swapoff "$sig"
	BENCH_SWAPS=""
else
	echo "note: swapon refused here ($(cat "$T/serr")): swap case not run"
fi

# --- held by device-mapper: refused unless --allow-destroy
if command -v dmsetup >/dev/null; then
	name="iotriage-bench-$$"
	if echo "0 8192 linear $other 0" | dmsetup create "$name" 2>"$T/derr"; then
		BENCH_DMS="$name"
		refused "$other" "in use by dm-" --rw=write
		dmsetup remove "$name"
		BENCH_DMS=""
	else
		echo "note: dmsetup refused here ($(cat "$T/derr")): holder case not run"
	fi
fi
echo "ok"
