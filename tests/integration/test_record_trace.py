#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The flight recorder records the tracing stage (doc/recording.md, tag 17),
as root on the live kernel: iotriaged --trace --record while fio reads a
loop device over a file in /dev/shm; every sample's "trace" section the
daemon served (its history reply, its own ring) is the one
`iotriage replay --json` makes of the recording (and so is every other
section, the advice included), and so is `replay --at` of one sample; the
loop device's latencies are in it.
Skips (77) without root, BTF, fio or losetup, or when BPF is refused.
Every loop device, file and process started is removed.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Daemon, check, cleanup, env, fail, skip  # noqa: E402
from test_record import fixture_replays, history_docs, project2, run, wait_samples  # noqa: E402

SAMPLES = 16  # rated samples with the loop device's IOs in them


def stop(p):
    """Kills fio's process group (gone already when its runtime ended)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def loaded(doc, dev):
    """The loop device's completed IOs in a document's trace section."""
    t = doc.get("trace", {})
    return sum(d["completed"] for d in t.get("disks", []) if d["disk"] == dev)


def project3(d):
    """What tests/fixtures/record-v6/expected.json keeps of a document:
    project2's, and the trace section's probes, interval, softirq and
    hardirq time of all CPUs and each disk's completed IOs and read p99."""
    e = project2(d)
    t = d.get("trace")
    if t and t.get("available"):
        cpus = t.get("cpus", [])
        e["trace"] = [
            sorted(k for k, p in t["probes"].items() if p["on"]), t.get("interval_ms"),
            round(sum(sum(c.get("soft_us_s", {}).values()) for c in cpus), 2),
            round(sum(c.get("hard_us_s", 0) for c in cpus), 2),
            [[x["disk"], x["completed"],
              x["lat"].get("read", {}).get("device", {}).get("p99_us")]
             for x in t.get("disks", [])]]
    else:
        e["trace"] = t
    return e


def main():
    # the committed version-6 recording (a daemon with --trace), read
    # forever: no root needed to replay it
    fixture_replays("record-v6", project3)
    if os.geteuid() != 0:
        skip("--trace and the record directory want root")
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        skip("no kernel BTF (/sys/kernel/btf/vmlinux)")
    for tool in ("fio", "losetup"):
        if not shutil.which(tool):
            skip("%s not installed" % tool)
    tmp = tempfile.mkdtemp(prefix="iotr-rectrace-")
    shm = tempfile.mkdtemp(prefix="iotr-rectrace-", dir="/dev/shm")
    daemons, loop, fio = [], None, None
    try:
        img = os.path.join(shm, "disk.img")
        with open(img, "wb") as f:
            f.truncate(64 << 20)
        p = subprocess.run(["losetup", "-f", "--show", img], capture_output=True, text=True)
        if p.returncode != 0:
            skip("losetup: %s" % p.stderr.strip())
        loop = p.stdout.strip()
        dev = os.path.basename(loop)
        rec = os.path.join(tmp, "rec")
        d = Daemon(tmp, interval=250, name="trace",
                   # no budget: on a loaded machine the block probe may pass 2 %
                   # of a CPU and go off, and the test wants its histograms
                   extra=["--trace", "--trace-budget", "0", "--history", "600",
                          "--record", rec])
        daemons.append(d)
        first = json.loads(history_docs(d)[1][-1])
        t = first.get("trace", {})
        if not t.get("available", False):
            skip("tracing unavailable: %s" % t.get("reason"))
        check(all(p["on"] for p in t["probes"].values()), "a probe is off: %r" % t["probes"])
        # a bounded load: direct reads at a fixed rate, a thread of one
        # process killed with its group
        fio = subprocess.Popen(
            ["fio", "--name=rt", "--filename=" + loop, "--rw=randread", "--bs=4k",
             "--direct=1", "--ioengine=psync", "--rate_iops=2000", "--time_based",
             "--runtime=45", "--thread", "--output=/dev/null"], start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 40
        while True:
            n = d.status()["samples"]
            docs = [json.loads(x) for x in history_docs(d)[1]]
            if sum(1 for x in docs if loaded(x, dev) > 0) >= SAMPLES:
                break
            check(fio.poll() is None, "fio exited early: %s" % fio.returncode)
            if time.monotonic() > deadline:
                fail("fewer than %d samples with %s's IOs in 40 s; the last: %s"
                     % (SAMPLES, dev, json.dumps(docs[-1].get("trace"))[:800]))
            wait_samples(d, n + 4)
        stop(fio)
        fio = None
        head, live = history_docs(d)
        check(head.get("recorded", 0) == 0, "the history reply reached into the recording")
        check(d.stop() == 0, "iotriaged --trace --record did not exit 0")
        live = [json.loads(x) for x in live]
        rated = [x for x in live if "interval_ms" in x.get("trace", {})]
        check(len(rated) >= SAMPLES, "%d samples with a rated trace section" % len(rated))
        r = run("replay", rec, "--json")
        check(r.stderr == "", "replay complained: %s" % r.stderr)
        replayed = {}
        for line in r.stdout.splitlines():
            doc = json.loads(line)
            replayed[doc["sample"]] = doc
        for doc in live:
            got = replayed.get(doc["sample"])
            check(got is not None, "sample %d not in the replay" % doc["sample"])
            check(got.get("trace") == doc["trace"],
                  "sample %d: the replay's trace section differs: live %s, replayed %s"
                  % (doc["sample"], json.dumps(doc["trace"])[:800],
                     json.dumps(got.get("trace"))[:800]))
            # and every other section, the advice too (it may use the
            # trace's numbers: then only as the daemon had them)
            diff = sorted(k for k in set(doc) | set(got) if doc.get(k) != got.get(k))
            check(not diff, "sample %d: sections %s differ in the replay: live %s, replayed %s"
                  % (doc["sample"], diff, json.dumps({k: doc.get(k) for k in diff})[:600],
                     json.dumps({k: got.get(k) for k in diff})[:600]))
        busy = [x for x in rated if loaded(x, dev) > 0]
        one = busy[len(busy) // 2]
        lat = next(x for x in one["trace"]["disks"] if x["disk"] == dev)["lat"]
        check("read" in lat and lat["read"]["device"]["p99_us"] > 0,
              "%s: no read latency in sample %d: %r" % (dev, one["sample"], lat))
        at = run("replay", rec, "--at", "@%.3f" % (one["timestamp_ms"] / 1000), "--json")
        got = json.loads(at.stdout.splitlines()[0])
        check(got["sample"] == one["sample"] and got.get("trace") == one["trace"],
              "replay --at sample %d: sample %s, trace %s" % (
                  one["sample"], got["sample"], json.dumps(got.get("trace"))[:400]))
        print("%d samples, %d with %s's reads: every trace section the same in the replay "
              "(read p99 %.0f us in sample %d)"
              % (len(live), len(busy), dev, lat["read"]["device"]["p99_us"], one["sample"]))
    finally:
        # the daemon and the loop device go whatever failed before
        cleanup(daemons)
        if fio:
            stop(fio)
        if loop:
            subprocess.run(["losetup", "-d", loop])
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
