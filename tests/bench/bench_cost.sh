#!/bin/sh
# The daemon's cost with many processes (issue 17), side by side in one
# run: N sleeping processes (default 2 000), then over the same window
#   - iotriaged as installed (default --cpu-budget 0.5),
#   - iotriaged --core-only (what iostat and mpstat read),
#   - iotriaged --cpu-budget 0 (every sample scans /proc/PID/io: before),
#   - pidstat -d 1 and atop 1 (both read every process every second),
# each measured from /proc/PID/schedstat (CPU time, all threads): the
# daemons per own sample, the tools per elapsed second (one report each).
# Usage: tests/bench/bench_cost.sh BUILDDIR [SECONDS [PROCESSES]]
# BEFORE=PATH (an older iotriaged binary) adds it, as installed, to the same
# window: before/after of a change in one run on a noisy machine.
# doc/PERFORMANCE.md ("Daemon cost") records a run.
set -eu
build=${1:?usage: bench_cost.sh BUILDDIR [SECONDS [PROCESSES]]}
secs=${2:-60}
nproc_want=${3:-2000}
daemon="$build/src/daemon/iotriaged"
[ -x "$daemon" ] || { echo "bench_cost: $daemon: not built" >&2; exit 1; }
for t in pidstat atop socat; do
	command -v $t >/dev/null ||
		{ echo "bench_cost: $t missing (scripts/deps-debian.txt: sysstat, atop, socat)" >&2; exit 1; }
done
tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# the sleepers: children of one holder, killed with it (PR_SET_PDEATHSIG)
python3 -c '
import ctypes, os, signal, sys, time
libc = ctypes.CDLL(None)
for i in range(int(sys.argv[1])):
    if os.fork() == 0:
        libc.prctl(1, signal.SIGKILL)
        time.sleep(86400)
        os._exit(0)
open(sys.argv[2], "w").write("ready")
time.sleep(86400)
' "$nproc_want" "$tmp/ready" &
pids="$pids $!"
until [ -s "$tmp/ready" ]; do sleep 0.1; done

cpu_ns() {
	t=0
	for f in /proc/"$1"/task/*/schedstat; do
		t=$((t + $(cut -d' ' -f1 "$f")))
	done
	echo $t
}
status_of() {
	printf '{"cmd":"status"}\n' | socat -t 5 - "UNIX-CONNECT:$1" |
		python3 -c "import json,sys; s = json.load(sys.stdin); print($2)"
}
uptime_cs() { tr -d . </proc/uptime | cut -d' ' -f1; }

start_daemon() { # NAME FLAGS...
	name=$1
	shift
	"$daemon" --foreground --socket "$tmp/$name.sock" --interval 1000 --history 60 "$@" \
		2>"$tmp/$name.log" &
	eval "pid_$name=$!"
	pids="$pids $!"
}
start_daemon default
start_daemon core --core-only
start_daemon every --cpu-budget 0
before=${BEFORE:-}
names="default core every"
if [ -n "$before" ]; then
	daemon_now=$daemon
	daemon=$before
	start_daemon before
	daemon=$daemon_now
	names="$names before"
fi
pidstat -d 1 >/dev/null &
pid_pidstat=$!
atop 1 >/dev/null 2>&1 </dev/null &
pid_atop=$!
pids="$pids $pid_pidstat $pid_atop"
for n in $names; do
	i=0
	until [ -S "$tmp/$n.sock" ] && status_of "$tmp/$n.sock" 's["samples"]' >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "bench_cost: daemon $n did not start" >&2; exit 1; }
		sleep 0.05
	done
done
# past the start: two full scans, the cadence measured
sleep 5
procs=$(ls /proc | grep -c '^[0-9]')
e0=$(uptime_cs)
for n in $names; do
	eval "c0_$n=\$(cpu_ns \$pid_$n) s0_$n=\$(status_of $tmp/$n.sock 's[\"samples\"]')"
done
p0=$(cpu_ns $pid_pidstat) a0=$(cpu_ns $pid_atop)
sleep "$secs"
for n in $names; do
	eval "c1_$n=\$(cpu_ns \$pid_$n) s1_$n=\$(status_of $tmp/$n.sock 's[\"samples\"]')"
done
p1=$(cpu_ns $pid_pidstat) a1=$(cpu_ns $pid_atop)
e1=$(uptime_cs)
budget=$(status_of "$tmp/default.sock" 'json.dumps(s["cpu_budget"])')
if [ -n "$before" ]; then
	python3 -c 'import sys; c0, c1, n0, n1, k0, k1, m0, m1 = map(int, sys.argv[1:])
b = (c1 - c0) / 1000 / max(n1 - n0, 1); k = (k1 - k0) / 1000 / max(m1 - m0, 1)
print("%-36s %12.1f %9.1fx" % ("BEFORE (as installed)", b, b / k))' \
		"$c0_before" "$c1_before" "$s0_before" "$s1_before" "$c0_core" "$c1_core" "$s0_core" "$s1_core"
fi

echo "host: $(uname -r), $(nproc) CPUs, $procs processes; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$((e1 - e0))" "$c0_default" "$c1_default" "$s0_default" "$s1_default" \
	"$c0_core" "$c1_core" "$s0_core" "$s1_core" "$c0_every" "$c1_every" "$s0_every" "$s1_every" \
	"$p0" "$p1" "$a0" "$a1" "$budget" <<'PY'
import json, sys
a = sys.argv[1:]
secs = int(a[0]) / 100
def per(c0, c1, n0, n1):
    return (int(c1) - int(c0)) / 1000 / max(int(n1) - int(n0), 1)
d = per(*a[1:5]); c = per(*a[5:9]); e = per(*a[9:13])
p = (int(a[14]) - int(a[13])) / 1000 / secs
t = (int(a[16]) - int(a[15])) / 1000 / secs
b = json.loads(a[17])
print("window %.1f s; default daemon's cadence: a scan every %d samples (scan %d us, rest %d us)"
      % (secs, b["scan_every"], b["scan_us"], b["base_us"]))
for k, v in b.get("sources", {}).items():
    print("  %-10s every %3d  %6d us a read" % (k, v["every"], v["cost_us"]))
print("%-36s %12s %10s" % ("", "us/sample", "x core"))
for name, v in (("iotriaged (default, --cpu-budget 0.5)", d), ("iotriaged --core-only", c),
                ("iotriaged --cpu-budget 0 (scan always)", e), ("pidstat -d 1", p), ("atop 1", t)):
    print("%-36s %12.1f %9.1fx" % (name, v, v / c))
PY
