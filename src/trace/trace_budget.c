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
