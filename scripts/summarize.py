#!/usr/bin/env python3
"""Count results of meson testlog.json files (and fuzz-results.json).

Prints the skipped tests with their reason, the failed ones (a build that
failed, named by --failed-builds "NAME ...", counts as one), and ends with
the line "N passed, N failed". Exit status 1 if anything failed or no test ran.
"""
import json
import sys


def records(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        if path.endswith("testlog.json"):
            for line in f:
                line = line.strip()
                if line:
                    yield json.loads(line)
        else:
            yield from json.load(f)


def reason(rec):
    out = (rec.get("stdout") or "") + "\n" + (rec.get("stderr") or "")
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    for l in reversed(lines):
        if "skip" in l.lower():
            return l
    return lines[-1] if lines else "no reason printed"


def main(args):
    passed = failed = skipped = 0
    paths = list(args)
    if paths[:1] == ["--failed-builds"]:
        # a build that failed ran no test: it is a failure of its own
        for b in paths[1].split():
            print(f"FAIL build {b}: it did not build (see the log above)")
            failed += 1
        paths = paths[2:]
    for path in paths:
        label = path.split("/")[0]
        try:
            recs = list(records(path))
        except (OSError, ValueError) as e:
            print(f"FAIL {path}: {e}")
            failed += 1
            continue
        for rec in recs:
            result = rec.get("result")
            name = f"{label}: {rec.get('name')}"
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
                print(f"SKIP {name}: {reason(rec)}")
            else:
                failed += 1
                print(f"FAIL {name} ({result})")
    print(f"{skipped} skipped")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
