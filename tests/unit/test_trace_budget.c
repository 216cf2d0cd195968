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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_budget),
		cmocka_unit_test(test_under_budget_keeps),
		cmocka_unit_test(test_over_budget_samples),
		cmocka_unit_test(test_back_up_without_flapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
