// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ranking: a finding's default harm by kind, and the order of findings
 * (severity, then harm: findings[0] is the headline).
 */
#include "advise_int.h"

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->harm != y->harm)
		return x->harm > y->harm ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank; /* as found */
}

void advise_rank(struct advice *a)
{
	for (size_t i = 0; i < a->nfindings; i++)
		a->findings[i].rank = (unsigned)i; /* keeps the order of equals */
	if (a->nfindings > 1) /* none: findings may be NULL, which qsort may not take */
		qsort(a->findings, a->nfindings, sizeof(*a->findings), cmp_finding);
	for (size_t i = 0; i < a->nfindings; i++)
		a->findings[i].rank = (unsigned)i + 1;
}

/* What a finding kind weighs when nothing measured sets it: the side
 * findings (managed IRQs, irqbalance, topology, frozen counters) come after
 * what hurts. */
double kind_harm(enum finding_kind k)
{
	switch (k) {
	case FIND_MEMBER_IMBALANCE:
		return 110;
	case FIND_WRITEBACK_THROTTLED:
		return 80;
	case FIND_MANAGED_IRQS:
		return 30;
	case FIND_IRQBALANCE:
		return 20;
	case FIND_IOSTATS_OFF:
		return 15;
	case FIND_TOPOLOGY_MISSING:
		return 10;
	case FIND_TRACE_OFF:
		return 5;
	default:
		return 0;
	}
}
