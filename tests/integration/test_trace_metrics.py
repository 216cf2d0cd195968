#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iotriaged --trace --metrics-listen: the tracing stage in /metrics (doc/trace.md,
doc/prometheus.md), as root on the live kernel.

Under a bounded fio load (random 4 KiB reads at 2000 IOPS) on a loop device
over a file in /dev/shm, two scrapes a few samples apart: every probe's
gauge says on; the loop device's read latency is a histogram whose buckets
are the documented fixed set, cumulative, +Inf equal to _count, and whose
counters only grow between the scrapes (cumulative since the daemon
started); softirq seconds per CPU and type and hardirq seconds per line
are there and grow; promtool check metrics is clean on the 0.0.4 text and
the OpenMetrics text ends with # EOF. Every loop device, file and process
started is removed.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import check, env, fail, free_port, skip  # noqa: E402

LE = ["1.6e-05", "6.4e-05", "0.000256", "0.001024", "0.004096", "0.016384", "0.065536",
      "0.262144", "1.048576", "4.194304", "+Inf"]
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')


def get(port, accept=None):
    req = urllib.request.Request("http://127.0.0.1:%d/metrics" % port,
                                 headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read()


def parse(body):
    """{(name, labels-text): value} of the samples."""
    out = {}
    for ln in body.decode().splitlines():
        if not ln or ln.startswith("#"):
            continue
        m = SAMPLE.match(ln)
        check(m, "not a sample line: %r" % ln)
        out[(m.group(1), m.group(3) or "")] = float(m.group(4))
    return out


def series(samples, name, prefix):
    """The samples of name whose labels start with prefix, by labels."""
    return {lab: v for (n, lab), v in samples.items() if n == name and lab.startswith(prefix)}


def histogram(samples, base, labels):
    """[(le, count)] in exposition order, _count, _sum of one series."""
    b = series(samples, base + "_bucket", labels + ',le="')
    les = [lab[len(labels) + 5:-1] for lab in b]
    return ([(le, b[labels + ',le="%s"' % le]) for le in les],
            samples.get((base + "_count", labels)), samples.get((base + "_sum", labels)))


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("FAIL: terminated"))
    if os.geteuid() != 0:
        skip("needs root (loads BPF programs, makes a loop device)")
    os.environ["PATH"] += ":/usr/sbin:/sbin"
    for tool in ("fio", "losetup", "promtool"):
        if not shutil.which(tool):
            skip("%s not installed (fio, util-linux, prometheus)" % tool)
    tmp = tempfile.mkdtemp(prefix="iotriage-tmetrics-")
    shm = tempfile.mkdtemp(prefix="iotriage-tmetrics-", dir="/dev/shm")
    loop = fio = d = None
    try:
        img = os.path.join(shm, "img")
        with open(img, "wb") as f:
            f.truncate(64 << 20)
        r = subprocess.run(["losetup", "-f", "--show", img], capture_output=True, text=True)
        if r.returncode:
            skip("losetup: %s" % r.stderr.strip())
        loop = r.stdout.strip()
        name = os.path.basename(loop)
        job = os.path.join(tmp, "job.fio")
        with open(job, "w") as f:
            f.write("[loop]\nthread\nioengine=libaio\ndirect=1\nbs=4k\ntime_based\nruntime=60\n"
                    "filename=%s\nrw=randread\niodepth=4\nrate_iops=2000\n" % loop)
        fio = subprocess.Popen(["fio", "--output=/dev/null", job], start_new_session=True)
        port = free_port()
        log = open(os.path.join(tmp, "iotriaged.log"), "w+")
        # loop devices are left out of /metrics by default: '' keeps them;
        # the block probe costs ~2 % of a CPU on a busy VM: a wide budget
        d = subprocess.Popen([env("IOTRIAGED"), "--foreground", "--trace", "--trace-budget",
                              "50", "--interval", "300", "--socket", os.path.join(tmp, "s"),
                              "--metrics-listen", str(port), "--metrics-device-exclude", ""],
                             stderr=log)
        labels = 'device="%s",op="read",stage="device"' % name
        cnt = "iotriage_trace_io_latency_seconds_count"

        def scrape(after=0, timeout=20):
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if d.poll() is not None:
                    log.seek(0)
                    fail("iotriaged exited: " + log.read())
                log.seek(0)
                why = [ln for ln in log.read().splitlines() if "tracing: unavailable" in ln]
                if why:
                    skip(why[0])
                try:
                    body = get(port)
                except OSError:
                    body = b""
                s = parse(body) if body else {}
                if s.get((cnt, labels), 0) > after:
                    return body, s
                time.sleep(0.2)
            fail("no %s{%s} above %d in /metrics within %d s" % (cnt, labels, after, timeout))

        def disk_irq():
            # a write the checkout's disk completes with an interrupt: the
            # loop device's IO raises none, and an idle VM may take no
            # device interrupt in a second
            p = os.path.join(env("BUILDDIR"), "trace-metrics-irq.%d" % os.getpid())
            with open(p, "wb") as f:
                f.write(os.urandom(65536))
                f.flush()
                os.fsync(f.fileno())
            os.unlink(p)

        body1, s1 = scrape()
        deadline = time.monotonic() + 20
        while True:
            disk_irq()
            body2, s2 = scrape(after=s1[(cnt, labels)] + 500)
            if series(s2, "iotriage_trace_hardirq_seconds_total", "") or \
                    time.monotonic() > deadline:
                break
        for k in ("hardirq", "softirq", "block"):
            check(s2.get(("iotriage_trace_probe_on", 'probe="%s"' % k)) == 1,
                  "probe %s not on: %r" % (k, s2.get(("iotriage_trace_probe_on",
                                                       'probe="%s"' % k))))
        for s in (s1, s2):
            buckets, count, total = histogram(s, "iotriage_trace_io_latency_seconds", labels)
            check([le for le, _ in buckets] == LE, "buckets: %r" % buckets)
            check(all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])),
                  "not cumulative: %r" % buckets)
            check(buckets[-1][1] == count, "+Inf %r != _count %r" % (buckets[-1], count))
            check(total is not None and total > 0, "_sum %r" % total)
        # every histogram series has the same fixed buckets
        for (n, lab) in s2:
            if n == cnt:
                b = histogram(s2, "iotriage_trace_io_latency_seconds", lab)[0]
                check([le for le, _ in b] == LE, "%s buckets: %r" % (lab, b))
        # cumulative since the daemon started: nothing goes down
        for key, v in s1.items():
            if key[0].startswith("iotriage_trace_") and key[0] != "iotriage_trace_probe_cpu_ratio":
                check(s2.get(key, -1) >= v, "%s{%s} went from %s to %s" %
                      (key[0], key[1], v, s2.get(key)))
        soft = series(s2, "iotriage_trace_softirq_seconds_total", "")
        check(len(soft) >= 10 and sum(soft.values()) > sum(
            series(s1, "iotriage_trace_softirq_seconds_total", "").values()),
            "softirq seconds: %d series" % len(soft))
        hard = series(s2, "iotriage_trace_hardirq_seconds_total", "")
        check(hard and all(lab.startswith('irq="') for lab in hard), "hardirq: %r" % hard)
        n1 = s1[(cnt, labels)]
        n2 = s2[(cnt, labels)]
        print("%s reads at the device: %d then %d, p99 bucket %s; %d softirq and %d hardirq "
              "series; block probe %.2f %% of a CPU" %
              (name, n1, n2, next(le for le, c in histogram(s2, "iotriage_trace_io_latency_"
                                                                "seconds", labels)[0]
                                  if c >= 0.99 * n2),
               len(soft), len(hard),
               100 * s2.get(("iotriage_trace_probe_cpu_ratio", 'probe="block"'), -0.01)))
        path = os.path.join(tmp, "expo")
        with open(path, "wb") as f:
            f.write(body2)
        r = subprocess.run(["promtool", "check", "metrics"], stdin=open(path, "rb"),
                           capture_output=True, text=True)
        check(r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(),
              "promtool check metrics: " + r.stdout + r.stderr)
        om = get(port, "application/openmetrics-text;version=1.0.0")
        check(om.endswith(b"# EOF\n") and
              b"# TYPE iotriage_trace_io_latency_seconds histogram\n" in om,
              "OpenMetrics: no histogram family or no # EOF")
        print("promtool check metrics: clean (%d bytes)" % len(body2))
    finally:
        if d:
            d.terminate()
            try:
                d.wait(timeout=20)
            except subprocess.TimeoutExpired:
                d.kill()
                d.wait()
        if fio:
            os.killpg(fio.pid, signal.SIGKILL)
            fio.wait()
        if loop:
            subprocess.run(["losetup", "-d", loop])
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    if d and d.returncode not in (0, -signal.SIGTERM):
        fail("iotriaged exited %d" % d.returncode)
    if d:
        log.seek(0)
        err = log.read()
        # a sanitized build: UBSan reports without exiting
        check("runtime error" not in err and "Sanitizer" not in err, "iotriaged: " + err)
    print("ok")


if __name__ == "__main__":
    main()
