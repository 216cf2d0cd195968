#!/bin/sh
# The live TUI against the real iotriaged while the daemon runs bench jobs
# (worker.start through `iotriage worker start`), driven in tmux (a private
# server): on a loop device over a file in /dev/shm, the job's line appears
# directly under the device's iostat row with non-zero IOPS, MB/s agreeing
# with 4 KiB blocks and latencies, and no CPU is marked (a loop device has
# no interrupts); once ended it says "done" with the daemon's final IOPS and
# stays. A job on a new file in /dev/shm (tmpfs: no block device) goes first
# in the panel and names its target. A client started while a job runs
# shows it at once (worker.status), clipped not wrapped at 60x16, and sees
# worker.stop as "stopped". Waits for the screen, never for a fixed time.
. "$SRCDIR/tests/integration/bench_lib.sh"
WAIT=${TUI_TEST_WAIT:-30}
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
[ -n "${IOTRIAGED:-}" ] || skip "\$IOTRIAGED not set (run through meson test)"
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ] ||
	skip "io_uring is disabled (kernel.io_uring_disabled)"
bench_loop_setup 64
DEV=$BENCH_DEV
name=$(basename "$DEV")
tmp=$BENCH_TMP
sock="$tmp/d.sock"
shm_file=/dev/shm/iotriage-tuiw-$$

. "$SRCDIR/tests/integration/tui_lib.sh"
daemon_pid=
cleanup() {
	T kill-server 2>/dev/null
	# the daemon stops a running job at exit and waits for it
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	rm -f "$shm_file"
	bench_cleanup
}
trap cleanup EXIT

# run_in SESSION COLS ROWS ARGS...: the client in its own tmux session; it
# then says whether the tty modes came back and its exit status
run_in() {
	s=$1 x=$2 y=$3
	shift 3
	cat >"$tmp/$s.sh" <<SH
s0=\$(stty -g)
"$IOTRIAGE" $* 2>"$tmp/san-$s"
rc=\$?
[ "\$s0" = "\$(stty -g)" ] && echo "tty-restored rc=\$rc" || echo "tty-changed rc=\$rc"
exec sleep 600
SH
	T new-session -d -s "$s" -x "$x" -y "$y" "env LANG=C.UTF-8 sh $tmp/$s.sh"
}

worker() { "$IOTRIAGE" worker "$@" --socket "$sock"; }

# "STATE IOPS" of the daemon's worker object, IOPS of reads rounded as the TUI shows them
status_read_iops() {
	worker status --json >"$tmp/status.json" || fail "worker status --json"
	python3 -c 'import json, sys; w = json.load(sys.stdin); print(w["state"], "%.0f" % w["read"]["iops"])' \
		<"$tmp/status.json" || fail "no read iops in $(cat "$tmp/status.json")"
}

# ---- the daemon, on the live host ----
"$IOTRIAGED" --foreground --socket "$sock" --interval 500 2>>"$tmp/daemon.log" &
daemon_pid=$!
n=0
until worker status >/dev/null 2>&1; do
	[ $n -lt $((WAIT * 10)) ] || fail "iotriaged does not answer worker.status"
	sleep 0.1
	n=$((n + 1))
done

run_in a 200 50 --socket "$sock" --no-color
wait_for a "^ iotriage +daemon $sock " || fail "the client's header"
# a host may have more disks than rows: show the loop device's, as a person would
T send-keys -t a / "$name" Enter
wait_for a "Disks \\([0-9]+( of [0-9]+)?\\) +sort: [^ ]+ +filter: $name" || fail "the disk filter"

# ---- a job on the loop device: its line under the device's row ----
worker start --filename="$DEV" --rw=randread --ioengine=io_uring --iodepth=8 --direct=1 \
	--runtime=4 --time_based >/dev/null || fail "worker start on $DEV"
job='^  job io_uring randread qd8'
# runtime so far / --ramp_time + --runtime, from the worker object's planned_s
running="$job: [1-9][0-9]* IOPS [0-9]+\.[0-9] MB/s lat avg [0-9.]+ ms p99 [0-9.]+ ms [0-9]+\.[0-9]/4s$"
if ! wait_for a "$running"; then
	# io_uring refused by a seccomp profile or an old kernel: a skip, not a bug
	if grep -Eq "$job failed:.*(not permitted|not implemented|not supported)" "$tmp/screen"; then
		skip "io_uring refused: $(grep -E "$job failed:" "$tmp/screen" | sed 's/^ *//')"
	fi
	fail "no running job line with non-zero IOPS"
fi
j=$(line_of "$running")
line_at $((j - 1)) | grep -Eq "^$name " || fail "the job line is not under $name's row"
set -- $(line_at "$j" | sed 's/.*qd8: \([0-9]*\) IOPS \([0-9.]*\) MB\/s.*/\1 \2/')
iops=$1 mbs=$2
[ "$iops" -ge 100 ] || fail "implausible IOPS $iops for a loop device over RAM"
# 4 KiB blocks: MB/s (10^6 bytes) = IOPS * 0.004096, within the rounding
awk -v i="$iops" -v m="$mbs" 'BEGIN { d = i * 0.004096 - m; exit !(d < 0.06 && d > -0.06) }' ||
	fail "$mbs MB/s is not $iops IOPS of 4 KiB"
grep -Eq '^[0-9]+ +(HOT +)?job' "$tmp/screen" && fail "a CPU is marked for a loop device's job"
[ "$(grep -c '^  job ' "$tmp/screen")" -eq 1 ] || fail "exactly one job line"

# ---- it ends: "done" with the daemon's final numbers, and stays ----
done_re="$job done: [1-9][0-9]* IOPS [0-9.]+ MB/s lat avg [0-9.]+ ms p99 [0-9.]+ ms [0-9]+\.[0-9]s$"
wait_for a "$done_re" || fail "the ended job does not say done"
j=$(line_of "$done_re")
line_at $((j - 1)) | grep -Eq "^$name " || fail "the done line is not under $name's row"
want=$(status_read_iops)
got="completed $(line_at "$j" | sed 's/.*done: \([0-9]*\) IOPS.*/\1/')"
[ "$got" = "$want" ] || fail "done shows '$got' IOPS, worker.status says '$want'"
sleep 2 # four samples later: the result is still there
wait_for a "$done_re" || fail "the result line went away at once"

# ---- a new file on tmpfs: no block device, so the line goes first ----
worker start --filename="$shm_file" --rw=write --ioengine=io_uring --iodepth=4 --bs=64k \
	--size=16m >/dev/null || fail "worker start on $shm_file"
file_re="^  job io_uring write qd4 done: [1-9][0-9]* IOPS .* on $shm_file\$"
wait_for a "$file_re" || fail "the tmpfs file's job line"
j=$(line_of "$file_re")
line_at $((j - 1)) | grep -q '^Device ' || fail "the tmpfs job's line is not first in the panel"
grep -Eq "$job" "$tmp/screen" && fail "the previous job's line stayed beside the new one"
n=0
while [ -e "$shm_file" ]; do # the bench removes a file it created
	[ $n -lt $((WAIT * 10)) ] || fail "$shm_file left behind"
	sleep 0.1
	n=$((n + 1))
done

# ---- a client started while a job runs; worker.stop ----
worker start --filename="$DEV" --rw=randread --ioengine=io_uring --iodepth=16 --direct=1 \
	--runtime=60 --time_based >/dev/null || fail "worker start (long job)"
n=0
until worker status | grep -q ': running'; do
	[ $n -lt $((WAIT * 10)) ] || fail "the long job does not run: $(worker status)"
	sleep 0.1
	n=$((n + 1))
done
run_in b 200 50 --socket "$sock" --no-color
long='^  job io_uring randread qd16: [0-9]+ IOPS'
wait_for b "$long" || fail "a client started during the job does not show it"
T send-keys -t b / "$name" Enter
wait_for b "Disks \\([0-9]+( of [0-9]+)?\\) +sort: [^ ]+ +filter: $name" || fail "the disk filter (b)"
wait_for b "$long" || fail "the job line after filtering"
j=$(line_of "$long")
line_at $((j - 1)) | grep -Eq "^$name " || fail "late client: the job line is not under $name's row"
T resize-window -t b -x 60 -y 16
wait_for b '^ (iotriage +)?daemon .*' || fail "60x16: the header"
wait_for b "$long" || fail "the job line at 60x16"
j=$(line_of "$long")
# clipped, not wrapped: the CPUs panel follows at once
line_at $((j + 1)) | grep -q '^  CPUs' || fail "60x16: what follows the job line"
worker stop >/dev/null || fail "worker stop"
wait_for b '^  job io_uring randread qd16 stopped: [0-9]+ IOPS' || fail "stopped, at 60x16"
wait_for a '^  job io_uring randread qd16 stopped: [0-9]+ IOPS' || fail "stopped, first client"

for s in a b; do
	T send-keys -t "$s" q
	wait_for "$s" '^tty-restored rc=0' || fail "$s: q does not exit 0 restoring the tty"
done
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "iotriaged exit status"
daemon_pid=
[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
