#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An IRQ affinity changed by hand reaches a watching live view within
seconds, not minutes (issue 31: the client reads no /proc/irq; the
daemon's documents carry the affinities of its topology, which its thread
reads every 10 s while a subscriber watches, SAMPLER_TOPO_NS, doc/daemon.md).

A quiet host (no finding: the topology would be read every 5 min, and that
is what failed here before): the daemon at 0.2 s over a tree whose
/proc/interrupts and uptime advance between samples, one subscriber; then
IRQ 50's smp_affinity_list and effective_affinity_list are rewritten and
the pushed documents must carry the new ones within 20 s."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Daemon, check, cleanup, copy_tree, env, fail  # noqa: E402


def advance(tree, step):
    """One tick: every IRQ line and CPU counter and the uptime forward."""
    p = os.path.join(tree, "proc", "interrupts")
    with open(p) as f:
        lines = f.read().splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        head, rest = line.split(":", 1)
        parts = rest.split()
        ncpu = len(lines[0].split())
        nums = [str(int(x) + 50) for x in parts[:ncpu]]
        out.append("%s: %s %s" % (head, " ".join(nums), " ".join(parts[ncpu:])))
    with open(p, "r+") as f:
        data = "\n".join(out) + "\n"
        f.write(data)
        f.truncate(len(data))
    up = os.path.join(tree, "proc", "uptime")
    with open(up, "r+") as f:
        a, b = (float(x) for x in f.read().split())
        data = "%.2f %.2f\n" % (a + 0.2 * step, b + 0.4 * step)
        f.seek(0)
        f.write(data)
        f.truncate(len(data))
    st = os.path.join(tree, "proc", "stat")
    with open(st) as f:
        rows = f.read().splitlines()
    new = []
    for r in rows:
        w = r.split()
        if w and w[0].startswith("cpu"):
            # idle forward: a quiet host
            w[4] = str(int(w[4]) + 20 * step * (4 if w[0] == "cpu" else 1))
            r = " ".join(w)
        new.append(r)
    with open(st, "r+") as f:
        data = "\n".join(new) + "\n"
        f.write(data)
        f.truncate(len(data))


def line50(doc):
    for r in doc.get("interrupts") or []:
        if r.get("name") == "50":
            return r
    return None


def main():
    env("IOTRIAGED")
    tmp = tempfile.mkdtemp(prefix="iot-affw-")
    tree = os.path.join(tmp, "tree")
    copy_tree(os.path.join(env("FIXTURES"), "advise", "healthy", "t1"), tree)
    daemons = []
    try:
        d = Daemon(tmp, root=tree, interval=200)
        daemons.append(d)
        c = d.client()
        c.send({"cmd": "subscribe"})
        r = c.reply()
        check(r.get("ok") is True, "subscribe: %r" % r)

        def wait(what, pred, secs):
            deadline = time.monotonic() + secs
            step = 0
            while time.monotonic() < deadline:
                d.pause_idle()
                step += 1
                advance(tree, 1)
                d.resume()
                ev, _ = c.event()
                doc = ev["sample"]
                r50 = line50(doc)
                if pred(doc, r50):
                    return doc, r50, time.monotonic() - (deadline - secs)
            fail("%s: not within %d s; last IRQ 50 row %r, findings %r" % (
                what, secs, r50, [f["id"] for f in doc.get("findings") or []]))

        doc, r50, _ = wait("IRQ 50's affinity in the documents",
                           lambda doc, r: r is not None and r.get("affinity") == "0", 20)
        check(not doc.get("findings"),
              "the host is not quiet: %r" % [f["id"] for f in doc["findings"]])
        irq = os.path.join(tree, "proc", "irq", "50")
        for name, val in (("smp_affinity_list", "2-3"), ("effective_affinity_list", "3"),
                          ("smp_affinity", "0000000c")):
            with open(os.path.join(irq, name), "w") as f:
                f.write(val + "\n")
        doc, r50, took = wait("IRQ 50's new affinity (2-3, effective 3) in the documents",
                              lambda doc, r: r is not None and r.get("affinity") == "2-3"
                              and r.get("effective") == "3", 20)
        print("ok: the affinity changed by hand shows %.1f s later (no finding stands: %s)"
              % (took, not doc.get("findings")))
        c.close()
        check(d.stop() == 0, "iotriaged did not exit 0")
    finally:
        cleanup(daemons)
        for root, dirs, files in os.walk(tmp, topdown=False):
            for n in files:
                os.unlink(os.path.join(root, n))
            for n in dirs:
                p = os.path.join(root, n)
                os.rmdir(p) if not os.path.islink(p) else os.unlink(p)
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
