/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Prometheus exposition of one sample (encode_openmetrics.c): the raw
 * kernel counters as `_total` counters in base units, the gauges, and what
 * only iotriage has (findings, the hot core's share, the top IRQ lines).
 * Pure: rendered from a snapshot, its metrics and advice, no I/O.
 * doc/prometheus.md lists every family.
 */
#ifndef IOTRIAGE_ENCODE_OPENMETRICS_H
#define IOTRIAGE_ENCODE_OPENMETRICS_H

#include <stdbool.h>

#include "advise.h"
#include "metrics.h"
#include "snapshot.h"
#include "strbuf.h"

enum om_format {
	OM_PROMETHEUS,	/* text/plain; version=0.0.4 */
	OM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

/* IRQ lines exported with their rate (the cardinality cap): the busiest
 * this many by interrupts per second, summed over CPUs. */
#define OM_TOP_IRQS_DEFAULT 20
#define OM_TOP_IRQS_MAX	    1000

struct om_opts {
	enum om_format format;
	unsigned top_irqs; /* 0: OM_TOP_IRQS_DEFAULT */
	const char *host;  /* not a label: Prometheus adds instance; NULL */
};

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
