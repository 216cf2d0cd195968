#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Impossible numbers in a recording's trace records (issue 30): `replay
--json` of two frames whose second holds a device row with remote 50 times
its IOs (remote_pct 5000 %), a bucket pair that wraps 2^64, a mean of
1.8e13 us, 10^10 us/s of NET_RX on one CPU, and 10^9 IOs/s on one hardware
queue with the frames' trace clock 1 us apart. Each is left out and counted
in trace.rows_dropped, none is printed, and replay says the total once on
stderr. Before, replay printed them all with nothing on stderr.

The payloads are built byte for byte as doc/recording.md describes them and
written by make_recording (the recorder's own writer). No root needed.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

STAT = (b"cpu  1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\ncpu1 1 2 3 4 5 6 7 0 0 0\n"
        b"intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\n")
DISK = b"   7       0 loop0 1 0 8 1 1 0 8 1 0 2 2\n"
TAG_UPTIME, TAG_STAT, TAG_DISKSTATS, TAG_TRACE = 1, 2, 3, 17


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def rec(tag, data):
    return struct.pack("<HHiI", tag, 0, 0, len(data)) + data


def line(kind, *fields):
    return "\t".join([kind] + [str(f) for f in fields]) + "\n"


def hist(count, bucket):
    """count IOs in one bucket: (count, sum_ns at the bucket's middle, slots)"""
    slots = [0] * (bucket + 1)
    slots[bucket] = count
    return count, count * (3 << bucket) * 500, slots


def trace_body(mono_ns, t, damaged):
    budget = struct.unpack("<Q", struct.pack("<d", 2.0))[0]
    out = "\n" + line("h", 1, mono_ns, 1, budget, 2, 1, 0, 0, 1, 0)
    for k in range(3):
        out += line("p", k, 1, 1, 1, 1000 * t, 10 * t, "")
    soft = [1000000 * t] * 10
    if damaged:
        soft[3] += 10 ** 16  # 10^10 us/s of NET_RX on cpu0 over one second
    out += line("s", 0, *soft, *([100 * t] * 10))
    # 7:0 reads: queued (kind 0) and device (kind 1); 7:0 flushes at the device
    for op, kind, bucket in ((0, 0, 3), (0, 1, 4), (2, 1, 5)):
        n, s, slots = hist(100 * t, bucket)
        remote = n // 4
        if damaged and (op, kind) == (0, 1):
            remote = n * 50  # remote_pct 5000 %
        if damaged and op == 2:
            slots = [1 << 63, 1 << 63]  # a bucket pair that wraps 2^64
        out += line("l", 7, 0, op, kind, n, s, remote, *slots)
    # per hardware queue: 7:0 reads on hctx 0 and 1
    for hctx in (0, 1):
        n, s, slots = hist(100 * t, 4)
        if damaged and hctx == 1:
            s = n * 18 * 10 ** 15  # a mean of 1.8e13 us in the 16-32 us bucket
        out += line("x", 7, 0, hctx, 0, n, s, 0, *slots)
    return out.encode()


def queue_body(mono_ns, ios):
    """The third frame: 1 us after the second, hctx 0 with ios more IOs."""
    budget = struct.unpack("<Q", struct.pack("<d", 2.0))[0]
    out = "\n" + line("h", 1, mono_ns, 1, budget, 2, 1, 0, 0, 1, 0)
    for k in range(3):
        out += line("p", k, 1, 1, 1, 3000, 30, "")
    for hctx in (0, 1):
        n, s, slots = hist(300 + (ios if hctx == 0 else 0), 4)
        out += line("x", 7, 0, hctx, 0, n, s, 0, *slots)
    return out.encode()


def frame(up, body):
    return (rec(TAG_UPTIME, up) + rec(TAG_STAT, STAT) + rec(TAG_DISKSTATS, DISK) +
            rec(TAG_TRACE, body))


def replay(exe, path):
    p = subprocess.run([exe, "replay", path, "--from", "@0", "--json"], capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        fail("replay exit %d: %s" % (p.returncode, p.stderr))
    return [json.loads(x) for x in p.stdout.splitlines()], p.stderr


def main():
    exe, make_rec = os.environ.get("IOTRIAGE"), os.environ.get("MAKE_RECORDING")
    if not exe or not make_rec:
        print("SKIP: run through meson test")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="iotriage-replay-trace-") as tmp:
        bodies = [trace_body(1000 * 10 ** 9, 1, False), trace_body(1001 * 10 ** 9, 2, True),
                  queue_body(1001 * 10 ** 9 + 1000, 1000)]
        ups = [b"1000.00 900.00\n", b"1001.00 901.00\n", b"1002.00 902.00\n"]
        paths = []
        for k, (up, body) in enumerate(zip(ups, bodies)):
            paths.append(os.path.join(tmp, "p%d" % k))
            with open(paths[-1], "wb") as f:
                f.write(frame(up, body))
        subprocess.run([make_rec, tmp + "/rec"] + paths, check=True)
        docs, err = replay(exe, tmp + "/rec")
    if len(docs) != 3:
        fail("%d documents" % len(docs))
    t1, t2 = docs[1]["trace"], docs[2]["trace"]
    print("frame 2: rows_dropped %s, disks %s" % (t1.get("rows_dropped"),
                                                  json.dumps(t1.get("disks"))[:300]))
    print("frame 3: rows_dropped %s, hctx %s" % (t2.get("rows_dropped"),
                                                 json.dumps(t2.get("disks"))[:300]))
    print("stderr: %r" % err)
    # remote 5000 %, the wrapped flush row, the mean, NET_RX on cpu0: 4 rows
    if t1.get("rows_dropped") != 4:
        fail("frame 2: rows_dropped %r, want 4" % t1.get("rows_dropped"))
    text = json.dumps(t1)
    for bad in ('"remote_pct": 5000', '"flush"', "18000000000000"):
        if bad in text:
            fail("frame 2 shows %s: %s" % (bad, text[:2000]))
    cpus = {c["cpu"]: c for c in t1.get("cpus", [])}
    if not cpus or cpus.get(0, {}).get("soft_us_s", {}).get("NET_RX", 0) != 0:
        fail("frame 2: cpu0's NET_RX: %r" % t1.get("cpus"))
    for c in cpus.values():
        if any(v > 1e6 for v in c.get("soft_us_s", {}).values()):
            fail("frame 2: softirq time past the interval: %r" % c)
    # 1000 IOs on hctx 0 in the 1 us between frames 2 and 3: 10^9 IOs/s
    if not t2.get("rows_dropped"):
        fail("frame 3: 10^9 IOs/s on one queue kept: %r" % t2)
    if any(h for d in t2.get("disks", []) for h in d.get("hctx", [])):
        fail("frame 3: a hardware queue shown: %r" % t2.get("disks"))
    if err.count("left out as impossible") != 1:
        fail("replay's stderr: %r" % err)
    print("ok")


if __name__ == "__main__":
    main()
