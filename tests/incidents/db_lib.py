# SPDX-License-Identifier: GPL-2.0-or-later
"""Databases from Debian's packages for the incidents (test_db.py): each
started by hand (no systemd here) inside a cgroup named like its unit, so
that what iotriage says of "the unit" is what a DBA on a systemd host reads.

- Cgroup: a cgroup v2 directory (the unified tree of a hybrid host, else
  the top), its pressure files read by the test itself, and its removal:
  every process in it killed, then the directory removed.
- Postgres: a cluster of the test's own (initdb, cluster_name 15/main), in
  system.slice/postgresql@15-main.service, data on the disk under
  /var/tmp, reached over its Unix socket; pgbench and psql as postgres.
- MariaDB: a datadir of the test's own (mariadb-install-db), in
  system.slice/mariadb.service, on a private socket, root by unix_socket
  as on Debian.
Each class's stop() is safe to call twice and after a failed start.
"""
import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time


def cgroup2_top():
    """The cgroup v2 tree: /sys/fs/cgroup/unified on a hybrid host."""
    for top in ("/sys/fs/cgroup/unified", "/sys/fs/cgroup"):
        if os.path.exists(os.path.join(top, "cgroup.controllers")):
            return top
    return None


def psi_totals(path):
    """{res: (some_total_us, full_total_us)} of a cgroup v2 directory."""
    out = {}
    for res in ("io", "cpu", "memory"):
        try:
            with open(os.path.join(path, res + ".pressure")) as f:
                vals = {}
                for line in f:
                    kind, *kv = line.split()
                    vals[kind] = int(dict(x.split("=") for x in kv)["total"])
                out[res] = (vals.get("some", 0), vals.get("full", 0))
        except OSError:
            pass
    return out


class Cgroup:
    def __init__(self, rel):
        top = cgroup2_top()
        if top is None:
            raise OSError("no cgroup v2 tree")
        self.rel = rel
        self.path = os.path.join(top, rel)
        self.made = []
        p = top
        for part in rel.split("/"):
            p = os.path.join(p, part)
            if not os.path.isdir(p):
                os.mkdir(p)
                self.made.append(p)

    def enter_cmd(self, argv):
        """argv run from inside the cgroup (the shell moves itself first)."""
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.path] + argv

    def pids(self):
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def pressure(self):
        return psi_totals(self.path)

    def remove(self):
        deadline = time.monotonic() + 10
        while self.pids() and time.monotonic() < deadline:
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.1)
        for p in reversed(self.made):
            try:
                os.rmdir(p)
            except OSError:
                pass
        self.made = []


def _as(user, argv, **kw):
    return subprocess.run(["runuser", "-u", user, "--"] + argv, **kw)


class Postgres:
    UNIT = "system.slice/postgresql@15-main.service"

    def __init__(self, port):
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        try:
            self.pw = pwd.getpwnam("postgres")
        except KeyError:
            bins = []
        if not bins or not shutil.which("runuser"):
            raise OSError("PostgreSQL (or runuser) not installed")
        self.bin = os.path.dirname(bins[-1])
        self.port = str(port)
        self.base = tempfile.mkdtemp(prefix="iot-db-pg-", dir="/var/tmp")
        os.chown(self.base, self.pw.pw_uid, self.pw.pw_gid)
        self.data = os.path.join(self.base, "data")
        self.conn = ["-h", self.base, "-p", self.port, "-U", "postgres", "postgres"]
        self.cg = None
        self.started = False
        self.load = []

    def start(self, extra=""):
        r = _as("postgres", [self.bin + "/initdb", "-D", self.data, "-A", "trust", "-U",
                             "postgres", "--no-sync"], capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError("initdb: " + r.stderr[-500:])
        self.cg = Cgroup(self.UNIT)
        opts = ("-k %s -p %s -c listen_addresses='' -c cluster_name=15/main "
                "-c shared_buffers=64MB %s" % (self.base, self.port, extra))
        r = subprocess.run(self.cg.enter_cmd(
            ["runuser", "-u", "postgres", "--", self.bin + "/pg_ctl", "-D", self.data, "-o",
             opts, "-l", os.path.join(self.base, "log"), "-w", "start"]),
            capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError("pg_ctl start: " + r.stderr[-500:])
        self.started = True

    def sql(self, q):
        return _as("postgres", [self.bin + "/psql", "-qXAtc", q] + self.conn,
                   capture_output=True, text=True)

    def pgbench_init(self, scale):
        r = _as("postgres", [self.bin + "/pgbench", "-i", "-s", str(scale), "-q"] + self.conn,
                capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError("pgbench -i: " + r.stderr[-500:])

    def pgbench(self, *args, log=None):
        """pgbench in the background (its clients are the cluster's backends,
        in the unit's cgroup; pgbench itself runs outside it)."""
        p = subprocess.Popen(["runuser", "-u", "postgres", "--", self.bin + "/pgbench"] +
                             list(args) + self.conn,
                             stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.load.append(p)
        return p

    def loop(self, sql, pause):
        """sql again and again (CHECKPOINT every 2 s), in the background."""
        p = subprocess.Popen(
            ["runuser", "-u", "postgres", "--", "sh", "-c",
             "while :; do %s/psql -qXc '%s' %s >/dev/null 2>&1; sleep %s; done"
             % (self.bin, sql, " ".join(self.conn), pause)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.load.append(p)
        return p

    def stop_load(self):
        for p in self.load:
            p.terminate()
        for p in self.load:
            p.wait()
        self.load = []

    def stop(self):
        self.stop_load()
        if self.started:
            _as("postgres", [self.bin + "/pg_ctl", "-D", self.data, "-m", "immediate", "stop"],
                capture_output=True)
            self.started = False
        if self.cg:
            self.cg.remove()
            self.cg = None
        shutil.rmtree(self.base, ignore_errors=True)


class MariaDB:
    UNIT = "system.slice/mariadb.service"

    def __init__(self):
        self.mariadbd = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
        if not os.path.exists(self.mariadbd) or not shutil.which("mariadb-install-db"):
            raise OSError("MariaDB server not installed")
        try:
            self.pw = pwd.getpwnam("mysql")
        except KeyError:
            raise OSError("no mysql user")
        self.base = tempfile.mkdtemp(prefix="iot-db-maria-", dir="/var/tmp")
        os.chown(self.base, self.pw.pw_uid, self.pw.pw_gid)
        self.data = os.path.join(self.base, "data")
        self.sock = os.path.join(self.base, "sock")
        self.cg = None
        self.proc = None
        self.load = []

    def start(self):
        r = subprocess.run(["mariadb-install-db", "--no-defaults", "--datadir=" + self.data,
                            "--user=mysql", "--auth-root-authentication-method=socket",
                            "--skip-test-db"], capture_output=True, text=True)
        if r.returncode != 0:
            raise OSError("mariadb-install-db: " + (r.stderr or r.stdout)[-500:])
        self.cg = Cgroup(self.UNIT)
        self.proc = subprocess.Popen(self.cg.enter_cmd(
            [self.mariadbd, "--no-defaults", "--datadir=" + self.data, "--socket=" + self.sock,
             "--skip-networking", "--user=mysql", "--innodb-buffer-pool-size=64M",
             "--innodb-log-file-size=32M", "--innodb-flush-log-at-trx-commit=1",
             "--performance-schema=ON", "--log-error=" + os.path.join(self.base, "err")]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.sql("SELECT 1").returncode == 0:
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.3)
        try:
            err = open(os.path.join(self.base, "err")).read()[-800:]
        except OSError:
            err = ""
        raise OSError("mariadbd did not start: " + err)

    def sql(self, q):
        return subprocess.run(["mariadb", "--no-defaults", "-S", self.sock, "-u", "root", "-N",
                               "-B", "-e", q], capture_output=True, text=True)

    def write_load(self, clients, seconds):
        """Autocommit inserts from clients sessions (each commit flushes the
        redo log: innodb_flush_log_at_trx_commit=1)."""
        self.sql("CREATE DATABASE IF NOT EXISTS iot; CREATE TABLE IF NOT EXISTS iot.t "
                 "(id BIGINT AUTO_INCREMENT PRIMARY KEY, v CHAR(200)) ENGINE=InnoDB")
        for _ in range(clients):
            p = subprocess.Popen(
                ["sh", "-c", "end=$(($(date +%%s) + %d)); while [ $(date +%%s) -lt $end ]; do "
                 "for i in 1 2 3 4 5 6 7 8 9 10; do echo \"INSERT INTO iot.t (v) VALUES "
                 "(REPEAT('x', 200));\"; done; done | mariadb --no-defaults -S %s -u root"
                 % (seconds, self.sock)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.load.append(p)

    def stop_load(self):
        for p in self.load:
            p.terminate()
        for p in self.load:
            p.wait()
        self.load = []

    def stop(self):
        self.stop_load()
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.cg:
            self.cg.remove()
            self.cg = None
        shutil.rmtree(self.base, ignore_errors=True)
