#!/bin/sh
# The live view's turbostat sources view (t), driven in tmux (a private
# server, killed at the end): for every turbostat column, the source the
# sampler chose and its register, event or file, or "unavailable: why",
# then the source families; each compared with the document's "columns" and
# "sources" (doc/json.md), word for word:
#  1. at 80x24 under NO_COLOR on seed 002's Broadwell-EP tree kept advancing
#     by tests/fixtures/advance.py: Bzy_MHz from msr (MSR 0xE8 APERF / MSR
#     0xE7 MPERF), every column as `iotriage compute --json T0 T1` says,
#     scrolled to the end with G, no colour drawn; the footer names t only
#     where it fits; help lists t; t returns to the tables;
#     before a second sample, no columns yet but the source families;
#  2. live on this machine (no /dev/cpu/N/msr on a VM): the columns as
#     `iotriage snapshot --json` reports them, unavailable ones with their
#     reason, at 200x100 and at 80x24; through iotriaged --core-only, not
#     in the sample;
#  3. as root only: the embedded client run as nobody on a copy of the tree
#     whose dev/cpu/N/msr files are root's, mode 0600: every MSR column says
#     "needs root (CAP_SYS_RAWIO)" (once, as a shared cause [k] the
#     columns and the msr family refer to), and so does the header.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
# Skips (77) without tmux or python3.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
unset NO_COLOR

tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pid=
daemon_pid=
nrdir=
cleanup() {
	T kill-server 2>/dev/null
	for p in $gen_pid $daemon_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
	[ -n "$nrdir" ] && rm -rf "$nrdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# check_view DOC [FROM=TO...] [--msr-needs-root ROOTDOC]: every column and source
# family of the t view on the screen whose lines are all in view says what
# DOC's "columns" and "sources" say (FROM replaced by TO in DOC's reasons:
# another copy of the tree); the title's counts are DOC's. Appends what it
# checked to $tmp/seen ("col NAME", "fam NAME"). A clause two reasons share
# is listed once on top as [k] (numbered by first appearance, columns then
# families) and written [k] where it stands: the view's [k] are expanded
# from the causes computed here from DOC, and the causes on the screen must
# be those.
cat >"$tmp/check.py" <<'PY'
import json, re, sys
screen, doc_file, seen_file = sys.argv[1:4]
subs, msr_doc = [], None
args = sys.argv[4:]
while args:
    a = args.pop(0)
    if a == "--msr-needs-root":
        msr_doc = json.load(open(args.pop(0)))
    else:
        subs.append(a.split("=", 1))
d = json.load(open(doc_file))
norm = lambda s: " ".join(s.split())
def sub(s):
    for a, b in subs:
        s = s.replace(a, b)
    return norm(s)
want = {}
for name, c in d["turbostat"]["columns"].items():
    if c["available"]:
        text = c["detail"] + (" note: " + c["caveat"] if c.get("caveat") else "")
        want["col " + name] = (c["source"], sub(text))
    else:
        want["col " + name] = ("-", sub("unavailable: " + c["reason"]))
for name in ("msr", "perf", "cpufreq", "cpuidle", "powercap", "hwmon"):
    s = d["sources"][name]
    want["fam " + name] = ("", "available" if s["available"] else
                           sub("unavailable: " + s["reason"]))
reasons = [c["reason"] for c in d["turbostat"]["columns"].values()
           if not c["available"] and c.get("reason")]
reasons += [d["sources"][f]["reason"] for f in ("msr", "perf", "cpufreq", "cpuidle",
                                                "powercap", "hwmon")
            if f in d["sources"] and not d["sources"][f]["available"]
            and d["sources"][f].get("reason")]
causes = []
for r in reasons:
    for cl in r.split("; "):
        if cl not in causes and sum(cl in x.split("; ") for x in reasons) >= 2:
            causes.append(cl)
causes = causes[:16]
def expand(text):
    return norm(re.sub(r"\[(\d+)\]", lambda m: causes[int(m.group(1)) - 1], text))

scr = open(screen).read().split("\n")
ti = [i for i, l in enumerate(scr) if l.startswith("> turbostat sources:")]
if not ti:
    sys.exit("no turbostat sources view on the screen")
ti = ti[0]
m = re.match(r"> turbostat sources: (\d+) columns, (\d+) available"
             r"(?:  \[(\d+)-(\d+) of (\d+), arrows scroll\])?$", scr[ti])
if not m:
    sys.exit("title: %r" % scr[ti])
cols = d["turbostat"]["columns"].values()
if (int(m.group(1)), int(m.group(2))) != (len(cols), sum(c["available"] for c in cols)):
    sys.exit("title says %s columns, %s available" % (m.group(1), m.group(2)))
at_end = m.group(3) is None or m.group(4) == m.group(5)
if not re.match(r"^Column +Source +register, event or file; or why it is unavailable$", scr[ti + 1]):
    sys.exit("column header: %r" % scr[ti + 1])
foot = [i for i, l in enumerate(scr) if l.startswith("F1Help")]
body = scr[ti + 2:foot[0] if foot else len(scr)]
while body and not body[-1].strip() and not at_end:
    body.pop()

col_re = re.compile(r"^(\S+) +(msr|perf|sysfs|proc|-|\?) +(\S.*)$")
fam_re = re.compile(r"^(\S+) +(available|unavailable: .*)$")
cause_re = re.compile(r"^\[(\d+)\] (\S.*)$")
entries, cur = [], None
def close(complete):
    global cur
    if cur:
        entries.append((cur[0], cur[1], norm(" ".join(cur[2])), complete))
    cur = None
for l in body:
    if not l.strip() or l.startswith("Source families") or l.startswith("Shared causes"):
        close(True)
        continue
    if l.startswith(" "):
        if cur:
            cur[2].append(l)
        continue
    close(True)
    mc, mf, mk = col_re.match(l), fam_re.match(l), cause_re.match(l)
    if mk:
        cur = ["cause " + mk.group(1), "", [mk.group(2)]]
    elif mc:
        cur = ["col " + mc.group(1), mc.group(2), [mc.group(3)]]
    elif mf:
        cur = ["fam " + mf.group(1), "", [mf.group(2)]]
    else:
        sys.exit("not a column or a source family: %r" % l)
close(at_end)

checked = []
for key, src, text, complete in entries:
    if not complete:
        continue
    if key.startswith("cause "):
        k = int(key[6:])
        if k > len(causes) or text != sub(causes[k - 1]):
            sys.exit("%s: screen %r, document %r" % (key, text, causes[k - 1:k]))
        continue
    text = sub(expand(text))
    if key not in want:
        sys.exit("%s is on the screen, not in the document" % key)
    if (src, text) != want[key]:
        sys.exit("%s: screen %r %r, document %r %r" % (key, src, text, want[key][0], want[key][1]))
    if msr_doc and key.startswith("col "):
        c = msr_doc["turbostat"]["columns"][key[4:]]
        if c.get("source") == "msr" and "needs root (CAP_SYS_RAWIO)" not in text:
            sys.exit("%s comes from msr as root, but does not say it needs root: %r" % (key, text))
    checked.append(key)
if not checked:
    sys.exit("no complete entry on the screen")
with open(seen_file, "a") as f:
    f.write("\n".join(checked) + "\n")
print(", ".join(checked))
PY
check_view() { # DOC [ARGS]: the screen against DOC, see check.py above
	doc=$1
	shift
	python3 "$tmp/check.py" "$tmp/screen" "$doc" "$tmp/seen" "$@"
}
# all_seen DOC: every column and source family of DOC was checked
all_seen() {
	python3 - "$1" "$tmp/seen" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = {"col " + c for c in d["turbostat"]["columns"]}
want |= {"fam " + f for f in ("msr", "perf", "cpufreq", "cpuidle", "powercap", "hwmon")}
seen = set(open(sys.argv[2]).read().split("\n")) - {""}
missing = sorted(want - seen)
if missing:
    sys.exit("never checked: " + ", ".join(missing))
PY
}
# counts DOC: "N columns, M available" of DOC
counts() {
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["turbostat"]["columns"].values()
print("%d columns, %d available" % (len(c), sum(x["available"] for x in c)))' "$1"
}
color_re='\[([0-9;]*;)?(3[1-7]|4[1-7])(;[0-9;]*)?m'

# ---- 1. seed 002's tree at 80x24, NO_COLOR ----
python3 "$SRCDIR/tests/fixtures/turbo/make-trees.py" "$tmp/gen" intel >/dev/null ||
	fail "make-trees.py"
"$IOTRIAGE" compute --json "$tmp/gen/intel/t0" "$tmp/gen/intel/t1" >"$tmp/turbo.json" 2>/dev/null ||
	fail "iotriage compute --json on the turbo trees"
cp -a "$tmp/gen/intel/t0" "$tmp/tree" || fail "copying t0"
advance "$tmp/gen/intel" "$tmp/tree"

# (an assignment in front of a function call outlives it in some shells)
NO_COLOR=1
run_in seed 80 24 --embedded --root "$tmp/tree"
unset NO_COLOR
wait_for seed '^ PSI n/a \| writeback n/a \| turbostat: +PkgWatt' || fail "seed: the second sample"
grep -q 'tTurbo' "$tmp/screen" && fail "80 columns: tTurbo in the footer (F10Quit would not fit)"
grep -q ' F10Quit' "$tmp/screen" || fail "80 columns: the footer keeps F10Quit"
T send-keys -t seed t
wait_for seed "^> turbostat sources: $(counts "$tmp/turbo.json")  \\[1-20 of [0-9]+, arrows scroll\\]\$" ||
	fail "seed: t opens the sources view, scrolled to the top"
grep -Eq '^Bzy_MHz +msr +MSR 0xE8 APERF / MSR 0xE7 MPERF$' "$tmp/screen" ||
	fail "seed: Bzy_MHz from msr, APERF / MPERF"
grep -Eq '^Avg_MHz +msr +MSR 0xE8 APERF / interval$' "$tmp/screen" || fail "seed: Avg_MHz from msr"
grep -Eq '^IRQ +proc +/proc/interrupts' "$tmp/screen" || fail "seed: IRQ from /proc/interrupts"
grep -Eq '^Pkg%pc7 +- +unavailable: no package C7 on this server model \(turbostat\)$' "$tmp/screen" ||
	fail "seed: Pkg%pc7 unavailable, with why"
screen_wait seed check_view "$tmp/turbo.json" || fail "seed, first page: $(cat "$tmp/check")"
T capture-pane -e -p -t seed >"$tmp/screen.e"
grep -Eq "$color_re" "$tmp/screen.e" && fail "NO_COLOR: the sources view draws colours"
T send-keys -t seed G
wait_for seed '^hwmon +unavailable: ' || fail "seed: G scrolls to the source families"
grep -Eq '^msr +available$' "$tmp/screen" || fail "seed: the msr family is available"
screen_wait seed check_view "$tmp/turbo.json" || fail "seed, last page: $(cat "$tmp/check")"
all_seen "$tmp/turbo.json" || fail "seed: not every column was on screen"
T send-keys -t seed g
wait_for seed '^Avg_MHz +msr ' || fail "seed: g back to the top"
T send-keys -t seed h
wait_for seed '^Keys' || fail "h opens the help"
# on the first page or the next (the keys' part grows with the views)
screen_has '^  t +the turbostat sources view' || T send-keys -t seed NPage
wait_for seed '^  t +the turbostat sources view' || fail "help lists t"
T send-keys -t seed x
wait_for seed '^> turbostat sources:' || fail "help closes back to the sources view"
T send-keys -t seed t
wait_for seed '^> Disks' || fail "t returns to the tables"
T resize-window -t seed -x 120 -y 30
wait_for seed ' pProcs tTurbo F10Quit' || fail "120 columns: the footer names t"
T send-keys -t seed q
wait_for seed '^exited rc=0' || fail "seed: q exits 0"

# before a second sample: no columns yet, the families the first one names
run_in first 80 24 --embedded --interval 3600000 --root "$tmp/tree"
T send-keys -t first t
wait_for first '^turbostat: waiting for a second sample$' ||
	fail "first sample: the view waits for a second one"
grep -Eq '^msr +available$' "$tmp/screen" || fail "first sample: the msr family is listed"
grep -Eq '^perf +unavailable: perf events count on the live host only$' "$tmp/screen" ||
	fail "first sample: perf is unavailable on a tree, with why"
T send-keys -t first q
wait_for first '^exited rc=0' || fail "first sample: q exits 0"

# ---- 2. live ----
"$IOTRIAGE" snapshot --interval 300 --json >"$tmp/live.json" 2>/dev/null || fail "live snapshot"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))["turbostat"]["columns"]' \
	"$tmp/live.json" 2>/dev/null || fail "the live snapshot has no turbostat columns"
: >"$tmp/seen"
run_in live 200 100 --embedded
T send-keys -t live t
wait_for live "^> turbostat sources: $(counts "$tmp/live.json")\$" ||
	fail "live: all the sources view at 200x100"
screen_wait live check_view "$tmp/live.json" || fail "live: $(cat "$tmp/check")"
all_seen "$tmp/live.json" || fail "live: not every column was on screen"
if grep -Eq '^[^ ]+ +- +unavailable: .+' "$tmp/screen"; then
	T capture-pane -e -p -t live >"$tmp/screen.e"
	grep -Eq "$color_re" "$tmp/screen.e" || fail "live: the unavailable columns are not coloured"
	grep -Eq '^Bzy_MHz +- +unavailable: .*msr' "$tmp/screen" &&
		echo "live: $(grep -E '^Bzy_MHz ' "$tmp/screen")"
else
	echo "note: every turbostat column is available on this machine"
fi
: >"$tmp/seen"
T resize-window -t live -x 80 -y 24
wait_for live '^> turbostat sources: .*  \[1-20 of [0-9]+, arrows scroll\]$' ||
	fail "live at 80x24: the first page"
screen_wait live check_view "$tmp/live.json" || fail "live at 80x24: $(cat "$tmp/check")"
T send-keys -t live End
wait_for live '^hwmon +(available|unavailable: )' || fail "live at 80x24: End shows the families"
screen_wait live check_view "$tmp/live.json" || fail "live at 80x24, end: $(cat "$tmp/check")"
T send-keys -t live Escape
wait_for live '^> Disks' || fail "live: Esc returns to the tables"
T send-keys -t live q
wait_for live '^exited rc=0' || fail "live: q exits 0"

# a --core-only daemon's samples carry no turbostat source at all
if [ -n "${IOTRIAGED:-}" ]; then
	"$IOTRIAGED" --foreground --core-only --socket "$tmp/d.sock" --interval 300 \
		2>>"$tmp/daemon.log" &
	daemon_pid=$!
	n=0
	while [ ! -S "$tmp/d.sock" ] && [ $n -lt $((WAIT * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	run_in core 80 24 --socket "$tmp/d.sock"
	wait_for core '^ iotriage +daemon ' || fail "core-only: the client connects"
	T send-keys -t core t
	wait_for core '^turbostat: not in the sample \(iotriaged --core-only, or older\)$' ||
		fail "core-only: turbostat not in the sample"
	grep -Eq '^(msr|perf|hwmon) ' "$tmp/screen" && fail "core-only: no source family was probed"
	T send-keys -t core q
	wait_for core '^exited rc=0' || fail "core-only: q exits 0"
	kill "$daemon_pid"
	wait "$daemon_pid"
	rc=$?
	daemon_pid=
	[ "$rc" -eq 0 ] || fail "iotriaged exit $rc: $(tail -n 5 "$tmp/daemon.log")"
fi

# ---- 3. the embedded client as nobody: the MSR files are root's ----
as_nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
command -v setpriv >/dev/null || as_nobody="runuser -u nobody --"
nr_skip=
if [ "$(id -u)" != 0 ]; then
	nr_skip="not root: cannot make the MSR files root-only and run the client as nobody"
elif ! id nobody >/dev/null 2>&1; then
	nr_skip="no user nobody"
else
	# the client copied where nobody may run it: the checkout may sit under
	# a directory only root can enter (a clone in /root)
	nrdir=$(mktemp -d)
	chmod 755 "$nrdir"
	. "$SRCDIR/tests/integration/user_lib.sh"
	user_copy "$nrdir/bin" "$IOTRIAGE" || fail "copying the client for nobody"
	nrcli="$nrdir/bin/${IOTRIAGE##*/}"
	(cd / && $as_nobody "$nrcli" --help) >/dev/null 2>&1 ||
		nr_skip="nobody cannot run $nrcli (a temporary directory nobody may not enter?)"
fi
if [ -n "$nr_skip" ]; then
	echo "SKIP (non-root case): $nr_skip"
else
	for t in t0 t1; do
		cp -a "$tmp/gen/intel/$t" "$nrdir/$t" || fail "copying $t for nobody"
	done
	cp -a "$tmp/gen/intel/t0" "$nrdir/tree" || fail "copying the tree for nobody"
	chown -R root:root "$nrdir"
	chmod 0600 "$nrdir"/*/dev/cpu/*/msr
	(cd / && $as_nobody cat "$nrdir/tree/dev/cpu/0/msr") >/dev/null 2>&1 &&
		fail "nobody can read a root-only 0600 file"
	(cd / && $as_nobody "$nrcli" compute --json "$nrdir/t0" "$nrdir/t1") \
		>"$tmp/nobody.json" 2>/dev/null || fail "compute as nobody"
	advance "$tmp/gen/intel" "$nrdir/tree"
	: >"$tmp/seen"
	cli=$IOTRIAGE IOTRIAGE=$nrcli RUN_AS="cd / && $as_nobody"
	run_in nr 200 50 --embedded --root "$nrdir/tree"
	IOTRIAGE=$cli RUN_AS=
	# n/a in the header, the reason once on the unavailable line (issue 23)
	wait_for nr '^ unavailable: turbostat: no source \(needs root \(CAP_SYS_RAWIO\)\)' ||
		fail "nobody: the header says the MSRs need root"
	wait_for nr '\| turbostat n/a *$' || fail "nobody: turbostat n/a in the header"
	T send-keys -t nr t
	wait_for nr "^> turbostat sources: $(counts "$tmp/nobody.json")\$" ||
		fail "nobody: the sources view"
	screen_wait nr check_view "$tmp/nobody.json" "$nrdir/t0/=$nrdir/tree/" \
		"$nrdir/t1/=$nrdir/tree/" --msr-needs-root "$tmp/turbo.json" || fail "nobody: $(cat "$tmp/check")"
	all_seen "$tmp/nobody.json" || fail "nobody: not every column was on screen"
	# said once, as a shared cause, and referred to by its number
	k=$(sed -n 's|^\[\([0-9]*\)\] .*/dev/cpu/0/msr: needs root (CAP_SYS_RAWIO)$|\1|p' "$tmp/screen")
	[ -n "$k" ] || fail "nobody: no shared cause says /dev/cpu/0/msr needs root"
	[ "$(grep -c 'needs root (CAP_SYS_RAWIO)' "$tmp/screen")" = 1 ] ||
		fail "nobody: 'needs root' is written more than once"
	grep -Eq "^Bzy_MHz +- +unavailable: (.*; )?\[$k\](;|\$)" "$tmp/screen" ||
		fail "nobody: Bzy_MHz needs root"
	grep -Eq "^msr +unavailable: \[$k\]\$" "$tmp/screen" ||
		fail "nobody: the msr family needs root"
	echo "nobody: $(grep -c 'needs root (CAP_SYS_RAWIO)' "$tmp/screen") lines say needs root (CAP_SYS_RAWIO)"
	T send-keys -t nr q
	wait_for nr '^exited rc=0' || fail "nobody: q exits 0"
fi
[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
