#!/bin/sh
# Hostile recorded trees (--root DIR, compute BEFORE AFTER), built in a temp
# dir from tests/fixtures/edge-cpus: a FIFO as proc/stat or dev/cpu/0/msr
# must fail fast naming the file (and a daemon on such a tree must still stop
# on SIGTERM); proc/interrupts pointing at /dev/zero, or being a /dev/zero
# device node, must fail with bounded memory; an oversize file must be
# refused naming the file and the cap; symlinks leading out of the tree are
# resolved inside it (doc/trees.md). 50000 disks listed in opposite orders
# must still pair (tests/bench/bench_disks.sh measures the time). A disk
# named "sdb;touch${IFS}PWNED;" (a tree's diskstats name is any word): the
# commands suggest prints, run by sh as a person pastes them, run nothing else.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGE:-}" ] && [ -n "${IOTRIAGED:-}" ] || { echo "SKIP: run through meson test"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
fx="$FIXTURES/edge-cpus"
tmp=$(mktemp -d)
dpid=
trap '[ -n "$dpid" ] && kill -KILL "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT

fresh() { # name -> $tmp/name/{t0,t1}, copies of the fixture
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1"
	cp -a "$fx/t0" "$fx/t1" "$tmp/$1/"
}

# compute NAME [LIMIT_S]: runs compute with a time limit, records exit status,
# stderr and the child's peak RSS (kB) in $tmp/NAME.{rc,err,rss}
compute() {
	python3 - "$IOTRIAGE" "$tmp/$1" "${2:-20}" "$tmp/$1" <<'PY'
import resource, subprocess, sys
exe, tree, limit, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
try:
    p = subprocess.run([exe, "compute", tree + "/t0", tree + "/t1", "--json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=limit)
    rc, err = p.returncode, p.stderr.decode(errors="replace")
except subprocess.TimeoutExpired as e:
    rc, err = "timeout", (e.stderr or b"").decode(errors="replace")
open(out + ".rc", "w").write(str(rc))
open(out + ".err", "w").write(err)
open(out + ".rss", "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
	rc=$(cat "$tmp/$1.rc")
	[ "$rc" = timeout ] && fail "$1: compute still running after ${2:-20} s: $(cat "$tmp/$1.err")"
	return 0
}
expect_err() { # name text...
	n=$1
	shift
	for t in "$@"; do
		grep -qF -- "$t" "$tmp/$n.err" || fail "$n: stderr lacks '$t': $(cat "$tmp/$n.err")"
	done
}

# 1. a FIFO as proc/stat: nobody writes it, so a blocking open never returns
fresh fifo-stat
rm "$tmp/fifo-stat/t1/proc/stat"
mkfifo "$tmp/fifo-stat/t1/proc/stat"
compute fifo-stat 10
expect_err fifo-stat "$tmp/fifo-stat/t1/proc/stat: not a regular file"

# 2. a FIFO as dev/cpu/0/msr (the turbostat source of a recorded tree)
fresh fifo-msr
mkdir -p "$tmp/fifo-msr/t1/dev/cpu/0"
mkfifo "$tmp/fifo-msr/t1/dev/cpu/0/msr"
compute fifo-msr 10
[ "$(cat "$tmp/fifo-msr.rc")" = 0 ] || fail "fifo-msr: exit $(cat "$tmp/fifo-msr.rc"): $(cat "$tmp/fifo-msr.err")"

# 2b. a FIFO as a process's proc/PID/io (the processes source reads every one)
fresh fifo-io
mkdir -p "$tmp/fifo-io/t1/proc/4242"
mkfifo "$tmp/fifo-io/t1/proc/4242/io"
compute fifo-io 10
[ "$(cat "$tmp/fifo-io.rc")" = 0 ] || fail "fifo-io: exit $(cat "$tmp/fifo-io.rc"): $(cat "$tmp/fifo-io.err")"

# 3. the daemon on a tree with both FIFOs starts, serves and stops on SIGTERM
fresh fifo-daemon
for f in t0/proc/stat t0/dev/cpu/0/msr t0/proc/4242/io; do
	mkdir -p "$(dirname "$tmp/fifo-daemon/$f")"
	rm -f "$tmp/fifo-daemon/$f"
	mkfifo "$tmp/fifo-daemon/$f"
done
"$IOTRIAGED" --foreground --root "$tmp/fifo-daemon/t0" --socket "$tmp/d.sock" --interval 200 \
	>"$tmp/d.out" 2>&1 &
dpid=$!
i=0
while [ ! -S "$tmp/d.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$tmp/d.sock" ] || fail "daemon on a FIFO tree never served: $(cat "$tmp/d.out")"
kill -TERM "$dpid"
i=0
while kill -0 "$dpid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$dpid" 2>/dev/null && fail "daemon on a FIFO tree ignored SIGTERM for 5 s"
wait "$dpid"
drc=$?
dpid=
[ $drc = 0 ] || fail "daemon exit $drc after SIGTERM: $(cat "$tmp/d.out")"

# 4. proc/interrupts -> /dev/zero, absolute and relative: resolved inside the
# tree (where there is no dev/zero), never on the host
for link in /dev/zero ../../../../../../../../dev/zero; do
	fresh zero-link
	ln -sf "$link" "$tmp/zero-link/t1/proc/interrupts"
	compute zero-link 20
	expect_err zero-link "$tmp/zero-link/t1/proc/interrupts: No such file or directory"
	[ "$(cat "$tmp/zero-link.rss")" -lt 65536 ] || fail "zero-link $link: peak RSS $(cat "$tmp/zero-link.rss") kB"
done
# a link inside the tree still works
fresh in-link
mv "$tmp/in-link/t1/proc/interrupts" "$tmp/in-link/t1/interrupts.saved"
ln -s ../interrupts.saved "$tmp/in-link/t1/proc/interrupts"
compute in-link 20
[ "$(cat "$tmp/in-link.rc")" = 0 ] || fail "in-link: exit $(cat "$tmp/in-link.rc")"
grep -q "interrupts" "$tmp/in-link.err" && fail "in-link: $(cat "$tmp/in-link.err")"

# 5. proc/interrupts a character device (as /dev/zero) inside the tree
fresh zero-dev
rm "$tmp/zero-dev/t1/proc/interrupts"
if mknod "$tmp/zero-dev/t1/proc/interrupts" c 1 5 2>/dev/null; then
	compute zero-dev 20
	expect_err zero-dev "$tmp/zero-dev/t1/proc/interrupts: not a regular file"
	[ "$(cat "$tmp/zero-dev.rss")" -lt 65536 ] || fail "zero-dev: peak RSS $(cat "$tmp/zero-dev.rss") kB"
else
	echo "note: mknod refused here, device-node case not run"
fi

# 6. an oversize file: refused before reading, naming the file and the cap
fresh big
truncate -s 70M "$tmp/big/t1/proc/interrupts"
compute big 20
expect_err big "$tmp/big/t1/proc/interrupts: larger than 64 MiB"
[ "$(cat "$tmp/big.rss")" -lt 65536 ] || fail "big: peak RSS $(cat "$tmp/big.rss") kB"

# 7. 50000 disks, AFTER listing them in the opposite order: every one pairs
mkdir -p "$tmp/many"
python3 "$SRCDIR/tests/bench/make_disks.py" "$fx" "$tmp/many" 50000 || fail "make_disks.py"
"$IOTRIAGE" compute "$tmp/many/t0" "$tmp/many/t1" --json --all >"$tmp/many.json" 2>"$tmp/many.err" ||
	fail "many: compute exit $?: $(head -c 500 "$tmp/many.err")"
python3 - "$tmp/many.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
disks = d["disks"]
assert len(disks) == 50000, len(disks)
for x in disks:
    assert x["valid"], x
    # make_disks.py: disk k did k+1 reads of 8 sectors in the interval
    k = int(x["disk_device"][3:])
    # r/s is rounded to 2 decimals: 0.005 x 3 s at most
    assert abs(float(x["r/s"]) * d["interval_ms"] / 1000 - (k + 1)) < 0.02, x
PY
# 8. a disk's name with shell syntax in it: every printed command (text and
# JSON, commands and undo, the apply line) run by sh with its target moved
# under $tmp/sh runs no other command (the name must stay one word)
adv="$FIXTURES/advise/disk-saturated"
evil='sdb;touch${IFS}PWNED;'
rm -rf "$tmp/evil" && mkdir -p "$tmp/evil" && cp -a "$adv/t0" "$adv/t1" "$tmp/evil/" || fail "evil: copy"
python3 - "$tmp/evil" "$evil" <<'PY' || fail "evil: rename"
import os, sys
top, evil = sys.argv[1], sys.argv[2]
for t in ("t0", "t1"):
    base = os.path.join(top, t)
    for d, dirs, files in os.walk(base, topdown=False):
        for n in files + dirs:
            p = os.path.join(d, n)
            if os.path.islink(p):
                tg = os.readlink(p)
                if "sdb" in tg:
                    os.unlink(p)
                    os.symlink(tg.replace("sdb", evil), p)
            elif os.path.isfile(p):
                b = open(p, "rb").read()
                if b"sdb" in b:
                    open(p, "wb").write(b.replace(b"sdb", evil.encode()))
            if "sdb" in n:
                os.rename(p, os.path.join(d, n.replace("sdb", evil)))
PY
"$IOTRIAGE" suggest --root "$tmp/evil/t1" --before "$tmp/evil/t0" >"$tmp/evil.txt" 2>&1 ||
	fail "evil: suggest exit $?: $(cat "$tmp/evil.txt")"
"$IOTRIAGE" suggest --json --root "$tmp/evil/t1" --before "$tmp/evil/t0" >"$tmp/evil.json" 2>&1 ||
	fail "evil: suggest --json exit $?"
grep -qF 'scheduler' "$tmp/evil.txt" || fail "evil: no scheduler suggestion to check: $(cat "$tmp/evil.txt")"
python3 - "$tmp/evil.txt" "$tmp/evil.json" >"$tmp/evil.sh" <<'PY' || fail "evil: commands"
import json, re, sys
lines = [l.strip() for l in open(sys.argv[1]) if re.match(r"\s+(echo|ethtool) ", l)]
lines += [l.strip().split("   (undo: ")[0][len("apply: "):] for l in open(sys.argv[1])
          if l.strip().startswith("apply: ")]
for s in json.load(open(sys.argv[2]))["suggestions"]:
    lines += s["commands"] + s["undo"]
assert len(lines) >= 5, lines
for l in lines:
    # the target a person would write, moved under the scratch directory;
    # the apply/undo lines run a function in place of iotriage
    l = l.replace("> /", "> ./").replace("> '/", "> './")
    print(l)
PY
mkdir -p "$tmp/sh"
(cd "$tmp/sh" && iotriage() { :; } && ethtool() { :; } && . "$tmp/evil.sh") >/dev/null 2>&1
[ -e "$tmp/sh/PWNED" ] && fail "a printed command ran the name's command: $(cat "$tmp/evil.sh")"
grep -qF "'/sys/block/$evil/queue/scheduler'" "$tmp/evil.txt" ||
	fail "evil: the scheduler path is not one quoted word: $(grep -F scheduler "$tmp/evil.txt")"

echo "ok"
