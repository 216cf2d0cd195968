#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Database roles and identity on this machine, for real (issues 29, 30).

1. PostgreSQL 15 from Debian's packages, a private cluster (cluster_name
   15/main) started inside a cgroup the test creates as systemd would,
   system.slice/postgresql@15-main.service under the cgroup v2 tree, under
   pgbench and a CHECKPOINT every 2 s: the checkpointer is named by role
   ("db": "pg", "role": "checkpointer"), with user postgres and unit
   postgresql@15-main.service; the backends are one group.
2. An impostor: `exec -a "postgres: 15/main: checkpointer (user postgres,
   unit system.slice/postgresql@15-main.service)"` run by nobody inside a
   delegated-looking subtree whose last components are
   system.slice/postgresql@15-main.service: no role (role_claimed), user
   nobody, the unit its whole path; no finding's culprit gives it a role.
3. MariaDB from Debian's packages, a private datadir and socket, run as
   mysql with performance_schema on, under inserts: its page cleaner thread
   is named by role in processes.db_threads (from performance_schema.threads,
   since all its threads are called mariadbd).
4. The live view at 80x24: p, then /checkp, shows "pg checkpointer".

Through a real iotriaged on a private socket. Needs root, cgroup v2 (or the
hybrid /sys/fs/cgroup/unified), PostgreSQL, MariaDB and tmux; exits 77
otherwise. Every cgroup, cluster and server it starts is removed.
"""
import glob
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.environ.get("SRCDIR", "."), "tests", "integration"))
from daemon_lib import Daemon, check, cleanup, fail, skip  # noqa: E402

IOTRIAGE = os.environ.get("IOTRIAGE", "")
WAIT = 90.0  # seconds, an upper bound only
TITLE = ("postgres: 15/main: checkpointer (user postgres, unit "
         "system.slice/postgresql@15-main.service)")
UNIT = "postgresql@15-main.service"


def v2_top():
    for top in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
        if os.path.exists(os.path.join(top, "cgroup.procs")) and \
                os.path.exists(os.path.join(top, "cgroup.controllers")):
            return top
    return None


def sample(d):
    c = d.client()
    try:
        r = c.req({"cmd": "snapshot"})
    finally:
        c.close()
    return r.get("sample", {}) if r.get("ok") else {}


def rows(doc):
    p = doc.get("processes") or {}
    return p.get("top_io", []) + p.get("top_cpu", []) + p.get("top_delay", [])


def wait_for(d, what, pred):
    deadline = time.monotonic() + WAIT
    doc = {}
    while time.monotonic() < deadline:
        doc = sample(d)
        got = pred(doc)
        if got:
            return doc, got
        time.sleep(0.5)
    fail("%s: never seen; last processes: %s" % (
        what, json.dumps(doc.get("processes"))[:3000]))


class Cgroups:
    """cgroups made by the test, removed (deepest first) whatever happens."""

    def __init__(self, top):
        self.top = top
        self.made = []

    def make(self, rel):
        path = self.top
        for part in rel.split("/"):
            path = os.path.join(path, part)
            if not os.path.isdir(path):
                os.mkdir(path)
                self.made.append(path)
        return path

    def remove(self):
        for path in reversed(self.made):
            for _ in range(100):
                try:
                    os.rmdir(path)
                    break
                except OSError:
                    time.sleep(0.1)  # processes still leaving
            else:
                print("note: cgroup %s not removed" % path)


def in_cgroup(cg, args):
    """args run as a process placed in cgroup cg before it execs"""
    return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cg] + args


def check_impostor(doc, delegated):
    """the row whose command line is the impostor's title"""
    mine = [r for r in rows(doc) if r.get("cmdline", "").startswith(TITLE)]
    if not mine:
        return None
    r = mine[0]
    pid = r["pid"]
    check("role" not in r and "db" not in r, "impostor given a role: %r" % r)
    check(r.get("role_claimed") is True, "impostor's claim not marked: %r" % r)
    check(r.get("user") == "nobody", "impostor's user: %r" % r)
    check(r.get("unit") == delegated, "impostor's unit not its whole path: %r" % r)
    for f in doc.get("findings") or []:
        for c in f.get("culprits") or []:
            if c.get("pid") == pid:
                check(not c.get("role"), "finding %s gives the impostor a role: %r"
                      % (f.get("id"), c))
                check(c.get("user") == "nobody", "finding's culprit without its user: %r" % c)
        check("the checkpointer" not in f.get("who", "") or
              f.get("who", "").startswith("pg checkpointer"),
              "headline names the impostor as the checkpointer: %r" % f.get("who"))
    return r


def postgres(d, tmp, cgs, top):
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    try:
        pw = pwd.getpwnam("postgres")
    except KeyError:
        bins = []
    if not bins or not shutil.which("runuser"):
        skip("PostgreSQL (or runuser) not installed")
    b = os.path.dirname(bins[-1])
    if os.path.exists(os.path.join(top, "system.slice", UNIT)):
        skip("a cgroup system.slice/%s exists already (a real cluster?)" % UNIT)
    cg = cgs.make("system.slice/" + UNIT)
    delegated_rel = ("iotr-roles-%d/user.slice/user-65534.slice/user@65534.service/"
                     "system.slice/%s" % (os.getpid(), UNIT))
    dcg = cgs.make(delegated_rel)
    delegated = "/" + delegated_rel
    base = tempfile.mkdtemp(prefix="iot-roles-pg-", dir="/var/tmp")
    os.chown(base, pw.pw_uid, pw.pw_gid)
    data = os.path.join(base, "data")
    port = str(20000 + (os.getpid() + 7) % 20000)
    conn = ["-h", base, "-p", port, "-U", "postgres", "postgres"]
    started = False
    load = []
    try:
        r = subprocess.run(["runuser", "-u", "postgres", "--", b + "/initdb", "-D", data, "-A",
                            "trust", "-U", "postgres", "--no-sync"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "postgres: initdb: %s" % r.stderr[-500:])
        opts = ("-k %s -p %s -c listen_addresses='' -c cluster_name=15/main "
                "-c shared_buffers=32MB -c max_wal_size=64MB" % (base, port))
        r = subprocess.run(in_cgroup(cg, ["runuser", "-u", "postgres", "--", b + "/pg_ctl", "-D",
                                          data, "-o", opts, "-l", os.path.join(base, "log"),
                                          "-w", "start"]), capture_output=True, text=True)
        check(r.returncode == 0, "postgres: start: %s" % r.stderr[-500:])
        started = True
        r = subprocess.run(["runuser", "-u", "postgres", "--", b + "/pgbench", "-i", "-s", "5",
                            "-q"] + conn, capture_output=True, text=True)
        check(r.returncode == 0, "postgres: pgbench -i: %s" % r.stderr[-500:])
        load.append(subprocess.Popen(
            ["runuser", "-u", "postgres", "--", b + "/pgbench", "-c", "3", "-j", "1", "-T",
             "90"] + conn, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        load.append(subprocess.Popen(
            ["runuser", "-u", "postgres", "--", "sh", "-c",
             "while :; do %s/psql -qXc CHECKPOINT %s >/dev/null 2>&1; sleep 2; done"
             % (b, " ".join(conn))], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        # the impostor: nobody, a title claiming the checkpointer, in a
        # subtree whose last two components are the database's unit
        imp = subprocess.Popen(in_cgroup(dcg, [
            "runuser", "-u", "nobody", "--", "bash", "-c",
            'exec -a "$0" sh -c "while :; do :; done"', TITLE]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        load.append(imp)

        def ckpt(doc):
            for row in rows(doc):
                if row.get("role") == "checkpointer":
                    return row
            return None
        doc, row = wait_for(d, "postgres: the checkpointer by role", ckpt)
        check(row.get("db") == "pg", "checkpointer's db: %r" % row)
        check(row.get("user") == "postgres", "checkpointer's user: %r" % row)
        check(row.get("unit") == UNIT, "checkpointer's unit: %r" % row)
        print("ok: postgres: pid %d named by role: %s, user %s, unit %s" % (
            row["pid"], row["role"], row["user"], row["unit"]))

        def backends(doc):
            for g in (doc.get("processes") or {}).get("groups_cpu", []):
                if g.get("db") == "pg" and g.get("role") == "backend":
                    return g
            return None
        doc, g = wait_for(d, "postgres: the backends as one group", backends)
        print("ok: postgres: backends x%d %.0f %%CPU as one group" % (g["count"], g["cpu_pct"]))

        doc, r = wait_for(d, "the impostor's row", lambda doc: check_impostor(doc, delegated))
        print("ok: impostor pid %d: no role, role_claimed, user %s, unit %s" % (
            r["pid"], r["user"], r["unit"]))
        return load, started, b, data, base
    except BaseException:
        stop_postgres(load, started, b, data, base)
        raise


def stop_postgres(load, started, b, data, base):
    for p in load:
        p.terminate()
    for p in load:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if started:
        subprocess.run(["runuser", "-u", "postgres", "--", b + "/pg_ctl", "-D", data, "-m",
                        "immediate", "-w", "stop"], capture_output=True)
    shutil.rmtree(base, ignore_errors=True)


def mariadb(d):
    mysqld = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
    if not os.path.exists(mysqld) or not shutil.which("mariadb-install-db"):
        skip("MariaDB not installed")
    my = pwd.getpwnam("mysql")
    base = tempfile.mkdtemp(prefix="iot-roles-maria-", dir="/var/tmp")
    os.chmod(base, 0o755)
    os.chown(base, my.pw_uid, my.pw_gid)  # its socket and log go there
    sock = os.path.join(base, "sock")
    data = os.path.join(base, "data")
    server = None
    load = None
    try:
        r = subprocess.run(["mariadb-install-db", "--no-defaults", "--datadir=" + data,
                            "--user=mysql", "--auth-root-authentication-method=socket",
                            "--skip-test-db"], capture_output=True, text=True)
        check(r.returncode == 0, "mariadb-install-db: %s" % r.stderr[-500:])
        server = subprocess.Popen(
            [mysqld, "--no-defaults", "--datadir=" + data, "--socket=" + sock,
             "--skip-networking", "--user=mysql", "--performance-schema=ON",
             "--innodb-buffer-pool-size=32M", "--innodb-max-dirty-pages-pct-lwm=1",
             "--log-error=" + os.path.join(base, "err")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not os.path.exists(sock):
            if time.monotonic() > deadline or server.poll() is not None:
                err = os.path.join(base, "err")
                fail("mariadbd did not start: %s" % (
                    open(err).read()[-800:] if os.path.exists(err) else "no log"))
            time.sleep(0.2)
        r = subprocess.run(["mariadb", "-S", sock, "-e",
                            "create database t; create table t.x (id int auto_increment "
                            "primary key, pad char(255)) engine=innodb"],
                           capture_output=True, text=True)
        check(r.returncode == 0, "mariadb: create: %s" % r.stderr)
        sql = "insert into x (pad) select repeat('a',255) from seq_1_to_5000;\n" * 2000
        load = subprocess.Popen(["mariadb", "-S", sock, "t"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            load.stdin.write(sql.encode())
            load.stdin.close()
        except BrokenPipeError:
            pass

        def cleaner(doc):
            for t in (doc.get("processes") or {}).get("db_threads", []):
                if t.get("db") == "mariadb" and t.get("role") == "page cleaner":
                    return t
            return None
        doc, t = wait_for(d, "mariadb: the page cleaner by role", cleaner)
        print("ok: mariadb: pid %d's page cleaner (tid %d) %.0f kB/s written, by role" % (
            t["pid"], t["tid"], t["kB_wr/s"]))
    finally:
        if load:
            load.kill()
            load.wait()
        if server:
            subprocess.run(["mariadb-admin", "-S", sock, "shutdown"], capture_output=True,
                           timeout=60)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        shutil.rmtree(base, ignore_errors=True)


def screen(tmp):
    """p, then /checkp, at 80x24: the checkpointer's row by its role"""
    if not shutil.which("tmux"):
        print("note: tmux not installed: the live view not tried")
        return
    ts = os.path.join(tmp, "tmux.sock")
    t = ["tmux", "-S", ts]
    subprocess.run(t + ["new-session", "-d", "-s", "v", "-x", "80", "-y", "24",
                        "env TERM=xterm-256color %s --embedded; sleep 60" % IOTRIAGE],
                   check=True)
    try:
        time.sleep(2)
        subprocess.run(t + ["send-keys", "-t", "v", "p"], check=True)
        time.sleep(0.5)
        subprocess.run(t + ["send-keys", "-t", "v", "/", "c", "h", "e", "c", "k", "p",
                            "Enter"], check=True)
        deadline = time.monotonic() + WAIT
        s = ""
        while time.monotonic() < deadline:
            s = subprocess.run(t + ["capture-pane", "-p", "-t", "v"], capture_output=True,
                               text=True).stdout
            if "pg checkpointer" in s:
                break
            time.sleep(0.5)
        check("pg checkpointer" in s, "p, /checkp at 80x24: no 'pg checkpointer'; screen:\n"
              + s)
        print("ok: the processes view at 80x24 finds 'pg checkpointer' with /checkp")
    finally:
        subprocess.run(t + ["kill-server"], capture_output=True)


def main():
    if os.geteuid() != 0:
        skip("needs root (cgroups, the database servers)")
    top = v2_top()
    if not top:
        skip("no cgroup v2 tree")
    tmp = tempfile.mkdtemp(prefix="iot-roles-")
    cgs = Cgroups(top)
    daemons = []
    pg = None
    try:
        d = Daemon(tmp, interval=500)
        daemons.append(d)
        pg = postgres(d, tmp, cgs, top)
        if IOTRIAGE:
            screen(tmp)
        mariadb(d)
    finally:
        if pg:
            stop_postgres(*pg)
        cleanup(daemons)
        cgs.remove()
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
