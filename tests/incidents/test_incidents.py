#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Real incidents on this machine, with a known cause (issue 22, 23).

Each makes the trouble for real, then asks what an on-call engineer asks of
the first screen: is the first finding true, is its culprit named, and is
there no false alarm? Through a real iotriaged on a private socket (1 s, as
users run it) and the live view at 80x24 in tmux.

1. disk: a neighbour's fio writes 1 MiB direct IO to the disk under this
   checkout, behind four idle loop devices (over files in /dev/shm): the
   headline is that disk, saturated, critical, fio named as the culprit; no
   hot core, nothing about the loop devices; the live view opened during
   the incident says so on its first screen (seconds to the headline are
   printed: doc/PERFORMANCE.md).
2. cpu: four CPU burners under nice on this 2-CPU machine: cpu_saturated,
   its split saying %nice, the burners named; not "OK".
3. postgres: PostgreSQL from Debian's packages (a cluster of the test's
   own, cluster_name 15/main) under pgbench with a checkpoint every 2 s:
   the processes doing IO are named by their command line, the
   checkpointer among them ("postgres: 15/main: checkpointer"), not all
   "postgres". Skipped with a note where PostgreSQL is not installed.
4. quiet: once the load is gone, no critical finding and no hot core.

Needs root (loop devices), fio and tmux; exits 77 otherwise.
"""
import glob
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("SRCDIR", "."), "tests", "integration"))
from daemon_lib import Daemon, check, cleanup, fail, skip  # noqa: E402

IOTRIAGE = os.environ.get("IOTRIAGE", "")
WAIT = 60.0  # seconds, an upper bound only


def sample(d):
    c = d.client()
    try:
        r = c.req({"cmd": "snapshot"})
    finally:
        c.close()
    return r.get("sample", {}) if r.get("ok") else {}


def wait_doc(d, what, pred, timeout=WAIT):
    deadline = time.monotonic() + timeout
    last = {}
    while time.monotonic() < deadline:
        last = sample(d)
        if last.get("findings") is not None and pred(last):
            return last
        time.sleep(0.3)
    fail("%s: never seen; last findings: %s" % (
        what, json.dumps(last.get("findings"))[:1500]))


def disk_of(path):
    """The whole disk under path's filesystem: 'vda' for /dev/vda1 or /dev/vda."""
    st = os.stat(path)
    dev = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    real = os.path.realpath("/sys/dev/block/" + dev)
    if not os.path.exists(real):
        return None
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    return os.path.basename(real)


class Screen:
    """The live view in a tmux session of its own, 80x24."""

    def __init__(self, tmp, args):
        self.sock = os.path.join(tmp, "tmux.sock")
        self.t = ["tmux", "-S", self.sock]
        subprocess.run(self.t + ["new-session", "-d", "-s", "v", "-x", "80", "-y", "24",
                                 "env TERM=xterm-256color " + " ".join(args) + "; sleep 60"],
                       check=True)

    def text(self):
        return subprocess.run(self.t + ["capture-pane", "-p", "-t", "v"],
                              capture_output=True, text=True).stdout

    def wait(self, pred, timeout=WAIT):
        deadline = time.monotonic() + timeout
        s = ""
        while time.monotonic() < deadline:
            s = self.text()
            if pred(s):
                return s
            time.sleep(0.1)
        fail("the live view never showed it; screen:\n" + s)

    def keys(self, *k):
        subprocess.run(self.t + ["send-keys", "-t", "v"] + list(k), check=True)

    def close(self):
        subprocess.run(self.t + ["kill-server"], capture_output=True)


def as_postgres(args, **kw):
    return subprocess.run(["runuser", "-u", "postgres", "--"] + args, **kw)


def postgres_incident(d):
    """pgbench and checkpoints: the checkpointer named among the IO rows."""
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        bins = []
    if not bins or not shutil.which("runuser"):
        print("note: postgres: PostgreSQL (or runuser) not installed: not run")
        return
    b = os.path.dirname(bins[-1])
    pw = pwd.getpwnam("postgres")
    base = tempfile.mkdtemp(prefix="iot-incident-pg-", dir="/var/tmp")
    os.chown(base, pw.pw_uid, pw.pw_gid)
    data = os.path.join(base, "data")
    port = str(20000 + os.getpid() % 20000)
    conn = ["-h", base, "-p", port, "-U", "postgres", "postgres"]
    started = False
    load = []
    try:
        r = as_postgres([b + "/initdb", "-D", data, "-A", "trust", "-U", "postgres",
                         "--no-sync"], capture_output=True, text=True)
        check(r.returncode == 0, "postgres: initdb: %s" % r.stderr[-500:])
        opts = ("-k %s -p %s -c listen_addresses='' -c cluster_name=15/main "
                "-c shared_buffers=64MB -c max_wal_size=64MB -c checkpoint_timeout=30s"
                % (base, port))
        r = as_postgres([b + "/pg_ctl", "-D", data, "-o", opts, "-l",
                         os.path.join(base, "log"), "-w", "start"],
                        capture_output=True, text=True)
        check(r.returncode == 0, "postgres: start: %s" % r.stderr[-500:])
        started = True
        r = as_postgres([b + "/pgbench", "-i", "-s", "10", "-q"] + conn, capture_output=True,
                        text=True)
        check(r.returncode == 0, "postgres: pgbench -i: %s" % r.stderr[-500:])
        load.append(subprocess.Popen(
            ["runuser", "-u", "postgres", "--", b + "/pgbench", "-c", "4", "-j", "2", "-T",
             "60"] + conn, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        load.append(subprocess.Popen(
            ["runuser", "-u", "postgres", "--", "sh", "-c",
             "while :; do %s/psql -qXc CHECKPOINT %s >/dev/null 2>&1; sleep 2; done"
             % (b, " ".join(conn))], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        seen = {}
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline and "checkpointer" not in seen:
            doc = sample(d)
            for row in (doc.get("processes") or {}).get("top_io", []):
                cmd = row.get("cmdline", "")
                if cmd.startswith("postgres: 15/main: "):
                    seen[cmd.split(": ", 2)[2].split()[0]] = cmd
            time.sleep(0.5)
        check("checkpointer" in seen, "postgres: the checkpointer never named in the "
              "processes doing IO; seen %r" % sorted(seen))
        print("ok: postgres: named in the IO rows: %s" % ", ".join(sorted(seen.values())))
    finally:
        for p in load:
            p.terminate()
        for p in load:
            p.wait()
        if started:
            as_postgres([b + "/pg_ctl", "-D", data, "-m", "immediate", "stop"],
                        capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def main():
    if os.geteuid() != 0:
        skip("needs root (loop devices, the daemon reading every process)")
    for tool in ("fio", "tmux", "losetup"):
        if not shutil.which(tool):
            skip("%s not installed" % tool)
    tmp = tempfile.mkdtemp(prefix="iot-incident-", dir=os.environ.get("BUILDDIR"))
    shm = tempfile.mkdtemp(prefix="iot-incident-", dir="/dev/shm")
    loops, procs, daemons, screens = [], [], [], []
    try:
        disk = disk_of(tmp)
        if not disk or disk.startswith(("loop", "zram", "ram")):
            skip("the checkout is on %s, not a disk of its own" % disk)
        for i in range(4):
            f = os.path.join(shm, "idle%d.img" % i)
            with open(f, "wb") as fh:
                fh.truncate(16 << 20)
            r = subprocess.run(["losetup", "--find", "--show", f], capture_output=True,
                               text=True)
            if r.returncode != 0:
                skip("losetup refused: %s" % r.stderr.strip())
            loops.append(r.stdout.strip())
        d = Daemon(tmp, interval=1000, name="inc")
        daemons.append(d)

        # ---- 1. a neighbour saturates the disk under the checkout ----
        fio = subprocess.Popen(
            ["fio", "--name=neighbour", "--filename=" + os.path.join(tmp, "fio.dat"),
             "--size=1G", "--rw=write", "--bs=1M", "--direct=1", "--ioengine=libaio",
             "--iodepth=32", "--time_based", "--runtime=90"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(fio)
        want = "disk-saturated-" + disk
        doc = wait_doc(d, "disk: %s as the headline" % want,
                       lambda x: x["findings"] and x["findings"][0]["id"] == want)
        f = doc["findings"][0]
        check(f["severity"] == "critical" and f["rank"] == 1,
              "disk: the saturated disk is not a critical headline: %r" % f)
        check("fio" in f["culprit"], "disk: fio not named: %r" % f["culprit"])
        check(f["who"].startswith("fio pid "), "disk: who is not fio: %r" % f["who"])
        for x in doc["findings"]:
            check(not x["subject"].startswith("loop"), "disk: a finding on a loop device %r" % x)
            check(x["kind"] != "hot_cpu" or x["severity"] != "critical",
                  "disk: a critical hot core beside the saturated disk: %r" % x)
        print("ok: disk: %s: %s; culprit: %s" % (f["id"], f["reason"], f["culprit"][:200]))
        # the live view opened now, embedded as scripts/run opens it: its
        # first screen says so with no key pressed
        t0 = time.monotonic()
        s = Screen(tmp, [IOTRIAGE, "--embedded"])
        screens.append(s)
        scr = s.wait(lambda x: any(disk in line and "CRIT" in line
                                   for line in x.splitlines()[:3]))
        took = time.monotonic() - t0
        check(any(line.startswith(disk + " ") for line in scr.splitlines()),
              "disk: %s's row is not on the 80x24 screen:\n%s" % (disk, scr))
        head = [line for line in scr.splitlines()[:3] if disk in line and "CRIT" in line][0]
        check("fio pid " in head, "disk: the headline does not name fio: %r" % head)
        # the fix key: the finding, who (each process whole) before why
        s.keys("a")
        scr = s.wait(lambda x: "Culprit:" in x)
        lines = scr.splitlines()
        at = lines.index("Culprit:")
        check(lines[at + 1].startswith("  pid ") and "fio" in lines[at + 1],
              "disk: the findings panel's culprit is not fio:\n%s" % scr)
        print("ok: disk: the live view's headline after %.1f s (goal <= 3 s at 1 Hz)" % took)
        s.close()
        screens.remove(s)
        fio.terminate()
        fio.wait()
        procs.remove(fio)
        wait_doc(d, "disk: the finding clears", lambda x: not any(
            y["kind"] == "disk_saturated" for y in x["findings"]))

        # ---- 2. CPU burners under nice ----
        for _ in range(4):
            procs.append(subprocess.Popen(["nice", "-n", "19", sys.executable, "-c",
                                           "while True: pass", "iotriage-burner"]))
        doc = wait_doc(d, "cpu: cpu_saturated", lambda x: any(
            y["kind"] == "cpu_saturated" for y in x["findings"]))
        f = [y for y in doc["findings"] if y["kind"] == "cpu_saturated"][0]
        check("%nice" in f["reason"], "cpu: the split lacks %%nice: %r" % f["reason"])
        check("iotriage-burner" in f["culprit"], "cpu: the burners not named: %r" % f["culprit"])
        print("ok: cpu: %s [%s]: %s; culprit: %s" % (f["id"], f["severity"], f["reason"],
                                                     f["culprit"][:200]))
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait()
        procs.clear()

        # ---- 3. PostgreSQL under pgbench with checkpoints ----
        postgres_incident(d)

        # ---- 4. quiet again ----
        doc = wait_doc(d, "quiet: no cpu_saturated", lambda x: not any(
            y["kind"] == "cpu_saturated" for y in x["findings"]))
        for x in doc["findings"]:
            check(x["severity"] != "critical" and x["kind"] != "hot_cpu",
                  "quiet: %r" % x)
        print("ok: quiet: %d findings, none critical, no hot core" % len(doc["findings"]))
    finally:
        for s in screens:
            s.close()
        for p in procs:
            p.kill()
            p.wait()
        cleanup(daemons)
        for lo in loops:
            subprocess.run(["losetup", "-d", lo], capture_output=True)
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
