#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The recorder's CPU, before and after, in one run (doc/PERFORMANCE.md,
"Flight recorder"): three daemons side by side on this host, full mode,
1 Hz: NEW not recording, OLD recording, NEW recording (each into a 0700
directory of its own); after a 15 s warm-up, SECONDS of deltas of `status`
(record.cpu_us / record.frames: the recorder, on the sampling path and,
from format 5, in its writer thread) and of the
process's CPU (every thread's /proc/PID/task/TID/schedstat). Then a NEW
daemon starts on NEW's recording and seals its segment (doc/recording.md,
"Sealing"): its thread's CPU a frame and the bytes before and after.
OLD may be the same binary as NEW.

  bench_recorder.py OLD_IOTRIAGED NEW_IOTRIAGED [SECONDS]   (default 300)
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


def status(sock):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.sendall(b'{"cmd":"status"}\n')
    buf = b""
    while not buf.endswith(b"\n"):
        c = s.recv(65536)
        if not c:
            break
        buf += c
    s.close()
    return json.loads(buf)


def cpu_ns(pid):
    t = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
            t += int(f.read().split()[0])
    return t


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    secs = float(sys.argv[3]) if len(sys.argv) == 4 else 300
    base = tempfile.mkdtemp(prefix="bench-recorder-")
    os.chmod(base, 0o700)
    for d in ("old", "new"):
        os.mkdir(os.path.join(base, d), 0o700)
    specs = [("new, not recording", new, "n", []),
             ("old, recording", old, "o", ["--record", os.path.join(base, "old")]),
             ("new, recording", new, "w", ["--record", os.path.join(base, "new")])]
    socks = [os.path.join(base, k + ".sock") for _, _, k, _ in specs]
    ps = [subprocess.Popen([b, "-f", "-s", s] + x, stderr=subprocess.DEVNULL)
          for (_, b, _, x), s in zip(specs, socks)]
    try:
        time.sleep(15)
        a = [status(s) for s in socks]
        ca = [cpu_ns(p.pid) for p in ps]
        time.sleep(secs)
        b = [status(s) for s in socks]
        cb = [cpu_ns(p.pid) for p in ps]
    finally:
        for p in ps:
            p.terminate()
            p.wait()
    for i, (name, _, _, _) in enumerate(specs):
        n = b[i]["samples"] - a[i]["samples"]
        line = "%-20s %4d samples, process %4.0f us a sample" % (name, n, (cb[i] - ca[i]) / 1e3 / n)
        if b[i].get("record"):
            ra, rb = a[i]["record"], b[i]["record"]
            fr = rb["frames"] - ra["frames"]
            line += "; recorder %5.1f us a frame (%d frames), %.0f B a frame on disk" % (
                (rb["cpu_us"] - ra["cpu_us"]) / fr, fr, (rb["bytes"] - rb.get("segments", 1) * 512) / rb["frames"])
        print(line)
    sock = os.path.join(base, "seal.sock")
    p = subprocess.Popen([new, "-f", "-s", sock, "--record", os.path.join(base, "new")],
                         stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            time.sleep(0.5)
            try:
                st = status(sock)["record"]["seal"]
            except OSError:
                continue
            if st["segments"] or time.monotonic() > deadline:
                break
    finally:
        p.terminate()
        p.wait()
    f = max(st["frames"], 1)
    print("sealing: %d frames, %.1f us a frame in the thread; %d -> %d bytes (%.0f -> %.0f B a frame)"
          % (st["frames"], st["cpu_us"] / f, st["bytes_before"], st["bytes_after"],
             (st["bytes_before"] - 256) / f, (st["bytes_after"] - 256) / f))
    shutil.rmtree(base)


if __name__ == "__main__":
    main()
