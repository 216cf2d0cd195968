/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics: pure functions of (previous snapshot, current snapshot, interval).
 * No I/O, no clock. Formulas are sysstat 12.6's (iostat -x, mpstat -u/-I);
 * doc/metrics.md gives each one with its source. Storage is reused between
 * calls, so a steady stream of samples allocates nothing.
 */
#ifndef IOTRIAGE_METRICS_H
#define IOTRIAGE_METRICS_H

#include "iotriage/types.h"

struct workload_metrics;
struct blkmq_metrics;

/* Per-row, per-CPU rates (mpstat -I CPU for /proc/interrupts, -I SCPU for /proc/softirqs). */
struct rate_row {
	char label[32];
	size_t cur_index; /* row in the current irq_table (chip, actions) */
	bool valid;	  /* false: new row or a counter went back: no rates */
	double total_s;	  /* sum over the CPUs, per second */
	size_t rates_off; /* index of this row's rates in rate_table.rates */
};

struct rate_table {
	int *cpu_ids; /* CPUs present in both samples, in current column order */
	size_t ncpu, cpu_cap;
	size_t *cur_col;  /* column of cpu_ids[i] in the current table */
	size_t *prev_col; /* and in the previous one */
	size_t col_cap, prev_cap;
	struct rate_row *rows;
	size_t n, cap;
	double *rates; /* n * ncpu, per second */
	size_t rates_cap;
	unsigned skipped; /* rows present only in one sample or reset */
};

struct metrics {
	uint64_t itv_cs;	    /* interval, centiseconds (sysstat's unit) */
	struct disk_metrics *disks; /* disks[i] is cur->disks.rows[i] */
	size_t ndisks, disks_cap;
	unsigned disks_missing; /* devices of prev that are gone now */
	struct cpu_metrics all;
	struct cpu_metrics *cpus;
	size_t ncpu, cpus_cap;
	bool cpu_valid;	 /* /proc/stat present in both */
	bool intr_valid; /* mpstat -I SUM "all": /proc/stat intr */
	double intr_all_s;
	bool irq_valid, softirq_valid;
	struct rate_table irq;
	struct rate_table softirq;
	struct turbo_metrics
	    *turbo; /* src/collect/turbo.h: turbostat columns, NULL until computed */
	struct workload_metrics
	    *workload;		  /* src/metrics/metrics_proc.h: processes, NICs, PSI, writeback */
	double *all_intr_scratch; /* per irq column sums, reused */
	size_t scratch_cap;
	/* blk-mq hardware queues, one per cur->mq row (metrics_blkmq.h) */
	struct blkmq_metrics *mq;
	size_t nmq, mq_cap;
};

/* Interval in centiseconds from two snapshots' /proc/uptime, 0 if unusable. */
uint64_t metrics_interval_cs(const struct snapshot *prev, const struct snapshot *cur);

/* One iostat -x row. itv_cs > 0. Returns 0, or -ERANGE when a counter went
 * backwards (reset, replaced device, 32-bit wrap): *ret then has valid = false
 * and a reason, and no rates. */
int metrics_disk_compute(const struct disk_raw *prev, const struct disk_raw *cur, uint64_t itv_cs,
			 struct disk_metrics *ret);

/* One mpstat -u row from two cpu lines. Returns 0, or -ERANGE with a reason
 * when a counter went backwards; iowait going backwards while idle advanced
 * is not one (proc.rst): it counts as 0, as mpstat takes it. */
int metrics_cpu_compute(const struct cpu_raw *prev, const struct cpu_raw *cur,
			struct cpu_metrics *ret);

/* Every metric of (prev, cur) over itv_cs. 0 or -ENOMEM, -EINVAL (itv 0). */
int metrics_compute(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv_cs,
		    struct metrics *m);

void metrics_free(struct metrics *m);

#endif
