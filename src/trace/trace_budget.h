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

#endif
