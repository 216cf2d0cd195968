#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Floods iotriaged's /metrics and reports what it cost the daemon.

  metrics_flood.py PID PORT [SECONDS [PROCS [keepalive|close]]]

PROCS processes scrape 127.0.0.1:PORT as fast as they can for SECONDS
(default 10 s, 2 processes, a new connection per scrape); then prints the
scrapes answered per second, the replies by status, and the daemon's CPU
(utime + stime of PID from /proc) over the window. doc/PERFORMANCE.md.
"""
import multiprocessing
import os
import socket
import sys
import time

REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n"


def reply(s, buf):
    while b"\r\n\r\n" not in buf:
        c = s.recv(262144)
        if not c:
            return None, b""
        buf += c
    head, rest = buf.split(b"\r\n\r\n", 1)
    status = int(head.split(b" ", 2)[1])
    n = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            n = int(v)
    while len(rest) < n:
        c = s.recv(262144)
        if not c:
            return None, b""
        rest += c
    return status, rest[n:]


def worker(port, seconds, keepalive, q):
    counts = {}
    end = time.monotonic() + seconds
    s = None
    buf = b""
    while time.monotonic() < end:
        try:
            if s is None:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                buf = b""
            s.sendall(REQ)
            st, buf = reply(s, buf)
        except OSError:
            st = "error"
        counts[st] = counts.get(st, 0) + 1
        if not keepalive or st in (None, "error"):
            if s:
                s.close()
            s = None
    q.put(counts)


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        f = f.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def main():
    pid, port = int(sys.argv[1]), int(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 10
    procs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    keepalive = len(sys.argv) > 5 and sys.argv[5] == "keepalive"
    q = multiprocessing.Queue()
    c0, t0 = cpu_s(pid), time.monotonic()
    ps = [multiprocessing.Process(target=worker, args=(port, seconds, keepalive, q))
          for _ in range(procs)]
    for p in ps:
        p.start()
    total = {}
    for _ in ps:
        for k, v in q.get().items():
            total[k] = total.get(k, 0) + v
    for p in ps:
        p.join()
    dt, dc = time.monotonic() - t0, cpu_s(pid) - c0
    ok = total.get(200, 0)
    print("%s, %d procs, %.1f s: %.0f scrapes/s answered 200, replies %r; daemon CPU %.2f s "
          "= %.1f %% of a CPU, %.1f us a scrape"
          % ("keep-alive" if keepalive else "a connection a scrape", procs, dt, ok / dt,
             total, dc, 100 * dc / dt, 1e6 * dc / max(ok, 1)))


if __name__ == "__main__":
    main()
