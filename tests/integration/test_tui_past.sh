#!/bin/sh
# The past, live (issue 23, "Read the past live"): at 80x24, the time keys
# of the live view move over the samples kept by the client, the tables and
# the headline those of the sample chosen, its time and age in the header's
# PAST word, n back to now.
#  - a daemon (--interval 500) over tui-hot advancing with --ramp: sdb's r/s
#    grows every step (each sample's value its own) and sdb saturates at
#    step 12 (the headline: cpu0 hot, then sdb saturated). b jumps to a
#    sample before the saturation (its time given as @EPOCH.MS, from the
#    daemon's own history reply), < steps back 3 samples, > 1 forward: each
#    time the screen shows that sample's sdb r/s, time and headline, as the
#    daemon's document says; n is now again (PAST gone, sdb saturated);
#  - at 80, 100 and 200 columns, paused in the past, then the daemon gone:
#    PAUSED, PAST, the clock and DISCONNECTED on the top line, apart;
#  - a recording daemon keeping 3 s in memory, its recording begun by a
#    daemon whose clock was 12 minutes behind (libfaketime; without it this
#    part is skipped): b to a time older than the client's first history
#    (600 s) asks the daemon's history that far back, which reaches into the
#    recording: that recorded sample's values and time, < the one before,
#    i its 10 s made by the daemon from its recording (as replay --step 10s
#    says), the recording hidden from the client (a mount namespace);
#  - embedded over the same tree: < then i (10 s): "every" says the
#    interval (the metrics over it) and PAST stays; n is now again;
#  - a replay (record-v1): > < and n, t still a step.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
# Skips (77) without tmux or python3.
set -u
WAIT=${TUI_TEST_WAIT:-40}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
[ -n "${IOTRIAGED:-}" ] || skip "\$IOTRIAGED not set (run through meson test)"
LC_ALL=C.UTF-8
export LC_ALL

tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pid=
daemon_pids=
cleanup() {
	T kill-server 2>/dev/null
	for p in $gen_pid $daemon_pids; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	# libfaketime leaves its shared clock in /dev/shm, named by the pid
	# that loaded it: the faked daemon's, removed here
	[ -n "${old_pid:-}" ] && rm -f "/dev/shm/faketime_shm_$old_pid" "/dev/shm/sem.faketime_sem_$old_pid"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

tree=$tmp/tree
gen=$SRCDIR/tests/fixtures/tui-hot/advance.py
"$gen" "$tree" 0 --ramp 12 || fail "writing the tree"
"$gen" "$tree" 1 --loop 0.5 --ramp 12 &
gen_pid=$!

# start_daemon SOCKET ARGS...: iotriaged on the tree, its socket up
start_daemon() {
	sock=$1
	shift
	"$IOTRIAGED" --foreground --socket "$sock" --root "$tree" --interval 500 "$@" \
		2>>"$tmp/daemon.log" &
	daemon_pid=$!
	daemon_pids="$daemon_pids $daemon_pid"
	n=0
	while [ ! -S "$sock" ] && [ $n -lt $((WAIT * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -S "$sock" ] || fail "iotriaged did not create $sock"
}
start_daemon "$tmp/d.sock"
d_pid=$daemon_pid
# a recording 12 minutes old (libfaketime: the daemon's wall clock behind,
# its monotonic clock as it is), out of reach of the client's first history
# (600 s) but within the 900 recorded samples a daemon's history sends
# before its ring (at 1 s), in the directory the recording daemon goes on with
mkdir -m 0700 "$tmp/rec"
faketime_lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1 \
	2>/dev/null | head -n 1)
old_pid=
if [ -n "$faketime_lib" ]; then
	# (an ASan build: its runtime is not the first library then)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
		LD_PRELOAD=$faketime_lib FAKETIME=-720 DONT_FAKE_MONOTONIC=1 \
		"$IOTRIAGED" --foreground --socket "$tmp/o.sock" --root "$tree" --interval 1000 \
		--record "$tmp/rec" 2>>"$tmp/daemon.log" &
	old_pid=$!
	daemon_pids="$daemon_pids $old_pid"
fi
# the embedded client samples the same tree from now on (i's 10 s need them)
run_in emb 80 24 --embedded --root "$tree" --interval 500 --no-color
emb_start=$(date +%s)

# history.py SOCKET SECONDS: the daemon's samples of the last SECONDS (a
# recording's included), as "ts_ms id rs severity subject" lines, oldest
# first: sdb's r/s as the screen shows it, the headline's finding
history() {
	python3 - "$1" "$2" <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b'{"cmd":"history","seconds":%d}\n' % int(sys.argv[2]))
f = s.makefile()
r = json.loads(f.readline())
for d in r["samples"]:
    rs = [x["r/s"] for x in d.get("disks", []) if x.get("disk_device") == "sdb"]
    fi = d.get("findings")
    top = fi[0] if fi else None
    print(d["timestamp_ms"], d["sample"], "%.2f" % rs[0] if rs else "-",
          top["severity"] if top else ("-" if fi is not None else "none"),
          top["subject"] if top else "-")
PY
}
# hhmmss MS: the local time of a timestamp, as the PAST word says it
hhmmss() { python3 -c 'import sys,time; print(time.strftime("%H:%M:%S", time.localtime(int(sys.argv[1]) / 1000)))' "$1"; }
sev_word() { case $1 in critical) echo CRIT ;; warning) echo WARN ;; *) echo INFO ;; esac; }

# until sdb is saturated in the daemon's documents: 12 steps of 0.5 s, then its rise
n=0
until history "$tmp/d.sock" 600 >"$tmp/h" && grep -q ' critical sdb$' "$tmp/h"; do
	[ $n -lt $((WAIT * 10)) ] || fail "sdb never saturated: $(cat "$tmp/h")"
	sleep 0.2
	n=$((n + 1))
done

# ---- daemon: jump, step back and forward, now ----
run_in dmn 80 24 --socket "$tmp/d.sock" --no-color
wait_for dmn '^ *CRIT sdb' || fail "daemon: the saturated disk's headline now"
screen_has 'PAST' && fail "daemon: PAST before any time key"
history "$tmp/d.sock" 600 >"$tmp/h"
# the target: a sample with cpu0 first (before the saturation), 3 samples after
# the first of the history, whose r/s differs from its neighbours'
target=$(awk '{ ts[NR] = $1; rs[NR] = $3; sub_[NR] = $5 }
	END { for (i = NR; i > 4; i--)
		if (sub_[i] == "cpu0" && sub_[i - 3] == "cpu0" && rs[i] != rs[i - 3] &&
		    rs[i] != rs[i - 2] && rs[i] != "0.00" && rs[i - 3] != "0.00") { print i; exit } }' "$tmp/h")
[ -n "$target" ] || fail "no sample before the saturation to go to: $(cat "$tmp/h")"
# expect LINE: the screen shows sample LINE of $tmp/h: PAST at its time,
# sdb's r/s, the headline's severity and subject
expect() {
	set -- $(sed -n "${1}p" "$tmp/h")
	t=$(hhmmss "$1")
	rs=$(printf '%s' "$3" | sed 's/\./\\./')
	wait_for dmn "PAST $t -" || fail "daemon: PAST $t (sample $2)"
	wait_for dmn "^sdb +$rs " || fail "daemon: sample $2's sdb r/s $3"
	head -n 2 "$tmp/screen" | tail -n 1 | grep -Eq "^ *$(sev_word "$4") $5 " ||
		fail "daemon: sample $2's headline: $(sev_word "$4") $5"
	head -n 1 "$tmp/screen" | grep -Eq "PAST $t -[0-9].*  [0-9]{2}:[0-9]{2}:[0-9]{2}" ||
		fail "daemon: PAST and the clock, apart on the top line"
}
ts=$(sed -n "${target}p" "$tmp/h" | cut -d' ' -f1)
T send-keys -t dmn b
wait_for dmn 'jump to' || fail "daemon: b asks for a time"
T send-keys -t dmn "@$((ts / 1000)).$(printf '%03d' $((ts % 1000)))" Enter
expect "$target"
T send-keys -t dmn '<' '<' '<'
expect $((target - 3))
T send-keys -t dmn '>'
expect $((target - 2))
T send-keys -t dmn n
wait_gone dmn 'PAST' || fail "daemon: n is now again"
wait_for dmn '^ *CRIT sdb' || fail "daemon: now, the saturated disk's headline again"
T send-keys -t dmn '<'
wait_for dmn 'PAST [0-9:]{8} -[0-9]+s' || fail "daemon: < from now is the sample before"
T send-keys -t dmn i
wait_for dmn 'i: the daemon does not record' || fail "daemon: i says why not"

# the status words own their places at 80, 100 and 200 columns: PAUSED,
# PAST and the clock on the left, DISCONNECTED on the right, none written
# over another (fields drop whole: at 80 the name and the socket path)
for size in 80x24 100x30 200x50; do
	run_in "p${size%x*}" "${size%x*}" "${size#*x}" --socket "$tmp/d.sock" --no-color
done
for w in 80 100 200; do
	wait_for "p$w" '^sdb ' || fail "${w} columns: the disk row"
	T send-keys -t "p$w" '<' '<' Space
	wait_for "p$w" 'PAUSED  PAST [0-9:]{8} -' || fail "${w} columns: PAUSED and PAST"
done
kill "$d_pid"
wait "$d_pid" || fail "iotriaged's exit on SIGTERM"
for w in 80 100 200; do
	wait_for "p$w" 'DISCONNECTED' || fail "${w} columns: DISCONNECTED"
	top=$(line_at 1)
	path="daemon $tmp/d.sock  "
	[ "$w" = 80 ] && path=
	printf '%s\n' "$top" | grep -Eq "^ (iotriage  )?${path}PAUSED  PAST [0-9:]{8} -[0-9]+m?[0-9]*s  (every [0-9.]+s  )?(host [^ ]+  )?[0-9]{2}:[0-9]{2}:[0-9]{2} +DISCONNECTED(: .*; retrying)?$" ||
		fail "${w} columns: the top line '$top'"
	[ "${#top}" -le "$w" ] || fail "${w} columns: the top line is ${#top} long"
done

# ---- a recording daemon: back past its ring and the client's history, into the recording ----
if [ -n "$old_pid" ]; then
	history "$tmp/o.sock" 600 >"$tmp/ho" || fail "the 12-minutes-old daemon's history"
	kill "$old_pid"
	wait "$old_pid" || fail "the 12-minutes-old daemon's exit"
	start_daemon "$tmp/r.sock" --history 3 --record "$tmp/rec" --interval 1000
	# the client never opens the daemon's recording (issue 31): i asks the
	# daemon (history "at"), so a client that cannot read the directory
	# widens all the same; here it is an empty tmpfs in the client's own
	# mount namespace (root: without one, the client sees it)
	cat >"$tmp/hide.sh" <<'SH'
d=$1
shift
mount -t tmpfs -o size=64k,mode=0700 hidden "$d" && exec "$@"
SH
	hide=
	if unshare -m --propagation private sh "$tmp/hide.sh" "$tmp/rec" \
		sh -c '[ -z "$(ls -A "$1")" ]' - "$tmp/rec" 2>/dev/null; then
		hide="unshare -m --propagation private sh $tmp/hide.sh $tmp/rec"
	else
		echo "(no mount namespace of its own: the client sees the recording)"
	fi
	RUN_AS=$hide run_in rec 80 24 --socket "$tmp/r.sock" --no-color
	wait_for rec '^sdb ' || fail "recording daemon: the disk row"
	screen_has 'PAST' && fail "recording daemon: PAST before any time key"
	set -- $(sed -n 6p "$tmp/ho")
	T send-keys -t rec b "@$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))" Enter
	t=$(hhmmss "$1")
	wait_for rec "PAST $t -1[12]m" || fail "recording daemon: PAST $t (recorded sample $2)"
	wait_for rec "^sdb +$(printf '%s' "$3" | sed 's/\./\\./') " ||
		fail "recording daemon: recorded sample $2's sdb r/s $3"
	T send-keys -t rec '<'
	set -- $(sed -n 5p "$tmp/ho")
	wait_for rec "^sdb +$(printf '%s' "$3" | sed 's/\./\\./') " ||
		fail "recording daemon: < to recorded sample $2's sdb r/s $3"
	# i: 10 s ending at that sample, read from the recording as replay --step does
	rs=$("$IOTRIAGE" replay "$tmp/rec" --json --step 10s --at "@$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))" |
		python3 -c 'import json,sys; d=json.loads(sys.stdin.readline()); print("%.2f" % [x["r/s"] for x in d["disks"] if x["disk_device"] == "sdb"][0])') ||
		fail "replay --step 10s of the recording"
	T resize-window -t rec -x 132 -y 30 # room for "every" beside the long socket path
	T send-keys -t rec i
	wait_for rec 'PAST [0-9:]{8} -1[12]m[0-9]+s  every 10s' || fail "recording daemon: i, 10 s"
	wait_for rec "^sdb +$(printf '%s' "$rs" | sed 's/\./\\./') " ||
		fail "recording daemon: i, sdb r/s over 10 s $rs (replay --step 10s)"
else
	echo "recording part skipped: libfaketime (Debian: faketime) is not installed"
fi

# ---- embedded: its own ring, wider intervals ----
wait_for emb '^ *CRIT sdb' || fail "embedded: the saturated disk's headline"
# i's 10 s need 10 s of the client's own samples before the one < shows:
# the parts above may take less (the history replies got faster)
while [ $(($(date +%s) - emb_start)) -lt 12 ]; do
	sleep 0.2
done
T send-keys -t emb '<'
wait_for emb 'PAST [0-9:]{8} -' || fail "embedded: < shows the past"
T send-keys -t emb i
wait_for emb 'every (9\.[5-9]|10(\.[0-9])?)s' || fail "embedded: i is a 10 s interval"
screen_has 'PAST' || fail "embedded: PAST over the wider interval"
T send-keys -t emb n
wait_gone emb 'PAST' || fail "embedded: n is now again"
wait_for emb 'every 0\.5s' || fail "embedded: now, the sampler's interval"

# ---- replay: the same keys (t/T stay) ----
RUN_AS="env TZ=UTC" run_in rpl 100 24 replay "$FIXTURES/record-v1/rec" --at @1795599812.559
wait_for rpl ' #3  ' || fail "replay: the sample at --at"
T send-keys -t rpl '>'
wait_for rpl ' #4  ' || fail "replay: > the next sample"
T send-keys -t rpl '<' '<'
wait_for rpl ' #2  ' || fail "replay: < < two back"
T send-keys -t rpl t
wait_for rpl ' #3  ' || fail "replay: t still the next sample"
T send-keys -t rpl n
wait_for rpl ' #21  ' || fail "replay: n the recording's last sample"

[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
