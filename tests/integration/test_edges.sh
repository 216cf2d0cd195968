#!/bin/sh
# compute on the hand-made edge trees (tests/fixtures/make-trees.py): resets,
# removed devices, CPUs going offline, truncated files, old kernels. Each must
# give a reason for what it could not compare and still report the rest.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # name -> $tmp/name.json, $tmp/name.err
	"$IOTRIAGE" compute "$FIXTURES/$1/t0" "$FIXTURES/$1/t1" --json >"$tmp/$1.json" 2>"$tmp/$1.err" ||
		fail "$1: compute exit $?: $(cat "$tmp/$1.err")"
}
check() { # name python-assertions (d = document, err = stderr text)
	python3 - "$tmp/$1.json" "$tmp/$1.err" "$2" <<'PY' || fail "$1: $(cat "$tmp/$1.err")"
import json, sys
d = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
disks = {x["disk_device"]: x for x in d.get("disks", [])}
cpus = {x["cpu"]: x for x in d.get("cpu-load", [])}
irqs = {x["name"]: x for x in d.get("interrupts", [])}
exec(sys.argv[3])
PY
}

run edge-14field
check edge-14field '
assert all(x["valid"] for x in disks.values())
assert "d/s" not in disks["sda"] and "f/s" not in disks["sda"], "absent fields must be absent"
assert "r_await" in disks["sda"]
'
run edge-reset
check edge-reset '
assert not disks["sda"]["valid"] and "backwards" in disks["sda"]["reason"]
assert "r/s" not in disks["sda"]
assert disks["sdb"]["valid"] and disks["sdc"]["valid"]
assert "sda: not compared" in err
'
run edge-removed
check edge-removed '
assert "sdb" not in disks
# new in the interval: its counters started at 0 in it, rated from zero (iostat does too)
assert disks["sdd"]["valid"] and disks["sdd"]["new"], disks["sdd"]
assert disks["sda"]["valid"]
assert "sdb: not compared: absent in AFTER" in err
'
run edge-cpus
check edge-cpus '
assert set(cpus) == {"all", "0", "1", "3"}, cpus.keys()
assert all(c["valid"] for c in cpus.values())
for r in irqs.values():
    assert "2" not in r.get("cpus", {}), r
assert abs(sum(float(cpus[c][k]) for k in ("usr","nice","sys","iowait","irq","soft","steal","idle") for c in ["0"]) - 100) < 0.1
'
run edge-truncated
check edge-truncated '
assert d["sources"]["interrupts"]["available"] is False
assert "proc/interrupts:" in d["sources"]["interrupts"]["reason"] and "truncated" in d["sources"]["interrupts"]["reason"]
assert "interrupts" not in d and "intr/s" not in cpus["0"], "no invented interrupt numbers"
assert disks and cpus["all"]["valid"], "other sources still reported"
assert "interrupts unavailable" in err
'
run hot-irq
check hot-irq '
hot = [r for r in irqs.values() if r.get("actions", "").startswith("mpt2sas")]
assert len(hot) == 16 and all(set(r["cpus"]) == {"1"} for r in hot)
assert float(cpus["1"]["intr/s"]) > 80000 and float(cpus["0"]["intr/s"]) == 0
'

"$IOTRIAGE" compute "$FIXTURES/edge-stack/t0" "$FIXTURES/edge-stack/t1" --json --all \
	>"$tmp/edge-stack.json" 2>"$tmp/edge-stack.err" || fail "edge-stack"
check edge-stack '
assert disks["sda"]["whole"] and not disks["sda1"]["whole"], "partition told from disk by /sys/block"
assert disks["dm-0"]["dm_name"] == "vg0-data"
assert sorted(disks["dm-0"]["slaves"]) == ["sda1"]
assert sorted(disks["md0"]["slaves"]) == ["sdb", "sdc"]
assert disks["cciss/c0d0"]["whole"], "cciss!c0d0 in sysfs"
assert disks["sdc"]["iostats"] is False and "iostats" not in disks["sdb"]
'
run edge-stack
check edge-stack '
assert "sda1" not in disks, "partitions only with --all"
assert "md0" in disks and "dm-0" in disks
'

# a missing source is unavailable with its reason, never zeros
cp -r "$FIXTURES/hot-irq" "$tmp/nosoft"
rm "$tmp/nosoft/t1/proc/softirqs"
"$IOTRIAGE" compute "$tmp/nosoft/t0" "$tmp/nosoft/t1" --json >"$tmp/nosoft.json" 2>"$tmp/nosoft.err" || fail "nosoft"
check nosoft '
assert d["sources"]["softirqs"]["available"] is False
assert "No such file" in d["sources"]["softirqs"]["reason"]
assert "softirqs" not in d
'

# a malformed diskstats line in one tree: said once, naming the file and line,
# not as every disk "absent" in the other tree; CPUs and IRQs still reported
for side in t1 t0; do
	rm -rf "$tmp/baddisk"
	cp -r "$FIXTURES/edge-14field" "$tmp/baddisk"
	sed '3s/.*/   8 16 sdb 1 2 3/' "$FIXTURES/edge-14field/$side/proc/diskstats" \
		>"$tmp/baddisk/$side/proc/diskstats"
	"$IOTRIAGE" compute "$tmp/baddisk/t0" "$tmp/baddisk/t1" --json >"$tmp/baddisk-$side.json" \
		2>"$tmp/baddisk-$side.err" || fail "baddisk $side: compute exit $?: $(cat "$tmp/baddisk-$side.err")"
	check "baddisk-$side" '
side = "'"$side"'"
assert err.count("diskstats unavailable") == 1, err
assert ("/" + side + "/proc/diskstats:3: ") in err, err
assert "absent" not in err and "previous sample" not in err and "not compared" not in err, err
for x in disks.values():
    assert not x["valid"] and ("/" + side + "/proc/diskstats:3: ") in x["reason"], x
if side == "t1":
    assert d["sources"]["diskstats"]["available"] is False and not disks
assert cpus["all"]["valid"] and irqs, "CPUs and IRQs still reported"
'
done
echo ok
