# The tmux side of the live-view tests (sourced, not run). Set before
# sourcing: $tmp, a directory the test removes at its end (the private tmux
# server's socket lives in it and goes with it), and $WAIT, seconds any
# screen assertion may wait. Assertions poll the screen every 0.1 s into
# $tmp/screen; they never sleep a fixed time and hope.
TMUX_TMPDIR=$tmp
export TMUX_TMPDIR
unset TMUX
tui_server="iotriage-$(basename "$0" .sh)-$$"
T() { tmux -L "$tui_server" -f /dev/null "$@"; }

# run_in WINDOW WIDTH HEIGHT ARGS...: a session WINDOW of that size running
# the client ($RUN_AS in front, NO_COLOR passed on when set; stderr, where
# sanitizers report, to $tmp/san-WINDOW, which must stay empty), then
# staying open so the test can read "exited rc=N".
run_in() {
	w=$1
	x=$2
	y=$3
	shift 3
	cat >"$tmp/$w.sh" <<SH
${RUN_AS:-} "$IOTRIAGE" $* 2>"$tmp/san-$w"
echo "exited rc=\$?"
exec sleep 600
SH
	# a session that outlives the test's own: killing the last of those
	# would end the server while the next one connects ("server exited
	# unexpectedly"); the test's cleanup kills the server with it
	T has-session -t iotriage-keep 2>/dev/null ||
		T new-session -d -s iotriage-keep "sleep 3600"
	T new-session -d -s "$w" -n "$w" -x "$x" -y "$y" \
		"env LANG=C.UTF-8${NO_COLOR:+ NO_COLOR=$NO_COLOR} sh $tmp/$w.sh"
}

# advance SRC TREE: keep TREE (a copy of SRC/t0 of a turbo or advise pair)
# advancing in the background (its pid added to $gen_pid), and wait for its
# second step: t0's uptime is 100000.00 and each step adds 5 s.
advance() {
	"$SRCDIR/tests/fixtures/advance.py" "$1" "$2" 1 --loop 0.1 &
	gen_pid="${gen_pid:-} $!"
	_n=0
	until grep -Eq '^1000(1[0-9]|[2-9][0-9])\.' "$2/proc/uptime"; do
		[ $_n -lt $((WAIT * 10)) ] || fail "the tree $2 does not advance"
		sleep 0.1
		_n=$((_n + 1))
	done
}

# What a sanitizer said: the clients' stderr files $tmp/san-*, the daemon's log.
sanitizer_reports() {
	for f in "$tmp"/san-*; do
		[ -s "$f" ] && { echo "--- $f:"; cat "$f"; }
	done
	[ -f "$tmp/daemon.log" ] && grep -E 'runtime error|Sanitizer' "$tmp/daemon.log"
	return 0
}
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/screen" ] && { echo "--- last screen:"; cat "$tmp/screen"; }
	[ -f "$tmp/daemon.log" ] && { echo "--- daemon log:"; tail -n 20 "$tmp/daemon.log"; }
	sanitizer_reports
	exit 1
}

# screen_wait WINDOW CMD...: CMD (reading $tmp/screen) succeeds within $WAIT
# s; its last output is in $tmp/check
screen_wait() {
	sw_w=$1
	shift
	n=0
	while [ $n -lt $((WAIT * 10)) ]; do
		T capture-pane -p -t "$sw_w" >"$tmp/screen" 2>/dev/null
		"$@" >"$tmp/check" 2>&1 && return 0
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}
screen_has() { grep -Eq -- "$1" "$tmp/screen"; }
# screen_settle WINDOW: the screen as it stands once two captures 0.1 s
# apart are the same (a frame caught while it is being written, its top
# line new and the rest old, is not judged)
screen_settle() {
	n=0
	T capture-pane -p -t "$1" >"$tmp/screen" 2>/dev/null
	while [ $n -lt $((WAIT * 10)) ]; do
		sleep 0.1
		T capture-pane -p -t "$1" >"$tmp/screen.next" 2>/dev/null
		cmp -s "$tmp/screen" "$tmp/screen.next" && return 0
		mv "$tmp/screen.next" "$tmp/screen"
		n=$((n + 1))
	done
	return 1
}
screen_lacks() { ! grep -Eq -- "$1" "$tmp/screen"; }
# wait_for WINDOW REGEX: the screen matches within $WAIT s
wait_for() { screen_wait "$1" screen_has "$2"; }
# wait_gone WINDOW REGEX: the screen stops matching within $WAIT s
wait_gone() { screen_wait "$1" screen_lacks "$2"; }
# line number of the first line matching REGEX in the last screen; line N of it
line_of() { grep -En -- "$1" "$tmp/screen" | head -n 1 | cut -d: -f1; }
line_at() { sed -n "${1}p" "$tmp/screen"; }
