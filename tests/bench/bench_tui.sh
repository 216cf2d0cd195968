#!/bin/sh
# The live view's cost per frame on big hosts (issue 17): make-trees.py's
# big-256-hot and big-1024-hot (one hot core), each sampled twice by the
# embedded sampler (the copy advanced between) and drawn FRAMES times by
# bench_tui at 80x24 and 200x50. doc/PERFORMANCE.md ("the live view on a
# big host") records a run.
# Usage: tests/bench/bench_tui.sh BUILDDIR [FRAMES]
set -eu
build=${1:?usage: bench_tui.sh BUILDDIR [FRAMES]}
frames=${2:-500}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$here/../fixtures/make-trees.py" "$tmp" big-256-hot big-1024-hot
for n in 256 1024; do
	for size in 80x24 200x50; do
		rm -rf "$tmp/w"
		cp -a "$tmp/big-$n-hot/t0" "$tmp/w"
		"$build/tests/bench/bench_tui" "$tmp/w" \
			"python3 $here/../fixtures/advance.py $tmp/big-$n-hot $tmp/w 1" "$frames" "$size"
	done
done
