#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The series count of /metrics on the big-256 fixture host (256 CPUs, 128
# disks, 2,000 IRQ lines) is the one doc/prometheus.md states, and the IRQ
# lines stay capped: a change that adds a series per IRQ line and CPU, or a
# family per CPU, fails here instead of in somebody's Prometheus.
set -eu
BENCH="$BUILDDIR/tests/bench/bench_openmetrics"
[ -x "$BENCH" ] || { echo "SKIP: $BENCH not built"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$SRCDIR/tests/fixtures/make-trees.py" "$tmp" big-256 >/dev/null
out=$("$BENCH" "$tmp/big-256" 1)
echo "$out"
series=$(echo "$out" | sed -n 's/^exposition: \([0-9]*\) bytes, \([0-9]*\) series.*/\2/p')
want=$(sed -n 's/^big-256 host: \([0-9,]*\) series.*/\1/p' "$SRCDIR/doc/prometheus.md" | tr -d ,)
[ -n "$want" ] || { echo "FAIL: doc/prometheus.md states no big-256 series count"; exit 1; }
[ "$series" = "$want" ] || { echo "FAIL: big-256 has $series series, doc/prometheus.md says $want"; exit 1; }
echo "ok: big-256: $series series, as documented"
