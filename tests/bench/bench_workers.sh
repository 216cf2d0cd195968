#!/bin/sh
# iotriage bench vs Debian's fio, side by side on the same loop device over
# /dev/shm: 4k randread, iodepth 32, one job, io_uring and libaio, alternating
# runs (fio, iotriage, fio, iotriage...) so drift on a shared machine hits
# both. Reports IOPS, CPU per IO (user+sys of the whole process tree, from
# getrusage of the children) and p99 clat, and the ratios to fio.
# Usage: tests/bench/bench_workers.sh BUILD_DIR [ROUNDS] [SECONDS]
set -eu
build=${1:?usage: bench_workers.sh BUILD_DIR [ROUNDS] [SECONDS]}
rounds=${2:-3}
secs=${3:-5}
iotriage="$build/tui/iotriage"
command -v fio >/dev/null || { echo "fio not installed"; exit 77; }
img=$(mktemp /dev/shm/iotriage-benchw.XXXXXX)
dev=""
cleanup() { [ -n "$dev" ] && losetup -d "$dev"; rm -f "$img"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
truncate -s 1G "$img"
dev=$(losetup -f --show "$img")
# lay the image out so reads hit real pages, not holes
dd if=/dev/urandom of="$dev" bs=1M count=1024 oflag=direct status=none
python3 "$(dirname "$0")/bench_workers.py" "$iotriage" "$dev" "$rounds" "$secs"
