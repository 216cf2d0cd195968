#!/bin/sh
# Processes, NICs, pressure and writeback end to end: `compute` on the
# recorded netlink-live pair (numbers from the recorded files), the same pair
# with broken answers (each source unavailable with its reason, the others
# still there), and the live host's real families.
set -u
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
live="$FIXTURES/netlink-live"

"$IOTRIAGE" compute "$live/t0" "$live/t1" --json >"$tmp/c.json" || fail "compute on netlink-live"
python3 - "$tmp/c.json" "$live" <<'PY' || fail "netlink-live numbers"
import json, sys
d = json.load(open(sys.argv[1]))
live = sys.argv[2]
def io(t, key):
    for line in open(f"{live}/{t}/proc/31933/io"):
        k, v = line.split(":")
        if k == key:
            return int(v)
def up(t):
    return round(float(open(f"{live}/{t}/proc/uptime").read().split()[0]) * 100)
itv = (up("t1") - up("t0")) / 100
want = (io("t1", "write_bytes") - io("t0", "write_bytes")) / itv / 1024
for s in ("procfs_io", "taskstats", "rtnetlink", "ethtool", "pressure_io", "vmstat"):
    assert d["sources"][s]["available"], s
assert not d["sources"]["pressure_irq"]["available"]
p = d["processes"]
assert p["bytes_source"] == "procfs" and p["delay_source"] == "taskstats", p
assert p["delay_accounting"] == "on"
top = p["top_io"][0]
assert top["pid"] == 31933 and top["comm"] == "dd", top
assert abs(top["kB_wr/s"] - round(want, 2)) < 0.006, (top, want)
assert p["top_delay"][0]["pid"] == 31933 and p["top_delay"][0]["io_delay%"] > 0
eth0 = [n for n in d["nics"] if n["name"] == "eth0"][0]
assert eth0["channels"]["combined"] == 1 and eth0["channels"]["combined_max"] == 1
assert eth0["coalesce"]["rx-frames"] == 1
assert [q["irq"] for q in eth0["irqs"]] == [37, 38, 39]
assert eth0["irqs"][1]["actions"] == "virtio2-input.0"
ifb = [n for n in d["nics"] if n["name"] == "ifb0"][0]
assert ifb["channels"] == {"available": False, "reason": "channels: not supported by the driver"}
assert not any(n["name"] == "lo" for n in d["nics"])
assert "io" in d["pressure"] and "stall%" in d["pressure"]["io"]["some"]
wb = d["writeback"]
assert wb["vm"]["dirty_ratio"] == int(open(f"{live}/t1/proc/sys/vm/dirty_ratio").read())
assert wb["state"] in ("below_background", "background", "throttled", "blocked")
PY
"$IOTRIAGE" compute "$live/t0" "$live/t1" >"$tmp/c.txt" || fail "compute text"
grep -q '^31933 *dd ' "$tmp/c.txt" || fail "text output lacks dd"
grep -q 'channels combined 1/1' "$tmp/c.txt" || fail "text output lacks eth0 channels"

# A tree captured from a recorded tree keeps its netlink answers byte for byte.
"$IOTRIAGE" capture "$tmp/again" --root "$live/t1" 2>/dev/null || fail "capture --root"
for f in netlink/rtnl/links.bin netlink/ethtool/eth0/channels.bin netlink/ethtool/ifb0/coalesce.bin \
	netlink/taskstats/31933.bin proc/31933/io proc/pressure/io proc/sys/vm/dirty_ratio \
	sys/class/net/eth0/device/msi_irqs/38; do
	cmp -s "$live/t1/$f" "$tmp/again/$f" || fail "capture --root lost $f"
done
rm -rf "$tmp/again"

# Broken answers: each source says why, the rest of the document stands.
cp -r "$live/t0" "$live/t1" "$tmp/" || fail "copy"
links="$tmp/t1/netlink/rtnl/links.bin"
head -c $(($(wc -c <"$links") - 20)) "$links" >"$links.cut" && mv "$links.cut" "$links"
rm -r "$tmp/t1/netlink/taskstats"
cp "$live/t1/netlink/ethtool/ifb0/channels.bin" "$tmp/t0/netlink/ethtool/eth0/channels.bin"
printf 'some avg10=x total=1\n' >"$tmp/t1/proc/pressure/io"
head -c 7 "$live/t0/netlink/ethtool/eth0/coalesce.bin" >"$tmp/t0/netlink/ethtool/eth0/coalesce.bin"
"$IOTRIAGE" compute "$tmp/t0" "$tmp/t1" --json >"$tmp/b.json" || fail "compute on broken answers"
python3 - "$tmp/b.json" <<'PY' || fail "broken answers"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sources"]
assert not s["rtnetlink"]["available"] and "NLMSG_DONE" in s["rtnetlink"]["reason"], s["rtnetlink"]
assert "nics" not in d
assert not s["taskstats"]["available"] and "no recorded answers" in s["taskstats"]["reason"]
assert d["processes"]["delay_source"] is None and d["processes"]["top_io"][0]["pid"] == 31933
assert "io_delay%" not in d["processes"]["top_io"][0]
assert not s["pressure_io"]["available"] and "malformed" in s["pressure_io"]["reason"]
assert "io" not in d["pressure"] and "cpu" in d["pressure"]
assert s["diskstats"]["available"] and d["disks"], "other panels must keep working"
PY
# t0 only had the bad ethtool answers: compute the other way round to see them
"$IOTRIAGE" compute "$tmp/t1" "$tmp/t0" --json --interval 1000 >"$tmp/r.json" 2>/dev/null ||
	fail "compute reversed"
python3 - "$tmp/r.json" <<'PY' || fail "bad ethtool answers"
import json, sys
d = json.load(open(sys.argv[1]))
eth0 = [n for n in d["nics"] if n["name"] == "eth0"][0]
assert eth0["channels"] == {"available": False, "reason": "channels: not supported by the driver"}, eth0
assert not eth0["coalesce"]["available"] and "truncated" in eth0["coalesce"]["reason"], eth0
PY

# The live host: real rtnetlink and ethtool families, /proc/PID/io.
"$IOTRIAGE" snapshot --interval 200 --json >"$tmp/l.json" || fail "live snapshot"
python3 - "$tmp/l.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sources"]
for k in ("rtnetlink", "procfs_io"):
    if not s[k]["available"]:
        print(f"SKIP: {k} refused on this machine: {s[k]['reason']}")
        sys.exit(77)
assert "processes" in d and d["processes"]["count"] > 0
assert isinstance(d["nics"], list)
if not s["ethtool"]["available"]:
    print("note: ethtool family unavailable:", s["ethtool"]["reason"])
if not s["taskstats"]["available"]:
    print("note: taskstats unavailable:", s["taskstats"]["reason"])
PY
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "live snapshot sections"

# Per-thread IO of a live process with three writing threads.
"$IOTRIAGE" threads abc 2>/dev/null; [ $? -eq 2 ] || fail "threads with a bad PID must exit 2"
"$IOTRIAGE" threads 2147483647 2>"$tmp/err"; [ $? -eq 1 ] || fail "threads of no process must exit 1"
grep -q '^iotriage: threads: .*no such process' "$tmp/err" || fail "threads: $(cat "$tmp/err")"
python3 - "$IOTRIAGE" "$tmp" <<'PY'
import json, os, subprocess, sys, threading, time
iot, tmp = sys.argv[1], sys.argv[2]
stop = False
def writer(i):
    with open(f"{tmp}/w{i}", "wb") as f:
        n = 0
        while not stop:
            f.write(b"x" * 65536)
            f.flush()
            n += 1
            if n % 16 == 0:  # keep it at 1 MB: truncated dirty pages count as cancelled
                f.truncate(0)
                f.seek(0)
ts = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
for t in ts:
    t.start()
time.sleep(0.2)
r = subprocess.run([iot, "threads", str(os.getpid()), "--json", "--interval", "300"],
                   capture_output=True, text=True)
stop = True
for t in ts:
    t.join()
if r.returncode != 0:
    if "CAP_NET_ADMIN" in r.stderr or "family" in r.stderr:
        print("note: threads refused on this machine:", r.stderr.strip())
        sys.exit(0)
    print(r.stderr)
    sys.exit(1)
d = json.loads(r.stdout)
assert d["pid"] == os.getpid() and d["threads"] >= 4, d
writers = [t for t in d["top_io"] if t["kB_wr/s"] > 0]
assert len(writers) >= 3, d
assert all(t["pid"] != os.getpid() for t in writers), "the main thread only waits"
PY
[ $? -eq 0 ] || fail "threads of a live process"

# A process that starts and ends between the two samples of one snapshot:
# only the kernel's exit notices (CAP_NET_ADMIN) see it, with all its IO.
# On a loaded machine the first sample may come late or dd may outlast the
# interval: the document's own times (timestamp_ms - interval_ms .. timestamp_ms)
# say whether dd ran inside it; if not, again with twice the interval (up
# to 4 tries). dd is found by its PID (another dd may be running).
python3 - "$IOTRIAGE" "$BUILDDIR" <<'PY'
import json, os, subprocess, sys, time
iot, bdir = sys.argv[1], sys.argv[2]
out = os.path.join(bdir, "exit-notice-io.bin")
MARGIN_MS = 100  # the sample's timestamp and the reading of its sources
interval = 3000
for attempt in range(4):
    snap = subprocess.Popen([iot, "snapshot", "--interval", str(interval), "--json"],
                            stdout=subprocess.PIPE, text=True)
    time.sleep(interval / 2000.0)  # the first sample is taken (exit notices on): dd starts after it
    t_start = time.time() * 1000
    dd = subprocess.Popen(["dd", "if=/dev/zero", "of=" + out, "bs=1M", "count=8", "conv=fsync"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dd.wait()
    t_end = time.time() * 1000
    stdout, _ = snap.communicate(timeout=interval / 1000.0 + 60)
    os.unlink(out)
    assert dd.returncode == 0 and snap.returncode == 0
    d = json.loads(stdout)
    t1 = d["timestamp_ms"]
    t0 = t1 - d["interval_ms"]
    if t0 + MARGIN_MS <= t_start and t_end + MARGIN_MS <= t1:
        break
    print("note: dd ran %.0f..%.0f ms, the interval %d..%d ms: not inside; again with %d ms"
          % (t_start - t0, t_end - t0, 0, t1 - t0, interval * 2))
    interval *= 2
else:
    sys.exit("dd never ran inside a snapshot's interval in 4 tries (the machine is too slow?)")
ts = d["sources"]["taskstats"]
if not ts["available"]:
    print("note: taskstats unavailable here, no exit notices:", ts)
    sys.exit(0)
# as root (CAP_NET_ADMIN) the registration must work; elsewhere it is said
if "no exit notices" in ts.get("note", ""):
    assert os.geteuid() != 0, "root, yet no exit notices: %r" % ts
    print("note: no exit notices here:", ts)
    sys.exit(0)
rows = [r for r in d["processes"]["top_io"] if r["pid"] == dd.pid]
assert rows, "dd (pid %d), started and ended within the interval, has no row: %r" % (
    dd.pid, d["processes"])
r = rows[0]
assert r["comm"] == "dd" and r.get("exited") and r.get("started"), r
kb = r["kB_wr/s"] * d["interval_ms"] / 1000.0
assert abs(kb - 8192) <= 8192 * 0.02, "dd wrote 8192 kB, the row says %.1f kB" % kb
print("dd (pid %d) inside the %d ms interval: %.0f kB" % (dd.pid, d["interval_ms"], kb))
PY
[ $? -eq 0 ] || fail "a process that started and ended between samples"

# Without privileges: taskstats and other users' /proc/PID/io are refused,
# and the document says so instead of showing zeros.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ -x "$IOTRIAGE" ]; then
	# a copy nobody may run: the checkout may sit under a 0700 directory
	. "$SRCDIR/tests/integration/user_lib.sh"
	user_copy "$tmp/bin" "$IOTRIAGE" && chmod 755 "$tmp" || fail "copying the client for nobody"
	ucli="$tmp/bin/${IOTRIAGE##*/}"
	if ! (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$ucli" --version) >/dev/null 2>&1; then
		echo "SKIP (unprivileged part): nobody cannot run $ucli (TMPDIR not traversable?)"
	elif (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$ucli" \
		snapshot --interval 200 --json) >"$tmp/u.json" 2>"$tmp/u.err"; then
		python3 - "$tmp/u.json" <<'PY' || fail "unprivileged snapshot"
import json, sys
d = json.load(open(sys.argv[1]))
st = d["sources"]["procfs_io"]
assert st["available"] and "not readable" in st.get("note", ""), st
ts = d["sources"]["taskstats"]
if open("/proc/sys/kernel/task_delayacct").read().strip() != "0" and d["processes"]["taskstats_queries"]:
    # asked without CAP_NET_ADMIN: refused, said so
    assert not ts["available"] and "CAP_NET_ADMIN" in ts["reason"], ts
elif ts["available"]:
    # registering for exit notices needs CAP_NET_ADMIN too: said, not hidden
    assert "no exit notices" in ts.get("note", ""), ts
PY
	else
		fail "the client as nobody: $(cat "$tmp/u.err")"
	fi
fi
exit 0
