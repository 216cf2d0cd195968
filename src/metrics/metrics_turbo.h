/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * turbostat's numbers over two turbo readings (metrics_turbo.c): pure, no
 * I/O. What is read is collect/turbo.h's; how it is printed encode_turbo.h's.
 */
#ifndef IOTRIAGE_METRICS_TURBO_H
#define IOTRIAGE_METRICS_TURBO_H

#include "turbo.h"

/* Row scope bits: which columns a row carries, as turbostat prints them. */
struct turbo_row {
	int cpu;  /* -1: the summary ("-") row */
	int core; /* -1 in the summary row */
	int pkg;
	bool first_in_core, first_in_pkg;
	bool valid; /* false: nothing this round, reason says why */
	char reason[200];
	uint32_t have;	     /* 1 << turbo_col: column has a value in this row */
	uint32_t suspect;    /* 1 << turbo_col: energy over more than the counter's range */
	double v[TC__COUNT]; /* MHz, %, count, deg C, W */
	unsigned nidle;
	double idle_pct[TURBO_IDLE_MAX]; /* sysfs cpuidle residency, % of the interval */
};

struct turbo_metrics {
	bool available; /* both readings present */
	char reason[IOT_REASON_MAX];
	double interval_s;
	double joule_range_s; /* RAPL counter range at TDP; longer intervals are suspect */
	struct turbo_info info;
	uint32_t cols;		  /* 1 << turbo_col: available on this host */
	struct turbo_row summary; /* turbostat's first line */
	struct turbo_row *rows;
	size_t nrows, rows_cap;
	unsigned invalid_rows;
	uint64_t *irq_sum; /* scratch: IRQ count per current /proc/interrupts column */
	size_t irq_cap;
	int *irq_pcol; /* scratch: previous column of each current one, -1 if none */
	size_t pcol_cap;
	int *pidx; /* scratch: index in the previous reading of each current CPU */
	size_t pidx_cap;
	bool irq_ok;
};

/* turbostat's column header ("Avg_MHz", "Busy%", "CPU%c1" ...). */
const char *turbo_col_name(enum turbo_col c);

/*
 * Turbostat's numbers over prev -> cur. The interval is the readings' own
 * timestamps when both have one, else itv_cs (from /proc/uptime). Rows are
 * keyed by CPU number; a CPU missing in either reading, one whose reading
 * failed, whose TSC went back or did not advance is a row with valid =
 * false and a reason, never zeros. Storage in m is reused. 0 or -ENOMEM.
 */
int turbo_compute(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv_cs,
		  struct turbo_metrics *m);
void turbo_metrics_free(struct turbo_metrics *m);

/* The same for a heap-held result (struct metrics keeps a pointer): allocates
 * *m on first use. destroy frees it; NULL is fine. */
int turbo_metrics_update(struct turbo_metrics **m, const struct snapshot *prev,
			 const struct snapshot *cur, uint64_t itv_cs);
void turbo_metrics_destroy(struct turbo_metrics *m);

/* For the TUI: one CPU's frequency, busy and deepest C-state residency. */
struct turbo_cpu_view {
	bool valid;
	double bzy_mhz, busy_pct; /* NAN when unavailable */
	const char *deepest_name; /* "CPU%c6", "C6%" (cpuidle) or NULL */
	double deepest_pct;	  /* NAN when unavailable */
};
/* Returns 0, or -ENOENT (no row for cpu), -ENODATA (no turbostat data). */
int turbo_cpu_view(const struct turbo_metrics *m, int cpu, struct turbo_cpu_view *ret);

/* For the TUI header line: packages' watts summed, hottest package/core. */
struct turbo_header_view {
	double pkg_watt, ram_watt; /* NAN when unavailable */
	int npkg;
	double pkg_tmp_c, core_tmp_c; /* maxima; NAN when unavailable */
	bool suspect;
};
void turbo_header_view(const struct turbo_metrics *m, struct turbo_header_view *ret);

#endif
