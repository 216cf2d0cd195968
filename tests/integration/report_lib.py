# SPDX-License-Identifier: GPL-2.0-or-later
"""What the incident report's tests share (test_report.py,
test_report_incident.py): the page checked as valid HTML (html5lib, strict)
and every value its SVG carries as a data attribute checked against
`iotriage replay --json` at the same times; a headless Chromium screenshot
and a PNG reader for its pixels."""
import bisect
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from daemon_lib import check, fail, skip  # noqa: F401

SVG_NS = "{http://www.w3.org/2000/svg}"
SEV = {"info": 1, "warning": 2, "critical": 3}


def replay_docs(iotriage, rec, *args):
    p = subprocess.run([iotriage, "replay", rec, "--json"] + list(args),
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "replay %s: exit %d: %s" % (rec, p.returncode, p.stderr[-500:]))
    return [json.loads(x) for x in p.stdout.splitlines()]


def parse_html(path):
    """The page's tree; fails on any parse error (html5lib strict mode)."""
    try:
        import html5lib
    except ImportError:
        # Debian's package, when python3 is another interpreter (pyenv)
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            import html5lib
        except ImportError:
            skip("python3-html5lib not installed (scripts/deps-debian.txt)")
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    with open(path, "rb") as f:
        try:
            return parser.parse(f)
        except html5lib.html5parser.ParseError as e:
            fail("%s: not valid HTML: %s (errors: %r)" % (path, e, parser.errors[:5]))


def tag(e):
    t = e.tag if isinstance(e.tag, str) else ""
    return t[len(SVG_NS):] if t.startswith(SVG_NS) else t


def text_escape(s):
    """A name as the page shows it (src/lib/text.c): controls as \\xHH."""
    return "".join("".join("\\x%02x" % b for b in ch.encode())
                   if ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f else ch for ch in s)


def disk_row(doc, name):
    for r in doc.get("disks", []):
        if (text_escape(r.get("disk_device", "")) == name and r.get("whole", True)
                and r.get("valid")):
            return r
    return None


def value(doc, chart, series):
    """The document's number a chart's series draws, None when absent."""
    if chart.startswith("disk:"):
        name = chart.split(":")[1]
        if series in ("r_p99", "w_p99"):
            for t in doc.get("trace", {}).get("disks", []):
                if text_escape(t.get("disk", "")) == name:
                    v = (t.get("lat", {}).get("read" if series == "r_p99" else "write", {})
                         .get("device", {}).get("p99_us"))
                    return None if v is None else v / 1000.0
            return None
        row = disk_row(doc, name)
        return None if row is None else row.get(series)
    if chart == "pressure":
        res, kind = series.split(".")
        return doc.get("pressure", {}).get(res, {}).get(kind, {}).get("stall%")
    fail("unknown chart %r" % chart)


def cpu_value(doc, cpu):
    for r in doc.get("cpu-load", []):
        if r.get("cpu") == str(cpu) and r.get("valid") and "irq" in r and "soft" in r:
            return r["irq"] + r["soft"]
    return None


def hist_count(doc, disk, b):
    n = 0
    for t in doc.get("trace", {}).get("disks", []):
        if text_escape(t.get("disk", "")) != disk:
            continue
        for op in t.get("lat", {}).values():
            h = op.get("device", {}).get("hist", [])
            if b < len(h) and h[b] > 0:
                n += h[b]
    return n


def same(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def check_series(chart, name, g, cols, docs_of):
    """One series against the documents of each column; the values checked."""
    n = 0
    if g.get("data-v") is not None:
        vs = g.get("data-v").split(" ")
        check(len(vs) == len(cols), "%s %s: %d values, %d columns" % (chart, name, len(vs), len(cols)))
        for c, v in enumerate(vs):
            want = [x for x in (value(d, chart, name) for d in docs_of(c)) if x is not None]
            if v == "-":
                check(not want, "%s %s column %d: '-' where the document has %r"
                      % (chart, name, c, want))
                continue
            check(len(want) == 1 and same(float(v), want[0]),
                  "%s %s column %d (t=%s): %s, replay --json says %r"
                  % (chart, name, c, cols[c], v, want))
            n += 1
        return n
    mins, means, maxs = (g.get("data-" + k).split(" ") for k in ("min", "mean", "max"))
    for c in range(len(cols)):
        docs = docs_of(c)
        pairs = [(value(d, chart, name), d.get("interval_ms", 0)) for d in docs]
        pairs = [p for p in pairs if p[0] is not None]
        if mins[c] == "-":
            check(not pairs, "%s %s column %d: '-' with values %r" % (chart, name, c, pairs))
            continue
        vals = [p[0] for p in pairs]
        check(vals and same(float(mins[c]), min(vals)) and same(float(maxs[c]), max(vals)),
              "%s %s column %d: min %s max %s, replay --json says %s..%s over %d samples"
              % (chart, name, c, mins[c], maxs[c], min(vals) if vals else None,
                 max(vals) if vals else None, len(vals)))
        w = sum(p[1] for p in pairs)
        mean = sum(p[0] * p[1] for p in pairs) / w if w else sum(vals) / len(vals)
        check(math.isclose(float(means[c]), mean, rel_tol=1e-6, abs_tol=1e-6),
              "%s %s column %d: mean %s, replay --json's interval-weighted mean %r"
              % (chart, name, c, means[c], mean))
        n += 1
    return n


def check_page(path, docs):
    """The page is valid HTML and every value of its SVG is the documents'.
    Returns (values checked, the page's tree)."""
    root = parse_html(path)
    ts = [d["timestamp_ms"] for d in docs]
    check(ts == sorted(ts), "replay's documents are not in time order")
    n = 0
    for svg in root.iter():
        if tag(svg) != "svg" or svg.get("data-t") is None:
            continue
        chart = svg.get("data-chart")
        t1, t2 = svg.get("data-t").split(" "), svg.get("data-t2").split(" ")

        def docs_of(c, t1=t1, t2=t2):
            if t1[c] == "-":
                return []
            lo = bisect.bisect_left(ts, int(t1[c]))
            hi = bisect.bisect_right(ts, int(t2[c]))
            check(hi > lo, "%s column %d: no document at %s..%s" % (chart, c, t1[c], t2[c]))
            return docs[lo:hi]

        for g in svg.iter():
            if g.get("data-series") is not None:
                n += check_series(chart, g.get("data-series"), g, t1, docs_of)
            elif g.get("data-cpu") is not None:
                cpu = int(g.get("data-cpu"))
                for c, v in enumerate(g.get("data-max").split(" ")):
                    want = [x for x in (cpu_value(d, cpu) for d in docs_of(c)) if x is not None]
                    if v == "-":
                        check(not want, "cpu%d column %d: '-' with %r" % (cpu, c, want))
                        continue
                    check(want and same(float(v), max(want)),
                          "cpu%d column %d: %s, replay --json's max %r" % (cpu, c, v, want))
                    n += 1
            elif g.get("data-sev") is not None:
                fid = g.get("data-id")
                for c, v in enumerate(g.get("data-sev").split(" ")):
                    want = max([SEV.get(f.get("severity"), 1) for d in docs_of(c)
                                for f in d.get("findings") or [] if f.get("id") == fid] or [0])
                    check(int(v) == want, "finding %s column %d: severity %s, the documents' "
                          "worst %d" % (fid, c, v, want))
                    n += 1
            elif g.get("data-n") is not None and chart.startswith("lat:"):
                c, b = int(g.get("data-c")), int(g.get("data-b"))
                want = sum(hist_count(d, chart[4:], b) for d in docs_of(c))
                check(int(g.get("data-n")) == want, "%s column %d bucket %d: %s IOs, the "
                      "documents' histograms %d" % (chart, c, b, g.get("data-n"), want))
                n += 1
    return n, root


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    skip("chromium not installed (scripts/deps-debian.txt)")


def screenshot(page, png, width=900, height=1600):
    """page rendered by headless Chromium into png, with no network and a
    fresh profile (removed)."""
    prof = tempfile.mkdtemp(prefix="iotr-chromium-")
    try:
        p = subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--user-data-dir=" + prof, "--hide-scrollbars",
             "--window-size=%d,%d" % (width, height), "--screenshot=" + png,
             "file://" + os.path.abspath(page)],
            capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(prof, ignore_errors=True)
    check(p.returncode == 0 and os.path.exists(png),
          "chromium --screenshot: exit %d: %s" % (p.returncode, p.stderr[-800:]))


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "%s is not a PNG" % path)
    pos, idat = 8, b""
    w = h = depth = ctype = 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    check(depth == 8 and ctype in (2, 6), "%s: PNG depth %d colour type %d" % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows
