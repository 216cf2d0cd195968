/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing stage's metrics, pure over two reads of its maps (trace_raw.h):
 * µs per second of softirq time per vector and of hardirq time per IRQ line
 * on each CPU, and per disk and op the latency percentiles of the interval
 * from the log2 histograms' differences. No I/O, no clock.
 */
#ifndef IOTRIAGE_METRICS_TRACE_H
#define IOTRIAGE_METRICS_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "trace_raw.h"

/* One latency distribution over the interval, µs. The percentiles are
 * interpolated linearly inside their log2 bucket; max is the upper bound
 * of the highest bucket that holds an IO (doc/trace.md). */
struct trace_lat_metrics {
	uint64_t count;
	double mean_us;
	double p50_us, p90_us, p99_us, p999_us, max_us;
	uint64_t slots[TRACE_HIST_SLOTS]; /* the interval's histogram */
};

struct trace_disk_metrics {
	uint32_t major;
	uint32_t minor;
	char name[IOT_NAME_MAX]; /* from the sample's disk table; "" unknown */
	bool has[TRACE_OP__COUNT][TRACE_LAT__COUNT];
	struct trace_lat_metrics lat[TRACE_OP__COUNT][TRACE_LAT__COUNT];
	uint64_t completed; /* IOs completed in the interval (every op) */
	uint64_t remote;    /* ... on another CPU than the submitting one */
};

/* One (disk, hardware queue, op)'s device stage (issue -> complete) over
 * the interval: rows whose queue completed IO in it. */
struct trace_hctx_metrics {
	uint32_t major, minor, hctx;
	uint8_t op;		      /* TRACE_OP_* */
	struct trace_lat_metrics lat; /* lat.count: IOs of the interval */
	double count_s;		      /* IOs per second */
	uint64_t remote;	      /* ... of them completed on another CPU */
};

/* One (cgroup, disk)'s IOs over the interval (every op but flush), by
 * the cgroup that owns them: both stages. */
struct trace_cg_metrics {
	uint64_t cgid;
	char path[TRACE_CG_PATH_MAX]; /* "" unknown (the cgroup went away) */
	uint32_t major, minor;
	char name[IOT_NAME_MAX]; /* the disk, from the sample's table; "" unknown */
	bool has[TRACE_LAT__COUNT];
	struct trace_lat_metrics lat[TRACE_LAT__COUNT];
	double count_s; /* IOs completed per second (the device stage's count) */
};

/* One NAPI's NET_RX time over the interval (its polls inside NET_RX). */
struct trace_napi_metrics {
	uint32_t napi_id;
	int32_t irq, index; /* -1 none / unknown */
	char dev[16];	    /* "" the backlog; a name in its namespace */
	uint32_t ifindex;   /* in its namespace */
	uint32_t netns;	    /* its namespace's inode, 0 unknown */
	/* in another network namespace than the daemon's (a container's, any
	 * user's veth): never a host NIC's, whatever its name (doc/trace.md);
	 * false also when unknown (a recording made before namespaces) */
	bool foreign;
	double us_s; /* µs per second */
	double polls_s;
	double packets_s;
};

/* One (disk, hardware queue)'s BLOCK softirq time over the interval. */
struct trace_blkq_metrics {
	uint32_t major, minor, hctx;
	char name[IOT_NAME_MAX]; /* from the sample's disk table; "" unknown */
	double us_s;
	double completed_s; /* requests completed inside BLOCK, per second */
};

struct trace_metrics {
	double itv_s; /* between the two reads */
	/* rows and cells left out as impossible (trace_raw.h, "What a read
	 * can say"): cur's read's, and the interval's (more time or IOs than
	 * it had, a histogram's difference that cannot be) */
	uint64_t rows_dropped;
	uint32_t ncpu;
	/* the probes' CPU use over the interval, % of one CPU; < 0 unknown */
	double probe_cpu_pct[TRACE__COUNT];
	/* which probes' rows are in this interval (on in both reads) */
	bool on[TRACE__COUNT];
	/* a probe off at cur's read and why, for the advisor to say what it
	 * judged without it: over_budget (backing off, doc/trace.md "The
	 * budget") with the seconds it has been off; else off for good
	 * (cannot attach, map unreadable) */
	bool off[TRACE__COUNT];
	bool over_budget[TRACE__COUNT];
	double off_s[TRACE__COUNT];
	double budget_pct;
	double *soft_us_s; /* [cpu * TRACE_NR_SOFTIRQS + vector] */
	double *hard_us_s; /* [cpu]: every IRQ line */
	size_t nirq;
	uint32_t *irq;	   /* lines that ran in the interval, ascending */
	double *irq_us_s;  /* [i * ncpu + cpu] */
	double *irq_cnt_s; /* handler runs per second [i * ncpu + cpu] */
	size_t ndisk;
	struct trace_disk_metrics *disks;
	/* per hardware queue, when read in both reads (has_hctx), by
	 * ascending (major, minor, hctx, op); hctx_dropped: IOs of the
	 * interval the probe kept no queue row for */
	bool has_hctx;
	uint64_t hctx_dropped;
	size_t nhctx;
	struct trace_hctx_metrics *hctx;
	/* IOs of the interval that found no (disk, op) row: in no histogram
	 * of disks[] (has_lat_dropped: the block probe read at both reads) */
	bool has_lat_dropped;
	uint64_t lat_dropped;
	/* per (cgroup, disk), when read in both reads (has_cg), rows that
	 * completed IO in the interval, by ascending (cgid, major, minor);
	 * cg_dropped: IOs of the interval that found no (cgroup, disk) row */
	bool has_cg;
	uint64_t cg_dropped;
	char cg_top[TRACE_CG_TOP_MAX];
	size_t ncg;
	struct trace_cg_metrics *cg;
	/* per-queue softirq load, when read in both reads (has_*); rows that
	 * took time in the interval */
	bool has_napi, has_blkq;
	size_t nnapi;
	struct trace_napi_metrics *napi;
	size_t nblkq;
	struct trace_blkq_metrics *blkq;
};

/*
 * The metrics of (prev, cur), disks named from the sample's table (may be
 * NULL). Returns 0, -EINVAL when the reads do not pair (invalid, CPU count
 * changed, no time between them), -ENOMEM. *m's storage is reused; release
 * it with metrics_trace_free().
 */
int metrics_trace_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			  const struct disk_table *names, struct trace_metrics *m);

void metrics_trace_free(struct trace_metrics *m);

/* The q quantile (0 < q <= 1) of a log2 µs histogram of n IOs, interpolated
 * linearly in its bucket; 0 when n is 0. */
double metrics_trace_quantile(const uint64_t slots[TRACE_HIST_SLOTS], uint64_t n, double q);

#endif
