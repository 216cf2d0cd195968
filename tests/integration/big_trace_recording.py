# SPDX-License-Identifier: GPL-2.0-or-later
"""A flight recording of a big host under --trace, made byte for byte
(doc/recording.md, "Payload"): DISKS NVMe disks of QUEUES hardware queues
each, every queue in the trace record's per-queue rows ('q' and 'x': 2 x
DISKS x QUEUES rows a frame), counters growing every frame so that every
row has rates. make(dir, make_recording, frames) writes it through
tests/integration/make_recording.c. Used by test_history_stall.py; run
alone (python3 big_trace_recording.py MAKE_RECORDING DIR FRAMES) it makes
one for measurements."""
import os
import struct
import subprocess
import sys

DISKS = 8
QUEUES = 256  # 8 x 256 = 2048 per-queue rows of each kind a frame
NCPU = 256


def rec(tag, data):
    return struct.pack("<HHiI", tag, 0, 0, len(data)) + data


def payload(k, disks=DISKS, queues=QUEUES):
    """Frame k's payload (k from 0): the core sources and the trace record."""
    up = b"%d.00 %d.00\n" % (1000 + k, 900 * NCPU + k)
    cpu = b"cpu  %d 0 %d %d 0 %d %d 0 0 0\n" % (100 * k, 50 * k, 1000 * k, 5 * k, 5 * k)
    stat = cpu + b"intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\n"
    disk = b"".join(b" 259 %d nvme%dn1 %d 0 %d %d 0 0 0 0 0 %d %d\n"
                    % (m, m, 1000 * k, 8000 * k, 100 * k, 900 * k, 100 * k)
                    for m in range(disks))
    sysb = b"".join(b"259\t%d\t1\t1\t\t\n" % m for m in range(disks))
    budget = struct.unpack("<Q", struct.pack("<d", 2.0))[0]
    t = [b"\nh\t1\t%d\t0\t%d\t%d\t1\t0\t1\t1\t0" % ((k + 1) * 1000000000, budget, NCPU)]
    t += [b"p\t%d\t1\t1\t0\t0\t0\t" % p for p in range(3)]
    slots = b"\t".join(b"%d" % (k * (s + 1)) for s in range(8))
    for m in range(disks):
        t.append(b"l\t259\t%d\t0\t1\t%d\t%d\t0\t%s" % (m, 36 * k * queues, 9000000 * k, slots))
    for m in range(disks):
        for q in range(queues):
            t.append(b"q\t259\t%d\t%d\t%d\t%d" % (m, q, 20000 * k, 36 * k))
    for m in range(disks):
        for q in range(queues):
            t.append(b"x\t259\t%d\t%d\t0\t%d\t%d\t%d\t%s" % (m, q, 36 * k, 900000 * k, k, slots))
    trace = b"\n".join(t) + b"\n"
    return rec(1, up) + rec(2, stat) + rec(3, disk) + rec(6, sysb) + rec(17, trace)


def make(out, make_recording, frames, disks=DISKS, queues=QUEUES):
    """The recording in directory out: frames frames, one a second, the last
    two seconds ago, streamed to make_recording (nothing on disk but it)."""
    p = subprocess.Popen([make_recording, out, "-"], stdin=subprocess.PIPE)
    p.stdin.write(struct.pack("<I", frames))
    for k in range(frames):
        data = payload(k, disks, queues)
        p.stdin.write(struct.pack("<I", len(data)) + data)
    p.stdin.close()
    if p.wait() != 0:
        raise RuntimeError("make_recording exited %d" % p.returncode)
    return out


if __name__ == "__main__":
    make(sys.argv[2], sys.argv[1], int(sys.argv[3]))
