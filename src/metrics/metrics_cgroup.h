/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rates of cgroup v2 io.stat and io.pressure, pure over (prev, cur,
 * interval): per cgroup and per device, with the busiest cgroups first.
 * Names follow iostat's (rkB/s wkB/s r/s w/s dkB/s d/s).
 */
#ifndef IOTRIAGE_METRICS_CGROUP_H
#define IOTRIAGE_METRICS_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

#define CGROUP_TOP_N 64 /* active cgroups listed, busiest first */

struct cgroup_dev_metrics {
	uint32_t major, minor;
	bool has_discard;
	double rkb_s, wkb_s, r_s, w_s, dkb_s, d_s;
};

struct cgroup_metrics {
	size_t cur_index; /* row in the current cgroup_table */
	bool valid;	  /* io.stat in both samples: the rates below are real */
	double rkb_s, wkb_s, r_s, w_s, dkb_s, d_s; /* summed over its devices */
	bool some_valid, full_valid;
	double some_pct, full_pct; /* io.pressure: share of the interval stalled */
	size_t dev_off, ndev;	   /* in cgroup_metrics_set.devs */
};

struct cgroup_metrics_set {
	struct cgroup_metrics *rows; /* one per current cgroup */
	size_t n, cap;
	struct cgroup_dev_metrics *devs;
	size_t ndevs, devs_cap;
	size_t top[CGROUP_TOP_N]; /* indices in rows with IO or stall, busiest first */
	size_t ntop;
	unsigned active; /* rows with IO or stall (ntop is at most CGROUP_TOP_N of them) */
};

/*
 * Rates of ct against pt over itv_cs (> 0), rows paired by path and device
 * lines by major:minor; a counter that went back (a cgroup removed and
 * made again) gives no rate for that line. 0, -EINVAL or -ENOMEM.
 */
int metrics_cgroup_compute(const struct cgroup_table *pt, const struct cgroup_table *ct,
			   uint64_t itv_cs, struct cgroup_metrics_set *x);
void metrics_cgroup_free(struct cgroup_metrics_set *x);

#endif
