#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The house reads as the pipeline: src/lib <- collect, trace <- metrics <- advise <-
# encode <- src/sampler.c <- daemon and the client; act (the only writer: apply
# and undo) sits over advise, for the daemon and the client only, so advise
# stays pure (it never includes act, nor does encode). A file may include headers
# of its own stage and of the stages below it, never above: this walks every
# #include "..." of src/ and tui/ and fails naming each one that points up.
set -eu
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRCDIR"

# stage DIR -> the stages its files may include (besides include/iotriage)
allowed() {
	case $1 in
	src/lib) echo "src/lib" ;;
	src/collect) echo "src/lib src/collect" ;;
	src/trace) echo "src/lib src/trace" ;;
	src/metrics) echo "src/lib src/collect src/trace src/metrics" ;;
	src/advise) echo "src/lib src/collect src/trace src/metrics src/advise" ;;
	src/act) echo "src/lib src/collect src/trace src/metrics src/advise src/act" ;;
	src/encode) echo "src/lib src/collect src/trace src/metrics src/advise src/encode" ;;
	src) echo "src/lib src/collect src/trace src/metrics src/advise src/encode src" ;;
	src/workers) echo "src/lib src/workers" ;;
	src/daemon) echo "src/lib src/collect src/trace src/metrics src/advise src/act src/encode src src/workers src/daemon" ;;
	tui/model) echo "src/lib src/collect src/trace src/metrics src/advise src/encode tui/model" ;;
	tui) echo "src/lib src/collect src/trace src/metrics src/advise src/act src/encode src src/workers tui/model tui" ;;
	*) echo "" ;;
	esac
}
stages="src/lib src/collect src/trace src/metrics src/advise src/act src/encode src src/workers src/daemon tui/model tui"

# where a header lives: the one stage folder that holds it
where() {
	# generated at build time (src/trace: the kernel's types, the BPF skeleton)
	case $1 in vmlinux.h | *.skel.h) echo include; return ;; esac
	for s in $stages; do
		[ -f "$s/$1" ] && { echo "$s"; return; }
	done
	[ -f "include/$1" ] && { echo include; return; }
	echo unknown
}

bad=0
checked=0
for s in $stages; do
	ok=$(allowed "$s")
	for f in "$s"/*.c "$s"/*.h; do
		[ -f "$f" ] || continue
		for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			checked=$((checked + 1))
			at=$(where "$h")
			[ "$at" = include ] && continue
			case " $ok " in
			*" $at "*) ;;
			*)
				echo "layering: $f includes $h from $at (a $s file may include: $ok)"
				bad=$((bad + 1))
				;;
			esac
		done
	done
done
# every .c of the core sits in a stage folder, none loose in src/ but the pipeline
for f in src/*.c; do
	[ "$f" = src/sampler.c ] && continue
	echo "layering: $f sits outside the stage folders"
	bad=$((bad + 1))
done
# metrics/ and advise/ are functions of the samples they are given: they
# never read a clock (lib/clock.h is for the stages that take samples)
for f in src/metrics/*.[ch] src/advise/*.[ch]; do
	grep -qE '#include "clock.h"|clock_gettime\(|gettimeofday\(|[^_a-z]time\(NULL\)' "$f" || continue
	echo "layering: $f reads a clock (metrics and advise are pure)"
	bad=$((bad + 1))
done
# the stages doc/map.md maps: each file there with its job
for f in src/lib/*.[ch] src/trace/*.[ch] src/advise/*.[ch] src/act/*.[ch]; do
	grep -q "^| \`$f\` |" doc/map.md && continue
	echo "layering: $f has no line in doc/map.md"
	bad=$((bad + 1))
done
# and each file doc/map.md names still exists (a rename moves its line)
for f in $(sed -n 's/^| `\([^`]*\)` |.*/\1/p' doc/map.md); do
	[ -e "$f" ] && continue
	echo "layering: doc/map.md names $f, which does not exist"
	bad=$((bad + 1))
done
echo "layering: $checked includes checked, $bad pointing up or unmapped"
[ "$bad" -eq 0 ]
