/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing stage's state, shared by its two files over libbpf and no
 * one else: trace.c (the programs by probe: load, attach, budget) and
 * trace_maps.c (the maps read once a sample, by table). Opaque outside
 * (trace.h's struct trace).
 */
#ifndef IOTRIAGE_TRACE_STATE_H
#define IOTRIAGE_TRACE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "trace_budget.h"
#include "trace_cgroup.h"

/* the programs of trace.bpf.c (trace.c's table) and the maps read once a
 * sample (trace_maps.c's table): each file checks its count */
#define TRACE_PROGS 8
#define TRACE_MAPS  7

struct trace {
	struct trace_bpf *skel;
	struct bpf_program *prog[TRACE_PROGS]; /* trace.c's table's programs */
	struct bpf_link *links[TRACE_PROGS];
	/* trace_maps.c's table's maps and, for a slot table, its map of the
	 * slots taken (found by name at load) */
	struct bpf_map *map[TRACE_MAPS], *used[TRACE_MAPS];
	int stats_fd;	   /* BPF_ENABLE_STATS: run_time_ns counted while held; -1 none */
	bool stats_sysctl; /* ... or kernel.bpf_stats_enabled was 1 at start */
	char stats_reason[IOT_REASON_MAX];
	double budget_pct;
	int ncpu;
	uint32_t host_netns; /* /proc/self/ns/net's inode, 0 unknown */
	struct trace_probe_status probe[TRACE__COUNT];
	struct trace_backoff backoff[TRACE__COUNT]; /* off over budget, for a while */
	/* the previous read: the budget is over the time between two reads */
	int64_t last_ns;
	uint64_t last_run_ns[TRACE__COUNT];
	bool have_last;
	/* batch buffers */
	void *keys, *vals;
	size_t keys_size, vals_size;
	/* the block probe's per-CPU tables' slots (set at load) */
	uint32_t lat_slots, cg_slots;
	/* cgroup ids as paths (trace_cgroup.c) */
	struct trace_cgpaths cgp;
	/* the (cgroup, disk) slots' per-CPU copies of a read (read_cg) */
	struct trace_cg_row *cg_rows;
	size_t ncg_rows, cg_rows_cap;
};

/* Detaches probe k's programs for good and says why (trace.c). */
void trace_probe_off(struct trace *t, enum trace_probe k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Finds the table's maps in the loaded object; -ENOENT with why naming
 * one that is missing (trace_maps.c). */
int trace_maps_find(struct trace *t, char *why, size_t why_size);

/* Empties r's rows for a read (its storage kept) (trace_maps.c). */
int trace_maps_start(struct trace *t, struct trace_raw *r);

/* Reads every map of the table whose probes are on into r: a probe's own
 * maps that cannot be read switch it off, the others say they were not
 * read. Returns 0 or -ENOMEM (trace_maps.c). */
int trace_maps_read(struct trace *t, struct trace_raw *r);

/* Frees what the map readers keep between reads (trace_maps.c). */
void trace_maps_free(struct trace *t);

#endif
