#!/bin/sh
# The documentation tells the truth about the binaries: every subcommand and
# long option the programs print in --help is in their man page, every
# option a man page names exists, and doc/protocol.md lists every request of
# the daemon's dispatch table and every error code of protocol.h.
set -u
bad=0
miss() { echo "FAIL: $*"; bad=1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
man1="$SRCDIR/doc/man/iotriage.1.scd"
man8="$SRCDIR/doc/man/iotriaged.8.scd"
proto="$SRCDIR/doc/protocol.md"

longopts() { grep -o -- '--[a-z][a-z_-]*' | sort -u; }

# ---- iotriage(1) ----
cmds=$("$IOTRIAGE" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$cmds" ] || miss "no commands in iotriage --help"
: >"$tmp/help1"
"$IOTRIAGE" --help >>"$tmp/help1"
for c in $cmds; do
	grep -q "^\*iotriage $c[* ]" "$man1" || miss "iotriage.1.scd: no *iotriage $c* in SYNOPSIS"
	"$IOTRIAGE" "$c" --help >>"$tmp/help1" 2>&1
done
# the live view's usage: only on a terminal (off one, iotriage is snapshot)
if command -v script >/dev/null; then
	script -qc "'$IOTRIAGE' --embedded --help" /dev/null >>"$tmp/help1" 2>&1 </dev/null
	grep -q -- '--await-ms' "$tmp/help1" || miss "could not read the live view's --help"
fi
longopts <"$tmp/help1" >"$tmp/opts1"
for o in $(cat "$tmp/opts1"); do
	grep -q -- "\*$o\*" "$man1" || miss "iotriage.1.scd: $o (in --help) is not described"
done
# fio's aliases are accepted without being in bench --help: the parser's table
sed -n 's/^[[:space:]]*{ "\([a-z_-]*\)", O_[A-Z_]*, K_[A-Z]*, apply_[a-z]* },.*/--\1/p' \
	"$SRCDIR/src/workers/fioopts.c" >>"$tmp/opts1"
# the page may name the daemon's options (iotriaged --core-only)
"$IOTRIAGED" --help | longopts >>"$tmp/opts1"
sort -u "$tmp/opts1" -o "$tmp/opts1"
[ "$(wc -l <"$tmp/opts1")" -gt 40 ] || miss "could not read the bench options table"
for o in $(grep -o -- '\*--[a-z][a-z_-]*\*' "$man1" | tr -d '*' | sort -u); do
	grep -qx -- "$o" "$tmp/opts1" || miss "iotriage.1.scd names $o, which iotriage does not take"
done

# ---- iotriaged(8) ----
"$IOTRIAGED" --help >"$tmp/help8" || miss "iotriaged --help"
for o in $(longopts <"$tmp/help8"); do
	grep -q -- "\*$o\*" "$man8" || miss "iotriaged.8.scd: $o (in --help) is not described"
done
for o in $(sed -n '/^# OPTIONS/,/^# [A-Z]/p' "$man8" | grep -o -- '\*--[a-z][a-z_-]*\*' | tr -d '*' | sort -u); do
	grep -q -- "$o" "$tmp/help8" || miss "iotriaged.8.scd documents $o, which iotriaged does not take"
done

# ---- doc/protocol.md ----
reqs=$(sed -n '/commands\[\] = {/,/^};/p' "$SRCDIR/src/daemon/commands.c" |
	sed -n 's/^[[:space:]]*{ "\([a-z.]*\)",.*/\1/p')
[ -n "$reqs" ] || miss "no dispatch table in commands.c"
for r in $reqs; do
	grep -q "\"cmd\":\"$r\"" "$proto" || miss "protocol.md: no example of \"cmd\":\"$r\""
	grep -q "^| \`$r\` |" "$proto" || miss "protocol.md: $r missing from the request table"
done
codes=$(sed -n 's/^[[:space:]]*\[IOT_ERR_[A-Z_]*\] = "\([a-z_]*\)",/\1/p' \
	"$SRCDIR/include/iotriage/protocol.h")
[ -n "$codes" ] || miss "no error names in protocol.h"
for e in $codes; do
	grep -q "^| \`$e\` |" "$proto" || miss "protocol.md: error code $e not in the table"
done

# ---- the --trace drop-in: one source ----
# doc/security.md quotes packaging/systemd/iotriaged-trace.conf whole, in an
# ini block; the file is what the packages ship.
dropin="$SRCDIR/packaging/systemd/iotriaged-trace.conf"
awk -v dir="$tmp" '/^```ini$/ { n++; f = dir "/ini." n; printf "" >f; next }
	/^```$/ { f = ""; next } f { print >f }' "$SRCDIR/doc/security.md"
quoted=0
for f in "$tmp"/ini.*; do
	[ -f "$f" ] && cmp -s "$f" "$dropin" && quoted=1
done
[ $quoted = 1 ] || miss "doc/security.md has no ini block equal to packaging/systemd/iotriaged-trace.conf"

[ $bad -eq 0 ] && echo "ok"
exit $bad
