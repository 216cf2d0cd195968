#!/bin/sh
# Issue 12, the clients against whatever answers on the socket
# (tests/integration/impostor.py): a reply line that never ends, a server
# that never answers, one that answers a byte at a time; every daemon client
# (snapshot --socket, suggest, apply, undo, worker status) fails within its
# timeout with bounded memory and "iotriage: PATH: WHY". A server running as
# another uid is refused before anything is sent, naming that uid; root's
# server and the user's own are trusted. The live view gives up on a silent
# or foreign server and stays responsive. Text from servers and from the
# host (a process named with escape sequences) reaches the terminal escaped.
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ -n "${IOTRIAGE:-}" ] || skip "\$IOTRIAGE not set"
command -v python3 >/dev/null || skip "python3 not installed"
[ "$(id -u)" -eq 0 ] || skip "needs root (a temporary user for the foreign server)"
command -v useradd >/dev/null && command -v setpriv >/dev/null && command -v runuser >/dev/null ||
	skip "useradd, setpriv or runuser missing"
WAIT=${TUI_TEST_WAIT:-30}
tmp=$(mktemp -d)
chmod 755 "$tmp"
user="iotr-proto-$$"
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	[ -n "${tui_server:-}" ] && T kill-server 2>/dev/null
	userdel "$user" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$user" ||
	skip "useradd $user refused"
uid=$(id -u "$user")
# what the user runs, copied where it may read it: the checkout may sit
# under a directory only root can enter (a clone in /root)
. "$SRCDIR/tests/integration/user_lib.sh"
user_copy "$tmp/share" "$SRCDIR/tests/integration/impostor.py" "$IOTRIAGE" ||
	fail "copying the impostor and the client for $user"
imp="$tmp/share/impostor.py"
ucli="$tmp/share/${IOTRIAGE##*/}"
# the system's python: another uid may not reach a per-user one (pyenv)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)

# start_imp MODE NAME [setpriv args]: an impostor on $tmp/NAME.sock
start_imp() {
	m=$1
	n=$2
	shift 2
	"$@" "$py" "$imp" "$m" "$tmp/$n.sock" "$tmp/$n.log" &
	pids="$pids $!"
	i=0
	until [ -S "$tmp/$n.sock" ]; do
		[ $i -lt 100 ] || fail "impostor $n did not start"
		sleep 0.1
		i=$((i + 1))
	done
}
start_imp endless endless
start_imp silent silent
start_imp drip drip
start_imp daemon root
# its own directory: it creates its socket and log there
mkdir "$tmp/u" && chown "$user" "$tmp/u" || fail "mkdir $tmp/u"
start_imp daemon u/other setpriv --reuid="$uid" --regid="$(id -g "$user")" --clear-groups

# ---- limits: every client, against each misbehaviour, in parallel ----
python3 - "$IOTRIAGE" "$tmp" <<'PY' || exit 1
import os, subprocess, sys, time
cli, tmp = sys.argv[1], sys.argv[2]
TIMEOUT_S = 10          # IOT_PROTO_CLIENT_TIMEOUT_MS
MAX_RSS_KIB = 200 << 10  # IOT_PROTO_MAX_REPLY (64 MiB) line, copied once, and the program
if b"libasan" in subprocess.run(["ldd", cli], capture_output=True).stdout:
    MAX_RSS_KIB *= 2     # ASan's shadow and its quarantine of freed buffers
clients = [["snapshot", "--json"], ["suggest"], ["apply", "irq-spread-x"], ["undo"],
           ["worker", "status"]]
why = {"endless": "a reply line over the limit (64 MiB)",
       "silent": "no reply within 10 s", "drip": "no reply within 10 s"}
bad = 0
for mode in ("endless", "silent", "drip"):
    sock = os.path.join(tmp, mode + ".sock")
    procs = []
    t0 = time.monotonic()
    for c in clients:
        argv = [cli] + c[:1] + (c[1:2] if c[0] == "worker" else []) + ["--socket", sock] + \
            (c[1:] if c[0] != "worker" else [])
        procs.append((argv, subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE)))
    for argv, p in procs:
        # wait4: the child's own peak RSS
        deadline = t0 + TIMEOUT_S + 15
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                print("FAIL: %s (%s): still running after %d s" % (" ".join(argv[1:]), mode,
                                                                 TIMEOUT_S + 15))
                bad = 1
                break
            time.sleep(0.05)
        took = time.monotonic() - t0
        err = p.stderr.read().decode(errors="replace")
        rc = os.waitstatus_to_exitcode(status)
        name = "%s (%s)" % (" ".join(argv[1:2]), mode)
        head = "iotriage: " + ("snapshot: " if argv[1] == "snapshot" else "") + sock + ": "
        if rc != 1 or not err.startswith(head) or why[mode] not in err:
            print("FAIL: %s: rc %d, stderr %r" % (name, rc, err))
            bad = 1
        if ru.ru_maxrss > MAX_RSS_KIB:
            print("FAIL: %s: peak RSS %d KiB over %d" % (name, ru.ru_maxrss, MAX_RSS_KIB))
            bad = 1
        if mode != "endless" and not (TIMEOUT_S - 1 <= took <= TIMEOUT_S + 5):
            print("FAIL: %s: gave up after %.1f s, not ~%d s" % (name, took, TIMEOUT_S))
            bad = 1
        print("%-28s rc %d in %5.1f s, peak RSS %6d KiB: %s" % (name, rc, took, ru.ru_maxrss,
                                                             err.strip()[:110]))
sys.exit(bad)
PY

# ---- who answers: another uid is refused before any request ----
for c in "snapshot --json" suggest "apply irq-spread-x" undo "worker status"; do
	set -- $c
	if [ "$1" = worker ]; then
		"$IOTRIAGE" worker status --socket "$tmp/u/other.sock" >"$tmp/out" 2>"$tmp/err"
	else
		v=$1
		shift
		"$IOTRIAGE" "$v" --socket "$tmp/u/other.sock" "$@" >"$tmp/out" 2>"$tmp/err"
	fi
	rc=$?
	[ $rc -eq 1 ] || fail "$c against uid $uid: rc $rc: $(cat "$tmp/err")"
	grep -Eq "^iotriage: (snapshot: )?$tmp/u/other.sock: answered by uid $uid, neither root nor you \(uid 0\)" \
		"$tmp/err" || fail "$c against uid $uid: $(cat "$tmp/err")"
done
[ ! -s "$tmp/u/other.log" ] || fail "a request reached the foreign server: $(cat "$tmp/u/other.log")"
# the user's own server, and root's, are trusted by that user
runuser -u "$user" -- "$ucli" snapshot --socket "$tmp/u/other.sock" --json >"$tmp/out" \
	2>"$tmp/err" || fail "the user's own server refused: $(cat "$tmp/err")"
runuser -u "$user" -- "$ucli" snapshot --socket "$tmp/root.sock" --json >"$tmp/out" \
	2>"$tmp/err" || fail "root's server refused by a user: $(cat "$tmp/err")"
rm -f "$tmp/u/other.log" # those were the user's own requests

# ---- what servers say reaches the terminal escaped ----
esc=$(printf '\033')
"$IOTRIAGE" snapshot --socket "$tmp/root.sock" --json >"$tmp/out" 2>"$tmp/err" ||
	fail "snapshot from the root impostor: $(cat "$tmp/err")"
grep -q "$esc" "$tmp/out" && fail "snapshot --socket printed a raw ESC: $(od -c "$tmp/out" | head)"
grep -qF '\x1b[2J\xc2\x9bimp' "$tmp/out" || fail "snapshot --socket: $(cat "$tmp/out")"
"$IOTRIAGE" worker status --socket "$tmp/root.sock" >"$tmp/out" 2>"$tmp/err"
grep -q "$esc" "$tmp/out" && fail "worker status printed a raw ESC: $(od -c "$tmp/out" | head)"
grep -qF '/x\x1b]0;pwn\x07' "$tmp/out" && grep -qF 'error: \x1b[31mboom' "$tmp/out" ||
	fail "worker status: $(cat "$tmp/out")"
"$IOTRIAGE" undo --socket "$tmp/root.sock" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "undo refused by the impostor must exit 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ! grep -q "$esc" "$tmp/err" &&
	grep -qF 'iotriage: undo: no\x0afake line \x1b[2J (iotriaged)' "$tmp/err" ||
	fail "undo's quoted error: $(od -c "$tmp/err" | head -20)"

# ---- a process that names itself with escape sequences ----
mkdir -p /var/tmp/"$user" && chmod 700 /var/tmp/"$user" || skip "no /var/tmp"
python3 - /var/tmp/"$user"/w <<'PY' &
import ctypes, os, sys, time
# prctl(PR_SET_NAME): 15 bytes, the owner's choice
ctypes.CDLL(None).prctl(15, b"\x1b]0;pwn\x07\x1b[2J\x9b", 0, 0, 0)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
end = time.monotonic() + 60
# 1 MiB dirtied, then truncated (cancelled): ~100 MB/s of write_bytes
# whatever the disk does, so it ranks among the top 10 writers on a busy
# machine; an fsync each time made it as slow as the disk
while time.monotonic() < end:
    for off in range(0, 1 << 20, 256 << 10):
        os.pwrite(fd, b"x" * (256 << 10), off)
    os.ftruncate(fd, 0)
    time.sleep(0.01)
PY
wpid=$!
pids="$pids $wpid"
# the snapshot shows the 10 biggest: on a loaded machine, ask again (up to
# 5 times) until the writer is among them
for i in 1 2 3 4 5; do
	"$IOTRIAGE" snapshot --interval 1000 >"$tmp/out" 2>"$tmp/err"
	"$IOTRIAGE" snapshot --interval 1000 --json >"$tmp/out.json" 2>>"$tmp/err"
	grep -qF ' \x1b]0;pwn\x07 ' "$tmp/out" && grep -qF '"comm":"\u001b]0;pwn' "$tmp/out.json" && break
done
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
rm -rf /var/tmp/"$user"
grep -q "processes: bytes from /proc/PID/io" "$tmp/out" ||
	skip "no per-process IO on this host: $(grep -i process "$tmp/out")"
# 16 columns: cut on a whole escape
grep -qF ' \x1b]0;pwn\x07 ' "$tmp/out" ||
	fail "the process named with escapes is not in the snapshot: $(sed -n '/^processes/,$p' "$tmp/out")"
grep -q "$esc" "$tmp/out" "$tmp/out.json" "$tmp/err" &&
	fail "a raw ESC reached the terminal: $(grep -n "$esc" "$tmp/out" "$tmp/out.json" | od -c | head)"
grep -qF '\u001b]0;pwn\u0007\u001b[2J\ufffd' "$tmp/out.json" ||
	fail "snapshot --json: the name is not escaped JSON"

# ---- the live view: a silent, an endless and a foreign server; it stays responsive ----
command -v tmux >/dev/null || { echo "SKIP (live view part): tmux missing"; echo ok; exit 0; }
. "$SRCDIR/tests/integration/tui_lib.sh"
run_in silent 120 30 --socket "$tmp/silent.sock"
wait_for silent 'DISCONNECTED: no answer for 10 s' || fail "live view on a silent server"
T send-keys -t silent q
wait_for silent 'exited rc=0' || fail "the live view did not quit on q"
run_in endless 120 30 --socket "$tmp/endless.sock"
wait_for endless 'DISCONNECTED: a line over 64 MiB from the daemon' || fail "live view, endless line"
T send-keys -t endless q
wait_for endless 'exited rc=0' || fail "the live view did not quit on q"
run_in other 120 30 --socket "$tmp/u/other.sock"
wait_for other "DISCONNECTED: answered by uid $uid, neither root" || fail "live view, uid $uid"
T send-keys -t other q
wait_for other 'exited rc=0' || fail "the live view did not quit on q"
[ ! -s "$tmp/u/other.log" ] || fail "the live view sent a request to uid $uid"
echo ok
