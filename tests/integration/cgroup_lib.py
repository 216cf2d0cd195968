# SPDX-License-Identifier: GPL-2.0-or-later
"""What the live cgroup tests share (test_cgroup_live.sh for v2,
test_cgroup_v1_live.sh for v1 blkio): 64 MiB written by dd with O_DIRECT
from inside a cgroup, and the kB the daemon's samples attribute to it."""
import subprocess
import time

from daemon_lib import TIMEOUT, check


def dd_attributed_kb(d, cg, data, is_row, check_section):
    """Runs dd (64 MiB, O_DIRECT, into data/f) in the cgroup directory cg
    while subscribed to daemon d; returns the sum over the samples of the
    row's wkB/s times the interval, until three samples after dd ended.
    is_row(row) picks the cgroup's row of cgroups.top; check_section(s)
    asserts on each sample's cgroups section."""
    c = d.client()
    check(c.req({"cmd": "subscribe"})["ok"], "subscribe")
    # the shell moves itself into the cgroup, then becomes dd
    dd = subprocess.Popen(["sh", "-c", 'echo $$ > "$1/cgroup.procs" && exec dd if=/dev/zero '
                           'of="$2/f" bs=1M count=64 oflag=direct status=none', "sh", cg,
                           data])
    total_kb, seen = 0.0, False
    deadline = time.monotonic() + TIMEOUT
    quiet = 0
    while quiet < 3:  # until three samples after dd ended
        check(time.monotonic() < deadline, "no end of dd in sight")
        e, _ = c.event()
        s = e["sample"]
        if "cgroups" not in s:
            continue
        check(s["sources"]["cgroup_io"]["available"], "cgroup_io %r" % s["sources"]["cgroup_io"])
        check_section(s["cgroups"])
        row = [r for r in s["cgroups"].get("top", []) if is_row(r)]
        itv = s.get("interval_ms", 500) / 1000.0
        if row:
            seen = True
            total_kb += row[0].get("wkB/s", 0) * itv
        if dd.poll() is not None:
            quiet += 1
    check(dd.returncode == 0, "dd failed: %d" % dd.returncode)
    check(seen, "the cgroup never showed in cgroups.top")
    c.close()
    return total_kb
