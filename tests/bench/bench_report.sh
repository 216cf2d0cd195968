#!/bin/sh
# iotriage report on a 24-hour recording (issue 32): the recording a daemon
# with the default compaction leaves (the last hour at 1 Hz, the 23 before
# one sample in 10: 11 880 samples), written by bench_record day from a
# committed recording's payloads (record-v6: every section, the processes
# scanned every sample, the trace; record-v5: the same without the trace),
# rendered RUNS times; replay --json of the same recording beside it in the
# same run (the floor: every sample replayed through the sampler). Prints
# the CPU (user + sys) and wall time of each, and the page's size.
# doc/PERFORMANCE.md ("The incident report") records a run.
# Usage: tests/bench/bench_report.sh BUILDDIR [RUNS]
set -eu
build=${1:?usage: bench_report.sh BUILDDIR [RUNS]}
runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for v in 6 5; do
	"$build/tests/bench/bench_record" day "$here/../fixtures/record-v$v/rec" "$tmp/day$v" 24 10
	i=0
	while [ "$i" -lt "$runs" ]; do
		/usr/bin/time -f "record-v$v 24 h: report %U+%S s CPU, %e s wall, %M KB RSS" \
			"$build/tui/iotriage" report "$tmp/day$v" -o "$tmp/page.html"
		/usr/bin/time -f "record-v$v 24 h: replay --json %U+%S s CPU, %e s wall" \
			"$build/tui/iotriage" replay --json "$tmp/day$v" 2>"$tmp/err" >/dev/null ||
			cat "$tmp/err"
		tail -n 1 "$tmp/err"
		i=$((i + 1))
	done
	echo "record-v$v 24 h: page $(wc -c <"$tmp/page.html") bytes"
	rm -rf "$tmp/day$v"
done
