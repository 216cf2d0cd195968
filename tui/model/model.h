/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TUI's view model: one decoder turns the sample document of doc/json.md
 * (from the daemon or from the embedded sampler, the same bytes) into tables
 * the views draw, plus a history of the values the sparkline shows. It
 * classifies (hot core, hottest softirq) but computes no rates: every number
 * comes from the document.
 */
#ifndef IOTRIAGE_TUI_MODEL_H
#define IOTRIAGE_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_blkmq.h"
#include "model_trace.h"
#include "model_sections.h"
#include "model_findings.h"

struct json_object;

/* iostat -x columns of a disk row, in iostat's order, then discard and
 * flush; r_p99 and w_p99 (the tracing stage's, not iostat's) beside the
 * mean awaits. */
enum model_disk_col {
	MD_RS,
	MD_WS,
	MD_RKBS,
	MD_WKBS,
	MD_RRQMS,
	MD_WRQMS,
	MD_RRQM,
	MD_WRQM,
	MD_RAWAIT,
	MD_RP99, /* from the document's "trace" (model_trace.c), not the disk's row */
	MD_WAWAIT,
	MD_WP99,
	MD_AQU,
	MD_RAREQ,
	MD_WAREQ,
	MD_SVCTM,
	MD_UTIL,
	MD_DS,
	MD_DKBS,
	MD_DRQMS,
	MD_DRQM,
	MD_DAWAIT,
	MD_DAREQ,
	MD_FS,
	MD_FAWAIT,
	MD__COUNT
};

/* One column of a table: its JSON key, its header, its width and what it means. */
struct model_col {
	const char *key;   /* key in the disk's row of the document, NULL: from "trace" */
	const char *label; /* column header, iostat's spelling */
	int width;	   /* characters, without the separating space */
	int prio;	   /* lower is kept first when the terminal is narrow */
	const char *help;  /* one line for the help screen */
};

extern const struct model_col model_disk_cols[MD__COUNT];

/* Help lines for the CPU and IRQ panels: { label, meaning }, NULL-terminated. */
extern const char *const model_cpu_help[][2];
extern const char *const model_irq_help[][2];

#define MODEL_NAME_MAX	 64
#define MODEL_CAUSES_MAX 12  /* causes of unavailable sources kept */
#define MODEL_CAUSE_MAX	 200 /* one cause's line */
#define MODEL_REASON_MAX 160
#define MODEL_LIST_MAX	 192 /* a cpulist as the kernel prints it */

/* %irq or %soft cells at this or more are drawn to stand out (yellow); the
 * HOT mark itself is the advisor's hot_cpu finding (model_cpu.hot). */
#define MODEL_HOT_PCT 20.0

struct model_disk {
	char name[MODEL_NAME_MAX];
	char dm_name[MODEL_NAME_MAX];
	bool valid; /* false: no rates this round, see reason */
	char reason[MODEL_REASON_MAX];
	bool has[MD__COUNT]; /* key present in the document */
	double v[MD__COUNT];
	uint64_t in_flight;
	struct model_disk_trace trace; /* the tracing stage's, has_lat false without */
};

struct model_cpu {
	int cpu;       /* -1 for "all" */
	char name[16]; /* "all", "3" */
	bool valid;
	char reason[MODEL_REASON_MAX];
	double usr, nice, sys, iowait, irq, soft, steal, guest, gnice, idle;
	bool has_intr;
	double intr_s;	   /* interrupts per second on this CPU (mpstat -I SUM) */
	char hot_soft[32]; /* softirq with the highest rate on this CPU, "" none */
	double hot_soft_s;
	bool hot;		      /* a hot_cpu finding stands for this core (doc/advise.md) */
	int node;		      /* its NUMA node (the document's "numa"), -1 unknown */
	struct model_cpu_trace trace; /* softirq time by vector, hardirq time (--trace) */
};

struct model_irq_cpu {
	int cpu;
	double rate_s;
};

struct model_irq {
	char name[32]; /* "30", "LOC" */
	bool numeric;
	uint32_t irq;
	char chip[32];
	char actions[96];
	bool valid;
	double total_s;
	bool has_time;		    /* the tracing stage timed this line's handlers */
	double time_us_s;	    /* their time, all CPUs: µs per second */
	struct model_irq_cpu *cpus; /* CPUs with a non-zero rate, highest first */
	size_t ncpus, cpus_cap;
	/* "affinity" and "effective" (/proc/irq/N as the sampler's topology
	 * read it); has_*: the document gave it */
	bool has_smp, has_eff;
	char smp_list[MODEL_LIST_MAX];
	char eff_list[MODEL_LIST_MAX];
};

#define MODEL_HIST_MAX	 600 /* points kept per series: 10 minutes at 1 Hz */
#define MODEL_SERIES_MAX 512 /* series kept; later ones are not recorded */

/* One sparkline source: "d:sda" (%util), "c:all", "c:3" (busy %), "i:30" (IRQs/s). */
struct model_series {
	char key[MODEL_NAME_MAX + 2];
	float v[MODEL_HIST_MAX]; /* aligned with model_history.ts_ms; NaN: absent */
};

struct model_history {
	int64_t ts_ms[MODEL_HIST_MAX]; /* ring, oldest at (head - n) */
	size_t head, n;
	int64_t last_ts_ms; /* newest sample recorded: older ones are duplicates */
	struct model_series *series;
	size_t nseries, series_cap;
};

struct model {
	bool have_sample; /* a document was decoded */
	bool has_rates;	  /* it carried rates (not the first sample) */
	char host[MODEL_NAME_MAX];
	char mode[16];
	uint64_t sample;
	int64_t timestamp_ms;
	long interval_ms;
	/* the sources the sample says are unavailable, one line per cause
	 * (model_unavailable_group): "turbostat: no msr cpufreq (a VM without
	 * MSR access); perf cpuidle shown", "vmstat rtnetlink: No such file or
	 * directory" */
	char unavailable[MODEL_CAUSES_MAX][MODEL_CAUSE_MAX];
	size_t nunavailable;

	struct model_disk *disks;
	size_t ndisks, disks_cap;
	struct model_cpu *cpus; /* [0] is "all" when present */
	size_t ncpus, cpus_cap;
	bool has_intr_all;
	double intr_all_s;
	struct model_irq *irqs;
	size_t nirqs, irqs_cap;
	struct model_advice advice; /* findings and suggestions (model_findings.h) */
	/* turbostat, processes, NICs, pressure, writeback (model_sections.h) */
	struct model_sections sections;
	/* each disk's blk-mq queue chain (model_blkmq.h); bad says why it
	 * could not be decoded, "" when fine */
	struct model_blkmq blkmq;
	char blkmq_bad[64];
	/* the "trace" section's state (model_trace.h); its numbers are in
	 * the rows: model_cpu.trace, model_irq.time_us_s, model_disk.trace */
	struct model_trace trace;
	/* its NET_RX time by NAPI (the NIC lines and the NIC queue chain) */
	struct model_napis napi;

	struct model_history hist;
	struct model_worker *worker; /* the daemon's bench job (model_worker.h), NULL none */
};

enum {
	MODEL_VIEW = 1,	   /* replace the tables the views draw */
	MODEL_HISTORY = 2, /* record the sample in the history */
};

/*
 * Decodes one sample document (a JSON object, doc/json.md) into m. flags
 * says what to update: MODEL_VIEW (the tables, dropped when the UI is
 * paused), MODEL_HISTORY (the sparkline series; a sample not newer than the
 * last recorded one is skipped, so a history reply that overlaps the live
 * stream is harmless). Returns 0, -EBADMSG when the object is not a sample
 * of a version this client reads, -ENOMEM. On failure m keeps its previous
 * tables.
 */
int model_apply(struct model *m, struct json_object *sample, unsigned flags);

/* The same from text (len bytes, need not be NUL-terminated). */
int model_apply_text(struct model *m, const char *json, size_t len, unsigned flags);

/* The series named key, NULL when none was recorded. */
const struct model_series *model_series_find(const struct model *m, const char *key);

/* Value of series s at the i-th point from the oldest (0 .. hist.n-1). */
static inline float model_series_at(const struct model *m, const struct model_series *s, size_t i)
{
	size_t k = (m->hist.head + MODEL_HIST_MAX - m->hist.n + i) % MODEL_HIST_MAX;

	return s->v[k];
}

/*
 * The unavailable sources of a sample, one line per cause, into causes
 * (MODEL_CAUSES_MAX lines): turbostat's sources (msr perf cpufreq cpuidle
 * powercap hwmon) as one, with the first one's reason and those that are
 * shown instead; PSI's (pressure_*) as one; the others grouped by their
 * reason's last part (the path before it is the source's own). names and
 * reasons are n sources, avail[] whether each is available. Returns the
 * number of lines.
 */
size_t model_unavailable_group(const char *const *names, const char *const *reasons,
			       const bool *avail, size_t n,
			       char causes[MODEL_CAUSES_MAX][MODEL_CAUSE_MAX]);

void model_free(struct model *m);

#endif
