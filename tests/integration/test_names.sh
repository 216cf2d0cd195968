#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names that become paths (issue 24, R2; doc/security.md): a disk named
# "../../../../tmp/X/pwn" in a recorded tree (queue/iostats 0; a full
# queue; a saturated disk without a scheduler) and in a recording replayed
# gets no command and no write path with its name, in suggest, compute
# --json and replay --json; a real cciss/c0d0 gets sysfs's path
# /sys/block/cciss!c0d0/queue/... as the kernel names it.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGE:-}" ] && [ -n "${MAKE_RECORDING:-}" ] || { echo "SKIP: run through meson test"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
A="$FIXTURES/advise"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
EVIL='../../../../tmp/X/pwn'

# rename SCENARIO DISK NAME OUT: a copy of the scenario's trees whose DISK
# is NAME in /proc/diskstats and NAME with '!' for '/' under /sys/block
rename() {
	mkdir -p "$4"
	for t in t0 t1; do
		cp -a "$A/$1/$t" "$4/$t" || fail "copy $1"
		python3 - "$4/$t" "$2" "$3" <<'PY' || fail "rename $1"
import os, sys
tree, old, new = sys.argv[1:]
p = os.path.join(tree, "proc/diskstats")
lines = open(p).read().splitlines(True)
out = []
for l in lines:
    f = l.split()
    if len(f) > 2 and f[2] == old:
        l = l.replace(" %s " % old, " %s " % new, 1)
    out.append(l)
open(p, "w").write("".join(out))
os.rename(os.path.join(tree, "sys/block", old),
          os.path.join(tree, "sys/block", new.replace("/", "!")))
PY
	done
}

# check FILE NAME WANT: every command, undo and write path in the JSON
# documents of FILE (one a line, or one whole) leaves NAME out; WANT, when
# not empty, is a command that must be among them
check() {
	python3 - "$1" "$2" "$3" <<'PY' || fail "$1"
import json, sys
path, name, want = sys.argv[1:]
text = open(path).read()
docs = []
try:
    docs = [json.loads(text)]
except ValueError:
    docs = [json.loads(l) for l in text.splitlines() if l.strip()]
cmds, nsugg = [], 0
for d in docs:
    for s in d.get("suggestions") or []:
        nsugg += 1
        cmds += s["commands"] + s["undo"] + [w["path"] for w in s["writes"]]
        assert name not in s["id"], s
bad = [c for c in cmds if name in c or "/tmp/X" in c or ".." in c]
assert not bad, bad
if want:
    assert want in cmds, (want, cmds)
PY
}

# 1. queue/iostats 0 (the issue's case), a full queue (nr_requests), a
# saturated rotational disk with scheduler none
for case in "iostats-off sdd iostats" "ssd-queue-full sde nr_requests" \
	"disk-saturated sdb scheduler"; do
	set -- $case
	rename "$1" "$2" "$EVIL" "$tmp/evil-$1"
	"$IOTRIAGE" suggest "$tmp/evil-$1/t0" "$tmp/evil-$1/t1" --json >"$tmp/s.json" 2>"$tmp/err" ||
		fail "$1: suggest --json exit $? $(cat "$tmp/err")"
	check "$tmp/s.json" pwn ""
	"$IOTRIAGE" compute "$tmp/evil-$1/t0" "$tmp/evil-$1/t1" --json >"$tmp/c.json" 2>"$tmp/err" ||
		fail "$1: compute --json exit $? $(cat "$tmp/err")"
	check "$tmp/c.json" pwn ""
	"$IOTRIAGE" suggest "$tmp/evil-$1/t0" "$tmp/evil-$1/t1" >"$tmp/s.txt" 2>"$tmp/err" ||
		fail "$1: suggest exit $? $(cat "$tmp/err")"
	grep -q '/tmp/X' "$tmp/s.txt" && fail "$1: suggest printed a path with the name: $(cat "$tmp/s.txt")"

	# a real cciss/c0d0: sysfs's name in the path
	rename "$1" "$2" cciss/c0d0 "$tmp/cciss-$1"
	"$IOTRIAGE" suggest "$tmp/cciss-$1/t0" "$tmp/cciss-$1/t1" --json >"$tmp/s.json" 2>"$tmp/err" ||
		fail "$1: cciss suggest exit $? $(cat "$tmp/err")"
	check "$tmp/s.json" XXnoneXX "/sys/block/cciss!c0d0/queue/$3"
	"$IOTRIAGE" compute "$tmp/cciss-$1/t0" "$tmp/cciss-$1/t1" --json >"$tmp/c.json" 2>"$tmp/err" ||
		fail "$1: cciss compute exit $? $(cat "$tmp/err")"
	check "$tmp/c.json" XXnoneXX "/sys/block/cciss!c0d0/queue/$3"
done

# 2. a recording whose disk has that name and queue/iostats 0 (the /sys/block
# facts record, tag 6): replay --json recomputes the findings, no command
# payload T DISKNAME OUT: the iostats-off scenario's tree T as a payload
payload() {
	python3 - "$A/iostats-off/$1" "$2" "$3" <<'PY' || fail "payload"
import os, struct, sys
tree, name, out = sys.argv[1:]
def rec(tag, data):
    return struct.pack("<HHiI", tag, 0, 0, len(data)) + data
def f(rel):
    return open(os.path.join(tree, rel), "rb").read()
disk = f("proc/diskstats").replace(b" sdd ", b" %s " % name.encode())
sysblock = b"8\t48\t1\t0\t\t\n8\t0\t1\t1\t\t\n"
open(out, "wb").write(rec(1, f("proc/uptime")) + rec(2, f("proc/stat")) + rec(3, disk) +
                      rec(4, f("proc/interrupts")) + rec(5, f("proc/softirqs")) +
                      rec(6, sysblock))
PY
}
for who in evil cciss; do
	n=$EVIL
	[ $who = cciss ] && n=cciss/c0d0
	payload t0 "$n" "$tmp/$who.p0"
	payload t1 "$n" "$tmp/$who.p1"
	"$MAKE_RECORDING" "$tmp/rec-$who" "$tmp/$who.p0" "$tmp/$who.p1" || fail "make_recording"
	"$IOTRIAGE" replay "$tmp/rec-$who" --from @0 --json >"$tmp/r.json" 2>"$tmp/err" ||
		fail "$who: replay exit $? $(cat "$tmp/err")"
	grep -q '"iostats-off-' "$tmp/r.json" || fail "$who: replay found no frozen counters: $(cat "$tmp/r.json" "$tmp/err")"
done
check "$tmp/r.json" XXnoneXX "echo 1 > '/sys/block/cciss!c0d0/queue/iostats'"
"$IOTRIAGE" replay "$tmp/rec-evil" --from @0 --json >"$tmp/r.json" 2>/dev/null
check "$tmp/r.json" pwn ""
echo "ok"
