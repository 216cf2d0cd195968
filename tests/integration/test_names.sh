#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names that become paths (issue 24, R2; doc/security.md): a disk named
# "../../../../tmp/X/pwn" in a recorded tree (queue/iostats 0; a full
# queue; a saturated disk without a scheduler) and in a recording replayed
# gets no command and no write path with its name, in suggest (text and
# --json), compute --json and replay --json; a real cciss/c0d0 gets
# sysfs's path /sys/block/cciss!c0d0/queue/... as the kernel names it.
set -u
[ -n "${IOTRIAGE:-}" ] && [ -n "${MAKE_RECORDING:-}" ] || { echo "SKIP: run through meson test"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$IOTRIAGE" "$MAKE_RECORDING" "$FIXTURES/advise" "$tmp" <<'PY'
import json, os, shutil, struct, subprocess, sys
exe, make_rec, A, tmp = sys.argv[1:]
EVIL = "../../../../tmp/X/pwn"

def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

def iotriage(*args):
    p = subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout

def rename(scenario, disk, name, out):
    """a copy of the scenario's trees whose DISK is NAME in /proc/diskstats
    and NAME with '!' for '/' under /sys/block"""
    for t in ("t0", "t1"):
        tree = os.path.join(out, t)
        shutil.copytree(os.path.join(A, scenario, t), tree, symlinks=True)
        p = os.path.join(tree, "proc/diskstats")
        lines = []
        for l in open(p).read().splitlines(True):
            f = l.split()
            if len(f) > 2 and f[2] == disk:
                l = l.replace(" %s " % disk, " %s " % name, 1)
            lines.append(l)
        open(p, "w").write("".join(lines))
        os.rename(os.path.join(tree, "sys/block", disk),
                  os.path.join(tree, "sys/block", name.replace("/", "!")))

def commands(text):
    """every command, undo and write path of the JSON documents in text"""
    try:
        docs = [json.loads(text)]
    except ValueError:
        docs = [json.loads(l) for l in text.splitlines() if l.strip()]
    cmds = []
    for d in docs:
        for s in d.get("suggestions") or []:
            cmds += s["commands"] + s["undo"] + [w["path"] for w in s["writes"]]
            if "pwn" in s["id"]:
                fail("a suggestion for the name: %r" % s)
    return cmds

def clean(what, cmds):
    bad = [c for c in cmds if "pwn" in c or "/tmp/X" in c or ".." in c]
    if bad:
        fail("%s: commands with the name: %r" % (what, bad))

# 1. queue/iostats 0 (the issue's case), a full queue (nr_requests), a
# saturated rotational disk with scheduler none
for scenario, disk, file in (("iostats-off", "sdd", "iostats"),
                             ("ssd-queue-full", "sde", "nr_requests"),
                             ("disk-saturated", "sdb", "scheduler")):
    ev = os.path.join(tmp, "evil-" + scenario)
    rename(scenario, disk, EVIL, ev)
    clean(scenario + " suggest --json", commands(iotriage("suggest", ev + "/t0", ev + "/t1", "--json")))
    clean(scenario + " compute --json", commands(iotriage("compute", ev + "/t0", ev + "/t1", "--json")))
    text = iotriage("suggest", ev + "/t0", ev + "/t1")
    if "/tmp/X" in text:
        fail("%s: suggest printed a path with the name: %s" % (scenario, text))
    # a real cciss/c0d0: sysfs's name in the path
    cc = os.path.join(tmp, "cciss-" + scenario)
    rename(scenario, disk, "cciss/c0d0", cc)
    want = "/sys/block/cciss!c0d0/queue/" + file
    for cmd in ("suggest", "compute"):
        cmds = commands(iotriage(cmd, cc + "/t0", cc + "/t1", "--json"))
        if want not in cmds or ("echo 1 > '%s'" % want not in cmds and file == "iostats"):
            fail("%s %s: no %s in %r" % (scenario, cmd, want, cmds))

# 2. a recording whose disk has that name and queue/iostats 0 (the
# /sys/block facts record, tag 6): replay --json recomputes the findings
def rec(tag, data):
    return struct.pack("<HHiI", tag, 0, 0, len(data)) + data

def payload(t, name, out):
    tree = os.path.join(A, "iostats-off", t)
    f = lambda rel: open(os.path.join(tree, rel), "rb").read()
    disk = f("proc/diskstats").replace(b" sdd ", b" %s " % name.encode())
    sysblock = b"8\t48\t1\t0\t\t\n8\t0\t1\t1\t\t\n"
    open(out, "wb").write(rec(1, f("proc/uptime")) + rec(2, f("proc/stat")) + rec(3, disk) +
                          rec(4, f("proc/interrupts")) + rec(5, f("proc/softirqs")) +
                          rec(6, sysblock))

for who, name in (("evil", EVIL), ("cciss", "cciss/c0d0")):
    ps = []
    # three samples: a finding is shown once it stood two intervals
    # (doc/advise.md "Stable"), in replay as live
    for i, t in enumerate(("t0", "t1", "t1")):
        ps.append(os.path.join(tmp, "%s.%s.%d" % (who, t, i)))
        payload(t, name, ps[-1])
    # the topology recorded with each sample, as iotriaged does (a sample
    # recorded without one had no advice, and replays without)
    subprocess.run([make_rec, "-t", os.path.join(A, "iostats-off", "t1"),
                    os.path.join(tmp, "rec-" + who)] + ps, check=True)
    out = iotriage("replay", os.path.join(tmp, "rec-" + who), "--from", "@0", "--json")
    if '"iostats-off-' not in out:
        fail("%s: replay found no frozen counters: %s" % (who, out))
    cmds = commands(out)
    if who == "evil":
        clean("replay --json", cmds)
    elif "echo 1 > '/sys/block/cciss!c0d0/queue/iostats'" not in cmds:
        fail("replay: cciss: %r" % cmds)
print("ok")
PY
