/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a disk should deliver and where deeper queues stop paying: the
 * cloud-disk tier formulas of seed 001 and the knee of a queue-depth sweep.
 * Pure arithmetic.
 */
#ifndef IOTRIAGE_WORKERS_EXPECT_H
#define IOTRIAGE_WORKERS_EXPECT_H

#include "job.h"

struct expect_limits {
	double iops;
	double mbps;				     /* MB/s, 10^6 bytes */
	double qd1_latency_ms_lo, qd1_latency_ms_hi; /* the tier's single-queue latency */
};

/*
 * Provisioned IOPS and throughput of a tier for a disk of size_gb:
 * common min(2000, 300 + 2*GB) IOPS, min(150, 100 + 0.1*GB) MB/s;
 * high min(5000, 1800 + 8*GB), min(200, 130 + 0.1*GB);
 * gpssd min(20000, 1500 + 8*GB), min(250, 100 + 0.5*GB).
 * Returns 0 or -EINVAL for CLOUD_NONE or a non-positive size.
 */
int expect_cloud_limits(enum cloud_tier tier, double size_gb, struct expect_limits *ret);
const char *expect_cloud_name(enum cloud_tier tier);

struct expect_point {
	unsigned iodepth;
	double iops;   /* read + write */
	double lat_ms; /* mean total latency, both directions */
};

/*
 * The knee of a sweep ordered by increasing depth: the smallest depth d
 * that has a deeper point after it, where no deeper point reaches 10% more
 * IOPS than d while latency at every deeper point is above d's. Returns its
 * index, or -1 when IOPS is still growing (or latency not rising) at the
 * end of the sweep.
 */
int expect_knee(const struct expect_point *p, unsigned n);

#endif
