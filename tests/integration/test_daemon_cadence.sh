#!/bin/sh
# The CPU budget over every optional source (issue 17, doc/daemon.md "CPU
# budget"): with a tiny budget the live daemon reads turbostat, the NICs,
# the cgroups and pressure only every N samples; a sample that skipped one
# says so under "cadence" (read false, the age of its rows, the uptime of
# their read) and keeps the last read's section; a subscriber asking for a
# source ("turbostat": true, ...) gets it read every sample; status says
# each source's cadence under cpu_budget.sources.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" <<'PY' || fail "cadence"
import sys, time, urllib.request
from daemon_lib import *

SECTION = {"turbostat": "turbostat", "nics": "nics", "cgroups": "cgroups",
           "pressure": "pressure"}
tmp = sys.argv[1]
mport = free_port()
d = Daemon(tmp, interval=200,
           extra=("--cpu-budget", "0.001", "--metrics-listen", "127.0.0.1:%d" % mport))
try:
    deadline = time.monotonic() + TIMEOUT
    while d.status()["samples"] < 4:
        check(time.monotonic() < deadline, "no fourth sample")
        time.sleep(0.05)
    c = d.client()
    r = c.req({"cmd": "subscribe", "nics": "yes"})
    check(not r["ok"] and r["error"]["code"] == "bad_request", "nics must be a boolean: %r" % r)
    check(c.req({"cmd": "subscribe"})["ok"], "subscribe")
    docs = [c.event()[0]["sample"] for _ in range(5)]
    cad = [s.get("cadence", {}) for s in docs]
    print("without a flag: %r" % cad[-1])
    srcs = [k for k in SECTION if k in cad[-1]]
    check("pressure" in srcs and "cgroups" in srcs, "no cadence of pressure/cgroups: %r" % cad[-1])
    for k in srcs:
        skipped = [(s, x[k]) for s, x in zip(docs, cad) if not x[k]["read"]]
        check(skipped, "%s read every sample with a 2 us budget: %r" % (k, [x[k] for x in cad]))
        for s, x in skipped:
            # rows kept from an older read: their age and read time say so
            check(x["age"] > 0 and "reason" not in x and x["every"] > 1, "%s: %r" % (k, x))
            check(x["read_uptime_cs"] < s["uptime_cs"], "%s stale rows as fresh: %r" % (k, x))
            check(SECTION[k] in s, "%s: the section went away on a skipped sample" % k)
    st = d.status()["cpu_budget"]["sources"]
    check(all(st[k]["every"] > 1 and st[k]["wanted"] is False for k in srcs), "status %r" % st)
    # /metrics says how old each optional source's counters are
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % mport, timeout=10) as r:
        text = r.read().decode()
    ages = [l for l in text.splitlines() if l.startswith("iotriage_source_age_seconds{")]
    print("/metrics: %r" % ages)
    for k in srcs:
        check(any('source="%s"' % k in l for l in ages), "no age of %s in /metrics" % k)
    want = {k: True for k in srcs}
    want["cmd"] = "subscribe"
    check(c.req(want)["ok"], "subscribe with %r" % want)
    docs = [c.event()[0]["sample"] for _ in range(6)]
    # the sample in flight when the request came may still skip
    for s in docs[2:]:
        for k in srcs:
            x = s["cadence"][k]
            check(x["read"] and x["age"] == 0 and x["reason"] == "client" and
                  x["read_uptime_cs"] == s["uptime_cs"], "%s not read for the client: %r" % (k, x))
    print("with %s: %r" % (srcs, docs[-1]["cadence"]))
    st = d.status()["cpu_budget"]["sources"]
    check(all(st[k]["wanted"] is True for k in srcs), "status wanted %r" % st)
    check(st["processes"]["wanted"] is False, "processes wanted: %r" % st)
    c.close()
finally:
    d.stop()
PY
echo ok
