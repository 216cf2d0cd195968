#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iotriaged --metrics-listen scraped by a real Prometheus (Debian's package).

The daemon samples tests/fixtures/tui-hot advancing one step a second (each
step is exactly 1.00 s of /proc/uptime: sdb 100 r/s and 500 w/s, cpu0 the
hot core). Prometheus scrapes it every second with the shipped rules loaded;
its HTTP API must then give

  - increase(reads) / delta(uptime) = iostat's r/s for sdb, exactly (both
    series come from the same scrapes, so the extrapolation cancels);
  - rate(reads) = iostat's r/s x rate(uptime) within 5% (the tree advances
    one step per second of wall clock only when the machine keeps up; a
    loaded one, or a sanitized build, steps slower, and rate() is per wall
    second);
  - the hot-core finding series for cpu0, and the IotriageHotCore alert
    pending or firing;
  - the target healthy, scraped as OpenMetrics (Prometheus asks for it).

Also: promtool check metrics on both formats, promtool check rules on the
shipped rules, the HTTP bounds (405, 404, a request body, oversize headers)
and `iotriage metrics --textfile`. Exits 77 when prometheus or promtool is
missing.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import free_port  # noqa: E402

IOTRIAGED = os.environ.get("IOTRIAGED", "build/src/daemon/iotriaged")
IOTRIAGE = os.environ.get("IOTRIAGE", "build/tui/iotriage")
SRCDIR = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
ADVANCE = os.path.join(SRCDIR, "tests/fixtures/tui-hot/advance.py")
RULES = os.path.join(SRCDIR, "packaging/prometheus/iotriage.rules.yml")

procs = []


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(msg):
    print("ok: " + msg)



def get(url, headers=None, data=None, method=None):
    req = urllib.request.Request(url, headers=headers or {}, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def query(prom, q):
    url = "http://%s/api/v1/query?%s" % (prom, urllib.parse.urlencode({"query": q}))
    code, _, body = get(url)
    if code != 200:
        fail("query %s: HTTP %d %s" % (q, code, body[:200]))
    d = json.loads(body)
    return d["data"]["result"]


def wait_for(what, fn, timeout):
    end = time.time() + timeout
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.5)
    fail("timed out waiting for " + what)


def main():
    for tool in ("prometheus", "promtool"):
        if not shutil.which(tool):
            print("SKIP: %s not installed (Debian's prometheus package)" % tool)
            return 77
    tmp = tempfile.mkdtemp(prefix="iotriage-prom.")
    try:
        return run(tmp)
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp):
    r = subprocess.run(["promtool", "check", "rules", RULES], capture_output=True, text=True)
    if r.returncode != 0:
        fail("promtool check rules: " + r.stdout + r.stderr)
    ok("promtool check rules: " + r.stdout.strip().splitlines()[-1].strip())

    tree = os.path.join(tmp, "tree")
    subprocess.run([sys.executable, ADVANCE, tree, "0"], check=True)
    procs.append(subprocess.Popen([sys.executable, ADVANCE, tree, "1", "--loop", "1"]))
    mport = free_port()
    dlog = open(os.path.join(tmp, "iotriaged.log"), "w")
    daemon = subprocess.Popen([IOTRIAGED, "--foreground", "--root", tree, "--socket",
                               os.path.join(tmp, "s"), "--metrics-listen", str(mport)],
                              stderr=dlog)
    procs.append(daemon)
    target = "127.0.0.1:%d" % mport

    def exposition(accept=None):
        code, hdr, body = get("http://%s/metrics" % target,
                              {"Accept": accept} if accept else None)
        return code, hdr, body

    # two samples: rates and findings
    def second_sample():
        if daemon.poll() is not None:
            fail("iotriaged exited: " + open(os.path.join(tmp, "iotriaged.log")).read())
        try:
            return b"iotriage_finding{" in exposition()[2]
        except (urllib.error.URLError, ConnectionError):
            return False  # not listening yet

    wait_for("a second sample", second_sample, 15)
    for accept, want in ((None, "text/plain; version=0.0.4"),
                         ("application/openmetrics-text;version=1.0.0;q=0.5,text/plain;q=0.1",
                          "application/openmetrics-text; version=1.0.0")):
        code, hdr, body = exposition(accept)
        ctype = hdr.get("Content-Type", "")
        if code != 200 or not ctype.startswith(want):
            fail("GET /metrics Accept %s: %d %s" % (accept, code, ctype))
        path = os.path.join(tmp, "expo")
        with open(path, "wb") as f:
            f.write(body)
        if want.startswith("application/openmetrics"):
            if not body.endswith(b"# EOF\n"):
                fail("OpenMetrics exposition does not end with # EOF")
            # promtool checks the 0.0.4 text; OpenMetrics is parsed by the server below
            continue
        r = subprocess.run(["promtool", "check", "metrics"], stdin=open(path, "rb"),
                           capture_output=True, text=True)
        if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
            fail("promtool check metrics: " + r.stdout + r.stderr)
        ok("promtool check metrics: clean (%d bytes, %d series)" %
           (len(body), sum(1 for ln in body.splitlines() if ln and not ln.startswith(b"#"))))

    # HTTP bounds
    if get("http://%s/metrics" % target, method="POST", data=b"x")[0] != 405:
        fail("POST /metrics was not refused with 405")
    if get("http://%s/other" % target)[0] != 404:
        fail("GET /other was not 404")
    s = socket.create_connection(("127.0.0.1", mport))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 65536 + b"\r\n\r\n")
    s.settimeout(10)
    try:
        head = s.recv(64)
    except (ConnectionResetError, socket.timeout):
        head = b""
    s.close()
    if head.startswith(b"HTTP/1.1 200"):
        fail("a 64 KiB header was served")
    ok("bounds: POST 405, unknown path 404, a 64 KiB header refused (%r)" % head[:12])

    # the real server
    pport = free_port()
    prom = "127.0.0.1:%d" % pport
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
  - job_name: iotriage
    static_configs:
      - targets: ['%s']
""" % (RULES, target))
    plog = open(os.path.join(tmp, "prometheus.log"), "w")
    server = subprocess.Popen(["prometheus", "--config.file=" + cfg,
                               "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                               "--web.listen-address=" + prom], stderr=plog, stdout=plog)
    procs.append(server)

    def ready():
        if server.poll() is not None:
            print(open(os.path.join(tmp, "prometheus.log")).read()[-2000:])
            print("SKIP: prometheus exited at start (rc %d)" % server.returncode)
            sys.exit(77)
        try:
            return get("http://%s/-/ready" % prom)[0] == 200
        except (urllib.error.URLError, ConnectionError):
            return False

    wait_for("prometheus ready", ready, 60)

    def target_up():
        code, _, body = get("http://%s/api/v1/targets" % prom)
        t = json.loads(body)["data"]["activeTargets"]
        return t and t[0]["health"] == "up" and t[0]

    t = wait_for("the target up", target_up, 30)
    ok("prometheus scrapes iotriaged: health %s, last error '%s'" % (t["health"], t["lastError"]))

    # 20 s of scrapes
    window = "20s"
    wait_for("20 s of samples",
             lambda: len(query(prom, 'count_over_time(iotriage_host_uptime_seconds[%s])'
                                % window) or []) and
             float(query(prom, 'count_over_time(iotriage_host_uptime_seconds[%s])'
                         % window)[0]["value"][1]) >= 18, 60)

    exact = query(prom, 'increase(iotriage_disk_reads_completed_total{device="sdb"}[%s]) / '
                        'ignoring(device) delta(iotriage_host_uptime_seconds[%s])' % (window, window))
    wall = query(prom, 'rate(iotriage_disk_reads_completed_total{device="sdb"}[%s])' % window)
    pace = query(prom, 'rate(iotriage_host_uptime_seconds[%s])' % window)
    if not exact or not wall or not pace:
        fail("no sdb read series in prometheus")
    # iostat's r/s for sdb on this tree, from our own compute (test_oracle
    # proves compute equals iostat): step 0 -> 1
    t0, t1 = os.path.join(tmp, "t0"), os.path.join(tmp, "t1")
    subprocess.run([sys.executable, ADVANCE, t0, "0"], check=True)
    subprocess.run([sys.executable, ADVANCE, t1, "1"], check=True)
    doc = json.loads(subprocess.run([IOTRIAGE, "compute", t0, t1, "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    rs = [d for d in doc["disks"] if d["disk_device"] == "sdb"][0]["r/s"]
    e, w = float(exact[0]["value"][1]), float(wall[0]["value"][1])
    p = float(pace[0]["value"][1])
    if abs(e - rs) > 0.005 * rs:
        fail("increase/delta(uptime) of sdb reads %.3f, iostat r/s %.2f" % (e, rs))
    if abs(w - rs * p) > 0.05 * rs * p:
        fail("rate() of sdb reads %.3f, iostat r/s %.2f x %.3f steps a second" % (w, rs, p))
    ok("sdb reads: increase/delta(uptime) %.3f = iostat r/s %.2f; rate() %.2f at %.3f steps/s"
       % (e, rs, w, p))

    hot = query(prom, 'iotriage_finding{kind="hot_cpu",subject="cpu0"}')
    if not hot or hot[0]["value"][1] != "1":
        fail("no hot-core finding series for cpu0")
    share = query(prom, 'iotriage_hot_cpu_irq_soft_ratio{cpu="0"}')
    if not share or abs(float(share[0]["value"][1]) - 0.80) > 0.005:
        fail("hot core share %s, want 0.80 (%%irq 35 + %%soft 45)" % share)
    ok("hot core: iotriage_finding{kind=hot_cpu,subject=cpu0} 1, irq+soft share %s" %
       share[0]["value"][1])

    def alert():
        code, _, body = get("http://%s/api/v1/alerts" % prom)
        a = [x for x in json.loads(body)["data"]["alerts"]
             if x["labels"].get("alertname") == "IotriageHotCore"]
        return a and a[0]

    a = wait_for("the IotriageHotCore alert", alert, 20)
    ok("IotriageHotCore %s for %s" % (a["state"], a["labels"].get("subject")))

    # series count of this host (the cardinality the docs state for big-256
    # comes from tests/bench)
    n = query(prom, 'count({job="iotriage"})')
    ok("series scraped: %s" % n[0]["value"][1])

    # the textfile form: written atomically, the same families
    out = os.path.join(tmp, "textfile", "iotriage.prom")
    os.mkdir(os.path.dirname(out))
    r = subprocess.run([IOTRIAGE, "metrics", "--root", tree, "--interval", "1500",
                        "--textfile", out], capture_output=True, text=True)
    if r.returncode != 0:
        fail("iotriage metrics --textfile: rc %d %s" % (r.returncode, r.stderr))
    left = [x for x in os.listdir(os.path.dirname(out)) if x != "iotriage.prom"]
    if left:
        fail("iotriage metrics left %s" % left)
    r = subprocess.run(["promtool", "check", "metrics"], stdin=open(out, "rb"),
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
        fail("promtool check metrics (textfile): " + r.stdout + r.stderr)
    if b'iotriage_finding{id="hot-cpu-cpu0"' not in open(out, "rb").read():
        fail("textfile lacks the hot-core finding")
    ok("iotriage metrics --textfile: written atomically, promtool clean")

    daemon.send_signal(signal.SIGTERM)
    if daemon.wait(10) != 0:
        fail("iotriaged exit %d" % daemon.returncode)
    ok("iotriaged stopped cleanly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
