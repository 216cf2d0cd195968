/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Raw counters as collect reads them, and the metrics computed from two of
 * them. Shared by the core library, the daemon and the client; no functions.
 */
#ifndef IOTRIAGE_TYPES_H
#define IOTRIAGE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IOT_NAME_MAX   64  /* device / IRQ label / softirq name, NUL included */
#define IOT_REASON_MAX 320 /* "read /proc/stat: Permission denied" and the like */

/* What a host can have, so what a file of a recorded tree or a recording's
 * record may make a parser allocate (doc/trees.md, "Bounds"): past one, the
 * file is malformed and its source unavailable with the reason. */
#define IOT_CPUS_MAX	  8192	     /* CPU numbers 0..8191: NR_CPUS at its largest (MAXSMP) */
#define IOT_DISKS_MAX	  65536	     /* /proc/diskstats rows: disks and partitions */
#define IOT_IRQ_LINES_MAX 65536	     /* /proc/interrupts rows */
#define IOT_IRQ_CELLS_MAX (1u << 24) /* their rows x CPU columns: 128 MiB of counters */
#define IOT_SOFTIRQS_MAX  64	     /* /proc/softirqs rows: the kernel has 10 */

/* Every source collect reads; status is kept per source. */
enum src_id {
	SRC_UPTIME,
	SRC_STAT,
	SRC_DISKSTATS,
	SRC_INTERRUPTS,
	SRC_SOFTIRQS,
	SRC_SYSBLOCK,
	SRC__COUNT
};

/* err == 0: available. Otherwise -errno and a human reason. */
struct src_status {
	int err;
	char reason[IOT_REASON_MAX];
};

/* /proc/diskstats counters after major, minor, name (Documentation/admin-guide/iostats.rst). */
enum disk_field {
	DF_RD_IOS,
	DF_RD_MERGES,
	DF_RD_SECTORS,
	DF_RD_TICKS,
	DF_WR_IOS,
	DF_WR_MERGES,
	DF_WR_SECTORS,
	DF_WR_TICKS,
	DF_IN_FLIGHT,
	DF_IO_TICKS,
	DF_RQ_TICKS, /* 11 counters: 14-field kernels (< 4.18) */
	DF_DC_IOS,
	DF_DC_MERGES,
	DF_DC_SECTORS,
	DF_DC_TICKS, /* 15 counters: 18-field kernels (4.18 - 5.4) */
	DF_FL_IOS,
	DF_FL_TICKS, /* 17 counters: 20-field kernels (>= 5.5) */
	DF__COUNT
};

struct disk_raw {
	uint32_t major;
	uint32_t minor;
	char name[IOT_NAME_MAX];
	uint8_t ncounters;	    /* 11, 15 or 17: fields beyond it are absent */
	bool whole;		    /* a whole disk (/sys/block/NAME exists), not a partition */
	int8_t iostats;		    /* queue/iostats: 1, 0 (counters frozen), -1 unknown */
	char dm_name[IOT_NAME_MAX]; /* /sys/block/dm-N/dm/name, "" if none */
	char slaves[256];	    /* /sys/block/X/slaves/, comma-separated, "" if none */
	uint64_t v[DF__COUNT];
};

/* One row of a disk table's lookup index: dev is major << 32 | minor. */
struct disk_key {
	uint64_t dev;
	size_t row;
};

struct disk_table {
	struct disk_raw *rows;
	size_t n;
	size_t cap;
	/* rows sorted by (dev, row) so disk_table_find() is a binary search:
	 * built by diskstats_parse(), used only while nkeys == n */
	struct disk_key *keys;
	size_t nkeys;
	size_t keys_cap;
};

/* /proc/stat cpu line fields, in the kernel's order (USER_HZ ticks). */
enum cpu_field {
	CF_USER,
	CF_NICE,
	CF_SYSTEM,
	CF_IDLE,
	CF_IOWAIT,
	CF_IRQ,
	CF_SOFTIRQ,
	CF_STEAL,
	CF_GUEST,
	CF_GUEST_NICE,
	CF__COUNT
};

#define IOT_CPU_ALL (-1)

struct cpu_raw {
	int cpu;	   /* IOT_CPU_ALL for the "cpu" line */
	uint8_t ncounters; /* fields present on the line (4 .. 10) */
	uint64_t v[CF__COUNT];
};

struct stat_raw {
	struct cpu_raw all;
	struct cpu_raw *cpus; /* sorted by cpu id, online CPUs only */
	size_t ncpu;
	size_t cap;
	bool has_intr;
	bool has_softirq;
	uint64_t intr_total;	/* first number of the "intr" line */
	uint64_t softirq_total; /* first number of the "softirq" line */
	uint64_t ctxt;
	uint64_t procs_running;
	uint64_t procs_blocked;
};

/*
 * /proc/interrupts and /proc/softirqs share one shape: a header of CPU
 * columns, then "LABEL: count count ... [description]". One row per label.
 */
struct irq_row {
	char label[32];	    /* "24", "LOC", "NET_RX" */
	bool numeric;	    /* label is an IRQ number */
	bool percpu_counts; /* false for ERR:/MIS: which carry one total */
	uint32_t irq;	    /* valid when numeric */
	uint64_t total;	    /* sum over CPUs (or the single value) */
	size_t counts_off;  /* index of this row's counts in irq_table.counts */
	char chip[32];	    /* "IO-APIC", "PCI-MSIX-0000:00:01.0" */
	char hwirq[32];	    /* "5-edge" */
	char actions[96];   /* "ACPI:Ged", "nvme0q1" or "Local timer interrupts" */
};

/* One row of an IRQ table's lookup index: key is the IRQ number, or the
 * label's hash above every number (irqtab.c). */
struct irq_key {
	uint64_t key;
	size_t row;
};

struct irq_table {
	int *cpu_ids; /* the header's CPU numbers, in column order */
	size_t ncpu;
	size_t cpu_cap;
	struct irq_row *rows;
	size_t n;
	size_t cap;
	uint64_t *counts; /* n * ncpu counters, row-major */
	size_t counts_cap;
	/* rows sorted by (label key, row) so irq_table_find() is a binary
	 * search: built by irqtab_parse(), used only while nkeys == n */
	struct irq_key *keys;
	size_t nkeys;
	size_t keys_cap;
};

struct uptime_raw {
	uint64_t uptime_cs; /* centiseconds, as sysstat reads it */
	uint64_t idle_cs;
};

struct turbo_raw; /* src/collect/turbo.h: turbostat counters; NULL when not collected */

struct workload_raw; /* processes, NICs, pressure, writeback: src/collect/workload.h */

#define IOT_CPULIST_MAX 192 /* "0-3,128-131": a cpulist as the kernel prints it */

/* One blk-mq hardware queue of a whole disk: /sys/block/DISK/mq/HCTX/cpu_list
 * (src/collect/blkmq.c), the CPUs whose IO it takes. */
struct blkmq_queue {
	char disk[IOT_NAME_MAX];
	uint32_t hctx;
	char cpu_list[IOT_CPULIST_MAX]; /* as read, "" when unreadable */
};

/* Every whole disk's hardware queues, by disk then hctx. Static between
 * device changes: re-read only when the set of disks changes. */
struct blkmq_table {
	struct blkmq_queue *rows;
	size_t n, cap;
};

/* One NUMA node and its CPUs: /sys/devices/system/node/nodeN/cpulist
 * (src/collect/numa.c). */
struct numa_node {
	int node;
	char cpu_list[IOT_CPULIST_MAX]; /* as read */
};

/* The host's NUMA nodes, by node number; n 0: no node directory (a
 * kernel without NUMA, a recorded tree without it). */
struct numa_table {
	struct numa_node *rows;
	size_t n, cap;
};

/* One collection of every source, timestamped by collect. */
/*
 * The optional sources the CPU budget reads at a cadence (sampler.c,
 * doc/daemon.md "CPU budget"): one slot each in snapshot.cadence.
 */
enum cad_src {
	CAD_PROCS,    /* /proc/PID/io of every process (+ taskstats) */
	CAD_TURBO,    /* turbostat counters: MSR, perf, sysfs */
	CAD_NICS,     /* rtnetlink link dump + ethtool */
	CAD_CGROUPS,  /* the cgroup v2 walk: io.stat, io.pressure */
	CAD_PRESSURE, /* /proc/pressure/{io,cpu,irq} */
	CAD__COUNT
};

/*
 * How the current sample got a source's rows. The collector fills carried,
 * read_uptime_cs and cpu_ns; the sampler every, age and why. A sample that
 * skipped the source carries the last read's rows (carried), and the next
 * read's rates span the two reads.
 */
struct src_cadence {
	bool carried;		 /* not read this sample: the rows are the last read's */
	uint32_t every;		 /* the sampler reads it every N samples; 0: not set */
	uint32_t age;		 /* samples since the read (0: this one) */
	uint64_t read_uptime_cs; /* /proc/uptime of the sample that read it, 0 unknown */
	uint64_t cpu_ns;	 /* CPU time of that read */
	char why[16];		 /* why this sample read it ("client", "cadence"), or "" */
};

struct snapshot {
	uint64_t id;	 /* increasing sample number */
	int64_t mono_ns; /* CLOCK_MONOTONIC when taken */
	int64_t real_ns; /* CLOCK_REALTIME when taken */
	struct uptime_raw uptime;
	struct stat_raw stat;
	struct disk_table disks;
	struct irq_table irqs;
	struct irq_table softirqs;
	struct src_status status[SRC__COUNT];
	struct turbo_raw *turbo;
	struct workload_raw
	    *workload;		/* processes, NICs, pressure, writeback; NULL until sampled */
	struct blkmq_table mq;	/* blk-mq hardware queues of the whole disks */
	struct numa_table numa; /* NUMA nodes' CPUs */
	struct src_cadence cadence[CAD__COUNT];
};

/* ---- metrics ---- */

/* One iostat -x row plus svctm and in-flight IOs. Rates per second, kB = 1024 bytes. */
struct disk_metrics {
	char name[IOT_NAME_MAX];
	char dm_name[IOT_NAME_MAX];
	uint32_t major;
	uint32_t minor;
	bool whole;
	bool valid;	      /* false: no delta this round, see reason */
	bool has_discard;     /* d* keys present */
	bool has_flush;	      /* f* keys present */
	bool unused;	      /* every counter is zero: never did IO (iostat hides it) */
	bool new_in_interval; /* absent from prev (or renamed): rated from zero */
	char reason[IOT_REASON_MAX];
	double r_s, w_s, d_s, f_s;
	double rkb_s, wkb_s, dkb_s;
	double rrqm_s, wrqm_s, drqm_s;
	double rrqm_pct, wrqm_pct, drqm_pct;
	double r_await, w_await, d_await, f_await;
	double rareq_sz, wareq_sz, dareq_sz;
	double aqu_sz;
	double util;
	double svctm;
	uint64_t in_flight;
};

/* mpstat -u percentages. */
struct cpu_metrics {
	int cpu; /* IOT_CPU_ALL for "all" */
	bool valid;
	bool offline; /* in prev, absent now (or the reverse) */
	char reason[IOT_REASON_MAX];
	double usr, nice, sys, iowait, irq, soft, steal, guest, gnice, idle;
	double intr_s;	 /* mpstat -I SUM: interrupts per second on this CPU */
	bool has_intr_s; /* intr_s measured: its /proc/interrupts column is in both samples */
};

#endif
