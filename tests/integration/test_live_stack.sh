#!/bin/sh
# On the real kernel: a partitioned loop device, and where the kernel has
# device-mapper a linear volume on it. iotriage must tell the partition from
# the disk, name the dm volume and its member, and show the IO done on each.
# Everything is created over a file in /dev/shm and removed at the end.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for losetup"; exit 77; }
command -v losetup >/dev/null && command -v sfdisk >/dev/null ||
	{ echo "SKIP: losetup or sfdisk missing"; exit 77; }
img=/dev/shm/iotriage-stack.$$
name=iotriage-test-$$
tmp=$(mktemp -d)
loop=""
dm_ok=0
cleanup() {
	[ $dm_ok -eq 1 ] && dmsetup remove "$name" 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -f "$img"
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
truncate -s 64M "$img"
echo 'label: dos
start=2048, size=61440, type=83' | sfdisk -q "$img" >/dev/null 2>&1 || fail "sfdisk"
loop=$(losetup -f --show -P "$img" 2>"$tmp/err") || { echo "SKIP: losetup refused: $(cat "$tmp/err")"; exit 77; }
part=${loop}p1
for i in 1 2 3 4 5; do [ -b "$part" ] && break; sleep 0.2; done
[ -b "$part" ] || { echo "SKIP: the kernel made no partition device for a partitioned loop device (no partition scanning on loop here)"; exit 77; }
target=$part
if command -v dmsetup >/dev/null && echo "0 61440 linear $part 0" | dmsetup create "$name" 2>/dev/null; then
	dm_ok=1
	target=/dev/mapper/$name
else
	echo "note: device-mapper unavailable in this kernel, testing the partition only"
fi
"$IOTRIAGE" capture "$tmp/t0" 2>/dev/null || fail "capture t0"
dd if="$target" of=/dev/null bs=64k count=256 iflag=direct 2>/dev/null || fail "dd"
sleep 1
"$IOTRIAGE" capture "$tmp/t1" 2>/dev/null || fail "capture t1"
"$IOTRIAGE" compute "$tmp/t0" "$tmp/t1" --json --all >"$tmp/c.json" || fail "compute"
dm=""
[ $dm_ok -eq 1 ] && dm=$(basename "$(readlink -f "$target")")
python3 - "$tmp/c.json" "$(basename "$loop")" "$(basename "$part")" "$dm" "$name" <<'PY' || fail "stack not seen right"
import json, sys
d = json.load(open(sys.argv[1]))
loop, part, dm, name = sys.argv[2:6]
disks = {x["disk_device"]: x for x in d["disks"]}
secs = d["interval_ms"] / 1000
assert disks[loop]["whole"] and not disks[part]["whole"], (disks[loop], disks[part])
for dev in [loop, part] + ([dm] if dm else []):
    v = disks[dev]
    kb = float(v["rkB/s"]) * secs
    # 16 MiB read through the stack; rates are rounded to 2 decimals
    assert v["valid"] and abs(kb - 16384) < 16384 * 0.02, (dev, kb, v)
if dm:
    assert disks[dm]["dm_name"] == name and disks[dm]["slaves"] == [part], disks[dm]
PY
echo ok
