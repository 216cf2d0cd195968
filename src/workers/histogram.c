// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Latency summaries and the log-linear histogram (see histogram.h for the
 * bucket layout and its error bound). Pure: no I/O, no clock.
 */
#include <math.h>
#include <string.h>

#include "histogram.h"

const double histogram_default_pcts[HISTOGRAM_NPCT] = {
	1.0,  5.0,  10.0, 20.0, 30.0, 40.0, 50.0,  60.0,  70.0,
	80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
};

void histogram_summary_init(struct histogram_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->min_ns = UINT64_MAX;
}

void histogram_summary_add(struct histogram_summary *s, uint64_t v_ns)
{
	double v = (double)v_ns, d;

	s->n++;
	if (v_ns < s->min_ns)
		s->min_ns = v_ns;
	if (v_ns > s->max_ns)
		s->max_ns = v_ns;
	/* Welford: stable where sum of squares in double would cancel. */
	d = v - s->mean_ns;
	s->mean_ns += d / (double)s->n;
	s->m2 += d * (v - s->mean_ns);
}

void histogram_summary_merge(struct histogram_summary *dst, const struct histogram_summary *src)
{
	double n, d;

	if (!src->n)
		return;
	if (!dst->n) {
		*dst = *src;
		return;
	}
	n = (double)dst->n + (double)src->n;
	d = src->mean_ns - dst->mean_ns;
	dst->m2 += src->m2 + d * d * (double)dst->n * (double)src->n / n;
	dst->mean_ns += d * (double)src->n / n;
	dst->n += src->n;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

double histogram_summary_stddev(const struct histogram_summary *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (double)s->n);
}

void histogram_init(struct histogram *h)
{
	memset(h->bucket, 0, sizeof(h->bucket));
	histogram_summary_init(&h->sum);
}

void histogram_merge(struct histogram *dst, const struct histogram *src)
{
	histogram_summary_merge(&dst->sum, &src->sum);
	for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

void histogram_bucket_range(size_t i, uint64_t *ret_lo, uint64_t *ret_hi)
{
	unsigned shift;
	uint64_t lo;

	if (i < HISTOGRAM_SUB) {
		*ret_lo = *ret_hi = i;
		return;
	}
	shift = (unsigned)(i / HISTOGRAM_SUB) - 1;
	lo = (uint64_t)(HISTOGRAM_SUB + i % HISTOGRAM_SUB) << shift;
	*ret_lo = lo;
	*ret_hi = lo + ((UINT64_C(1) << shift) - 1);
}

uint64_t histogram_percentile(const struct histogram *h, double pct)
{
	uint64_t n = h->sum.n, seen = 0, lo, hi, v;
	double want;

	if (!n)
		return 0;
	if (pct > 100.0)
		pct = 100.0;
	/* fio: the first bucket where the running count reaches pct% of n. */
	want = pct / 100.0 * (double)n;
	for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->bucket[i];
		if (!h->bucket[i] || (double)seen < want)
			continue;
		histogram_bucket_range(i, &lo, &hi);
		v = lo + (hi - lo) / 2 + ((hi - lo) & 1);
		if (v < h->sum.min_ns)
			v = h->sum.min_ns;
		if (v > h->sum.max_ns)
			v = h->sum.max_ns;
		return v;
	}
	return h->sum.max_ns;
}
