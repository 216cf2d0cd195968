#!/bin/sh
# A database host's first screen at 80x24 (issue 29), over the victims
# fixture advancing (tests/fixtures/victims/README.md): sda saturated by a
# neighbour, writes at 5 ms but flushes at 900 ms, and
# postgresql@15-main.service waiting on io 61 % of the time.
#  - the commit path: f/s and f_await on the first screen beside w_await,
#    though at 80 columns they rank after a dozen others when flushes are
#    fast (fails before issue 29: f_await appeared only at 200 columns);
#  - the headline names the disk, its proof, and the victim with its wait;
#  - p's scan line speaks in seconds, never "every N samples".
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

cp -a "$FIXTURES/victims/t0" "$tmp/v" || fail "copy victims/t0"
"$SRCDIR/tests/fixtures/advance.py" "$FIXTURES/victims" "$tmp/v" 1 --loop 0.2 &
gen_pid="$!"

run_in v80 80 24 --embedded --root "$tmp/v"
wait_for v80 '^sda ' || fail "sda's row"
wait_for v80 '^Device .* w_await .* f/s +f_await$' ||
	fail "80: f/s and f_await beside w_await when flushes are slow"
wait_for v80 '^sda .* 5\.00 +95\.00 +100\.00 +100\.00 +900\.00$' || fail "80: sda's w_await 5, f/s 100, f_await 900"
# cause, culprit (none measured in this tree) and victim in one line
wait_for v80 '^ CRIT sda saturated: util 100\.00% — postgresql@15-main(\.service)? io 61%' ||
	fail "80: the headline without its victim"
line=$(line_at 2)
[ "$(printf '%s' "$line" | wc -m)" -le 80 ] || fail "the headline is wider than the terminal"
echo "headline: $line"
# f: the finding says the flushes' wait and who waits
T send-keys -t v80 f
wait_for v80 'Flushes wait 900 ms each' || fail "the findings panel does not say the flushes"
wait_for v80 'postgresql@15-main.service some 61% full 40%' ||
	fail "the findings panel does not say who waits"
echo PASS
