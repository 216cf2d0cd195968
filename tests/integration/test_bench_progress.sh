#!/bin/sh
# Issue 23, long work shows progress: on a terminal `iotriage bench` and its
# queue-depth sweep keep one status line in fio's habit (job, % done,
# current bandwidth and IOPS, eta), redrawn each second and replaced by the
# result; with stdout not a terminal, or --output-format=json, nothing of
# it. A psync randread over a loop device in /dev/shm, in tmux (what the
# terminal received is logged raw by pipe-pane).
. "$SRCDIR/tests/integration/bench_lib.sh"
command -v tmux >/dev/null || skip "tmux missing"
bench_loop_setup 64
dev=$BENCH_DEV
tmp=$BENCH_TMP
WAIT=${TUI_TEST_WAIT:-30}
. "$SRCDIR/tests/integration/tui_lib.sh"
trap 'T kill-server 2>/dev/null; bench_cleanup' EXIT
job="--filename=$dev --rw=randread --bs=4k --ioengine=psync --direct=1 --name=prog"
esc=$(printf '\033')
cr=$(printf '\r')

# 1. one run on a terminal: the line while it runs, gone when the result is there
run_in one 120 80 bench $job --runtime=4 --time_based
T pipe-pane -o -t one "cat >>$tmp/one.raw"
line='^prog: \[r\(1\)\]\[[0-9]+\.[0-9]%\]\[r=[0-9.]+[KMG]iB/s\]\[r=[0-9.]+[kM]? IOPS\]\[eta [0-9]{2}m:[0-9]{2}s\] *$'
wait_for one "$line" || fail "no status line while the bench runs"
first=$(grep -E "$line" "$tmp/screen")
echo "status line: $first"
# it moves: a later line, further on
wait_for one "^prog: .*\]\[eta 00m:0[0-2]s\]" || fail "the status line does not count down: $first"
wait_for one '^exited rc=0' || fail "bench on a terminal: rc"
screen_has 'read: IOPS=' || fail "no result on the terminal"
screen_lacks '\[eta ' || fail "the status line stayed after the result"
# what the terminal got: redrawn in place ("\r" ... erase to end), then erased
grep -q "${cr}prog: \[r(1)\]" "$tmp/one.raw" || fail "the line is not drawn with a carriage return"
grep -q "${esc}\[K" "$tmp/one.raw" || fail "the line is not erased to its end"
T kill-session -t one

# 2. a sweep (libaio: psync has one depth): which depth of how many, % of
# the whole sweep
run_in sweep 120 80 bench $(echo "$job" | sed s/psync/libaio/) --runtime=3 --time_based --sweep-iodepth=1,2
wait_for sweep '^prog iodepth=[12] [12]/2: \[r\(1\)\]\[' || fail "no status line in a sweep"
wait_for sweep '^prog iodepth=2 2/2: \[r\(1\)\]\[[5-9][0-9]\.[0-9]%\]' ||
	fail "the sweep's second point: not past half way"
wait_for sweep '^exited rc=0' || fail "sweep on a terminal: rc"
screen_has '^Outstanding IOs' || fail "no sweep table"
screen_lacks '\[eta ' || fail "the status line stayed after the sweep's table"
T kill-session -t sweep

# 3. JSON on a terminal: nothing but the document
run_in json 120 80 bench $job --runtime=2 --time_based --output-format=json
T pipe-pane -o -t json "cat >>$tmp/json.raw"
wait_for json '^exited rc=0' || fail "json on a terminal: rc"
grep -q 'eta \|IOPS\]' "$tmp/json.raw" && fail "a status line with --output-format=json"
T kill-session -t json

# 4. stdout not a terminal: no line, no carriage return, no escape
"$IOTRIAGE" bench $job --runtime=2 --time_based >"$tmp/file.out" 2>"$tmp/file.err" ||
	fail "bench to a file: $(cat "$tmp/file.err")"
grep -q 'read: IOPS=' "$tmp/file.out" || fail "bench to a file: no result"
grep -q "eta \|$cr\|$esc" "$tmp/file.out" "$tmp/file.err" && fail "a status line in a file: $(od -c "$tmp/file.out" | head)"
# the status line's thread under a sanitizer: nothing reported (stderr of the tmux runs)
grep -lE 'Sanitizer|runtime error' "$tmp"/san-* "$tmp/file.err" 2>/dev/null &&
	fail "a sanitizer report: $(grep -hE -A5 'Sanitizer|runtime error' "$tmp"/san-* "$tmp/file.err")"
echo ok
