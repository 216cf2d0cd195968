// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace_budget.c: what the budget does with a probe's measured cost. The
 * block probe over budget times fewer requests (a power of two that would
 * bring it under if its cost were all per timed request) rather than going
 * off; off only past TRACE_SAMPLE_MAX; back up (halving) under a quarter.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "trace_budget.h"

static void test_no_budget(void **state)
{
	(void)state;
	assert_int_equal(trace_budget_sample(50, 0, 1, true), 1);
	assert_int_equal(trace_budget_sample(50, -1, 8, true), 8);
	assert_int_equal(trace_budget_sample(NAN, 2, 8, true), 8);
}

static void test_under_budget_keeps(void **state)
{
	(void)state;
	assert_int_equal(trace_budget_sample(1.9, 2, 1, true), 1);
	assert_int_equal(trace_budget_sample(0.1, 2, 1, true), 1); /* never below 1 */
	assert_int_equal(trace_budget_sample(1.0, 2, 8, true), 8); /* between 1/4 and 1 */
	assert_int_equal(trace_budget_sample(1.9, 2, 1, false), 1);
}

static void test_over_budget_samples(void **state)
{
	(void)state;
	/* 4.7 % at every request, budget 2: 1 in 4 (2.35x needs the next power of two) */
	assert_int_equal(trace_budget_sample(4.7, 2, 1, true), 4);
	/* just over: at least twice fewer */
	assert_int_equal(trace_budget_sample(2.1, 2, 1, true), 2);
	assert_int_equal(trace_budget_sample(2.1, 2, 16, true), 32);
	/* a floor that does not shrink: on halving to the last rate, then off */
	assert_int_equal(trace_budget_sample(3, 2, TRACE_SAMPLE_MAX / 2, true), TRACE_SAMPLE_MAX);
	assert_int_equal(trace_budget_sample(2.1, 2, TRACE_SAMPLE_MAX, true), 0);
	/* a tiny budget: off at once, not after ten samples */
	assert_int_equal(trace_budget_sample(0.5, 0.000001, 1, true), 0);
	/* a probe that cannot sample goes off */
	assert_int_equal(trace_budget_sample(2.1, 2, 1, false), 0);
}

static void test_back_up_without_flapping(void **state)
{
	uint32_t n = 64;
	/* % of a CPU at 1 in n: floor_pct + per_timed * 64 / n */
	double per_timed = 0.1, floor_pct = 0.05;

	(void)state;
	assert_int_equal(trace_budget_sample(0.4, 2, 64, true), 32);
	/* the load fell: it climbs back to every request and stays there, never over */
	for (int i = 0; i < 20; i++) {
		double pct = floor_pct + per_timed * 64.0 / n / 8; /* load an eighth of before */
		uint32_t next = trace_budget_sample(pct, 2, n, true);

		assert_true(next >= 1 && next <= n);
		n = next;
	}
	assert_int_equal(n, 1);
	/* a garbage rate from user space is taken as every request */
	assert_int_equal(trace_budget_sample(0.1, 2, 3000, true), 1);
}

#define S 1000000000LL

/* Over budget again and again: off 5, 10, 20, 40, 60, 60 s, and on again
 * at each period's end, never before. */
static void test_backoff_grows_capped(void **state)
{
	struct trace_backoff b = { 0 };
	int64_t now = 100 * S, want[] = { 5, 10, 20, 40, 60, 60 };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int64_t period = trace_backoff_over(&b, now, 12.3);

		assert_int_equal(period, want[i] * S);
		assert_int_equal(b.times, i + 1);
		assert_int_equal(trace_backoff_left(&b, now), period);
		assert_false(trace_backoff_due(&b, now + period - 1));
		assert_int_equal(trace_backoff_off_for(&b, now + S), S);
		assert_true(trace_backoff_due(&b, now + period));
		assert_int_equal(trace_backoff_left(&b, now + period), 0);
		assert_int_equal(trace_backoff_off_for(&b, now + period), 0);
		assert_false(trace_backoff_due(&b, now + period + S)); /* on: nothing due */
		now += period + S; /* one second on, then over again */
	}
	assert_true(b.over_pct == 12.3);
}

/* On under budget for TRACE_BACKOFF_CALM_NS: the next time starts from 5 s;
 * a little less, and it goes on doubling. */
static void test_backoff_calms(void **state)
{
	struct trace_backoff b = { 0 };
	int64_t now = 0;

	(void)state;
	trace_backoff_over(&b, now, 3);
	now += 5 * S;
	assert_true(trace_backoff_due(&b, now));
	assert_int_equal(trace_backoff_over(&b, now + TRACE_BACKOFF_CALM_NS - 1, 3), 10 * S);
	now += TRACE_BACKOFF_CALM_NS - 1 + 10 * S;
	assert_true(trace_backoff_due(&b, now));
	assert_int_equal(trace_backoff_over(&b, now + TRACE_BACKOFF_CALM_NS, 3), 5 * S);
	assert_int_equal(b.times, 3);
}

/* Never on before it was switched off, never off for good. */
static void test_backoff_idle(void **state)
{
	struct trace_backoff b = { 0 };

	(void)state;
	assert_false(trace_backoff_due(&b, 1000 * S));
	assert_int_equal(trace_backoff_left(&b, 1000 * S), 0);
	for (int i = 0; i < 100; i++)
		assert_true(trace_backoff_over(&b, 0, 50) <= TRACE_BACKOFF_MAX_NS);
	assert_true(trace_backoff_due(&b, TRACE_BACKOFF_MAX_NS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_budget),
		cmocka_unit_test(test_under_budget_keeps),
		cmocka_unit_test(test_over_budget_samples),
		cmocka_unit_test(test_back_up_without_flapping),
		cmocka_unit_test(test_backoff_grows_capped),
		cmocka_unit_test(test_backoff_calms),
		cmocka_unit_test(test_backoff_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
