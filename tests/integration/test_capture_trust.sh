#!/bin/sh
# capture DIR as root into a directory someone else prepared (issue 12):
# planted symlinks (DIR/proc/stat -> a victim file, DIR/sys -> a root-only
# directory), a DIR owned by another user, a DIR that is a symlink, a DIR
# not empty: each refused with the fix, and nothing written outside DIR.
set -u
fail() { echo "FAIL: $*"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: needs root (the attack is root's capture following a user's links)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'precious\n' >"$tmp/victim"
mkdir -m 0700 "$tmp/rootonly"

# the planted tree: proc/stat -> victim, sys -> the root-only directory
mkdir -p "$tmp/planted/proc"
ln -s "$tmp/victim" "$tmp/planted/proc/stat"
ln -s "$tmp/rootonly" "$tmp/planted/sys"
"$IOTRIAGE" capture "$tmp/planted" 2>"$tmp/err"; rc=$?
[ "$(cat "$tmp/victim")" = precious ] || fail "capture overwrote the victim through DIR/proc/stat"
[ -z "$(ls -A "$tmp/rootonly")" ] || fail "capture wrote into the root-only dir through DIR/sys: $(ls "$tmp/rootonly")"
[ $rc -eq 1 ] || fail "capture into a planted DIR exit $rc"
grep -q "^iotriage: capture $tmp/planted: not empty (holds '.*'): capture writes only into a new or empty directory; name a new directory or empty this one$" "$tmp/err" ||
	fail "planted DIR message: $(cat "$tmp/err")"

# an empty DIR of another user's: they could plant links while root writes
mkdir "$tmp/theirs"
chown 65534:65534 "$tmp/theirs"
"$IOTRIAGE" capture "$tmp/theirs" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "capture into another user's DIR exit $rc"
grep -q "^iotriage: capture $tmp/theirs: owned by uid 65534, not by you (uid 0): .*name a new directory$" "$tmp/err" ||
	fail "another user's DIR message: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/theirs")" ] || fail "capture wrote into another user's DIR"

# DIR itself a symlink to an empty directory (with and without a trailing /)
mkdir "$tmp/empty"
ln -s "$tmp/empty" "$tmp/link"
for d in "$tmp/link" "$tmp/link/"; do
	"$IOTRIAGE" capture "$d" 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "capture into a symlink $d exit $rc"
	grep -q "^iotriage: capture $d: a symbolic link: " "$tmp/err" || fail "symlink DIR message: $(cat "$tmp/err")"
done
[ -z "$(ls -A "$tmp/empty")" ] || fail "capture wrote through a symlinked DIR"

# a plain non-empty DIR of root's: refused too, its file untouched
mkdir "$tmp/full" && printf 'keep\n' >"$tmp/full/notes"
"$IOTRIAGE" capture "$tmp/full" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "capture into a non-empty DIR exit $rc"
grep -q "not empty (holds 'notes')" "$tmp/err" || fail "non-empty DIR message: $(cat "$tmp/err")"
[ "$(ls -A "$tmp/full")" = notes ] && [ "$(cat "$tmp/full/notes")" = keep ] || fail "non-empty DIR changed"

# an existing empty DIR of the caller's, and a new one, are written
"$IOTRIAGE" capture "$tmp/empty" 2>"$tmp/err" || fail "capture into an empty DIR: $(cat "$tmp/err")"
[ -s "$tmp/empty/proc/stat" ] && [ ! -L "$tmp/empty/proc/stat" ] || fail "empty DIR: no proc/stat"
"$IOTRIAGE" capture "$tmp/new/" 2>"$tmp/err" || fail "capture into a new DIR/: $(cat "$tmp/err")"
[ -s "$tmp/new/proc/diskstats" ] || fail "new DIR: no proc/diskstats"

# what only root reads on the host stays root's in the capture: every
# process's io (0400 on the host) is written 0600, what anyone reads 0644
[ "$(stat -c %a "$tmp/new/proc/diskstats")" = 644 ] || fail "proc/diskstats not 0644"
n=0
for f in "$tmp"/new/proc/[0-9]*/io; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f: mode $(stat -c %a "$f"), readable by others"
done
[ $n -gt 0 ] || fail "capture holds no proc/PID/io to check"
echo "ok"
