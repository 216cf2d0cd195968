#!/bin/sh
# A write bench holds the kernel's exclusive claim (O_EXCL) on every device
# it writes into for the whole run, not only on its target (doc/security.md):
# B is a loop device over loop device A, A an ext2 image in /dev/shm.
#   - while `iotriage bench` writes B (past A's metadata, --allow-destroy=B),
#     `mount` of A fails (busy), and so does B's; the bench then ends by
#     SIGINT and its bytes went where they should (A's filesystem still
#     mounts after);
#   - A mounted before: the bench is refused with the mount point named;
#   - both again through iotriaged's worker.start.
# Before the claim on A, A mounted under a running bench on B.
. "$SRCDIR/tests/integration/bench_lib.sh"
T=$BENCH_TMP
command -v mkfs.ext2 >/dev/null || skip "no mkfs.ext2"
command -v mount >/dev/null || skip "no mount"

bench_loop_setup 64
A=$BENCH_DEV
mkfs.ext2 -q -F "$A" >/dev/null 2>&1 || fail "mkfs.ext2 $A"
B=$(losetup -f --show "$A" 2>"$T/losetup.err") || skip "losetup refused: $(cat "$T/losetup.err")"
BENCH_LOOPS="$B $BENCH_LOOPS" # detached before A
MNT=$T/mnt
mkdir "$MNT"
BENCH_MOUNTS=$MNT

# 1. mounts under a running bench (a loop device's counters outlive its
# detach: only writes after this count)
set -- $(diskstats_of "$B")
w0=${3:-0}
"$IOTRIAGE" bench --filename="$B" --allow-destroy="$B" --rw=randwrite --bs=4k \
	--offset=32m --size=16m --direct=1 --ioengine=psync --runtime=60 --time_based \
	>"$T/out" 2>"$T/err" &
BPID=$!
i=0
while :; do
	set -- $(diskstats_of "$B")
	[ "${3:-0}" -gt "$w0" ] && break
	kill -0 $BPID 2>/dev/null || fail "the bench ended before writing: $(cat "$T/err")"
	i=$((i + 1))
	[ $i -lt 100 ] || { kill -INT $BPID; fail "the bench did not write to $B within 10 s"; }
	sleep 0.1
done
for dev in "$A" "$B"; do
	if mount -o ro "$dev" "$MNT" 2>"$T/mount.err"; then
		umount "$MNT"
		kill -INT $BPID
		wait $BPID
		fail "$dev was mounted while a bench wrote through $B: $(cat "$T/err")"
	fi
	grep -qi "busy" "$T/mount.err" ||
		{ kill -INT $BPID; fail "mount $dev failed, not as busy: $(cat "$T/mount.err")"; }
done
kill -0 $BPID 2>/dev/null || fail "the bench ended early: $(cat "$T/err")"
kill -INT $BPID
wait $BPID
rc=$?
[ $rc -le 1 ] || fail "bench exit $rc after SIGINT: $(cat "$T/err")"
grep -q "interrupted" "$T/err" || fail "bench after SIGINT: $(cat "$T/err")"
# the claim ends with the run: A mounts again, its metadata untouched
mount -o ro "$A" "$MNT" 2>"$T/mount.err" || fail "mount $A after the bench: $(cat "$T/mount.err")"

# 2. A mounted before the bench: refused, the mount point named
"$IOTRIAGE" bench --filename="$B" --allow-destroy="$B" --rw=write --size=1m --offset=32m \
	>/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] || fail "bench on $B over mounted $A: exit $rc, want 1: $(cat "$T/err")"
grep -q "refused: .*${A#/dev/}.* is mounted on $MNT" "$T/err" ||
	fail "the refusal does not name the mount: $(cat "$T/err")"
umount "$MNT"

# 3. the same through the daemon's worker.start (the claims are taken on its job thread)
[ -n "${IOTRIAGED:-}" ] || { echo "PASS (no \$IOTRIAGED: the daemon's part not run)"; exit 0; }
PYTHONPATH="$SRCDIR/tests/integration" python3 - "$T" "$A" "$B" "$MNT" <<'PY' || exit 1
import subprocess, sys, time
from daemon_lib import *

tmp, a, b, mnt = sys.argv[1:5]
args = ["--filename=" + b, "--allow-destroy=" + b, "--rw=randwrite", "--bs=4k",
        "--offset=32m", "--size=16m", "--direct=1", "--ioengine=psync", "--runtime=60",
        "--time_based"]


def mount(dev):
    return subprocess.run(["mount", "-o", "ro", dev, mnt], capture_output=True, text=True)


d = Daemon(tmp, interval=200)
try:
    c = d.client()
    r = c.req({"cmd": "worker.start", "args": args})
    check(r["ok"], "worker.start: %r" % r)
    deadline = time.monotonic() + TIMEOUT
    while True:
        w = c.req({"cmd": "worker.status"})["worker"]
        if w["state"] == "running" and w["write"]["ios"] > 0:
            break
        check(w["state"] in ("starting", "running") and time.monotonic() < deadline,
              "the job did not get going: %r" % w)
        time.sleep(0.05)
    for dev in (a, b):
        p = mount(dev)
        if p.returncode == 0:
            subprocess.run(["umount", mnt])
            fail("%s was mounted while the daemon's job wrote through %s" % (dev, b))
        check("busy" in p.stderr, "mount %s failed, not as busy: %s" % (dev, p.stderr))
    check(c.req({"cmd": "worker.stop"})["ok"], "worker.stop")
    while c.req({"cmd": "worker.status"})["worker"]["state"] in ("starting", "running"):
        check(time.monotonic() < deadline, "the job did not stop")
        time.sleep(0.05)
    p = mount(a)
    check(p.returncode == 0, "mount %s after the job: %s" % (a, p.stderr))
    try:
        r = c.req({"cmd": "worker.start", "args": args})
        check(not r["ok"] and ("is mounted on " + mnt) in r["error"]["message"],
              "worker.start over mounted %s: %r" % (a, r))
    finally:
        subprocess.run(["umount", mnt])
    c.close()
    check(d.stop() == 0, "exit status")
finally:
    cleanup([d])
PY
echo "PASS"
