/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iotriage bench's live status line, in fio's habit: on a terminal only,
 * one line redrawn every second (job, % done, current bandwidth and IOPS,
 * eta), erased before anything else is printed and when the run ends, so
 * the result replaces it. Never drawn when stdout is not a terminal or the
 * output is JSON (bench_progress_start says whether it draws).
 */
#ifndef IOTRIAGE_TUI_BENCH_PROGRESS_H
#define IOTRIAGE_TUI_BENCH_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

/* What one status line shows: a pure function of these (tested as text). */
struct bench_progress_view {
	const char *job;   /* the job's name */
	const char *phase; /* NULL, "precondition", or "iodepth=4 3/6" in a sweep */
	char mode;	   /* fio's: R r W w M m (seq/rand read, write, mixed) */
	unsigned njobs;
	double pct;		/* of the whole command, 0..100 */
	double bw[DDIR__COUNT]; /* bytes/s over the last second */
	double iops[DDIR__COUNT];
	bool reads, writes;
	int64_t eta_s; /* -1: unknown */
};

/* The line, without "\r" or erase; cut to size - 1. Returns its length. */
size_t bench_progress_format(char *buf, size_t size, const struct bench_progress_view *v);

struct bench_progress;

/*
 * Starts the status line thread when stdout is a terminal and spec's
 * output is normal text; *ret is NULL otherwise (every call below is then
 * a no-op). ctl: the run's counters, read once a second.
 */
int bench_progress_start(const struct job_spec *spec, struct job_control *ctl,
			 struct bench_progress **ret);
/*
 * A new phase begins: spec (its iodepth, name, limits) on target t; point
 * k of n of a sweep (n 0: not a sweep); precondition true for that pass.
 */
void bench_progress_phase(struct bench_progress *p, const struct job_spec *spec,
			  const struct job_target *t, bool precondition, unsigned k, unsigned n);
/* Erase the line and hold it off until bench_progress_release (to print). */
void bench_progress_hold(struct bench_progress *p);
void bench_progress_release(struct bench_progress *p);
/* Erase the line, end the thread and free p. */
void bench_progress_stop(struct bench_progress *p);

#endif
