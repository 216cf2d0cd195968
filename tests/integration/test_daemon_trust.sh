#!/bin/sh
# iotriaged's socket against a local user in its group (issue 12): the socket
# is made without a chown() or chmod() naming its path (strace: only
# fchownat() on a descriptor, AT_EMPTY_PATH), so swapping a symlink in cannot
# hand a file of root's to the group; a socket directory reached through the
# user's symlink, or under a directory the user owns or a group may write, is
# refused; a root-owned symlink on the way is followed. Runs as root (it
# makes a user and a group, removed at exit).
set -u
fx="$FIXTURES/live-vm/t0"
[ -d "$fx/proc" ] || { echo "SKIP: no $fx fixture"; exit 77; }
. "$SRCDIR/tests/integration/user_lib.sh"
temp_user iotr-socket

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$fx" "$tmp" "$name" <<'PY' || exit 1
import grp, os, pwd, shutil, signal, stat, subprocess, sys, time
from daemon_lib import *

fx, tmp, name = sys.argv[1:4]
uid = pwd.getpwnam(name).pw_uid
gid = grp.getgrnam(name).gr_gid
os.chmod(tmp, 0o711)
daemons = []


def run_refused(sock, what, *expect):
    p = subprocess.run([env("IOTRIAGED"), "--foreground", "--socket", sock, "--root", fx],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
    check(p.returncode == 1 and all(e in p.stderr for e in expect),
          "%s: exit %d, said %r, expected %r" % (what, p.returncode, p.stderr, expect))
    check(not os.path.lexists(sock), "%s: a socket was made" % what)
    print("refused, %s: %s" % (what, p.stderr.strip()))


try:
    # 1. no chown()/chmod() by path: the group is set on a descriptor
    if shutil.which("strace") is None:
        print("strace not installed: the system calls are not checked")
    else:
        run = os.path.join(tmp, "run")
        os.mkdir(run, 0o750)
        os.chown(run, 0, gid)
        sock = os.path.join(run, "s")
        trace = os.path.join(tmp, "strace.out")
        log = open(os.path.join(tmp, "strace-daemon.log"), "w")
        # LeakSanitizer cannot run under ptrace: a sanitized build would fail at exit
        senv = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
        p = subprocess.Popen(["strace", "-f", "-o", trace, "-e",
                              "trace=chown,fchown,lchown,fchownat,chmod,fchmod,fchmodat",
                              env("IOTRIAGED"), "--foreground", "--socket", sock, "--root", fx,
                              "--group", name, "--interval", "100"],
                             stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=senv)
        deadline = time.monotonic() + TIMEOUT
        pid = None
        while pid is None:
            check(p.poll() is None, "iotriaged under strace exited %r" % p.returncode)
            check(time.monotonic() < deadline, "iotriaged under strace never answered")
            try:
                c = Client(sock)
                r = c.req({"cmd": "status"})
                c.close()
                pid = r["pid"]
            except (FileNotFoundError, ConnectionRefusedError):
                time.sleep(0.05)
        st = os.lstat(sock)
        check(stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o660
              and st.st_uid == 0 and st.st_gid == gid,
              "socket mode %o uid %d gid %d, expected 0660 root:%d"
              % (st.st_mode, st.st_uid, st.st_gid, gid))
        os.kill(pid, signal.SIGTERM)
        check(p.wait(TIMEOUT) == 0, "iotriaged under strace exited %r: %s"
              % (p.returncode, open(os.path.join(tmp, "strace-daemon.log")).read()))
        calls = [l.split(None, 1)[1].strip() for l in open(trace) if "(" in l and "+++" not in l]
        by_path = [l for l in calls if sock in l or "\"" + run in l]
        check(not by_path, "chown/chmod naming the socket's path: %r" % by_path)
        on_fd = [l for l in calls if l.startswith("fchownat(") and "AT_EMPTY_PATH" in l
                 and ", -1, %d," % gid in l]
        check(len(on_fd) == 1, "no fchownat(fd, \"\", -1, %d, AT_EMPTY_PATH): %r" % (gid, calls))
        check(not os.path.lexists(sock), "socket left behind at exit")
        print("socket root:%s 0660 made with: %s" % (name, "; ".join(calls)))

    # 2. the socket's directory through the user's symlink: refused
    real = os.path.join(tmp, "real")
    os.mkdir(real, 0o750)
    ulink = os.path.join(tmp, "ulink")
    os.symlink(real, ulink)
    os.lchown(ulink, uid, gid)
    run_refused(os.path.join(ulink, "s"), "through the user's symlink",
                "%s is a symlink of uid %d (%s)" % (ulink, uid, name), "without it")
    # ... and a symlink of the user's further up, to a directory above it
    os.mkdir(os.path.join(real, "sub"), 0o700)
    run_refused(os.path.join(ulink, "sub", "s"), "under the user's symlink",
                "%s is a symlink of uid %d" % (ulink, uid))

    # 3. under a directory the user owns (it could rename the one below)
    udir = os.path.join(tmp, "udir")
    os.mkdir(udir, 0o755)
    os.chown(udir, uid, gid)
    os.mkdir(os.path.join(udir, "sub"), 0o700)
    run_refused(os.path.join(udir, "sub", "s"), "under the user's directory",
                "directory %s (mode 0755) belongs to uid %d (%s)" % (udir, uid, name),
                "every directory above the socket must belong to root")

    # 4. under a directory a group may write, without the sticky bit
    gw = os.path.join(tmp, "gw")
    os.mkdir(gw)
    os.chown(gw, 0, gid)
    os.chmod(gw, 0o770)
    os.mkdir(os.path.join(gw, "sub"), 0o700)
    run_refused(os.path.join(gw, "sub", "s"), "under a group-writable directory",
                "directory %s is writable by group %d (%s) (owner uid 0 (root), mode 0770, "
                "no sticky bit)" % (gw, gid, name))

    # 5. a symlink of root's is followed; a relative path with "..", too,
    # and the socket is removed at exit by its directory, not its path
    rlink = os.path.join(tmp, "rlink")
    os.symlink("real/sub/..", rlink)
    d = Daemon(rlink, root=fx, interval=100, name="via-root-link")
    daemons.append(d)
    check(os.path.exists(os.path.join(real, "via-root-link.sock")),
          "the socket is not in the symlink's target")
    check(d.stop() == 0, "daemon behind a root symlink did not exit 0")
    check(not os.path.lexists(os.path.join(real, "via-root-link.sock")),
          "socket behind a root symlink left at exit")
    p = subprocess.Popen([env("IOTRIAGED"), "--foreground", "--socket", "real/../real/rel.sock",
                          "--root", fx, "--interval", "100"], cwd=tmp,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(os.path.join(real, "rel.sock")):
        check(p.poll() is None and time.monotonic() < deadline,
              "relative --socket: %r" % (p.stderr.read() if p.poll() is not None else "slow"))
        time.sleep(0.02)
    time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    check(p.wait(TIMEOUT) == 0, "relative --socket daemon exited %r" % p.returncode)
    check(not os.path.lexists(os.path.join(real, "rel.sock")), "relative socket left at exit")
    print("root symlink and relative path with '..': served, socket removed at exit")
finally:
    cleanup(daemons)
print("ok")
PY
