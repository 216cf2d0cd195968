#!/bin/sh
# The C sources follow the checked-in .clang-format (STYLE.md: one format,
# checked in CI). Lists each file that clang-format would change.
set -u
command -v clang-format >/dev/null || { echo "SKIP: clang-format not installed"; exit 77; }
cd "$SRCDIR" || exit 1
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
bad=0
for f in $(git ls-files '*.c' '*.h'); do
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not formatted: $f (run clang-format -i $f)"
		bad=1
	fi
done
[ $bad -eq 0 ] && echo "ok"
exit $bad
