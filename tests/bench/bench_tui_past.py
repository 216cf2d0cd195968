#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The live view's time keys against a daemon (doc/PERFORMANCE.md, "the
past, live"): the client at 80x24 in tmux on SOCKET, then the time from a
key to the screen that answers it (tmux capture-pane polled every 2 ms, so
its cost is in the numbers) and the client's CPU per step (utime + stime
of /proc/PID/stat over 60 steps, the samples arriving meanwhile included).

Usage: bench_tui_past.py SOCKET IOTRIAGE
SOCKET: an iotriaged at --interval 1000 that has run for more than its
--history 600 with --record, so that -780 s is in its recording only.
"""
import atexit
import os
import re
import statistics
import subprocess
import sys
import time

sock, client = sys.argv[1], sys.argv[2]
srv = "bench-tui-past-%d" % os.getpid()


def T(*a):
    return subprocess.run(["tmux", "-L", srv, "-f", "/dev/null", *a],
                          capture_output=True, text=True).stdout


def screen():
    return T("capture-pane", "-p", "-t", "m")


def wait(pred, limit=30):
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        s = screen()
        if pred(s):
            return time.monotonic() - t0, s
        time.sleep(0.002)
    sys.exit("timeout; screen:\n" + screen())


def past(s):
    m = re.search(r"PAST \S+ -\S+", s)
    return m.group(0) if m else None


def jump(when):
    T("send-keys", "-t", "m", "b")
    wait(lambda s: "jump to" in s)
    T("send-keys", "-t", "m", "-l", "--", when)
    T("send-keys", "-t", "m", "Enter")


atexit.register(lambda: T("kill-server"))  # whichever way it ends
T("new-session", "-d", "-s", "m", "-x", "80", "-y", "24",
  "env LANG=C.UTF-8 %s --socket %s --no-color; sleep 600" % (client, sock))
t, s = wait(lambda s: "History: disk sdb" in s)
print("connect to a screen with the daemon's history: %.0f ms" % (t * 1000))
pid = int(subprocess.run(["pgrep", "-f", "-n", "%s --socket %s" % (client, sock)],
                         capture_output=True, text=True).stdout.split()[0])


def cpu():
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def rss():
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS"):
            return line.split()[1]


print("client RSS with the history kept: %s kB" % rss())
lat, prev, c0 = [], None, cpu()
for i in range(60):
    T("send-keys", "-t", "m", "<")
    t, s = wait(lambda s: past(s) and past(s) != prev)
    prev = past(s)
    lat.append(t * 1000)
c1 = cpu()
print("60 steps back: key to screen median %.1f ms, max %.1f ms; client CPU %.1f ms a step; at %s"
      % (statistics.median(lat), max(lat), (c1 - c0) * 1000 / 60, prev))
jump("-590s")
t, s = wait(lambda s: re.search(r"PAST \S+ -9m", s))
print("b -590s: %.1f ms to %s" % (t * 1000, past(s)))
T("send-keys", "-t", "m", "n")
t, s = wait(lambda s: "PAST" not in s)
print("n (now): %.1f ms" % (t * 1000))
jump("-780s")
t, s = wait(lambda s: re.search(r"PAST \S+ -1[23]m", s))
print("b -780s, older than the daemon's memory (its history, into the recording): %.1f ms to %s"
      % (t * 1000, past(s)))
print("client RSS after it: %s kB" % rss())
T("kill-server")
