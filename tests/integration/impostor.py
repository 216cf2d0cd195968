#!/usr/bin/env python3
# A program that is not iotriaged listening on a Unix socket, for the
# clients' limits (doc/protocol.md, "Clients"): MODE is
#   endless  after the first request, one line that never ends
#   silent   reads requests, never answers
#   drip     after the first request, one byte every 0.5 s, never a newline
#   daemon   answers each request as iotriaged would, minimally (hello,
#            snapshot with a tiny sample, anything else ok); every byte
#            received is appended to LOG
# Usage: impostor.py MODE SOCKET [LOG]. Serves until killed.
import json, os, socket, sys, threading, time

mode, path = sys.argv[1], sys.argv[2]
log = sys.argv[3] if len(sys.argv) > 3 else None


def reply(req):
    try:
        cmd = json.loads(req).get("cmd")
    except ValueError:
        cmd = None
    if cmd == "hello":
        return {"ok": True, "version": 1, "server": "iotriaged 0.1.0", "interval_ms": 100,
                "history_s": 600}
    # raw control bytes inside strings (not JSON, but json-c takes them):
    # what the client prints must come out escaped
    if cmd == "snapshot":
        return b'{"ok":true,"sample":{"version":1,"mode":"daemon","host":"\x1b[2J\xc2\x9bimp"}}'
    if cmd == "worker.status":
        return (b'{"ok":true,"worker":{"id":1,"state":"failed","filename":"/x\x1b]0;pwn\x07",'
                b'"rw":"read\x1b[2J","ioengine":"psync","error":"\x1b[31mboom\x9b"}}')
    if cmd == "undo":
        return b'{"ok":false,"error":{"code":"internal","message":"no\\nfake line \x1b[2J"}}'
    return {"ok": True}


def serve(conn):
    try:
        if mode == "silent":
            while conn.recv(65536):
                pass
            return
        if mode == "daemon":
            buf = b""
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                if log:
                    with open(log, "ab") as f:
                        f.write(chunk)
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    r = reply(line)
                    conn.sendall((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n")
        conn.recv(65536)
        if mode == "endless":
            block = b'{"ok":true,"sample":"' + b"x" * (1 << 20)
            conn.sendall(block)
            block = b"x" * (1 << 20)
            while True:
                conn.sendall(block)
        elif mode == "drip":
            conn.sendall(b'{"ok":true,')
            while True:
                time.sleep(0.5)
                conn.sendall(b" ")
    except OSError:
        pass
    finally:
        conn.close()


srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
os.chmod(path, 0o777)
srv.listen(64)
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
