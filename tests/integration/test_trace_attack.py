#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tracing stage attacked (issue 30, doc/security.md), as root against
the live kernel; 77 when BPF cannot load here.

- budget: a user with no access at all (uid 65534) floods loopback UDP;
  the softirq probe goes over --trace-budget and is detached, backs off,
  comes back under the flood and goes over again (the period grows), and
  once the flood stops it is on again within the period it announced in
  "back_in_s". Before, it stayed off for the daemon's life.
- netns: a veth whose inner end has the host's NIC's name (GRO on, so it
  has a NAPI of its own) in a network namespace of its own, flooded with
  UDP from a second namespace: its NAPI row carries that namespace and
  "host": false, and no row of the host's namespace has its time. Before,
  the row was only "dev":"eth0", merged into the host's eth0 line.

While each runs, a subscriber takes every sample: the worst gap between
two samples' timestamps is printed in intervals (goal: at most 2;
doc/security.md has the numbers) and fails the test past 20.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Client, Daemon, check, cleanup, fail, skip  # noqa: E402

INTERVAL_MS = 250
GAP_FAIL = 20  # intervals: a frozen loop, not the machine's noise

FLOOD = r"""
import socket, sys, time
end = time.monotonic() + float(sys.argv[1])
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
r.setblocking(False)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a, b = r.getsockname(), b"x" * 16
while time.monotonic() < end:
    for _ in range(1000):
        s.sendto(b, a)
        try:
            r.recv(64)
        except BlockingIOError:
            pass
"""

SEND = r"""
import socket, sys, time
end = time.monotonic() + float(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
while time.monotonic() < end:
    for _ in range(1000):
        s.sendto(b"x" * 64, (sys.argv[1], 9))
"""


class Gaps:
    """Subscribes and keeps every sample's timestamp_ms: the worst gap."""

    def __init__(self, d):
        self.c = d.client()
        r = self.c.req({"cmd": "subscribe", "every": 1})
        check(r.get("ok"), "subscribe: %r" % r)
        self.ts = []
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop:
            try:
                raw = self.c.line()
            except OSError:  # closed under us at the end
                return
            if not raw:
                return
            ev = json.loads(raw)
            if ev.get("event") == "sample":
                self.ts.append(ev["sample"]["timestamp_ms"])

    def mark(self):
        return len(self.ts)

    def worst(self, since):
        ts = self.ts[since:]
        return max((b - a for a, b in zip(ts, ts[1:])), default=0), len(ts)

    def close(self):
        self.stop = True
        self.c.close()


def snap(d):
    c = d.client()
    r = c.req({"cmd": "snapshot"})
    c.close()
    check(r.get("ok"), "snapshot: %r" % r)
    return r["sample"]


def trace_of(d):
    t = snap(d).get("trace", {})
    if not t.get("available"):
        skip("tracing unavailable here: %s" % t.get("reason"))
    return t


def wait_for(d, what, cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t = trace_of(d)
        if cond(t):
            return t
        time.sleep(INTERVAL_MS / 1000 / 2)
    fail("%s within %ds: %r" % (what, timeout, trace_of(d).get("probes")))


def report_gap(g, since, name):
    worst, n = g.worst(since)
    print("%s: worst sample gap %d ms = %.2f intervals over %d samples" %
          (name, worst, worst / INTERVAL_MS, n), flush=True)
    check(n > 1, "%s: no samples while it ran" % name)
    check(worst <= GAP_FAIL * INTERVAL_MS, "%s: a gap of %d ms" % (name, worst))


def attack_budget(d, g):
    since = g.mark()
    nobody = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
    floods = [subprocess.Popen(nobody + [sys.executable, "-c", FLOOD, "60"])
              for _ in range(2)]
    try:
        t = wait_for(d, "softirq probe over budget under the flood",
                     lambda t: t["probes"]["softirq"].get("over_budget", 0) >= 1
                     and not t["probes"]["softirq"]["on"], 20)
        p = t["probes"]["softirq"]
        print("off: %r" % p, flush=True)
        check("backing off" in p["reason"] and p.get("back_in_s", -1) >= 0,
              "softirq off without backing off: %r" % p)
        # back on within its period, over again under the same flood: twice
        # as long this time
        wait_for(d, "softirq probe back and over budget again",
                 lambda t: t["probes"]["softirq"].get("over_budget", 0) >= 2
                 and not t["probes"]["softirq"]["on"], 25)
    finally:
        for f in floods:
            f.kill()
            f.wait()
    p = trace_of(d)["probes"]["softirq"]
    print("off again: %r" % p, flush=True)
    check(6 <= p["back_in_s"] + p["off_s"] <= 11,
          "the second period is not ~10 s: %r" % p)
    # the flood is over: on again when its period ends
    left = p["back_in_s"]
    t0 = time.monotonic()
    t = wait_for(d, "softirq probe on again after the flood",
                 lambda t: t["probes"]["softirq"]["on"], left + 3)
    print("softirq on again %.1f s after the flood (%.1f s left of its period): %r" %
          (time.monotonic() - t0, left, t["probes"]["softirq"]), flush=True)
    # and it measures: NET_RX rows again after a whole interval
    wait_for(d, "softirq rows after re-attach", lambda t: "napi" in t, 5)
    report_gap(g, since, "budget attack (loopback UDP as uid 65534)")


def host_nic():
    for n in sorted(os.listdir("/sys/class/net")):
        if n != "lo" and os.path.exists("/sys/class/net/%s/device" % n):
            return n
    return "eth0"


def ns_inode(ns):
    r = subprocess.run(["ip", "netns", "exec", ns, "stat", "-L", "-c", "%i",
                        "/proc/self/ns/net"], capture_output=True, text=True)
    check(r.returncode == 0, "stat in %s: %s" % (ns, r.stderr))
    return int(r.stdout)


def sh(*argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("%s: %s" % (" ".join(argv), r.stderr.strip()))


def attack_netns(d, g):
    name = host_nic()
    a, b = "iotr-a-%d" % os.getpid(), "iotr-b-%d" % os.getpid()
    made = []
    try:
        try:
            for ns in (a, b):
                sh("ip", "netns", "add", ns)
                made.append(ns)
            sh("ip", "-n", a, "link", "add", name, "type", "veth", "peer", "name", "peer0",
               "netns", b)
            sh("ip", "-n", a, "addr", "add", "10.231.7.1/24", "dev", name)
            sh("ip", "-n", b, "addr", "add", "10.231.7.2/24", "dev", "peer0")
            sh("ip", "-n", a, "link", "set", name, "up")
            sh("ip", "-n", b, "link", "set", "peer0", "up")
            # GRO on: the veth's receive side is a NAPI of its own (else
            # the backlog); UDP from a device without TSO is eligible
            sh("ip", "netns", "exec", a, "ethtool", "-K", name, "gro", "on")
            sh("ip", "netns", "exec", b, "ethtool", "-K", "peer0", "tso", "off")
        except (RuntimeError, FileNotFoundError) as e:
            skip("cannot build the namespaces: %s" % e)
        inode = ns_inode(a)
        host = os.stat("/proc/self/ns/net").st_ino
        since = g.mark()
        send = subprocess.Popen(["ip", "netns", "exec", b, sys.executable, "-c", SEND,
                                 "10.231.7.1", "4"])
        try:
            rows = []
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline and not rows:
                t = trace_of(d)
                if not t["probes"]["softirq"]["on"]:
                    fail("softirq probe off under --trace-budget 50: %r" % t["probes"])
                rows = [q for q in t.get("napi", []) if q.get("dev") == name and
                        q["napi_id"] and q["us_s"] > 1000 and q.get("host") is not True]
                taken = [q for q in t.get("napi", []) if q.get("dev") == name and
                         q["napi_id"] and q.get("host", True)]
                for q in taken:
                    # a host row of that name: it must be the host's NIC's
                    # own (an IRQ line), never the veth's time
                    check(q.get("netns", host) == host and q.get("irq") is not None,
                          "a host row for %s takes the veth's time: %r" % (name, q))
                time.sleep(INTERVAL_MS / 1000)
            if not rows:
                seen = [q for q in t.get("napi", []) if q.get("dev") == name]
                check(not seen, "the veth %s's NAPI is a host row: %r" % (name, seen))
                skip("no NAPI row for the veth (GRO without a NAPI on this kernel)")
        finally:
            send.wait()
        print("netns row: %r (host namespace %d)" % (rows[0], host), flush=True)
        check(all(q.get("netns") == inode and q.get("host") is False for q in rows),
              "veth rows not marked with namespace %d: %r" % (inode, rows))
        report_gap(g, since, "netns attack (veth %s in namespace %d)" % (name, inode))
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns])


def main():
    if os.geteuid() != 0:
        skip("needs root (BPF, network namespaces)")
    which = sys.argv[1:] or ["budget", "netns"]
    with tempfile.TemporaryDirectory(prefix="iotriage-attack-") as tmp:
        daemons = []
        try:
            if "budget" in which:
                d = Daemon(tmp, interval=INTERVAL_MS, name="budget",
                           extra=["--trace", "--trace-budget", "1"])
                daemons.append(d)
                t = wait_for(d, "a trace section", lambda t: "interval_ms" in t, 10)
                if not t.get("stats", True) or "stats_reason" in t:
                    skip("budget not enforced here: %s" % t.get("stats_reason"))
                g = Gaps(d)
                attack_budget(d, g)
                g.close()
                check(d.stop() == 0, "iotriaged exit")
            if "netns" in which:
                d = Daemon(tmp, interval=INTERVAL_MS, name="netns",
                           extra=["--trace", "--trace-budget", "50"])
                daemons.append(d)
                wait_for(d, "a trace section", lambda t: "interval_ms" in t, 10)
                g = Gaps(d)
                attack_netns(d, g)
                g.close()
                check(d.stop() == 0, "iotriaged exit")
        finally:
            cleanup(daemons)
    print("ok")


if __name__ == "__main__":
    main()
