# shellcheck shell=sh
# What scripts/run and scripts/test share: dependency installation and the
# build. Sourced, not executed.

ROOT_DIR=$(cd "$(dirname "$0")/.." && pwd)

log() { printf '%s\n' "$*" >&2; }

# Installs the packages of scripts/deps-debian.txt that are missing, with
# apt-get, when we are root on a Debian-like system. Otherwise names them.
install_deps() {
	want=$(grep -v '^#' "$ROOT_DIR/scripts/deps-debian.txt" | grep -v '^$')
	missing=""
	for p in $want; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		log "missing build dependencies:$missing"
		log "install them with: sudo apt-get install$missing"
		return 1
	fi
	log "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y --no-install-recommends $missing >/dev/null; then
		apt-get update >/dev/null && apt-get install -y --no-install-recommends $missing >/dev/null
	fi
}

# build DIR [meson options...]: configure once, then compile everything.
# IOTRIAGE_TARGETS (space-separated target names) compiles only those.
build() {
	dir=$1
	shift
	if [ ! -f "$ROOT_DIR/$dir/build.ninja" ]; then
		meson setup "$ROOT_DIR/$dir" "$ROOT_DIR" "$@" >/dev/null
	else
		meson configure "$ROOT_DIR/$dir" "$@" >/dev/null
	fi
	# shellcheck disable=SC2086
	meson compile -C "$ROOT_DIR/$dir" ${IOTRIAGE_TARGETS:-} >&2
}
