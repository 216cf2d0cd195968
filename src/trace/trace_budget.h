/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing stage's budget, as a pure decision: from a probe's measured
 * share of one CPU, keep it, sample fewer of its events, or switch it off.
 * No libbpf, no clock: trace.c measures and applies, the unit tests decide.
 */
#ifndef IOTRIAGE_TRACE_BUDGET_H
#define IOTRIAGE_TRACE_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

/* the block probe times at least 1 in this many requests (a power of two) */
#define TRACE_SAMPLE_MAX 1024

/*
 * A probe ran pct % of one CPU over the last interval while timing 1 in
 * sample of its events. Returns the sampling for the next interval (1:
 * every event), or 0: switch it off. Over budget, a probe that can sample
 * (can_sample: the block probe) times fewer events, by the next power of two
 * that would bring it under budget if its cost were all per timed event;
 * off when that is past TRACE_SAMPLE_MAX, or when it cannot sample. Under a
 * quarter of the budget it times twice as many again (at most doubling the
 * cost, so it stays under half the budget: no flapping). budget_pct <= 0 or
 * a pct that is not a number: no budget, sample unchanged.
 */
uint32_t trace_budget_sample(double pct, double budget_pct, uint32_t sample, bool can_sample);

/*
 * A probe the budget switched off backs off and comes back (doc/trace.md,
 * "The budget"): detached for TRACE_BACKOFF_FIRST_NS the first time, twice
 * as long each time it is over again within TRACE_BACKOFF_CALM_NS of its
 * re-attach, at most TRACE_BACKOFF_MAX_NS; on again for that long under
 * budget, the next time starts from the first period. Never off for good:
 * anyone who can make a probe's events (loopback UDP) could otherwise
 * switch the measured view off for the daemon's life.
 */
#define TRACE_BACKOFF_FIRST_NS (5 * 1000000000LL)
#define TRACE_BACKOFF_MAX_NS   (60 * 1000000000LL)
#define TRACE_BACKOFF_CALM_NS  (120 * 1000000000LL)

struct trace_backoff {
	uint32_t times;	  /* times over budget since loaded */
	uint32_t streak;  /* backoffs in a row (the period's doubling) */
	bool off;	  /* backing off */
	int64_t off_ns;	  /* when detached (monotonic ns) */
	int64_t until_ns; /* when to re-attach */
	int64_t on_ns;	  /* when last (re-)attached */
	double over_pct;  /* the cost that switched it off, % of one CPU */
};

/* Over budget at now (monotonic ns): marks it off and returns the period
 * (ns) it stays off. */
int64_t trace_backoff_over(struct trace_backoff *b, int64_t now, double pct);

/* Off and its period over at now: true, and marks it on since now; false
 * otherwise (on, or still backing off). */
bool trace_backoff_due(struct trace_backoff *b, int64_t now);

/* Nanoseconds it has been off at now (0 when on), and until it is due
 * (0 when on or due). */
int64_t trace_backoff_off_for(const struct trace_backoff *b, int64_t now);
int64_t trace_backoff_left(const struct trace_backoff *b, int64_t now);

#endif
