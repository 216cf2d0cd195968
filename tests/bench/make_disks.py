#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""make_disks.py FIXTURE OUT N: writes OUT/t0 and OUT/t1, copies of the
recorded pair FIXTURE/{t0,t1} whose proc/diskstats list N disks (dsk0 ...),
t1 in the opposite order of t0, so pairing by position never works. Disk k
does k+1 reads of 8 sectors in the interval. For the correctness test
(tests/integration/test_trees.sh) and the timing (bench_disks.sh)."""
import os
import shutil
import sys


def line(k, reads):
    major, minor = 1000 + k // 1024, k % 1024
    # 17 counters: the 5.5+ form; only reads, read sectors and read ticks move
    v = [reads, 0, reads * 8, reads, 0, 0, 0, 0, 0, reads, reads, 0, 0, 0, 0, 0, 0]
    return "%4d %7d dsk%d %s\n" % (major, minor, k, " ".join(str(x) for x in v))


def main():
    fixture, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for t in ("t0", "t1"):
        dst = os.path.join(out, t)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(os.path.join(fixture, t), dst, symlinks=True)
        shutil.rmtree(os.path.join(dst, "sys", "block"), ignore_errors=True)
    with open(os.path.join(out, "t0", "proc", "diskstats"), "w") as f:
        f.writelines(line(k, 1000) for k in range(n))
    with open(os.path.join(out, "t1", "proc", "diskstats"), "w") as f:
        f.writelines(line(k, 1000 + k + 1) for k in reversed(range(n)))


if __name__ == "__main__":
    main()
