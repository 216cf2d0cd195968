#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""IO latency by owning cgroup, and flush latency (doc/trace.md, "IO
latency per cgroup", "Flushes"), as root on the live kernel.

Two cgroups made for the test in the hierarchy the io controller is on
(cgroup v1 blkio where it is mounted, else cgroup v2 with io enabled) each
do a known number of direct IOs (dd, 4 KiB each) on a loop device over a
file in /dev/shm while `iotriage snapshot --trace --json` measures: each
cgroup's row on the loop device counts what it did (within a few IOs), by
its path, with both stages' percentiles; nothing dropped. Buffered writes
in one cgroup to a file on ext4 on the loop device, written back by
`sync` from outside: where the kernel attributes them (cgroup v2 with
memory and io: to the cgroup that dirtied the pages; cgroup v1: to the
flusher's, the root) is where the row says, and the test prints what it
saw. fio --fsync=1 on the loop device: `disks[].flush` counts its fsyncs'
flushes. Every cgroup, mount, loop device and file made is removed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import check, env, fail, skip  # noqa: E402


def hierarchy():
    """(mount point, 'v1'|'v2') of the io controller, as trace_cgroup.c finds it."""
    v1 = v2 = None
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            mp = left.split()[4]
            fstype, _, supers = (right.split() + ["", "", ""])[:3]
            if fstype == "cgroup" and "blkio" in supers.split(",") and not v1:
                v1 = mp
            elif fstype == "cgroup2" and not v2:
                v2 = mp
    if v1:
        return v1, "v1"
    if v2:
        return v2, "v2"
    skip("no cgroup hierarchy mounted")


def run_in(cg, argv):
    """argv run inside cgroup directory cg (moved there before exec)."""
    return subprocess.Popen(["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cg] + argv,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def prog_ids(name):
    r = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True)
    return {p["id"] for p in json.loads(r.stdout or "[]") if p.get("name") == name}


def snapshot(iotriage, start, ms=8000):
    """iotriage snapshot --trace over ms, start() run once its programs are
    loaded (a new blk_complete) and its first read taken; the load must end
    inside the window (a loaded machine: else the test says so). Returns
    the trace section."""
    before = prog_ids("blk_complete")
    p = subprocess.Popen([iotriage, "snapshot", "--trace", "--json", "--interval", str(ms)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (prog_ids("blk_complete") - before) and p.poll() is None:
        check(time.monotonic() < deadline, "the block probe did not load in 30 s")
        time.sleep(0.1)
    time.sleep(0.5)  # the first read comes right after attaching
    t0 = time.monotonic()
    procs = start()
    for q in procs:
        q.wait(timeout=120)
        check(q.returncode == 0, "load: %s" % q.stderr.read())
    took = time.monotonic() - t0
    check(p.poll() is None, "the load took %.1f s, longer than the %d ms window" % (took, ms))
    out, err = p.communicate(timeout=ms / 1000 + 60)
    check(p.returncode == 0, "snapshot: %s" % err)
    t = json.loads(out)["trace"]
    if not t.get("available"):
        skip("tracing unavailable: %s" % t.get("reason"))
    return t


def rows_of(t, disk):
    return {c["path"]: c for c in t.get("cgroups", []) if c["disk"] == disk}


def main():
    iotriage = env("IOTRIAGE")
    if os.geteuid() != 0:
        skip("needs root")
    for tool in ("losetup", "dd", "fio", "mkfs.ext4", "bpftool"):
        if not shutil.which(tool):
            skip("no %s" % tool)
    top, kind = hierarchy()
    tmp = tempfile.mkdtemp(prefix="iotriage-tcg.")
    img = os.path.join("/dev/shm", "iotriage-tcg-%d.img" % os.getpid())
    cgs = [os.path.join(top, "iotriage-tcg-%d-%s" % (os.getpid(), s)) for s in "ab"]
    mnt = os.path.join(tmp, "mnt")
    loop = None
    enabled_io = False
    try:
        if kind == "v2":
            with open(os.path.join(top, "cgroup.subtree_control")) as f:
                if "io" not in f.read().split():
                    try:
                        with open(os.path.join(top, "cgroup.subtree_control"), "w") as f:
                            f.write("+io")
                        enabled_io = True
                    except OSError as e:
                        skip("cannot enable io in %s: %s" % (top, e))
        for cg in cgs:
            os.mkdir(cg)
        with open(img, "wb") as f:
            f.truncate(256 << 20)
        r = subprocess.run(["losetup", "-f", "--show", img], capture_output=True, text=True)
        if r.returncode:
            skip("losetup: %s" % r.stderr.strip())
        loop = r.stdout.strip()
        disk = os.path.basename(loop)
        paths = ["/" + os.path.relpath(cg, top) for cg in cgs]
        print("hierarchy %s (%s), cgroups %s, %s" % (top, kind, paths, loop), flush=True)

        # 1. direct IO: 3000 writes in a, 1000 reads in b
        t = snapshot(iotriage, lambda: [
            run_in(cgs[0], ["dd", "if=/dev/zero", "of=" + loop, "bs=4k", "count=3000",
                            "oflag=direct", "status=none"]),
            run_in(cgs[1], ["dd", "if=" + loop, "of=/dev/null", "bs=4k", "count=1000",
                            "iflag=direct", "status=none"])])
        blk = t["probes"]["block"]
        check(blk.get("on"), "block probe off: %s" % blk)
        check(t.get("cgroup_hierarchy") == top, "cgroup_hierarchy %r, want %r"
              % (t.get("cgroup_hierarchy"), top))
        rows = rows_of(t, disk)
        print("direct: %s" % json.dumps(rows), flush=True)
        for path, want in zip(paths, (3000, 1000)):
            c = rows.get(path)
            check(c is not None, "no row for %s on %s: %s" % (path, disk, rows))
            check(abs(c["count"] - want) <= 5, "%s: %d IOs, did %d" % (path, c["count"], want))
            for k in ("count_s", "d_mean_us", "d_p50_us", "d_p99_us"):
                check(k in c and c[k] >= 0, "%s: no %s in %s" % (path, k, c))
            check(c["d_p99_us"] >= c["d_p50_us"] > 0, "%s: percentiles %s" % (path, c))
        check(blk.get("lat_dropped") == 0 and blk.get("cg_dropped") == 0,
              "IOs dropped: %s" % blk)

        # 2. buffered writes in a, written back by sync from here
        subprocess.run(["mkfs.ext4", "-q", "-F", loop], check=True)
        os.mkdir(mnt)
        subprocess.run(["mount", loop, mnt], check=True)
        subprocess.run(["sync"], check=True)

        def dirty_then_sync():
            p = run_in(cgs[0], ["dd", "if=/dev/zero", "of=" + os.path.join(mnt, "f"), "bs=1M",
                                "count=32", "status=none"])
            p.wait(timeout=60)
            return [p, subprocess.Popen(["sync"], stderr=subprocess.PIPE, text=True)]
        t = snapshot(iotriage, dirty_then_sync)
        rows = rows_of(t, disk)
        d = [x for x in t["disks"] if x["disk"] == disk]
        writes = d[0]["lat"].get("write", {}).get("device", {}).get("count", 0) if d else 0
        a = rows.get(paths[0], {}).get("count", 0)
        root = rows.get("/", {}).get("count", 0)
        print("writeback: %d writes on %s; rows %s" % (writes, disk,
              {p: c["count"] for p, c in rows.items()}), flush=True)
        check(writes >= 8, "the writeback of 32 MiB wrote %d requests" % writes)
        check(sum(c["count"] for c in rows.values()) >= writes,
              "rows %s hold fewer IOs than the disk's %d writes" % (rows, writes))
        cgwb = kind == "v2" and os.path.exists(os.path.join(cgs[0], "memory.current"))
        if cgwb:
            check(a >= writes * 0.8, "cgroup v2 writeback: %s has %d of %d writes"
                  % (paths[0], a, writes))
            print("writeback attributed to %s (the cgroup that dirtied the pages)" % paths[0])
        else:
            # cgroup v1 (or io without memory on v2): no cgroup writeback,
            # the flusher's bios carry the root's blkg
            check(root >= writes * 0.8, "cgroup v1 writeback: / has %d of %d writes"
                  % (root, writes))
            print("writeback attributed to / (no cgroup writeback on %s: the flusher's "
                  "blkg is the root's)" % kind)
        subprocess.run(["umount", mnt], check=True)
        os.rmdir(mnt)

        # 3. flushes: fio --fsync=1 on the loop device
        fio_out = os.path.join(tmp, "fio.json")
        t = snapshot(iotriage, lambda: [subprocess.Popen(
            ["fio", "--name=f", "--filename=" + loop, "--rw=write", "--bs=4k", "--size=8M",
             "--fsync=1", "--runtime=2", "--time_based", "--output-format=json",
             "--output=" + fio_out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True)])
        with open(fio_out) as f:
            syncs = json.load(f)["jobs"][0]["sync"]["total_ios"]
        d = [x for x in t["disks"] if x["disk"] == disk]
        check(d and "flush" in d[0], "no disks[].flush on %s: %s" % (disk, d))
        fl = d[0]["flush"]
        print("flush: fio %d fsyncs, %s" % (syncs, json.dumps(fl)), flush=True)
        check(abs(fl["count"] - syncs) <= max(5, syncs // 100),
              "flush count %d, fio's fsyncs %d" % (fl["count"], syncs))
        check(fl["p99_us"] >= fl["p50_us"] > 0 and fl["count_s"] > 0, "flush %s" % fl)
        check(fl["count"] == d[0]["lat"]["flush"]["device"]["count"],
              "flush.count is not lat.flush.device.count: %s" % d[0])
        print("ok", flush=True)
    finally:
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", mnt])
        if loop:
            subprocess.run(["losetup", "-d", loop])
        if os.path.exists(img):
            os.unlink(img)
        for cg in cgs:
            for _ in range(50):
                try:
                    if os.path.isdir(cg):
                        os.rmdir(cg)
                    break
                except OSError:
                    time.sleep(0.1)
        if enabled_io:
            try:
                with open(os.path.join(top, "cgroup.subtree_control"), "w") as f:
                    f.write("-io")
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except subprocess.TimeoutExpired as e:
        fail("timed out: %s" % e)
