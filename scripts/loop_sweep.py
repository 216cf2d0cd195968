#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The loop devices a test run made and left: `loop_sweep.py list` prints
the loop devices that exist now (one name a line); `loop_sweep.py sweep
FILE` removes every loop device not named in FILE that is detached
(LOOP_CTL_REMOVE), says how many, and leaves attached ones (someone's
data) alone. scripts/test lists them before its tests and sweeps after:
a test that detaches its devices but leaves the nodes (losetup -f makes one
when none is free) would otherwise leave them to every later sample of
/proc/diskstats (300 idle devices made the daemon's core sample cost 5x)."""
import fcntl
import os
import sys

LOOP_CTL_REMOVE = 0x4C81  # linux/loop.h


def loops():
    try:
        return sorted(x for x in os.listdir("/sys/block") if x.startswith("loop"))
    except OSError:
        return []


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "list":
        print("\n".join(loops()))
        return 0
    if len(sys.argv) != 3 or sys.argv[1] != "sweep":
        print("usage: loop_sweep.py list | sweep FILE", file=sys.stderr)
        return 2
    with open(sys.argv[2]) as f:
        before = set(f.read().split())
    made = [x for x in loops() if x not in before and
            not os.path.exists("/sys/block/%s/loop/backing_file" % x)]
    if not made:
        return 0
    try:
        fd = os.open("/dev/loop-control", os.O_RDWR)
    except OSError as e:
        print("loop devices left by the tests: %d (%s)" % (len(made), e.strerror))
        return 0
    gone = 0
    for name in made:
        try:
            fcntl.ioctl(fd, LOOP_CTL_REMOVE, int(name[4:]))
            gone += 1
        except (OSError, ValueError):
            pass
    os.close(fd)
    print("loop devices the tests made and left detached: %d removed (%s%s)" % (
        gone, " ".join(made[:8]), " ..." if len(made) > 8 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
