#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Findings recomputed in iotriage replay (issue 15): a real iotriaged --root
# TREE --record REC samples a copy of the mpt2sas scenario (CPU 1 drowning
# in the SAS HBA's interrupts) that is calm (not advancing), then hot
# (advance.py steps it), then calm again. Then:
#  - replay --json: a hot instant's document carries the daemon's own
#    "findings" and "suggestions" (same sample, same topology: --root TREE),
#    a calm one empty arrays, --core-only none; --step 10s at the calm
#    instant reaches back into the hot phase and names the core; --step 1s
#    returns, after each document, the first sample at least 750 ms later;
#  - the replay view (tmux): the findings line names cpu1 at the hot
#    instant and not at the calm one, t/T change it, i widens the interval
#    to 10 s (header "every 10s") and names it again; f then a is refused
#    (the recording is the past), and nothing is written to the tree; t and
#    T move under the open findings panel, its findings following.
# Assertions wait for the daemon or the screen (up to $WAIT s), never a
# fixed time. Skips (77) without tmux or python3, or when not root (the
# record directory must be root's).
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] && [ -n "${IOTRIAGED:-}" ] || skip "\$IOTRIAGE(D) not set (run through meson test)"
[ "$(id -u)" = 0 ] || skip "the record directory must be root-owned: run as root"

S="$SRCDIR/tests/fixtures/advise/mpt2sas"
tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pid=
daemon_pid=
cleanup() {
	T kill-server 2>/dev/null
	[ -n "$gen_pid" ] && kill -TERM "$gen_pid" 2>/dev/null
	[ -n "$gen_pid" ] && wait "$gen_pid" 2>/dev/null
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

tree="$tmp/tree"
rec="$tmp/rec"
sock="$tmp/sock"
cp -a "$S/t1" "$tree" || fail "copying the scenario"
affinity_before=$(cat "$tree"/proc/irq/*/smp_affinity_list | md5sum)

# doc: the daemon's latest document (iotriage snapshot --socket)
doc() { "$IOTRIAGE" snapshot --socket "$sock" --json 2>/dev/null; }
# field JSON EXPR: a python expression over the document d
field() { printf '%s' "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"; }
# wait_doc EXPR: the daemon's document satisfies EXPR within $WAIT s; in $d
wait_doc() {
	n=0
	while [ $n -lt $((WAIT * 10)) ]; do
		d=$(doc)
		[ -n "$d" ] && [ "$(field "$d" "$1" 2>/dev/null)" = True ] && return 0
		sleep 0.1
		n=$((n + 1))
	done
	fail "the daemon's samples never satisfied: $1; last: $(printf '%.300s' "$d")"
}
hot='"hot-cpu-cpu1" in [f["id"] for f in d.get("findings", [])]'
calm='d.get("findings") == [] and d.get("interval_ms", 0) > 0'

"$IOTRIAGED" -f -s "$sock" --root "$tree" --interval 500 --record "$rec" \
	>"$tmp/daemon.log" 2>&1 &
daemon_pid=$!
# calm: the tree does not advance, so every rate is 0
wait_doc "$calm"
# hot: the scenario's steps, one at a time, each adding 10 s of uptime
# (t1 says 1010 s); stopped between two steps, never in the middle of one
# (one process stepping faster than the daemon samples: every interval
# has the scenario's rates, so the finding stands sample after sample and
# rises; doc/advise.md "Stable")
"$SRCDIR/tests/fixtures/advance.py" "$S" "$tree" 2 --loop 0.05 &
gen_pid=$!
wait_doc "$hot"
wait_doc "$hot and d['sample'] > $(field "$d" 'd["sample"]') + 2"
hot_doc=$d
kill -TERM "$gen_pid"
wait "$gen_pid" || fail "advance.py failed"
gen_pid=
wait_doc "$calm"
wait_doc "$calm and d['sample'] > $(field "$d" 'd["sample"]')"
calm_doc=$d
kill "$daemon_pid" && wait "$daemon_pid"
daemon_pid=
hot_at=$(field "$hot_doc" '"@%.3f" % (d["timestamp_ms"] / 1000)')
calm_at=$(field "$calm_doc" '"@%.3f" % (d["timestamp_ms"] / 1000)')
hot_id=$(field "$hot_doc" 'd["sample"]')
calm_id=$(field "$calm_doc" 'd["sample"]')

# ---- replay --json ----
j=$("$IOTRIAGE" replay "$rec" --root "$tree" --json --at "$hot_at") || fail "replay --json --at"
[ "$(field "$j" 'd["sample"]')" = "$hot_id" ] || fail "replay --at $hot_at: sample $j"
same=$(printf '%s\n%s\n' "$hot_doc" "$j" | python3 -c '
import json, sys
a, b = (json.loads(x) for x in sys.stdin.read().splitlines())
print(all(a[k] == b[k] for k in ("findings", "suggestions")))')
[ "$same" = True ] || fail "replay's findings at sample $hot_id are not the daemon's:
daemon: $hot_doc
replay: $j"
j=$("$IOTRIAGE" replay "$rec" --root "$tree" --json --at "$calm_at") || fail "replay --json calm"
[ "$(field "$j" 'd["findings"] == [] and d["suggestions"] == []')" = True ] ||
	fail "a calm instant has findings: $j"
j=$("$IOTRIAGE" replay "$rec" --root "$tree" --json --at "$calm_at" --step 10s) ||
	fail "replay --step 10s"
[ "$(field "$j" "$hot and d['interval_ms'] >= 9500")" = True ] ||
	fail "--step 10s at the calm instant does not reach the hot phase: $j"
"$IOTRIAGE" replay "$rec" --root "$tree" --json >"$tmp/all.ndjson" || fail "replay --json"
# compute --recording between the hot sample and the one before it: the
# advice on the topology recorded with it (no --root), the daemon's
prev_at=$(python3 -c '
import json, sys
docs = [json.loads(x) for x in open(sys.argv[1])]
i = [d["sample"] for d in docs].index(int(sys.argv[2]))
print("@%.3f" % (docs[i - 1]["timestamp_ms"] / 1000))' "$tmp/all.ndjson" "$hot_id") ||
	fail "no sample before $hot_id"
j=$("$IOTRIAGE" compute --recording "$rec" "$prev_at" "$hot_at" --json) ||
	fail "compute --recording"
same=$(printf '%s\n%s\n' "$hot_doc" "$j" | python3 -c '
import json, sys
a, b = (json.loads(x) for x in sys.stdin.read().splitlines())
print(a["findings"] != [] and all(a[k] == b.get(k) for k in ("findings", "suggestions")))')
[ "$same" = True ] || fail "compute --recording's advice at sample $hot_id is not the daemon's:
daemon: $hot_doc
compute: $j"
# --step 1s over a 500 ms recording: after each document, the first sample
# taken at least 750 ms later (a second less half the recording's interval)
"$IOTRIAGE" replay "$rec" --root "$tree" --json --step 1s >"$tmp/step.ndjson" ||
	fail "replay --step 1s"
bad=$(python3 -c '
import json, sys
every, docs = ([json.loads(x) for x in open(f)] for f in sys.argv[1:3])
t = {d["sample"]: d["timestamp_ms"] for d in every}
want = [every[0]["sample"]]
while True:
    nxt = [s for s in sorted(t) if t[s] >= t[want[-1]] + 750]
    if not nxt:
        break
    want.append(nxt[0])
got = [d["sample"] for d in docs]
print("[]" if got == want and len(got) >= 4 else "%s, want %s" % (got, want))' \
	"$tmp/all.ndjson" "$tmp/step.ndjson")
[ "$bad" = "[]" ] || fail "--step 1s: samples $bad"
n=$(python3 -c '
import json, sys
docs = [json.loads(x) for x in open(sys.argv[1])]
print(sum(1 for d in docs if "interval_ms" in d and "findings" not in d))' "$tmp/all.ndjson")
[ "$n" = 0 ] || fail "$n replayed documents with an interval carry no findings"
"$IOTRIAGE" replay "$rec" --json --core-only | grep -q '"findings"' &&
	fail "replay --core-only carries findings"

# ---- the replay view ----
# the findings line is the second line of the screen
line2_has() { sed -n 2p "$tmp/screen" | grep -Eq -- "$1"; }
line2_lacks() { ! line2_has "$1"; }
RUN_AS="env TZ=UTC" run_in r 160 40 replay "$rec" --root "$tree" --at "$hot_at"
wait_for r "REPLAY .*#$hot_id " || fail "no replay header at sample $hot_id"
screen_wait r line2_has 'cpu1' || fail "the findings line does not name cpu1 at the hot instant"
# forward to the calm instant, one t a sample
i=$hot_id
while [ "$i" -lt "$calm_id" ]; do
	T send-keys -t r t
	i=$((i + 1))
done
wait_for r "#$calm_id " || fail "t did not step to sample $calm_id"
screen_wait r line2_lacks 'cpu1' || fail "the findings line still names cpu1 at the calm instant"
screen_wait r line2_has 'no findings' || fail "the calm instant does not say no findings"
# i: every 10 s, over the calm instant, reaches back into the hot phase
T send-keys -t r i
wait_for r 'REPLAY  every 10s' || fail "i did not set a 10 s interval"
screen_wait r line2_has 'cpu1' || fail "the 10 s interval does not name cpu1"
T send-keys -t r i i i
# every wider interval (10s, 60s, 600s) is passed through on the way: wait
# until none shows, not for any 'every Ns' (the screen already had one)
wait_gone r 'REPLAY  every (10|60|600)s  ' || fail "i did not come back to one sample"
wait_for r 'REPLAY  every [0-9.]+s  ' || fail "no interval in the header after i"
screen_wait r line2_lacks 'cpu1' || fail "back to one sample, still cpu1"
# back to the hot instant, T a sample
i=$calm_id
while [ "$i" -gt "$hot_id" ]; do
	T send-keys -t r T
	i=$((i - 1))
done
wait_for r "#$hot_id " || fail "T did not step back to sample $hot_id"
screen_wait r line2_has 'cpu1' || fail "T back to the hot instant: cpu1 not named"
# apply is refused: the recording is the past
T send-keys -t r f
wait_for r 'irq-spread' || fail "the findings view shows no suggestion at the hot instant"
T send-keys -t r G a
wait_for r 'nothing to apply: the recording is the past' || fail "apply was not refused"
screen_has '\? \[y/N\]' && fail "apply asked y/N in a replay"
T send-keys -t r u
wait_for r 'nothing to undo here' || fail "undo was not refused"
# time moves under the open panel, and its findings with it
i=$hot_id
while [ "$i" -lt "$calm_id" ]; do
	T send-keys -t r t
	i=$((i + 1))
done
wait_for r "No findings: nothing stands out" ||
	fail "t in the findings panel: no 'No findings' at the calm instant"
wait_for r "#$calm_id " || fail "t in the findings panel did not step to $calm_id"
T send-keys -t r T
wait_for r "#$((calm_id - 1)) " || fail "T in the findings panel did not step back"
T send-keys -t r Escape q
wait_for r 'exited rc=0' || fail "q did not exit 0"
[ "$(cat "$tree"/proc/irq/*/smp_affinity_list | md5sum)" = "$affinity_before" ] ||
	fail "the replay wrote affinities"
r=$(sanitizer_reports)
[ -z "$r" ] || fail "sanitizer: $r"
echo ok
