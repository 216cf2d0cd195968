#!/bin/sh
# iotriaged's cost, measured beside the tools it replaces (issue 3):
#  - daemon CPU per sample (from /proc/PID/schedstat) at 1 Hz and 10 Hz with
#    0, 1 and 50 subscribers (and with --core-only, 0 and 50), while `iostat -x 1` and `mpstat -I ALL -P ALL 1`
#    run over the same window and are measured the same way;
#  - sample-to-subscriber latency (p50/p99/max, from the start of collection)
#    for each run with subscribers, and the fan-out (p50/p99: how long after
#    the first subscriber the others got the same sample);
#  - RSS with a full 600 s history at 1 Hz (RSS_SECONDS=600, the default; it
#    runs in the background while the CPU runs go on).
# Usage: tests/bench/bench_daemon.sh BUILDDIR [SECONDS_1HZ [SECONDS_10HZ]]
# Results on stdout; doc/PERFORMANCE.md ("iotriaged") records a run.
set -eu
build=${1:?usage: bench_daemon.sh BUILDDIR [SECONDS_1HZ [SECONDS_10HZ]]}
secs1=${2:-30}
secs10=${3:-10}
rss_secs=${RSS_SECONDS:-600}
daemon="$build/src/daemon/iotriaged"
client="$build/tests/bench/bench_daemon"
floor="$build/tests/bench/bench_floor"
for p in "$daemon" "$client" "$floor"; do
	[ -x "$p" ] || { echo "bench_daemon: $p: not built" >&2; exit 1; }
done
command -v iostat >/dev/null && command -v mpstat >/dev/null ||
	{ echo "bench_daemon: iostat/mpstat missing (apt-get install sysstat)" >&2; exit 1; }
tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

cpu_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }
# elapsed time in centiseconds: sleep(1) may overshoot on a busy VM, and
# iostat/mpstat print one report per elapsed second, not per second asked
uptime_cs() { tr -d . </proc/uptime | cut -d' ' -f1; }
# status_of SOCKET EXPR: a field of the daemon's status reply (s = the reply)
status_of() {
	printf '{"cmd":"status"}\n' | socat -t 5 - "UNIX-CONNECT:$1" |
		python3 -c "import json,sys; s = json.load(sys.stdin); print($2)"
}
samples() { status_of "$1" 's["samples"]'; }
wait_sock() {
	i=0
	until printf '{"cmd":"status"}\n' | socat -t 1 - "UNIX-CONNECT:$1" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 200 ] || { echo "bench_daemon: daemon on $1 did not start" >&2; exit 1; }
		sleep 0.05
	done
}

# RSS with a full history: 600 samples at 1 Hz, left running in the background
# (every source, and --core-only)
"$daemon" --foreground --socket "$tmp/rss.sock" --interval 1000 --history 600 2>"$tmp/rss.log" &
rss_pid=$!
"$daemon" --foreground --socket "$tmp/rssc.sock" --interval 1000 --history 600 --core-only \
	2>"$tmp/rssc.log" &
rssc_pid=$!
pids="$pids $rss_pid $rssc_pid"
wait_sock "$tmp/rss.sock"
wait_sock "$tmp/rssc.sock"
rss_start=$(date +%s)

echo "host: $(uname -r), $(nproc) CPUs; iotriaged $("$daemon" --version | cut -d' ' -f2); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-5s %-5s %8s %14s %14s %14s %7s %13s %7s %8s  %s\n' rate mode subs samples \
	"daemon_us/smp" "iostat_us/smp" "mpstat_us/smp" ratio "floor_us/smp" "best" "tick_us" \
	"latency from collect start"
for hz in 1 10; do
	if [ "$hz" = 1 ]; then itv=1000 secs=$secs1; else itv=100 secs=$secs10; fi
	# full: every source; core: --core-only (what iostat and mpstat read)
	for run in full:0 full:1 full:50 core:0 core:50; do
		mode=${run%:*} subs=${run#*:}
		flag=""
		[ "$mode" = core ] && flag=--core-only
		sock="$tmp/d$hz-$mode-$subs.sock"
		"$daemon" --foreground --socket "$sock" --interval $itv --history 60 $flag \
			2>"$tmp/d.log" &
		dpid=$!
		pids="$pids $dpid"
		wait_sock "$sock"
		lat=""
		if [ "$subs" -gt 0 ]; then
			"$client" "$sock" "$subs" $((secs + 2)) >"$tmp/lat" &
			cpid=$!
			pids="$pids $cpid"
		fi
		iostat -x 1 >/dev/null &
		ipid=$!
		mpstat -I ALL -P ALL 1 >/dev/null &
		mpid=$!
		# the floor: wake at the same rate, pread the five files, nothing else
		"$floor" $itv >/dev/null &
		fpid=$!
		pids="$pids $ipid $mpid $fpid"
		sleep 1
		d0=$(cpu_ns $dpid) i0=$(cpu_ns $ipid) m0=$(cpu_ns $mpid) f0=$(cpu_ns $fpid)
		s0=$(samples "$sock")
		e0=$(uptime_cs)
		sleep "$secs"
		d1=$(cpu_ns $dpid) i1=$(cpu_ns $ipid) m1=$(cpu_ns $mpid) f1=$(cpu_ns $fpid)
		s1=$(samples "$sock")
		e1=$(uptime_cs)
		tick=$(status_of "$sock" 's["tick_us"]["avg"]')
		kill $ipid $mpid $fpid
		wait $fpid || true
		if [ "$subs" -gt 0 ]; then
			wait $cpid || { echo "bench_daemon: subscriber client failed" >&2; exit 1; }
			lat=$(cat "$tmp/lat")
		fi
		kill $dpid
		wait $dpid || true
		pids="$rss_pid $rssc_pid"
		python3 - "$hz" "$mode" "$subs" $((e1 - e0)) "$d0" "$d1" "$i0" "$i1" "$m0" "$m1" "$s0" "$s1" "$tick" "$lat" \
			"$f0" "$f1" <<'PY'
import sys
hz, mode, subs, secs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) / 100
d0, d1, i0, i1, m0, m1, s0, s1 = map(int, sys.argv[5:13])
tick, lat = int(sys.argv[13]), sys.argv[14]
f0, f1 = map(int, sys.argv[15:17])
n = s1 - s0
d = (d1 - d0) / 1000 / n          # daemon: us per own sample
i = (i1 - i0) / 1000 / secs       # iostat/mpstat: one report per second
m = (m1 - m0) / 1000 / secs
# the floor ticks at the daemon's interval over the same window: as many
# ticks as the daemon's samples
f = (f1 - f0) / 1000 / max(n, 1)
print("%-6s %-5s %-5s %8d %14.1f %14.1f %14.1f %6.1fx %13.1f %6.1fx %8d  %s"
      % (hz + "Hz", mode, subs, n, d, i, m, (i + m) / d, f, (i + m) / f, tick, lat))
PY
	done
done

# wait for the history to fill, then read RSS
now=$(date +%s)
left=$((rss_secs + 5 - (now - rss_start)))
[ $left -le 0 ] || sleep $left
for r in rss:$rss_pid rssc:$rssc_pid; do
	st=$(printf '{"cmd":"status"}\n' | socat -t 5 - "UNIX-CONNECT:$tmp/${r%:*}.sock")
	echo "$st" | python3 -c '
import json, sys
s = json.load(sys.stdin)
h = s["history"]
print("%s history: %d samples kept, %d bytes of encoded samples (%.0f bytes each)"
      % ("core-only" if s["core_only"] else "full", h["count"], h["bytes"],
         h["bytes"] / max(h["count"], 1)))'
	grep -E '^(VmRSS|VmHWM|RssAnon|RssFile)' "/proc/${r#*:}/status" | tr -s ' \t' ' ' | paste -sd' '
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
