#!/bin/sh
# iotriage bench does the IO it claims: every engine x rw mode on a loop
# device over /dev/shm, checked against the device's /proc/diskstats delta;
# randwrite covers every block once; a created file is removed afterwards
# unless --keep; time_based/ramp/numjobs, rate_iops and fsync do what fio's do.
. "$SRCDIR/tests/integration/bench_lib.sh"
bench_loop_setup 64
dev=$BENCH_DEV
command -v python3 >/dev/null || skip "python3 needed to read the JSON"
T=$BENCH_TMP

# io_uring may be disabled by sysctl or seccomp: a one-IO probe says so
if ! "$IOTRIAGE" bench --filename="$dev" --ioengine=io_uring --size=4k >/dev/null 2>"$T/err"; then
	grep -q 'io_uring' "$T/err" && skip "io_uring refused here: $(cat "$T/err")"
	fail "probe: $(cat "$T/err")"
fi

: >"$T/manifest"
for engine in io_uring libaio psync; do
	for rw in read write randread randwrite rw randrw; do
		before=$(diskstats_of "$dev")
		"$IOTRIAGE" bench --name=t --filename="$dev" --ioengine=$engine --rw=$rw --bs=4k \
			--iodepth=8 --size=4m --direct=1 --output-format=json >"$T/$engine.$rw.json" \
			2>"$T/err" || fail "$engine $rw: $(cat "$T/err")"
		after=$(diskstats_of "$dev")
		echo "$engine $rw $before $after" >>"$T/manifest"
	done
done

# randwrite (not time_based) writes every block of the region exactly once
dd if=/dev/zero of="$dev" bs=1M count=8 oflag=direct status=none || fail "zero the device"
"$IOTRIAGE" bench --filename="$dev" --ioengine=io_uring --rw=randwrite --bs=4k --iodepth=16 \
	--size=8m --direct=1 >/dev/null 2>"$T/err" || fail "randwrite: $(cat "$T/err")"

# a file the bench creates is removed afterwards, kept with --keep
f="$T/new.dat"
"$IOTRIAGE" bench --filename="$f" --rw=randread --size=2m --ioengine=io_uring --iodepth=4 \
	--output-format=json >"$T/file.json" 2>"$T/err" || fail "file read: $(cat "$T/err")"
[ ! -e "$f" ] || fail "created file left behind"
"$IOTRIAGE" bench --filename="$f" --rw=write --size=1m --keep >/dev/null 2>&1 || fail "file write --keep"
[ "$(stat -c %s "$f")" = 1048576 ] || fail "--keep did not keep the 1 MiB file"

# time_based + runtime + ramp_time, two threads merged by group_reporting
"$IOTRIAGE" bench --filename="$dev" --ioengine=io_uring --rw=randread --iodepth=4 --direct=1 \
	--runtime=2 --time_based --ramp_time=500ms --numjobs=2 --group_reporting \
	--output-format=json >"$T/time.json" 2>"$T/err" || fail "time_based: $(cat "$T/err")"
# rate_iops caps the rate (an upper bound only: a slow machine may deliver less)
"$IOTRIAGE" bench --filename="$dev" --ioengine=libaio --rw=randread --iodepth=4 --direct=1 \
	--runtime=1 --time_based --rate_iops=500 --output-format=json >"$T/rate.json" 2>&1 || fail "rate_iops"
# fsync after every 8 writes on a file
"$IOTRIAGE" bench --filename="$T/s.dat" --rw=write --bs=4k --size=256k --fsync=8 \
	--output-format=json >"$T/fsync.json" 2>&1 || fail "fsync"

# SQPOLL: the kernel's poller thread submits; the IO is the same
before=$(diskstats_of "$dev")
"$IOTRIAGE" bench --filename="$dev" --ioengine=io_uring --rw=randread --bs=4k --iodepth=8 \
	--size=4m --direct=1 --sqthread_poll=1 --output-format=json >"$T/io_uring.sqpoll.json" \
	2>"$T/err" ||
	fail "sqthread_poll: $(cat "$T/err")"
after=$(diskstats_of "$dev")
echo "io_uring sqpoll $before $after" >>"$T/manifest"
# IOPOLL on a queue that does not poll (loop) is refused at once, with the
# reason, instead of spinning forever on completions nobody polls
if [ "$(cat "/sys/block/${dev#/dev/}/queue/io_poll" 2>/dev/null)" = 0 ]; then
	timeout -s KILL 20 "$IOTRIAGE" bench --filename="$dev" --ioengine=io_uring --rw=randread \
		--direct=1 --runtime=1 --time_based --hipri=1 >/dev/null 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] || fail "--hipri on a non-polling queue: exit $rc (137: it hung)"
	grep -q 'hipri: its block queue does not poll (/sys/dev/block/[0-9]*:[0-9]*/queue/io_poll is 0)' \
		"$T/err" || fail "--hipri message: $(cat "$T/err")"
fi

python3 - "$T" "$dev" <<'PY' || fail "checks above"
import json, os, sys
T, dev = sys.argv[1], sys.argv[2]
for line in open(os.path.join(T, "manifest")):
    f = line.split()
    engine, rw = f[0], f[1]
    b, a = [int(x) for x in f[2:6]], [int(x) for x in f[6:10]]
    j = json.load(open(os.path.join(T, "%s.%s.json" % (engine, rw))))["jobs"][0]
    r, w = j["read"], j["write"]
    dr_ios, dr_bytes = a[0] - b[0], (a[1] - b[1]) * 512
    dw_ios, dw_bytes = a[2] - b[2], (a[3] - b[3]) * 512
    what = "%s %s" % (engine, rw)
    assert j["error"] == 0, (what, j["error"])
    assert r["io_bytes"] + w["io_bytes"] == 4 << 20, (what, r["io_bytes"], w["io_bytes"])
    assert r["total_ios"] + w["total_ios"] == 1024, what
    mode = "randread" if rw == "sqpoll" else rw
    reads = mode in ("read", "randread", "rw", "randrw")
    writes = mode in ("write", "randwrite", "rw", "randrw")
    if not reads: assert r["total_ios"] == 0, what
    if not writes: assert w["total_ios"] == 0, what
    if reads and writes:  # rwmixread=50 over 1024 IOs
        assert 300 < r["total_ios"] < 724, (what, r["total_ios"])
    # the device saw exactly our bytes (O_DIRECT: nothing cached, nothing extra),
    # except that a writing job first lets libblkid read up to ~1 MiB for signatures,
    # twice (the check, and again under the exclusive claims: safety_claim)
    probe = (4 << 20) if writes else 0
    assert 0 <= dr_bytes - r["io_bytes"] <= probe, (what, "read", dr_bytes, r["io_bytes"])
    assert dw_bytes == w["io_bytes"], (what, "write", dw_bytes, w["io_bytes"])
    # merges may join adjacent sequential IOs, never split ours
    assert dw_ios <= w["total_ios"] and (writes or dr_ios <= r["total_ios"]), (what, dr_ios, dw_ios)
    for s in (r, w):
        if not s["total_ios"]:
            continue
        c = s["clat_ns"]
        assert c["N"] == s["total_ios"], what
        assert c["min"] <= c["percentile"]["50.000000"] <= c["percentile"]["99.000000"] <= c["max"], (what, c)
        assert s["lat_ns"]["mean"] >= c["mean"] - 1, (what, s["lat_ns"], c)
        assert s["slat_ns"]["N"] == (0 if engine == "psync" else s["total_ios"]), what

zero = bytes(4096)
with open(dev, "rb") as f:
    untouched = sum(1 for i in range(2048) if f.read(4096) == zero)
assert untouched == 0, "randwrite left %d of 2048 blocks unwritten" % untouched

d = json.load(open(os.path.join(T, "file.json")))
assert d["jobs"][0]["read"]["io_bytes"] == 2 << 20, "file read bytes"

j = json.load(open(os.path.join(T, "time.json")))
assert len(j["jobs"]) == 1, "group_reporting merges the threads"
j = j["jobs"][0]
assert j["iotriage"]["threads"] == 2
assert 1900 <= j["job_runtime"] <= 3000, ("runtime", j["job_runtime"])
tl = j["iotriage"]["timeline"]
assert len(tl) >= 2 and sum(s["read_ios"] for s in tl) == j["read"]["total_ios"], "timeline"

j = json.load(open(os.path.join(T, "rate.json")))["jobs"][0]
assert 0 < j["read"]["total_ios"] <= 520, ("rate_iops", j["read"]["total_ios"])

j = json.load(open(os.path.join(T, "fsync.json")))["jobs"][0]
assert j["sync"]["total_ios"] == 8, ("fsync", j["sync"])
assert j["write"]["total_ios"] == 64
PY
echo "ok"
