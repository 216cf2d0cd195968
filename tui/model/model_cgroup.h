/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sample document's "cgroups" section (doc/json.md): cgroup v2 io.stat
 * rates and io.pressure per cgroup, for the cgroups view. Absent means not
 * available, with the reason sources.cgroup_io gives, never zeros. Decodes
 * only: no I/O, no rates.
 */
#ifndef IOTRIAGE_TUI_MODEL_CGROUP_H
#define IOTRIAGE_TUI_MODEL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

#define MODEL_CG_REASON_MAX 320
#define MODEL_CG_PATH_MAX   260

struct model_cg_rates {
	double rkb_s, wkb_s, r_s, w_s, dkb_s, d_s; /* rkB/s wkB/s r/s w/s dkB/s d/s */
};

struct model_cg_dev {
	char dev[24];  /* "8:0" */
	char disk[32]; /* "sda", "" when the sample names none */
	struct model_cg_rates v;
};

struct model_cg {
	char path[MODEL_CG_PATH_MAX]; /* "/system.slice/postgresql.service" */
	bool has_io;		      /* io.stat rates (else pressure only) */
	struct model_cg_rates v;
	bool has_some, has_full;
	double some_pct, full_pct; /* io.pressure stall share of the interval */
	size_t dev_off, ndev;	   /* in model_cgroups.devs */
};

struct model_cgroups {
	bool present;			  /* the document had "cgroups" */
	char reason[MODEL_CG_REASON_MAX]; /* absent: cgroup_io's reason; present: its note */
	char hierarchy[64];		  /* "/sys/fs/cgroup" */
	uint64_t version;		  /* 2; 1: v1 blkio, each cgroup's own IO */
	bool io_controller;
	uint64_t count, active;
	bool has_rows;	    /* "top" was there: not the first sample */
	struct model_cg *v; /* busiest first, as sent */
	size_t n, cap;
	struct model_cg_dev *devs;
	size_t ndevs, devs_cap;
};

/* Help lines of the cgroups view: { label, meaning }, NULL-terminated. */
extern const char *const model_cgroup_help[][2];

/*
 * Decodes doc's "cgroups" into *ret (overwritten, not freed). Returns 0,
 * -EBADMSG (malformed: *ret then holds no rows and reason says where) or
 * -ENOMEM.
 */
int model_cgroups_decode(struct json_object *doc, struct model_cgroups *ret);
void model_cgroups_free(struct model_cgroups *x);

#endif
