/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The incident report's data (iotriage report, doc/report.md): the series a
 * window of sample documents (doc/json.md: a replay's or the daemon's
 * history, the same bytes) holds, taken from the documents as they are
 * (never recomputed), the findings' spans, and the reduction of a long
 * window to pixel columns (min, mean and max of each column: a peak is
 * never dropped). No I/O, no clock.
 */
#ifndef IOTRIAGE_TUI_REPORT_DATA_H
#define IOTRIAGE_TUI_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model_findings.h"

struct json_object;

/* A disk's series, each the document's key of its row ("util", ...), the
 * p99s the "trace" section's device latency (p99_us / 1000: ms, as the
 * awaits) */
enum rd_dkey { RD_UTIL, RD_AQU, RD_RAWAIT, RD_WAWAIT, RD_FAWAIT, RD_RP99, RD_WP99, RD__DKEYS };
extern const char *const rd_dkey_names[RD__DKEYS];

/* The pressure series: the interval's stall% of /proc/pressure/{cpu,io} */
enum rd_psi { RD_PSI_CPU_SOME, RD_PSI_IO_SOME, RD_PSI_IO_FULL, RD__PSI };
extern const char *const rd_psi_names[RD__PSI];

/* log2 latency buckets of the trace section's histograms: bucket i is
 * [2^i, 2^(i+1)) µs */
#define RD_HIST_BUCKETS 32
#define RD_DISKS_MAX	64
#define RD_CPUS_MAX	1024
#define RD_ROWS_MAX	64 /* findings tracked (by id) */
#define RD_HEADS_MAX	512
#define RD_VICTIMS_MAX	4096
#define RD_EVENTS_MAX	4096 /* applies and undos in a window */
/* The series of a window together at most (rd_add: -E2BIG past it) */
#define RD_BYTES_MAX ((size_t)1 << 30)

/* Every value array below has one element per sample (report_data.n);
 * NaN: absent from that sample's document. */
struct rd_disk {
	char name[64];
	double *v[RD__DKEYS];
	uint32_t *hist; /* n * RD_HIST_BUCKETS device-stage counts, all ops; NULL: no trace */
	uint8_t *sat;	/* a disk_saturated finding on this disk stood */
	double max_util;
	bool has_p99;
};

struct rd_cpu {
	int cpu;
	double *v;    /* %irq + %soft of its cpu-load row */
	uint8_t *hot; /* a hot_cpu finding on it stood */
	double max;
};

/* One finding (by id) over the window: its severity at each sample (0 none,
 * 1 info, 2 warning, 3 critical) and what it said the last time it stood
 * at its worst. */
struct rd_row {
	char id[MODEL_ADV_ID_MAX];
	char kind[32];
	char subject[64];
	uint8_t *sev;
	int peak;
	size_t peak_at; /* sample of its first peak */
	char *reason, *culprit, *who;
	char *victim; /* who suffered, as the finding said at its worst ("" none) */
};

/* The headline (the first finding) at a change: sample, text */
struct rd_head {
	size_t at;
	int sev;		   /* 0: no finding; -1: no advice in the document */
	char id[MODEL_ADV_ID_MAX]; /* the finding's, "" none */
	char *text;
};

struct rd_victim {
	int64_t t_ms;
	char comm[64];
	int64_t pid;
	double delay_pct;
};

/* An apply or undo through the daemon (the document's "events") */
struct rd_event {
	size_t at; /* its sample */
	char kind[8], id[64], by[64];
};

struct rd_sugg {
	struct model_suggestion s;
	size_t last; /* sample it was last offered */
};

struct report_data {
	size_t n, cap;	/* samples */
	int64_t *t_ms;	/* each document's timestamp_ms */
	double *itv_ms; /* its interval_ms, NaN: the first of a run */
	char host[64];
	struct rd_disk *disks;
	size_t ndisks;
	struct rd_cpu *cpus;
	size_t ncpus;
	double *psi[RD__PSI];
	bool has_psi, has_trace, has_advice;
	struct rd_row *rows;
	size_t nrows;
	struct rd_head *heads;
	size_t nheads;
	struct rd_sugg *suggs;
	size_t nsuggs;
	struct rd_victim *victims;
	size_t nvictims;
	struct rd_event *events;
	size_t nevents;
	char delay_accounting[32]; /* the processes section's, "" unknown */
	size_t skipped;		   /* documents that were not samples */
};

/* Appends the sample document doc: 1 taken, 0 skipped (not a sample, or
 * not after the last one: counted in skipped), -ENOMEM, -E2BIG (the
 * window's series would pass RD_BYTES_MAX). */
int rd_add(struct report_data *d, struct json_object *doc);
/* The same from a document's text (len bytes): the members the report
 * reads are picked out first (scratch: a buffer kept between calls); a
 * text that is not a document is skipped as above. */
struct strbuf;
int rd_add_text(struct report_data *d, const char *json, size_t len, struct strbuf *scratch);
void rd_free(struct report_data *d);

/* The worst span: the longest run of samples (in time) where a finding of
 * the window's highest severity (warning or critical) stood. false: none. */
bool rd_worst_span(const struct report_data *d, size_t *ret_first, size_t *ret_last, int *ret_sev);
/* The highest severity of any finding at sample i (0 none). */
int rd_sev_at(const struct report_data *d, size_t i);

/* Pixel columns: samples [first[c], last[c]]. One a sample when they fit
 * in width; else cut by the recorder's compaction rule (rec_file_keep:
 * the first sample of each run, then one every keep intervals, keep such
 * that the window is about width columns), so a column never spans a
 * restart and its mean rate is the compacted sample's. */
struct rd_cols {
	size_t n;
	bool reduced; /* more samples than columns */
	size_t *first, *last;
};
int rd_columns(const struct report_data *d, size_t width, struct rd_cols *ret);
void rd_cols_free(struct rd_cols *c);

/* The min, interval-weighted mean and max of v over column c; false when
 * no sample of it has a value. */
bool rd_reduce(const struct report_data *d, const double *v, const struct rd_cols *cols, size_t c,
	       double *ret_min, double *ret_mean, double *ret_max);
/* Whether flag is set at any sample of column c. */
bool rd_any(const uint8_t *flag, const struct rd_cols *cols, size_t c);

/* "3 critical" words for a severity: "", "info", "warning", "critical" */
const char *rd_sev_name(int sev);

#endif
