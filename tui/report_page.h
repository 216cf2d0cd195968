/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The incident report's output (iotriage report, doc/report.md): the SVG
 * charts (report_svg.c), the HTML page around them and the one-page text
 * summary (report_html.c), all from report_data. Every number drawn is
 * also written as a data attribute, as the documents had it, so a test
 * compares the page with `replay --json`. Writes into a strbuf: no I/O.
 */
#ifndef IOTRIAGE_TUI_REPORT_PAGE_H
#define IOTRIAGE_TUI_REPORT_PAGE_H

#include <stdbool.h>

#include "report_data.h"
#include "strbuf.h"

/* Columns of the line charts and strips, and of the latency heat maps */
#define RS_WIDTH      720
#define RS_HEAT_WIDTH 240
/* Drawn at most (the busiest first; the page names the others) */
#define RS_DISKS_MAX 4
#define RS_CPUS_MAX  32
#define RS_MAPS_MAX  2

/* s as HTML text or an attribute's value: text_escape first (controls and
 * bytes that are not UTF-8 as \xHH), then & < > " ' as entities. */
void rs_esc(struct strbuf *sb, const char *s);
/* fmt with each "%s" replaced by the next argument (a string) escaped as
 * rs_esc does; every other byte of fmt as it is. */
void rs_escf(struct strbuf *sb, const char *fmt, ...);
/* Each of the n lines escaped (rs_esc), each followed by '\n'. */
void rs_lines(struct strbuf *sb, char *const *lines, size_t n);
/* A real time as "YYYY-MM-DD HH:MM:SS" (local time) */
void rs_time(char *buf, size_t size, int64_t t_ms);
/* A value as the data attributes carry it: %.15g (the document's decimal
 * back), "-" absent */
void rs_num(struct strbuf *sb, double v);

struct rs_series {
	const char *name; /* the document's key: data-series */
	const char *label;
	const char *color;
	const double *v;
};

struct rs_chart {
	const char *id;	   /* data-chart: "disk:sda:util" */
	const char *title; /* escaped here */
	const char *unit;
	double ymax; /* > 0: fixed (100 for %), else from the data */
	const struct rs_series *series;
	size_t nseries;
	const uint8_t *shade; /* spans to shade (saturated), NULL none */
	const char *shade_label;
};

void rs_line_chart(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		   const struct rs_chart *ch);
/* One strip a core (%irq + %soft), the hot spans marked; the busiest
 * RS_CPUS_MAX cores. */
void rs_cpu_strips(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c);
/* The latency heat map of a disk with histograms (time across, log2
 * buckets up, colour by count). */
void rs_latency_map(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		    const struct rd_disk *k);
/* One row a finding, coloured by severity; the headline changes below. */
void rs_timeline(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c);

/* The page, or --text's summary, of d (host and window in the header). */
int report_html(struct strbuf *sb, const struct report_data *d, const char *source);
int report_text(struct strbuf *sb, const struct report_data *d, const char *source);

/* The disks drawn into idx (RS_DISKS_MAX): those a disk_saturated finding
 * named first, then the busiest; their count. */
size_t rs_pick_disks(const struct report_data *d, size_t *idx);

#endif
