/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rate of a counter's delta over an interval in 1/100 s, as the
 * workload's metrics (processes, cgroups) compute it. Pure.
 */
#ifndef IOTRIAGE_METRICS_RATE_H
#define IOTRIAGE_METRICS_RATE_H

#include <stdint.h>

/* d per second over itv_cs hundredths of a second (itv_cs > 0). */
static inline double metrics_per_s(uint64_t d, uint64_t itv_cs)
{
	return (double)d * 100.0 / (double)itv_cs;
}

#endif
