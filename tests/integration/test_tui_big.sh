#!/bin/sh
# The live view on big hosts (issue 17), driven in tmux at 80x24 with no key
# pressed: on tests/fixtures/make-trees.py's big-256-hot (256 CPUs, 2000
# IRQ lines, cpu200 taking IRQ 24 nvme0q0 at 392k/s, %irq+%soft 48) and
# big-1024-hot (1024 CPUs, 4000 lines, cpu700), each copy kept advancing by
# tests/fixtures/advance.py:
#  - the findings line under the header names the hot core in words
#    ("WARN cpu200 irq+soft 48%: IRQ 24 nvme0q0 100%") on red/yellow;
#  - the CPUs panel sorts by %irq+%soft with the hot row pinned first, says
#    so in its title, and the hot row is on the first screen;
#  - the heat map: 256 CPUs in four lines of 64 at 80 columns, the hot
#    core's cell on red; at 1024 the lines around the hot core;
#  - [ and ] select the previous / next cell's CPU: the table follows;
#  - the IRQs grouped by device: nvme0's lines one row, Enter expands.
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
wait_for h256 '^ WARN cpu200 irq\+soft 48%: IRQ 24 nvme0q0 100%' ||
	fail "256: the findings line names cpu200 and IRQ 24 nvme0q0"
[ "$(line_of '^ WARN cpu200')" = 2 ] || fail "256: the findings line is not under the header"
grep -Eq 'CPUs \(256\) +sort: %irq\+%soft, hot first' "$tmp/screen" ||
	fail "256: the CPU panel's title says the sort"
grep -Eq '^200 HOT +5\.00 +5\.00 +30\.00 +18\.00 +39[0-9]{4}' "$tmp/screen" ||
	fail "256: the hot core's row is not on the first screen"
a=$(line_of '^all ')
b=$(line_of '^200 HOT')
[ "$b" = $((a + 1)) ] || fail "256: the hot row is not pinned under all"
# the heat map: four lines of 64 cells in groups of 8; cpu200 is the 9th
# cell of the line of 192, busy 58% (a half block)
for first in 0 64 128 192; do
	grep -Eq "^(p0)? +$first( [·▁▂▃▄▅▆▇█]{8}){8}\$" "$tmp/screen" ||
		fail "256: the heat map line of CPUs $first-$((first + 63))"
done
grep -Eq '^ +192 [▁]{8} ▅' "$tmp/screen" || fail "256: cpu200's cell"
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
# the IRQs grouped by device: nvme0's 16 lines that fired are one row
# (their total, on how many CPUs, the hottest and its share); Enter expands
grep -Eq 'IRQs \([0-9]+\) +sort: total/s, by device \(Enter expands\)' "$tmp/screen" ||
	fail "256: the IRQs title does not say they are grouped"
group_row='^\[16\] +392750\.0 \+ nvme0 +16 CPUs, hottest 200:392\.0k 100%'
grep -Eq "$group_row" "$tmp/screen" || fail "256: nvme0's group row"
grep -Eq '^24 +392000\.0 +nvme0q0' "$tmp/screen" && fail "256: nvme0q0 shown while folded"
# [ ] gave the CPUs panel the focus: Tab to the IRQs
T send-keys -t h256 Tab
wait_for h256 '^> IRQs' || fail "256: Tab from the CPUs to the IRQs"
T send-keys -t h256 Enter
wait_for h256 '^24 +392000\.0 +nvme0q0 ' || fail "256: Enter does not expand nvme0"
grep -Eq '^\[16\] +392750\.0 - nvme0 ' "$tmp/screen" || fail "256: the expanded group's row"
T send-keys -t h256 Enter
wait_gone h256 '^24 +392000\.0 +nvme0q0 ' || fail "256: Enter again does not fold nvme0"

# ---- 1024 CPUs, 4000 IRQ lines ----
run_in h1024 80 24 --root "$tmp/h1024"
wait_for h1024 '^ WARN cpu700 irq\+soft 48%: IRQ 24 nvme0q0 100%' ||
	fail "1024: the findings line names cpu700"
grep -Eq 'CPUs \(1024\) +sort: %irq\+%soft, hot first' "$tmp/screen" ||
	fail "1024: the CPU panel's title says the sort"
grep -Eq '^700 HOT +5\.00 +5\.00 +30\.00 +18\.00 ' "$tmp/screen" ||
	fail "1024: the hot core's row is not on the first screen"
grep -Eq '^ +640 ([▁]{8} ){7}[▁]{4}▅[▁]{3}$' "$tmp/screen" ||
	fail "1024: the heat map does not show cpu700's line"
[ -s "$tmp/san-h256" ] && fail "256: the client wrote to stderr"
[ -s "$tmp/san-h1024" ] && fail "1024: the client wrote to stderr"
T send-keys -t h256 q
T send-keys -t h1024 q
wait_for h256 '^exited rc=0' || fail "256: q exits 0"
wait_for h1024 '^exited rc=0' || fail "1024: q exits 0"
echo "PASS"
