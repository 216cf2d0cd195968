#!/bin/sh
# The CLI as a person uses it: exit codes, error format, snapshot on the live
# host, compute on recorded trees, capture -> compute round trip.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$IOTRIAGE" --version | grep -q '^iotriage ' || fail "--version"
"$IOTRIAGE" --help | grep -q 'Usage: iotriage' || fail "--help"

# usage errors exit 2 with the iotriage: WHAT: WHY form or usage text
"$IOTRIAGE" frobnicate 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "unknown command exit $rc"
grep -q '^iotriage: frobnicate: unknown command' "$tmp/err" || fail "unknown command message"
"$IOTRIAGE" snapshot --bogus 2>/dev/null; [ $? -eq 2 ] || fail "unknown flag must exit 2"
"$IOTRIAGE" snapshot --interval abc 2>"$tmp/err"; [ $? -eq 2 ] || fail "bad interval exit"
grep -q '^iotriage: --interval:' "$tmp/err" || fail "bad interval message"
"$IOTRIAGE" compute 2>/dev/null; [ $? -eq 2 ] || fail "compute without trees must exit 2"
"$IOTRIAGE" compute /nonexistent-a /nonexistent-b 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "compute on missing trees exit $rc"
grep -q '^iotriage: /nonexistent-a: ' "$tmp/err" || fail "missing tree message: $(cat "$tmp/err")"

# live snapshot: table and JSON
"$IOTRIAGE" snapshot --interval 200 >"$tmp/out" || fail "snapshot"
head -n 1 "$tmp/out" | grep -q "^findings:" || fail "snapshot text does not open with the findings: $(head -n 1 "$tmp/out")"
grep -q '^Device ' "$tmp/out" || fail "snapshot table header"
grep -q '^all ' "$tmp/out" || fail "snapshot cpu all row"
"$IOTRIAGE" snapshot --interval 200 --json >"$tmp/out.json" || fail "snapshot --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"]==1; assert d["cpu-load"][0]["cpu"]=="all"; assert "disks" in d' "$tmp/out.json" || fail "snapshot json"
# with the advice of this host's topology (doc/json.md: snapshot documents
# carry findings; a live snapshot once carried none)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d["findings"], list) and isinstance(d["suggestions"], list)' "$tmp/out.json" ||
	fail "live snapshot --json without findings and suggestions"

# capture twice with load in between, then compute the pair
"$IOTRIAGE" capture "$tmp/t0" 2>/dev/null || fail "capture t0"
dd if=/dev/zero of="$tmp/junk" bs=1M count=8 conv=fsync 2>/dev/null
sleep 1
"$IOTRIAGE" capture "$tmp/t1" 2>/dev/null || fail "capture t1"
for f in proc/stat proc/diskstats proc/uptime proc/interrupts proc/softirqs; do
	[ -s "$tmp/t1/$f" ] || fail "capture missed $f"
done
# capture into something that cannot be a tree: iotriage: capture DIR: WHY, exit 1
: >"$tmp/afile"
"$IOTRIAGE" capture "$tmp/afile" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "capture into a regular file exit $rc"
grep -qx "iotriage: capture $tmp/afile: Not a directory" "$tmp/err" || fail "capture into a file message: $(cat "$tmp/err")"
# DIR is created, its parents are not
"$IOTRIAGE" capture "$tmp/noparent/t" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "capture under a missing parent exit $rc"
grep -qx "iotriage: capture $tmp/noparent/t: No such file or directory" "$tmp/err" || fail "capture under a missing parent message: $(cat "$tmp/err")"
[ -e "$tmp/noparent" ] && fail "capture created a missing parent"
# an unwritable parent; root writes anywhere, so as root run as nobody when setpriv can
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
as_user=
ucli=$IOTRIAGE
if [ "$(id -u)" -eq 0 ]; then
	as_user=skip
	if command -v setpriv >/dev/null 2>&1; then
		chmod 755 "$tmp"
		# a copy nobody may run: the checkout may sit under a 0700 directory
		. "$SRCDIR/tests/integration/user_lib.sh"
		user_copy "$tmp/bin" "$IOTRIAGE" || fail "copying the client for nobody"
		ucli="$tmp/bin/${IOTRIAGE##*/}"
		(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$ucli" --version) >/dev/null 2>&1 &&
			as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
fi
if [ "$as_user" != skip ]; then
	(cd / && $as_user "$ucli" capture "$tmp/ro/t") 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "capture into an unwritable directory exit $rc"
	grep -qx "iotriage: capture $tmp/ro/t: Permission denied" "$tmp/err" || fail "capture into an unwritable directory message: $(cat "$tmp/err")"
else
	echo "capture into an unwritable directory: not checked (root without setpriv, or nobody cannot run a copy of the client in $tmp)"
fi
chmod 700 "$tmp"
# a missing required source names the file
mkdir "$tmp/empty"
"$IOTRIAGE" capture "$tmp/fromempty" --root "$tmp/empty" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "capture of an empty root exit $rc"
grep -q "^iotriage: capture $tmp/fromempty: /proc/[a-z]*: No such file or directory\$" "$tmp/err" || fail "capture of an empty root message: $(cat "$tmp/err")"
"$IOTRIAGE" compute "$tmp/t0" "$tmp/t1" --json >"$tmp/c.json" || fail "compute"
python3 - "$tmp/c.json" <<'PY' || fail "compute json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interval_ms"] >= 1000, d["interval_ms"]
assert any(x["valid"] for x in d["disks"])
PY
# same tree twice: no interval
"$IOTRIAGE" compute "$tmp/t0" "$tmp/t0" 2>"$tmp/err"; [ $? -eq 1 ] || fail "same tree must fail"
grep -q 'no interval' "$tmp/err" || fail "same tree message"
"$IOTRIAGE" compute "$tmp/t0" "$tmp/t0" --interval 1000 >/dev/null || fail "same tree with --interval"

# a malformed file names the file and line, and other sources still report
cp -r "$tmp/t1" "$tmp/bad"
printf '   8 0 sda 1 2 3\n' >>"$tmp/bad/proc/diskstats"
"$IOTRIAGE" compute "$tmp/t0" "$tmp/bad" --json >"$tmp/bad.json" 2>"$tmp/err" || fail "compute with bad diskstats must still report CPUs"
grep -q 'diskstats:[0-9]*: too few fields' "$tmp/err" || fail "bad file message: $(cat "$tmp/err")"
grep -q '"cpu-load"' "$tmp/bad.json" || fail "cpu data lost with bad diskstats"
echo "ok"
