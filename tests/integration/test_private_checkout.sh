#!/bin/sh
# Issue 26: scripts/test passes from a checkout under a directory only root
# may enter (a clone in /root). meson.build runs every test that drops to
# another uid (its arguments here) through private_checkout.sh, which shows
# it the source and build trees only through a 0700 directory, so such a
# test passes only if it copies what the other uid needs into its own
# world-readable directory. This checks the two halves of that promise:
#  1. every test that runs something as another uid (setpriv, runuser, su,
#     sudo -u, setuid calls) is in the list, so none is missed;
#  2. through private_checkout.sh, another uid reaches neither the sources
#     nor the client, and root still runs the test and gets its status.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${SRCDIR:-}" ] && [ -n "${IOTRIAGE:-}" ] || { echo "SKIP: \$SRCDIR or \$IOTRIAGE not set"; exit 77; }
listed=" $* "

# ---- 1. no test drops to another uid outside the list ----
# test_package.sh runs only the installed package and the system's dd as
# nobody, from directories of its own: nothing of the checkout. This test
# names setpriv itself. bounds sets a resource limit (preexec_fn) and trace
# drops capabilities (setpriv --inh-caps), both staying root.
exempt=" package private_checkout bounds trace "
missing=
for f in "$SRCDIR"/tests/integration/test_*.sh "$SRCDIR"/tests/integration/test_*.py; do
	t=${f##*/test_}
	t=${t%.*}
	grep -Eq 'setpriv|runuser|(^|[^a-z_])su -|sudo -u|os\.set(res)?e?uid|preexec_fn|user=' "$f" ||
		continue
	case "$listed$exempt" in *" $t "*) continue ;; esac
	missing="$missing $t"
done
[ -z "$missing" ] ||
	fail "these tests run something as another uid but are not in meson.build's other_uid_tests:$missing"
echo "tests that drop to another uid, run as from a 0700 checkout:$listed"

# ---- 2. what private_checkout.sh shows the test ----
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	echo "SKIP: needs root and setpriv to look as nobody"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/probe.sh" <<'SH'
#!/bin/sh
# as nobody, from /: nothing under $SRCDIR or beside $IOTRIAGE may be read
nb() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@") 2>/dev/null; }
nb cat "$SRCDIR/meson.build" >/dev/null && { echo "nobody reads $SRCDIR/meson.build"; exit 1; }
nb cat "$IOTRIAGE" >/dev/null && { echo "nobody reads $IOTRIAGE"; exit 1; }
nb cat "$FIXTURES/advance.py" >/dev/null && { echo "nobody reads $FIXTURES"; exit 1; }
# root reads them all, from the directory the test starts in
[ -r "$SRCDIR/meson.build" ] && [ -x "$IOTRIAGE" ] || { echo "root cannot reach them"; exit 1; }
[ "$(cd "$BUILDDIR" && pwd)" = "$(pwd)" ] || { echo "the test starts in $(pwd), not $BUILDDIR"; exit 1; }
echo "$SRCDIR" >"$1"
exit 3
SH
chmod 755 "$tmp/probe.sh"
for f in meson.build tests/fixtures/advance.py; do
	[ -e "$SRCDIR/$f" ] || fail "$SRCDIR/$f missing"
done
FIXTURES=$SRCDIR/tests/fixtures BUILDDIR=${BUILDDIR:-$(dirname "$(dirname "$IOTRIAGE")")} \
	"$SRCDIR/tests/integration/private_checkout.sh" "$tmp/probe.sh" "$tmp/seen" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "the probe through private_checkout.sh: exit $rc (not its own 3): $(cat "$tmp/out")"
seen=$(cat "$tmp/seen")
[ "$seen" != "$SRCDIR" ] || fail "the probe saw \$SRCDIR unchanged"
[ ! -e "$seen" ] || fail "private_checkout.sh left $seen behind"
echo "through private_checkout.sh the checkout is at $seen (gone after): nobody reaches none of it"
echo ok
