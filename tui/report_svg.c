// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The incident report's charts as inline SVG: line charts on one time axis
 * (each column's min..max as a band and its mean as the line when the
 * window is reduced), the cores' heat strips, the latency heat maps and
 * the findings' timeline. Every value drawn is written beside it as a data
 * attribute, as the document had it (doc/report.md says which). Computes
 * nothing but positions and colours.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_page.h"
#include "text.h"

/* Margins around a plot: the y labels left, the title above, times below */
#define ML 120
#define MR 12
#define MT 20
#define MB 18
#define PH 90 /* a line chart's plot height */
#define SH 10 /* a core's strip, a finding's row */
#define BH 7  /* a latency bucket's row */

void rs_esc(struct strbuf *sb, const char *s)
{
	struct strbuf t = { 0 };

	text_escape(&t, s, strlen(s), 0);
	for (size_t i = 0; i < t.len; i++) {
		switch (t.buf[i]) {
		case '&':
			sb_puts(sb, "&amp;");
			break;
		case '<':
			sb_puts(sb, "&lt;");
			break;
		case '>':
			sb_puts(sb, "&gt;");
			break;
		case '"':
			sb_puts(sb, "&quot;");
			break;
		case '\'':
			sb_puts(sb, "&#39;");
			break;
		default:
			sb_putc(sb, t.buf[i]);
		}
	}
	if (t.err)
		sb->err = t.err;
	sb_free(&t);
}

void rs_escf(struct strbuf *sb, const char *fmt, ...)
{
	const char *at;
	va_list ap;

	va_start(ap, fmt);
	while ((at = strstr(fmt, "%s"))) {
		sb_append(sb, fmt, (size_t)(at - fmt));
		rs_esc(sb, va_arg(ap, const char *));
		fmt = at + 2;
	}
	va_end(ap);
	sb_puts(sb, fmt);
}

void rs_lines(struct strbuf *sb, char *const *lines, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		rs_esc(sb, lines[k]);
		sb_putc(sb, '\n');
	}
}

void rs_time(char *buf, size_t size, int64_t t_ms)
{
	time_t t = (time_t)(t_ms / 1000);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

void rs_num(struct strbuf *sb, double v)
{
	if (isnan(v))
		sb_putc(sb, '-');
	else
		sb_printf(sb, "%.15g", v);
}

/* 1, 2 or 5 times a power of ten, at least v */
static double nice_max(double v)
{
	double p;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

/* The x of column c's left edge and its width, in the plot */
static double col_x(const struct report_data *d, const struct rd_cols *c, size_t col, double *ret_w)
{
	double span = (double)(d->t_ms[d->n - 1] - d->t_ms[0]), w = RS_WIDTH - 4, x;

	if (c->n < 2 || span <= 0) {
		*ret_w = (double)RS_WIDTH / (double)(c->n ? c->n : 1);
		return (double)col * *ret_w;
	}
	/* by time: a column starts at its first sample, ends at the next's */
	x = (double)(d->t_ms[c->first[col]] - d->t_ms[0]) / span * w;
	if (col + 1 < c->n)
		*ret_w = (double)(d->t_ms[c->first[col + 1]] - d->t_ms[c->first[col]]) / span * w;
	else
		*ret_w =
		    c->reduced
			? (double)(d->t_ms[c->last[col]] - d->t_ms[c->first[col]]) / span * w + 1
			: 4;
	return x;
}

/* data-t and data-t2: each column's first and last sample's time */
static void svg_times(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c)
{
	for (int pass = 0; pass < 2; pass++) {
		sb_puts(sb, pass ? " data-t2=\"" : " data-t=\"");
		for (size_t k = 0; k < c->n; k++) {
			if (k)
				sb_putc(sb, ' ');
			if (c->first[k] > c->last[k])
				sb_putc(sb, '-');
			else
				sb_i64(sb, d->t_ms[pass ? c->last[k] : c->first[k]]);
		}
		sb_putc(sb, '"');
	}
}

static void svg_open(struct strbuf *sb, const char *cls, const char *id, double h,
		     const struct report_data *d, const struct rd_cols *c)
{
	sb_printf(sb, "<svg class=\"%s\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\"", cls,
		  ML + RS_WIDTH + MR, h, ML + RS_WIDTH + MR, h);
	sb_puts(sb, " data-chart=\"");
	rs_esc(sb, id);
	sb_putc(sb, '"');
	sb_printf(sb, " data-x0=\"%d\" data-w=\"%d\"", ML, RS_WIDTH);
	svg_times(sb, d, c);
	sb_puts(sb, " role=\"img\">\n");
}

/* The times under a plot at y: start, middle, end */
static void svg_axis(struct strbuf *sb, const struct report_data *d, double y)
{
	char a[32], b[32], e[32];

	rs_time(a, sizeof(a), d->t_ms[0]);
	rs_time(b, sizeof(b), d->t_ms[0] + (d->t_ms[d->n - 1] - d->t_ms[0]) / 2);
	rs_time(e, sizeof(e), d->t_ms[d->n - 1]);
	sb_printf(sb,
		  "<text class=\"ax\" x=\"%d\" y=\"%.0f\">%s</text>"
		  "<text class=\"ax\" x=\"%d\" y=\"%.0f\" text-anchor=\"middle\">%s</text>"
		  "<text class=\"ax\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\">%s</text>\n",
		  ML, y, a, ML + RS_WIDTH / 2, y, b, ML + RS_WIDTH, y, e);
}

/* Shaded rects over the runs of columns where flag is set: class cls,
 * from y, h high, each with its first and last sample's time. */
static void svg_spans(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		      const uint8_t *flag, const char *cls, double y, double h)
{
	for (size_t k = 0; k < c->n; k++) {
		size_t e = k;
		double w, x0, x1, w1;

		if (!rd_any(flag, c, k))
			continue;
		while (e + 1 < c->n && rd_any(flag, c, e + 1))
			e++;
		x0 = col_x(d, c, k, &w);
		x1 = col_x(d, c, e, &w1) + w1;
		sb_printf(sb,
			  "<rect class=\"%s\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\" "
			  "data-t=\"%lld\" data-t2=\"%lld\"/>\n",
			  cls, ML + x0, y, x1 - x0 < 1 ? 1 : x1 - x0, h,
			  (long long)d->t_ms[c->first[k]], (long long)d->t_ms[c->last[e]]);
		k = e;
	}
}

/* One series: its band (reduced), its line and its values as data */
static void svg_series(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		       const struct rs_series *s, double ymax)
{
	struct strbuf band = { 0 }, line = { 0 }, dv[3] = { { 0 } };
	bool pen = false;

	for (size_t k = 0; k < c->n; k++) {
		double mn, mean, mx, w, x = col_x(d, c, k, &w) + w / 2 + ML;
		bool have = rd_reduce(d, s->v, c, k, &mn, &mean, &mx);

		for (int j = 0; j < (c->reduced ? 3 : 1); j++) {
			if (k)
				sb_putc(&dv[j], ' ');
			rs_num(&dv[j], !have ? NAN : j == 0 ? mn : j == 1 ? mean : mx);
		}
		if (!have) {
			pen = false;
			continue;
		}
		if (c->reduced && mx > mn)
			sb_printf(&band, "M%.1f %.1fV%.1f", x, MT + PH - mx / ymax * PH,
				  MT + PH - mn / ymax * PH);
		sb_printf(&line, "%c%.1f %.1f", pen ? 'L' : 'M', x, MT + PH - mean / ymax * PH);
		pen = true;
	}
	sb_puts(sb, "<g class=\"series\" data-series=\"");
	rs_esc(sb, s->name);
	sb_putc(sb, '"');
	if (c->reduced)
		sb_printf(sb, " data-min=\"%s\" data-mean=\"%s\" data-max=\"%s\">", sb_cstr(&dv[0]),
			  sb_cstr(&dv[1]), sb_cstr(&dv[2]));
	else
		sb_printf(sb, " data-v=\"%s\">", sb_cstr(&dv[0]));
	if (band.len)
		sb_printf(sb, "<path class=\"band\" stroke=\"%s\" d=\"%s\"/>", s->color, band.buf);
	if (line.len)
		sb_printf(sb, "<path class=\"line\" stroke=\"%s\" d=\"%s\"/>", s->color, line.buf);
	sb_puts(sb, "</g>\n");
	if (band.err || line.err || dv[0].err || dv[1].err || dv[2].err)
		sb->err = -ENOMEM;
	sb_free(&band);
	sb_free(&line);
	for (int j = 0; j < 3; j++)
		sb_free(&dv[j]);
}

void rs_line_chart(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		   const struct rs_chart *ch)
{
	double ymax = ch->ymax, lx = ML + 4;

	for (size_t j = 0; ymax <= 0 && j < ch->nseries; j++)
		for (size_t k = 0; k < c->n; k++) {
			double mn, mean, mx;

			if (rd_reduce(d, ch->series[j].v, c, k, &mn, &mean, &mx) && mx > -ymax)
				ymax = -mx; /* the largest so far, negated until the end */
		}
	ymax = ch->ymax > 0 ? ch->ymax : nice_max(-ymax);
	svg_open(sb, "chart", ch->id, MT + PH + MB, d, c);
	sb_puts(sb, "<text class=\"tt\" x=\"0\" y=\"13\">");
	rs_esc(sb, ch->title);
	sb_puts(sb, "</text>");
	for (size_t j = 0; j < ch->nseries; j++) {
		sb_printf(sb, "<text class=\"lg\" x=\"%.0f\" y=\"13\" fill=\"%s\">", lx + 180,
			  ch->series[j].color);
		rs_esc(sb, ch->series[j].label);
		sb_puts(sb, "</text>");
		lx += 8 + 7 * (double)strlen(ch->series[j].label);
	}
	sb_printf(sb,
		  "\n<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
		  "<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%g %s</text>"
		  "<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
		  ML, MT, RS_WIDTH, PH, ML - 4, MT + 9, ymax, ch->unit, ML - 4, MT + PH);
	if (ch->shade) {
		sb_puts(sb, "<g class=\"spans\" data-label=\"");
		rs_esc(sb, ch->shade_label ? ch->shade_label : "");
		sb_puts(sb, "\">\n");
		svg_spans(sb, d, c, ch->shade, "sat", MT, PH);
		sb_puts(sb, "</g>\n");
	}
	for (size_t j = 0; j < ch->nseries; j++)
		svg_series(sb, d, c, &ch->series[j], ymax);
	svg_axis(sb, d, MT + PH + 14);
	sb_puts(sb, "</svg>\n");
}

/* Yellow to dark red for 0 < f <= 1 */
static void heat_color(char *buf, size_t size, double f)
{
	int r, g, b;

	f = f < 0 ? 0 : f > 1 ? 1 : f;
	r = (int)(255 - 80 * f);
	g = (int)(230 - 210 * f);
	b = (int)(120 - 110 * f);
	snprintf(buf, size, "#%02x%02x%02x", r, g, b);
}

static int cmp_cpu_max(const void *a, const void *b)
{
	const struct rd_cpu *x = *(const struct rd_cpu *const *)a;
	const struct rd_cpu *y = *(const struct rd_cpu *const *)b;

	if (x->max != y->max)
		return x->max < y->max ? 1 : -1;
	return x->cpu - y->cpu;
}

static void cpu_strip(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		      const struct rd_cpu *cpu, double y)
{
	sb_printf(sb, "<g class=\"strip\" data-cpu=\"%d\" data-max=\"", cpu->cpu);
	for (size_t k = 0; k < c->n; k++) {
		double mn, mean, mx;

		if (k)
			sb_putc(sb, ' ');
		rs_num(sb, rd_reduce(d, cpu->v, c, k, &mn, &mean, &mx) ? mx : NAN);
	}
	sb_printf(sb, "\"><text class=\"ax\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\">cpu%d</text>",
		  ML - 4, y + SH - 1, cpu->cpu);
	for (size_t k = 0; k < c->n; k++) {
		double mn, mean, mx, w, x;
		char col[8];
		size_t e = k;
		int lvl;

		if (!rd_reduce(d, cpu->v, c, k, &mn, &mean, &mx) || mx < 1)
			continue;
		lvl = (int)(mx / 10); /* one colour a tenth: runs of one merged */
		while (e + 1 < c->n && rd_reduce(d, cpu->v, c, e + 1, &mn, &mean, &mx) && mx >= 1 &&
		       (int)(mx / 10) == lvl)
			e++;
		x = col_x(d, c, k, &w);
		heat_color(col, sizeof(col), (lvl + 1) / 10.0);
		sb_printf(sb,
			  "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			  ML + x, y, col_x(d, c, e, &w) + w - x, SH - 1, col);
		k = e;
	}
	svg_spans(sb, d, c, cpu->hot, "hot", y - 1, 2);
	sb_puts(sb, "</g>\n");
}

void rs_cpu_strips(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c)
{
	const struct rd_cpu **v = calloc(d->ncpus ? d->ncpus : 1, sizeof(*v));
	size_t n = d->ncpus < RS_CPUS_MAX ? d->ncpus : RS_CPUS_MAX;

	if (!v) {
		sb->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < d->ncpus; i++)
		v[i] = &d->cpus[i];
	qsort(v, d->ncpus, sizeof(*v), cmp_cpu_max);
	svg_open(sb, "strips", "cpus:irq+soft", MT + (double)n * SH + MB + 4, d, c);
	sb_puts(sb, "<text class=\"tt\" x=\"0\" y=\"13\">%irq + %soft per core (darker: more; "
		    "black bar above: hot core finding)</text>\n");
	for (size_t i = 0; i < n; i++)
		cpu_strip(sb, d, c, v[i], MT + 2 + (double)i * SH);
	svg_axis(sb, d, MT + 4 + (double)n * SH + 12);
	sb_puts(sb, "</svg>\n");
	free(v);
}

/* The counts of bucket b over column k */
static uint64_t hist_sum(const struct rd_disk *k, const struct rd_cols *c, size_t col, int b)
{
	uint64_t s = 0;

	for (size_t i = c->first[col]; i <= c->last[col] && c->first[col] <= c->last[col]; i++)
		s += k->hist[i * RD_HIST_BUCKETS + b];
	return s;
}

static void bucket_label(char *buf, size_t size, int b)
{
	uint64_t us = (uint64_t)1 << b;

	if (us >= 1000000)
		snprintf(buf, size, "%g s", (double)us / 1e6);
	else if (us >= 1000)
		snprintf(buf, size, "%g ms", (double)us / 1e3);
	else
		snprintf(buf, size, "%llu us", (unsigned long long)us);
}

void rs_latency_map(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
		    const struct rd_disk *k)
{
	int lo = RD_HIST_BUCKETS, hi = -1;
	uint64_t top = 0;
	char id[96], lab[16];

	for (size_t col = 0; col < c->n; col++)
		for (int b = 0; b < RD_HIST_BUCKETS; b++) {
			uint64_t s = hist_sum(k, c, col, b);

			if (!s)
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
			top = s > top ? s : top;
		}
	if (hi < 0)
		return;
	snprintf(id, sizeof(id), "lat:%s", k->name);
	svg_open(sb, "heat", id, MT + (double)(hi - lo + 1) * BH + MB + 4, d, c);
	sb_puts(sb, "<text class=\"tt\" x=\"0\" y=\"13\">");
	rs_esc(sb, k->name);
	sb_puts(sb, ": device latency (issue to complete), IOs per log2 bucket "
		    "(darker: more)</text>\n");
	for (int b = lo; b <= hi; b++) {
		double y = MT + 2 + (double)(hi - b) * BH;

		bucket_label(lab, sizeof(lab), b);
		if ((b - lo) % 3 == 0)
			sb_printf(sb,
				  "<text class=\"ax\" x=\"%d\" y=\"%.0f\" "
				  "text-anchor=\"end\">%s</text>",
				  ML - 4, y + BH, lab);
		for (size_t col = 0; col < c->n; col++) {
			uint64_t s = hist_sum(k, c, col, b);
			double w, x = col_x(d, c, col, &w), f;
			int shade;

			if (!s)
				continue;
			f = log2((double)s + 1) / log2((double)top + 1);
			shade = (int)(225 - 200 * f);
			sb_printf(sb,
				  "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" "
				  "fill=\"rgb(%d,%d,255)\" data-c=\"%zu\" data-b=\"%d\" "
				  "data-n=\"%llu\"/>",
				  ML + x, y, w < 1 ? 1 : w + 0.4, BH, shade, shade, col, b,
				  (unsigned long long)s);
		}
		sb_putc(sb, '\n');
	}
	svg_axis(sb, d, MT + 4 + (double)(hi - lo + 1) * BH + 12);
	sb_puts(sb, "</svg>\n");
}

static int col_sev(const struct rd_row *r, const struct rd_cols *c, size_t col)
{
	int s = 0;

	for (size_t i = c->first[col]; i <= c->last[col] && c->first[col] <= c->last[col]; i++)
		s = r->sev[i] > s ? r->sev[i] : s;
	return s;
}

static void timeline_row(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
			 const struct rd_row *r, double y)
{
	sb_puts(sb, "<g class=\"finding\" data-id=\"");
	rs_esc(sb, r->id);
	sb_puts(sb, "\" data-sev=\"");
	for (size_t k = 0; k < c->n; k++)
		sb_printf(sb, k ? " %d" : "%d", col_sev(r, c, k));
	sb_printf(sb, "\"><text class=\"ax\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", ML - 4,
		  y + SH - 1);
	rs_esc(sb, r->subject);
	sb_puts(sb, " ");
	rs_esc(sb, r->kind);
	sb_puts(sb, "</text>");
	for (size_t k = 0; k < c->n; k++) {
		int s = col_sev(r, c, k);
		size_t e = k;
		double w, x;

		if (!s)
			continue;
		while (e + 1 < c->n && col_sev(r, c, e + 1) == s)
			e++;
		x = col_x(d, c, k, &w);
		sb_printf(sb,
			  "<rect class=\"sev%d\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
			  "height=\"%d\" data-t=\"%lld\" data-t2=\"%lld\"/>",
			  s, ML + x, y, col_x(d, c, e, &w) + w - x, SH - 1,
			  (long long)d->t_ms[c->first[k]], (long long)d->t_ms[c->last[e]]);
		k = e;
	}
	sb_puts(sb, "</g>\n");
}

/* Each apply (blue) and undo (purple) through the daemon: a line across
 * the findings at its sample's column, its id and who asked as data. */
static void timeline_events(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
			    double y, double h)
{
	for (size_t i = 0; i < d->nevents; i++) {
		const struct rd_event *e = &d->events[i];
		double w, x = 0;

		for (size_t k = 0; k < c->n; k++)
			if (c->first[k] <= c->last[k] && c->last[k] >= e->at) {
				x = col_x(d, c, k, &w);
				break;
			}
		sb_printf(sb,
			  "<rect class=\"ev %s\" x=\"%.1f\" y=\"%.0f\" width=\"2\" height=\"%.0f\" "
			  "data-t=\"%lld\" data-kind=\"%s\" data-id=\"",
			  e->kind, ML + x, y, h, (long long)d->t_ms[e->at], e->kind);
		rs_escf(sb, "%s\" data-by=\"%s\"><title>%s %s by %s</title></rect>\n", e->id, e->by,
			e->kind, e->id[0] ? e->id : "(all)", e->by);
	}
}

void rs_timeline(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c)
{
	double h = MT + 14 + (double)d->nrows * SH + MB + 4;

	svg_open(sb, "timeline", "findings", h, d, c);
	sb_puts(sb, "<text class=\"tt\" x=\"0\" y=\"13\">Findings (yellow warning, red "
		    "critical, grey info; ticks: the headline changed; blue lines: apply, "
		    "purple: undo)</text>\n");
	for (size_t i = 0; i < d->nheads; i++) {
		double w, x = 0;

		/* the column of the change */
		for (size_t k = 0; k < c->n; k++)
			if (c->first[k] <= c->last[k] && c->last[k] >= d->heads[i].at) {
				x = col_x(d, c, k, &w);
				break;
			}
		sb_printf(sb,
			  "<rect class=\"head\" x=\"%.1f\" y=\"%d\" width=\"1.5\" height=\"10\" "
			  "data-t=\"%lld\"/>",
			  ML + x, MT, (long long)d->t_ms[d->heads[i].at]);
	}
	sb_putc(sb, '\n');
	for (size_t i = 0; i < d->nrows; i++)
		timeline_row(sb, d, c, &d->rows[i], MT + 14 + (double)i * SH);
	timeline_events(sb, d, c, MT, 14 + (double)d->nrows * SH);
	svg_axis(sb, d, MT + 18 + (double)d->nrows * SH + 12);
	sb_puts(sb, "</svg>\n");
}
