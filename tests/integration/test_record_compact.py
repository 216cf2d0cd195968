#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compaction of a flight recording (doc/recording.md, "Compaction"), on real
daemons over trees this test owns:

- sealing: a daemon stores its frames uncompressed (the header says so);
  the next run's thread rewrites that closed segment with every frame
  compressed, every sample kept, and replay reads the same documents from
  it, byte for byte; the segment being written is never sealed;
- two daemon runs record every sample; a third with --record-compact-after
  1s --record-compact-keep 5 rewrites their segments keeping one sample in 5
  (format version 4, keep_every 5 in the header), the current one never;
- a replay across the compacted boundary reads every kept sample, says
  where the resolution changes, and the kept documents carry the same
  counters as before (uptime); compute --recording between two kept
  instants gives what it gave before compaction (counters are cumulative:
  rates over longer intervals stay exact);
- crash safety: kill -9 of a daemon while it compacts the big-256 host's
  segments (5.8 MB payloads: a compaction takes a second, paced) leaves a
  recording that reads with no problem and no sample missing that was not
  meant to be dropped; the next start removes the half-written NAME.tmp and
  compacts again;
- a daemon that detaches (no --foreground) compacts as well;
- segments of format version 1 are compacted into version 4 (the writer's);
- both committed fixtures read: record-v1 and record-v2 (a compacted one).
"""
import glob
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Client, Daemon, check, cleanup, env, fail, skip  # noqa: E402
from test_record import frame_flags, frames, project, run, segments, wait_samples  # noqa: E402

FIXTURES = env("FIXTURES")
SRCDIR = env("SRCDIR")
ADVANCE = os.path.join(SRCDIR, "tests", "fixtures", "advance.py")
BOOT = "0f5c4f52-8b0e-4cbb-9d35-3a0c1a1e00c1"
VERSION = 6  # the format this iotriaged writes (src/lib/rec_file.h)


def header(path):
    """(version, keep_every) of a segment."""
    with open(path, "rb") as f:
        h = f.read(256)
    return struct.unpack_from("<I", h, 8)[0], struct.unpack_from("<I", h, 160)[0]


def stored(path):
    """The header says the segment may hold uncompressed frames (not sealed)."""
    with open(path, "rb") as f:
        h = f.read(256)
    return bool(struct.unpack_from("<I", h, 164)[0] & 1)


def frame_ids(path):
    """The sample ids of a segment's frames, from their headers."""
    with open(path, "rb") as f:
        data = f.read()
    return [struct.unpack_from("<Q", data, off + 24)[0] for off, _z, _key in frames(path)]


def tree(tmp, name, src):
    t = os.path.join(tmp, name)
    shutil.copytree(src, t)
    os.makedirs(os.path.join(t, "proc", "sys", "kernel", "random"), exist_ok=True)
    with open(os.path.join(t, "proc", "sys", "kernel", "random", "boot_id"), "w") as f:
        f.write(BOOT + "\n")
    return t


def check_thinned(full, kept, keep, what):
    """kept is full with samples dropped, at most keep - 1 in a row, the
    first of each segment kept."""
    check(kept[0] == full[0], "%s: the first sample %d not kept (%d)" % (what, full[0], kept[0]))
    check(set(kept) <= set(full), "%s: samples that were never recorded: %s"
          % (what, sorted(set(kept) - set(full))[:5]))
    pos = [full.index(k) for k in kept]
    gaps = [b - a for a, b in zip(pos, pos[1:])]
    check(all(1 <= g <= keep + 1 for g in gaps), "%s: gaps %s for one in %d" % (what, gaps, keep))
    check(len(kept) <= len(full) // (keep - 1) + 2, "%s: %d of %d kept, one in %d wanted"
          % (what, len(kept), len(full), keep))


def wait_rewrites(d, name, what, n):
    """Until d's status says its thread has rewritten n segments by what
    ("seal" or "compact"), 60 s at most."""
    deadline = time.monotonic() + 60
    while d.status()["record"][what]["segments"] < n:
        if time.monotonic() > deadline:
            fail("daemon %s: %s did not happen in 60 s: %r" % (name, what, d.status()["record"]))
        time.sleep(0.1)


def full_runs(tmp, daemons, t, rec, names, interval, samples, seal=0):
    """A daemon run a name, each recording every sample into a segment of its
    own; each seals seal segments (those of the runs before) before it stops."""
    for name in names:
        d = Daemon(tmp, root=t, interval=interval, name=name,
                   extra=["--core-only", "--record", rec, "--record-compact-after", "0"])
        daemons.append(d)
        wait_samples(d, samples)
        wait_rewrites(d, name, "seal", seal)
        check(d.stop() == 0, "daemon %s did not exit 0" % name)


def part_seal(tmp, daemons, t, rec):
    """One run stores its frames; the next seals that segment: compressed,
    every sample kept, the same documents replayed."""
    full_runs(tmp, daemons, t, rec, ("a",), 100, 40)
    (seg,) = segments(rec)
    flags = frame_flags(seg)
    check(stored(seg) and header(seg) == (VERSION, 1) and flags and
          all(f & 4 for f in flags), "run a's segment: header %r stored %s, frame flags %r"
          % (header(seg), stored(seg), sorted(set(flags))))
    ids = frame_ids(seg)
    before = run("replay", rec, "--json")
    check(before.stderr == "", "replay of stored frames: %s" % before.stderr)
    size = os.path.getsize(seg)
    full_runs(tmp, daemons, t, rec, ("b",), 100, 40, seal=1)
    segs = segments(rec)
    check(len(segs) == 2 and segs[0] == seg, "segments after run b: %r" % segs)
    check(not stored(seg) and header(seg) == (VERSION, 1) and
          not any(f & 4 for f in frame_flags(seg)) and frame_ids(seg) == ids,
          "run a's segment not sealed: stored %s, frame flags %r"
          % (stored(seg), sorted(set(frame_flags(seg)))))
    check(os.path.getsize(seg) < size * 0.8, "sealed %d bytes, stored %d: not smaller"
          % (os.path.getsize(seg), size))
    check(stored(segs[1]), "the segment being written was sealed")
    after = run("replay", rec, "--json")
    check(after.stderr == "" and after.stdout.startswith(before.stdout),
          "replay of the sealed segment differs from before sealing: %s" % after.stderr)


def compacting(tmp, daemons, t, rec, name, keep, segs):
    """A daemon compacting data older than 1 s to one sample in keep, once
    it has rewritten segs segments."""
    d = Daemon(tmp, root=t, interval=100, name=name,
               extra=["--core-only", "--record", rec, "--record-compact-after", "1s",
                      "--record-compact-keep", str(keep)])
    daemons.append(d)
    wait_rewrites(d, name, "compact", segs)
    return d


def part_vm(tmp, daemons, procs):
    rec = os.path.join(tmp, "rec")
    t = tree(tmp, "tree", os.path.join(FIXTURES, "live-vm", "t0"))
    with open(os.path.join(t, "proc", "uptime")) as f:
        up0 = f.read()
    procs.append(subprocess.Popen([sys.executable, ADVANCE, os.path.join(FIXTURES, "live-vm"),
                                   t, "1", "--loop", "0.1"]))
    # the tree advancing before the first sample (a loaded machine starts
    # Python slowly): samples of one uptime have no interval to check
    deadline = time.monotonic() + 30
    while True:
        with open(os.path.join(t, "proc", "uptime")) as f:
            if f.read() not in ("", up0):
                break
        check(time.monotonic() < deadline, "the tree does not advance")
        time.sleep(0.05)
    # two runs recording every sample: one segment each, the first sealed
    part_seal(tmp, daemons, t, rec)
    segs = segments(rec)
    check(len(segs) == 2, "segments: %r" % segs)
    full_ids = [frame_ids(s) for s in segs]
    before = run("replay", rec, "--json")
    check(before.stderr == "", "replay before compaction: %s" % before.stderr)
    bdocs = [json.loads(x) for x in before.stdout.splitlines()]
    check([x["sample"] for x in bdocs] == full_ids[0] + full_ids[1],
          "replay before compaction: not every recorded sample")
    by_ts = {x["timestamp_ms"]: x for x in bdocs}
    full_copy = os.path.join(tmp, "rec-full")
    shutil.copytree(rec, full_copy)

    # a third run compacts both: one sample in 5 of data older than 1 s
    time.sleep(1.2)
    d = compacting(tmp, daemons, t, rec, "c", 5, 2)
    wait_samples(d, 20)
    st = d.status()["record"]
    check(d.stop() == 0, "daemon c did not exit 0")
    procs[-1].send_signal(signal.SIGTERM)
    procs[-1].wait()
    c = st["compact"]
    check(c["keep_every"] == 5 and c["frames_in"] == sum(map(len, full_ids))
          and c["bytes_after"] < c["bytes_before"], "status compact: %r" % c)
    segs = segments(rec)
    check(len(segs) == 3 and not glob.glob(os.path.join(rec, "*.tmp")),
          "after compaction: %r" % os.listdir(rec))
    for i in range(2):
        check(header(segs[i]) == (VERSION, 5) and not stored(segs[i]),
              "%s: header %r, want version %d, keep 5, no stored frame"
              % (segs[i], header(segs[i]), VERSION))
        check_thinned(full_ids[i], frame_ids(segs[i]), 5, os.path.basename(segs[i]))
    check(header(segs[2]) == (VERSION, 1), "the current segment was compacted")

    # replay across the compacted boundary
    after = run("replay", rec, "--json")
    lines = after.stderr.splitlines()
    check(len(lines) == 2 and "compacted, one sample in 5 kept (every 0.5 s)" in lines[0]
          and "every sample (every 0.1 s)" in lines[1],
          "replay's resolution notes: %r" % after.stderr)
    docs = [json.loads(x) for x in after.stdout.splitlines()]
    n0, n1 = len(frame_ids(segs[0])), len(frame_ids(segs[1]))
    check([x["sample"] for x in docs[:n0 + n1]] == frame_ids(segs[0]) + frame_ids(segs[1]),
          "replayed samples are not the kept ones")
    for k, x in enumerate(docs[:n0 + n1]):
        b = by_ts.get(x["timestamp_ms"])
        # the same recorded counters; the interval spans the dropped samples
        check(b is not None and x["uptime_cs"] == b["uptime_cs"],
              "sample %d: not the recorded one" % x["sample"])
        if k not in (0, n0):
            want = (x["uptime_cs"] - docs[k - 1]["uptime_cs"]) * 10
            check(x.get("interval_ms") == want, "sample %d: interval %s, want %d"
                  % (x["sample"], x.get("interval_ms"), want))
    # two kept instants: the same interval's numbers from the full recording
    when = ["@%.3f" % (docs[k]["timestamp_ms"] / 1000) for k in (1, n0 - 1)]
    compute_before = run("compute", "--recording", full_copy, *when, "--json").stdout
    compute_after = run("compute", "--recording", rec, *when, "--json").stdout
    check(compute_after == compute_before and '"interval_ms"' in compute_after,
          "compute between two kept instants changed:\n%s\n%s"
          % (compute_before[:300], compute_after[:300]))
    # a stale NAME.tmp (a compaction killed before its rename) is not read
    shutil.copy(segs[2], segs[2] + ".tmp")
    with open(segs[2] + ".tmp", "r+b") as f:
        f.truncate(300)
    again = run("replay", rec, "--json")
    check(again.stdout == after.stdout and again.stderr == after.stderr,
          "a stale .tmp changed the replay: %s" % again.stderr)
    os.unlink(segs[2] + ".tmp")
    part_detached(tmp, daemons, rec, t)


def part_detached(tmp, daemons, rec, t):
    """A daemon that detaches (no --foreground) compacts too: its thread
    starts after the fork."""
    full_runs(tmp, daemons, t, rec, ("d",), 100, 10)
    full_segs = [s for s in segments(rec) if header(s)[1] == 1]
    check(len(full_segs) == 2, "full segments before the detached run: %r" % full_segs)
    time.sleep(1.2)
    sock = os.path.join(tmp, "det.sock")
    p = subprocess.run([env("IOTRIAGED"), "--socket", sock, "--root", t, "--interval", "100",
                        "--core-only", "--record", rec, "--record-compact-after", "1s",
                        "--record-compact-keep", "5"], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0, "detached daemon: exit %d: %s" % (p.returncode, p.stderr))
    pid, deadline = None, time.monotonic() + 60
    try:
        while True:
            st = None
            try:
                c = Client(sock)
                st = c.req({"cmd": "status"})
                c.close()
                pid = st["pid"]
            except (OSError, ValueError, KeyError):
                pass
            if st and st.get("record", {}).get("compact", {}).get("segments", 0) >= 2:
                break
            if time.monotonic() > deadline:
                fail("the detached daemon did not compact in 60 s: %r" % (st,))
            time.sleep(0.1)
    finally:
        if pid:
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
    for s in full_segs:
        check(header(s) == (VERSION, 5), "%s not compacted by the detached daemon" % s)


def part_v1(tmp, daemons):
    """Segments of format version 1 (an older iotriaged's) are compacted
    into the writer's version like any other."""
    rec = os.path.join(tmp, "rec-v1")
    os.mkdir(rec, 0o700)
    for src in segments(os.path.join(FIXTURES, "record-v1", "rec")):
        shutil.copy(src, rec)
        os.chmod(os.path.join(rec, os.path.basename(src)), 0o600)
    segs = segments(rec)
    full = [frame_ids(s) for s in segs]
    check([header(s)[0] for s in segs] == [1, 1], "the v1 fixture's headers: %r" % segs)
    t = tree(tmp, "tree-v1", os.path.join(FIXTURES, "live-vm", "t0"))
    d = compacting(tmp, daemons, t, rec, "v1", 3, 2)
    check(d.stop() == 0, "daemon v1 did not exit 0")
    for s, ids in zip(segs, full):
        check(header(s) == (VERSION, 3), "%s: header %r after compaction" % (s, header(s)))
        check_thinned(ids, frame_ids(s), 3, os.path.basename(s))
    r = run("replay", rec, "--json")
    check("skipped" not in r.stderr and "torn" not in r.stderr and
          "compacted, one sample in 3 kept" in r.stderr, "replay of compacted v1: %s" % r.stderr)
    got = [json.loads(x)["sample"] for x in r.stdout.splitlines()]
    check(got[:sum(len(frame_ids(s)) for s in segs)] == frame_ids(segs[0]) + frame_ids(segs[1]),
          "replay of compacted v1: samples %r" % got[:20])


def part_kill(tmp, daemons, procs):
    """kill -9 while compacting the big-256 host's segments."""
    big = os.path.join(tmp, "big")
    subprocess.run([sys.executable, os.path.join(SRCDIR, "tests", "fixtures", "make-trees.py"),
                    big, "big-256"], check=True, stdout=subprocess.DEVNULL, timeout=120)
    t = tree(tmp, "big-tree", os.path.join(big, "big-256", "t0"))
    rec = os.path.join(tmp, "rec-big")
    procs.append(subprocess.Popen([sys.executable, ADVANCE, os.path.join(big, "big-256"), t, "0",
                                   "--loop", "0.1"]))
    full_runs(tmp, daemons, t, rec, ("ba", "bb"), 100, 60)
    procs[-1].send_signal(signal.SIGTERM)
    procs[-1].wait()
    segs = segments(rec)
    full = {os.path.basename(s): frame_ids(s) for s in segs}
    time.sleep(1.2)
    # compaction starts as the daemon does (the segments are older than
    # 1 s) and takes a few hundred ms here, paced: kills from 50 ms to 0.8 s
    # after the start land before, inside and after it
    caught = 0
    for attempt in range(12):
        log = open(os.path.join(tmp, "bk%d.log" % attempt), "w")
        p = subprocess.Popen([env("IOTRIAGED"), "--foreground", "--socket",
                              os.path.join(tmp, "bk.sock"), "--root", t, "--interval", "100",
                              "--core-only", "--record", rec, "--record-compact-after", "1s",
                              "--record-compact-keep", "4"], stdout=log, stderr=log)
        time.sleep(0.05 + 0.065 * attempt)
        p.kill()
        p.wait()
        log.close()
        caught += len(glob.glob(os.path.join(rec, "*.iotr.tmp")))
        # whatever the moment: every segment whole, each sample there unless
        # its segment was compacted (the killed runs' own segments may end
        # torn: not these)
        r = run("replay", rec, "--json")
        bad = [x for x in r.stderr.splitlines() if any(n in x for n in full)]
        check(not bad, "after kill -9 #%d: %s" % (attempt, bad))
        got = [json.loads(x)["sample"] for x in r.stdout.splitlines()]
        for name, ids in full.items():
            path = os.path.join(rec, name)
            check(os.path.exists(path), "kill -9 #%d lost segment %s" % (attempt, name))
            v, keep = header(path)
            kept = frame_ids(path)
            if keep > 1:
                check_thinned(ids, kept, keep, name)
            else:
                check(kept == ids, "%s: not compacted yet lost samples" % name)
            check(all(k in got for k in kept), "kill -9 #%d: samples of %s not replayed"
                  % (attempt, name))
        # three kills inside a compaction are enough (here 11 of 12 landed
        # inside; each round's replay of the big host costs ~5 s); the
        # next start below finishes the work either way
        if caught >= 3 or (caught and all(header(os.path.join(rec, n))[1] > 1 for n in full)):
            break
    print("kill -9: %d runs, %d inside a compaction (a NAME.tmp left)" % (attempt + 1, caught))
    check(caught > 0, "no kill -9 landed inside a compaction (no NAME.tmp seen): "
          "the test did not test it")
    # the next start removes the leftovers and finishes the work
    d = Daemon(tmp, root=t, interval=200, name="bz",
               extra=["--core-only", "--record", rec, "--record-compact-after", "1s",
                      "--record-compact-keep", "4"])
    daemons.append(d)
    deadline = time.monotonic() + 120
    while not all(header(os.path.join(rec, n))[1] > 1 for n in full):
        if time.monotonic() > deadline:
            fail("compaction did not finish after the kills: %r" % d.status()["record"])
        time.sleep(0.2)
    check(d.stop() == 0, "daemon bz did not exit 0")
    check(not glob.glob(os.path.join(rec, "*.tmp")), "leftovers: %r" % os.listdir(rec))
    for name, ids in full.items():
        check_thinned(ids, frame_ids(os.path.join(rec, name)), 4, name)


def part_fixtures():
    notes = {"record-v1": "",
             "record-v2": "iotriage: replay: from sample 1: compacted, one sample in 3 kept "
                          "(every 0.3 s)\niotriage: replay: from sample 1: every sample "
                          "(every 0.1 s)\n"}
    for v in ("record-v1", "record-v2"):
        r = run("replay", os.path.join(FIXTURES, v, "rec"), "--json")
        check(r.stderr == notes[v], "%s: %r" % (v, r.stderr))
        with open(os.path.join(FIXTURES, v, "expected.json")) as f:
            want = json.load(f)
        got = [project(json.loads(x)) for x in r.stdout.splitlines()]
        check(len(got) == len(want), "%s: %d samples, want %d" % (v, len(got), len(want)))
        for g, w in zip(got, want):
            check(g == w, "%s, sample %s: %r, want %r" % (v, w["sample"], g, w))


def main():
    if os.geteuid() != 0:
        skip("the record directory must be root-owned: run as root")
    tmp = tempfile.mkdtemp(prefix="iotr-reccompact-")
    daemons, procs = [], []
    try:
        part_fixtures()
        part_vm(tmp, daemons, procs)
        part_v1(tmp, daemons)
        part_kill(tmp, daemons, procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        cleanup(daemons)
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
