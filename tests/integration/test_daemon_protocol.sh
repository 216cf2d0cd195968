#!/bin/sh
# Issue 12, the protocol's odd values against the real iotriaged: ids beyond
# 64 bits, invalid UTF-8, NUL inside "cmd" ("status\u0000x" must not run
# status), an unknown command whose quoted name is cut inside a character,
# hello with version 2^32 + 1. Every reply line must be valid UTF-8 JSON
# (json.loads of the bytes decoded strictly), one object per request.
set -u
[ -n "${IOTRIAGED:-}" ] || { echo "SKIP: \$IOTRIAGED not set"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not installed"; exit 77; }
fx="$FIXTURES/live-vm/t0"
[ -d "$fx/proc" ] || { echo "SKIP: no $fx fixture"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH="$SRCDIR/tests/integration" python3 - "$fx" "$tmp" <<'PY' || exit 1
import json, sys, time
from daemon_lib import *

fx, tmp = sys.argv[1], sys.argv[2]
d = Daemon(tmp, root=fx, interval=100)
try:
    def strict(raw):
        """A reply line as the protocol promises it: UTF-8, one JSON object."""
        check(raw.endswith(b"\n") and raw.count(b"\n") == 1, "reply framing %r" % raw[:200])
        try:
            text = raw.decode("utf-8", errors="strict")
        except UnicodeDecodeError as e:
            fail("reply is not UTF-8 (%s): %r" % (e, raw[:300]))
        try:
            o = json.loads(text)
        except ValueError as e:
            fail("reply is not JSON (%s): %r" % (e, raw[:300]))
        check(isinstance(o, dict) and "ok" in o, "reply %r" % o)
        return o

    c = d.client()
    def ask(line):
        c.send_raw(line + b"\n")
        return strict(c.line())

    def refused(line, code):
        r = ask(line)
        check(r["ok"] is False and r["error"]["code"] == code,
              "%r: expected %s, got %r" % (line, code, r))
        check("id" not in r, "%r: an odd id was echoed: %r" % (line, r))
        return r

    # ids the daemon cannot echo faithfully are refused, not clamped or
    # echoed raw
    for big in (b"18446744073709551616", b"18446744073709551615", b"9223372036854775808",
                b"-9223372036854775808", b"1" + b"0" * 40):
        refused(b'{"cmd":"status","id":' + big + b'}', "bad_request")
    r = ask(b'{"cmd":"status","id":9223372036854775807}')
    check(r["ok"] and r["id"] == 9223372036854775807, "largest id: %r" % r)
    refused(b'{"cmd":"status","id":"\xff\xfeab"}', "bad_json")
    refused(b'{"cmd":"status","id":"\xed\xa0\x80"}', "bad_json")
    refused(b'{"cmd":"status","id":"a\\u0000b"}', "bad_request")
    r = ask(b'{"cmd":"status","id":"caf\xc3\xa9 \\u001b[31m"}')
    check(r["ok"] and r["id"] == "caf\u00e9 \x1b[31m", "UTF-8 id: %r" % r)

    # NUL inside cmd: not status
    r = refused(b'{"cmd":"status\\u0000x"}', "bad_request")
    check("uptime_s" not in r, "status ran: %r" % r)
    refused(b'{"cmd":"stat\xe9s"}', "bad_json")
    # a suggestion id with NUL is not the id before the NUL
    for cmd in (b"apply", b"undo"):
        r = refused(b'{"cmd":"' + cmd + b'","suggestion":"irq-spread-x\\u0000y"}',
                    "bad_request")
        check("without NUL" in r["error"]["message"], "%s: %r" % (cmd, r))
    # integers past 64 bits are not clamped into range
    refused(b'{"cmd":"history","since":18446744073709551616}', "bad_request")
    # history "at" comes with "step_ms" and alone (issue 31); without
    # --record it answers nothing of the memory and nothing recorded
    for bad in (b'{"cmd":"history","at":1000}', b'{"cmd":"history","step_ms":1000}',
                b'{"cmd":"history","at":1000,"step_ms":0}',
                b'{"cmd":"history","at":1000,"step_ms":86400001}',
                b'{"cmd":"history","at":-1,"step_ms":1000}',
                b'{"cmd":"history","at":1000,"step_ms":1000,"seconds":5}',
                b'{"cmd":"history","at":"1000","step_ms":1000}'):
        r = refused(bad, "bad_request")
        check('"at" with "step_ms"' in r["error"]["message"], "%r: %r" % (bad, r))
    r = ask(b'{"cmd":"history","at":1000,"step_ms":1000}')
    check(r["ok"] and r["samples"] == [] and r["count"] == 0 and r["first"] is None and
          "recorded" not in r, "history at without --record: %r" % r)
    refused(b'{"cmd":"subscribe","every":18446744073709551617}', "bad_request")

    # an unknown command quoted in the message, cut inside a character
    for pad in range(56, 64):
        name = b"x" * pad + "\u00e9\u20ac\U0001f600".encode() * 4
        r = ask(b'{"cmd":"' + name + b'","id":1}')
        check(r["error"]["code"] == "unknown_cmd" and r["id"] == 1, "unknown: %r" % r)
        check("\ufffd" not in r["error"]["message"], "cut made U+FFFD: %r" % r)

    # hello: any integer version is a version; only past 64 bits is malformed
    r = ask(b'{"cmd":"hello","version":4294967297,"id":"v"}')
    check(r["ok"] is False and r["error"]["code"] == "version" and r["id"] == "v"
          and "4294967297" in r["error"]["message"], "hello 2^32+1: %r" % r)
    check(c.at_eof(), "the daemon kept a client of another version")
    c.close()
    c = d.client()
    refused(b'{"cmd":"hello","version":18446744073709551617}', "bad_request")
    r = ask(b'{"cmd":"hello","version":1,"id":2}')
    check(r["ok"] and r["version"] == 1, "hello 1: %r" % r)

    # the replies carrying data are valid UTF-8 too
    strict_status = ask(b'{"cmd":"status","id":3}')
    check(strict_status["ok"], "status %r" % strict_status)
    # a suggestion id with a terminal escape: the daemon's log line quotes
    # it escaped (root's terminal under --foreground, the journal)
    # worker.start's options are text without NUL: "x\u0000y" would be
    # parsed as "x", another option than the one sent
    r = ask(b'{"cmd":"worker.start","id":5,"args":["--filename=/tmp/iotr-nul\\u0000/dev/sda",'
            b'"--rw=read","--size=1M"]}')
    check(not r["ok"] and r["error"]["code"] == "bad_request", "worker.start with NUL %r" % r)
    for _ in range(50):  # apply needs two samples
        r = ask(b'{"cmd":"apply","id":4,"suggestion":"x\\u001b[2J\\u009b31mevil"}')
        if r.get("error", {}).get("code") != "no_sample":
            break
        time.sleep(0.1)
    check(not r["ok"], "apply of an unknown id %r" % r)
    d.stop()
    log = open(d.logpath, "rb").read()
    check(b"evil" in log, "the apply was not logged: %r" % log[-300:])
    check(b"\x1b" not in log and b"\xc2\x9b" not in log,
          "the daemon's log carries a raw escape: %r" % log[-300:])
    c.close()
finally:
    d.stop()
print("ok")
PY
