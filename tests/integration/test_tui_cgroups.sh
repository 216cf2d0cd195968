#!/bin/sh
# The cgroups view (c) in the live TUI, driven in tmux (a private server,
# killed at the end): on the tests/fixtures/cgroups pair, kept advancing by
# tests/fixtures/advance.py so the embedded sampler measures the pair's
# interval again and again, c opens the view and postgresql.service's row
# shows the rates of the fixture's README (rkB/s 10240, wkB/s 2560, r/s
# 1280, w/s 612, some 25 %, full 10 %) with a line per device; Esc returns
# to the tables. On the cgroups-v1 pair (the io controller on cgroup v1)
# the view shows the same rows from blkio and says so. On a tree without a
# hierarchy the view says why.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"

tmp=$(mktemp -d)
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

src="$SRCDIR/tests/fixtures/cgroups"
cp -a "$src/t0" "$tmp/tree" || fail "copying t0"
"$SRCDIR/tests/fixtures/advance.py" "$src" "$tmp/tree" 1 --loop 0.1 &
gen_pid=$!
n=0
# step 2 or later: 12345.67 s + 5 s a step
until awk '{ exit !($1 >= 12355) }' "$tmp/tree/proc/uptime"; do
	[ $n -lt $((WAIT * 10)) ] || fail "the tree does not advance"
	sleep 0.1
	n=$((n + 1))
done

run_in cg 120 30 --embedded --root "$tmp/tree" --interval 200
wait_for cg 'Disks' ||
	fail "wait_for Disks"
T send-keys -t cg c
wait_for cg 'cgroups \(v2 /sys/fs/cgroup: 6 read, 4 active\)' ||
	fail "wait_for cgroups (v2 /sys/fs/cgroup: 6 read, 4 active)"
wait_for cg 'postgresql.service +10240\.00 +2560\.00 +1280\.00 +612\.00 +1024\.00 +10\.00 +25\.00 +10\.00' ||
	fail "wait_for postgresql.service +10240.00 +2560.00 +1280.00 +612.00 +1024"
wait_for cg '8:16 sdb +0\.00 +512\.00 +0\.00 +100\.00' ||
	fail "wait_for 8:16 sdb +0.00 +512.00 +0.00 +100.00"
wait_for cg 'cron.service +100\.00 +0\.00 +25\.00 +0\.00' ||
	fail "wait_for cron.service +100.00 +0.00 +25.00 +0.00"
screen_has 'user.slice' && fail "an idle cgroup is listed"
T send-keys -t cg Escape
wait_gone cg 'cgroups \(v2' ||
	fail "wait_gone cgroups (v2"
wait_for cg 'Disks' ||
	fail "wait_for Disks"

# a host whose io controller is on cgroup v1 (tests/fixtures/cgroups-v1):
# the same view from blkio's throttle counters, saying so; no pressure
src1="$SRCDIR/tests/fixtures/cgroups-v1"
cp -a "$src1/t0" "$tmp/tree1" || fail "copying cgroups-v1/t0"
"$SRCDIR/tests/fixtures/advance.py" "$src1" "$tmp/tree1" 1 --loop 0.1 &
gen_pid="$gen_pid $!"
run_in v1 120 30 --embedded --root "$tmp/tree1" --interval 200
wait_for v1 'Disks' ||
	fail "wait_for Disks (v1)"
T send-keys -t v1 c
wait_for v1 'cgroups \(v1 /sys/fs/cgroup/blkio: 5 read, 2 active\)  sort: rkB/s' ||
	fail "wait_for cgroups (v1 /sys/fs/cgroup/blkio: 5 read, 2 active)"
wait_for v1 'postgresql.service +10240\.00 +2560\.00 +1280\.00 +612\.00 +1024\.00 +10\.00 +- +-' ||
	fail "wait_for postgresql.service +10240.00 ... - - (v1)"
wait_for v1 'cron.service +100\.00 +0\.00 +25\.00 +0\.00' ||
	fail "wait_for cron.service +100.00 +0.00 +25.00 +0.00 (v1)"
wait_for v1 "counts each cgroup's own IO" ||
	fail "wait_for counts each cgroup's own IO"
T kill-session -t v1

# a tree without a cgroup hierarchy: the view says why
# (a copy under $tmp: the reason names the path, which must fit the line
# wherever the checkout is)
cp -r "$SRCDIR/tests/fixtures/edge-14field/t1" "$tmp/nocg"
run_in none 100 24 --embedded --root "$tmp/nocg" --interval 200
wait_for none 'Disks' ||
	fail "wait_for Disks"
T send-keys -t none c
wait_for none 'cgroups: unavailable \(.*no cgroup v2 hiera' ||
	fail "wait_for cgroups: unavailable (.*no cgroup v2 hierarchy"
[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
