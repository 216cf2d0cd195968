#!/bin/sh
# The findings panel driven in tmux (a private server, killed at the end) as
# a person uses it, on a copy of the mpt2sas scenario that advance.py keeps
# advancing (so the embedded sampler measures CPU 1 drowning in the SAS HBA's
# interrupts, whatever the timing): f opens the panel, the finding shows its
# severity (in colour) and reason, the selected suggestion its exact commands
# and undo; a asks "Apply ID? [y/N]", n writes nothing, a y writes the 16
# /proc/irq/N/smp_affinity_list files of the copy (plain files there) and the
# status line says so, u y restores them. A healthy tree says "No findings".
# Then through iotriaged: apply and undo over its socket, and a --core-only
# daemon, whose samples carry no advice, is not called healthy. Assertions
# wait for the screen (up to $WAIT s), never for a fixed time.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"

A="$SRCDIR/tests/fixtures/advise"
tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pids=
daemon_pid=
cleanup() {
	T kill-server 2>/dev/null
	for p in $gen_pids; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# wait_count WINDOW REGEX N: N lines of the screen match within $WAIT s
count_is() { [ "$(grep -Ec -- "$1" "$tmp/screen")" -eq "$2" ]; }
wait_count() { screen_wait "$1" count_is "$2" "$3"; }
# status WINDOW REGEX: the status line (the last one) matches within $WAIT s
last_line_has() { tail -n 1 "$tmp/screen" | grep -Eq -- "$1"; }
status() { screen_wait "$1" last_line_has "$2"; }

# advancing copies of a scenario's t1: SCENARIO DIR
advancing() {
	cp -a "$A/$1/t1" "$2" || fail "copying $1"
	"$SRCDIR/tests/fixtures/advance.py" "$A/$1" "$2" 2 --loop 0.1 &
	gen_pids="$gen_pids $!"
	# python can take seconds to start on a loaded machine: wait for step 2
	# (t1 says 1010 s; each step adds the scenario's 10 s)
	n=0
	until awk '{ exit !($1 >= 1020) }' "$2/proc/uptime"; do
		[ $n -lt $((WAIT * 10)) ] || fail "the tree generator does not advance ($1)"
		sleep 0.1
		n=$((n + 1))
	done
}
root="$tmp/root"
advancing mpt2sas "$root"
advancing healthy "$tmp/healthy"

# the 16 affinities of the HBA's IRQs, on one line
affinities() {
	for i in $(seq 107 122); do
		printf '%s ' "$(cat "$root/proc/irq/$i/smp_affinity_list")"
	done
}
orig="0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 0-7 "
spread="0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 "
[ "$(affinities)" = "$orig" ] || fail "the copy does not start at 0-7: $(affinities)"
journal="$root/var/lib/iotriage/irq-spread-host0.undo"

# The pane runs the client, then says whether the tty modes came back and
# the exit status, and stays open. stderr (sanitizer reports) must stay empty.
run_in() { # WINDOW ARGS...
	w=$1
	shift
	cat >"$tmp/$w.sh" <<SH
s0=\$(stty -g)
"$IOTRIAGE" $* 2>"$tmp/san-$w"
rc=\$?
[ "\$s0" = "\$(stty -g)" ] && echo "tty-restored rc=\$rc" || echo "tty-changed rc=\$rc"
exec sleep 600
SH
	T new-session -d -s "$w" -n "$w" -x 200 -y 50 "env LANG=C.UTF-8 sh $tmp/$w.sh"
}

finding_row='^  warning +hot-cpu-cpu1 +cpu1: %irq 35\.00 \+ %soft 30\.00 = 65\.00% \(peers. median 1\.50%\), 81000 interrupts/s'
sugg_row='^  warning +irq-spread-host0 +16 IRQs of host0 put 80000 interrupts/s'

# the panel, its finding and the selected suggestion's commands and undo
# (each waited for: a capture may catch the terminal halfway through a redraw)
check_panel() { # WINDOW
	T send-keys -t "$1" f
	wait_for "$1" '^> Findings \(1\) +Suggestions \(1\)' || fail "$1: f opens the findings panel"
	wait_for "$1" "$finding_row" || fail "$1: the finding with its severity and reason"
	wait_for "$1" "$sugg_row" || fail "$1: the suggestion's row"
	# the suggestion is selected first: its reason, exact commands and undo
	wait_for "$1" '^Suggestion irq-spread-host0  \[warning\]  for hot-cpu-cpu1' ||
		fail "$1: the selected suggestion's title"
	wait_for "$1" '^Commands \(16; a applies them' || fail "$1: commands heading"
	wait_for "$1" '^  echo 0 > /proc/irq/107/smp_affinity_list$' || fail "$1: 1st command"
	wait_for "$1" '^  echo 7 > /proc/irq/122/smp_affinity_list$' || fail "$1: 16th command"
	wait_for "$1" '^Undo \(16; u restores' || fail "$1: undo heading"
	wait_for "$1" '^  echo 0-7 > /proc/irq/122/smp_affinity_list$' || fail "$1: 1st undo"
	wait_for "$1" '^  echo 0-7 > /proc/irq/107/smp_affinity_list$' || fail "$1: 16th undo"
	wait_count "$1" '^  echo ' 32 || fail "$1: 16 commands and 16 undo lines"
}

# ---- embedded, on the advancing mpt2sas copy ----
run_in emb --embedded --root "$root" --interval 500
wait_for emb ' fFindings\(1\) ' || fail "the footer names f and counts the finding"
check_panel emb
# the warning in yellow (SGR 33)
n=0
until T capture-pane -e -p -t emb | grep 'hot-cpu-cpu1' | head -n 1 | grep -q '33m'; do
	[ $n -lt $((WAIT * 10)) ] || fail "the warning severity is not yellow"
	sleep 0.1
	n=$((n + 1))
done
# the finding selected: its detail; a there asks nothing
T send-keys -t emb k
wait_for emb '^Finding hot-cpu-cpu1  \[warning\]  hot_cpu  cpu1' || fail "k selects the finding"
wait_for emb '^  IRQ 108 mpt2sas0-msix1 \[host0 0000:03:00\.0\] 6\.2%' ||
	fail "the finding's detail, one item per line"
wait_for emb '^Suggestion irq-spread-host0 answers it' || fail "the finding names its answer"
T send-keys -t emb a
status emb '^select a suggestion \(below the findings\) to apply it' || fail "a on a finding"
T send-keys -t emb j
wait_for emb '^Suggestion irq-spread-host0  \[warning\]' || fail "j selects the suggestion again"

# a asks; n writes nothing
T send-keys -t emb a
status emb '^Apply irq-spread-host0\? \[y/N\]' || fail "a asks for confirmation"
[ "$(affinities)" = "$orig" ] || fail "the question alone wrote: $(affinities)"
T send-keys -t emb n
status emb '^apply of irq-spread-host0 cancelled: nothing written' || fail "n cancels"
[ "$(affinities)" = "$orig" ] || fail "n wrote: $(affinities)"
[ ! -e "$journal" ] || fail "n left a journal"

# a y applies: the files, the journal, the status line
T send-keys -t emb a
status emb '^Apply irq-spread-host0\? \[y/N\]' || fail "a asks again"
T send-keys -t emb y
status emb '^irq-spread-host0 applied: 16 writes verified by reading back' ||
	fail "y: the status line says it was applied"
[ "$(affinities)" = "$spread" ] || fail "y did not spread the IRQs: $(affinities)"
[ -f "$journal" ] || fail "no undo journal under the root"
wait_for emb '^  warning +irq-spread-host0 \* ' || fail "the applied row is marked"
wait_for emb 'Applied here \(1\)' || fail "the title counts what was applied here"

# u y undoes
T send-keys -t emb u
status emb '^Undo irq-spread-host0\? \[y/N\]' || fail "u asks for confirmation"
[ "$(affinities)" = "$spread" ] || fail "the undo question alone wrote"
T send-keys -t emb y
status emb '^irq-spread-host0 undone: 16 values restored' || fail "u y: the status line"
[ "$(affinities)" = "$orig" ] || fail "u y did not restore 0-7: $(affinities)"
[ ! -e "$journal" ] || fail "the journal is left after undo"

# apply goes the CLI's way (apply_shown): a file changed since the advice
# read it is not written over. The apply and the undo each made the
# sampler read the topology again (the suggestion went, and comes back
# once it is read after the undo); then IRQ 107 moves behind its back, and
# a y writes nothing (before, the screen's writes went out regardless)
# (the read after the undo: at the next of these 0.5 s samples, and the
# next not for 10 s; the selection is the finding's if the row went)
wait_for emb "$sugg_row" || fail "the suggestion is not back after the undo"
sleep 1
T capture-pane -p -t emb >"$tmp/screen"
grep -q '^Suggestion irq-spread-host0  \[warning\]' "$tmp/screen" || T send-keys -t emb j
wait_for emb '^Suggestion irq-spread-host0  \[warning\]' || fail "the suggestion selected again"
echo 0-3 >"$root/proc/irq/107/smp_affinity_list"
T send-keys -t emb a
status emb '^Apply irq-spread-host0\? \[y/N\]' || fail "a asks after the undo"
T send-keys -t emb y
status emb "^apply failed: irq-spread-host0: IRQ 107's affinity changed since the suggestion \\(now 0-3, it read 0-7\\)" ||
	fail "a y over a changed file: not refused"
[ ! -e "$journal" ] || fail "a refused apply left a journal"
[ "$(cat "$root/proc/irq/108/smp_affinity_list")" = 0-7 ] || fail "a refused apply wrote"
echo 0-7 >"$root/proc/irq/107/smp_affinity_list"

T send-keys -t emb Escape
wait_for emb '^> Disks' || fail "Esc returns to the tables"
T send-keys -t emb q
wait_for emb '^tty-restored rc=0' || fail "q: exit 0 with the tty modes restored"

# ---- a healthy host ----
run_in ok --embedded --root "$tmp/healthy" --interval 500
wait_for ok ' fFindings ' || fail "healthy: the footer counts nothing"
T send-keys -t ok f
wait_for ok '^  No findings: nothing stands out on this host' || fail "healthy: No findings"
wait_for ok '^> Findings \(0\)  Suggestions \(0\)' || fail "healthy: the title"
T send-keys -t ok q
wait_for ok '^tty-restored rc=0' || fail "healthy: q"

# ---- through iotriaged ----
if [ -z "${IOTRIAGED:-}" ]; then
	[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
	echo "ok (daemon part skipped: \$IOTRIAGED not set)"
	exit 0
fi
start_daemon() { # EXTRA ARGS
	rm -f "$tmp/d.sock"
	"$IOTRIAGED" --foreground --socket "$tmp/d.sock" --root "$root" --interval 300 "$@" \
		2>>"$tmp/daemon.log" &
	daemon_pid=$!
	n=0
	while [ ! -S "$tmp/d.sock" ] && [ $n -lt $((WAIT * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -S "$tmp/d.sock" ] || fail "iotriaged did not create its socket: $(cat "$tmp/daemon.log")"
}
stop_daemon() {
	kill -TERM "$daemon_pid"
	wait "$daemon_pid" || fail "iotriaged exit status $?: $(cat "$tmp/daemon.log")"
	daemon_pid=
}

# the daemon's own uid may apply (SO_PEERCRED): this test runs as both
start_daemon
run_in dmn --socket "$tmp/d.sock"
check_panel dmn
T send-keys -t dmn a
status dmn '^Apply irq-spread-host0\? \[y/N\]' || fail "daemon: a asks"
T send-keys -t dmn n
status dmn 'cancelled: nothing written' || fail "daemon: n cancels"
[ "$(affinities)" = "$orig" ] || fail "daemon: n wrote: $(affinities)"
T send-keys -t dmn a
status dmn '^Apply irq-spread-host0\? \[y/N\]' || fail "daemon: a asks again"
T send-keys -t dmn y
status dmn '^iotriaged: irq-spread-host0 applied: 16 writes verified' ||
	fail "daemon: y applies through iotriaged"
[ "$(affinities)" = "$spread" ] || fail "daemon: the IRQs were not spread: $(affinities)"
grep -q 'apply irq-spread-host0 (uid ' "$tmp/daemon.log" || fail "daemon: apply not logged"
# the daemon re-reads the topology after apply: the suggestion is done
wait_for dmn '^Applied from this screen' || fail "daemon: the applied row stays to undo"
T send-keys -t dmn u
status dmn '^Undo irq-spread-host0\? \[y/N\]' || fail "daemon: u asks"
T send-keys -t dmn y
status dmn '^iotriaged: irq-spread-host0 undone: 16 values restored' ||
	fail "daemon: u y undoes through iotriaged"
[ "$(affinities)" = "$orig" ] || fail "daemon: undo did not restore 0-7: $(affinities)"
T send-keys -t dmn q
wait_for dmn '^tty-restored rc=0' || fail "daemon: q"
stop_daemon

# --core-only: samples without advice are "not known", never "healthy"
start_daemon --core-only
run_in core --socket "$tmp/d.sock"
wait_for core '^> Disks' || fail "core-only: the tables"
T send-keys -t core f
wait_for core '^  No advice: iotriaged sends none' || fail "core-only: no advice said so"
grep -q 'No findings' "$tmp/screen" && fail "core-only: called healthy"
T send-keys -t core a
status core '^select a suggestion' || fail "core-only: a has nothing to apply"
T send-keys -t core q
wait_for core '^tty-restored rc=0' || fail "core-only: q"
stop_daemon
[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
