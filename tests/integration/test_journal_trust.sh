#!/bin/sh
# The undo journal is replayed as root (issue 12): a journal directory that
# someone else owns or can write is refused with the fix, and a planted
# journal naming a file apply never writes (a disk's device/delete, a
# driver's unbind, a ".." path) or a symlink is refused whole: nothing written.
set -u
fail() { echo "FAIL: $*"; exit 1; }
A="$FIXTURES/advise"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 0700 "$tmp"

cp -a "$A/mpt2sas/t1" "$tmp/root"
mkdir -p "$tmp/root/sys/block/sda/device" "$tmp/root/sys/bus/pci/drivers/x"
printf 'keep\n' >"$tmp/root/sys/block/sda/device/delete"
printf 'keep\n' >"$tmp/root/sys/bus/pci/drivers/x/unbind"
untouched() {
	for f in sys/block/sda/device/delete sys/bus/pci/drivers/x/unbind; do
		[ "$(cat "$tmp/root/$f")" = keep ] || fail "$1: $f written"
	done
	for i in $(seq 107 122); do
		[ "$(cat "$tmp/root/proc/irq/$i/smp_affinity_list")" = 0-7 ] || fail "$1: irq $i written"
	done
}
apply() { "$IOTRIAGE" apply irq-spread-host0 --before "$A/mpt2sas/t0" --root "$tmp/root" "$@"; }

# a journal directory anyone can write: refused, with the fix
mkdir "$tmp/open" && chmod 0777 "$tmp/open"
apply --state-dir "$tmp/open" >/dev/null 2>"$tmp/err"; rc=$?
untouched "apply into a 0777 journal dir"
[ $rc -eq 1 ] || fail "apply into a 0777 journal dir exit $rc"
grep -qF "chown root:root $tmp/open && chmod 0700 $tmp/open" "$tmp/err" || fail "0777 message: $(cat "$tmp/err")"
grep -q "is mode 0777" "$tmp/err" || fail "0777 message: $(cat "$tmp/err")"
printf 'iotriage-undo 1\nid x\nwrite proc/irq/107/smp_affinity_list\t5\t0\n' >"$tmp/open/x.undo"
"$IOTRIAGE" undo --root "$tmp/root" --state-dir "$tmp/open" >/dev/null 2>"$tmp/err"; rc=$?
untouched "undo from a 0777 journal dir"
[ $rc -eq 1 ] || fail "undo from a 0777 journal dir exit $rc"
grep -qF "chmod 0700 $tmp/open" "$tmp/err" || fail "undo 0777 message: $(cat "$tmp/err")"

# one owned by nobody, 0700: refused the same way
if [ "$(id -u)" -eq 0 ]; then
	mkdir -m 0700 "$tmp/nobody" && chown 65534:65534 "$tmp/nobody"
	"$IOTRIAGE" undo --root "$tmp/root" --state-dir "$tmp/nobody" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "journal dir of nobody exit $rc"
	grep -q "owner uid 65534" "$tmp/err" || fail "nobody message: $(cat "$tmp/err")"
	grep -qF "chown root:root $tmp/nobody && chmod 0700 $tmp/nobody" "$tmp/err" ||
		fail "nobody message: $(cat "$tmp/err")"
fi

# the default ROOT/var/lib/iotriage, planted 0755: refused
mkdir -p -m 0755 "$tmp/root/var/lib/iotriage"
chmod 0755 "$tmp/root/var/lib/iotriage"
cp "$tmp/open/x.undo" "$tmp/root/var/lib/iotriage/"
"$IOTRIAGE" undo --root "$tmp/root" >/dev/null 2>"$tmp/err"; rc=$?
untouched "undo from a 0755 ROOT/var/lib/iotriage"
[ $rc -eq 1 ] || fail "undo from a 0755 ROOT/var/lib/iotriage exit $rc"
grep -qF "chmod 0700 $tmp/root/var/lib/iotriage" "$tmp/err" || fail "0755 message: $(cat "$tmp/err")"
rm -rf "$tmp/root/var"

# a proper journal directory holding planted entries: refused whole
mkdir -m 0700 "$tmp/state"
for p in sys/block/sda/device/delete sys/bus/pci/drivers/x/unbind \
	sys/block/sda/queue/../device/delete proc/irq/107/../../../sys/block/sda/device/delete; do
	printf 'iotriage-undo 1\nid p\nwrite proc/irq/107/smp_affinity_list\t5\t0\nwrite %s\t1\t0\n' \
		"$p" >"$tmp/state/p.undo"
	"$IOTRIAGE" undo p --root "$tmp/root" --state-dir "$tmp/state" >/dev/null 2>"$tmp/err"; rc=$?
	untouched "planted $p"
	[ $rc -eq 1 ] || fail "planted $p: exit $rc"
	grep -q "the undo journal is corrupt; left in place" "$tmp/err" || fail "planted $p message: $(cat "$tmp/err")"
	[ -f "$tmp/state/p.undo" ] || fail "planted $p: journal removed"
done
rm -f "$tmp/state/p.undo"

# a journal that is a symlink to a valid one elsewhere: refused
printf 'iotriage-undo 1\nid p\nwrite proc/irq/107/smp_affinity_list\t5\t0\n' >"$tmp/elsewhere.undo"
ln -s "$tmp/elsewhere.undo" "$tmp/state/p.undo"
"$IOTRIAGE" undo p --root "$tmp/root" --state-dir "$tmp/state" >/dev/null 2>"$tmp/err"; rc=$?
untouched "symlinked journal"
[ $rc -eq 1 ] || fail "symlinked journal exit $rc"
grep -q "not a regular file" "$tmp/err" || fail "symlinked journal message: $(cat "$tmp/err")"
rm -f "$tmp/state/p.undo"

# a recorded root whose IRQ file is a link to a file outside: reading
# resolves it inside the tree (doc/trees.md), writing follows no link
printf '0-7\n' >"$tmp/victim"
rm "$tmp/root/proc/irq/122/smp_affinity_list"
ln -s "$tmp/victim" "$tmp/root/proc/irq/122/smp_affinity_list"
apply --state-dir "$tmp/state" >/dev/null 2>"$tmp/err"
[ "$(cat "$tmp/victim")" = 0-7 ] || fail "apply wrote through a symlinked IRQ file"
"$IOTRIAGE" undo --root "$tmp/root" --state-dir "$tmp/state" >/dev/null 2>&1
# and a link that reads fine (to a file of the tree): apply refuses to write through it
printf '0-7\n' >"$tmp/root/victim"
rm "$tmp/root/proc/irq/122/smp_affinity_list"
ln -s ../../../victim "$tmp/root/proc/irq/122/smp_affinity_list"
apply --state-dir "$tmp/state" >/dev/null 2>"$tmp/err"; rc=$?
[ "$(cat "$tmp/root/victim")" = 0-7 ] || fail "apply wrote through a symlinked IRQ file in the tree"
[ $rc -eq 1 ] || fail "apply through a symlink exit $rc: $(cat "$tmp/err")"
rm "$tmp/root/proc/irq/122/smp_affinity_list" "$tmp/root/victim" && printf '0-7\n' >"$tmp/root/proc/irq/122/smp_affinity_list"
untouched "apply through a symlink"

# and the good path still works: apply, undo through the 0700 directory
apply --state-dir "$tmp/state" >"$tmp/out" 2>&1 || fail "apply: $(cat "$tmp/out")"
[ "$(stat -c %a "$tmp/state")" = 700 ] || fail "state dir mode changed"
"$IOTRIAGE" undo --root "$tmp/root" --state-dir "$tmp/state" >"$tmp/out" 2>&1 || fail "undo: $(cat "$tmp/out")"
untouched "apply then undo"
echo ok
