#!/bin/sh
# iotriage metrics --textfile PATH as root, PATH under a directory another
# user owns (the exporter's home, /var/lib/prometheus, holding the textfile
# collector's directory): they swap the collector's directory for a symlink
# to a directory of root's (/etc/logrotate.d), and root's file must not
# land there. Refused with the fix; written through real directories only.
set -u
fail() { echo "FAIL: $*"; exit 1; }
if [ "$(id -u)" -ne 0 ]; then
	echo "skip: needs root (the attack is root's write following a user's link)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"

# the exporter's home and its textfile directory, both another user's
mkdir -p "$tmp/home/node-exporter" "$tmp/etc-victim"
printf 'precious\n' >"$tmp/etc-victim/iotriage.prom"
chown -R 65534:65534 "$tmp/home"
"$IOTRIAGE" metrics --interval 10 --textfile "$tmp/home/node-exporter/iotriage.prom" 2>"$tmp/err" ||
	fail "into the real directory: $(cat "$tmp/err")"
grep -q '^iotriage_build_info' "$tmp/home/node-exporter/iotriage.prom" || fail "no exposition written"

# the owner of home/ swaps node-exporter/ for a link to root's directory
mv "$tmp/home/node-exporter" "$tmp/home/old"
ln -s "$tmp/etc-victim" "$tmp/home/node-exporter"
chown -h 65534:65534 "$tmp/home/node-exporter"
for p in "$tmp/home/node-exporter/iotriage.prom" "$tmp/home//./node-exporter/iotriage.prom"; do
	"$IOTRIAGE" metrics --interval 10 --textfile "$p" 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "through a symlinked directory ($p): exit $rc"
	[ "$(cat "$tmp/etc-victim/iotriage.prom")" = precious ] ||
		fail "the file replaced in the link's target through $p"
	[ "$(ls -A "$tmp/etc-victim")" = iotriage.prom ] ||
		fail "written into the link's target: $(ls -A "$tmp/etc-victim")"
	grep -q "^iotriage: $p: directory (a symbolic link on the way, which is not followed: name the real directory, realpath; or not a directory): Not a directory$" "$tmp/err" ||
		fail "symlinked directory message: $(cat "$tmp/err")"
done

# a link further up is refused the same way; ".." is refused
ln -s "$tmp/home" "$tmp/homelink"
"$IOTRIAGE" metrics --interval 10 --textfile "$tmp/homelink/old/iotriage.prom" 2>"$tmp/err" &&
	fail "through a symlinked parent: written"
grep -q "a symbolic link on the way" "$tmp/err" || fail "symlinked parent message: $(cat "$tmp/err")"
"$IOTRIAGE" metrics --interval 10 --textfile "$tmp/home/old/../old/iotriage.prom" 2>"$tmp/err" &&
	fail "through ..: written"
grep -q 'no ".." in its path' "$tmp/err" || fail ".. message: $(cat "$tmp/err")"

# relative paths, "." steps and doubled slashes still reach a real directory
rm -f "$tmp/home/old/iotriage.prom"
(cd "$tmp/home" && "$IOTRIAGE" metrics --interval 10 --textfile ./old//iotriage.prom) 2>"$tmp/err" ||
	fail "relative path: $(cat "$tmp/err")"
[ -s "$tmp/home/old/iotriage.prom" ] && [ ! -L "$tmp/home/old/iotriage.prom" ] || fail "relative path: not written"
(cd "$tmp/home/old" && "$IOTRIAGE" metrics --interval 10 --textfile iotriage.prom) 2>"$tmp/err" ||
	fail "bare name: $(cat "$tmp/err")"
[ "$(ls -A "$tmp/home/old")" = iotriage.prom ] || fail "temporary files left: $(ls -A "$tmp/home/old")"
echo "ok"
