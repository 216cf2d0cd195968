#!/bin/sh
# iotriage replay on a terminal, driven in tmux (a private server, killed at
# the end), on the committed version-1 recording (tests/fixtures/record-v1):
# the header says replay, the sample's time and id and a timeline; t is the
# next sample, T the previous, b jumps to a time typed on the status line
# (into the second daemon run); the disk panel shows the recorded disks; q
# quits with status 0. Assertions wait for the screen (up to $WAIT s).
# Skips (77) without tmux.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
trap 'T kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
rec="$FIXTURES/record-v1/rec"

RUN_AS="env TZ=UTC" run_in r 120 30 replay "$rec" --at @1795599812.559
wait_for r 'REPLAY.*2026-11-25 09:43:32 #3 ' || fail "no replay header at sample 3"
wait_for r 'vda' || fail "the recorded disk vda is not shown"
screen_has '\[-*\|-*\]' || fail "no timeline"
T send-keys -t r t
wait_for r '09:43:32 #4 ' || fail "t did not step to sample 4"
T send-keys -t r T
wait_for r '09:43:32 #3 ' || fail "T did not step back to sample 3"
T send-keys -t r T T
wait_for r '09:43:32 #1 ' || fail "T T did not step back to sample 1"
T send-keys -t r b
wait_for r 'jump to' || fail "b did not ask for a time"
T send-keys -t r '@1795599815.627' Enter
wait_for r '09:43:35 #10 ' || fail "b did not jump to the second run's sample 10"
T send-keys -t r q
wait_for r 'exited rc=0' || fail "q did not exit 0"

# IRQ affinity as recorded (issue 23), never n/a: iotriaged records the
# tui-hot tree (IRQ 30 nvme0q1 allowed on 0-3, effective 0), the tree goes
# away, the replay still shows them
if [ -n "${IOTRIAGED:-}" ]; then
	"$SRCDIR/tests/fixtures/tui-hot/advance.py" "$tmp/tree" 0 || fail "generating the tree"
	"$SRCDIR/tests/fixtures/tui-hot/advance.py" "$tmp/tree" 1 --loop 0.1 &
	gen=$!
	"$IOTRIAGED" --foreground --root "$tmp/tree" --socket "$tmp/d.sock" --interval 200 \
		--record "$tmp/rec" 2>"$tmp/daemon.log" &
	dpid=$!
	n=0
	until [ "$(find "$tmp/rec" -type f -size +1k 2>/dev/null | wc -l)" -gt 0 ] &&
		[ $n -gt 20 ]; do
		[ $n -lt $((WAIT * 10)) ] || fail "iotriaged records nothing"
		sleep 0.1
		n=$((n + 1))
	done
	kill "$dpid" "$gen"
	wait "$dpid" "$gen" 2>/dev/null
	rm -rf "$tmp/tree"
	run_in aff 120 30 replay "$tmp/rec"
	wait_for aff 'REPLAY' || fail "no replay of the tree's recording"
	# the first samples may predate the tree's first step: on to one
	# where IRQ 30 fired
	found=
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		if WAIT=1 wait_for aff '^30 +20000\.00 nvme0q1 '; then
			found=1
			break
		fi
		T send-keys -t aff t
	done
	[ -n "$found" ] || fail "the replay never shows IRQ 30"
	grep -Eq '^30 +20000\.00 nvme0q1 +0-3 +0 +0:20\.0k' "$tmp/screen" ||
		fail "the replay does not show IRQ 30's recorded affinity"
	screen_lacks '^[0-9]+ .* n/a ' || fail "the replay says n/a for an IRQ's affinity"
	T send-keys -t aff q
	wait_for aff 'exited rc=0' || fail "q did not exit 0 (aff)"
fi
r=$(sanitizer_reports)
[ -z "$r" ] || fail "sanitizer: $r"
echo ok
