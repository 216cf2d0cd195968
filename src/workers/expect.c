// SPDX-License-Identifier: GPL-2.0-or-later
/* Cloud-disk tier formulas (seed 001, section 1) and the sweep's knee. Pure. */
#include <errno.h>
#include <math.h>

#include "expect.h"

#define KNEE_GAIN 1.10 /* deeper queues must buy at least 10% more IOPS */

const char *expect_cloud_name(enum cloud_tier tier)
{
	switch (tier) {
	case CLOUD_COMMON:
		return "common";
	case CLOUD_HIGH:
		return "high";
	case CLOUD_GPSSD:
		return "gpssd";
	case CLOUD_NONE:
		break;
	}
	return "none";
}

int expect_cloud_limits(enum cloud_tier tier, double size_gb, struct expect_limits *ret)
{
	struct expect_limits l;

	if (!(size_gb > 0) || !isfinite(size_gb))
		return -EINVAL;
	switch (tier) {
	case CLOUD_COMMON:
		l.iops = fmin(2000.0, 300.0 + 2.0 * size_gb);
		l.mbps = fmin(150.0, 100.0 + 0.1 * size_gb);
		l.qd1_latency_ms_lo = 5.0;
		l.qd1_latency_ms_hi = 10.0;
		break;
	case CLOUD_HIGH:
		l.iops = fmin(5000.0, 1800.0 + 8.0 * size_gb);
		l.mbps = fmin(200.0, 130.0 + 0.1 * size_gb);
		l.qd1_latency_ms_lo = 1.0;
		l.qd1_latency_ms_hi = 3.0;
		break;
	case CLOUD_GPSSD:
		l.iops = fmin(20000.0, 1500.0 + 8.0 * size_gb);
		l.mbps = fmin(250.0, 100.0 + 0.5 * size_gb);
		l.qd1_latency_ms_lo = 1.0;
		l.qd1_latency_ms_hi = 1.0;
		break;
	default:
		return -EINVAL;
	}
	*ret = l;
	return 0;
}

int expect_knee(const struct expect_point *p, unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i++) {
		bool knee = true;

		for (unsigned j = i + 1; j < n && knee; j++)
			if (p[j].iops >= KNEE_GAIN * p[i].iops || !(p[j].lat_ms > p[i].lat_ms))
				knee = false;
		if (knee)
			return (int)i;
	}
	return -1;
}
