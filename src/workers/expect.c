// SPDX-License-Identifier: GPL-2.0-or-later
/* Cloud-disk tier formulas (seed 001, section 1) and the sweep's knee. Pure. */
#include <errno.h>
#include <math.h>
#include <stddef.h>

#include "expect.h"

#define KNEE_GAIN 1.10 /* deeper queues must buy at least 10% more IOPS */

/* Per tier: IOPS and MB/s grow with the size up to a cap; the QD1 latency band. */
static const struct cloud_formula {
	enum cloud_tier tier;
	const char *name;
	double iops_cap, iops_base, iops_per_gb;
	double mbps_cap, mbps_base, mbps_per_gb;
	double lat_lo_ms, lat_hi_ms;
} cloud_formulas[] = {
	{ CLOUD_COMMON, "common", 2000.0, 300.0, 2.0, 150.0, 100.0, 0.1, 5.0, 10.0 },
	{ CLOUD_HIGH, "high", 5000.0, 1800.0, 8.0, 200.0, 130.0, 0.1, 1.0, 3.0 },
	{ CLOUD_GPSSD, "gpssd", 20000.0, 1500.0, 8.0, 250.0, 100.0, 0.5, 1.0, 1.0 },
};

static const struct cloud_formula *cloud_formula(enum cloud_tier tier)
{
	for (size_t i = 0; i < sizeof(cloud_formulas) / sizeof(cloud_formulas[0]); i++)
		if (cloud_formulas[i].tier == tier)
			return &cloud_formulas[i];
	return NULL;
}

const char *expect_cloud_name(enum cloud_tier tier)
{
	const struct cloud_formula *f = cloud_formula(tier);

	return f ? f->name : "none";
}

int expect_cloud_limits(enum cloud_tier tier, double size_gb, struct expect_limits *ret)
{
	const struct cloud_formula *f = cloud_formula(tier);

	if (!(size_gb > 0) || !isfinite(size_gb) || !f)
		return -EINVAL;
	*ret = (struct expect_limits){
		.iops = fmin(f->iops_cap, f->iops_base + f->iops_per_gb * size_gb),
		.mbps = fmin(f->mbps_cap, f->mbps_base + f->mbps_per_gb * size_gb),
		.qd1_latency_ms_lo = f->lat_lo_ms,
		.qd1_latency_ms_hi = f->lat_hi_ms,
	};
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
