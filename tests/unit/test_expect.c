// SPDX-License-Identifier: GPL-2.0-or-later
/* expect.c: the cloud tier formulas of seed 001 and the knee on seed 000's tables. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "expect.h"

static void test_cloud(void **state)
{
	struct expect_limits l;

	(void)state;
	/* common: min(2000, 300 + 2*GB), min(150, 100 + 0.1*GB) */
	assert_int_equal(expect_cloud_limits(CLOUD_COMMON, 100, &l), 0);
	assert_true(l.iops == 500 && fabs(l.mbps - 110) < 1e-9);
	assert_int_equal(expect_cloud_limits(CLOUD_COMMON, 2000, &l), 0);
	assert_true(l.iops == 2000 && l.mbps == 150);
	/* high: min(5000, 1800 + 8*GB), min(200, 130 + 0.1*GB) */
	assert_int_equal(expect_cloud_limits(CLOUD_HIGH, 200, &l), 0);
	assert_true(l.iops == 3400 && fabs(l.mbps - 150) < 1e-9);
	assert_int_equal(expect_cloud_limits(CLOUD_HIGH, 1000, &l), 0);
	assert_true(l.iops == 5000 && l.mbps == 200);
	/* gpssd: min(20000, 1500 + 8*GB), min(250, 100 + 0.5*GB) */
	assert_int_equal(expect_cloud_limits(CLOUD_GPSSD, 100, &l), 0);
	assert_true(l.iops == 2300 && l.mbps == 150);
	assert_int_equal(expect_cloud_limits(CLOUD_GPSSD, 4000, &l), 0);
	assert_true(l.iops == 20000 && l.mbps == 250);
	assert_int_equal(expect_cloud_limits(CLOUD_NONE, 100, &l), -EINVAL);
	assert_int_equal(expect_cloud_limits(CLOUD_HIGH, 0, &l), -EINVAL);
	assert_int_equal(expect_cloud_limits(CLOUD_HIGH, NAN, &l), -EINVAL);
}

static void test_knee_seed000(void **state)
{
	/* seed 000, SSD P30: IOPS flat from 4 on while latency doubles: knee 4 */
	const struct expect_point ssd[] = {
		{ 1, 1683, 2.38 }, { 2, 3327, 2.40 },	{ 4, 5095, 3.14 },
		{ 8, 5101, 6.27 }, { 16, 5099, 12.55 },
	};
	/* seed 000, HDD with cache: 749 -> 833 is 11% past 4, so the knee is 8 */
	const struct expect_point hdd[] = {
		{ 1, 463, 8.61 },  { 2, 633, 12.63 },  { 4, 749, 21.20 },
		{ 8, 789, 40.27 }, { 16, 833, 76.80 },
	};
	/* still scaling at the end: no knee */
	const struct expect_point growing[] = {
		{ 1, 1000, 1.0 },
		{ 2, 2000, 1.0 },
		{ 4, 4000, 1.0 },
		{ 8, 7000, 1.1 },
	};
	/* flat IOPS but latency not rising (a rate cap): no knee either */
	const struct expect_point capped[] = {
		{ 1, 1000, 0.5 },
		{ 2, 1000, 0.5 },
		{ 4, 1000, 0.5 },
	};

	(void)state;
	assert_int_equal(expect_knee(ssd, 5), 2);
	assert_int_equal(expect_knee(hdd, 5), 3);
	assert_int_equal(expect_knee(growing, 4), -1);
	assert_int_equal(expect_knee(capped, 3), -1);
	assert_int_equal(expect_knee(ssd, 1), -1); /* one point has nothing after it */
	assert_int_equal(expect_knee(ssd, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cloud),
		cmocka_unit_test(test_knee_seed000),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
