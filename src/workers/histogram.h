/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Latency summaries (count, min, max, mean, stdev) and a log-linear
 * histogram for percentiles. Pure arithmetic: no I/O, no clock, no locks;
 * each worker thread owns its own and they are merged after the run.
 */
#ifndef IOTRIAGE_WORKERS_HISTOGRAM_H
#define IOTRIAGE_WORKERS_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Values below 2^HISTOGRAM_SUB_BITS ns get a bucket each (exact). Above,
 * every power of two [2^k, 2^(k+1)) is cut into 2^HISTOGRAM_SUB_BITS equal
 * buckets, so a bucket is at most 1/128 of its lower bound wide. A
 * percentile is reported as its bucket's midpoint (clamped to the observed
 * min and max), hence within HISTOGRAM_REL_ERROR = 1/256 (0.39%) of the
 * true sample at that rank. 7424 buckets cover the whole uint64 range.
 */
#define HISTOGRAM_SUB_BITS  7
#define HISTOGRAM_SUB	    (1u << HISTOGRAM_SUB_BITS)
#define HISTOGRAM_BUCKETS   (HISTOGRAM_SUB * (64 - HISTOGRAM_SUB_BITS + 1))
#define HISTOGRAM_REL_ERROR (1.0 / (2.0 * HISTOGRAM_SUB))

/* Running count/min/max/mean/variance (Welford; merged with Chan et al.). */
struct histogram_summary {
	uint64_t n;
	uint64_t min_ns;
	uint64_t max_ns;
	double mean_ns;
	double m2; /* sum of squared deviations from the mean */
};

struct histogram {
	struct histogram_summary sum;
	uint64_t bucket[HISTOGRAM_BUCKETS];
};

/* fio's default clat percentile list (percentile_list). */
#define HISTOGRAM_NPCT 17
extern const double histogram_default_pcts[HISTOGRAM_NPCT];

static inline size_t histogram_index(uint64_t v)
{
	unsigned k, shift;

	if (v < HISTOGRAM_SUB)
		return (size_t)v;
	k = 63u - (unsigned)__builtin_clzll(v); /* >= SUB_BITS */
	shift = k - HISTOGRAM_SUB_BITS;
	return (size_t)(shift + 1) * HISTOGRAM_SUB + (size_t)((v >> shift) - HISTOGRAM_SUB);
}

void histogram_summary_init(struct histogram_summary *s);
void histogram_summary_add(struct histogram_summary *s, uint64_t v_ns);
void histogram_summary_merge(struct histogram_summary *dst, const struct histogram_summary *src);
/* Population standard deviation (fio's), 0 with fewer than two samples. */
double histogram_summary_stddev(const struct histogram_summary *s);

void histogram_init(struct histogram *h);
static inline void histogram_add(struct histogram *h, uint64_t v_ns)
{
	histogram_summary_add(&h->sum, v_ns);
	h->bucket[histogram_index(v_ns)]++;
}
void histogram_merge(struct histogram *dst, const struct histogram *src);

/* Inclusive value range [lo, hi] of bucket i (i < HISTOGRAM_BUCKETS). */
void histogram_bucket_range(size_t i, uint64_t *ret_lo, uint64_t *ret_hi);

/*
 * The pct-th percentile (0 < pct <= 100) in ns: the value at rank
 * ceil(pct/100 * n) as fio ranks it, within HISTOGRAM_REL_ERROR. Returns 0
 * for an empty histogram.
 */
uint64_t histogram_percentile(const struct histogram *h, double pct);

#endif
