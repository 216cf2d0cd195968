#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A device node in a recorded tree is never opened (doc/trees.md): its open
is its driver's (a tree's proc/interrupts made /dev/watchdog's node would
arm the host's watchdog). Nodes with /dev/null's numbers (harmless, and
their opens observable) stand where files belong, watched with inotify
(IN_OPEN: an O_PATH handle, which is how a tree's path is looked at, makes
no such event), while iotriage reads the trees every way it does:

- `iotriage compute` over trees with proc/interrupts, a cgroup's io.stat
  and dev/cpu/0/msr as nodes, and over an advice tree with an IRQ's
  smp_affinity as one (the topology the advice reads); `iotriage capture
  --root` of such a tree;
- `iotriaged --root` on such a tree for a few samples (every collector);
- `iotriage replay` of a recording directory holding a node by a
  segment's name.

No IN_OPEN may come, and the sources say "not a regular file".
Skips (77) where mknod is refused.
"""
import ctypes
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Daemon, check, cleanup, env, fail, skip  # noqa: E402
from test_record import run, wait_samples  # noqa: E402

FIXTURES = env("FIXTURES")
IN_OPEN = 0x20


class Watch:
    """IN_OPEN of a set of files (inotify through libc)."""

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        check(self.fd >= 0, "inotify_init1: %s" % os.strerror(ctypes.get_errno()))
        self.names = {}

    def add(self, path):
        wd = self.libc.inotify_add_watch(self.fd, path.encode(), IN_OPEN)
        check(wd >= 0, "inotify_add_watch %s: %s" % (path, os.strerror(ctypes.get_errno())))
        self.names[wd] = path

    def opened(self):
        """The watched files opened since the last call."""
        got = []
        while True:
            try:
                buf = os.read(self.fd, 65536)
            except BlockingIOError:
                return got
            off = 0
            while off + 16 <= len(buf):
                wd, mask, _cookie, length = (int.from_bytes(buf[off:off + 4], "little", signed=True),
                                             int.from_bytes(buf[off + 4:off + 8], "little"), 0,
                                             int.from_bytes(buf[off + 12:off + 16], "little"))
                if mask & IN_OPEN:
                    got.append(self.names.get(wd, "?"))
                off += 16 + length


def node(watch, path):
    """path becomes a char device node with /dev/null's numbers, watched."""
    if os.path.lexists(path):
        os.unlink(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 3))
    except OSError as e:
        skip("mknod refused: %s" % e)
    watch.add(path)


def main():
    tmp = tempfile.mkdtemp(prefix="iotr-treedev-")
    daemons = []
    try:
        w = Watch()
        # the sanity of the watch itself: an open of a node is seen
        probe = os.path.join(tmp, "probe")
        node(w, probe)
        os.close(os.open(probe, os.O_RDONLY))
        check(w.opened() == [probe], "inotify does not see a node's open")

        # cgroups: proc/interrupts, a cgroup's io.stat, the MSR
        cg = os.path.join(tmp, "cg")
        shutil.copytree(os.path.join(FIXTURES, "cgroups"), cg, symlinks=True)
        for t in ("t0", "t1"):
            node(w, os.path.join(cg, t, "proc", "interrupts"))
            node(w, os.path.join(cg, t, "sys", "fs", "cgroup", "system.slice", "io.stat"))
            node(w, os.path.join(cg, t, "dev", "cpu", "0", "msr"))
        r = run("compute", os.path.join(cg, "t0"), os.path.join(cg, "t1"), ok=False)
        check("interrupts: not a regular file" in r.stderr,
              "compute does not say proc/interrupts is not a regular file: %s" % r.stderr[:400])
        check(w.opened() == [], "compute opened device nodes")

        # capture of such a tree: every file iotriage reads, copied
        r = run("capture", os.path.join(tmp, "cap"), "--root", os.path.join(cg, "t1"), ok=False)
        check(w.opened() == [], "capture --root opened device nodes")
        check(not os.path.exists(os.path.join(tmp, "cap", "proc", "interrupts")) or
              os.path.isfile(os.path.join(tmp, "cap", "proc", "interrupts")),
              "capture copied a device node")

        # the advice's topology: an IRQ's affinity
        adv = os.path.join(tmp, "adv")
        shutil.copytree(os.path.join(FIXTURES, "advise", "mpt2sas"), adv, symlinks=True)
        for t in ("t0", "t1"):
            node(w, os.path.join(adv, t, "proc", "irq", "108", "smp_affinity"))
        run("compute", os.path.join(adv, "t0"), os.path.join(adv, "t1"), "--json", ok=False)
        check(w.opened() == [], "compute --json (advice) opened device nodes")

        # a daemon on such a tree: every collector, a few samples
        d = Daemon(tmp, root=os.path.join(cg, "t1"), interval=100, name="dev")
        daemons.append(d)
        wait_samples(d, 4)
        check(d.stop() == 0, "the daemon on a tree with device nodes did not exit 0")
        check(w.opened() == [], "iotriaged --root opened device nodes")

        # a recording directory with a node by a segment's name
        rec = os.path.join(tmp, "rec")
        os.mkdir(rec, 0o700)
        for src in sorted(os.listdir(os.path.join(FIXTURES, "record-v1", "rec"))):
            shutil.copy(os.path.join(FIXTURES, "record-v1", "rec", src), rec)
        node(w, os.path.join(rec, "1600000000000-0000000000000001.iotr"))
        r = run("replay", rec, "--json")
        check(r.stdout.count("\n") > 0, "replay read nothing beside the node")
        check(w.opened() == [], "replay opened a device node")
        print("ok")
    finally:
        cleanup(daemons)
        if not os.environ.get("IOTR_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001
        fail("unexpected: %r" % e)
