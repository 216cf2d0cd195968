#!/usr/bin/env python3
# The processes scan's CPU time (doc/PERFORMANCE.md, "Fresh processes"):
# daemons one after the other, each for SECONDS at 1 s samples with
# --cpu-budget 0 (every sample scans), the median of their own
# processes.scan.cpu_us and their whole CPU time; the third run is BUILD's
# daemon under the packaged unit's two capabilities (setpriv), where other
# users' bytes come from taskstats. Root. Usage:
#   tests/bench/bench_scan.py OLD_IOTRIAGED NEW_IOTRIAGED [SECONDS [ROUNDS]]
import json, os, socket, subprocess, sys, tempfile, time, statistics, signal
tmp = tempfile.mkdtemp()

def run(label, argv, secs):
    sock = os.path.join(tmp, "%s.sock" % label)
    if os.path.exists(sock): os.unlink(sock)
    p = subprocess.Popen(argv + ["--foreground", "--socket", sock, "--interval", "1000", "--cpu-budget", "0", "--history", "10"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while not os.path.exists(sock):
        time.sleep(0.1)
    s = socket.socket(socket.AF_UNIX); s.connect(sock); f = s.makefile("rwb")
    f.write(b'{"cmd":"subscribe"}\n'); f.flush(); f.readline()
    vals, tick = [], []
    end = time.monotonic() + secs
    while time.monotonic() < end:
        ev = json.loads(f.readline())
        smp = ev.get("sample") or ev.get("event", {}).get("sample")
        if not smp: continue
        sc = smp.get("processes", {}).get("scan", {})
        if sc.get("scanned"): vals.append(sc["cpu_us"])
    # whole daemon CPU over the window
    with open("/proc/%d/stat" % p.pid) as st:
        fl = st.read().rsplit(")", 1)[1].split()
    cpu = (int(fl[11]) + int(fl[12])) / 100.0
    p.send_signal(signal.SIGTERM); p.wait()
    vals = vals[2:]
    print("%-28s scans %2d  scan cpu_us median %6d  min %6d  max %6d  daemon cpu %.2f s over %.1f s" %
          (label, len(vals), statistics.median(vals), min(vals), max(vals), cpu, time.monotonic() - t0))
base, new = sys.argv[1], sys.argv[2]
secs = int(sys.argv[3]) if len(sys.argv) > 3 else 12
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
bound = ["setpriv", "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all,+sys_rawio,+net_admin"]
for rnd in range(rounds):
    run("old-root", [base], secs)
    run("new-root", [new], secs)
    run("new-unitcaps", bound + [new], secs)
