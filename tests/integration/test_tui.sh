#!/bin/sh
# The live TUI driven in tmux (private server, killed at the end) on the
# tui-hot tree, which a generator advances in place every 0.1 s by exact
# per-second deltas, so every rate on screen is known whatever the timing:
# embedded mode (disk row, hot core in colour, IRQ affinities, help, sort,
# filter, pause, interval, resize, NO_COLOR, q, F10 and SIGTERM restore the
# terminal), a slow disk at low %util (the disk-slow scenario, kept advancing
# by tests/fixtures/advance.py) for the await colour, then against iotriaged
# (header, values, help, sort, resize, "DISCONNECTED" with the last data kept
# when it dies, reconnect when it returns). Assertions wait for the screen
# (up to $WAIT seconds), they never sleep a fixed time and hope.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"

tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pid=
slow_pid=
daemon_pid=
fake_pid=
cleanup() {
	[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null
	T kill-server 2>/dev/null
	[ -n "$gen_pid" ] && kill "$gen_pid" 2>/dev/null && wait "$gen_pid" 2>/dev/null
	[ -n "$slow_pid" ] && kill "$slow_pid" 2>/dev/null && wait "$slow_pid" 2>/dev/null
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

tree="$tmp/tree"
"$SRCDIR/tests/fixtures/tui-hot/advance.py" "$tree" 0 || fail "generating the tree"
"$SRCDIR/tests/fixtures/tui-hot/advance.py" "$tree" 1 --loop 0.1 &
gen_pid=$!
# a disk slow at low %util: r_await and w_await 45 ms, %util 15 (per step of
# 10 s: 20 r/s, 10 w/s), started now so python's start overlaps the rest
slow="$tmp/slow"
cp -a "$FIXTURES/advise/disk-slow/t1" "$slow" || fail "copying disk-slow"
"$SRCDIR/tests/fixtures/advance.py" "$FIXTURES/advise/disk-slow" "$slow" 2 --loop 0.1 &
slow_pid=$!
# python can take seconds to start on a loaded machine: wait for step 2
n=0
until grep -Eq '^(100[2-9]|10[1-9][0-9]|1[1-9][0-9][0-9])\.' "$tree/proc/uptime"; do
	[ $n -lt $((WAIT * 10)) ] || fail "the tree generator does not advance"
	sleep 0.1
	n=$((n + 1))
done

# The pane runs the client, then says whether the tty modes came back as
# they were and the exit status, and stays open so the test can read it.
# The client draws on stdout; its stderr (sanitizer reports) goes to a file
# that must stay empty.
run_in() { # WINDOW ARGS...
	w=$1
	shift
	cat >"$tmp/$w.sh" <<SH
s0=\$(stty -g)
${RUN_AS:-} "$IOTRIAGE" $* 2>"$tmp/san-$w"
rc=\$?
[ "\$s0" = "\$(stty -g)" ] && echo "tty-restored rc=\$rc" || echo "tty-changed rc=\$rc"
exec sleep 600
SH
	e="LANG=C.UTF-8${NO_COLOR:+ NO_COLOR=$NO_COLOR}"
	# a session per client: tmux 3.3a's server dies on new-window once a
	# detached window was resized by hand
	T new-session -d -s "$w" -n "$w" -x 80 -y 24 "env $e sh $tmp/$w.sh"
}

# e_has WINDOW NAME REGEX: in the pane with its escape sequences (-e), the
# line naming NAME matches REGEX; for screen_wait, as the colours of a row
# are only known once its values are there
e_has() {
	T capture-pane -e -p -t "$1" >"$tmp/screen.e"
	grep -- "$2" "$tmp/screen.e" | grep -Eq -- "$3"
}

# the last screen's first line is not TEXT
top_is_not() { [ "$(line_at 1)" != "$1" ]; }

# at 80 columns r/s w/s rkB/s wkB/s r_await w_await aqu-sz %util (issue 23)
disk_row='^sdb +100\.00 +500\.00 +400\.00 +16000\.00 +5\.00 +25\.00 +13\.00 +100\.00'

# ---- not a terminal: one snapshot table, no TUI ----
"$IOTRIAGE" --root "$tree" --interval 300 >"$tmp/pipe.out" 2>"$tmp/pipe.err" ||
	fail "iotriage into a pipe: $(cat "$tmp/pipe.err")"
grep -Eq '^sdb +100\.00 +500\.00 ' "$tmp/pipe.out" || fail "into a pipe: the snapshot table"
grep -q "$(printf '\033')" "$tmp/pipe.out" && fail "into a pipe: escape sequences"

# ---- embedded, colour, 80x24 ----
run_in emb --embedded --root "$tree"
wait_for emb "$disk_row" || fail "embedded: the saturated disk's row"
grep -Eq '^ iotriage +embedded +every 1s +host ' "$tmp/screen" || fail "header: mode, interval, host"
wait_for emb '^sda +50\.00 +0\.00 +200\.00 +0\.00 +0\.50 +0\.00 +0\.03 +3\.00' ||
	fail "the quiet disk's row"
grep -q 'svctm' "$tmp/screen" && fail "svctm should not fit in 80 columns"
# every mpstat -u column: %usr %nice %sys %iowait %irq %soft %steal %idle;
# HOT is the advisor's hot_cpu finding, which rises after 2 samples
wait_for emb '^0 HOT +10\.00 +0\.00 +10\.00 +0\.00 +35\.00 +45\.00 +0\.00 +0\.00 +25250\.00' ||
	fail "the hot core's row"
[ "$(grep -c HOT "$tmp/screen")" -eq 1 ] || fail "exactly one core is HOT"
wait_for emb '^30 +20000\.00 nvme0q1 +0-3 +0 +0:20\.0k' ||
	fail "IRQ 30 with its affinity 0-3, effective 0, landing on CPU 0"
wait_for emb '^31 +100\.00 nvme0q2 +0-3 +1 +1:100' || fail "IRQ 31 on CPU 1"
# the hot core on a red background, %util 100 in red: SGR 41 and 31
T capture-pane -e -p -t emb >"$tmp/screen.e"
grep '0 HOT' "$tmp/screen.e" | grep -q '41m' || fail "the hot core is not drawn on red"
grep 'sdb' "$tmp/screen.e" | grep -q '31m100\.00' || fail "%util 100 is not red"
# over --await-ms (20) yellow, under it plain (only spaces between values):
# w_await 25 and r_await 5; nothing of the idle disk sda
screen_wait emb e_has emb sdb ' 16000\.00 +5\.00 .\[33m +25\.00' ||
	fail "w_await 25 over 20 ms is not yellow, or r_await 5 is coloured"
screen_wait emb e_has emb sda ' 50\.00 +0\.00 +200\.00 +0\.00 +0\.50 +0\.00 +0\.03 +3\.00 *$' ||
	fail "the idle disk sda is coloured"

wait_for emb '^History: disk sdb ' || fail "the first (busiest) disk is selected at start"
T send-keys -t emb Down
wait_for emb '^History: disk sda ' || fail "Down moves the selection to sda"
T send-keys -t emb Up
wait_for emb '^History: disk sdb ' || fail "Up moves the selection back to sdb"


T send-keys -t emb -- -
wait_for emb '^ iotriage +embedded +every 0\.5s ' || fail "- shortens the interval to 0.5 s"
wait_for emb "$disk_row" || fail "the disk row at 0.5 s"
T send-keys -t emb +
wait_for emb '^ iotriage +embedded +every 1s ' || fail "+ lengthens the interval to 1 s"

T send-keys -t emb F1
wait_for emb '^Keys' || fail "F1 opens the help"
# PgDn page by page (the keys' part grows with the views) to the disks'
# columns, then what %util means; each PgDn must move the page
disks_seen=
n=0
until screen_has '^  %util +percentage of time the device had IO in flight'; do
	[ $n -lt 8 ] || fail "PgDn does not scroll the help to what %util means"
	screen_has '^Disks: iostat -x' && disks_seen=1
	top=$(line_at 1)
	T send-keys -t emb NPage
	screen_wait emb top_is_not "$top" || fail "PgDn does not scroll the help"
	screen_settle emb || fail "the help's page does not settle"
	n=$((n + 1))
done
[ -n "$disks_seen" ] || screen_has '^Disks: iostat -x' || fail "the help has no Disks part"
T send-keys -t emb x
wait_for emb '^> Disks' || fail "a key closes the help"
T send-keys -t emb '?'
wait_for emb '^Keys' || fail "? opens the help"
T send-keys -t emb Escape
wait_for emb '^> Disks' || fail "Esc closes the help"
T send-keys -t emb h
wait_for emb '^Keys' || fail "h opens the help"
T send-keys -t emb Escape
wait_for emb '^> Disks' || fail "Esc closes the help opened by h"

# busy first: by %util with no key pressed
grep -Eq 'Disks \(2\) +sort: %util' "$tmp/screen" || fail "the disks are not sorted by %util"
a=$(line_of '^sda '); b=$(line_of '^sdb ')
[ "$b" -lt "$a" ] || fail "sorted by %util: sdb above sda"
T send-keys -t emb s
wait_for emb 'Disks \(2\) +sort: IOPS' || fail "s sorts the disks by IOPS"
# F6 as s: the next key, and after the last one (name) back to %util
T send-keys -t emb F6
wait_for emb 'Disks \(2\) +sort: await' || fail "F6 sorts the disks by await"
T send-keys -t emb F6 F6 F6
wait_for emb 'Disks \(2\) +sort: name' || fail "F6 after kB/s sorts by name"
wait_for emb "$disk_row" || fail "disk row after F6"
a=$(line_of '^sda '); b=$(line_of '^sdb ')
[ "$a" -lt "$b" ] || fail "sorted by name: sda above sdb"
T send-keys -t emb s
wait_for emb 'Disks \(2\) +sort: %util' || fail "s after name sorts by %util again"
wait_for emb "$disk_row" || fail "disk row after sorting"

T send-keys -t emb / s d b Enter
wait_for emb 'Disks \(1 of 2\) +sort: %util +filter: sdb' || fail "/ filters the disks"
grep -q '^sda ' "$tmp/screen" && fail "the filter left sda"
T send-keys -t emb Escape
wait_for emb '^> Disks \(2\)' || fail "Esc clears the filter"
# Esc while typing clears it too
T send-keys -t emb / z
wait_for emb 'Disks \(0 of 2\) +sort: %util +filter: z' || fail "/ z matches no disk"
T send-keys -t emb Escape
wait_for emb '^> Disks \(2\) +sort: %util *$' || fail "Esc while typing clears the filter"
wait_for emb "$disk_row" || fail "the disk row after the filter was cleared"

T send-keys -t emb Tab
wait_for emb '^> CPUs' || fail "Tab moves to the CPUs"
wait_for emb '^History: cpu all ' || fail "Tab: the history shows the CPUs' selection"
T send-keys -t emb j j
wait_for emb 'History: cpu 1 ' || fail "j moves the selection, the history follows it"
T send-keys -t emb Tab
wait_for emb '^> IRQs' || fail "Tab moves to the IRQs"
wait_for emb '^History: irq 30 ' || fail "Tab: the history shows the IRQs' selection"
T send-keys -t emb BTab
wait_for emb '^> CPUs' || fail "Shift-Tab moves back to the CPUs"
wait_for emb '^History: cpu 1 ' || fail "Shift-Tab: the CPUs' selection was kept"
T send-keys -t emb Tab s
wait_for emb '^> IRQs \(4\) +sort: irq' || fail "sort of the IRQs panel"

T send-keys -t emb Space
wait_for emb 'PAUSED' || fail "space pauses"
T send-keys -t emb Space
wait_gone emb 'PAUSED' || fail "space resumes"

T resize-window -t emb -x 132 -y 40
wait_for emb 'wkB/s +rrqm/s' || fail "132 columns show wkB/s and more"
wait_for emb '^sdb +100\.00 +500\.00 +400\.00 +16000\.00 ' || fail "the disk row at 132 columns"
T resize-window -t emb -x 60 -y 16
wait_for emb '^ iotriage +embedded' || fail "redrawn at 60x16"
wait_for emb '^CPU ' || fail "the CPUs panel at 60x16"
T resize-window -t emb -x 80 -y 24

T send-keys -t emb q
wait_for emb '^tty-restored rc=0' || fail "q: exit 0 with the tty modes restored"
[ "$(T display -p -t emb '#{alternate_on}')" = 0 ] || fail "q left the alternate screen on"
[ "$(T display -p -t emb '#{cursor_flag}')" = 1 ] || fail "q left the cursor hidden"

# ---- the await threshold: a slow disk at low %util, then F10 ----
slow_row='^sdc +20\.00 +10\.00 +80\.00 +40\.00 +45\.00 +45\.00 +1\.35 +15\.00'
run_in slow --embedded --root "$slow"
run_in lenient --embedded --root "$slow" --await-ms 50
# no session name may be the prefix of another: tmux 3.3a matched -t slow
# to the window of a session named slow50 (a window name matches by prefix)
wait_for slow "$slow_row" || fail "the slow disk's row"
# r_await and w_await yellow; aqu-sz then %util 15 with only spaces between
screen_wait slow e_has slow sdc '\[33m +45\.00.*\[33m +45\.00.* 1\.35 +15\.00 *$' ||
	fail "r_await and w_await 45 over --await-ms 20 not yellow, or %util 15 coloured"
wait_for lenient "$slow_row" || fail "--await-ms 50: the slow disk's row"
screen_wait lenient e_has lenient sdc ' 40\.00 +45\.00 +45\.00 +1\.35 ' ||
	fail "--await-ms 50: r_await or w_await 45 is coloured"
grep -q '46m' "$tmp/screen.e" || fail "--await-ms 50: no colours at all (header not on cyan)"
T send-keys -t slow F10
wait_for slow '^tty-restored rc=0' || fail "F10: exit 0 with the tty modes restored"
[ "$(T display -p -t slow '#{alternate_on}')" = 0 ] || fail "F10 left the alternate screen on"
[ "$(T display -p -t slow '#{cursor_flag}')" = 1 ] || fail "F10 left the cursor hidden"
T send-keys -t lenient F1
wait_for lenient '^Keys' || fail "--await-ms 50: F1 opens the help"
T send-keys -t lenient F10
wait_for lenient '^tty-restored rc=0' || fail "F10 in the help: exit 0 with the tty restored"
kill "$slow_pid"
wait "$slow_pid" 2>/dev/null
slow_pid=

# ---- NO_COLOR, then SIGTERM ----
NO_COLOR=1 run_in nc --embedded --root "$tree"
wait_for nc "$disk_row" || fail "NO_COLOR: the disk row"
wait_for nc '^0 HOT' || fail "NO_COLOR: the hot finding rises"
T capture-pane -e -p -t nc >"$tmp/screen.e"
grep -Eq '\[(3[1-7]|4[1-7])m' "$tmp/screen.e" && fail "NO_COLOR still draws colours"
grep -q '0 HOT' "$tmp/screen.e" || fail "NO_COLOR: the hot core is still marked"
pane=$(T display -p -t nc '#{pane_pid}')
pid=$(pgrep -P "$pane" | head -n 1)
[ -n "$pid" ] || fail "no client process under pane $pane"
kill -TERM "$pid"
wait_for nc '^tty-restored rc=0' || fail "SIGTERM: exit 0 with the tty modes restored"
[ "$(T display -p -t nc '#{alternate_on}')" = 0 ] || fail "SIGTERM left the alternate screen on"

# ---- a daemon that refuses our hello: said so, retried ----
python3 - "$tmp/fake.sock" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
while True:
    c, _ = s.accept()
    c.makefile().readline()
    c.sendall(b'{"ok":false,"id":"hello","error":{"code":"version","message":"wrong version"}}\n')
    c.close()
PY
fake_pid=$!
run_in fake --socket "$tmp/fake.sock"
wait_for fake 'DISCONNECTED: wrong version; retrying' || fail "a refused hello is shown"
grep -Eq "^ iotriage +daemon $tmp/fake.sock .* DISCONNECTED *$" "$tmp/screen" ||
	fail "refused: the path and DISCONNECTED, apart, on the top line"
T send-keys -t fake q
wait_for fake '^tty-restored rc=0' || fail "refused hello: q restores the tty"
kill "$fake_pid"
wait "$fake_pid" 2>/dev/null
fake_pid=

# ---- against the daemon ----
if [ -z "${IOTRIAGED:-}" ]; then
	[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
	echo "ok (daemon part skipped: \$IOTRIAGED not set)"
	exit 0
fi
start_daemon() {
	"$IOTRIAGED" --foreground --socket "$tmp/d.sock" --root "$tree" --interval 500 \
		2>>"$tmp/daemon.log" &
	daemon_pid=$!
	n=0
	while [ ! -S "$tmp/d.sock" ] && [ $n -lt $((WAIT * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -S "$tmp/d.sock" ] || fail "iotriaged did not create its socket: $(cat "$tmp/daemon.log")"
}
start_daemon
# let the daemon collect some history before the client starts
python3 - "$tmp/d.sock" "$WAIT" <<'PY' || fail "daemon status"
import json, socket, sys, time
deadline = time.monotonic() + int(sys.argv[2])
while True:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    s.sendall(b'{"cmd":"status"}\n')
    r = json.loads(s.makefile().readline())
    s.close()
    if r["samples"] >= 8:
        break
    if time.monotonic() > deadline:
        sys.exit("iotriaged has only %d samples" % r["samples"])
    time.sleep(0.1)
PY
# the client reads no /proc/irq of its own (issue 31): the affinities come
# in the daemon's documents, so a client that cannot read the daemon's
# tree still shows them; here its /proc/irq is an empty tmpfs in the
# client's own mount namespace (root: without one, the client sees it)
cat >"$tmp/hide.sh" <<'SH'
d=$1
shift
mount -t tmpfs -o size=64k,mode=0700 hidden "$d" && exec "$@"
SH
if unshare -m --propagation private sh "$tmp/hide.sh" "$tree/proc/irq" \
	test ! -e "$tree/proc/irq/30" 2>/dev/null; then
	hide="unshare -m --propagation private sh $tmp/hide.sh $tree/proc/irq"
else
	hide=
	echo "(no mount namespace of its own: the client sees the daemon's /proc/irq)"
fi
RUN_AS=$hide run_in dmn --socket "$tmp/d.sock" --no-color
wait_for dmn "$disk_row" || fail "daemon: the disk row"
n=$(sed -n 's/^History: disk sdb .*(\([0-9]*\) samples).*/\1/p' "$tmp/screen")
[ -n "$n" ] && [ "$n" -ge 7 ] ||
	fail "the sparkline starts with the daemon's history (7+ samples), has '$n'"
grep -Eq "^ iotriage +daemon $tmp/d.sock +every 0\.5s +host " "$tmp/screen" ||
	fail "daemon header: socket and interval"
wait_for dmn '^0 HOT' || fail "daemon: the hot core"
wait_for dmn '^30 +20000\.00 nvme0q1 +0-3 +0 ' ||
	fail "daemon: IRQ affinities from the daemon's documents (the client cannot read its /proc/irq)"
T send-keys -t dmn +
wait_for dmn 'every 1s' || fail "+ asks the daemon for every 2nd sample"
T send-keys -t dmn F1
wait_for dmn '^Keys' || fail "daemon: F1 opens the help"
T send-keys -t dmn Escape
wait_for dmn '^> Disks' || fail "daemon: Esc closes the help"
grep -Eq 'Disks \(2\) +sort: %util' "$tmp/screen" || fail "daemon: the disks sorted by %util"
a=$(line_of '^sda '); b=$(line_of '^sdb ')
[ "$b" -lt "$a" ] || fail "daemon: sorted by %util: sdb above sda"
T resize-window -t dmn -x 132 -y 40
wait_for dmn '^sdb +100\.00 +500\.00 +400\.00 +16000\.00 ' || fail "daemon: the disk row at 132x40"
wait_for dmn 'wkB/s +rrqm/s' || fail "daemon: 132 columns show wkB/s and more"
grep -Eq "^ iotriage +daemon $tmp/d.sock +every 1s " "$tmp/screen" ||
	fail "daemon: the header at 132x40"
T resize-window -t dmn -x 80 -y 24
wait_for dmn "$disk_row" || fail "daemon: the disk row back at 80x24"
grep -q 'svctm' "$tmp/screen" && fail "daemon: svctm at 80 columns"

grep -q '^0 HOT' "$tmp/screen" || fail "daemon: the hot core at 80x24"

kill -TERM "$daemon_pid"
wait "$daemon_pid"
daemon_pid=
wait_for dmn 'DISCONNECTED' || fail "daemon gone: DISCONNECTED"
grep -Eq "$disk_row" "$tmp/screen" || fail "daemon gone: the last data stays"
start_daemon
wait_gone dmn 'DISCONNECTED' || fail "no reconnect after the daemon came back"
wait_for dmn "$disk_row" || fail "reconnected: the disk row"
T send-keys -t dmn q
wait_for dmn '^tty-restored rc=0' || fail "daemon mode: q restores the tty"
[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
