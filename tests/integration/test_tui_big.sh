#!/bin/sh
# The live view on big hosts (issue 17), driven in tmux at 80x24 with no key
# pressed: on tests/fixtures/make-trees.py's big-256-hot (256 CPUs, 2000
# IRQ lines, cpu200 taking IRQ 75 nvme0q51 at 392k/s, %irq+%soft 48) and
# big-1024-hot (1024 CPUs, 4000 lines, cpu700), each copy kept advancing by
# tests/fixtures/advance.py:
#  - the findings line under the header names the hot core in words
#    ("WARN cpu200 irq+soft 48%: IRQ 75 nvme0q51 100%") in yellow;
#  - the CPUs panel sorts by %irq+%soft with the hot row pinned first, says
#    so in its title, and the hot row is on the first screen;
#  - the heat map: 256 CPUs in four lines of 64 at 80 columns, a line per
#    NUMA node (n0, n1), the hot core's cell on red; at 1024 the lines
#    around the hot core (node n5);
#  - [ and ] select the previous / next cell's CPU: the table follows;
#  - the IRQs grouped by device: nvme0's lines one row, Enter expands;
#  - the queue chain (Enter on a disk): hctx 50 of nvme0n1, CPUs 200-203,
#    IRQ 75 nvme0q51 landing on the hot core, its load and BLOCK softirqs,
#    first and on red; the same in `compute --json`'s "blk-mq"; capture
#    records every mq/N/cpu_list.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
# Skips (77) without tmux or python3.
set -u
WAIT=${TUI_TEST_WAIT:-40}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
unset NO_COLOR
LC_ALL=C.UTF-8
export LC_ALL

# the trees are big (88 MB at 1024 CPUs): memory, not disk
tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pid=
cleanup() {
	T kill-server 2>/dev/null
	for p in $gen_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$SRCDIR/tests/fixtures/make-trees.py" "$tmp" big-256-hot big-1024-hot ||
	fail "make-trees.py big-256-hot big-1024-hot"

# keep TREE advancing one step a second (a 45 MB interrupts file takes
# a while to write: a faster loop would only load the machine)
advance_big() {
	cp -a "$1/t0" "$2" || fail "copy $1/t0"
	"$SRCDIR/tests/fixtures/advance.py" "$1" "$2" 1 --loop 1 &
	gen_pid="${gen_pid:-} $!"
}
advance_big "$tmp/big-256-hot" "$tmp/h256"
advance_big "$tmp/big-1024-hot" "$tmp/h1024"

# ---- 256 CPUs ----
run_in h256 80 24 --root "$tmp/h256"
wait_for h256 '^ WARN cpu200 irq\+soft 48%: IRQ 75 nvme0q51 100%' ||
	fail "256: the findings line names cpu200 and IRQ 75 nvme0q51"
[ "$(line_of '^ WARN cpu200')" = 2 ] || fail "256: the findings line is not under the header"
grep -Eq 'CPUs \(256\) +sort: %irq\+%soft, hot first' "$tmp/screen" ||
	fail "256: the CPU panel's title says the sort"
wait_for h256 '^200 HOT +5\.00 +0\.00 +5\.00 +0\.00 +30\.00 +18\.00 +0\.00 +42\.00 +39[0-9]{4}' ||
	fail "256: the hot core's row is not on the first screen"
a=$(line_of '^all ')
b=$(line_of '^200 HOT')
[ "$b" = $((a + 1)) ] || fail "256: the hot row is not pinned under all"
# the heat map: four lines of 64 cells in groups of 8; cpu200 is the 9th
# cell of the line of 192, busy 58% (a half block)
for first in 0 64 128 192; do
	case $first in
	0) label='n0 ' ;;
	128) label='n1 ' ;;
	*) label='' ;;
	esac
	wait_for h256 "^$label +$first( [·▁▂▃▄▅▆▇█]{8}){8}\$" ||
		fail "256: the heat map line of CPUs $first-$((first + 63))"
done
wait_for h256 '^ +192 [▁]{8} ▅' || fail "256: cpu200's cell"
T capture-pane -e -p -t h256 >"$tmp/screen.e"
grep -E ' 192 ' "$tmp/screen.e" | grep -q '41m▅' || fail "256: cpu200's cell is not on red"
grep -E 'm WARN cpu200' "$tmp/screen.e" | grep -q '33m' || fail "256: a warning's line is not yellow"
# [ from "all": the last cell, cpu255, selected; the table scrolls to it
T send-keys -t h256 '['
wait_for h256 '^255 +5\.00' || fail "256: [ selects cpu255 in the table"
T send-keys -t h256 '['
wait_for h256 '^254 +5\.00' || fail "256: [ selects cpu254, the previous cell"
T send-keys -t h256 ']' ']'
wait_for h256 '^255 +5\.00' || fail "256: ] selects cpu255 again, and stops at the last cell"
# the IRQs grouped by device: nvme0's 17 lines that fired are one row
# (their total, on how many CPUs, the hottest and its share); Enter expands
grep -Eq 'IRQs \([0-9]+(, [0-9]+ idle hidden: z shows)?\) +sort: total/s, by device \(Enter expands\)' "$tmp/screen" ||
	fail "256: the IRQs title does not say they are grouped"
group_row='^\[17\] +392800\.0 \+ nvme0 +17 CPUs, hottest 200:392\.0k 100%'
wait_for h256 "$group_row" || fail "256: nvme0's group row"
grep -Eq '^75 +392000\.0 +nvme0q51' "$tmp/screen" && fail "256: nvme0q51 shown while folded"
# [ ] gave the CPUs panel the focus: Tab to the IRQs
T send-keys -t h256 Tab
wait_for h256 '^> IRQs' || fail "256: Tab from the CPUs to the IRQs"
T send-keys -t h256 Enter
wait_for h256 '^75 +392000\.0 +nvme0q51 ' || fail "256: Enter does not expand nvme0"
wait_for h256 '^\[17\] +392800\.0 - nvme0 ' || fail "256: the expanded group's row"
T send-keys -t h256 Enter
wait_gone h256 '^75 +392000\.0 +nvme0q51 ' || fail "256: Enter again does not fold nvme0"

# the queue chain: Enter on nvme0n1 (the first disk, selected at start):
# hctx 50 serves CPUs 200-203, completes through IRQ 75 nvme0q51 on the
# hot core, whose BLOCK softirqs run at 380k/s; busiest queue first, on red
T send-keys -t h256 Tab
wait_for h256 '^> Disks' || fail "256: Tab back to the disks"
T send-keys -t h256 Enter
wait_for h256 '^> nvme0n1 r_await [0-9.]+ w_await [0-9.]+ ms %util 50\.00; 63 hctx of nvme0, 16 fired' ||
	fail "256: Enter on nvme0n1 does not open its queue chain"
[ "$(line_of '^ +50 200-203 +75 +nvme0q51 ')" = 5 ] ||
	fail "256: hctx 50 is not the first queue of the chain"
# (waited for: a sample that read the tree while advance.py rewrote it in
# place has some rates of one step and the uptime of another)
wait_for h256 '^ +50 200-203 +75 +nvme0q51 +392000\.0 200 HOT +48\.00 380000\.0 +58\.00$' ||
	fail "256: hctx 50's chain: IRQ 75 on cpu200, its load and BLOCK softirqs"
wait_for h256 '^ +3 12-15 +28 +nvme0q4 +50\.00 12 +2\.00 +0\.00 +12\.00$' ||
	fail "256: hctx 3's chain"
T capture-pane -e -p -t h256 >"$tmp/screen.e"
grep -E 'nvme0q51' "$tmp/screen.e" | grep -q '41m' || fail "256: the hot queue's row is not on red"
T send-keys -t h256 Escape
wait_for h256 '^  CPUs \(256\)' || fail "256: Esc closes the chain view"

# the same chain in the JSON (doc/json.md), from the recorded pair
"$IOTRIAGE" compute "$tmp/big-256-hot/t0" "$tmp/big-256-hot/t1" --json >"$tmp/c256.json" ||
	fail "compute --json on big-256-hot"
python3 - "$tmp/c256.json" <<'PY' || fail "256: the blk-mq section of compute --json"
import json, sys
d = json.load(open(sys.argv[1]))
mq = {x["disk"]: x for x in d["blk-mq"]}
n0 = mq["nvme0n1"]
assert n0["controller"] == "nvme0" and n0["nr_hw_queues"] == 63, n0
q = {x["hctx"]: x for x in n0["queues"]}
want = {"hctx": 50, "cpu_list": "200-203", "irq": "75", "irq_name": "nvme0q51",
        "irq/s": 392000.0, "cpu": "200", "cpu_irq/s": 392000.0, "cpu_irq": 30.0,
        "cpu_soft": 18.0, "cpu_busy": 58.0, "BLOCK/s": 380000.0}
assert q[50] == want, q[50]
# idle queues are left out; the ones that fired are listed
assert 49 not in q and 3 in q and len(q) == 16, sorted(q)
assert len(mq) == 16 and mq["nvme15n1"]["nr_hw_queues"] == 63
PY
# capture records each queue's cpu_list
"$IOTRIAGE" capture "$tmp/cap" --root "$tmp/big-256-hot/t1" >/dev/null 2>&1 ||
	fail "capture --root big-256-hot/t1"
[ "$(cat "$tmp/cap/sys/block/nvme0n1/mq/50/cpu_list")" = 200-203 ] ||
	fail "capture: nvme0n1's mq/50/cpu_list"
[ "$(find "$tmp/cap/sys/block" -name cpu_list | wc -l)" = $((16 * 63)) ] ||
	fail "capture: every queue's cpu_list"

# ---- 1024 CPUs, 4000 IRQ lines ----
run_in h1024 80 24 --root "$tmp/h1024"
wait_for h1024 '^ WARN cpu700 irq\+soft 48%: IRQ 68 nvme0q44 100%' ||
	fail "1024: the findings line names cpu700"
grep -Eq 'CPUs \(1024\) +sort: %irq\+%soft, hot first' "$tmp/screen" ||
	fail "1024: the CPU panel's title says the sort"
wait_for h1024 '^700 HOT +5\.00 +0\.00 +5\.00 +0\.00 +30\.00 +18\.00 +0\.00 +42\.00 ' ||
	fail "1024: the hot core's row is not on the first screen"
wait_for h1024 '^n5 +640 ([▁]{8} ){7}[▁]{4}▅[▁]{3}$' ||
	fail "1024: the heat map does not show cpu700's line"
[ -s "$tmp/san-h256" ] && fail "256: the client wrote to stderr"
[ -s "$tmp/san-h1024" ] && fail "1024: the client wrote to stderr"
T send-keys -t h256 q
T send-keys -t h1024 q
wait_for h256 '^exited rc=0' || fail "256: q exits 0"
wait_for h1024 '^exited rc=0' || fail "1024: q exits 0"
echo "PASS"
