#!/usr/bin/env python3
"""Runs fio and iotriage bench alternately; see bench_workers.sh."""
import json, os, resource, statistics, subprocess, sys

iotriage, dev, rounds, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
common = ["--name=w", "--filename=" + dev, "--rw=randread", "--bs=4k", "--iodepth=32",
          "--numjobs=1", "--direct=1", "--time_based", "--runtime=%d" % secs,
          "--output-format=json"]


def run(tool, engine):
    cmd = (["fio"] if tool == "fio" else [iotriage, "bench"]) + common + ["--ioengine=" + engine]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    j = json.loads(out)["jobs"][0]["read"]
    return {"iops": j["iops"], "cpu_us_per_io": cpu * 1e6 / j["total_ios"],
            "p99_us": j["clat_ns"]["percentile"]["99.000000"] / 1000.0,
            "lat_us": j["lat_ns"]["mean"] / 1000.0}


for engine in ("io_uring", "libaio"):
    res = {"fio": [], "iotriage": []}
    for _ in range(rounds):
        for tool in ("fio", "iotriage"):
            res[tool].append(run(tool, engine))
    print("%s, 4k randread QD32, %d rounds x %d s, medians:" % (engine, rounds, secs))
    med = {}
    for tool in ("fio", "iotriage"):
        med[tool] = {k: statistics.median(r[k] for r in res[tool]) for k in res[tool][0]}
        m = med[tool]
        print("  %-9s IOPS %9.0f  CPU/IO %6.2f us  p99 clat %8.1f us  mean lat %7.1f us" %
              (tool, m["iops"], m["cpu_us_per_io"], m["p99_us"], m["lat_us"]))
    f, i = med["fio"], med["iotriage"]
    print("  ratio     IOPS %.2fx  CPU/IO %.2fx  p99 clat %.2fx  mean lat %.2fx" %
          (i["iops"] / f["iops"], i["cpu_us_per_io"] / f["cpu_us_per_io"],
           i["p99_us"] / f["p99_us"], i["lat_us"] / f["lat_us"]))
