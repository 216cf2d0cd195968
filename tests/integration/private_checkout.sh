#!/bin/sh
# Runs one test (its path, then its arguments) as it runs from a checkout
# under a directory only root may enter (issue 26: `git clone ... /root/x`,
# /root being 0700): $SRCDIR, $BUILDDIR, $FIXTURES, $IOTRIAGE, $IOTRIAGED
# and the test's own path are seen through symbolic links in a fresh 0700
# directory, and the test starts there. Another uid the test runs something
# as reaches none of them: the test must copy what that uid needs into its
# own world-readable directory (tests/integration/user_lib.sh's user_copy,
# daemon_lib.py's user_copy) or skip with the reason. meson.build runs
# every test that drops to another uid through this (test_private_checkout.sh
# checks that none is missed).
set -u
[ $# -ge 1 ] || { echo "usage: private_checkout.sh TEST [ARG...]" >&2; exit 2; }
if [ "$(id -u)" != 0 ] || [ -z "${SRCDIR:-}" ] || [ -z "${BUILDDIR:-}" ]; then
	exec "$@" # not root: the test drops to no other uid, nothing to hide
fi
priv=$(mktemp -d) || exit 1
chmod 700 "$priv"
ln -s "$SRCDIR" "$priv/src" && ln -s "$BUILDDIR" "$priv/build" || exit 1
# the path of $1 through the 0700 directory (the build tree may sit in the source tree)
hide() {
	case $1 in
	"$BUILDDIR" | "$BUILDDIR"/*) echo "$priv/build${1#"$BUILDDIR"}" ;;
	"$SRCDIR" | "$SRCDIR"/*) echo "$priv/src${1#"$SRCDIR"}" ;;
	*) echo "$1" ;;
	esac
}
t=$(hide "$1")
shift
for v in FIXTURES IOTRIAGE IOTRIAGED; do
	eval "val=\${$v:-}"
	# shellcheck disable=SC2154
	[ -n "$val" ] && export "$v=$(hide "$val")"
done
SRCDIR=$priv/src BUILDDIR=$priv/build
export SRCDIR BUILDDIR
cd "$priv/build" || exit 1
"$t" "$@" &
child=$!
trap 'kill -TERM $child 2>/dev/null' INT TERM
wait $child
rc=$?
# a signal interrupts the first wait: the child's own status after it ends
kill -0 $child 2>/dev/null && { wait $child; rc=$?; }
cd / && rm -rf "$priv"
exit $rc
