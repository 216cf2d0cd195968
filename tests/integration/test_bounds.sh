#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Decoded size bounded by what a host can have (issue 24, R3; doc/trees.md
# "Bounds", doc/recording.md, doc/security.md):
#  1. a recording of two samples whose diskstats record is 63 MiB of one
#     short line (zstd: a few KB): replay --json refuses the source with a
#     clear error, quickly, in bounded memory (before: 5 GB, 560 MB of JSON
#     a sample);
#  2. the same diskstats and a /proc/interrupts of a million short lines
#     in a recorded tree: compute --json the same (before: 1.7 GB a file);
#  3. stdout: compute --json > /dev/full fails (exit 1, "iotriage: stdout:
#     ..."); a replay whose documents are ~5 MB, run
#     with an address-space limit just above what the same replay needs
#     without writing them, writes them whole (the escaping stream copied a
#     document twice whole and, when that allocation failed, returned -1 to
#     glibc, which corrupted the output or crashed in fwrite);
#  4. a recording of a few KB on disk whose segment is a 250 MiB sparse
#     file (its frames, then a hole): replay holds what it shows, not the
#     segment (issue 30: segments were read whole, 260 MB of RSS; now
#     frames are read through a window), the same documents as before the
#     hole, the hole reported.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGE:-}" ] && [ -n "${MAKE_RECORDING:-}" ] || { echo "SKIP: run through meson test"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$IOTRIAGE" "$MAKE_RECORDING" "$FIXTURES" "$tmp" <<'PY'
import json, os, resource, shutil, struct, subprocess, sys, time
exe, make_rec, fixtures, tmp = sys.argv[1:]
MAX_RSS_KB = 640 * 1024
def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)

def run(args, limit_mb=None, timeout=60):
    """exit code, stdout, stderr, peak RSS (kB), seconds of one child"""
    def lim():
        if limit_mb:
            resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))
    t0 = time.monotonic()
    out, err = open(tmp + "/out", "w+b"), open(tmp + "/err", "w+b")
    p = subprocess.Popen(args, stdout=out, stderr=err, preexec_fn=lim)
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - t0 > timeout:
            p.kill()
            fail("%s: still running after %d s" % (" ".join(args), timeout))
        time.sleep(0.05)
    out.seek(0)
    err.seek(0)
    return (os.waitstatus_to_exitcode(status), out.read(), err.read().decode(errors="replace"),
            ru.ru_maxrss, time.monotonic() - t0)

def rec(tag, data):
    return struct.pack("<HHiI", tag, 0, 0, len(data)) + data

# 4. a sparse segment: a few KB on disk, 250 MiB long (first: a child's
# peak RSS counts this process's, forked, before it runs the replay)
src = os.path.join(fixtures, "record-v6", "rec")
whole = run([exe, "replay", src, "--from", "@0", "--json"])
shutil.copytree(src, tmp + "/sparse")
seg = sorted(os.listdir(tmp + "/sparse"))[0]
os.truncate(os.path.join(tmp, "sparse", seg), 250 << 20)
disk = sum(os.stat(os.path.join(tmp, "sparse", n)).st_blocks * 512
           for n in os.listdir(tmp + "/sparse"))
rc, out, err, rss, secs = run([exe, "replay", tmp + "/sparse", "--from", "@0", "--json"])
print("replay of a %d KB recording whose segment is a 250 MiB sparse file: exit %d, %.1f s, "
      "peak RSS %d kB (the whole one: %d kB)" % (disk >> 10, rc, secs, rss, whole[3]))
if rc != 0 or out != whole[1]:
    fail("the sparse segment's replay: exit %d, %d bytes (%d whole): %s"
         % (rc, len(out), len(whole[1]), err))
if "bytes skipped" not in err:
    fail("the hole is not reported: %r" % err)
if rss > whole[3] + 16 * 1024:
    fail("the sparse segment's replay: peak RSS %d kB (%d kB without the hole)"
         % (rss, whole[3]))

STAT = (b"cpu  1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\nintr 0\nctxt 0\n"
        b"btime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\n")
LINE = b"   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
BIG = LINE * ((63 << 20) // len(LINE))

# 1. the issue's recording
for k, up in enumerate([b"1000.00 900.00\n", b"1001.00 901.00\n"]):
    with open("%s/p%d" % (tmp, k), "wb") as f:
        f.write(rec(1, up) + rec(2, STAT) + rec(3, BIG))
subprocess.run([make_rec, tmp + "/rec", tmp + "/p0", tmp + "/p1"], check=True)
size = sum(os.path.getsize(os.path.join(tmp, "rec", n)) for n in os.listdir(tmp + "/rec"))
os.unlink(tmp + "/p0")
os.unlink(tmp + "/p1")
rc, out, err, rss, secs = run([exe, "replay", tmp + "/rec", "--from", "@0", "--json"])
print("replay of a %d-byte recording: exit %d, %.1f s, peak RSS %d kB, %d bytes out"
      % (size, rc, secs, rss, len(out)))
if rc != 0:
    fail("replay exit %d: %s" % (rc, err))
docs = [json.loads(l) for l in out.splitlines()]
if len(docs) != 2:
    fail("%d documents" % len(docs))
for d in docs:
    st = d["sources"]["diskstats"]
    if st["available"] or "more than 65536 devices" not in st["reason"]:
        fail("diskstats: %r" % st)
if err.count("more than 65536 devices") != 1 or "diskstats unavailable" not in err:
    fail("replay's stderr: %r" % err)
if rss > MAX_RSS_KB or len(out) > 64 << 10:
    fail("replay: peak RSS %d kB, %d bytes of JSON" % (rss, len(out)))

# 2. the same in a recorded tree, with a /proc/interrupts of short lines
tree = tmp + "/tree"
shutil.copytree(os.path.join(fixtures, "advise", "healthy"), tree, symlinks=True)
irqs = b"CPU0\n" + b"".join(b"%d: 0\n" % i for i in range(1 << 20))
for t in ("t0", "t1"):
    with open("%s/%s/proc/diskstats" % (tree, t), "wb") as f:
        f.write(BIG)
    with open("%s/%s/proc/interrupts" % (tree, t), "wb") as f:
        f.write(irqs)
rc, out, err, rss, secs = run([exe, "compute", tree + "/t0", tree + "/t1", "--json"])
print("compute of the tree: exit %d, %.1f s, peak RSS %d kB" % (rc, secs, rss))
d = json.loads(out)
for src, why in (("diskstats", "more than 65536 devices"),
                 ("interrupts", "more than 65536 IRQ lines")):
    st = d["sources"][src]
    if st["available"] or why not in st["reason"] or why not in err:
        fail("compute: %s: %r %r" % (src, st, err))
if rss > MAX_RSS_KB:
    fail("compute: peak RSS %d kB" % rss)

# 3. stdout: a write that fails is a failure (it exited 0 with nothing out)
mpt = os.path.join(fixtures, "advise", "mpt2sas")
with open("/dev/full", "wb") as full:
    p = subprocess.run([exe, "compute", mpt + "/t0", mpt + "/t1", "--json"], stdout=full,
                       stderr=subprocess.PIPE, text=True, timeout=60)
if p.returncode != 1 or "iotriage: stdout: " not in p.stderr:
    fail("compute --json > /dev/full: exit %d, %r" % (p.returncode, p.stderr))

# and the escaping stream under an address-space limit
n = 16384
disk = b"".join(b"8 %d s%d 1 2 3 4 5 6 7 8 9 10 11\n" % (i, i) for i in range(n))
sysb = b"".join(b"8\t%d\t1\t1\t\t\n" % i for i in range(n))
for k, up in enumerate([b"1000.00 900.00\n", b"1001.00 901.00\n"]):
    with open("%s/q%d" % (tmp, k), "wb") as f:
        f.write(rec(1, up) + rec(2, STAT) + rec(3, disk if k == 0 else disk.replace(
            b" 1 2 3 ", b" 2 2 3 ")) + rec(6, sysb))
subprocess.run([make_rec, tmp + "/rec2", tmp + "/q0", tmp + "/q1"], check=True)
table = [exe, "replay", tmp + "/rec2", "--from", "@0"]
# the smallest limit (MB) under which the tables (the same documents built,
# not written) replay
lo, hi = 16, 1040
if run(table, hi)[0] != 0:
    print("SKIP: replay does not run under a %d MB address-space limit (a sanitizer?)" % hi)
    sys.exit(77)
while hi - lo > 2:
    mid = (lo + hi) // 2
    if run(table, mid)[0] == 0:
        hi = mid
    else:
        lo = mid
rc, out, err, rss, secs = run(table + ["--json"], hi + 6)
print("replay --json under %d MB (the tables: %d MB): exit %d, %d bytes" % (hi + 6, hi, rc, len(out)))
if rc != 0:
    fail("replay --json under %d MB: exit %d %s" % (hi + 6, rc, err))
docs = [json.loads(l) for l in out.splitlines()]
if len(docs) != 2 or len(docs[1]["disks"]) != n:
    fail("replay --json under %d MB: %d documents" % (hi + 6, len(docs)))

PY
