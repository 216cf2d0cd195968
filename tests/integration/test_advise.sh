#!/bin/sh
# The advisor from the command line: suggest on every scenario pair (text and
# JSON), compute --json carrying findings/suggestions, apply/undo against a
# copy of a recorded tree whose /proc/irq files are plain files, and the
# errors a person meets (unknown id, applied twice, nothing to undo).
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
A="$FIXTURES/advise"

# every scenario: JSON parses and ids are what the scenario promises (one
# python run for all: its start-up costs a second on a loaded machine)
: >"$tmp/expect"
check() { # scenario "finding ids" "suggestion ids"
	"$IOTRIAGE" suggest "$A/$1/t0" "$A/$1/t1" --json >"$tmp/$1.json" 2>"$tmp/err" ||
		fail "$1: suggest exit $? $(cat "$tmp/err")"
	printf '%s|%s|%s\n' "$1" "$2" "$3" >>"$tmp/expect"
}
check mpt2sas "hot-cpu-cpu1" "irq-spread-host0"
check nvme-managed "hot-cpu-cpu2 managed-irqs-nvme0" ""
check nic-single-queue "hot-cpu-cpu0" "rps-eth0"
check irqbalance "hot-cpu-cpu3 irqbalance-irqbalance" "irq-spread-eth1"
check isolated "hot-cpu-cpu0" "irq-spread-eth0"
check numa1 "hot-cpu-cpu0" "irq-spread-eth2"
check healthy "" ""
check disk-saturated "disk-saturated-sdb" "scheduler-sdb"
check disk-slow "disk-slow-sdc" ""
check iostats-off "iostats-off-sdd" "iostats-sdd"
check md-raid0 "disk-saturated-sdd disk-saturated-sdf member-imbalance-md0-sdf" ""
check container "hot-cpu-cpu1 topology-missing-topology" ""
check old-kernel "hot-cpu-cpu1 topology-missing-topology" "irq-spread-mpt2sas0-msix"
check nic-few-channels "hot-cpu-cpu0" "irq-spread-eth0 channels-eth0"
check nic-one-channel "hot-cpu-cpu0" "channels-eth0"
check mpt3sas-managed "hot-cpu-cpu1 managed-irqs-host0" ""
check writeback-throttled "disk-saturated-sdb writeback-throttled" ""
check ssd-queue-full "disk-saturated-sde" "nr-requests-sde"
check isolated-cmdline "hot-cpu-cpu0" "irq-spread-eth0"
python3 - "$tmp" <<'PY' || fail "scenario ids"
import json, sys
tmp = sys.argv[1]
for line in open(tmp + "/expect"):
    name, want_f, want_s = line.rstrip("\n").split("|")
    d = json.load(open("%s/%s.json" % (tmp, name)))
    f = sorted(x["id"] for x in d["findings"])
    s = sorted(x["id"] for x in d["suggestions"])
    assert f == sorted(want_f.split()), (name, f)
    assert s == sorted(want_s.split()), (name, s)
    for x in d["suggestions"]:
        assert x["commands"] and len(x["commands"]) == len(x["undo"]) == len(x["writes"]), x
        assert x["reason"] and x["effect"], x
        for c, wr in zip(x["commands"], x["writes"]):
            if wr["kind"] == "ethtool":
                assert c.startswith("ethtool -L ") and " combined " in c, c
                assert wr["path"].startswith("/netlink/ethtool/"), wr
            else:
                assert wr["kind"] == "file", wr
                assert c.startswith("echo ") and " > /" in c, c
# the NIC with too few channels: exactly seed 002's command, and its undo
d = json.load(open(tmp + "/nic-few-channels.json"))
s = [x for x in d["suggestions"] if x["id"] == "channels-eth0"][0]
assert s["commands"] == ["ethtool -L eth0 combined 8"], s
assert s["undo"] == ["ethtool -L eth0 combined 2"], s
assert s["writes"] == [{"kind": "ethtool", "path": "/netlink/ethtool/eth0/channels/combined",
                        "value": "8", "current": "2"}], s
assert s["finding"] == "hot-cpu-cpu0" and s["severity"] == "warning", s
assert "2 of at most 8 combined channels for 8 usable local CPUs" in s["reason"], s
d = json.load(open(tmp + "/nic-one-channel.json"))
assert [x["undo"] for x in d["suggestions"]] == [["ethtool -L eth0 combined 1"]], d
PY

# the human form names the commands and the undo
"$IOTRIAGE" suggest "$A/mpt2sas/t0" "$A/mpt2sas/t1" >"$tmp/out" || fail "suggest text"
grep -q 'echo 0 > /proc/irq/107/smp_affinity_list' "$tmp/out" || fail "text: command"
grep -q 'echo 0-7 > /proc/irq/107/smp_affinity_list' "$tmp/out" || fail "text: undo"
"$IOTRIAGE" suggest "$A/healthy/t0" "$A/healthy/t1" | grep -q '^No findings' || fail "healthy text"

# compute --json carries the same arrays
"$IOTRIAGE" compute "$A/nic-single-queue/t0" "$A/nic-single-queue/t1" --json >"$tmp/c.json" ||
	fail "compute"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert [s["id"] for s in d["suggestions"]]==["rps-eth0"], d["suggestions"]; assert d["findings"][0]["kind"]=="hot_cpu"' "$tmp/c.json" ||
	fail "compute json findings"

# apply / undo on a copy: --before gives the first sample, the root the second
cp -a "$A/mpt2sas/t1" "$tmp/root"
"$IOTRIAGE" apply irq-spread-host0 --before "$A/mpt2sas/t0" --root "$tmp/root" >"$tmp/out" 2>&1 ||
	fail "apply: $(cat "$tmp/out")"
grep -q 'applied: 16 writes' "$tmp/out" || fail "apply message: $(cat "$tmp/out")"
[ "$(cat "$tmp/root/proc/irq/108/smp_affinity_list")" = 1 ] || fail "apply did not write 108"
[ "$(cat "$tmp/root/proc/irq/122/smp_affinity_list")" = 7 ] || fail "apply did not write 122"
[ -f "$tmp/root/var/lib/iotriage/irq-spread-host0.undo" ] || fail "no journal"
# applied twice: nothing to do now (already spread), exit 1 with a reason
"$IOTRIAGE" apply irq-spread-host0 --before "$A/mpt2sas/t0" --root "$tmp/root" 2>"$tmp/err"
[ $? -eq 1 ] || fail "second apply must fail"
grep -q '^iotriage: irq-spread-host0: no such suggestion now' "$tmp/err" || fail "second apply message"
"$IOTRIAGE" undo --root "$tmp/root" >"$tmp/out" || fail "undo"
grep -q 'irq-spread-host0 undone: 16 values restored' "$tmp/out" || fail "undo message"
for i in $(seq 107 122); do
	[ "$(cat "$tmp/root/proc/irq/$i/smp_affinity_list")" = 0-7 ] || fail "undo of $i"
done
[ ! -e "$tmp/root/var/lib/iotriage/irq-spread-host0.undo" ] || fail "journal left after undo"
"$IOTRIAGE" undo irq-spread-host0 --root "$tmp/root" 2>"$tmp/err"; [ $? -eq 1 ] || fail "undo twice"
grep -q 'nothing applied under this id' "$tmp/err" || fail "undo twice message"
"$IOTRIAGE" undo --root "$tmp/root" | grep -q '^Nothing to undo' || fail "empty undo"
# applied, then the host restarts (another boot id, the kernel's defaults):
# undo writes nothing of the earlier boot and drops its journal
mkdir -p "$tmp/root/proc/sys/kernel/random"
echo 0d4f7c1e-2b3a-4c5d-8e9f-a0b1c2d3e4f5 >"$tmp/root/proc/sys/kernel/random/boot_id"
"$IOTRIAGE" apply irq-spread-host0 --before "$A/mpt2sas/t0" --root "$tmp/root" >"$tmp/out" 2>&1 ||
	fail "apply (boot): $(cat "$tmp/out")"
grep -q '^boot 0d4f7c1e-' "$tmp/root/var/lib/iotriage/irq-spread-host0.undo" || fail "journal without its boot"
echo 9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d >"$tmp/root/proc/sys/kernel/random/boot_id"
echo 3 >"$tmp/root/proc/irq/108/smp_affinity_list"
"$IOTRIAGE" undo --root "$tmp/root" >"$tmp/out" 2>&1 || fail "undo after restart: $(cat "$tmp/out")"
grep -q 'applied in an earlier boot.*nothing was written' "$tmp/out" || fail "undo after restart message: $(cat "$tmp/out")"
[ "$(cat "$tmp/root/proc/irq/108/smp_affinity_list")" = 3 ] || fail "undo wrote an earlier boot's value"
[ ! -e "$tmp/root/var/lib/iotriage/irq-spread-host0.undo" ] || fail "earlier boot's journal kept"

# --state-dir elsewhere; RPS writes three files and undoes them
cp -a "$A/nic-single-queue/t1" "$tmp/nic"
"$IOTRIAGE" apply rps-eth0 --before "$A/nic-single-queue/t0" --root "$tmp/nic" \
	--state-dir "$tmp/state" >/dev/null || fail "apply rps"
[ "$(cat "$tmp/nic/sys/class/net/eth0/queues/rx-0/rps_cpus")" = 0000000f ] || fail "rps_cpus"
[ "$(cat "$tmp/nic/proc/sys/net/core/rps_sock_flow_entries")" = 32768 ] || fail "sock flows"
[ -f "$tmp/state/rps-eth0.undo" ] || fail "journal in --state-dir"
"$IOTRIAGE" undo rps-eth0 --root "$tmp/nic" --state-dir "$tmp/state" >/dev/null || fail "undo rps"
[ "$(cat "$tmp/nic/sys/class/net/eth0/queues/rx-0/rps_cpus")" = 00000000 ] || fail "rps undo"

# ethtool -L on a copy: the recorded channels answer is what apply sets,
# reads back and journals; the copy then has 8 channels, and undo restores
# the recorded bytes
cp -a "$A/nic-few-channels/t1" "$tmp/nic8"
"$IOTRIAGE" apply channels-eth0 --before "$A/nic-few-channels/t0" --root "$tmp/nic8" \
	>"$tmp/out" 2>&1 || fail "apply channels: $(cat "$tmp/out")"
grep -qx 'ethtool -L eth0 combined 8' "$tmp/out" || fail "apply channels: command not printed"
grep -q 'channels-eth0 applied: 1 writes verified' "$tmp/out" || fail "apply channels message"
printf 'write netlink/ethtool/eth0/channels/combined\t2\t8\n' >"$tmp/want"
grep -qxFf "$tmp/want" "$tmp/nic8/var/lib/iotriage/channels-eth0.undo" || fail "channels journal"
"$IOTRIAGE" compute "$A/nic-few-channels/t0" "$tmp/nic8" --json >"$tmp/c8.json" || fail "compute nic8"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=[x for x in d["nics"] if x["name"]=="eth0"][0]; assert n["channels"]["combined"]==8, n["channels"]; assert [s["id"] for s in d["suggestions"]]==["irq-spread-eth0"], d["suggestions"]' "$tmp/c8.json" ||
	fail "channels after apply"
"$IOTRIAGE" apply channels-eth0 --before "$A/nic-few-channels/t0" --root "$tmp/nic8" 2>"$tmp/err"
[ $? -eq 1 ] || fail "channels applied twice must fail"
grep -q 'channels-eth0: no such suggestion now' "$tmp/err" || fail "channels twice message"
"$IOTRIAGE" undo channels-eth0 --root "$tmp/nic8" >"$tmp/out" || fail "undo channels"
grep -q 'channels-eth0 undone: 1 values restored' "$tmp/out" || fail "undo channels message"
cmp -s "$A/nic-few-channels/t1/netlink/ethtool/eth0/channels.bin" \
	"$tmp/nic8/netlink/ethtool/eth0/channels.bin" || fail "undo did not restore the channels answer"

# capture records the topology: a recorded fixture re-captured advises the same
for sc in mpt2sas irqbalance nvme-managed md-raid0 nic-few-channels isolated-cmdline; do
	"$IOTRIAGE" capture "$tmp/cap-$sc" --root "$A/$sc/t1" 2>/dev/null || fail "capture $sc"
	"$IOTRIAGE" suggest "$A/$sc/t0" "$A/$sc/t1" --json >"$tmp/a.json" || fail "suggest $sc"
	"$IOTRIAGE" suggest "$A/$sc/t0" "$tmp/cap-$sc" --json >"$tmp/b.json" || fail "suggest cap $sc"
	cmp -s "$tmp/a.json" "$tmp/b.json" || fail "capture of $sc advises differently: $(diff "$tmp/a.json" "$tmp/b.json" | head -5)"
done
grep -q IRQBALANCE_BANNED_CPUS "$tmp/cap-irqbalance/proc/812/environ" || fail "irqbalance env"
# the boot line only as far as the advisor reads it
[ "$(cat "$tmp/cap-isolated-cmdline/proc/cmdline")" = "isolcpus=managed_irq,domain,4-6 nohz_full=5-7" ] ||
	fail "captured cmdline: $(cat "$tmp/cap-isolated-cmdline/proc/cmdline")"
grep -q PATH "$tmp/cap-irqbalance/proc/812/environ" && fail "capture kept a non-irqbalance variable"
# and the live host's capture carries /proc/irq when this host has one
if [ -r /proc/irq ] && ls /proc/irq/*/smp_affinity_list >/dev/null 2>&1; then
	"$IOTRIAGE" capture "$tmp/live" 2>/dev/null || fail "live capture"
	ls "$tmp"/live/proc/irq/*/smp_affinity_list >/dev/null 2>&1 || fail "live capture: no /proc/irq"
fi

# bad input: unknown id, no arguments, a tree without topology
"$IOTRIAGE" apply no-such-id --before "$A/mpt2sas/t0" --root "$tmp/root" 2>"$tmp/err"
[ $? -eq 1 ] || fail "unknown id exit"
grep -q 'no such suggestion now' "$tmp/err" || fail "unknown id message"
"$IOTRIAGE" apply 2>/dev/null; [ $? -eq 2 ] || fail "apply without id must exit 2"
"$IOTRIAGE" suggest a b c 2>/dev/null; [ $? -eq 2 ] || fail "suggest with 3 trees must exit 2"
"$IOTRIAGE" suggest /nonexistent-a /nonexistent-b 2>"$tmp/err"; [ $? -eq 1 ] || fail "missing trees"
grep -q '^iotriage: /nonexistent-a: ' "$tmp/err" || fail "missing tree message"
exit 0
