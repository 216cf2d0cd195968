#!/bin/sh
# The first screen (issue 23), driven in tmux at 80x24, 100x30 and 200x50,
# asserted on the first frame with rates and no key pressed:
#  - busy first: a saturated disk (advise/disk-saturated's sdb) behind 4
#    loop devices and 60 SAS disks that did IO since boot but none in the
#    interval: sdb's row is the first, the 64 idle ones hidden and counted
#    ("1 of 65, 64 idle hidden: z shows"); z shows them, loop0..3 under the
#    disks; at 80 columns r/s w/s rkB/s wkB/s r_await w_await aqu-sz %util
#    and no svctm;
#  - the headline is the first finding with its proof and fix key (" WARN
#    sdb saturated: util 99.50%, aqu-sz 28.00 ... a apply the fix"), nothing
#    cut mid-word; a opens the findings panel on scheduler-sdb with its
#    command and undo and asks y/N (n: nothing written);
#  - the first embedded frame says it is measuring, never "no block devices";
#  - a 256-CPU host (make-trees.py big-256-hot): every CPU row on screen has
#    %usr %nice %sys %iowait %irq %soft %steal %idle adding up to 100 +- 0.1;
#  - golden top lines per width: a daemon that refuses the hello, paused:
#    " iotriage  daemon PATH  PAUSED  every -  host ?" and DISCONNECTED on
#    the right, apart; a replay: REPLAY, its time and timeline.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
# Skips (77) without tmux or python3. (tui_lib.sh's run_in sets $w: the
# width is taken again from $size after it.)
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
fake_pid=
cleanup() {
	T kill-server 2>/dev/null
	for p in $gen_pid $fake_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the trees ----
# disk-saturated plus loop0..3 and 60 SAS disks, idle in the interval
python3 - "$FIXTURES/advise/disk-saturated" "$tmp/busy" <<'PY' || fail "making the busy tree"
import os, shutil, sys
src, out = sys.argv[1], sys.argv[2]
sas = ["sd" + c for c in "cdefghijklmnopqrstuvwxyz"] + \
      ["sda" + c for c in "abcdefghijklmnopqrstuvwxyz"] + ["sdb" + c for c in "abcdefghij"]
assert len(sas) == 60
for t in ("t0", "t1"):
    d = os.path.join(out, t)
    shutil.copytree(os.path.join(src, t), d, symlinks=True)
    # IO since boot (iostat lists them), none in the interval
    loops = ["   7 %7d loop%d 500 0 4000 100 0 0 0 0 0 120 100 0 0 0 0 0 0\n" % (i, i)
             for i in range(4)]
    disks = ["  65 %7d %s 1200 10 96000 800 3000 20 48000 900 0 1500 1700 0 0 0 0 5 3\n"
             % (i * 16, n) for i, n in enumerate(sas)]
    for n in ["loop%d" % i for i in range(4)] + sas:
        q = os.path.join(d, "sys/block", n, "queue")
        os.makedirs(q)
        for k, v in (("rotational", "1"), ("iostats", "1"), ("scheduler", "[mq-deadline] none")):
            with open(os.path.join(q, k), "w") as f:
                f.write(v + "\n")
    p = os.path.join(d, "proc/diskstats")
    busy = open(p).read()
    # by name, sdb would come after loop0..3 and sdaa..sdaz
    with open(p, "w") as f:
        f.write("".join(loops) + busy + "".join(disks))
PY
cp -a "$tmp/busy/t0" "$tmp/b" || fail "copy busy/t0"
"$SRCDIR/tests/fixtures/advance.py" "$tmp/busy" "$tmp/b" 1 --loop 0.2 &
gen_pid="$gen_pid $!"
"$SRCDIR/tests/fixtures/make-trees.py" "$tmp" big-256-hot >/dev/null || fail "make-trees.py big-256-hot"
cp -a "$tmp/big-256-hot/t0" "$tmp/h" || fail "copy big-256-hot/t0"
"$SRCDIR/tests/fixtures/advance.py" "$tmp/big-256-hot" "$tmp/h" 1 --loop 1 &
gen_pid="$gen_pid $!"

# ---- busy first, the headline and its fix, at each width ----
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	h=${size#*x}
	run_in "b$w" "$w" "$h" --embedded --root "$tmp/b"
done
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	s="b$w"
	wait_for "$s" '^sdb ' || fail "$size: the busy disk's row"
	# the first frame with rates: nothing pressed yet
	wait_for "$s" '^> Disks \(1 of 65, 64 idle hidden: z shows\) +sort: %util' ||
		fail "$size: the disks' title does not count the idle devices"
	[ "$(line_of '^sdb ')" = $(($(line_of '^Device ') + 1)) ] ||
		fail "$size: sdb is not the first row"
	grep -Eq '^(loop|sda[a-z]|sd[c-z] )' "$tmp/screen" && fail "$size: an idle device is shown"
	# a finding shows once it stood 2 samples (doc/advise.md "Stable"); the
	# first rated frame says it is judging, never "OK"
	grep -q 'OK no findings' "$tmp/screen" && fail "$size: OK while the finding rises"
	wait_for "$s" '^ CRIT sdb saturated: util 99\.50%, aqu-sz 28\.00(, [^—]*)? — a apply the fix$' ||
		fail "$size: the headline with its proof and fix key"
	case $w in
	80)
		grep -Eq '^Device +r/s +w/s +rkB/s +wkB/s +r_await +w_await +aqu-sz +%util$' \
			"$tmp/screen" || fail "80: the eight columns of saturated-or-slow"
		grep -Eq '^sdb +180\.00 +20\.00 +720\.00 +80\.00 +140\.00 +160\.00 +28\.00 +99\.50$' \
			"$tmp/screen" || fail "80: sdb's row"
		;;
	200)
		wait_for "$s" 'requests queue for the device — a apply the fix$' ||
			fail "200: the whole reason"
		grep -q 'svctm' "$tmp/screen" || fail "200: svctm when there is room"
		;;
	esac
	# no line is cut inside a word of the headline
	line=$(line_at 2)
	[ ${#line} -le "$w" ] || fail "$size: the headline is wider than the terminal"
done
# z shows the idle devices, the loop devices under the disks
T send-keys -t b80 z
wait_for b80 '^> Disks \(65\) +sort: %util' || fail "z shows the idle devices"
T send-keys -t b80 G
wait_for b80 '^loop3 ' || fail "the loop devices under z"
[ "$(line_of '^loop0 ')" -gt "$(line_of '^sdz ')" ] || fail "loop0 is above a disk"
T send-keys -t b80 g z
wait_for b80 '^> Disks \(1 of 65, 64 idle hidden' || fail "z again hides them"
# a: the fix, its exact command and undo, and a question
T send-keys -t b80 a
wait_for b80 'Apply scheduler-sdb\? \[y/N\]' || fail "a does not ask to apply the headline's fix"
grep -q '^  echo mq-deadline > /sys/block/sdb/queue/scheduler$' "$tmp/screen" ||
	fail "a: the exact command"
grep -q '^  echo none > /sys/block/sdb/queue/scheduler$' "$tmp/screen" || fail "a: the exact undo"
T send-keys -t b80 n
wait_for b80 'apply of scheduler-sdb cancelled: nothing written' || fail "n does not cancel"
cmp -s "$tmp/busy/t1/sys/block/sdb/queue/scheduler" "$tmp/b/sys/block/sdb/queue/scheduler" ||
	fail "n wrote the scheduler"

# ---- the first embedded frame: measuring, not "no block devices" ----
run_in first 80 24 --embedded --root "$tmp/b" --interval 60000
wait_for first 'measuring the first interval' || fail "the first frame does not say measuring"
screen_lacks 'no block devices' || fail "the first frame says no block devices"

# ---- 256 CPUs: every CPU row adds up to 100 ----
cat >"$tmp/sum.py" <<'PY'
import re, sys
scr = open(sys.argv[1]).read().split("\n")
hdr = [i for i, l in enumerate(scr) if l.startswith("CPU ")]
if not hdr:
    sys.exit("no CPU header")
cols = scr[hdr[0]].split()
want = ["%usr", "%nice", "%sys", "%iowait", "%irq", "%soft", "%steal", "%idle"]
if cols[1:9] != want:
    sys.exit("CPU columns %s" % cols)
rows = 0
for l in scr[hdr[0] + 1:]:
    m = re.match(r"^(all|\d+)( HOT)?\s+((?:[0-9.]+\s+){8})", l)
    if not m:
        break
    v = [float(x) for x in m.group(3).split()]
    if abs(sum(v) - 100.0) > 0.1:
        sys.exit("cpu %s adds up to %.2f: %s" % (m.group(1), sum(v), l))
    rows += 1
if rows < 3:
    sys.exit("only %d CPU rows" % rows)
print(rows)
PY
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	h=${size#*x}
	run_in "h$w" "$w" "$h" --embedded --root "$tmp/h"
done
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	wait_for "h$w" '^200 HOT ' || fail "$size: the hot core's row"
	# (a frame between two reads of the same step of the tree has no time
	# in it: all zeros; the next one has)
	screen_wait "h$w" python3 "$tmp/sum.py" "$tmp/screen" || fail "$size: $(cat "$tmp/check")"
	wait_for "h$w" '^ WARN cpu200 irq\+soft 48%: IRQ 75 nvme0q51 100% — f why no fix' ||
		fail "$size: the headline says there is no fix and where to see why"
done

# ---- golden top lines: DISCONNECTED, PAUSED, the path, the clock ----
python3 - "$tmp/s" <<'PY' &
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
n=0
while [ ! -S "$tmp/s" ] && [ $n -lt $((WAIT * 10)) ]; do
	sleep 0.1
	n=$((n + 1))
done
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	h=${size#*x}
	run_in "d$w" "$w" "$h" --socket "$tmp/s"
done
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	wait_for "d$w" 'DISCONNECTED' || fail "$size: DISCONNECTED"
	T send-keys -t "d$w" Space
	wait_for "d$w" 'PAUSED' || fail "$size: space does not pause"
	top=$(line_at 1)
	# at 80 columns the name gives way: the path, PAUSED and the state stay
	left=" iotriage  daemon $tmp/s  PAUSED  every -  host ?"
	[ "$w" = 80 ] && left=" daemon $tmp/s  PAUSED  every -  host ?"
	# the state's detail too when everything fits
	state=DISCONNECTED
	[ "$w" = 200 ] && state='DISCONNECTED: wrong version; retrying'
	want=$(printf '%s%*s%s' "$left" $((w - 1 - ${#state} - ${#left})) '' "$state")
	[ "$top" = "$want" ] || fail "$size: the top line
got:  '$top'
want: '$want'"
	wait_for "d$w" '^ DISCONNECTED: wrong version; retrying' ||
		fail "$size: the state's reason under the top line"
done

# the replay: REPLAY, the sample's time and id, the timeline
for size in 80x24 100x30 200x50; do
	w=${size%x*}
	h=${size#*x}
	RUN_AS="env TZ=UTC" run_in "r$w" "$w" "$h" replay "$FIXTURES/record-v1/rec" \
		--at @1795599812.559
	w=${size%x*} # run_in's own $w is the window
	wait_for "r$w" '^ iotriage  REPLAY  every ' || fail "$size: REPLAY on the top line"
	grep -Eq '^ iotriage  REPLAY  every [0-9.]+m?s  host [^ ]+  2026-11-25 09:43:32 #3( |$)' \
		"$tmp/screen" || fail "$size: the replay's time on the top line: $(line_at 1)"
	[ "$w" = 80 ] || grep -Eq '#3  [0-9-]+ [0-9:]+ \[-*\|-*\] ' "$tmp/screen" ||
		fail "$size: the replay's timeline"
done

[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
