#!/bin/sh
# The tracing stage's numbers in the live view (issue 25, doc/tui.md), as
# root on this kernel, driven in tmux (a private server, killed at the end),
# under a bounded fio load (random 4 KiB reads and writes, 2000 + 2000 IOPS,
# libaio, direct) on a loop device over a file in /dev/shm:
#  1. `iotriage --trace` (embedded) at 100x30: the loop device's row has
#     r_p99 and w_p99 beside r_await and w_await, each p99 >= its mean and
#     under a second; the CPU header says "%soft by vector" and the line
#     under it splits %soft by vector with BLOCK in it; the IRQs panel has
#     its %cpu column; nothing says tracing is unavailable; the loop
#     device's queue chain has its hctx 0's device p99 beside qBLOCK%;
#  2. `iotriaged --trace` on a temporary socket, the client at 80x24: the
#     eight saturated-or-slow disk columns stay as without --trace (no p99
#     at 80 columns), and the daemon's trace reaches the client (the split
#     line under the CPU header).
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
# Skips (77): not root, no tmux/fio/losetup, or tracing unavailable here
# (iotriage snapshot --trace says why). Every loop device, file, daemon and
# process started is removed.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (loads BPF programs, makes a loop device)"
command -v tmux >/dev/null || skip "tmux is not installed"
command -v fio >/dev/null || skip "fio is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
PATH=$PATH:/usr/sbin:/sbin
command -v losetup >/dev/null || skip "losetup is not installed"
[ -n "${IOTRIAGE:-}" ] && [ -n "${IOTRIAGED:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
unset NO_COLOR

tmp=$(mktemp -d)
shm=$(mktemp -d /dev/shm/iotriage-tui-trace-XXXXXX)
. "$SRCDIR/tests/integration/tui_lib.sh"
loop=
fio_pid=
daemon_pid=
cleanup() {
	T kill-server 2>/dev/null
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	if [ -n "$fio_pid" ]; then
		kill -KILL "$fio_pid" 2>/dev/null
		wait "$fio_pid" 2>/dev/null
	fi
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp" "$shm"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Tracing must run here, or there is nothing to show
"$IOTRIAGE" snapshot --trace --json --interval 200 >"$tmp/snap.json" 2>"$tmp/snap.err" ||
	skip "iotriage snapshot --trace: $(cat "$tmp/snap.err")"
why=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1])).get("trace", {})
print("" if t.get("available") else t.get("reason", "no trace section"))' "$tmp/snap.json")
[ -z "$why" ] || skip "tracing unavailable: $why"

truncate -s 64M "$shm/img"
loop=$(losetup -f --show "$shm/img") || skip "losetup: cannot attach a loop device"
dev=${loop#/dev/}
# thread: the jobs are threads of the one fio process, killed with it
cat >"$tmp/job.fio" <<EOF
[global]
thread
ioengine=libaio
direct=1
bs=4k
time_based
runtime=60
[loop]
filename=$loop
rw=randrw
iodepth=4
rate_iops=2000,2000
EOF
fio --output=/dev/null "$tmp/job.fio" &
fio_pid=$!

# check_row: the loop device's row at 100 columns: r_await r_p99 w_await
# w_p99 in that order, each p99 at least its mean (within the rounding of
# two decimals) and under 1000 ms
cat >"$tmp/row.py" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
dev = sys.argv[2]
hdr = next((l for l in lines if l.startswith("Device")), None)
row = next((l for l in lines if l.split()[:1] == [dev]), None)
if not hdr or not row:
    sys.exit("no header or no %s row" % dev)
cols, vals = hdr.split()[1:], row.split()[1:]
if len(vals) != len(cols):
    sys.exit("%s: %d values for %d columns" % (dev, len(vals), len(cols)))
v = dict(zip(cols, vals))
for k in ("r_await", "r_p99", "w_await", "w_p99"):
    if k not in v:
        sys.exit("no %s column" % k)
i = cols.index
if not (i("r_await") + 1 == i("r_p99") and i("w_await") + 1 == i("w_p99")):
    sys.exit("p99 not beside the mean: %s" % cols)
for d in ("r", "w"):
    mean, p99 = float(v[d + "_await"]), float(v[d + "_p99"])
    if not (p99 + 0.01 >= mean and 0 < p99 < 1000):
        sys.exit("%s: %s_await %s, %s_p99 %s" % (dev, d, mean, d, p99))
print("%s: r_await %s r_p99 %s w_await %s w_p99 %s" % (dev, v["r_await"], v["r_p99"],
                                                      v["w_await"], v["w_p99"]))
PY
row_ok() { python3 "$tmp/row.py" "$tmp/screen" "$dev"; }
# wait_2 WINDOW REGEX: wait_for within 2 s
wait_2() {
	w2=$WAIT
	WAIT=2
	wait_for "$@"
	r2=$?
	WAIT=$w2
	return $r2
}
# the split line: BLOCK with a number, the vectors' percentages plausible
split_ok() {
	python3 - "$tmp/screen" <<'PY'
import re, sys
for l in open(sys.argv[1]).read().splitlines():
    m = re.match(r" (all CPUs|cpu \d+) by time: %soft (.*?)(\| hardirq ([0-9.]+))?$", l)
    if not m:
        continue
    items = re.findall(r"([A-Z_]+) ([0-9.]+)", m.group(2))
    pct = dict((k, float(x)) for k, x in items)
    if "BLOCK" in pct and 0 < pct["BLOCK"] <= 100 and sum(pct.values()) <= 100:
        print(l.strip())
        sys.exit(0)
    sys.exit("implausible: " + l)
sys.exit("no split line")
PY
}

# 1. embedded, 100x30
run_in emb 100 30 --trace
wait_for emb "Device .* r_await +r_p99 +w_await +w_p99" || fail "no p99 columns at 100x30"
screen_wait emb row_ok || fail "the $dev row at 100x30: $(cat "$tmp/check")"
cat "$tmp/check"
wait_for emb "%soft by vector" || fail "no %soft by vector column at 100x30"
screen_wait emb split_ok || fail "the split line: $(cat "$tmp/check")"
cat "$tmp/check"
screen_has "IRQ +total/s +%cpu device" || fail "no %cpu column in the IRQs panel"
screen_lacks "tracing" || fail "tracing said to be off or unavailable"
# the loop device's queue chain: Tab to the Disks panel, its row selected
# (j from the top), Enter; its one queue's device p99 (ms, one column
# at 100: the busier op's) beside qBLOCK%, under a second
n=0
until wait_2 emb '^> Disks'; do
	T send-keys -t emb Tab
	n=$((n + 1))
	[ $n -lt 5 ] || fail "Tab does not reach the Disks panel"
done
n=0
until T send-keys -t emb Enter && wait_2 emb "^> $dev r_await"; do
	# another disk's chain: Enter closes it (Esc then j would be Alt-j)
	T send-keys -t emb Enter
	wait_2 emb '^> Disks' && T send-keys -t emb j
	n=$((n + 1))
	[ $n -lt 10 ] || fail "no queue chain for $dev"
done
wait_for emb "qBLOCK% +p99\$" || fail "no p99 column in $dev's queue chain at 100x30"
wait_for emb "^ +0 .* [0-9]{1,3}(\.[0-9]+)?\$" || fail "no p99 on $dev's hctx 0 row"
grep -E "^(hctx| +0 )" "$tmp/screen"
T kill-session -t emb
[ -s "$tmp/san-emb" ] && fail "the client's stderr: $(cat "$tmp/san-emb")"

# 2. the daemon's trace, the client at 80x24
"$IOTRIAGED" --foreground --trace --socket "$tmp/sock" --interval 500 >"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
n=0
until [ -S "$tmp/sock" ]; do
	[ $n -lt $((WAIT * 10)) ] || fail "iotriaged did not listen"
	kill -0 "$daemon_pid" 2>/dev/null || fail "iotriaged exited"
	sleep 0.1
	n=$((n + 1))
done
run_in d80 80 24 --socket "$tmp/sock"
wait_for d80 "^Device +r/s +w/s +rkB/s +wkB/s r_await w_await aqu-sz +%util$" ||
	fail "the eight columns at 80x24"
wait_for d80 "^$dev " || fail "no $dev row at 80x24"
screen_lacks "p99" || fail "a p99 column at 80 columns"
screen_wait d80 split_ok || fail "the daemon's split line at 80x24: $(cat "$tmp/check")"
cat "$tmp/check"
T kill-session -t d80
kill "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
[ $rc = 0 ] || fail "iotriaged exited $rc"
echo "ok"
