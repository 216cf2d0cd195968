#!/bin/sh
# Second oracle: sysstat's own recorded hosts (tests/fixtures/sysstat/rootN).
# Debian's iostat and mpstat take their two samples from each genuine pair of
# roots (see sysstat_roots.py for how); every value they print equals ours to
# two decimals, or differs for one of the deliberate, named reasons listed in
# doc/metrics.md. Then the process name source: a tree without
# /proc/PID/comm names the process from /proc/PID/stat, as pidstat does.
set -u
here=$(cd "$(dirname "$0")" && pwd)
roots="$FIXTURES/sysstat"
command -v iostat >/dev/null && command -v mpstat >/dev/null ||
	{ echo "SKIP: sysstat (iostat, mpstat) not installed"; exit 77; }
unshare -m true 2>/dev/null || { echo "SKIP: unshare -m not permitted here"; exit 77; }
cc=${CC:-cc}
command -v "$cc" >/dev/null || { echo "SKIP: no C compiler for the pause() shim"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# built here, not by meson: a sanitized build's module could not be preloaded
# into the uninstrumented /usr/bin/iostat
"$cc" -shared -fPIC -O2 -o "$tmp/oracle_pause.so" "$here/oracle_pause.c" || exit 1
python3 "$here/sysstat_roots.py" "$IOTRIAGE" "$tmp/oracle_pause.so" "$roots"
rc=$?
[ $rc -ne 0 ] && exit $rc

# root3 -> root4 with one change: gnome-shell (pid 7900) read 4 kB in the
# interval, so it is listed. The roots have /proc/PID/stat but no comm.
cp -r "$roots/root3" "$roots/root4" "$tmp/"
[ ! -e "$tmp/root4/proc/7900/comm" ] || { echo "FAIL: fixture has a comm file"; exit 1; }
sed -i 's/^read_bytes: 13144064$/read_bytes: 13148160/' "$tmp/root4/proc/7900/io"
"$IOTRIAGE" compute "$tmp/root3" "$tmp/root4" --json 2>/dev/null >"$tmp/out.json" || exit 1
python3 - "$tmp/out.json" <<'PY' || exit 1
import json, sys
top = json.load(open(sys.argv[1]))["processes"]["top_io"]
assert [(p["pid"], p["comm"]) for p in top] == [(7900, "gnome-shell")], top
PY
echo "comm from /proc/PID/stat: ok"

# root4 -> root5: CPU 3 went offline and came back (idle fell): no cpu-load
# row, but its /proc/interrupts column counted on and the text says so.
"$IOTRIAGE" compute "$roots/root4" "$roots/root5" 2>/dev/null >"$tmp/out.txt" || exit 1
grep -q '^3 .*idle went backwards.*; intr/s 10946\.76)$' "$tmp/out.txt" ||
	{ echo "FAIL: CPU 3's intr/s missing from the text report"; grep '^3 ' "$tmp/out.txt"; exit 1; }
echo "intr/s of a CPU without a cpu-load row: ok"
