#!/bin/sh
# Ctrl-C on `iotriage bench` over a device that stopped answering must not
# wait forever (doc/bench.md): the same bound as the daemon's worker.stop,
# 5 s after the first signal, its IO cancelled where the engine can, then
# an exit saying that IO may still be in flight on the device.
# The device: a loop over a file on a FUSE mount (bindfs, no page cache)
# whose server is SIGSTOPped under a running psync job, which then sits in
# the kernel (tests/integration/test_worker_hang.sh). The bench's process
# must be gone within the bound plus a margin after SIGINT, with the
# message; once the server runs again, the process that ran the IO ends
# too. Skips (77) without FUSE or bindfs.
. "$SRCDIR/tests/integration/bench_lib.sh"
. "$SRCDIR/tests/integration/fuse_lib.sh"
T=$BENCH_TMP
FUSE_BACK=""
HANG_LOOP=""
BPID=""
hang_cleanup() {
	[ -n "$FUSE_PID" ] && kill -CONT "$FUSE_PID" 2>/dev/null
	[ -n "$BPID" ] && kill -9 "$BPID" 2>/dev/null
	for p in $(cat "$T/children" 2>/dev/null); do
		grep -q iotriage "/proc/$p/cmdline" 2>/dev/null && kill -9 "$p"
	done
	sleep 0.2
	[ -n "$HANG_LOOP" ] && losetup -d "$HANG_LOOP" 2>/dev/null
	fuse_stop
	[ -n "$FUSE_BACK" ] && rm -rf "$FUSE_BACK"
	bench_cleanup
}
trap hang_cleanup EXIT
[ "$(id -u)" = 0 ] || skip "loop devices need root"
FUSE_BACK=$(mktemp -d /dev/shm/iotr-bench-fuse.XXXXXX) || skip "no directory in /dev/shm"
mkdir "$T/fuse"
fuse_start "$FUSE_BACK" "$T/fuse" || skip "$FUSE_WHY"
truncate -s 64M "$FUSE_MNT/disk" || skip "cannot size a file on FUSE"
HANG_LOOP=$(losetup -f --show "$FUSE_MNT/disk" 2>"$T/losetup.err") ||
	{ HANG_LOOP=""; skip "losetup refused: $(cat "$T/losetup.err")"; }

reads() { set -- $(diskstats_of "$HANG_LOOP"); echo "${1:-0}"; }
# state of pid: R, S, D, Z...; "gone" once reaped
state() { cut -d')' -f2 "/proc/$1/stat" 2>/dev/null | cut -d' ' -f2 || echo gone; }
gone() { s=$(state "$1"); [ "$s" = Z ] || [ "$s" = X ] || [ "$s" = gone ] || [ -z "$s" ]; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

r0=$(reads) # a loop device's counters outlive its detach
"$IOTRIAGE" bench --filename="$HANG_LOOP" --rw=randread --ioengine=psync --direct=1 \
	--runtime=300 --time_based >"$T/out" 2>"$T/err" &
BPID=$!
i=0
while [ "$(reads)" -lt $((r0 + 100)) ]; do
	gone $BPID && fail "the bench ended: $(cat "$T/err")"
	i=$((i + 1))
	[ $i -lt 100 ] || fail "no reads on $HANG_LOOP within 10 s"
	sleep 0.1
done
# the processes that run it, to see them end after the device answers
cat /proc/$BPID/task/*/children >"$T/children" 2>/dev/null
kill -STOP "$FUSE_PID"
sleep 0.3
a=$(reads)
sleep 1
b=$(reads)
[ "$a" = "$b" ] || fail "the device did not hang: $a then $b reads"

t0=$(now_ms)
kill -INT $BPID
while ! gone $BPID; do
	[ $(($(now_ms) - t0)) -lt 8000 ] ||
		fail "SIGINT with a hung device: bench still runs after 8 s (bound 5 s + 3 s margin)"
	sleep 0.05
done
took=$(($(now_ms) - t0))
[ $took -ge 4500 ] || fail "gone after $took ms: was the device hung?"
echo "SIGINT: bench gone after $took ms"
wait $BPID
rc=$?
BPID=""
[ $rc -eq 1 ] || fail "exit $rc, want 1"
grep -q "iotriage: bench: did not stop within 5 s of the signal: .*IO may still be in flight on $HANG_LOOP" "$T/err" ||
	fail "no message that IO may still be in flight: $(cat "$T/err")"

# the device answers: what ran the IO ends (it was killed, and dies with its IO)
kill -CONT "$FUSE_PID"
for p in $(cat "$T/children"); do
	i=0
	while [ -d /proc/$p ] && grep -q iotriage /proc/$p/cmdline 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "process $p still there 20 s after the device answered"
		sleep 0.1
	done
done
echo "PASS"
