#!/usr/bin/env python3
"""Run every libFuzzer harness of a build for a short smoke run.

Usage: fuzz_smoke.py BUILD_DIR SECONDS. Harnesses are the executables named
fuzz_* under BUILD_DIR/tests/fuzz; each runs over its seed corpus in
tests/fuzz/corpus/<name>/ (copied to a scratch dir, so the tree stays clean).
Prints a JSON list of {"name", "result", "stdout"} for summarize.py.
Two harnesses run at a time (the test machine has two cores; each harness
is one process busy for SECONDS): the smoke takes half the wall clock.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main(build, seconds):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fdir = os.path.join(build, "tests", "fuzz")
    results = []
    names = sorted(n for n in os.listdir(fdir) if n.startswith("fuzz_")
                   and os.path.isfile(os.path.join(fdir, n))
                   and os.access(os.path.join(fdir, n), os.X_OK)) if os.path.isdir(fdir) else []

    def one(name):
        seeds = os.path.join(root, "tests", "fuzz", "corpus", name[len("fuzz_"):])
        with tempfile.TemporaryDirectory() as tmp:
            corpus = os.path.join(tmp, "corpus")
            if os.path.isdir(seeds):
                shutil.copytree(seeds, corpus)
            else:
                os.mkdir(corpus)
            cmd = [os.path.join(fdir, name), f"-max_total_time={seconds}",
                   "-rss_limit_mb=1024", f"-artifact_prefix={tmp}/", corpus]
            p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
            return name, p.returncode == 0, "\n".join(p.stderr.splitlines()[-15:])

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for name, ok, tail in pool.map(one, names):
            print(f"fuzz {name}: {'ok' if ok else 'FAILED'}", file=sys.stderr)
            if not ok:
                print(tail, file=sys.stderr)
            results.append({"name": f"fuzz {name}", "result": "OK" if ok else "FAIL",
                            "stdout": tail})
    if not names:
        results.append({"name": "fuzz harnesses", "result": "FAIL",
                        "stdout": "no fuzz_* harness was built"})
    json.dump(results, sys.stdout)
    return 0 if all(r["result"] == "OK" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
