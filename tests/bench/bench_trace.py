#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tracing stage's cost beside libbpf-tools' on one load (doc/PERFORMANCE.md).

As root: a loop device over a file in /dev/shm, fio random 4 KiB reads on it
(libaio, direct) for --seconds, and over the same window our probes
(trace_window, read once a second as a sampler does) and Debian's softirqs,
hardirqs and biolatency -D, all attached at once. For each probe: events,
the kernel's run time of its programs per event (BPF run-time stats) and
per 100k events, its share of one CPU, and the user-space CPU of the reader;
and each of our block programs' ns a run, and the block probe's sampling
(1 in N requests) at each read.
Usage: bench_trace.py [--seconds N] [--iodepth N] [--budget PCT] [--sample N]
                      [--no-tools] [--tools-first] [BUILDDIR]
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time


def progs():
    r = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True)
    return {p["id"]: (p.get("name", ""), p.get("run_time_ns", 0), p.get("run_cnt", 0))
            for p in json.loads(r.stdout or "[]")}


def prog_ids(pid):
    """The BPF programs process pid holds (its fds' fdinfo): on a shared
    machine other sessions load the same programs under the same names."""
    ids = set()
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


def cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        f = f.read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def start_tool(argv):
    before = set(progs())
    t = subprocess.Popen(["stdbuf", "-oL", *argv], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    line = t.stdout.readline()
    if not line.startswith("Tracing"):
        sys.exit("%s: %r" % (argv[0], line))
    mine = prog_ids(t.pid)
    return t, [i for i in progs() if i not in before and i in mine]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--iodepth", type=int, default=32)
    ap.add_argument("--budget", default="0",
                    help="our probes' budget, %% of one CPU (0: none, every request timed)")
    ap.add_argument("--sample", default="1",
                    help="the block probe times 1 in N requests from the start (a power of two)")
    ap.add_argument("--no-tools", action="store_true", help="our probes alone")
    ap.add_argument("--tools-first", action="store_true",
                    help="attach the tools before ours (their programs run first)")
    ap.add_argument("builddir", nargs="?", default="build")
    a = ap.parse_args()
    if os.geteuid():
        sys.exit("needs root")
    os.environ["PATH"] += ":/usr/sbin:/sbin"
    shm = tempfile.mkdtemp(prefix="iotriage-bench-trace-", dir="/dev/shm")
    img = os.path.join(shm, "img")
    with open(img, "wb") as f:
        f.truncate(256 << 20)
    loop = subprocess.run(["losetup", "-f", "--show", img], capture_output=True,
                          text=True, check=True).stdout.strip()
    procs, fio = [], None
    try:
        tools = {}

        def start_tools():
            for argv in () if a.no_tools else (["softirqs", "600", "1"],
                                                ["hardirqs", "600", "1"],
                                                ["biolatency", "-D", "600", "1"]):
                t, ids = start_tool(argv)
                procs.append(t)
                tools[argv[0]] = (t, ids)

        # the programs on one tracepoint run in the order they were attached:
        # the first meets the request's cold cache lines, the later ones warm
        if a.tools_first:
            start_tools()
        before = set(progs())
        win = subprocess.Popen([os.path.join(a.builddir, "tests/integration/trace_window"),
                                "--budget", a.budget, "--sample", a.sample],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if win.stdout.readline().strip() != "ready":
            sys.exit("trace_window: tracing unavailable")
        mine = prog_ids(win.pid)
        ours = {i: n for i, (n, _, _) in progs().items() if i not in before and i in mine}
        if not a.tools_first:
            start_tools()
        fio = subprocess.Popen(["fio", "--name=bench", "--thread", "--filename=" + loop,
                                "--rw=randread",
                                "--bs=4k", "--ioengine=libaio", "--direct=1",
                                "--iodepth=%d" % a.iodepth, "--time_based",
                                "--runtime=%d" % (a.seconds + 30), "--output=/dev/null"],
                               start_new_session=True)
        time.sleep(2)  # ramp
        c0 = {k: cpu_ms(t.pid) for k, (t, _) in tools.items()}
        c0["ours"] = cpu_ms(win.pid)
        p0, t0 = progs(), time.monotonic()
        sampled = []
        for _ in range(a.seconds):
            win.stdin.write("read\n")
            win.stdin.flush()
            line = win.stdout.readline()
            if line.startswith("{"):
                sampled.append(json.loads(line)["trace"]["probes"]["block"].get("sampled", 1))
            time.sleep(1)
        p1, t1 = progs(), time.monotonic()
        c1 = {k: cpu_ms(t.pid) for k, (t, _) in tools.items()}
        c1["ours"] = cpu_ms(win.pid)
    finally:
        if fio:
            os.killpg(fio.pid, signal.SIGKILL)
            fio.wait()
        for t in procs:
            t.kill()
            t.wait()
        time.sleep(0.2)
        subprocess.run(["losetup", "-d", loop])
        os.unlink(img)
        os.rmdir(shm)
    wall = t1 - t0

    def d(ids, field):
        return sum(p1[i][field] - p0[i][field] for i in ids if i in p0 and i in p1)

    def row(name, ids, ev_ids, user_ms):
        ns, ev = d(ids, 1), d(ev_ids, 2)
        per = ns / ev if ev else 0
        print("%-22s %10d %9.0f %12.2f %9.3f %9.1f" %
              (name, ev / wall, per, per * 1e5 / 1e6, ns / wall / 1e7, user_ms))

    iops = d([i for i, n in ours.items() if n == "blk_complete"], 2) / wall
    print("load: fio randread 4k libaio iodepth %d on %s (tmpfs), %.0f IOPS, %.1f s window"
          % (a.iodepth, loop, iops, wall))
    print("our budget: %s %% (block probe timing 1 in N requests, N each read: %s)"
          % (a.budget, " ".join(str(x) for x in sampled)))
    print("%-22s %10s %9s %12s %9s %9s" % ("probe", "events/s", "ns/event", "ms/100k ev",
                                          "% of CPU", "user ms"))
    user = c1["ours"] - c0["ours"]
    for probe, pre, ev in (("softirq", "soft_", "soft_exit"), ("hardirq", "hard_", "hard_exit"),
                           ("block", "blk_", "blk_complete")):
        ids = [i for i, n in ours.items() if n.startswith(pre)]
        row("ours " + probe, ids, [i for i, n in ours.items() if n == ev],
            user if probe == "softirq" else 0)
    for tool, (t, ids) in tools.items():
        ev = [i for i in ids if "exit" in p0.get(i, ("",))[0] or
              "complete" in p0.get(i, ("",))[0]]
        row(tool, ids, ev, c1[tool] - c0[tool])
    blk = sorted((n, i) for i, n in ours.items() if n.startswith("blk_"))
    if "biolatency" in tools:
        blk += sorted(("biolatency " + p0[i][0], i) for i in tools["biolatency"][1] if i in p0)
    for n, i in blk:
        ns, cnt = d([i], 1), d([i], 2)
        print("  %-30s %10d runs/s %6.0f ns/run" % (n, cnt / wall, ns / cnt if cnt else 0))
    allo = [i for i in ours]
    allt = [i for _, (_, ids) in tools.items() for i in ids]
    print("ours, all probes: %.3f %% of one CPU in the kernel + %.3f %% reading (user+sys);"
          " the three tools: %.3f %% + %.3f %%" %
          (d(allo, 1) / wall / 1e7, user / wall / 10, d(allt, 1) / wall / 1e7,
           sum(c1[k] - c0[k] for k in tools) / wall / 10))


main()
