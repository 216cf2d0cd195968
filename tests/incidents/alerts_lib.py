# SPDX-License-Identifier: GPL-2.0-or-later
"""The shipped alert rules judged on a real incident's /metrics (issue 22).

A Scraper thread scrapes the daemon's /metrics the way Prometheus does: on
fixed ticks of its interval (a tick it is too late for is skipped, as
Prometheus's scrape loop skips it), asking for OpenMetrics, one kept-alive
connection. Each scrape's series are stored under the tick's index; a
series present in one scrape and gone in the next gets a staleness marker
there, and a failed scrape marks every series stale, exactly what
Prometheus writes to its TSDB.

rules_case() turns a stretch of ticks into a `promtool test rules` group:
the real values at the real interval, the rules file as shipped, evaluated
every interval. The rules' `for:` (minutes) is longer than an incident can
last in the suite, so the stretch from the expected finding's rise to the
end is repeated until the longest `for:` has passed: an alert fires only if
its series stood unbroken in every scrape of the real stretch (a gap, a
staleness marker or a changed label set, once in the stretch, recurs in
every copy and resets `for:`; the stretch is never longer than the
expected alerts' `for:`, so their window holds every scrape of it). The
assumption is the incident's: a stationary load (the same fio, the same
burners) looks in the next minute as in the one measured.
"""
import http.client
import json
import os
import re
import subprocess
import threading
import time

try:
    import yaml
except ImportError:  # the caller skips: python3-yaml (scripts/deps-debian.txt)
    yaml = None

ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
          "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")  # Prometheus 2.42's
SAMPLE_RE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$')
STALE = "stale"


def parse_exposition(text):
    """{series: value} of an OpenMetrics or 0.0.4 exposition; series is the
    sample's name with its label block verbatim (PromQL's series notation
    takes the same escapes)."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE_RE.match(line)
        if not m:
            raise ValueError("not a sample line: %r" % line[:200])
        out[m.group(1) + (m.group(2) or "")] = m.group(3)
    return out


def labels_of(series):
    """The label dict of a series in the notation above."""
    m = SAMPLE_RE.match(series + " 0")
    block = m.group(2) or "{}"
    return dict((k, json.loads('"%s"' % v)) for k, v in
                re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', block))


class Scraper(threading.Thread):
    def __init__(self, port, interval=1.0, timeout=5.0):
        super().__init__(daemon=True)
        self.port = port
        self.interval = interval
        self.timeout = timeout
        self.t0 = time.monotonic()
        self.scrapes = {}  # tick -> {series: value}, or None for a failed scrape
        self.errors = []
        self.stop_ev = threading.Event()
        self.lock = threading.Lock()
        self.conn = None

    def tick(self):
        """The tick being scraped now (a mark in the record)."""
        return int((time.monotonic() - self.t0) / self.interval)

    def scrape(self):
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                                       timeout=self.timeout)
            self.conn.request("GET", "/metrics", headers={"Accept": ACCEPT})
            r = self.conn.getresponse()
            body = r.read()
            if r.status != 200:
                raise OSError("HTTP %d" % r.status)
            return parse_exposition(body.decode())
        except (OSError, http.client.HTTPException, ValueError) as e:
            self.errors.append(str(e))
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return None

    def run(self):
        nxt = 0
        while not self.stop_ev.is_set():
            now = self.tick()
            if now >= nxt:
                nxt = now  # late: the ticks in between are skipped
                got = self.scrape()
                with self.lock:
                    self.scrapes[nxt] = got
                nxt += 1
            self.stop_ev.wait(max(0.0, self.t0 + nxt * self.interval - time.monotonic()))

    def stop(self):
        self.stop_ev.set()
        self.join(10)
        if self.conn is not None:
            self.conn.close()

    def wait_tick(self, tick, timeout=30.0):
        """Waits until the scrape of tick (or a later one) is stored."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if self.scrapes and max(self.scrapes) >= tick:
                    return True
            time.sleep(0.1)
        return False

    def window(self, a, b):
        """Ticks [a, b) as a list: a scrape's dict, None for a failed one,
        and "skip" for a tick nobody scraped."""
        with self.lock:
            return [self.scrapes.get(t, "skip") for t in range(a, b)]


def values_by_series(ticks):
    """{series: [value per tick]} as Prometheus stores the scrapes: the value,
    STALE where the series was in the previous scrape and is not in this one
    (or the scrape failed), None where there is no sample."""
    names = set()
    for s in ticks:
        if isinstance(s, dict):
            names.update(s)
    out = {}
    for n in names:
        vals, prev = [], False
        for s in ticks:
            if s == "skip":
                vals.append(None)
                continue
            here = isinstance(s, dict) and n in s
            vals.append(s[n] if here else (STALE if prev else None))
            prev = here
        out[n] = vals
    return out


def load_rules(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    return [r for g in doc["groups"] for r in g["rules"] if "alert" in r]


def duration_s(text):
    total = 0
    for n, unit in re.findall(r"(\d+)(ms|s|m|h|d)", text or "0s"):
        total += int(n) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}[unit]
    return total


def expand(template, labels):
    """The rules' annotation templates use {{ $labels.NAME }} only."""
    out = re.sub(r"\{\{ *\$labels\.([a-zA-Z_]+) *\}\}", lambda m: labels.get(m.group(1), ""),
                 template)
    if "{{" in out:
        raise ValueError("annotation template beyond $labels: %r" % template)
    return out


def rules_case(rules, ticks, rise, expect, ignore=(), interval=1, job="iotriage",
               instance="127.0.0.1"):
    """One test group of `promtool test rules` on ticks (Scraper.window),
    whose stretch from index rise to the end is repeated until the longest
    `for:` of the rules has passed: exactly the alerts in expect fire then,
    {alertname: [labels of each firing alert, beside alertname and
    instance]}, and no alert of any other rule but those named in ignore.
    Returns (group, eval seconds); raises ValueError on a stretch longer
    than an expected alert's for: (a copy would not lie inside it)."""
    by_name = dict((r["alert"], r) for r in rules)
    longest = max(duration_s(r.get("for")) for r in rules)
    stretch = ticks[rise:]
    for a in expect:
        if a not in by_name:
            raise ValueError("no rule %s" % a)
        if len(stretch) * interval > duration_s(by_name[a].get("for")):
            raise ValueError("the stretch (%d s) is longer than %s's for:" % (
                len(stretch) * interval, a))
    need = len(ticks) + int(longest / interval) + 3
    while len(ticks) < need:
        ticks = ticks + stretch
    # the copies meet as the scrapes would: values_by_series marks a series
    # stale where one copy ends with it and the next starts without it
    series = values_by_series(ticks)
    # only the families the rules read: no other series changes what they
    # fire, and promtool takes seconds over all of them on a loaded machine
    read = set(m for r in rules for m in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", r["expr"]))
    input_series = []
    for n in sorted(series):
        if n.split("{", 1)[0] not in read:
            continue
        lab = labels_of(n)
        lab.update({"job": job, "instance": instance})
        block = ",".join('%s=%s' % (k, json.dumps(v)) for k, v in sorted(lab.items()))
        input_series.append({
            "series": "%s{%s}" % (n.split("{", 1)[0], block),
            "values": " ".join("_" if v is None else v for v in series[n])})
    eval_s = (len(ticks) - 1) * interval
    tests = []
    for r in rules:
        if r["alert"] in ignore:
            continue
        exp = []
        for lab in expect.get(r["alert"], []):
            # the alert keeps only its by() labels: what the caller passes
            exp_l = dict(lab, instance=instance)
            exp_l.update(dict((k, str(v)) for k, v in (r.get("labels") or {}).items()))
            ann = dict((k, expand(v, exp_l))
                       for k, v in (r.get("annotations") or {}).items())
            exp.append({"exp_labels": exp_l, "exp_annotations": ann})
        tests.append({"eval_time": "%ds" % eval_s, "alertname": r["alert"], "exp_alerts": exp})
    return {"interval": "%ds" % interval, "input_series": input_series,
            "alert_rule_test": tests}, eval_s


def rules_test(tmp, name, rules_path, groups, interval=1):
    """Runs `promtool test rules` with the rules file as shipped, evaluated
    every interval, on groups (rules_case's); (ok, promtool's output). The
    test file and promtool's storage (TMPDIR) go in tmp: best in memory, as
    promtool writes a TSDB that queues behind a saturated disk."""
    doc = {"rule_files": [os.path.abspath(rules_path)],
           "evaluation_interval": "%ds" % interval, "tests": groups}
    path = os.path.join(tmp, "alerts-%s.yml" % name)
    with open(path, "w") as f:
        json.dump(doc, f)  # YAML is a superset of JSON
    r = subprocess.run(["promtool", "test", "rules", path], capture_output=True, text=True,
                       env=dict(os.environ, TMPDIR=tmp))
    return r.returncode == 0, r.stdout + r.stderr
