#!/bin/sh
# A device that stops answering must not wedge iotriaged (issue 12, item 9).
# A real hang: a device-mapper linear table over a loop device over a file
# in /dev/shm, `dmsetup suspend`ed under a running job; where the kernel has
# no device-mapper, a loop device over a file on a FUSE mount (bindfs, no
# page cache) whose server is SIGSTOPped, which blocks the loop device's IO
# the same way. Then:
#   - worker.stop answers at once, and the job ends ("failed", saying which
#     job, which device and how many IOs were still out) at the 5 s stop
#     deadline, not never; once the device answers again, the thread left
#     behind ends and frees itself, and a new job starts;
#   - SIGTERM with a psync job blocked in the kernel: the daemon's main
#     thread has exited within the deadline plus a margin, the socket is
#     gone, and a new iotriaged on the same socket starts; after the device
#     is resumed the old process exits 0.
# First, the socket's release itself: removed through its directory fd by
# a detached daemon with a relative --socket and by one whose directory was
# renamed. The device is resumed and removed, the loop detached and the
# FUSE mount unmounted in every case (trap). Skips (77) when neither way to
# hang a device exists here.
. "$SRCDIR/tests/integration/bench_lib.sh"
. "$SRCDIR/tests/integration/fuse_lib.sh"
[ -n "${IOTRIAGED:-}" ] || skip "\$IOTRIAGED not set"
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(id -u)" = 0 ] || skip "loop and device-mapper devices need root"
T=$BENCH_TMP
DM_NAME=""
FUSE_BACK=""
HANG_LOOP=""

unhang() {
	[ -n "$DM_NAME" ] && dmsetup resume "$DM_NAME" 2>/dev/null
	[ -n "$FUSE_PID" ] && kill -CONT "$FUSE_PID" 2>/dev/null
	return 0
}
hang_cleanup() {
	unhang
	# the daemons (python kills its own; these are strays of a killed test),
	# only while the pid is still an iotriaged
	for p in $(cat "$T/pids" 2>/dev/null); do
		grep -q iotriaged "/proc/$p/cmdline" 2>/dev/null && kill -9 "$p"
	done
	if [ -n "$DM_NAME" ]; then
		for i in 1 2 3 4 5; do
			dmsetup remove "$DM_NAME" 2>/dev/null && break
			sleep 0.2
		done
	fi
	[ -n "$HANG_LOOP" ] && losetup -d "$HANG_LOOP" 2>/dev/null
	fuse_stop
	[ -n "$FUSE_BACK" ] && rm -rf "$FUSE_BACK"
	bench_cleanup
}
trap hang_cleanup EXIT

# device-mapper: a linear table over a loop device; hung by suspending it
dm_setup() {
	command -v dmsetup >/dev/null || { WHY_DM="no dmsetup"; return 1; }
	command -v modprobe >/dev/null && modprobe dm-mod 2>/dev/null
	dmsetup version >/dev/null 2>&1 ||
		{ WHY_DM="no device-mapper in this kernel (modprobe dm-mod)"; return 1; }
	bench_loop_setup 64
	DM_NAME="iotr-worker-$$"
	if ! echo "0 131072 linear $BENCH_DEV 0" | dmsetup create "$DM_NAME" 2>"$T/dm.err"; then
		WHY_DM="dmsetup create: $(cat "$T/dm.err")"
		DM_NAME=""
		return 1
	fi
	TARGET=/dev/mapper/$DM_NAME
	for i in $(seq 50); do # udev, where it runs, makes the node
		[ -b "$TARGET" ] && break
		sleep 0.1
	done
	[ -b "$TARGET" ] || { WHY_DM="no $TARGET after dmsetup create"; return 1; }
	HANG="dmsetup suspend $DM_NAME"
	RESUME="dmsetup resume $DM_NAME"
	echo "hanging device: device-mapper $DM_NAME over $BENCH_DEV, suspended"
}

# FUSE: a loop device over a file that bindfs serves without page cache;
# hung by stopping bindfs
fuse_setup() {
	FUSE_BACK=$(mktemp -d /dev/shm/iotr-worker-fuse.XXXXXX) ||
		{ WHY_FUSE="no directory in /dev/shm"; return 1; }
	mkdir "$T/fuse"
	fuse_start "$FUSE_BACK" "$T/fuse" || { WHY_FUSE=$FUSE_WHY; return 1; }
	truncate -s 64M "$FUSE_MNT/disk" || { WHY_FUSE="cannot size a file on FUSE"; return 1; }
	HANG_LOOP=$(losetup -f --show "$FUSE_MNT/disk" 2>"$T/losetup.err") ||
		{ WHY_FUSE="losetup refused: $(cat "$T/losetup.err")"; HANG_LOOP=""; return 1; }
	TARGET=$HANG_LOOP
	HANG="kill -STOP $FUSE_PID"
	RESUME="kill -CONT $FUSE_PID"
	echo "hanging device: $HANG_LOOP over a FUSE file (bindfs $FUSE_PID), server stopped"
}

# The socket is released through its directory, held since the bind: a
# daemon that detached (chdir /) with a relative --socket, and one whose
# socket directory was renamed under it, both remove the socket they made.
PYTHONPATH="$SRCDIR/tests/integration" python3 - "$T" <<'PY' || exit 1
import os, signal, subprocess, sys, time
from daemon_lib import *

tmp = sys.argv[1]
pids = []
try:
    os.mkdir(os.path.join(tmp, "rel"))
    p = subprocess.run([env("IOTRIAGED"), "--socket", "rel.sock", "--interval", "200"],
                       cwd=os.path.join(tmp, "rel"), capture_output=True, text=True,
                       timeout=TIMEOUT)
    check(p.returncode == 0, "detached start: %r" % p.stderr)
    sock = os.path.join(tmp, "rel", "rel.sock")
    r = Client(sock).req({"cmd": "status"})
    pids.append(r["pid"])
    with open(os.path.join(tmp, "pids"), "a") as f:
        f.write("%d\n" % r["pid"])

    os.mkdir(os.path.join(tmp, "sub"))
    d = Daemon(os.path.join(tmp, "sub"), interval=200, name="moved")
    pids.append(d.p.pid)
    with open(os.path.join(tmp, "pids"), "a") as f:
        f.write("%d\n" % d.p.pid)
    os.rename(os.path.join(tmp, "sub"), os.path.join(tmp, "sub2"))

    os.kill(r["pid"], signal.SIGTERM)
    deadline = time.monotonic() + TIMEOUT
    while os.path.exists("/proc/%d" % r["pid"]):
        check(time.monotonic() < deadline, "the detached daemon did not exit")
        time.sleep(0.05)
    check(not os.path.exists(sock), "a detached daemon left its relative socket behind")
    check(d.stop() == 0, "exit status")
    check(not os.path.exists(os.path.join(tmp, "sub2", "moved.sock")),
          "a daemon whose directory was renamed left its socket behind")
finally:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
PY

WHY_DM="" WHY_FUSE=""
dm_setup || fuse_setup || skip "no device to hang: $WHY_DM; $WHY_FUSE"

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$T" "$TARGET" "$HANG" "$RESUME" <<'PY' || exit 1
import os, re, signal, subprocess, sys, time
from daemon_lib import *

tmp, target, hang_cmd, resume_cmd = sys.argv[1:5]
DEADLINE = 5.0  # WORKER_STOP_DEADLINE_MS
MARGIN = 3.0    # a shared 2-core machine; the deadline is a timer, not a poll
hung = False


def hang():
    global hung
    subprocess.run(hang_cmd, shell=True, check=True, timeout=TIMEOUT)
    hung = True


def resume():
    global hung
    subprocess.run(resume_cmd, shell=True, timeout=TIMEOUT)
    hung = False


def remember(d):
    with open(os.path.join(tmp, "pids"), "a") as f:
        f.write("%d\n" % d.p.pid)


def status(c):
    r = c.req({"cmd": "worker.status"})
    check(r["ok"], "status: %r" % r)
    return r["worker"]


def running_with_io(c):
    """Waits until the job runs and has completed IO."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        w = status(c)
        if w["state"] == "running" and w["read"]["ios"] > 0:
            return w
        check(w["state"] in ("starting", "running") and time.monotonic() < deadline,
              "the job did not get going: %r" % {k: w.get(k) for k in ("state", "error")})
        time.sleep(0.05)


def hang_and_see_it(c):
    """Hangs the device; its IO count must then stand still."""
    hang()
    time.sleep(0.3)  # what was in flight when it hung settles
    a = status(c)["read"]["ios"]
    time.sleep(1.0)
    b = status(c)["read"]["ios"]
    check(a == b, "the device did not hang: %d then %d IOs" % (a, b))


daemons = []
try:
    d = Daemon(tmp, interval=200)
    daemons.append(d)
    remember(d)
    c = d.client()

    # 1. worker.stop on a hung device: bounded
    r = c.req({"cmd": "worker.start", "args": [
        "--filename=" + target, "--rw=randread", "--ioengine=io_uring", "--iodepth=8",
        "--direct=1", "--runtime=300", "--time_based"]})
    check(r["ok"], "start: %r" % r)
    w = running_with_io(c)
    dev = w["device"]
    hang_and_see_it(c)
    t0 = time.monotonic()
    r = c.req({"cmd": "worker.stop"})
    check(r["ok"] and r["stopping"] is True, "stop: %r" % r)
    check(time.monotonic() - t0 < 1.0, "worker.stop took %.2f s to answer" % (time.monotonic() - t0))
    w = status(c)
    check(w["state"] == "running" and w.get("stopping") is True, "while stopping: %r" % w)
    while True:
        w = status(c)
        if w["state"] not in ("starting", "running"):
            break
        check(time.monotonic() - t0 < DEADLINE + MARGIN,
              "worker.stop on a hung device: still %s after %.1f s" %
              (w["state"], time.monotonic() - t0))
        time.sleep(0.05)
    took = time.monotonic() - t0
    check(took >= DEADLINE - 0.5, "ended after %.2f s: was the device hung?" % took)
    check(w["state"] == "failed" and "stopping" not in w, "after the deadline: %r" % w)
    m = re.match(r"did not stop within 5 s of worker\.stop: (\d+) IOs? still outstanding on ",
                 w["error"])
    check(m and int(m.group(1)) >= 1, "error: %r" % w["error"])
    # the log says which job, which device, how many IOs
    line = "worker 1 (randread io_uring on %s, device %s): %s" % (
        os.path.realpath(target), dev, w["error"])
    check(line in d.log_text(), "log lacks %r:\n%s" % (line, d.log_text()))
    # the daemon still serves while the thread is out there
    check(d.status()["ok"], "status")

    # the device answers again: the thread left behind ends by itself
    resume()
    deadline = time.monotonic() + TIMEOUT
    while "left behind at the stop deadline, ended" not in d.log_text():
        check(time.monotonic() < deadline, "the left-behind thread never ended:\n" + d.log_text())
        time.sleep(0.05)
    check(status(c)["state"] == "failed", "the record changed")

    # 2. SIGTERM with a psync job blocked in the kernel
    r = c.req({"cmd": "worker.start", "args": [
        "--filename=" + target, "--rw=randread", "--ioengine=psync", "--direct=1",
        "--runtime=300", "--time_based"]})
    check(r["ok"] and r["worker"]["id"] == 2, "start 2: %r" % r)
    running_with_io(c)
    hang_and_see_it(c)
    c.close()
    t0 = time.monotonic()
    d.p.send_signal(signal.SIGTERM)
    while not leader_gone(d.p):
        check(time.monotonic() - t0 < DEADLINE + MARGIN,
              "SIGTERM with a hung job: the daemon still runs after %.1f s:\n%s" %
              (time.monotonic() - t0, d.log_text()))
        time.sleep(0.05)
    took = time.monotonic() - t0
    check(not os.path.exists(d.sock), "the socket is still there after the exit")
    log = d.log_text()
    check(re.search(r"worker 2 \(randread psync on .*\): did not stop within 5 s of the exit: "
                    r"1 IO still outstanding", log), "exit log:\n" + log)
    print("SIGTERM: main thread gone after %.2f s" % took)

    # a restart on the same socket works while the old thread still hangs
    # (Daemon fails the test unless the new one answers on it)
    old = d
    d2 = Daemon(tmp, interval=200)
    daemons.append(d2)
    remember(d2)
    check(d2.sock == old.sock and d2.pid != old.p.pid, "not a new daemon on the same socket")

    resume()
    rc = old.p.wait(TIMEOUT)
    check(rc == 0, "the old daemon exited %d" % rc)
    check(d2.stop() == 0, "new daemon exit status")
finally:
    if hung:
        resume()
    cleanup(daemons)
PY
echo "PASS"
