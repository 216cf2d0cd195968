#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every disk in the latency view on a host with hundreds of block devices
(issue 30; doc/trace.md, "The tables' sizes"), as root on the live kernel.

Makes N loop devices (300; IOTRIAGE_TRACE_DISKS) over small files in
/dev/shm, then `iotriage snapshot --trace --json` while each device does
one direct read and one direct write: every one of them has its row in
trace.disks with that read and that write, and probes.block.lat_dropped
says 0 (the (disk, op) table is sized from the disk count at load). On the
build before it (a fixed table of 512 slots, four probes each) 4-9 disks
had no row and nothing said so. Every loop device and file made is removed.
"""
import fcntl
import json
import mmap
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import check, env, skip  # noqa: E402


LOOP_CTL_REMOVE = 0x4C81  # linux/loop.h


def prog_ids(name):
    r = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True)
    return {p["id"] for p in json.loads(r.stdout or "[]") if p.get("name") == name}


def main():
    iotriage = env("IOTRIAGE")
    n = int(os.environ.get("IOTRIAGE_TRACE_DISKS", "300"))
    if os.geteuid() != 0:
        skip("needs root")
    prefix = "/dev/shm/iotriage-tdisks-%d-" % os.getpid()
    loops, imgs = [], []
    # the devices losetup makes for us (none was free) are removed after,
    # not only detached: 300 idle loop devices left behind made every
    # later sample of /proc/diskstats cost 5x
    existed = {x for x in os.listdir("/sys/block") if x.startswith("loop")}
    try:
        for i in range(n):
            img = "%s%d.img" % (prefix, i)
            with open(img, "wb") as f:
                f.truncate(64 << 10)
            imgs.append(img)
            r = subprocess.run(["losetup", "-f", "--show", img], capture_output=True,
                               text=True)
            if r.returncode:
                skip("losetup (%d devices made): %s" % (len(loops), r.stderr.strip()))
            loops.append(r.stdout.strip())
        ndisks = len(os.listdir("/sys/block"))
        print("%d loop devices, %d block devices" % (len(loops), ndisks), flush=True)
        before = prog_ids("blk_complete")
        p = subprocess.Popen([iotriage, "snapshot", "--trace", "--json", "--interval", "5000"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # loaded (the tables sized then: a new blk_complete) and the first
        # read taken right after
        deadline = time.monotonic() + 30
        while not (prog_ids("blk_complete") - before) and p.poll() is None:
            check(time.monotonic() < deadline, "the block probe did not load in 30 s")
            time.sleep(0.1)
        time.sleep(0.5)
        buf = mmap.mmap(-1, 4096)
        t0 = time.monotonic()
        for dev in loops:
            fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
            try:
                os.preadv(fd, [buf], 0)
                os.pwritev(fd, [buf], 4096)
            finally:
                os.close(fd)
        print("IO on every device in %.2f s" % (time.monotonic() - t0), flush=True)
        check(p.poll() is None, "the IO outlasted the snapshot's window")
        out, err = p.communicate(timeout=90)
        check(p.returncode == 0, "snapshot: %s" % err)
        t = json.loads(out)["trace"]
        if not t.get("available"):
            skip("tracing unavailable: %s" % t.get("reason"))
        blk = t["probes"]["block"]
        print("probes.block: %s" % json.dumps(blk), flush=True)
        rows = {d["disk"]: d for d in t["disks"]}
        missing = [os.path.basename(x) for x in loops if os.path.basename(x) not in rows]
        short = [name for name, d in rows.items() if name.startswith("loop") and
                 "/dev/" + name in loops and
                 (d["lat"].get("read", {}).get("device", {}).get("count", 0) < 1 or
                  d["lat"].get("write", {}).get("device", {}).get("count", 0) < 1)]
        check(not missing, "%d of %d loop devices have no row in trace.disks: %s"
              % (len(missing), len(loops), missing[:20]))
        check(not short, "rows without their read or write: %s" % short[:20])
        check(blk.get("lat_dropped") == 0, "lat_dropped %s" % blk.get("lat_dropped"))
        check(blk.get("lat_slots", 0) >= ndisks * 3 * 4 or blk.get("lat_slots", 0) >= 1 << 14,
              "lat_slots %s for %d block devices" % (blk.get("lat_slots"), ndisks))
        print("ok: %d loop devices, each with its row" % len(loops), flush=True)
    finally:
        for dev in loops:
            subprocess.run(["losetup", "-d", dev])
        remove_made(loops, existed)
        for img in imgs:
            os.unlink(img)


def remove_made(loops, existed):
    """Removes the detached loop devices that did not exist before
    (LOOP_CTL_REMOVE on /dev/loop-control); a device still busy stays."""
    made = [os.path.basename(d) for d in loops if os.path.basename(d) not in existed]
    if not made:
        return
    fd = os.open("/dev/loop-control", os.O_RDWR)
    left = []
    try:
        for name in made:
            try:
                fcntl.ioctl(fd, LOOP_CTL_REMOVE, int(name[4:]))
            except OSError as e:
                left.append("%s (%s)" % (name, e.strerror))
    finally:
        os.close(fd)
    print("removed %d loop devices made for the test%s" % (
        len(made) - len(left), "; left: " + ", ".join(left[:5]) if left else ""), flush=True)


if __name__ == "__main__":
    main()
