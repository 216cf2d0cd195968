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
r=$(sanitizer_reports)
[ -z "$r" ] || fail "sanitizer: $r"
echo ok
