#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""iotriage report on a real incident recorded on this machine (issue 32).

A full iotriaged (findings on) records at 100 ms into a private directory
on a private socket while a neighbour's fio saturates a loop device over a
file in /dev/shm (1 MiB direct writes, 64 in flight: util 100 %, awaits of
tens of ms), then stops; a few quiet seconds before and after.

- `report --socket` (the daemon's history) and `report DIR` (the
  recording): valid HTML, every data attribute what `replay --json` says
  at the same times; the loop device is drawn with a shaded span (the
  disk_saturated finding) and fio named among the culprits;
- headless Chromium renders the page: the screenshot has the window's size
  and shows the shaded span's colour (kept as report-incident.png in the
  build directory, a test artifact);
- --text quotes the loop device's util peak.

Needs root (loop devices), fio and chromium: exits 77 otherwise. Removes
fio, the daemon, the loop device and its file.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Daemon, check, cleanup, env, fail, skip  # noqa: E402
from report_lib import check_page, chromium, read_png, replay_docs, screenshot, tag  # noqa: E402

IOTRIAGE = env("IOTRIAGE")
SAT = (0xf6, 0xc3, 0xc3)  # .sat in report_html.c's style


def run(*args):
    p = subprocess.run([IOTRIAGE] + list(args), capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("iotriage %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-800:]))
    return p.stdout


def check_incident(page, docs, disk):
    n, root = check_page(page, docs)
    charts = {e.get("data-chart"): e for e in root.iter() if tag(e) == "svg"}
    util = charts.get("disk:%s:util" % disk)
    check(util is not None, "%s: no util chart for %s: %r" % (page, disk, list(charts)))
    spans = [e for e in util.iter() if e.get("class") == "sat"]
    check(spans, "%s: no saturated span shaded on %s" % (page, disk))
    cells = [x.text or "" for x in root.iter() if tag(x) == "td"]
    check(any("fio" in c for c in cells), "%s: fio not among the culprits: %r" % (page, cells))
    return n, len(spans)


def main():
    if os.geteuid() != 0:
        skip("needs root for a loop device")
    for tool in ("fio", "losetup"):
        if not shutil.which(tool):
            skip("%s not installed" % tool)
    chromium()
    tmp = tempfile.mkdtemp(prefix="iotr-report-inc-")
    img = tempfile.NamedTemporaryFile(prefix="iotr-report-", dir="/dev/shm", delete=False)
    img.close()
    loop = fio = None
    daemons = []
    try:
        os.truncate(img.name, 256 << 20)
        p = subprocess.run(["losetup", "--find", "--show", img.name], capture_output=True,
                           text=True)
        if p.returncode != 0:
            skip("losetup refused: %s" % p.stderr.strip())
        loop = p.stdout.strip()
        disk = os.path.basename(loop)
        rec = os.path.join(tmp, "rec")
        d = Daemon(tmp, interval=100, name="inc", extra=["--record", rec])
        daemons.append(d)
        time.sleep(3)
        fio = subprocess.Popen(
            ["fio", "--name=neighbour", "--filename=" + loop, "--rw=write", "--bs=1M",
             "--direct=1", "--ioengine=libaio", "--iodepth=64", "--time_based",
             "--runtime=12", "--output=/dev/null"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        fio.wait(timeout=60)
        fio = None
        time.sleep(4)
        # the daemon's history, over its socket
        live = os.path.join(tmp, "socket.html")
        run("report", "--socket", d.sock, "-o", live)
        check(d.stop() == 0, "iotriaged did not exit 0")
        daemons.remove(d)

        page = os.path.join(tmp, "incident.html")
        run("report", rec, "-o", page)
        docs = replay_docs(IOTRIAGE, rec)
        n, spans = check_incident(page, docs, disk)
        print("ok: the recording, %d samples: %d values as replay --json has them, %d "
              "saturated span(s) on %s" % (len(docs), n, spans, disk), flush=True)
        n, spans = check_incident(live, docs, disk)
        print("ok: the daemon's history over its socket: %d values, %d span(s)" % (n, spans),
              flush=True)

        peak = max(r["util"] for x in docs for r in x.get("disks", [])
                   if r.get("disk_device") == disk and r.get("valid"))
        text = run("report", rec, "--text")
        check("Disk %s:\n  util      max %.2f%%" % (disk, peak) in text,
              "--text does not quote %s's util peak %.2f: %s" % (disk, peak, text))

        png = os.path.join(env("BUILDDIR"), "report-incident.png")
        screenshot(page, png, 900, 3000)
        w, h, rows = read_png(png)
        check((w, h) == (900, 3000), "screenshot %dx%d, not 900x3000" % (w, h))
        near = sum(1 for row in rows for px in row
                   if all(abs(a - b) <= 6 for a, b in zip(px, SAT)))
        white = sum(1 for px in rows[5] if px == (255, 255, 255))
        check(near > 200, "the screenshot shows %d pixels of the shaded span's colour" % near)
        check(white > w // 2, "the screenshot's top row is not the page's white")
        print("ok: chromium's screenshot %dx%d (%s): %d pixels of a shaded span"
              % (w, h, png, near))
    finally:
        if fio:
            os.killpg(fio.pid, signal.SIGKILL)
            fio.wait()
        cleanup(daemons)
        if loop:
            subprocess.run(["losetup", "-d", loop])
        os.unlink(img.name)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
