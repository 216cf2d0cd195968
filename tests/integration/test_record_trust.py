#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""What iotriaged's history reads back of its flight recording
(doc/recording.md, doc/security.md):

- the recording it replays is the directory it checked and writes, held
  open since the start, never its path again: a daemon started with a
  relative --record that detaches (chdir("/")) used to read the same
  name under "/" for history; there, under a sticky /tmp, anybody could
  have planted segments, which the daemon parsed as root and served to
  its clients as its own past.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_lib import Client, Daemon, check, env, fail, skip  # noqa: E402

FIXTURES = env("FIXTURES")
IOTRIAGED = env("IOTRIAGED")
TIMEOUT = 30


def tree(tmp, name, uptime):
    t = os.path.join(tmp, name)
    shutil.copytree(os.path.join(FIXTURES, "live-vm", "t0"), t)
    with open(os.path.join(t, "proc", "uptime"), "w") as f:
        f.write(uptime + "\n")
    return t


def history(sock):
    """The documents of a history reply reaching an hour back, and its head."""
    c = Client(sock)
    c.send({"cmd": "history", "seconds": 3600})
    while True:
        r = c.recv()
        if r.get("event") is None:
            break
    c.close()
    check(r.get("ok") is True, "history failed: %r" % r)
    return r


def wait_gone(pid):
    deadline = time.monotonic() + TIMEOUT
    while os.path.exists("/proc/%d" % pid):
        with open("/proc/%d/stat" % pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                return
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            fail("the detached daemon did not exit within %d s of SIGTERM" % TIMEOUT)
        time.sleep(0.05)


def main():
    if os.geteuid() != 0:
        skip("the record directory must be root-owned: run as root")
    tmp = tempfile.mkdtemp(prefix="iotr-rectrust-")
    # what "/" + the relative path names once the daemon has detached
    planted = "/tmp/iotr-rectrust-%d" % os.getpid()
    pid = None
    try:
        # segments somebody left under /tmp (made by a daemon here, for
        # their timestamps; then given away: nobody's, readable by all)
        os.mkdir(planted, 0o755)
        d = Daemon(tmp, root=tree(tmp, "planted-tree", "11111.11 1.00"), interval=100,
                   name="plant", extra=["--core-only", "--record", os.path.join(planted, "rec")])
        time.sleep(1.5)
        check(d.stop() == 0, "the planting daemon's exit code")
        for top, dirs, files in os.walk(planted):
            for n in dirs + files + ["."]:
                os.chown(os.path.join(top, n), 65534, 65534)
        os.chmod(os.path.join(planted, "rec"), 0o755)

        # the daemon: a relative --record from its start directory, detached
        sock = os.path.join(tmp, "d.sock")
        rel = os.path.relpath(os.path.join(planted, "rec"), "/")
        p = subprocess.run([IOTRIAGED, "--socket", sock, "--interval", "100", "--history", "1",
                            "--core-only", "--root", tree(tmp, "tree", "22222.22 1.00"),
                            "--record", rel], cwd=tmp, capture_output=True, text=True,
                           timeout=TIMEOUT)
        check(p.returncode == 0, "iotriaged did not start: %d %s" % (p.returncode, p.stderr))
        mine = os.path.join(tmp, rel)
        check(os.path.isdir(mine) and oct(os.stat(mine).st_mode & 0o777) == "0o700",
              "the relative --record is not %s, 0700" % mine)
        c = Client(sock)
        st = c.req({"cmd": "status"})
        c.close()
        pid = st["pid"]
        check(st["record"]["recording"] is True, "not recording: %r" % st["record"])
        time.sleep(2.5)  # 10 samples in the ring, the others in its recording

        r = history(sock)
        docs = r["samples"]
        theirs = [x["sample"] for x in docs if x.get("uptime_cs") == 1111111]
        ours = [x for x in docs if x.get("uptime_cs") == 2222222]
        check(not theirs, "history served %d samples of segments planted in %s (samples %s): "
              "the daemon read its recording by a path it never checked" %
              (len(theirs), planted, theirs[:5]))
        check(r["recorded"] > 0 and len(ours) == len(docs),
              "history did not reach into the daemon's own recording: %d recorded, %d of %d "
              "documents its own" % (r["recorded"], len(ours), len(docs)))
        print("history read %d recorded samples, all from %s; none of %s" %
              (r["recorded"], mine, planted))
        os.kill(pid, signal.SIGTERM)
        wait_gone(pid)
        pid = None
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(planted, ignore_errors=True)


if __name__ == "__main__":
    main()
