#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""history reaching into a big --trace recording never stalls sampling
(issue 30, "The past stalls everyone"; doc/security.md, doc/daemon.md).

A recording of 900 frames of a host with 2,048 per-queue rows of each kind
(big_trace_recording.py: ~430 KB a replayed document, so the 8 MiB cap
keeps ~19) is the daemon's --record directory; its ring holds 2 s. A
client of the daemon's own uid (never paced, as root) asks for
{"history","seconds":3600} again as each reply ends, for 8 s, while a
subscriber takes every sample and a third client asks for status every
100 ms. Before: the loop replayed all 900 documents for every reply
(1-3 s each here) and status waited that long. Now: the worst gap
between two samples (their timestamp_ms) is at most 2 intervals, status
is answered within one interval, each reply has the newest recorded
samples under the cap, and the replies keep coming.
Needs no root (the daemon runs as the test's uid)."""
import json
import os
import shutil
import socket
import sys
import tempfile
import subprocess
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Client, Daemon, check, cleanup, env, fail  # noqa: E402
import big_trace_recording  # noqa: E402

INTERVAL = 500  # ms
FRAMES = 900
RUN_S = 8.0

# asks for an hour of history as each reply ends, for RUN_S seconds; prints
# [seconds, recorded, count, bytes, first sample's timestamp_ms] a reply
ASKER = r'''
import json, socket, sys, time
path, run_s = sys.argv[1], float(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
s.settimeout(150)  # a sanitizer build replays 20-50 times slower
replies, error, t_end = [], None, time.monotonic() + run_s
try:
    while time.monotonic() < t_end:
        t0 = time.monotonic()
        s.sendall(b'{"cmd":"history","seconds":3600}\n')
        chunks = []
        while not chunks or not chunks[-1].endswith(b"\n"):
            c = s.recv(1 << 20)
            if not c:
                raise OSError("closed")
            chunks.append(c)
        raw = b"".join(chunks)
        r = json.loads(raw)
        if not r.get("ok"):
            error = raw[:300].decode(errors="replace")
            break
        replies.append([time.monotonic() - t0, r["recorded"], r["count"], len(raw),
                        r["samples"][0]["timestamp_ms"] if r["samples"] else 0])
except (OSError, ValueError) as e:
    error = repr(e)
print(json.dumps({"replies": replies, "error": error}))
'''


def main():
    fixtures, make_rec = env("FIXTURES"), env("MAKE_RECORDING")
    tmp = tempfile.mkdtemp(prefix="iotr-hstall-")
    daemons = []
    try:
        rec = os.path.join(tmp, "rec")
        big_trace_recording.make(rec, make_rec, FRAMES)
        made = time.time()  # its last frame two seconds before
        d = Daemon(tmp, root=os.path.join(fixtures, "advise", "healthy", "t1"),
                   interval=INTERVAL, extra=["--history", "2", "--record", rec])
        daemons.append(d)
        deadline = time.monotonic() + 30
        while d.status()["samples"] < 6:
            check(time.monotonic() < deadline, "the daemon never took 6 samples")
            time.sleep(0.1)

        stop = threading.Event()
        errors = []
        stamps, lat = [], []

        def subscriber():
            c = Client(d.sock)
            c.req({"cmd": "subscribe"})
            try:
                while not stop.is_set():
                    r, _ = c.event()
                    stamps.append((r["sample"]["sample"], r["sample"]["timestamp_ms"]))
            except (OSError, ValueError) as e:
                errors.append("subscriber: " + repr(e))
            finally:
                c.close()

        def prober():
            c = Client(d.sock)
            try:
                while not stop.is_set():
                    t0 = time.monotonic()
                    r = c.req({"cmd": "status"})
                    lat.append(time.monotonic() - t0)
                    if not r.get("ok"):
                        errors.append("status: %r" % r)
                    time.sleep(0.1)
            except (OSError, ValueError) as e:
                errors.append("status: " + repr(e))
            finally:
                c.close()

        threads = [threading.Thread(target=f) for f in (subscriber, prober)]
        for t in threads:
            t.start()
        time.sleep(1.0)
        # the asker is a process of its own: parsing its 8 MB replies in
        # this one would hold the timing threads back (the GIL)
        asker = subprocess.Popen([sys.executable, "-c", ASKER, d.sock, str(RUN_S)],
                                 stdout=subprocess.PIPE, text=True)
        out, _ = asker.communicate(timeout=300)
        stop.set()
        r = json.loads(out.strip().splitlines()[-1])
        replies = r["replies"]
        if r.get("error"):
            errors.append(r["error"])
        for t in threads:
            t.join(30)
        check(not errors, "errors: %s" % errors)
        gaps = [b[1] - a[1] for a, b in zip(stamps, stamps[1:])]
        check(len(stamps) >= RUN_S * 1000 / INTERVAL / 2, "%d samples in %.0f s"
              % (len(stamps), RUN_S + 1))
        ids = [s[0] for s in stamps]
        check(ids == list(range(ids[0], ids[0] + len(ids))), "the subscriber missed samples")
        worst, slow = max(gaps), max(lat)
        print("%d history replies in %.0f s (each: %s recorded, %.1f MB, %.2f-%.2f s); "
              "%d samples, worst gap %d ms (interval %d); %d status replies, slowest %d ms"
              % (len(replies), RUN_S, sorted(set(r[1] for r in replies)),
                 max(r[3] for r in replies) / 1e6 if replies else 0,
                 min(r[0] for r in replies) if replies else 0,
                 max(r[0] for r in replies) if replies else 0,
                 len(stamps), worst, INTERVAL, len(lat), 1000 * slow))
        check(replies, "no history reply in %.0f s" % RUN_S)
        for took, recorded, count, size, first in replies:
            check(1 <= recorded <= 900 and size < (8 << 20) + (1 << 20),
                  "a reply of %d recorded samples, %d bytes" % (recorded, size))
            # the newest recorded ones (the oldest in reach are 7 minutes
            # older than the last)
            check(made * 1000 - first < 120000,
                  "a reply's first recorded sample is %d s older than the recording"
                  % (made - first / 1000))
        check(worst <= 2 * INTERVAL, "a sample gap of %d ms (interval %d ms)"
              % (worst, INTERVAL))
        check(slow <= INTERVAL / 1000, "status answered in %d ms (interval %d ms)"
              % (1000 * slow, INTERVAL))
        st = d.status()
        h = st["record"]["history"]
        print("replay thread: %d parts, %.2f s of CPU, the longest %.2f s"
              % (h["parts"], h["cpu_us"] / 1e6, h["max_us"] / 1e6))
        check(h["thread"] and h["parts"] >= len(replies), "status: %r" % h)
        check(st["overruns"] == 0, "%d overruns" % st["overruns"])
        check(d.stop() == 0, "exit code")
    finally:
        cleanup(daemons)
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
