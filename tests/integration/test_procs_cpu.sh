#!/bin/sh
# %CPU of a process against pidstat -u (issue 22): a CPU burner that does no
# IO is a row of `snapshot --json` (top_cpu) with cpu_pct within 10 points of
# pidstat's %CPU over the same seconds, with its command line and user.
set -u
fail() { echo "FAIL: $*"; exit 1; }
command -v pidstat >/dev/null || { echo "SKIP: pidstat (sysstat) not installed"; exit 77; }
tmp=$(mktemp -d)
burner=
cleanup() {
	[ -n "$burner" ] && kill "$burner" 2>/dev/null && wait "$burner" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

sh -c 'while :; do :; done' iotr-burner-arg &
burner=$!
# the same three seconds, give or take a process start
LC_ALL=C pidstat -u -p "$burner" 1 3 >"$tmp/pidstat" 2>&1 &
ps=$!
"$IOTRIAGE" snapshot --json --interval 3000 >"$tmp/snap.json" 2>"$tmp/err" || {
	cat "$tmp/err"
	fail "snapshot"
}
wait "$ps" || fail "pidstat: $(cat "$tmp/pidstat")"
python3 - "$tmp/snap.json" "$tmp/pidstat" "$burner" "$(id -un)" <<'PY' || fail "cpu_pct"
import json, sys
doc = json.load(open(sys.argv[1]))
pid, user = int(sys.argv[3]), sys.argv[4]
procs = doc["processes"]
rows = [p for p in procs["top_cpu"] if p["pid"] == pid]
assert rows, ("burner not in top_cpu", procs["top_cpu"])
row = rows[0]
# pidstat's Average line: ... UID PID %usr %system %guest %wait %CPU CPU Command
lines = [l.split() for l in open(sys.argv[2])]
hdr = [l for l in lines if "%CPU" in l][0]
avg = [l for l in lines if l and l[0] == "Average:"]
assert len(avg) == 1 and len(avg[0]) == len(hdr), open(sys.argv[2]).read()
val = avg[0]
ours, theirs = row["cpu_pct"], float(val[hdr.index("%CPU")])
print(f"cpu_pct {ours} pidstat %CPU {theirs}")
assert abs(ours - theirs) <= 10, (ours, theirs)
assert abs(row["usr_pct"] + row["sys_pct"] - ours) < 0.02, row
assert row["kB_rd/s"] == 0 and row["kB_wr/s"] == 0, row
assert row["cmdline"] == "sh -c while :; do :; done iotr-burner-arg", row
assert row["user"] == user, (row, user)
assert "unit" in row and "uid" in row, row
PY
echo "ok"
