#!/bin/sh
# NIC queues with time in the live view (issue 25, doc/tui.md "NICs" and
# "NIC queue chain"), as root on this kernel, driven in tmux (a private
# server, killed at the end), under a bounded UDP load over 127.0.0.1 (a
# Python sender and receiver, 3000 datagrams a second: loopback goes
# through the per-CPU backlog's NET_RX, napi_id 0):
#  1. `iotriage --trace` (embedded) at 120x40: Tab to the IRQs panel, z
#     (the NIC lines of idle links too), Home to the first NIC line, Enter:
#     its queue chain, with the backlog's row carrying a NET_RX time
#     (qNET_RX% > 0), polls/s and packets/s > 0, and the header's NET_RX%
#     and handler columns; Enter returns to the tables;
#  2. the same at 80x24: no handler, no polls/s, the backlog's time there.
# Assertions wait for the screen (up to $WAIT s), never for a fixed time.
# Skips (77): not root, no tmux/python3, tracing unavailable here (iotriage
# snapshot --trace says why), or no NIC line to open (no link besides lo).
set -u
WAIT=${TUI_TEST_WAIT:-20}
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (loads BPF programs)"
command -v tmux >/dev/null || skip "tmux is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set (run through meson test)"
unset NO_COLOR

tmp=$(mktemp -d)
. "$SRCDIR/tests/integration/tui_lib.sh"
udp_pid=
cleanup() {
	T kill-server 2>/dev/null
	if [ -n "$udp_pid" ]; then
		kill "$udp_pid" 2>/dev/null
		wait "$udp_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

"$IOTRIAGE" snapshot --trace --json --interval 200 >"$tmp/snap.json" 2>"$tmp/snap.err" ||
	skip "iotriage snapshot --trace: $(cat "$tmp/snap.err")"
why=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d.get("trace", {})
if not t.get("available"):
    print(t.get("reason", "no trace section"))
elif not any(n.get("up") or n.get("irqs") for n in d.get("nics", [])):
    print("no NIC line to open: no link up besides loopback")' "$tmp/snap.json")
[ -z "$why" ] || skip "$why"

# UDP over 127.0.0.1, 3000 datagrams a second for at most 120 s (killed at
# the end): few enough that the softirq probe stays in its 2 % budget
cat >"$tmp/udp.py" <<'PY'
import os, socket, time
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
r.bind(("127.0.0.1", 0))
r.setblocking(False)
dst = r.getsockname()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.monotonic() + 120
nxt = time.monotonic()
while time.monotonic() < end:
    for _ in range(3):
        s.sendto(b"x" * 512, dst)
    try:
        while True:
            r.recv(2048)
    except BlockingIOError:
        pass
    nxt += 0.001
    time.sleep(max(0.0, nxt - time.monotonic()))
PY
python3 "$tmp/udp.py" &
udp_pid=$!

# the backlog's row: its NET_RX time (qNET_RX%), and packets/s, > 0
backlog_ok() {
	python3 - "$tmp/screen" "$1" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
wide = sys.argv[2] == "wide"
row = next((l for l in lines if l.startswith("backlog ")), None)
if row is None:
    off = next((l for l in lines if "NET_RX time per queue:" in l), "")
    sys.exit("no backlog row" + (": " + off.strip() if off else ""))
f = row.split()
# backlog - - [lo netif_rx RPS] - - - NET_RX% qNET_RX% [polls/s] pk/s
want = 13 if wide else 9
if len(f) != want:
    sys.exit("%d fields, not %d: %s" % (len(f), want, row))
q, pk = float(f[-3 if wide else -2]), float(f[-1])
polls = float(f[-2]) if wide else 1
if not (0 < q <= 100 and pk > 0 and polls > 0):
    sys.exit("no NET_RX time on the backlog: " + row)
print(row)
PY
}

open_chain() {
	w=$1
	wait_for "$w" "^  IRQs" || fail "$w: no IRQs panel"
	T send-keys -t "$w" Tab Tab
	wait_for "$w" "^> IRQs" || fail "$w: Tab Tab does not focus the IRQs"
	T send-keys -t "$w" z
	wait_for "$w" "^nic [a-z]" || fail "$w: no NIC line after z"
	T send-keys -t "$w" Home Enter
	wait_for "$w" "^> nic [^ ]+ " || fail "$w: Enter on the first NIC line opens no chain"
}

# 1. 120x40
run_in w120 120 40 --trace
open_chain w120
wait_for w120 "^queue +NAPI +IRQ +handler +irq/s +on CPU +%irq\+%soft +NET_RX% +qNET_RX% +polls/s +pk/s$" ||
	fail "120x40: the chain's header with the NET_RX columns"
screen_wait w120 backlog_ok wide || fail "120x40: $(cat "$tmp/check")"
echo "120x40: $(cat "$tmp/check")"
cp "$tmp/screen" "$tmp/screen-120"
T send-keys -t w120 Enter
wait_for w120 "^> IRQs" || fail "120x40: Enter does not return to the tables"
T kill-session -t w120
[ -s "$tmp/san-w120" ] && fail "the client's stderr: $(cat "$tmp/san-w120")"

# 2. 80x24
run_in w80 80 24 --trace
open_chain w80
wait_for w80 "^queue +NAPI +IRQ +irq/s +on CPU +%irq\+%soft +NET_RX% +qNET_RX% +pk/s$" ||
	fail "80x24: the chain's header without handler and polls/s"
screen_wait w80 backlog_ok narrow || fail "80x24: $(cat "$tmp/check")"
echo "80x24: $(cat "$tmp/check")"
awk 'length > 80 { bad = 1 } END { exit bad }' "$tmp/screen" || fail "80x24: a line over 80 columns"
T kill-session -t w80
[ -s "$tmp/san-w80" ] && fail "the client's stderr: $(cat "$tmp/san-w80")"
# 3. --trace-budget: a probe over it goes off with its reason on the
# header's line (the softirq probe under heavy packet rates; here every
# probe, over a budget of a millionth of a percent), and it needs --trace
run_in wb 120 40 --trace --trace-budget 0.000001
wait_for wb "tracing: [a-z, ]*off \\(over budget: [0-9.]+ % of a CPU > 0\\.000 %" ||
	fail "--trace-budget 0.000001: no probe said over budget"
T kill-session -t wb
[ -s "$tmp/san-wb" ] && fail "the client's stderr: $(cat "$tmp/san-wb")"
# at 80x24 the one line under the headline says so too, after PSI and
# before the dirty cache (it once fell off the line's end)
run_in wb80 80 24 --trace --trace-budget 0.000001
wait_for wb80 "^ PSI .* \\| tracing (off|n/a|: [a-z ]+ off)( \\||\$)" ||
	fail "80x24: tracing off is not on the line under the headline"
T kill-session -t wb80
[ -s "$tmp/san-wb80" ] && fail "the client's stderr: $(cat "$tmp/san-wb80")"
run_in wu 80 24 --trace-budget 5
wait_for wu "exited rc=2" || fail "--trace-budget without --trace is not a usage error"
grep -q "iotriage: --trace-budget: needs --trace" "$tmp/san-wu" ||
	fail "--trace-budget without --trace: $(cat "$tmp/san-wu")"
T kill-session -t wu
if [ -n "${TUI_NAPI_SHOW:-}" ]; then
	sed -n '1,12p' "$tmp/screen-120"
	sed -n '1,10p' "$tmp/screen"
fi
echo "ok"
