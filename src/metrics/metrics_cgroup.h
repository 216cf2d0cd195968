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

#define CGROUP_TOP_N	 64 /* active cgroups listed, busiest first */
#define CGROUP_VICTIMS_N 16 /* (cgroup, resource) stalls listed, longest first */

/* What a cgroup's tasks wait on: the three pressure files of cgroup v2 */
enum cg_res { CG_RES_IO, CG_RES_CPU, CG_RES_MEM, CG_RES__COUNT };

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
	/* each resource's stall share of the interval (the pressure files'
	 * total= delta); [CG_RES_IO] repeats some_pct/full_pct */
	bool res_valid[CG_RES__COUNT];
	double res_some[CG_RES__COUNT], res_full[CG_RES__COUNT];
};

/* A victim: a cgroup whose tasks waited on res over the interval, by the
 * delta of total= (not avg10, which smooths over 10 s), ranked flat across
 * the whole tree; a cgroup is left out when one of its descendants waited
 * at least half as long (system.slice explained by postgresql.service). */
struct cgroup_victim {
	size_t row; /* in cgroup_metrics_set.rows */
	enum cg_res res;
	double some_pct, full_pct;
};

struct cgroup_victim_scratch {
	size_t parent; /* row of the nearest ancestor read, SIZE_MAX none */
	double desc;   /* the longest stall of a descendant */
};

struct cgroup_metrics_set {
	struct cgroup_metrics *rows; /* one per current cgroup */
	size_t n, cap;
	struct cgroup_dev_metrics *devs;
	size_t ndevs, devs_cap;
	size_t top[CGROUP_TOP_N]; /* indices in rows with IO or stall, busiest first */
	size_t ntop;
	unsigned active; /* rows with IO or stall (ntop is at most CGROUP_TOP_N of them) */
	struct cgroup_victim victims[CGROUP_VICTIMS_N]; /* longest some stall first */
	size_t nvictims;
	struct cgroup_victim_scratch *scratch; /* per row: victims' ranking */
	size_t scratch_cap;
};

const char *cgroup_res_name(enum cg_res r); /* "io", "cpu", "memory" */

/*
 * A cgroup path (below the top, no leading '/') as an operator names it: a
 * service or scope directly in system.slice by its unit ("postgresql@15-
 * main.service"), "/" for the top, anything else whole with its leading '/'
 * (a user's delegated "user.slice/user-1000.slice/user@1000.service/
 * system.slice/x.service" is not the system's x.service).
 */
void cgroup_unit_name(const char *path, char *out, size_t size);

/*
 * Rates of ct against pt over itv_cs (> 0), rows paired by path and device
 * lines by major:minor; a counter that went back (a cgroup removed and
 * made again) gives no rate for that line. 0, -EINVAL or -ENOMEM.
 */
int metrics_cgroup_compute(const struct cgroup_table *pt, const struct cgroup_table *ct,
			   uint64_t itv_cs, struct cgroup_metrics_set *x);
void metrics_cgroup_free(struct cgroup_metrics_set *x);

#endif
