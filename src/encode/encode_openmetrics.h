/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus exposition of one sample (encode_openmetrics.c): the raw
 * kernel counters as `_total` counters in base units, the gauges, and what
 * only iotriage has (findings, the hot core's share, every IRQ line).
 * Pure: rendered from a snapshot, its metrics and advice, no I/O.
 * doc/prometheus.md lists every family.
 */
#ifndef IOTRIAGE_ENCODE_OPENMETRICS_H
#define IOTRIAGE_ENCODE_OPENMETRICS_H

#include <regex.h>
#include <stdbool.h>

#include "advise.h"
#include "metrics.h"
#include "metrics_trace.h"
#include "snapshot.h"
#include "strbuf.h"

enum om_format {
	OM_PROMETHEUS,	/* text/plain; version=0.0.4 */
	OM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* The range the old top-N option took (iotriaged --metrics-top-irqs,
 * iotriage metrics --top-irqs): still accepted, without effect, since
 * every IRQ line has its counter. */
#define OM_TOP_IRQS_MAX 1000

/* The devices left out of the disk families unless told otherwise:
 * node_exporter's diskstats default without its partitions (RAM disks,
 * zram, loop and floppy devices come and go and stack over real disks). */
#define OM_DEVICE_EXCLUDE_DEFAULT "^(z?ram|loop|fd)[0-9]+$"

struct om_opts {
	enum om_format format;
	const regex_t *device_exclude; /* from om_exclude_compile(); NULL: every device */
	const char *host;	       /* not a label: Prometheus adds instance; NULL */
	/* --trace: the stage's read of this sample (its counters are cumulative
	 * since it was loaded) and the interval's metrics (the probes' CPU
	 * share); NULL: no trace families */
	const struct trace_raw *trace;
	const struct trace_metrics *trace_m;
};

/*
 * Compiles a device exclusion pattern (POSIX extended regex, matched
 * against the diskstats name) into *ret_re, to be freed with
 * om_exclude_free(); "" gives NULL (exclude nothing). -EINVAL when the
 * pattern does not compile, -ENOMEM.
 */
int om_exclude_compile(const char *pattern, regex_t **ret_re);
void om_exclude_free(regex_t *re);

/* The Content-Type of a format, for the HTTP reply. */
const char *om_content_type(enum om_format f);

/*
 * Chooses the format from an HTTP Accept header (NULL: none): OpenMetrics
 * when the scraper lists application/openmetrics-text with a q above 0,
 * else Prometheus text 0.0.4, as client_golang negotiates.
 */
enum om_format om_negotiate(const char *accept);

/*
 * Appends the exposition of cur (m and a may be NULL: the first sample has
 * no rates and no findings; their families are then left out). Every
 * family's samples are contiguous; label values are escaped and made valid
 * UTF-8 (a byte that is not is written as U+FFFD). Ends with "# EOF" in
 * OpenMetrics. Returns 0 or -ENOMEM (the buffer's contents then partial).
 */
int om_render(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m,
	      const struct advice *a, const struct om_opts *o);

#endif
