# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for the iotriaged integration tests (test_daemon*.sh).

Starts the real daemon on a private socket over a tree the test owns, talks
the wire protocol of doc/protocol.md, and rewrites the tree between samples
deterministically: the daemon is stopped (SIGSTOP) only while it sits in
epoll_wait, so a sample never mixes two states of the tree. Nothing here
depends on how fast the machine is, only on upper bounds (timeouts).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

TIMEOUT = 20.0  # seconds; only ever an upper bound
EPOLL_WAIT_SYSCALLS = ("232", "281")  # x86_64 epoll_wait, epoll_pwait


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def skip(msg):
    print("SKIP: " + msg, flush=True)
    sys.exit(77)


def check(cond, msg):
    if not cond:
        fail(msg)


def env(name):
    v = os.environ.get(name)
    if not v:
        skip("$%s is not set (run through meson test)" % name)
    return v


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def copy_tree(src, dst):
    shutil.copytree(src, dst, symlinks=True)


def user_copy(dirpath, *paths):
    """Copies paths (binaries, scripts) into dirpath, made 0755 with copies
    readable by all, for another uid to run: the checkout may sit under a
    directory that uid cannot enter (a clone in /root, issue 26). dirpath's
    parents must let that uid through. Returns the copies' paths."""
    os.makedirs(dirpath, exist_ok=True)
    os.chmod(dirpath, 0o755)
    out = []
    for p in paths:
        dst = os.path.join(dirpath, os.path.basename(p))
        shutil.copy2(p, dst)
        os.chmod(dst, os.stat(dst).st_mode | 0o444 | (0o111 if os.access(p, os.X_OK) else 0))
        out.append(dst)
    return out


def rewrite_tree(src, dst):
    """Overwrites every file of dst/proc with src's in place: same inode, so
    the daemon's open descriptors read the new bytes."""
    for name in os.listdir(os.path.join(src, "proc")):
        with open(os.path.join(src, "proc", name), "rb") as f:
            data = f.read()
        with open(os.path.join(dst, "proc", name), "r+b") as f:
            f.truncate(0)
            f.write(data)


def uptime_cs(tree):
    with open(os.path.join(tree, "proc", "uptime")) as f:
        secs = f.read().split()[0]
    whole, frac = secs.split(".")
    return int(whole) * 100 + int(frac[:2].ljust(2, "0"))


class Client:
    def __init__(self, path, rcvbuf=None):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        # a blocking connect: with a timeout set, a full listen backlog
        # would be EAGAIN instead of a wait
        self.s.connect(path)
        self.s.settimeout(TIMEOUT)
        self.buf = b""

    def send_raw(self, data):
        self.s.sendall(data)

    def send(self, obj):
        self.send_raw(json.dumps(obj).encode() + b"\n")

    def line(self):
        """The next raw line (bytes, with its newline), b"" at EOF."""
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                rest, self.buf = self.buf, b""
                return rest
            self.buf += chunk
        i = self.buf.index(b"\n") + 1
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def recv(self):
        raw = self.line()
        if not raw:
            fail("connection closed while waiting for a reply")
        try:
            return json.loads(raw)
        except ValueError as e:
            fail("reply is not JSON (%s): %r" % (e, raw[:200]))

    def reply(self):
        """The next line that is not a pushed event."""
        while True:
            r = self.recv()
            if r.get("event") is None:
                return r

    def req(self, obj):
        self.send(obj)
        return self.reply()

    def event(self):
        while True:
            raw = self.line()
            if not raw:
                fail("connection closed while waiting for an event")
            r = json.loads(raw)
            if r.get("event") == "sample":
                return r, raw

    def at_eof(self):
        """True when the daemon closed the connection (after any lines)."""
        try:
            while True:
                raw = self.line()
                if not raw:
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self):
        self.s.close()


class Daemon:
    def __init__(self, tmp, root=None, interval=100, extra=(), name="d", env_extra=None):
        self.tmp = tmp
        self.sock = os.path.join(tmp, name + ".sock")
        self.logpath = os.path.join(tmp, name + ".log")
        self.log = open(self.logpath, "w")
        args = [env("IOTRIAGED"), "--foreground", "--socket", self.sock,
                "--interval", str(interval)]
        if root:
            args += ["--root", root]
        args += list(extra)
        penv = dict(os.environ)
        penv.pop("NOTIFY_SOCKET", None)  # never the test runner's systemd
        penv.pop("JOURNAL_STREAM", None)
        if env_extra:
            penv.update(env_extra(self.log) if callable(env_extra) else env_extra)
        self.p = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                  stdout=self.log, stderr=self.log, env=penv)
        deadline = time.monotonic() + TIMEOUT
        while True:
            if self.p.poll() is not None:
                fail("iotriaged exited %d at start: %s" % (self.p.returncode, self.log_text()))
            try:
                c = Client(self.sock)
                r = c.req({"cmd": "status"})
                c.close()
                # clients == 1: earlier probes are reaped, counts start clean
                if r.get("ok") and r.get("samples", 0) >= 1 and r.get("clients") == 1:
                    self.pid = r["pid"]
                    break
            except (FileNotFoundError, ConnectionRefusedError):
                pass
            if time.monotonic() > deadline:
                self.kill()
                fail("iotriaged did not answer within %ds" % TIMEOUT)
            time.sleep(0.02)
        check(self.pid == self.p.pid, "status pid %d is not the daemon's %d" % (self.pid, self.p.pid))

    def client(self, **kw):
        return Client(self.sock, **kw)

    def status(self):
        c = self.client()
        r = c.req({"cmd": "status"})
        c.close()
        check(r.get("ok") is True, "status failed: %r" % r)
        return r

    def log_text(self):
        if not self.log.closed:
            self.log.flush()
        with open(self.logpath) as f:
            return f.read()

    def rss_kib(self):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def pause_idle(self):
        """Stops the daemon where it waits for its timer, never mid-sample."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            os.kill(self.p.pid, signal.SIGSTOP)
            # the stop is asynchronous: wait until the task is really stopped
            while True:
                with open("/proc/%d/stat" % self.p.pid) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                if state in ("T", "t"):
                    break
                time.sleep(0.001)
            with open("/proc/%d/syscall" % self.p.pid) as f:
                nr = f.read().split()[0]
            if nr in EPOLL_WAIT_SYSCALLS:
                return
            os.kill(self.p.pid, signal.SIGCONT)
            if time.monotonic() > deadline:
                fail("never caught the daemon idle in epoll_wait (syscall %s)" % nr)
            time.sleep(0.013)

    def resume(self):
        os.kill(self.p.pid, signal.SIGCONT)

    def stop(self, sig=signal.SIGTERM):
        """Sends sig and returns the exit code."""
        self.p.send_signal(sig)
        try:
            rc = self.p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            fail("iotriaged did not exit within %ds of signal %d" % (TIMEOUT, sig))
        self.log.close()
        return rc

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def leader_gone(p):
    """The daemon's main thread has exited: a zombie leader (a thread it
    left behind still sits in the kernel) or no process at all."""
    if p.poll() is not None:
        return True
    try:
        with open("/proc/%d/stat" % p.pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def cleanup(daemons):
    """Kills the daemons; when called while a failure propagates (a finally
    clause), shows the end of each daemon's log, which says why."""
    failing = sys.exc_info()[0] is not None
    for d in daemons:
        d.kill()
        if failing:
            try:
                tail = d.log_text().splitlines()[-40:]
            except OSError:
                continue
            sys.stderr.write("--- iotriaged log (%s), last %d lines:\n%s\n"
                             % (d.sock, len(tail), "\n".join(tail)))
