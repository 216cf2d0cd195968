#!/bin/sh
# The /metrics HTTP port under hostile clients (issue 24 R1, doc/prometheus.md
# "Bounds", doc/security.md): a real iotriaged on a private socket and a
# loopback port. 16 slowloris connections from 127.0.0.2 and 127.0.0.3 (one
# header byte every 0.5 s, never idle for long) must not keep a scrape from
# 127.0.0.1 out, and are closed by the whole-request deadline; a 12 KiB
# header is answered at once (not 128 bytes a sample); 15 KiB and more gets
# 431; a GET with a body 400; two requests on one connection both answered
# (keep-alive); the socket clients and the sampling go on meanwhile.
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$tmp" <<'PY' || fail "metrics http"
import socket, sys, threading, time
from daemon_lib import *

tmp = sys.argv[1]
PORT = free_port()
DEADLINE_S = 5  # the whole-request deadline doc/prometheus.md states


def conn(src="127.0.0.1", timeout=TIMEOUT):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", PORT))
    return s


def read_reply(s):
    """One HTTP/1.1 reply: (status, headers dict, body); None at EOF."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            return None
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for l in lines[1:]:
        k, v = l.split(":", 1)
        hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", "0"))
    while len(rest) < n:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, hdrs, rest[:n]


def request(extra=b"", body=b"", src="127.0.0.1", path=b"/metrics", method=b"GET"):
    s = conn(src)
    try:
        s.sendall(method + b" " + path + b" HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n" + body)
        return read_reply(s)
    finally:
        s.close()


def scrape(src="127.0.0.1"):
    """Seconds a scrape took; fails unless it is a 200 with the exposition."""
    t0 = time.monotonic()
    r = request(src=src)
    check(r is not None and r[0] == 200 and b"iotriage_sample_number" in r[2],
          "scrape from %s: %r" % (src, r and r[:2]))
    return time.monotonic() - t0


def loris(src, stop, opened, closed):
    """Opens a connection from src and sends one header byte every 0.5 s."""
    try:
        s = conn(src, timeout=1)
    except OSError:
        return
    opened.append(s)
    t0 = time.monotonic()
    data = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100000
    try:
        for b in data:
            if stop.is_set():
                return
            s.sendall(bytes([b]))
            end = time.monotonic() + 0.5
            while time.monotonic() < end and not stop.is_set():
                try:
                    s.settimeout(max(0.01, end - time.monotonic()))
                    if not s.recv(4096):
                        raise ConnectionResetError
                except socket.timeout:
                    pass
    except OSError:
        closed.append(time.monotonic() - t0)


def kept_loris(result):
    """One scrape, then the next request on the same connection trickled:
    its headers too have the deadline, from its request line."""
    try:
        s = conn("127.0.0.4")
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        r = read_reply(s)
        if r is None or r[0] != 200:
            result.append("first request: %r" % ((r and r[:2]),))
            return
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        t0 = time.monotonic()
        s.settimeout(0.5)
        while time.monotonic() - t0 < DEADLINE_S + 10:
            try:
                s.sendall(b"X")
                if not s.recv(4096):
                    break
            except socket.timeout:
                pass
            except OSError:
                break
        result.append(time.monotonic() - t0)
        s.close()
    except OSError as e:
        result.append("kept-alive trickle: %s" % e)


# the interval is long on purpose: before, libmicrohttpd only ran on a sample
d = Daemon(tmp, interval=1000, extra=("--metrics-listen", "127.0.0.1:%d" % PORT))
try:
    samples0 = d.status()["samples"]
    first = scrape()
    print("scrape: %.3f s" % first)

    # a 12 KiB header: answered at once, not read 128 bytes a sample
    t0 = time.monotonic()
    r = request(extra=b"X-Big: " + b"b" * (12 * 1024) + b"\r\n")
    dt = time.monotonic() - t0
    check(r is not None and r[0] == 200, "12 KiB header: %r" % ((r and r[:2]),))
    check(dt < 3, "12 KiB header took %.1f s" % dt)
    print("12 KiB header: 200 in %.3f s" % dt)

    # 15 KiB and more: 431, quickly
    for kib in (15, 16, 24, 64):
        s = conn()
        t0 = time.monotonic()
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * (kib * 1024)
                      + b"\r\n\r\n")
        except (ConnectionResetError, BrokenPipeError):
            pass  # the reply came and the daemon closed before we finished
        try:
            r = read_reply(s)
        except ConnectionResetError:
            fail("%d KiB header: connection reset, no reply" % kib)
        finally:
            s.close()
        dt = time.monotonic() - t0
        check(r is not None and r[0] == 431, "%d KiB header: %r" % (kib, r and r[:2]))
        check(dt < 3, "%d KiB header: 431 after %.1f s" % (kib, dt))
        print("%d KiB header: 431 in %.3f s" % (kib, dt))

    # a GET with a body: 400 as documented
    r = request(extra=b"Content-Length: 5\r\n", body=b"hello")
    check(r is not None and r[0] == 400, "GET with a body: %r" % ((r and r[:2]),))
    r = request(extra=b"Transfer-Encoding: chunked\r\n", body=b"5\r\nhello\r\n0\r\n\r\n")
    check(r is not None and r[0] == 400, "GET with a chunked body: %r" % ((r and r[:2]),))
    print("GET with a body: 400")
    r = request(method=b"POST", extra=b"Content-Length: 5\r\n", body=b"hello")
    check(r is not None and r[0] == 405, "POST: %r" % ((r and r[:2]),))
    r = request(path=b"/nope")
    check(r is not None and r[0] == 404, "another path: %r" % ((r and r[:2]),))

    # keep-alive: two scrapes (and a HEAD) on one connection
    s = conn()
    for i in range(2):
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;"
                  b"version=1.0.0\r\n\r\n")
        r = read_reply(s)
        check(r is not None and r[0] == 200 and r[2].endswith(b"# EOF\n"),
              "keep-alive request %d: %r" % (i + 1, r and r[:2]))
        check(r[1].get("connection", "").lower() != "close",
              "keep-alive request %d closed: %r" % (i + 1, r[1]))
    s.close()
    print("keep-alive: two scrapes on one connection")

    # one body per sample and format, however many scrapes ask for it
    h0, n0 = d.status()["http"], d.status()["samples"]
    s = conn()
    for i in range(40):
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        r = read_reply(s)
        check(r is not None and r[0] == 200, "scrape %d of 40 on one connection: %r"
              % (i, (r and r[:2]),))
    s.close()
    h1, n1 = d.status()["http"], d.status()["samples"]
    check(h1["scrapes"] - h0["scrapes"] == 40, "scrapes counted: %r -> %r" % (h0, h1))
    check(h1["renders"] - h0["renders"] <= n1 - n0 + 1,
          "%d renders for 40 scrapes over %d samples" % (h1["renders"] - h0["renders"], n1 - n0))
    print("40 scrapes: %d renders over %d samples" % (h1["renders"] - h0["renders"], n1 - n0))

    # slowloris: 8 from each of 127.0.0.2 and 127.0.0.3, never idle 0.5 s
    stop = threading.Event()
    opened, closed = [], []
    ts = []
    for i in range(16):
        t = threading.Thread(target=loris, args=("127.0.0.%d" % (2 + i % 2), stop, opened,
                                                  closed), daemon=True)
        t.start()
        ts.append(t)
    deadline = time.monotonic() + TIMEOUT
    while len(opened) < 16 and time.monotonic() < deadline:
        time.sleep(0.05)
    check(len(opened) == 16, "only %d slow connections opened" % len(opened))
    kept = []
    kt = threading.Thread(target=kept_loris, args=(kept,), daemon=True)
    kt.start()
    time.sleep(1)
    try:
        for i in range(3):
            dt = scrape()
            check(dt < DEADLINE_S, "scrape %d beside 16 slow connections took %.1f s" % (i, dt))
            print("scrape %d beside the slow connections: %.3f s" % (i, dt))
        # the socket clients and the sampling go on beside them
        t0 = time.monotonic()
        st = d.status()
        check(time.monotonic() - t0 < 2, "status took %.1f s" % (time.monotonic() - t0))
        n0, t0 = st["samples"], time.monotonic()
        while d.status()["samples"] < n0 + 2:
            check(time.monotonic() - t0 < 5, "no 2 samples in 5 s at a 1 s interval")
            time.sleep(0.1)
        # every slow connection is closed by the whole-request deadline
        deadline = time.monotonic() + DEADLINE_S + 10
        while len(closed) < 16 and time.monotonic() < deadline:
            time.sleep(0.1)
        check(len(closed) == 16, "%d of 16 slow connections still open after %d s"
              % (16 - len(closed), DEADLINE_S + 10))
        print("slow connections closed after %.1f-%.1f s" % (min(closed), max(closed)))
        check(max(closed) < DEADLINE_S + 3, "a slow connection held %.1f s" % max(closed))
        kt.join(DEADLINE_S + 15)
        check(kept and not isinstance(kept[0], str), "kept-alive trickle: %r" % kept)
        check(kept[0] < DEADLINE_S + 3, "a kept-alive connection's trickled request held %.1f s"
              % kept[0])
        print("a kept-alive connection's trickled request closed after %.1f s" % kept[0])
        h = d.status()["http"]
        check(h["shed"] >= 1 and h["shed"] + h["late"] >= 16, "status http %r" % h)
    finally:
        stop.set()
        for t in ts:
            t.join(5)
        for s in opened:
            s.close()
    # sampling went on at its interval through all of it
    st = d.status()
    print("samples %d, overruns %s, tick_us %r, http %r" % (
          st["samples"] - samples0, st["overruns"], st["tick_us"], st["http"]))
    scrape()
    check(d.stop() == 0, "iotriaged did not exit cleanly")
finally:
    cleanup([d])
print("ok")
PY
echo "ok: metrics http"
