// SPDX-License-Identifier: GPL-2.0-or-later
/* histogram.c: bucket layout, the stated error bound on known distributions, merging. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "histogram.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* splitmix64: a fixed, seedable sequence so the test never changes between runs */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit_rand(uint64_t *s)
{
	return ((double)(next_rand(s) >> 11) + 0.5) / 9007199254740992.0;
}

static void test_layout(void **state)
{
	uint64_t lo, hi, prev_hi = 0;

	(void)state;
	/* every value maps into the bucket whose range holds it, ranges tile [0, 2^64) */
	for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++) {
		histogram_bucket_range(i, &lo, &hi);
		if (i)
			assert_true(lo == prev_hi + 1);
		assert_int_equal(histogram_index(lo), i);
		assert_int_equal(histogram_index(hi), i);
		/* the stated width bound: a bucket is at most lo/128 wide */
		if (lo >= HISTOGRAM_SUB)
			assert_true((double)(hi - lo + 1) <= (double)lo / HISTOGRAM_SUB);
		prev_hi = hi;
	}
	assert_true(prev_hi == UINT64_MAX);
	assert_int_equal(histogram_index(0), 0);
	assert_int_equal(histogram_index(127), 127);
	assert_int_equal(histogram_index(UINT64_MAX), HISTOGRAM_BUCKETS - 1);
}

/* Compares every fio percentile with the exact sample at rank ceil(p/100 * n). */
static void check_distribution(uint64_t *v, size_t n)
{
	struct histogram *h = malloc(sizeof(*h));
	double sum = 0, sq = 0, mean;

	assert_non_null(h);
	histogram_init(h);
	for (size_t i = 0; i < n; i++) {
		histogram_add(h, v[i]);
		sum += (double)v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
	assert_true(h->sum.n == n);
	assert_true(h->sum.min_ns == v[0]);
	assert_true(h->sum.max_ns == v[n - 1]);
	assert_true(fabs(h->sum.mean_ns - mean) <= 1e-9 * mean + 1e-6);
	assert_true(fabs(histogram_summary_stddev(&h->sum) - sqrt(sq / (double)n)) <=
		    1e-6 * sqrt(sq / (double)n) + 1e-6);
	for (int i = 0; i < HISTOGRAM_NPCT; i++) {
		double p = histogram_default_pcts[i];
		size_t rank = (size_t)ceil(p / 100.0 * (double)n);
		uint64_t exact = v[rank ? rank - 1 : 0];
		uint64_t got = histogram_percentile(h, p);
		double err = fabs((double)got - (double)exact) / (double)exact;

		if (err > HISTOGRAM_REL_ERROR)
			fail_msg("p%.2f: histogram %llu, exact %llu, error %.5f > %.5f", p,
				 (unsigned long long)got, (unsigned long long)exact, err,
				 HISTOGRAM_REL_ERROR);
	}
	free(h);
}

static void test_exponential(void **state)
{
	/* exponential service times, mean 80 us: a queueing device's clat */
	size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v)), s = 1;

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = 1000 + (uint64_t)(-log(unit_rand(&s)) * 80000.0);
	check_distribution(v, n);
	free(v);
}

static void test_lognormal_wide(void **state)
{
	/* log-normal across six decades (1 us .. 1 s): the error bound holds at every scale */
	size_t n = 100000;
	uint64_t *v = malloc(n * sizeof(*v)), s = 7;

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		double z = sqrt(-2.0 * log(unit_rand(&s))) * cos(2 * M_PI * unit_rand(&s));

		v[i] = 1 + (uint64_t)exp(log(300000.0) + 2.0 * z);
	}
	check_distribution(v, n);
	free(v);
}

static void test_uniform_known(void **state)
{
	/* 1..10000 ns once each: p50 is 5000, p99 is 9900, p99.99 is 9999, all within 1/256 */
	struct histogram *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	histogram_init(h);
	for (uint64_t i = 1; i <= 10000; i++)
		histogram_add(h, i);
	assert_true(fabs((double)histogram_percentile(h, 50.0) - 5000.0) <= 5000.0 / 256);
	assert_true(fabs((double)histogram_percentile(h, 99.0) - 9900.0) <= 9900.0 / 256);
	assert_true(fabs((double)histogram_percentile(h, 99.99) - 9999.0) <= 9999.0 / 256);
	assert_true(histogram_percentile(h, 100.0) == 10000);
	assert_int_equal(histogram_percentile(h, 1.0), 100); /* exact below 128 */
	free(h);
}

static void test_merge_empty_single(void **state)
{
	struct histogram *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b)),
			 *all = malloc(sizeof(*all));
	uint64_t s = 3;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(all);
	histogram_init(a);
	histogram_init(b);
	histogram_init(all);
	assert_int_equal(histogram_percentile(a, 99.0), 0);
	assert_true(histogram_summary_stddev(&a->sum) == 0.0);
	histogram_add(a, 12345);
	assert_int_equal(histogram_percentile(a, 50.0), 12345); /* clamped to min/max */
	for (int i = 0; i < 50000; i++) {
		uint64_t x = 500 + next_rand(&s) % 1000000;

		histogram_add(i % 3 ? b : a, x);
		histogram_add(all, x);
	}
	histogram_add(all, 12345);
	histogram_merge(a, b);
	assert_true(a->sum.n == all->sum.n);
	assert_true(a->sum.min_ns == all->sum.min_ns && a->sum.max_ns == all->sum.max_ns);
	assert_true(fabs(a->sum.mean_ns - all->sum.mean_ns) < 1e-6 * all->sum.mean_ns);
	assert_true(fabs(histogram_summary_stddev(&a->sum) - histogram_summary_stddev(&all->sum)) <
		    1e-6 * histogram_summary_stddev(&all->sum));
	assert_memory_equal(a->bucket, all->bucket, sizeof(a->bucket));
	free(a);
	free(b);
	free(all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_exponential),
		cmocka_unit_test(test_lognormal_wide),
		cmocka_unit_test(test_uniform_known),
		cmocka_unit_test(test_merge_empty_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
