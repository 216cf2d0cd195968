// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage's budget decision (trace_budget.h): pure, built with or
 * without BPF so the unit tests link it on any build.
 */
#include "trace_budget.h"

uint32_t trace_budget_sample(double pct, double budget_pct, uint32_t sample, bool can_sample)
{
	uint32_t n;

	if (!(budget_pct > 0) || !(pct >= 0))
		return sample;
	if (sample < 1 || sample > TRACE_SAMPLE_MAX)
		sample = 1;
	if (pct > budget_pct) {
		if (!can_sample)
			return 0;
		/* the cost's part that shrinks with sampling is unknown: assume
		 * all of it, and go on halving while the floor keeps it over */
		n = sample * 2;
		while (n <= TRACE_SAMPLE_MAX && (double)n < (double)sample * pct / budget_pct)
			n *= 2;
		return n <= TRACE_SAMPLE_MAX ? n : 0;
	}
	if (pct < budget_pct / 4 && sample > 1)
		return sample / 2;
	return sample;
}

int64_t trace_backoff_over(struct trace_backoff *b, int64_t now, double pct)
{
	int64_t period = TRACE_BACKOFF_FIRST_NS;

	/* on long enough under budget since the last time: start over */
	if (b->times && now - b->on_ns >= TRACE_BACKOFF_CALM_NS)
		b->streak = 0;
	for (uint32_t i = 0; i < b->streak && period < TRACE_BACKOFF_MAX_NS; i++)
		period *= 2;
	if (period > TRACE_BACKOFF_MAX_NS)
		period = TRACE_BACKOFF_MAX_NS;
	if (b->streak < UINT32_MAX)
		b->streak++;
	if (b->times < UINT32_MAX)
		b->times++;
	b->off = true;
	b->off_ns = now;
	b->until_ns = now + period;
	b->over_pct = pct;
	return period;
}

bool trace_backoff_due(struct trace_backoff *b, int64_t now)
{
	if (!b->off || now < b->until_ns)
		return false;
	b->off = false;
	b->on_ns = now;
	return true;
}

int64_t trace_backoff_off_for(const struct trace_backoff *b, int64_t now)
{
	return b->off && now > b->off_ns ? now - b->off_ns : 0;
}

int64_t trace_backoff_left(const struct trace_backoff *b, int64_t now)
{
	return b->off && b->until_ns > now ? b->until_ns - now : 0;
}
