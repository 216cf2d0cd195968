/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bench run -> bytes: fio-compatible JSON (the keys of fio's
 * --output-format=json where fio has the metric, iotriage's extras under
 * "iotriage") and fio-like text. Formats into a strbuf; never prints.
 */
#ifndef IOTRIAGE_WORKERS_BENCH_REPORT_H
#define IOTRIAGE_WORKERS_BENCH_REPORT_H

#include <stdint.h>

#include "expect.h"
#include "iotriage/types.h"
#include "job.h"
#include "strbuf.h"

struct bench_report {
	const struct job_spec *spec;
	const struct job_target *target;
	const struct job_result *results; /* one per job, or one merged group */
	unsigned nresults;
	int64_t time_real_ns; /* when the run ended (CLOCK_REALTIME) */
	/* the target's /proc/diskstats row before and after, when it has one */
	const struct disk_raw *disk_before, *disk_after;
	uint64_t disk_elapsed_ns;
	/* the precondition pass, when there was one */
	const struct job_result *precondition;
};

struct bench_sweep {
	const struct job_spec *spec;
	const struct job_target *target;
	const struct job_result *points; /* merged result per depth, in spec->sweep order */
	unsigned npoints;
	int64_t time_real_ns;
	const struct job_result *precondition;
};

void bench_report_json(struct strbuf *sb, const struct bench_report *r);
void bench_report_text(struct strbuf *sb, const struct bench_report *r);
void bench_sweep_json(struct strbuf *sb, const struct bench_sweep *s);
void bench_sweep_text(struct strbuf *sb, const struct bench_sweep *s);

/* The sweep's points as the knee finder wants them; returns the knee index or -1. */
int bench_sweep_knee(const struct bench_sweep *s);

/* Mean total latency (lat) over both directions of r, in ms. */
double bench_result_lat_ms(const struct job_result *r, int ddir_or_minus1);

#endif
