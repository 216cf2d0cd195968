/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sample document's "turbostat", "processes", "nics", "pressure" and
 * "writeback" sections (doc/json.md), decoded for the CPU panel, the header
 * lines, the processes view and the NIC lines of the IRQ panel. A section
 * absent from the document means "not available" with the reason its
 * source gave in "sources" (or that the sample does not carry it at all:
 * iotriaged --core-only, an older daemon, the first sample), never zeros.
 * Decodes only: no I/O, no rates.
 */
#ifndef IOTRIAGE_TUI_MODEL_SECTIONS_H
#define IOTRIAGE_TUI_MODEL_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_cgroup.h"

struct json_object;

#define MODEL_SECTIONS_REASON_MAX \
	320 /* a source's reason as the document gives it (IOT_REASON_MAX) */

/* ---- turbostat ---- */

/* The turbostat columns the TUI shows, with their status in "columns". */
enum model_turbo_col {
	MT_BUSY,    /* Busy% */
	MT_BZY_MHZ, /* Bzy_MHz */
	MT_C3,	    /* CPU%c3 */
	MT_C6,	    /* CPU%c6 */
	MT_C7,	    /* CPU%c7 */
	MT_PKGWATT,
	MT_CORWATT,
	MT_RAMWATT,
	MT_PKGTMP,
	MT_CORETMP,
	MT__COUNT
};

/* turbostat's name of each (the document's key). */
extern const char *const model_turbo_col_names[MT__COUNT];

/* Help lines for what these sections add to the screen: { label, meaning },
 * NULL-terminated: the CPU panel's turbostat columns, the IRQ panel's NIC
 * lines, the header's lines, the processes view's columns. */
extern const char *const model_turbo_help[][2];
extern const char *const model_nic_help[][2];
extern const char *const model_header_help[][2];
extern const char *const model_proc_help[][2];

struct model_turbo_status {
	bool known;				/* "columns" named it */
	bool available;				/* some source gives it */
	char source[16];			/* "msr", "perf", "sysfs", "proc" */
	char detail[96];			/* "MSR 0xE8 APERF / interval" */
	char reason[MODEL_SECTIONS_REASON_MAX]; /* why unavailable, else a caveat or "" */
};

/* One entry of "columns", under turbostat's name: every column the
 * sampler chose a source for (Avg_MHz ... RAM_%), not only those the
 * panels draw, for the turbostat sources view. */
struct model_turbo_column {
	char name[24]; /* "Bzy_MHz", "Pkg%pc2" */
	struct model_turbo_status st;
};

/* The source families the sampler probed at its first sample, as "sources"
 * gives them: msr, perf, cpufreq, cpuidle, powercap, hwmon. */
#define MODEL_TURBO_FAMILIES 6

struct model_turbo_family {
	const char *name; /* static: "msr" ... */
	bool listed;	  /* "sources" names it */
	bool available;
	char reason[MODEL_SECTIONS_REASON_MAX]; /* unavailable: why */
};

/* One row of "rows": the summary row (cpu -1) or one CPU. */
struct model_turbo_cpu {
	int cpu; /* -1: the summary row ("-") */
	int pkg, core;
	bool valid; /* false: reason says why, no numbers */
	char reason[MODEL_SECTIONS_REASON_MAX];
	bool has_busy, has_bzy, has_deep;
	double busy_pct; /* Busy% */
	double bzy_mhz;	 /* Bzy_MHz */
	/* The deepest C-state residency the row has: CPU%c7, c6, c3 of the
	 * row or, on a core's other threads, of its first thread (turbostat
	 * prints them once per core); else the last cpuidle state ("C6",
	 * "haltpoll idle", from the "<state>%" keys). */
	double deep_pct;
	char deep_name[32]; /* "CPU%c6", or the cpuidle state's name */
	bool deep_cpuidle;  /* deep_name is a cpuidle state */
};

struct model_turbo {
	bool present; /* the document had a "turbostat" section */
	bool sampled; /* "sources" names msr: the sampler probed turbostat's sources */
	double interval_s;
	struct model_turbo_status col[MT__COUNT];
	/* every column of "columns", in the document's (turbostat's) order */
	struct model_turbo_column *cols;
	size_t ncols, cols_cap;
	/* decoded whether or not the section is there: the first sample has them */
	struct model_turbo_family fam[MODEL_TURBO_FAMILIES];
	/* The summary row: watts summed over packages (cores for AMD's
	 * CorWatt), temperatures the hottest, as turbostat's "-" row. */
	struct model_turbo_cpu summary;
	bool has_summary;
	bool has[MT__COUNT]; /* of the summary row: PkgWatt ... CoreTmp */
	double v[MT__COUNT];
	bool suspect; /* some watts measured over more than the counter range (**) */
	struct model_turbo_cpu *cpus; /* turbostat's order: package, core, CPU */
	size_t ncpus, cpus_cap;
	/* any CPU row carries it: the CPU panel shows the column */
	bool any_busy, any_bzy, any_deep;
};

/* ---- processes ---- */

struct model_proc {
	int pid;
	char comm[32];
	bool started;			 /* began during the interval */
	bool exited;			 /* and ended in it (an exit notice's totals) */
	double rd_kbs, wr_kbs, ccwr_kbs; /* kB_rd/s kB_wr/s kB_ccwr/s (pidstat -d) */
	bool has_delay;
	double io_delay_pct; /* io_delay%: iotop's IO> */
	double blkio_s;	     /* blkio/s */
	bool has_cpu;
	double cpu_pct, usr_pct, sys_pct; /* pidstat -u %CPU %usr %system */
	char user[33];			  /* "" when the document has none */
	char cmdline[161];
	char unit[65];
};

struct model_procs {
	bool present; /* "processes" was in the document */
	/* absent: why (sources.procfs_io's reason, or the sample has none) */
	char reason[MODEL_SECTIONS_REASON_MAX];
	char note[MODEL_SECTIONS_REASON_MAX]; /* procfs_io's note: "N not readable" */
	char bytes_source[24];		      /* "procfs": /proc/PID/io; "procfs+taskstats" */
	char delay_source[16];		      /* "taskstats", "" none this sample */
	char delay_accounting[16];	      /* "on" "off" "unknown" "unavailable" */
	char taskstats_why[MODEL_SECTIONS_REASON_MAX]; /* taskstats' reason or note, "" */
	uint64_t count, queries, answers, vanished, exited;
	/* "scan": the cadence of the /proc/PID/io scan (daemon cost) */
	bool has_scan;
	uint64_t scan_every, scan_age; /* a scan every N samples; samples since the last */
	bool scanned;		       /* this sample scanned (else rows of the last scan) */
	char scan_reason[16];	       /* "client", "cadence", ..., "" */
	bool has_rows;		       /* top_io was there: not the first sample */
	struct model_proc *top_io;     /* biggest kB_rd/s + kB_wr/s first */
	size_t nio, io_cap;
	struct model_proc *top_delay; /* biggest io_delay% first */
	size_t ndelay, delay_cap;
	struct model_proc *top_cpu; /* biggest cpu_pct first */
	size_t ncpu, cpu_cap;
};

/* ---- NICs ---- */

struct model_nic_irq {
	uint32_t irq;
	char actions[64]; /* "" when /proc/interrupts has no line for it */
	bool has_rate;
	double total_s;
	int busiest_cpu; /* -1: none (no interrupts in the interval) */
	double busiest_cpu_s;
};

/* A "channels" or "coalesce" object: absent (ethtool unavailable), the
 * values, or {"available": false, "reason": ...}. */
enum model_nic_part { MN_ABSENT, MN_SET, MN_UNAVAILABLE };

struct model_nic {
	char name[32];
	bool up, carrier;
	uint64_t rx_queues, tx_queues;
	uint64_t ifindex; /* in the host's namespace; 0 unknown (older documents) */
	bool has_rates;	  /* counters in both samples */
	double rxpck_s, txpck_s, rxkb_s, txkb_s, rxerr_s, txerr_s, rxdrop_s, txdrop_s;
	enum model_nic_part channels;
	uint64_t ch_rx, ch_tx, ch_other, ch_combined;
	uint64_t ch_rx_max, ch_tx_max, ch_other_max, ch_combined_max;
	char channels_reason[MODEL_SECTIONS_REASON_MAX];
	enum model_nic_part coalesce;
	bool has_rx_usecs, has_rx_frames, has_tx_usecs, has_tx_frames;
	bool has_adaptive_rx, has_adaptive_tx;
	uint64_t rx_usecs, rx_frames, tx_usecs, tx_frames;
	bool adaptive_rx, adaptive_tx;
	char coalesce_reason[MODEL_SECTIONS_REASON_MAX];
	struct model_nic_irq *irqs; /* the NIC's MSI vectors */
	size_t nirqs, irqs_cap;
};

struct model_nics {
	bool present;
	char reason[MODEL_SECTIONS_REASON_MAX];		/* absent: rtnetlink's reason */
	char ethtool_reason[MODEL_SECTIONS_REASON_MAX]; /* ethtool unavailable: why, else "" */
	struct model_nic *v;				/* loopback excluded (the document's) */
	size_t n, cap;
};

/* ---- pressure and writeback ---- */

enum model_psi_res { MP_IO, MP_CPU, MP_IRQ, MP__COUNT };

extern const char *const model_psi_names[MP__COUNT]; /* "io", "cpu", "irq" */

struct model_psi_line {
	bool present;
	double avg10, avg60, avg300; /* the kernel's averages, percent */
	uint64_t total_us;
	bool has_stall;
	double stall_pct; /* stall%: share of this interval stalled */
};

struct model_psi {
	bool present;
	char reason[MODEL_SECTIONS_REASON_MAX]; /* absent: pressure_<res>'s reason */
	struct model_psi_line some, full;
};

struct model_writeback {
	bool present;
	char reason[MODEL_SECTIONS_REASON_MAX]; /* absent or no counts: vmstat's reason */
	bool has_dirty;				/* dirty_kB and writeback_kB */
	uint64_t dirty_kb, writeback_kb;
	bool has_thresholds;
	uint64_t bg_threshold_kb, threshold_kb;
	bool has_freerun;
	uint64_t freerun_kb;
	char state[24]; /* "below_background", "background", "throttled", "blocked", "" */
};

struct model_sections {
	struct model_turbo turbo;
	struct model_procs procs;
	struct model_nics nics;
	struct model_psi psi[MP__COUNT];
	struct model_writeback wb;
	struct model_cgroups cgroups; /* model_cgroup.h */
	/* the document carries the sources the sections come from at all
	 * (false: iotriaged --core-only, or older than these sections) */
	bool sampled;
	/* a core source (uptime, stat, diskstats, interrupts, softirqs,
	 * sysblock) is unavailable: the header's "unavailable:" line matters more */
	bool core_unavailable;
	/* a section that was there but could not be read: which and what, else
	 * "" (that section is then shown as not available) */
	char bad[160];
};

/*
 * Decodes doc's sections into *ret, which is overwritten (not freed). A
 * malformed section is left out with ret->bad saying what, so the rest of
 * the sample still shows. Returns 0, or -ENOMEM (*ret untouched).
 */
int model_sections_decode(struct json_object *doc, struct model_sections *ret);

/* Frees what decode allocated and empties x; accepts NULL. */
void model_sections_free(struct model_sections *x);

/* The turbostat row of a CPU (-1: the summary row), NULL when none. */
const struct model_turbo_cpu *model_sections_turbo_cpu(const struct model_sections *x, int cpu);

/* The first clause of a reason (up to the first "; "), for a line that
 * must stay short: "/dev/cpu/0/msr: no such device: msr module not loaded,
 * or a VM without MSR access". */
void model_sections_short_reason(const char *reason, char *buf, size_t size);

/* Why the turbostat header has no watts or temperatures: the short reason
 * of PkgWatt (else PkgTmp, Busy%), or what the sample lacks. "" when some
 * watts or temperature are there. */
void model_sections_turbo_why(const struct model_sections *x, bool has_rates, char *buf,
			      size_t size);

#endif
