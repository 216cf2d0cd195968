#!/bin/sh
# Another user's writer under the unit's capabilities (issue 24): with only
# CAP_SYS_RAWIO and CAP_NET_ADMIN (no CAP_SYS_PTRACE, no
# CAP_DAC_READ_SEARCH) /proc/PID/io of nobody's dd is refused, and its bytes
# come from taskstats (the sum of its threads' answers): the row is there,
# with its kB_wr/s, and bytes_source says "procfs+taskstats".
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (setpriv to nobody, taskstats)"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: setpriv not installed"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user nobody"; exit 77; }
tmp=$(mktemp -d)
# storage IO: not a tmpfs
wdir=$(mktemp -d /var/tmp/iotr-caps.XXXXXX)
dpid= writer= feeder=
cleanup() {
	for p in $feeder $writer $dpid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$tmp" "$wdir"
}
trap cleanup EXIT
chown nobody "$wdir" && mkfifo -m 0666 "$wdir/fifo" || fail "setup"

setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all,+sys_rawio,+net_admin \
	"$IOTRIAGED" --foreground --socket "$tmp/s" --interval 300 --cpu-budget 0 \
	>"$tmp/d.log" 2>&1 &
dpid=$!
setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
	dd if="$wdir/fifo" of="$wdir/out" bs=256k iflag=fullblock oflag=direct status=none \
	2>"$tmp/dd.err" &
writer=$!
(
	i=0
	while [ $i -lt 600 ]; do
		head -c 262144 /dev/zero
		sleep 0.025
		i=$((i + 1))
	done
) >"$wdir/fifo" &
feeder=$!

python3 - "$tmp/s" "$writer" <<'PY' || { cat "$tmp/d.log" "$tmp/dd.err"; fail "nobody's writer"; }
import json, os, socket, sys, time
sock, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 20
while not os.path.exists(sock):
    assert time.monotonic() < deadline, "no daemon socket"
    time.sleep(0.1)
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sock)
f = s.makefile("rwb")
last, p = None, {}
while time.monotonic() < deadline:
    f.write(b'{"cmd":"snapshot"}\n')
    f.flush()
    rep = json.loads(f.readline().decode("utf-8", "replace"))
    smp = rep.get("sample") if rep.get("ok") else None
    if smp and smp.get("sample") != last:
        last = smp.get("sample")
        p = smp.get("processes", {})
        rows = [r for r in p.get("top_io", []) if r["pid"] == pid and not r.get("exited")]
        if rows and rows[0]["kB_wr/s"] > 0:
            assert p["bytes_source"] == "procfs+taskstats", p
            assert rows[0].get("user") in (None, "nobody"), rows[0]
            print("dd (pid %d, nobody) writes %.0f kB/s; %s; procfs_io: %s" %
                  (pid, rows[0]["kB_wr/s"], p["bytes_source"],
                   smp["sources"]["procfs_io"].get("note", smp["sources"]["procfs_io"])))
            sys.exit(0)
    time.sleep(0.1)
sys.exit("pid %d (nobody) not in top_io for 20 s: %r" % (pid, p))
PY
echo "ok"
