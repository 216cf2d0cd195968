#!/usr/bin/env python3
"""Second oracle: sysstat's own recorded hosts (tests/fixtures/sysstat/rootN).

For each genuine pair (BEFORE, AFTER) of sysstat's test roots, Debian's real
iostat and mpstat take their two samples from the two trees, and every value
they print is compared with `iotriage compute BEFORE AFTER --json --all`
after rounding to two decimals. Unlike oracle.py (one "since boot" report on
a difference tree), this runs sysstat's own two-sample code, so its edge
rules (a new disk, iowait going backwards, a CPU that went offline and came
back, the `all` interval) are the real ones.

How sysstat reads the trees: inside a private mount namespace (unshare -m)
/proc/{stat,interrupts,softirqs,uptime,diskstats} are bind mounts of files in
a staging directory, and tmpfs is mounted over /sys/block (one <dev>/stat per
diskstats line, as iostat reads them) and /sys/devices/system/cpu (cpuN up to
the highest CPU of the pair, as mpstat counts them). The tools run with
LD_PRELOAD=oracle_pause.so: their one pause() between samples rewrites the
staging files in place with AFTER, so the first read sees BEFORE, the second
AFTER (`iostat 1 2`: a since-boot report, then the pair; `mpstat 1 1`: the
pair only).

Every value that differs must be explained by one of the named deliberate
differences (doc/metrics.md, "Where iotriage deliberately differs"), each
detected from the raw counters of the pair; any other difference fails.

Usage: sysstat_roots.py IOTRIAGE SHIM.so ROOTSDIR  -> 0 equal or explained,
1 unexplained difference, 77 when unshare/mount is refused.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

# root5 -> root6 is a reboot (every counter restarts): not a pair.
PAIRS = [("root1", "root2"), ("root2", "root3"), ("root3", "root4"), ("root4", "root5"),
         ("root6", "root7")]
PROC_FILES = ("stat", "interrupts", "softirqs", "uptime", "diskstats")


def read(path):
    with open(path, encoding="ascii") as f:
        return f.read()


def diskstats(tree):
    devs = {}
    for line in read(os.path.join(tree, "proc/diskstats")).splitlines():
        f = line.split()
        if len(f) >= 14:
            devs[f[2]] = [int(x) for x in f[3:]]
    return devs


def cpu_lines(tree):
    cpus = {}
    for line in read(os.path.join(tree, "proc/stat")).splitlines():
        f = line.split()
        if f and f[0].startswith("cpu") and f[0] != "cpu":
            v = [int(x) for x in f[1:]] + [0] * 10
            cpus[f[0][3:]] = v[:10]
    return cpus


def stage(tree, dst):
    """The shell commands that put TREE's files in place (inodes kept)."""
    cmds = []
    for f in PROC_FILES:
        cmds.append(f'cat "{tree}/proc/{f}" > "{dst}/proc/{f}"')
    cmds.append("rm -rf /sys/block/*")
    for name, v in diskstats(tree).items():
        sname = name.replace("/", "!")
        cmds.append(f'mkdir -p "/sys/block/{sname}"')
        cmds.append(f'echo "{" ".join(str(x) for x in v)}" > "/sys/block/{sname}/stat"')
    return "set -e\n" + "\n".join(cmds) + "\n"


TOOLS = {
    "iostat": ["iostat", "-x", "-o", "JSON", "1", "2"],
    "mpstat-u": ["mpstat", "-u", "-P", "ALL", "-o", "JSON", "1", "1"],
    "mpstat-sum": ["mpstat", "-I", "SUM", "-P", "ALL", "-o", "JSON", "1", "1"],
    "mpstat-cpu": ["mpstat", "-I", "CPU", "-P", "ALL", "-o", "JSON", "1", "1"],
    "mpstat-scpu": ["mpstat", "-I", "SCPU", "-P", "ALL", "-o", "JSON", "1", "1"],
}


def run_sysstat(shim, before, after, tmp):
    os.makedirs(os.path.join(tmp, "proc"))
    for f in PROC_FILES:
        open(os.path.join(tmp, "proc", f), "w").close()
    with open(os.path.join(tmp, "before.sh"), "w") as f:
        f.write(stage(before, tmp))
    with open(os.path.join(tmp, "after.sh"), "w") as f:
        f.write(stage(after, tmp))
    ncpu = 1 + max(int(c) for c in list(cpu_lines(before)) + list(cpu_lines(after)))
    lines = ["set -e", "mount -t tmpfs none /sys/block",
             "mount -t tmpfs none /sys/devices/system/cpu"]
    lines += [f"mkdir /sys/devices/system/cpu/cpu{i}" for i in range(ncpu)]
    lines.append(f'echo "0-{ncpu - 1}" > /sys/devices/system/cpu/online')
    for f in PROC_FILES:
        lines.append(f'mount --bind "{tmp}/proc/{f}" /proc/{f}')
    lines.append("export LC_ALL=C S_TIME_FORMAT=ISO")
    for name, argv in TOOLS.items():
        lines.append(f'sh "{tmp}/before.sh"')
        lines.append(f'IOTR_ORACLE_SWITCH="sh {tmp}/after.sh" LD_PRELOAD="{shim}" '
                     f'{" ".join(argv)} > "{tmp}/{name}.json"')
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                        "\n".join(lines)], capture_output=True, text=True)
    if p.returncode != 0:
        return p.stderr.strip() or f"exit {p.returncode}"
    return None


def second(tmp, name):
    """The report over the pair: iostat's first report covers the time since
    boot, mpstat with an interval prints only interval reports."""
    doc = json.loads(read(os.path.join(tmp, name + ".json")))
    st = doc["sysstat"]["hosts"][0]["statistics"]
    want = 2 if name == "iostat" else 1
    assert len(st) == want, f"{name}: {len(st)} reports"
    return st[-1]


def r2(x):
    return round(float(x) + 0.0, 2)


class Pair:
    """The raw facts of one pair that the deliberate differences depend on."""

    def __init__(self, before, after):
        self.bd, self.ad = diskstats(before), diskstats(after)
        self.bc, self.ac = cpu_lines(before), cpu_lines(after)

    def disk_all_fell(self, name):
        b, a = self.bd.get(name), self.ad.get(name)
        if not b or not a:
            return False
        ios = lambda v: v[0] + v[4] + (v[11] if len(v) > 11 else 0) + (v[15] if len(v) > 15 else 0)
        fell = lambda i: i >= len(b) or i >= len(a) or not b[i] or a[i] < b[i]
        return ios(a) < ios(b) and fell(2) and fell(6) and fell(13)

    def disk_counter_fell(self, name):
        b, a = self.bd.get(name), self.ad.get(name)
        return bool(b and a) and any(y < x for i, (x, y) in enumerate(zip(b, a)) if i != 8)

    def disk_keys_absent(self, name, key):
        b, a = self.bd.get(name), self.ad.get(name)
        if not a:
            return False
        n = min(len(a), len(b)) if b else len(a)
        if key.startswith("d") and key != "disk_device":
            return n < 15
        if key.startswith("f"):
            return n < 17
        return False

    def cpu_offline_online(self, cpu):
        b, a = self.bc.get(cpu), self.ac.get(cpu)
        if not b or not a:
            return False
        glitch = a[4] < b[4] and a[3] > b[3]  # iowait back, idle on: stays online
        return any(y < x for i, (x, y) in enumerate(zip(b, a)) if not (i == 4 and glitch))

    def any_cpu_offline_online(self):
        return any(self.cpu_offline_online(c) for c in self.ac)

    def cpu_tickless(self, cpu):
        b, a = self.bc.get(cpu), self.ac.get(cpu)
        return bool(b and a) and sum(a[:8]) == sum(b[:8]) and a == b


def compare(iotriage, before, after, tmp, shim):
    err = run_sysstat(shim, before, after, tmp)
    if err:
        return None, err
    p = subprocess.run([iotriage, "compute", before, after, "--json", "--all"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return [("unexplained", f"iotriage compute failed: {p.stderr.strip()}")], None
    ours = json.loads(p.stdout)
    facts = Pair(before, after)
    out = []  # (difference name or "unexplained", text)
    checked = [0]

    def cmp(what, theirs, mine, why):
        checked[0] += 1
        if mine is not None and r2(theirs) == r2(mine):
            return
        text = f"{what}: sysstat {theirs} iotriage {mine}"
        out.append((why() or "unexplained", text))

    # iostat -x: every device it lists
    mine = {d["disk_device"]: d for d in ours["disks"]}
    for d in second(tmp, "iostat")["disk"]:
        name = d["disk_device"]
        m = mine.get(name, {})
        for k, v in d.items():
            if k == "disk_device":
                continue

            def why(name=name, k=k, m=m):
                if m.get("valid") is False and facts.disk_all_fell(name):
                    return "disk-all-fell"
                if m.get("valid") is False and facts.disk_counter_fell(name):
                    return "disk-counter-fell"
                if m.get("valid") and k not in m and facts.disk_keys_absent(name, k):
                    return "disk-keys-absent"
                return None
            cmp(f"iostat {name} {k}", v, m.get(k) if m.get("valid") else None, why)
    # mpstat -u
    mine_cpu = {c["cpu"]: c for c in ours["cpu-load"]}
    for c in second(tmp, "mpstat-u")["cpu-load"]:
        cpu = c["cpu"]
        m = mine_cpu.get(cpu, {})
        for k, v in c.items():
            if k == "cpu":
                continue

            def why(cpu=cpu):
                if cpu == "all":
                    return "cpu-offline-online" if facts.any_cpu_offline_online() else None
                return "cpu-offline-online" if facts.cpu_offline_online(cpu) else None
            cmp(f"mpstat -u cpu {cpu} {k}", v, m.get(k) if m.get("valid") else None, why)
    # mpstat -I SUM
    for c in second(tmp, "mpstat-sum")["sum-interrupts"]:
        cpu = c["cpu"]
        m = ours.get("intr/s") if cpu == "all" else mine_cpu.get(cpu, {}).get("intr/s")

        def why(cpu=cpu):
            if cpu == "all":
                return None
            if facts.cpu_tickless(cpu):
                return "cpu-tickless-intr"
            return None
        cmp(f"mpstat -I SUM cpu {cpu}", c["intr"], m, why)
    # mpstat -I CPU / SCPU: per line per CPU (absent from our sparse map = 0)
    for fname, key, ourkey in (("mpstat-cpu", "individual-interrupts", "interrupts"),
                               ("mpstat-scpu", "soft-interrupts", "softirqs")):
        rows = {r["name"]: r for r in ours.get(ourkey, [])}
        for c in second(tmp, fname)[key]:
            cpu = c["cpu"]
            for it in c["intr"]:
                row = rows.get(it["name"])
                m = None
                if row is not None and row.get("valid", True):
                    m = row.get("cpus", {}).get(cpu, 0.0)
                elif row is None and ourkey == "interrupts":
                    m = 0.0  # idle lines are left out of our document

                cmp(f"mpstat {key} {it['name']} cpu {cpu}", it["value"], m, lambda: None)
    return out, checked[0]


def main(iotriage, shim, roots):
    if shutil.which("iostat") is None or shutil.which("mpstat") is None:
        print("SKIP: sysstat (iostat, mpstat) not installed")
        return 77
    rc = 0
    seen = {}
    for b, a in PAIRS:
        before, after = os.path.join(roots, b), os.path.join(roots, a)
        tmp = tempfile.mkdtemp(prefix="iotriage-sysstat-roots.")
        try:
            out, checked = compare(iotriage, before, after, tmp, shim)
            if out is None:
                print(f"SKIP: cannot run sysstat in a private mount namespace: {checked}")
                return 77
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        names = {}
        for name, text in out:
            names.setdefault(name, []).append(text)
            seen.setdefault(name, set()).add(f"{b}->{a}")
        bad = names.pop("unexplained", [])
        print(f"{b} -> {a}: {checked} values compared, {len(out)} differ: "
              + (", ".join(f"{n} {len(v)}" for n, v in sorted(names.items())) or "none")
              + (f", UNEXPLAINED {len(bad)}" if bad else ""))
        for t in bad[:40]:
            print("  MISMATCH", t)
        for n, v in sorted(names.items()):
            print(f"  deliberate {n}: {v[0]}")
        if bad or checked == 0:
            rc = 1
    for n, pairs in sorted(seen.items()):
        print(f"{n}: {', '.join(sorted(pairs))}")
    return rc


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
