#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iotriage report (doc/report.md) on recordings that do not change:

- every committed recording (tests/fixtures/record-v1 .. record-v6): the
  page is valid HTML (html5lib, strict) and every value its SVG carries
  (data-v, or data-min/mean/max of a reduced column; the cores' data-max,
  the findings' data-sev, the latency map's data-n) is what `replay
  --json` says at the same times; --text quotes the busiest disk's peak;
- a long window (two hours at 1 Hz from record-v6's payloads, the first
  compacted one in 10 as the daemon does: 3 960 samples) reduced to pixel
  columns: each column's min and max are those of its samples (no peak
  dropped), its mean their interval-weighted mean; --from/--to cut it;
- a core drowning in interrupts (fixtures/hot-irq advanced, make_recording):
  its strip marks the hot_cpu finding's span;
- hostile recordings: a disk named with markup, quotes and control bytes
  (make_recording) gives a valid page with the name escaped; every segment
  of the fuzz corpus (tests/fuzz/corpus/segment) a valid page or a clear
  error, never a crash; a recording with no sample in the window exits 1
  saying so; usage errors exit 2.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import check, env, fail  # noqa: E402
from report_lib import check_page, parse_html, replay_docs, tag  # noqa: E402

IOTRIAGE = env("IOTRIAGE")
FIXTURES = env("FIXTURES")
SRCDIR = env("SRCDIR")


def run(*args, rc=0):
    p = subprocess.run([IOTRIAGE] + list(args), capture_output=True, text=True, timeout=120)
    if rc is not None and p.returncode != rc:
        fail("iotriage %s: exit %d (want %d): %s"
             % (" ".join(args), p.returncode, rc, p.stderr[-800:]))
    return p


def fixtures(tmp):
    for v in range(1, 7):
        rec = os.path.join(FIXTURES, "record-v%d" % v, "rec")
        page = os.path.join(tmp, "v%d.html" % v)
        run("report", rec, "-o", page)
        docs = replay_docs(IOTRIAGE, rec)
        n, root = check_page(page, docs)
        check(n > 0, "record-v%d: no value checked" % v)
        charts = [e.get("data-chart") for e in root.iter() if tag(e) == "svg"]
        busy = any(r.get("util", 0) > 0 for d in docs for r in d.get("disks", [])
                   if r.get("valid"))
        check(any(c and c.startswith("disk:") for c in charts) == busy,
              "record-v%d: a disk was busy: %s, disk charts: %r" % (v, busy, charts))
        if v == 6:
            check(any(c and c.startswith("lat:") for c in charts),
                  "record-v6 (--trace): no latency heat map: %r" % charts)
        text = run("report", rec, "--text").stdout
        check(text.startswith("iotriage report: "), "record-v%d --text: %r" % (v, text[:200]))
        print("ok: record-v%d: %d values as replay --json has them, %d charts"
              % (v, n, len(charts)), flush=True)
    # --text quotes the numbers the charts show: vda's util peak of v6
    docs = replay_docs(IOTRIAGE, os.path.join(FIXTURES, "record-v6", "rec"))
    peak = max(r["util"] for d in docs for r in d.get("disks", [])
               if r.get("disk_device") == "vda" and r.get("valid"))
    text = run("report", os.path.join(FIXTURES, "record-v6", "rec"), "--text").stdout
    check("util      max %.2f%%" % peak in text, "--text does not quote vda's util peak "
          "%.2f: %s" % (peak, text))


def long_window(tmp):
    bench = os.path.join(env("BUILDDIR"), "tests", "bench", "bench_record")
    rec = os.path.join(tmp, "long")
    # (tests/bench is configured after this directory: no meson depends;
    # meson test builds every target first)
    check(os.path.exists(bench), "%s not built" % bench)
    subprocess.run([bench, "day", os.path.join(FIXTURES, "record-v6", "rec"), rec, "2", "10"],
                   check=True, capture_output=True, timeout=120)
    page = os.path.join(tmp, "long.html")
    run("report", rec, "-o", page)
    check(os.path.getsize(page) < 2 << 20, "a 2-hour page of %d bytes" % os.path.getsize(page))
    docs = replay_docs(IOTRIAGE, rec)
    check(len(docs) > 3000, "the long recording replays %d documents" % len(docs))
    n, root = check_page(page, docs)
    reduced = [e for e in root.iter() if e.get("data-mean") is not None]
    check(reduced, "a window of %d samples was not reduced" % len(docs))
    print("ok: %d samples reduced to columns, %d values (min, mean, max) as replay --json"
          % (len(docs), n), flush=True)
    # a window inside it: --from/--to as replay takes them
    t0 = docs[0]["timestamp_ms"] // 1000
    frm, to = "@%d" % (t0 + 4000), "@%d" % (t0 + 4100)
    run("report", rec, "--from", frm, "--to", to, "-o", page)
    sub = replay_docs(IOTRIAGE, rec, "--from", frm, "--to", to)
    n, _ = check_page(page, sub)
    check(n > 0 and len(sub) < 200, "--from/--to: %d values over %d documents" % (n, len(sub)))
    p = run("report", rec, "--from", "@1", "--to", "@2", rc=1)
    check("no sample in that time range" in p.stderr, "an empty window: %r" % p.stderr)
    print("ok: --from/--to (%d samples); an empty window exits 1" % len(sub), flush=True)


def rec(kind, data):
    return struct.pack("<HHiI", kind, 0, 0, len(data)) + data


def hostile(tmp):
    make_rec = env("MAKE_RECORDING")
    a = os.path.join(FIXTURES, "advise", "disk-saturated")
    evil = '<img/src=x>"\'&amp;\x1b]0;pwn\x07'
    ps = []
    for i, t in enumerate(("t0", "t1", "t1", "t1")):
        ps.append(os.path.join(tmp, "evil.%d" % i))
        payload_of(os.path.join(a, t), ps[-1], rename=("sdb", evil))
    out = os.path.join(tmp, "rec-evil")
    subprocess.run([make_rec, "-t", os.path.join(a, "t1"), out] + ps, check=True)
    page = os.path.join(tmp, "evil.html")
    run("report", out, "-o", page)
    raw = open(page, "rb").read()
    check(b"<img" not in raw and b"\x1b" not in raw and b"\x07" not in raw,
          "the name reached the page unescaped")
    n, root = check_page(page, replay_docs(IOTRIAGE, out))
    names = [e.text for e in root.iter() if tag(e) == "h3" and e.get("class") == "disk"]
    check(any(x and x.startswith('<img/src=x>"\'&amp;\\x1b') for x in names),
          "the disk's name is not shown as text: %r" % names)
    text = run("report", out, "--text").stdout
    check("\x1b" not in text and "\x07" not in text and "\\x1b]0;pwn\\x07" in text,
          "--text: the name not escaped: %r" % text)
    print("ok: a disk named %r: valid page, the name as text; --text escapes it" % evil,
          flush=True)

    corpus = os.path.join(SRCDIR, "tests", "fuzz", "corpus", "segment")
    seen = 0
    for name in sorted(os.listdir(corpus)):
        d = os.path.join(tmp, "seg-" + name)
        os.mkdir(d, 0o700)
        # a segment's name says when it starts: the reader takes no other
        seg = "1795776721377-00000000000000aa.iotr"
        shutil.copy(os.path.join(corpus, name), os.path.join(d, seg))
        page = os.path.join(tmp, "seg-%s.html" % name)
        p = run("report", d, "-o", page, rc=None)
        check(p.returncode in (0, 1), "fuzz seed %s: exit %d: %s"
              % (name, p.returncode, p.stderr[-500:]))
        if p.returncode == 1:
            check(p.stderr.startswith("iotriage: "), "seed %s: unclear error %r" % (name, p.stderr))
        else:
            parse_html(page)
        seen += 1
    print("ok: %d fuzz corpus segments: a valid page or a clear error" % seen, flush=True)
    p = run("report", "--bogus", rc=2)
    p = run("report", "--from", "nonsense", rc=2)
    p = run("report", "a", "b", rc=2)


def payload_of(tree, out, rename=None):
    """The core records of a tree as a recording frame's payload (tags 1-6)."""
    def f(p):
        return open(os.path.join(tree, p), "rb").read()

    disk = f("proc/diskstats")
    if rename:
        disk = disk.replace(b" %s " % rename[0].encode(), b" %s " % rename[1].encode())
    # the /sys/block facts (tag 6): every disk whole, iostats on
    sysblock = b"".join(b"%s\t%s\t1\t1\t\t\n" % tuple(x.split()[:2])
                        for x in disk.splitlines() if x.strip())
    open(out, "wb").write(rec(1, f("proc/uptime")) + rec(2, f("proc/stat")) + rec(3, disk) +
                          rec(4, f("proc/interrupts")) + rec(5, f("proc/softirqs")) +
                          rec(6, sysblock))


def hot(tmp):
    """A core drowning in interrupts (fixtures/hot-irq advanced step by
    step): its strip carries the hot_cpu finding's span."""
    src = os.path.join(FIXTURES, "hot-irq")
    work = os.path.join(tmp, "hot-w")
    shutil.copytree(os.path.join(src, "t0"), work, symlinks=True)
    ps = []
    for step in range(6):
        subprocess.run([sys.executable, os.path.join(FIXTURES, "advance.py"), src, work,
                        str(step)], check=True)
        ps.append(os.path.join(tmp, "hot.%d" % step))
        payload_of(work, ps[-1])
    out = os.path.join(tmp, "rec-hot")
    subprocess.run([env("MAKE_RECORDING"), "-t", os.path.join(src, "t1"), out] + ps, check=True)
    page = os.path.join(tmp, "hot.html")
    run("report", out, "-o", page)
    docs = replay_docs(IOTRIAGE, out)
    hot_cpus = {f["subject"] for d in docs for f in d.get("findings") or []
                if f["kind"] == "hot_cpu"}
    check(hot_cpus, "the hot-irq recording has no hot_cpu finding")
    n, root = check_page(page, docs)
    marked = {"cpu" + g.get("data-cpu") for g in root.iter() if g.get("data-cpu") is not None
              and any(r.get("class") == "hot" for r in g.iter())}
    check(marked == hot_cpus, "hot spans on %r, hot_cpu findings on %r" % (marked, hot_cpus))
    print("ok: hot core %s marked on its strip; %d values as replay --json" % (sorted(marked), n),
          flush=True)


def main():
    tmp = tempfile.mkdtemp(prefix="iotr-report-")
    try:
        fixtures(tmp)
        hostile(tmp)
        hot(tmp)
        long_window(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
