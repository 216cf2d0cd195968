# shellcheck shell=sh
# Sourced by the tests that act as another local user (issue 12's
# attackers): needs root, makes a group and a user named "$1-$$" (no home,
# no shell) and a temporary directory $tmp, all removed at exit. Exits 77
# with the reason where the machine refuses. Sets $name and $tmp.
temp_user() {
	[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
	command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (makes a user and a group)"; exit 77; }
	command -v useradd >/dev/null || { echo "SKIP: useradd not installed"; exit 77; }
	name="$1-$$"
	tmp=$(mktemp -d)
	trap 'userdel "$name" 2>/dev/null; groupdel "$name" 2>/dev/null; rm -rf "$tmp"' EXIT
	groupadd "$name" || { echo "SKIP: groupadd failed"; exit 77; }
	useradd -M -N -g "$name" -s /usr/sbin/nologin -d /nonexistent "$name" ||
		{ echo "SKIP: useradd failed"; exit 77; }
}

# user_copy DIR FILE...: copies FILE... (binaries, scripts) into DIR, made
# 0755 with its copies readable by all, for another uid to run: the
# checkout may sit under a directory that uid cannot enter (a clone in
# /root, issue 26), and what it runs must not come from there. DIR's own
# parents must let that uid through (a mktemp -d under /tmp does); the
# copies are DIR/$(basename FILE). Returns non-zero when a copy fails.
user_copy() {
	_d=$1
	shift
	mkdir -p "$_d" && chmod 755 "$_d" || return 1
	for _f in "$@"; do
		cp "$_f" "$_d/" && chmod a+rX "$_d/${_f##*/}" || return 1
	done
}
