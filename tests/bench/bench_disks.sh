#!/bin/sh
# Pairing many disks: `iotriage compute` over a recorded pair with N disks
# (default 50000) whose AFTER lists them in the opposite order of BEFORE, so
# the same-order hint never helps (tests/bench/make_disks.py). Prints the
# median wall time of ROUNDS runs of each binary given, alternating them so
# machine noise hits both alike. doc/PERFORMANCE.md ("disk pairing") records
# a run. Usage: tests/bench/bench_disks.sh IOTRIAGE [IOTRIAGE_REF] [N] [ROUNDS]
set -eu
new=${1:?usage: bench_disks.sh IOTRIAGE [IOTRIAGE_REF] [N] [ROUNDS]}
ref=${2:-}
n=${3:-50000}
rounds=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$here/make_disks.py" "$here/../fixtures/edge-cpus" "$tmp" "$n"
echo "disks: $n, AFTER in reverse order; diskstats $(wc -c <"$tmp/t0/proc/diskstats") bytes"
python3 - "$tmp" "$rounds" "$new" $ref <<'PY'
import statistics, subprocess, sys, time
tree, rounds, bins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
times = {b: [] for b in bins}
for _ in range(rounds):
    for b in bins:
        t = time.monotonic()
        subprocess.run([b, "compute", tree + "/t0", tree + "/t1", "--json", "--all"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times[b].append(time.monotonic() - t)
for b in bins:
    print("%-50s median %8.3f s  min %8.3f s  (%d runs)"
          % (b, statistics.median(times[b]), min(times[b]), rounds))
PY
