#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""/metrics without churn (issue 22): the set of series stays the same while
the IRQ load moves, and loop/zram/ram devices are left out by default.

A scrape beside node_exporter once found 4,269 series where node_exporter had
89: the per-IRQ gauge carried the CPU taking most of each line and only the
top 20 lines, so series came and went with the load. Here iotriaged samples a
tree whose load moves every step (the busiest line, the CPU taking it, lines
falling idle), and /metrics is scraped after each sample:

  - every series but the findings' (which rise and clear by design, and
    come with the advisor's first judgement) is the same in every scrape, one per IRQ line, no hot_cpu label;
  - Debian's prometheus, scraping the same daemon meanwhile, has seen no
    series beyond those (count_over_time over the run) when it can start;
  - loop0, loop1, zram0 and ram0 are absent by default and present with
    --metrics-device-exclude '', a pattern of one's own applies, a bad one is
    refused (exit 2);
  - on the live host (its loop devices, its virtio IRQs while a file is
    written with O_DIRECT) the same: loop devices absent by default, the IRQ
    series stable over the scrapes; `iotriage metrics` excludes them too,
    and --device-exclude '' brings them back.
"""
import json
import mmap
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "fixtures", "tui-hot"))
from daemon_lib import fail, free_port  # noqa: E402
from advance import put  # noqa: E402  (rewrites a file in place)

IOTRIAGED = os.environ.get("IOTRIAGED", "build/src/daemon/iotriaged")

CPUS = [0, 1, 2, 3]
NLINES = 24  # numbered IRQ lines, more than the old top 20
SOFTIRQS = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
            "HRTIMER", "RCU"]
DISKS = [(8, 0, "sda"), (253, 0, "vda"), (7, 0, "loop0"), (7, 1, "loop1"), (252, 0, "zram0"),
         (1, 0, "ram0"), (259, 0, "nvme0n1")]
HIDDEN = ("loop0", "loop1", "zram0", "ram0")
STEPS = 12
# families that follow the findings: they rise and clear with the advisor's
# judgement, and come with its first advice (the topology read first)
FINDING_FAMILIES = re.compile(r"^iotriage_(finding|findings|hot_cpu_irq_soft_ratio)\{")

procs = []


def ok(msg):
    print("ok: " + msg, flush=True)


class Tree:
    """A 4-CPU host whose IRQ load moves each step: line (k mod 24) is the
    busiest, on CPU (k mod 4); a third of the lines take nothing; each CPU's
    irq+soft time follows its interrupts."""

    def __init__(self, root):
        self.root = root
        self.irq = {(i, c): 1000 for i in range(NLINES) for c in CPUS}
        self.loc = {c: 1000 for c in CPUS}
        self.soft = {(s, c): 1000 for s in SOFTIRQS for c in CPUS}
        self.cpu = {c: [100000] * 10 for c in CPUS}
        self.disk = {name: [1000] * 17 for _, _, name in DISKS}
        self.up = 100000
        self.k = 0

    def step(self):
        k = self.k
        self.k += 1
        hot_line, hot_cpu = k % NLINES, k % len(CPUS)
        irq_ticks = {c: 0 for c in CPUS}
        for i in range(NLINES):
            if (i + k) % 3 == 0:
                continue  # idle this step: the old top-N dropped it
            c = hot_cpu if i == hot_line else (i + k) % len(CPUS)
            n = 20000 if i == hot_line else 10 * (i + 1)
            self.irq[(i, c)] += n
            irq_ticks[c] += n // 500
        for c in CPUS:
            self.loc[c] += 250
            self.soft[("TIMER", c)] += 250
            self.soft[("NET_RX", c)] += 4000 if c == hot_cpu else 10
            irq = min(irq_ticks[c], 40)
            soft = 40 if c == hot_cpu else 1
            user = 100 - irq - soft - 20
            for f, v in ((0, user), (2, 10), (3, 10), (5, irq), (6, soft)):
                self.cpu[c][f] += v
        for j, (_, _, name) in enumerate(DISKS):
            d = self.disk[name]
            busy = (j + k) % 2
            for f, v in ((0, 50 * busy), (2, 400 * busy), (3, 25 * busy), (4, 10),
                         (6, 80), (7, 5), (9, 30 + 60 * busy), (10, 40)):
                d[f] += v
        self.up += 100
        self.write()

    def write(self):
        r = self.root
        tot = [sum(self.cpu[c][i] for c in CPUS) for i in range(10)]
        intr = sum(self.irq.values()) + sum(self.loc.values())
        soft_tot = {s: sum(self.soft[(s, c)] for c in CPUS) for s in SOFTIRQS}
        stat = ["cpu  " + " ".join(map(str, tot))]
        stat += ["cpu%d " % c + " ".join(map(str, self.cpu[c])) for c in CPUS]
        stat += ["intr %d" % intr, "ctxt 123456", "btime 1700000000", "processes 4242",
                 "procs_running 2", "procs_blocked 0",
                 "softirq %d " % sum(soft_tot.values())
                 + " ".join(str(soft_tot[s]) for s in SOFTIRQS)]
        put(r + "/proc/stat", "\n".join(stat) + "\n")
        hdr = " " * 11 + "".join("CPU%-8d" % c for c in CPUS).rstrip() + "\n"
        lines = []
        for i in range(NLINES):
            counts = "".join("%11d" % self.irq[(i, c)] for c in CPUS)
            lines.append("%4d:%s  IR-PCI-MSIX-0000:03:00.0 %3d-edge      nvme0q%d"
                         % (40 + i, counts, i, i))
        lines.append(" LOC:" + "".join("%11d" % self.loc[c] for c in CPUS)
                     + "   Local timer interrupts")
        lines += [" ERR:          0", " MIS:          0"]
        put(r + "/proc/interrupts", hdr + "\n".join(lines) + "\n")
        shdr = " " * 13 + "".join("CPU%-8d" % c for c in CPUS).rstrip() + "\n"
        soft = ["%12s:" % s + "".join("%11d" % self.soft[(s, c)] for c in CPUS)
                for s in SOFTIRQS]
        put(r + "/proc/softirqs", shdr + "\n".join(soft) + "\n")
        disk = []
        for major, minor, name in DISKS:
            vals = list(self.disk[name])
            vals[8] = 0  # in flight: a gauge
            disk.append("%4d %7d %s " % (major, minor, name) + " ".join(map(str, vals)))
        put(r + "/proc/diskstats", "\n".join(disk) + "\n")
        up = self.up
        put(r + "/proc/uptime", "%d.%02d %d.00\n" % (up // 100, up % 100, up * 3 // 100))
        if not os.path.exists(r + "/sys/block/sda/queue/iostats"):
            for _, _, name in DISKS:
                put(r + "/sys/block/%s/queue/iostats" % name, "1\n")
            for i in range(NLINES):
                put(r + "/proc/irq/%d/smp_affinity_list" % (40 + i), "0-3\n")
                put(r + "/proc/irq/%d/effective_affinity_list" % (40 + i), "%d\n" % (i % 4))


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def series(text):
    """{series name+labels} of an exposition (no values, no comments)."""
    return {ln.rsplit(" ", 1)[0] for ln in text.splitlines() if ln and not ln.startswith("#")}


def sample_number(text):
    m = re.search(r"^iotriage_sample_number (\d+)$", text, re.M)
    return int(m.group(1)) if m else -1


class Metricsd:
    def __init__(self, tmp, name, root=None, extra=(), interval=100):
        self.port = free_port()
        self.logpath = os.path.join(tmp, name + ".log")
        args = [IOTRIAGED, "--foreground", "--socket", os.path.join(tmp, name + ".sock"),
                "--interval", str(interval), "--metrics-listen", str(self.port)]
        if root:
            args += ["--root", root]
        self.p = subprocess.Popen(args + list(extra), stdin=subprocess.DEVNULL,
                                  stdout=open(self.logpath, "w"), stderr=subprocess.STDOUT)
        procs.append(self.p)
        self.url = "http://127.0.0.1:%d/metrics" % self.port

    def scrape(self):
        if self.p.poll() is not None:
            fail("iotriaged exited %d: %s" % (self.p.returncode, open(self.logpath).read()))
        try:
            code, body = get(self.url)
        except (urllib.error.URLError, ConnectionError):
            return None
        return body if code == 200 else None

    def scrape_when(self, pattern, timeout=20):
        """The first exposition that has a line matching pattern."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            body = self.scrape()
            if body and re.search(pattern, body, re.M):
                return body
            time.sleep(0.03)
        fail("no exposition with %s within %ds" % (pattern, timeout))

    def scrape_after(self, n, timeout=20):
        """The first exposition of a sample numbered n or later."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            body = self.scrape()
            if body and sample_number(body) >= n:
                return body
            time.sleep(0.03)
        fail("no sample %d within %ds" % (n, timeout))

    def stop(self):
        self.p.terminate()
        try:
            rc = self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("iotriaged did not stop on SIGTERM")
        if rc != 0:
            fail("iotriaged exited %d: %s" % (rc, open(self.logpath).read()))


def start_prometheus(tmp, target):
    """Debian's prometheus scraping target every second, or None."""
    if not shutil.which("prometheus"):
        print("note: no prometheus: the check through a real server is skipped")
        return None
    port = free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: iotriage\n"
                "    static_configs:\n      - targets: ['%s']\n" % target)
    log = open(os.path.join(tmp, "prometheus.log"), "w")
    p = subprocess.Popen(["prometheus", "--config.file=" + cfg,
                          "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                          "--web.listen-address=127.0.0.1:%d" % port],
                         stdout=log, stderr=log)
    procs.append(p)
    return p, "127.0.0.1:%d" % port


def prom_query(prom, q):
    code, body = get("http://%s/api/v1/query?%s" % (prom, urllib.parse.urlencode({"query": q})))
    if code != 200:
        return None
    return json.loads(body)["data"]["result"]


def prom_scrapes(prom):
    """How many times the server scraped the daemon (0 when it cannot say)."""
    p, addr = prom
    if p.poll() is not None:
        return 1 << 30  # gone: nothing to wait for (said below)
    try:
        up = prom_query(addr, 'count_over_time(up{job="iotriage"}[10m])')
    except (urllib.error.URLError, ConnectionError):
        return 0
    return int(float(up[0]["value"][1])) if up else 0


def tree_phase(tmp):
    root = os.path.join(tmp, "tree")
    tree = Tree(root)
    tree.step()
    d = Metricsd(tmp, "tree", root=root)
    prom = start_prometheus(tmp, "127.0.0.1:%d" % d.port)
    d.scrape_after(2)
    seen, stable, findings, busiest, prev = None, None, set(), set(), None
    steps = 0
    # STEPS steps, and on while the server has scraped fewer than 4 of them
    while steps < STEPS or (prom and steps < 4 * STEPS and prom_scrapes(prom) < 4):
        steps += 1
        tree.step()
        body = d.scrape_when(r"^iotriage_host_uptime_seconds %d\.%02d$"
                             % (tree.up // 100, tree.up % 100))
        s = series(body)
        if "hot_cpu=" in body:
            fail("a series has a hot_cpu label")
        irq = {x for x in s if x.startswith("iotriage_irq_interrupts_total{")}
        if len(irq) != NLINES + 3:
            fail("%d IRQ series, want one per line (%d): %s" % (len(irq), NLINES + 3,
                                                                 sorted(irq)))
        findings |= {x for x in s if FINDING_FAMILIES.match(x)}
        # the CPU that took the step's irq+soft time, from the counters
        cur = {}
        for cpu, v in re.findall(r'^iotriage_cpu_seconds_total\{cpu="(\d+)",'
                                 r'mode="(?:irq|softirq)"\} (\S+)$', body, re.M):
            cur[cpu] = cur.get(cpu, 0) + float(v)
        if prev:
            busiest.add(max(cur, key=lambda c: cur[c] - prev.get(c, 0)))
        prev = cur
        rest = {x for x in s if not FINDING_FAMILIES.match(x)}
        if stable is None:
            stable = rest
        elif rest != stable:
            fail("the series changed with the load: new %s, gone %s"
                 % (sorted(rest - stable)[:10], sorted(stable - rest)[:10]))
        seen = body
    if len(busiest) < 3:
        fail("the busiest CPU was %s only: the load did not move as meant" % sorted(busiest))
    ok("%d scrapes while the busiest IRQ line and CPU moved (CPUs %s): the same %d series "
       "(findings aside: %d seen)" % (steps, ",".join(sorted(busiest)), len(stable),
                                      len(findings)))
    for name in HIDDEN:
        if 'device="%s"' % name in seen:
            fail("%s exported by default" % name)
    for name in ("sda", "vda", "nvme0n1"):
        if 'iotriage_disk_reads_completed_total{device="%s"}' % name not in seen:
            fail("%s missing by default" % name)
    ok("by default no series of %s; sda, vda, nvme0n1 there" % ", ".join(HIDDEN))

    if prom:
        p, addr = prom
        # every series the server stored over the run, the stale ones too
        url = "http://%s/api/v1/series?%s" % (addr, urllib.parse.urlencode(
            {"match[]": '{job="iotriage",__name__=~"iotriage_.+"}', "start": "0"}))
        deadline = time.monotonic() + 20
        got = None
        while time.monotonic() < deadline and p.poll() is None:
            up = prom_query(addr, 'count_over_time(up{job="iotriage"}[10m])')
            if up and float(up[0]["value"][1]) >= 4:
                code, body = get(url)
                if code == 200:
                    got = [x for x in json.loads(body)["data"]
                           if not FINDING_FAMILIES.match(x["__name__"] + "{")]
                    break
            time.sleep(0.3)
        if got is None:
            print("note: prometheus did not scrape (%s): the check through it is skipped"
                  % (p.returncode if p.poll() is not None else "no answer"))
        else:
            names = {x["__name__"] for x in got}
            want = {x.split("{")[0] for x in stable}
            if len(got) != len(stable) or names != want:
                fail("prometheus stored %d series over the run (%s), one exposition has %d"
                     % (len(got), sorted(names ^ want), len(stable)))
            ok("prometheus (%s scrapes) stored %d series over the run: none came and went"
               % (up[0]["value"][1], len(got)))
        p.terminate()
        p.wait(20)
    d.stop()

    d = Metricsd(tmp, "all", root=root, extra=["--metrics-device-exclude", ""])
    body = d.scrape_after(2)
    for name in HIDDEN:
        if 'iotriage_disk_reads_completed_total{device="%s"}' % name not in body:
            fail("%s missing with --metrics-device-exclude ''" % name)
    d.stop()
    d = Metricsd(tmp, "own", root=root, extra=["--metrics-device-exclude", "^(sda|zram[0-9]+)$"])
    body = d.scrape_after(2)
    if 'device="sda"' in body or 'device="zram0"' in body or 'device="loop0"' not in body:
        fail("--metrics-device-exclude '^(sda|zram[0-9]+)$' not applied")
    d.stop()
    ok("--metrics-device-exclude '': loop, zram, ram exported; a pattern of one's own applies")
    r = subprocess.run([IOTRIAGED, "--foreground", "--metrics-device-exclude", "(",
                        "--socket", os.path.join(tmp, "bad.sock")],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 2 or "--metrics-device-exclude" not in r.stderr:
        fail("a bad pattern: exit %d, %r" % (r.returncode, r.stderr))
    ok("a bad pattern: exit 2, %s" % r.stderr.strip())


def live_phase(tmp):
    """The live host: its loop devices and its real IRQ lines."""
    with open("/proc/diskstats") as f:
        loops = [ln.split()[2] for ln in f if re.match(r"(z?ram|loop)\d+$", ln.split()[2])]
    d = Metricsd(tmp, "live", interval=200)
    n = sample_number(d.scrape_after(2))
    path = os.path.join(tmp, "load")
    irq = None
    for k in range(6):
        if k % 2 == 0:  # IO (its completions are the disk's interrupts), then none
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
                buf = mmap.mmap(-1, 64 * 1024)  # page-aligned, as O_DIRECT wants
                for i in range(64):
                    os.pwrite(fd, buf, i * len(buf))
                buf.close()
                os.close(fd)
            except OSError as e:
                print("note: no O_DIRECT writes here (%s)" % e)
        body = d.scrape_after(n + 2)
        n = sample_number(body)
        s = {x for x in series(body) if x.startswith("iotriage_irq_interrupts_total{")}
        if "hot_cpu=" in body:
            fail("live: a series has a hot_cpu label")
        if irq is None:
            irq = s
        elif s != irq:
            fail("live: the IRQ series changed: new %s, gone %s" % (sorted(s - irq),
                                                                     sorted(irq - s)))
        for name in loops:
            if 'device="%s"' % name in body:
                fail("live: %s exported by default" % name)
    d.stop()
    ok("live host: the same %d IRQ series over 6 scrapes with IO and without; "
       "%s left out" % (len(irq), ", ".join(loops) or "no loop or zram device here"))
    if loops:
        d = Metricsd(tmp, "live-all", interval=200, extra=["--metrics-device-exclude", ""])
        body = d.scrape_after(2)
        d.stop()
        if 'device="%s"' % loops[0] not in body:
            fail("live: %s missing with --metrics-device-exclude ''" % loops[0])
        ok("live host: %s exported with --metrics-device-exclude ''" % loops[0])
        # iotriage metrics (the textfile's exposition): the same default and option
        cli = os.environ.get("IOTRIAGE", "build/tui/iotriage")
        out = [subprocess.run([cli, "metrics", "--interval", "100"] + extra,
                              capture_output=True, text=True, timeout=60)
               for extra in ([], ["--device-exclude", ""])]
        if out[0].returncode != 0 or out[1].returncode != 0:
            fail("iotriage metrics: %s %s" % (out[0].stderr, out[1].stderr))
        if 'device="%s"' % loops[0] in out[0].stdout:
            fail("iotriage metrics exports %s by default" % loops[0])
        if 'device="%s"' % loops[0] not in out[1].stdout:
            fail("iotriage metrics --device-exclude '': no %s" % loops[0])
        ok("iotriage metrics: %s left out by default, there with --device-exclude ''"
           % loops[0])


def main():
    tmp = tempfile.mkdtemp(prefix="iotriage-churn.")
    try:
        tree_phase(tmp)
        live_phase(tmp)
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
