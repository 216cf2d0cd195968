#!/bin/sh
# turbostat, processes, NICs, pressure and writeback in the live TUI, driven
# in tmux (a private server, killed at the end) as a person uses it:
#  1. on seed 002's Broadwell-EP tree (tests/fixtures/turbo/make-trees.py),
#     kept advancing by tests/fixtures/advance.py so the embedded
#     sampler measures the seed's interval again and again: every CPU row's
#     Busy%, Bzy_MHz and deepest C-state, and the header's package watts
#     and temperatures, equal what `iotriage compute T0 T1` prints for the
#     same trees; a narrow terminal drops those columns first;
#  2. live on this machine: without MSR access (a VM) the header says
#     "turbostat: unavailable (reason)" and no Busy%/Bzy_MHz column shows
#     (never zeros); the PSI/writeback line; p opens the processes view with
#     a process writing in the background on its row, the source of the
#     bytes named (/proc/PID/io) and the delay's (taskstats, or "delay
#     accounting off"); the IRQs panel has a line per NIC (eth0's link,
#     rates and channels as `iotriage snapshot --json` reports them);
#  3. through iotriaged --core-only: everything said to be not in the sample.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
set -u
WAIT=${TUI_TEST_WAIT:-30}
skip() { echo "SKIP: $*"; exit 77; }
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"

tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
gen_pid=
writer_pid=
daemon_pid=
wdir=
cleanup() {
	T kill-server 2>/dev/null
	for p in $gen_pid $writer_pid $daemon_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
	[ -n "$wdir" ] && rm -rf "$wdir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- 1. turbostat on an advancing Broadwell-EP tree ----
gen="$SRCDIR/tests/fixtures/turbo/make-trees.py"
python3 "$gen" "$tmp/gen" intel >/dev/null || fail "make-trees.py"
cp -a "$tmp/gen/intel/t0" "$tmp/tree" || fail "copying t0"
"$IOTRIAGE" compute "$tmp/gen/intel/t0" "$tmp/gen/intel/t1" >"$tmp/compute.txt" 2>/dev/null ||
	fail "iotriage compute on the turbo trees"
advance "$tmp/gen/intel" "$tmp/tree"

# check_cpus: every CPU row on the screen (and "all") shows compute's Busy%
# and Bzy_MHz, and the deepest C-state of its core (CPU%c7 on this model,
# printed on the core's first thread); prints the CPUs it checked
cat >"$tmp/check_cpus.py" <<'PY'
import re, sys
screen, table, seen_file = sys.argv[1], sys.argv[2], sys.argv[3]
lines = open(table).read().split("\n")
start = [i for i, l in enumerate(lines) if l.startswith("Core\t")][0]
hdr = lines[start].split("\t")
ref, core_c7, last_core = {}, {}, None
for l in lines[start + 1:]:
    if not l.strip() or ":" in l:
        break
    cells = l.split("\t")
    row = dict(zip(hdr, cells))
    cpu = "all" if row["CPU"] == "-" else row["CPU"]
    if "CPU%c7" in row and row["CPU%c7"] != "":
        last_core = row["CPU%c7"]
    ref[cpu] = (row["Busy%"], row["Bzy_MHz"], last_core)
scr = open(screen).read().split("\n")
h = [i for i, l in enumerate(scr) if l.startswith("CPU ") and "Bzy_MHz" in l]
if not h:
    sys.exit("no CPU panel with Bzy_MHz on the screen")
head = scr[h[0]]
b_end = head.index("Busy%") + len("Busy%")
z_end = head.index("Bzy_MHz") + len("Bzy_MHz")
d_beg = head.index("deepest C-state")
checked = []
for l in scr[h[0] + 1:]:
    m = re.match(r"^(all|\d+)\s", l)
    if not m:
        break
    cpu = m.group(1)
    busy, bzy = l[b_end - 6:b_end].strip(), l[z_end - 7:z_end].strip()
    deep = l[d_beg:d_beg + 15].split()
    want = ref[cpu]
    if (busy, bzy) != want[:2]:
        sys.exit("cpu %s: Busy%% %s Bzy_MHz %s on screen, compute prints %s %s"
                 % (cpu, busy, bzy, want[0], want[1]))
    if deep != ["c7", want[2]]:
        sys.exit("cpu %s: deepest C-state %s on screen, CPU%%c7 %s in compute" % (cpu, deep, want[2]))
    checked.append(cpu)
if len(checked) < 10:
    sys.exit("only %d CPU rows on the screen" % len(checked))
with open(seen_file, "a") as f:
    f.write("\n".join(checked) + "\n")
print(" ".join(checked))
PY
check_cpus() { python3 "$tmp/check_cpus.py" "$tmp/screen" "$tmp/compute.txt" "$tmp/seen"; }

run_in turbo 200 50 --embedded --root "$tmp/tree"
wait_for turbo 'Busy% +Bzy_MHz +deepest C-state' || fail "turbo tree: no Busy%/Bzy_MHz columns"
screen_wait turbo check_cpus || fail "turbo tree: $(cat "$tmp/check")"
grep -qx all "$tmp/seen" || fail "the all row was not checked"
# the header: the summary row's watts and temperatures, as compute prints them
export PYTHONIOENCODING=utf-8
python3 - "$tmp/compute.txt" >"$tmp/want_hdr" <<'PY' || fail "summary row of compute"
import sys
lines = open(sys.argv[1]).read().split("\n")
i = [k for k, l in enumerate(lines) if l.startswith("Core\t")][0]
row = dict(zip(lines[i].split("\t"), lines[i + 1].split("\t")))
print("turbostat:  PkgWatt %s W  RAMWatt %s W  PkgTmp %s°C  CoreTmp %s°C"
      % (row["PkgWatt"], row["RAMWatt"], row["PkgTmp"], row["CoreTmp"]))
PY
wait_for turbo "^ $(cat "$tmp/want_hdr")\$" || fail "header: want '$(cat "$tmp/want_hdr")'"
# the rest of the 56 CPUs: focus the CPU panel, go to its end
T send-keys -t turbo Tab G
wait_for turbo '^55 ' || fail "G shows the last CPU"
screen_wait turbo check_cpus || fail "turbo tree, last CPUs: $(cat "$tmp/check")"
[ "$(sort -u "$tmp/seen" | wc -l)" -eq 57 ] ||
	fail "checked $(sort -u "$tmp/seen" | wc -l) of 57 rows (56 CPUs and all)"
# narrow: the turbostat columns go first, the mpstat ones stay
T resize-window -t turbo -x 80 -y 24
wait_for turbo '^CPU +%usr +%nice +%sys +%iowait +%irq +%soft +%steal +%idle +intr/s' || fail "80 columns: mpstat columns"
grep -q 'Bzy_MHz' "$tmp/screen" && fail "80 columns: Bzy_MHz should be dropped first"
wait_for turbo '^ PSI n/a \| writeback n/a \| turbostat: +PkgWatt 106\.40 W' ||
	fail "80x24: PSI, writeback and turbostat on one line"
T send-keys -t turbo q
wait_for turbo '^exited rc=0' || fail "turbo: q exits 0"
kill "$gen_pid"
wait "$gen_pid" 2>/dev/null
gen_pid=

# ---- 2. live ----
# what the sampler itself says about this machine, to hold the screen to
"$IOTRIAGE" snapshot --interval 300 --json >"$tmp/live.json" 2>/dev/null || fail "live snapshot"
python3 - "$tmp/live.json" >"$tmp/live.env" <<'PY' || fail "reading the live snapshot"
import json, shlex, sys
d = json.load(open(sys.argv[1]))
t = d.get("turbostat", {})
cols = t.get("columns", {})
busy = cols.get("Busy%", {})
watts = [r for r in t.get("rows", [])[:1] if "PkgWatt" in r or "PkgTmp" in r]
print("busy_avail=%d" % bool(busy.get("available")))
print("watts=%d" % bool(watts))
nics = [n for n in d.get("nics", []) if n["up"] and "rxkB/s" in n]
eth = [n for n in nics if n["name"] == "eth0"] or nics
if eth:
    n = eth[0]
    ch = n.get("channels", {})
    print("nic=%s" % shlex.quote(n["name"]))
    print("nic_state=%s" % ("up" if n["carrier"] else "no-carrier"))
    print("nic_ch=%s" % shlex.quote("combined %d/%d" % (ch["combined"], ch["combined_max"])
                                     if ch.get("combined_max") else ""))
else:
    print("nic=")
print("delay=%s" % d.get("processes", {}).get("delay_accounting", ""))
PY
. "$tmp/live.env"

# a process that writes while the view is open: its comm is this script's
# name (the interpreter itself in the #! line: a pyenv shim would exec again)
py=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
cat >"$tmp/iot-writer" <<PY
#!$py
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)
buf = b"x" * 65536
i = 0
while True:
    os.pwrite(fd, buf, (i % 64) * 65536)
    i += 1
    if i % 16 == 0:
        os.fsync(fd)  # clean pages again: each rewrite is storage IO
        time.sleep(0.02)
PY
chmod +x "$tmp/iot-writer"
# under the build tree, not a tmpfs /tmp: tmpfs writes are no storage IO
wdir=$(mktemp -d -p "${BUILDDIR:-/var/tmp}" tui-sections.XXXXXX)
"$tmp/iot-writer" "$wdir/data" &
writer_pid=$!

run_in live 200 50 --embedded
wait_for live '^ PSI (n/a|io some [0-9.]+% full [0-9.]+%)' ||
	fail "live: the PSI line says io some/full or why not"
grep -Eq '\| +(dirty [0-9.]+ [kMG]B, writeback [0-9.]+ [kMG]B, (below background|background|THROTTLED|BLOCKED)|writeback n/a)' \
	"$tmp/screen" || fail "live: writeback state"
if [ "$watts" = 0 ]; then
	# n/a in the header, its reason once on the unavailable line (issue 23)
	wait_for live '\| turbostat n/a' || fail "live: turbostat n/a in the header"
	grep -Eq '^ unavailable: turbostat: no .+ \(.+\)' "$tmp/screen" ||
		fail "live: turbostat unavailable with a reason"
	grep -Eq '^ unavailable: turbostat: no (source|.*msr)' "$tmp/screen" ||
		echo "note: the reason does not name the MSR device: $(grep turbostat "$tmp/screen")"
	[ "$(grep -c 'msr' "$tmp/screen")" -le 1 ] || fail "live: the MSR's reason said more than once"

else
	echo "note: this machine reports package watts or temperatures; unavailable line not checked"
fi
if [ "$busy_avail" = 0 ]; then
	grep -q 'Busy%' "$tmp/screen" && fail "live: Busy% is unavailable, yet a column shows"
	grep -q 'Bzy_MHz' "$tmp/screen" && fail "live: Bzy_MHz is unavailable, yet a column shows"
fi
if [ -n "$nic" ]; then
	# a NIC without a packet in the interval is hidden as an idle disk
	# is (issue 23): z shows the idle rows
	T send-keys -t live z
	wait_for live "^nic $nic
 +$nic_state +rx [0-9.]+ kB/s [0-9]+ pk/s  tx [0-9.]+ kB/s [0-9]+ pk/s  $nic_ch" ||
		fail "live: the NIC line of $nic ($nic_state, $nic_ch)"
	grep -Eq "^nic $nic .*IRQs ([0-9]+:cpu[0-9]+|[0-9 ]+ idle)" "$tmp/screen" ||
		echo "note: $nic has no MSI vectors listed (not a PCI/virtio NIC?)"
else
	echo "SKIP (NIC line): no NIC up besides loopback on this machine"
fi

T send-keys -t live p
wait_for live '^> Processes \(top [0-9]+ by IO of [0-9]+ read\)' || fail "p opens the processes view"
# PID USER COMMAND (the command line, as wide as the screen allows) kB_rd/s kB_wr/s
wait_for live '^[0-9]+ +[^ ]+ +.*python[^ ]* [^ ]*/iot-writer .* +[0-9.]+ +[1-9][0-9]*\.[0-9]{2} ' ||
	fail "processes: the writer's row with its user, command line and kB_wr/s"
# (taskstats too when another test's process of another uid is running)
grep -Eq "^bytes: /proc/PID/io(, taskstats for other users')?  " "$tmp/screen" ||
	fail "processes: the bytes' source"
case $delay in
off) grep -q 'delay accounting off (kernel.task_delayacct=0; sysctl -w' "$tmp/screen" ||
	fail "processes: delay accounting off is said" ;;
on) grep -Eq 'delay: taskstats' "$tmp/screen" || fail "processes: delays from taskstats" ;;
*) grep -Eq 'delay: ' "$tmp/screen" || fail "processes: where delays come from" ;;
esac
# sorted by kB_rd/s + kB_wr/s, biggest first
python3 - "$tmp/screen" <<'PY' || fail "processes are not sorted by IO"
import re, sys
v = []
for l in open(sys.argv[1]):
    if "exited since the last sample" in l:
        break  # the longest IO waits follow, sorted by delay
    # from the end: kB_rd/s kB_wr/s kB_ccwr/s [io_delay% blkio/s] %CPU [(started)]
    m = re.search(r" ([\d.]+) +([\d.]+) +[\d.]+(?: +[\d.-]+ +[\d.-]+)? +(?:[\d.]+|-)(?:  \(.*\))? *$", l)
    if not re.match(r"^\d+ ", l):
        m = None
    if m:
        v.append(float(m.group(1)) + float(m.group(2)))
assert v and v == sorted(v, reverse=True), v
PY
grep -q '^Busiest on CPU ' "$tmp/screen" || fail "processes: the busiest on CPU"
grep -q '^Pressure ' "$tmp/screen" || fail "processes: the pressure block"
T send-keys -t live p
wait_for live '^> Disks' || fail "p returns to the tables"
T send-keys -t live h
wait_for live 'p +the processes view' || fail "help lists p"
T send-keys -t live q
T send-keys -t live q
wait_for live '^exited rc=0' || fail "live: q exits 0"
kill "$writer_pid"
wait "$writer_pid" 2>/dev/null
writer_pid=

# ---- 3. iotriaged --core-only: none of it is in the samples ----
if [ -n "${IOTRIAGED:-}" ]; then
	"$IOTRIAGED" --foreground --core-only --socket "$tmp/d.sock" --interval 300 \
		2>>"$tmp/daemon.log" &
	daemon_pid=$!
	n=0
	while [ ! -S "$tmp/d.sock" ] && [ $n -lt $((WAIT * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	run_in core 200 50 --socket "$tmp/d.sock"
	wait_for core '^ turbostat: unavailable \(not in the sample: iotriaged --core-only, or older\)' ||
		fail "--core-only: turbostat not in the sample"
	grep -Eq '^ PSI not in this sample  \|  writeback not in this sample' "$tmp/screen" ||
		fail "--core-only: PSI and writeback not in the sample"
	grep -q '^nic ' "$tmp/screen" && fail "--core-only: no NIC line"
	T send-keys -t core p
	wait_for core '^processes: not in the sample \(iotriaged --core-only, or older\)' ||
		fail "--core-only: processes not in the sample"
	T send-keys -t core q
	wait_for core '^exited rc=0' || fail "core-only: q exits 0"
	kill "$daemon_pid"
	wait "$daemon_pid"
	rc=$?
	daemon_pid=
	[ "$rc" -eq 0 ] || fail "iotriaged exit $rc: $(tail -n 5 "$tmp/daemon.log")"
fi
[ -z "$(sanitizer_reports)" ] || fail "sanitizer reports"
echo ok
