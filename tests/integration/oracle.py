#!/usr/bin/env python3
"""Oracle: our `iotriage compute BEFORE AFTER` against Debian's real sysstat.

sysstat's first report covers "since boot": counters divided by the uptime.
So for a pair (BEFORE, AFTER) we build a DELTA host whose counters are
AFTER - BEFORE and whose uptime is the interval; sysstat's first report on
DELTA must equal our compute of the pair. sysstat reads /sys/block/*/stat,
/proc/{stat,interrupts,softirqs,uptime} and counts CPUs in
/sys/devices/system/cpu, so DELTA is mounted over those paths inside a
private mount namespace (unshare -m). Every key both tools print is
compared after rounding to two decimals (both print %.2f).

Usage: oracle.py IOTRIAGE BEFORE AFTER   -> exit 0 equal, 1 different,
77 when unshare/mount is refused (printed reason).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def read(path):
    with open(path, encoding="ascii") as f:
        return f.read()


def diskstats(tree):
    devs = {}
    for line in read(os.path.join(tree, "proc/diskstats")).splitlines():
        f = line.split()
        if len(f) >= 14:
            devs[(f[0], f[1])] = (f[2], [int(x) for x in f[3:]])
    return devs


def irq_table(text):
    lines = [l for l in text.splitlines() if l.strip()]
    cpus = lines[0].split()
    rows = {}
    order = []
    for l in lines[1:]:
        label, rest = l.split(":", 1)
        label = label.strip()
        parts = rest.split()
        counts = []
        for p in parts[:len(cpus)]:
            if not p.isdigit():
                break
            counts.append(int(p))
        desc = " ".join(parts[len(counts):])
        rows[label] = (counts, desc)
        order.append(label)
    return cpus, rows, order


def build_delta(before, after, dst):
    """Writes the DELTA tree; returns the names of whole disks compared."""
    os.makedirs(os.path.join(dst, "proc"))
    b_dev, a_dev = diskstats(before), diskstats(after)
    lines, whole = [], []
    for key, (name, av) in a_dev.items():
        # a device new in AFTER (or renamed) started at 0 in the interval:
        # both tools rate it from zero
        bv = b_dev[key][1] if key in b_dev and b_dev[key][0] == name else [0] * len(av)
        n = min(len(av), len(bv))
        d = [a - b for a, b in zip(av[:n], bv[:n])]
        d[8] = av[8]  # in_flight is a gauge
        if any(x < 0 for x in d):
            continue
        lines.append(f"{key[0]:>4} {key[1]:>7} {name} " + " ".join(map(str, d)))
        if os.path.isdir(os.path.join(after, "sys/block", name.replace("/", "!"))):
            # iostat does not list a device that never did IO (all zero)
            if any(x for i, x in enumerate(d) if i != 8):
                whole.append(name)
            sb = os.path.join(dst, "sys_block", name.replace("/", "!"))
            os.makedirs(sb)
            with open(os.path.join(sb, "stat"), "w") as f:
                f.write(" ".join(f"{x:>8}" for x in d) + "\n")
    with open(os.path.join(dst, "proc/diskstats"), "w") as f:
        f.write("\n".join(lines) + "\n")

    def stat_lines(tree):
        out = {}
        for l in read(os.path.join(tree, "proc/stat")).splitlines():
            f = l.split()
            if f:
                out[f[0]] = f[1:]
        return out

    bs, as_ = stat_lines(before), stat_lines(after)
    ncpu = 0
    with open(os.path.join(dst, "proc/stat"), "w") as f:
        for k, v in as_.items():
            if k in ("btime",):
                f.write(f"{k} {' '.join(v)}\n")
                continue
            if k in ("procs_running", "procs_blocked"):
                f.write(f"{k} {' '.join(v)}\n")
                continue
            bv = bs.get(k, ["0"] * len(v))
            d = [int(a) - int(b) for a, b in zip(v, bv)]
            f.write(f"{k} {' '.join(map(str, d))}\n")
            if k.startswith("cpu") and k != "cpu":
                ncpu += 1
    for fname in ("interrupts", "softirqs"):
        bc, brows, _ = irq_table(read(os.path.join(before, "proc", fname)))
        ac, arows, order = irq_table(read(os.path.join(after, "proc", fname)))
        assert bc == ac, f"{fname}: CPU columns differ"
        with open(os.path.join(dst, "proc", fname), "w") as f:
            f.write("           " + "".join(f"{c:<11}" for c in ac) + "\n")
            for label in order:
                if label not in brows:
                    continue
                acnt, desc = arows[label]
                bcnt = brows[label][0]
                d = [a - b for a, b in zip(acnt, bcnt)]
                f.write(f"{label:>4}:" + "".join(f"{x:>11}" for x in d) + f"   {desc}\n")
    bu = float(read(os.path.join(before, "proc/uptime")).split()[0])
    au = float(read(os.path.join(after, "proc/uptime")).split()[0])
    with open(os.path.join(dst, "proc/uptime"), "w") as f:
        f.write(f"{au - bu:.2f} 0.00\n")
    cpudir = os.path.join(dst, "sys_cpu")
    for i in range(ncpu):
        os.makedirs(os.path.join(cpudir, f"cpu{i}"))
    with open(os.path.join(cpudir, "online"), "w") as f:
        f.write(f"0-{ncpu - 1}\n")
    return whole


ABSENT_OK = {"d/s", "f/s", "dkB/s", "drqm/s", "drqm", "d_await", "f_await", "dareq-sz"}

MOUNT_SCRIPT = r"""
set -e
d="$1"
mount -t tmpfs none /sys/block
cp -r "$d"/sys_block/. /sys/block/
mount -t tmpfs none /sys/devices/system/cpu
cp -r "$d"/sys_cpu/. /sys/devices/system/cpu/
for f in stat interrupts softirqs uptime diskstats; do
    mount --bind "$d/proc/$f" "/proc/$f"
done
export LC_ALL=C S_TIME_FORMAT=ISO
iostat -x -o JSON > "$d/iostat.json"
mpstat -u -P ALL -o JSON > "$d/mpstat-u.json"
mpstat -I SUM -P ALL -o JSON > "$d/mpstat-sum.json"
mpstat -I CPU -P ALL -o JSON > "$d/mpstat-cpu.json"
mpstat -I SCPU -P ALL -o JSON > "$d/mpstat-scpu.json"
"""


def stats(path):
    return json.loads(read(path))["sysstat"]["hosts"][0]["statistics"][0]


def r2(x):
    return round(float(x) + 0.0, 2)


def main(iotriage, before, after):
    if shutil.which("iostat") is None or shutil.which("mpstat") is None:
        print("SKIP: sysstat (iostat, mpstat) not installed")
        return 77
    tmp = tempfile.mkdtemp(prefix="iotriage-oracle.")
    try:
        whole = build_delta(before, after, tmp)
        p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            MOUNT_SCRIPT, "sh", tmp], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"SKIP: cannot run sysstat in a private mount namespace: {p.stderr.strip()}")
            return 77
        ours = json.loads(subprocess.run([iotriage, "compute", before, after, "--json"],
                                         capture_output=True, text=True, check=True).stdout)
        errors, checked = [], 0

        def cmp(what, theirs, mine):
            nonlocal checked
            checked += 1
            if mine is None:
                errors.append(f"{what}: missing in iotriage (sysstat {theirs})")
            elif r2(theirs) != r2(mine):
                errors.append(f"{what}: sysstat {theirs} iotriage {mine}")

        # iostat -x: every key of every device both list
        io = stats(os.path.join(tmp, "iostat.json"))
        mine = {d["disk_device"]: d for d in ours["disks"]}
        seen = 0
        for d in io["disk"]:
            name = d["disk_device"]
            if name not in whole:
                continue
            seen += 1
            for k, v in d.items():
                if k == "disk_device":
                    continue
                m = mine.get(name, {}).get(k)
                # the kernel had no discard/flush counters: sysstat prints 0,
                # we leave the key out (absent is not zero)
                if m is None and k in ABSENT_OK and float(v) == 0.0:
                    continue
                cmp(f"iostat {name} {k}", v, m)
        if seen != len(whole):
            errors.append(f"iostat listed {seen} of {len(whole)} devices")
        # mpstat -u
        mine_cpu = {c["cpu"]: c for c in ours["cpu-load"]}
        for c in stats(os.path.join(tmp, "mpstat-u.json"))["cpu-load"]:
            for k, v in c.items():
                if k != "cpu":
                    cmp(f"mpstat -u cpu {c['cpu']} {k}", v, mine_cpu.get(c["cpu"], {}).get(k))
        # mpstat -I SUM
        for c in stats(os.path.join(tmp, "mpstat-sum.json"))["sum-interrupts"]:
            m = ours.get("intr/s") if c["cpu"] == "all" else mine_cpu.get(c["cpu"], {}).get("intr/s")
            cmp(f"mpstat -I SUM cpu {c['cpu']}", c["intr"], m)
        # mpstat -I CPU / SCPU: per line per CPU (absent from our sparse map = 0)
        for fname, key, ourkey in (("mpstat-cpu.json", "individual-interrupts", "interrupts"),
                                   ("mpstat-scpu.json", "soft-interrupts", "softirqs")):
            rows = {r["name"]: r for r in ours.get(ourkey, [])}
            present = set(irq_table(read(os.path.join(after, "proc", ourkey)))[1])
            for c in stats(os.path.join(tmp, fname))[key]:
                for it in c["intr"]:
                    row = rows.get(it["name"])
                    # idle interrupt lines are left out of our document: rate 0
                    if row is None and ourkey == "interrupts" and it["name"] in present:
                        row = {}
                    m = None if row is None else row.get("cpus", {}).get(c["cpu"], 0.0)
                    cmp(f"mpstat {key} {it['name']} cpu {c['cpu']}", it["value"], m)
        for e in errors[:40]:
            print("MISMATCH", e)
        print(f"{before} -> {after}: {checked} values compared, {len(errors)} differ")
        return 1 if errors or checked == 0 else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
