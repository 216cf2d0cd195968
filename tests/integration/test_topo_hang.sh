#!/bin/sh
# A topology read that never returns must not keep iotriaged from exiting
# (doc/daemon.md: the topology thread is given TOPO_STOP_DEADLINE_MS at
# shutdown, then left behind). The --root tree's sys/kernel/irq, which only
# the topology thread reads, is a FUSE mount (bindfs, no page cache) whose
# server is SIGSTOPped before the daemon starts: the thread's first read
# hangs there while the loop samples on. SIGTERM: the daemon's main thread
# must be gone within the bound plus a margin, its socket removed; once the
# server runs again the process exits 0. Skips (77) without FUSE or bindfs.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ -n "${IOTRIAGED:-}" ] || skip "\$IOTRIAGED not set"
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(id -u)" = 0 ] || skip "a FUSE mount needs root here"
. "$SRCDIR/tests/integration/fuse_lib.sh"
T=$(mktemp -d)
MNT=$T/root/sys/kernel/irq
cleanup() {
	[ -n "$FUSE_PID" ] && kill -CONT "$FUSE_PID" 2>/dev/null
	for p in $(cat "$T/pids" 2>/dev/null); do
		grep -q iotriaged "/proc/$p/cmdline" 2>/dev/null && kill -9 "$p"
	done
	fuse_stop
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

cp -r "$FIXTURES/live-vm/t0" "$T/root" || fail "copy the tree"
mkdir -p "$MNT" "$T/irq"
# the IRQs of the tree's /proc/interrupts in proc/irq (the topology's list),
# each with the files topology.c reads from sys/kernel/irq
for n in $(awk '$1 ~ /^[0-9]+:$/ { sub(":", "", $1); print $1 }' "$T/root/proc/interrupts"); do
	mkdir -p "$T/irq/$n" "$T/root/proc/irq/$n"
	echo 0 >"$T/root/proc/irq/$n/smp_affinity_list"
	echo "virtio0-req.$n" >"$T/irq/$n/actions"
	echo "PCI-MSI" >"$T/irq/$n/chip_name"
	echo "$n" >"$T/irq/$n/hwirq"
done
fuse_start "$T/irq" "$MNT" || skip "$FUSE_WHY"
[ -n "$(cat "$MNT"/*/chip_name 2>/dev/null)" ] || fail "the FUSE tree does not read"
kill -STOP "$FUSE_PID"

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$T" "$FUSE_PID" <<'PY' || exit 1
import glob, os, signal, sys, time
from daemon_lib import *

tmp, fuse_pid = sys.argv[1], int(sys.argv[2])
BOUND = 2.0   # TOPO_STOP_DEADLINE_MS
MARGIN = 3.0  # a shared 2-core machine


def fuse_waiters(pid):
    """Threads of pid asleep in FUSE (wchan: a fuse function, request_wait_answer)."""
    n = 0
    for w in glob.glob("/proc/%d/task/*/wchan" % pid):
        try:
            with open(w) as f:
                text = f.read()
            n += "fuse" in text or "request_wait_answer" in text
        except OSError:
            pass
    return n


d = Daemon(tmp, root=os.path.join(tmp, "root"), interval=200)
with open(os.path.join(tmp, "pids"), "a") as f:
    f.write("%d\n" % d.p.pid)
try:
    deadline = time.monotonic() + TIMEOUT
    while not fuse_waiters(d.p.pid):
        check(time.monotonic() < deadline, "no thread of the daemon waits on the stopped FUSE "
              "server: is sys/kernel/irq read?")
        time.sleep(0.05)
    # the loop samples on while the topology thread hangs
    check(d.status()["ok"], "status while the topology read hangs")
    t0 = time.monotonic()
    d.p.send_signal(signal.SIGTERM)
    while not leader_gone(d.p):
        check(time.monotonic() - t0 < BOUND + MARGIN,
              "SIGTERM with a hung topology read: the daemon still runs after %.1f s:\n%s" %
              (time.monotonic() - t0, d.log_text()))
        time.sleep(0.05)
    took = time.monotonic() - t0
    check(took >= BOUND - 0.5, "gone after %.2f s: did the read hang?" % took)
    check(not os.path.exists(d.sock), "the socket is still there after the exit")
    check("topology thread" in d.log_text(), "the log does not say the topology thread was "
          "left behind:\n" + d.log_text())
    print("SIGTERM: main thread gone after %.2f s" % took)
    os.kill(fuse_pid, signal.SIGCONT)
    rc = d.p.wait(TIMEOUT)
    check(rc == 0, "exit status %d" % rc)
finally:
    os.kill(fuse_pid, signal.SIGCONT)
    cleanup([d])
PY
echo "PASS"
