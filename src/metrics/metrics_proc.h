/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rates of the workload sources (collect/workload.h), pure functions of (prev, cur, interval):
 * per-process IO and IO delay with top-N orderings, per-NIC packet, byte,
 * drop and error rates (sar -n DEV / EDEV names) with each MSI vector's
 * interrupt rates from /proc/interrupts, PSI stall shares, and the dirty
 * page state against the kernel's throttling thresholds.
 */
#ifndef IOTRIAGE_METRICS_PROC_H
#define IOTRIAGE_METRICS_PROC_H

#include "workload.h"
#include "metrics.h"
#include "metrics_cgroup.h"

#define PROC_TOP_N 10 /* rows of each ordering */

struct proc_metrics {
	int32_t pid;
	char comm[PROC_COMM_MAX];
	uint8_t source;	    /* enum proc_io_source of the current row */
	bool started;	    /* not in the previous sample: all its IO is this interval's */
	bool exited;	    /* also ended before this sample (an exit notice's totals) */
	bool has_delay;	    /* both samples had delay numbers */
	double rkb_s;	    /* read_bytes / 1024 per second */
	double wkb_s;	    /* write_bytes / 1024 per second */
	double ckb_s;	    /* cancelled_write_bytes / 1024 per second */
	double reaped_kb_s; /* reaped children's bytes taken out of the three above */
	double io_delay;    /* percent of the interval waiting on sync block IO (iotop IO>) */
	double blkio_s;	    /* such waits per second */
	/* pidstat -u: Δ(utime + stime) of the thread group (children not)
	 * over the interval, percent of one CPU; %usr without guest time */
	double cpu_pct;
	double usr_pct, sys_pct;
	bool has_cpu; /* /proc/PID/stat in both samples */
	/* /proc/PID/schedstat: percent of the interval its main thread waited
	 * on a run queue for a CPU (a victim of CPU saturation) */
	bool has_runq;
	double runq_pct;
	bool has_who; /* uid, user, cmdline, unit below were read */
	uint32_t uid;
	char user[PROC_USER_MAX];	/* login name from /etc/passwd, else the uid */
	char cmdline[PROC_CMDLINE_MAX]; /* NULs as spaces, escaped, bounded; "[comm]" */
	char unit[PROC_UNIT_MAX];	/* cgroup, last two components */
};

struct nic_irq_metrics {
	uint32_t irq;
	size_t irq_row; /* index in metrics.irq rows, or SIZE_MAX: not in /proc/interrupts */
	double total_s;
	int busiest_cpu; /* -1 when no interrupts */
	double busiest_cpu_s;
};

struct nic_metrics {
	size_t cur_index; /* row in cur->workload->nics: name, channels, coalescing */
	bool valid;	  /* rates present: counters in both samples, none went back */
	double rxpck_s, txpck_s, rxkb_s, txkb_s;
	double rxerr_s, txerr_s, rxdrop_s, txdrop_s;
	size_t irq_off, nirqs; /* in workload_metrics.nic_irqs */
};

struct psi_metrics {
	bool some_valid, full_valid;
	double some_pct, full_pct; /* share of the interval stalled, from total= */
};

enum wb_state {
	WB_UNKNOWN,
	WB_BELOW_BACKGROUND, /* flushers idle on the thresholds' account */
	WB_BACKGROUND,	     /* above the background threshold: flushers writing */
	WB_THROTTLED,	     /* past the midpoint: writers sleep in balance_dirty_pages */
	WB_BLOCKED,	     /* at or above the hard threshold */
};

struct workload_metrics {
	/* processes that did IO (or waited) this interval, and the PROC_TOP_N
	 * busiest on CPU that did neither */
	struct proc_metrics *procs;
	size_t nprocs, procs_cap;
	size_t by_io[PROC_TOP_N], nby_io;	/* indices in procs, biggest rkB/s + wkB/s */
	size_t by_delay[PROC_TOP_N], nby_delay; /* biggest io_delay, has_delay only */
	size_t by_cpu[PROC_TOP_N], nby_cpu;	/* biggest cpu_pct, > 0 only */
	size_t by_runq[PROC_TOP_N], nby_runq;	/* biggest runq_pct, > 0 only */
	unsigned exited;			/* in prev, gone now */
	bool procs_valid;			/* procfs readable in both samples */
	struct nic_metrics *nics;
	size_t nnics, nics_cap;
	struct nic_irq_metrics *nic_irqs;
	size_t nnic_irqs, nic_irqs_cap;
	struct psi_metrics psi[PSI__COUNT];
	enum wb_state wb_state;
	uint64_t wb_freerun_pages;	   /* (threshold + background) / 2, mm/page-writeback.c */
	struct cgroup_metrics_set cgroups; /* cgroup v2 io.stat/io.pressure rates */
	bool cgroups_valid;		   /* the hierarchy was read in both samples */
};

/*
 * Computes every rate of (prev->workload, cur->workload) over itv_cs (> 0). irq is the
 * core's /proc/interrupts rate table of the same pair, or NULL. *pm is
 * allocated on first use. 0, -EINVAL (no interval) or -ENOMEM.
 */
int metrics_proc_compute(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv_cs,
			 const struct rate_table *irq, struct workload_metrics **pm);

/*
 * Per-thread rates of one process (iotriage threads PID): procs[] of *pm
 * become its threads (pid = thread id), with the same top-N orderings;
 * nothing else of *pm is touched. 0, -EINVAL or -ENOMEM.
 */
int metrics_proc_threads(const struct thread_table *prev, const struct thread_table *cur,
			 uint64_t itv_cs, struct workload_metrics **pm);

void metrics_proc_free(struct workload_metrics *x);

/* "below_background", "background", "throttled", "blocked", "unknown" */
const char *metrics_proc_wb_state_name(enum wb_state s);

#endif
