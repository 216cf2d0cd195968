/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The block probe's cgroup ids (kernfs node ids: the inode numbers of the
 * cgroups' directories) as paths in the hierarchy the io controller is on
 * (trace_cgroup.c, doc/trace.md "IO latency per cgroup").
 */
#ifndef IOTRIAGE_TRACE_CGROUP_H
#define IOTRIAGE_TRACE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_raw.h"

#define TRACE_CG_PATHS_MAX 65536 /* directories walked; the rest are skipped */

struct trace_cg_path {
	uint64_t id;
	char path[TRACE_CG_PATH_MAX]; /* as /proc/PID/cgroup shows it: "/" the top */
};

struct trace_cgpaths {
	char top[TRACE_CG_TOP_MAX]; /* the hierarchy's mount point; "" not found yet */
	bool v1;		    /* the cgroup v1 blkio hierarchy */
	bool walked;
	int64_t walked_ns;
	struct trace_cg_path *rows; /* by ascending id */
	size_t n, cap;
	unsigned skipped; /* past TRACE_CG_PATHS_MAX or TRACE_CG_PATH_MAX */
};

/*
 * The hierarchy the io controller is on, from a mountinfo file: the mount
 * point of the cgroup v1 hierarchy with blkio in its options (1), else of
 * the first cgroup2 mount (2), into top. -ENOENT none, -errno.
 */
int trace_cg_hierarchy(const char *mountinfo, char *top, size_t top_size);

/* Walks the hierarchy again (found on the first call) unless it was walked
 * less than 5 s before now_ns. 0 or -errno. */
int trace_cgpaths_walk(struct trace_cgpaths *c, int64_t now_ns);

/* id known to have no directory (its cgroup gone): found as "" until
 * the next walk, so a removed cgroup's row does not walk again every 5 s.
 * 0, -ENOMEM, -E2BIG. */
int trace_cgpaths_forget(struct trace_cgpaths *c, uint64_t id);

/* The path of id ("" a forgotten one), or NULL. */
const char *trace_cgpaths_find(const struct trace_cgpaths *c, uint64_t id);

void trace_cgpaths_free(struct trace_cgpaths *c);

#endif
