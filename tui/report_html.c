// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The incident report's page (one self-contained HTML file: inline CSS and
 * SVG, readable without script; a few lines of script show the values under
 * the pointer) and its one-page text summary (--text), both from
 * report_data. Every name is escaped (rs_esc). No I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_page.h"
#include "text.h"

static const char css[] =
    "body{font:14px/1.4 sans-serif;margin:16px;color:#222;max-width:900px}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:24px;border-bottom:1px solid #ccc}"
    "h3{font-size:14px;margin:12px 0 2px}"
    ".meta{color:#555}svg{display:block;margin:4px 0}"
    "svg text{font:10px sans-serif;fill:#333}svg .tt{font-weight:bold;font-size:11px}"
    ".plot{fill:#fafafa;stroke:#bbb}.line{fill:none;stroke-width:1.3}"
    ".band{stroke-width:1;opacity:.35}.sat{fill:#f6c3c3}.hot{fill:#000}"
    ".sev1{fill:#bbb}.sev2{fill:#f0c040}.sev3{fill:#d43030}.head{fill:#333}.ev.apply{fill:#1f5fbf}."
    "ev.undo{fill:#8f3fbf}"
    "table{border-collapse:collapse}td,th{text-align:left;padding:1px 8px 1px 0;"
    "vertical-align:top}pre{background:#f4f4f4;padding:4px;white-space:pre-wrap}"
    ".note{color:#555;font-style:italic}#hover{position:fixed;display:none;"
    "background:#fff;border:1px solid #888;padding:2px 4px;font-size:12px}";

/* Hover: the values of the column under the pointer, from the data
 * attributes (the page reads the same without it). */
static const char script[] =
    "(function(){var h=document.getElementById('hover');"
    "document.querySelectorAll('svg[data-t]').forEach(function(s){"
    "var t=s.dataset.t.split(' '),x0=+s.dataset.x0,w=+s.dataset.w;"
    "s.addEventListener('mousemove',function(e){"
    "var r=s.getBoundingClientRect(),x=e.clientX-r.left-x0,best=-1,bd=1e9;"
    "var c=Math.floor(x/w*t.length);if(c<0||c>=t.length){h.style.display='none';return;}"
    "var o=[new Date(+t[c]).toLocaleString()];"
    "s.querySelectorAll('g[data-series]').forEach(function(g){var d=g.dataset;"
    "o.push(d.series+' '+(d.v?d.v.split(' ')[c]:d.min.split(' ')[c]+'..'+"
    "d.max.split(' ')[c]+' mean '+d.mean.split(' ')[c]));});"
    "s.querySelectorAll('g[data-cpu]').forEach(function(g){"
    "o.push('cpu'+g.dataset.cpu+' '+g.dataset.max.split(' ')[c]+'%');});"
    "h.textContent=o.slice(0,12).join(' | ');h.style.display='block';"
    "h.style.left=(e.clientX+12)+'px';h.style.top=(e.clientY+12)+'px';});"
    "s.addEventListener('mouseleave',function(){h.style.display='none';});});})();";

/* The largest value of v over the window, and its sample; false: none */
static bool series_max(const struct report_data *d, const double *v, double *ret, size_t *ret_at)
{
	bool any = false;

	for (size_t i = 0; i < d->n; i++)
		if (!isnan(v[i]) && (!any || v[i] > *ret)) {
			*ret = v[i];
			*ret_at = i;
			any = true;
		}
	return any;
}

/* A disk's rank: one a finding judged saturated first, then by peak util */
static double disk_rank(const struct report_data *d, const struct rd_disk *k)
{
	for (size_t i = 0; i < d->n; i++)
		if (k->sat[i])
			return 1000 + k->max_util;
	return k->max_util;
}

size_t rs_pick_disks(const struct report_data *d, size_t *idx)
{
	double rank[RS_DISKS_MAX];
	size_t n = 0;

	for (size_t i = 0; i < d->ndisks; i++) {
		double r = disk_rank(d, &d->disks[i]);
		size_t j = n;

		if (!(d->disks[i].max_util > 0) && !d->disks[i].has_p99)
			continue; /* idle all the window */
		/* insertion, the first ranked first */
		while (j > 0 && rank[j - 1] < r) {
			if (j < RS_DISKS_MAX) {
				idx[j] = idx[j - 1];
				rank[j] = rank[j - 1];
			}
			j--;
		}
		if (j < RS_DISKS_MAX) {
			idx[j] = i;
			rank[j] = r;
		}
		if (n < RS_DISKS_MAX)
			n++;
	}
	return n;
}

static void page_head(struct strbuf *sb, const struct report_data *d, const char *source,
		      const struct rd_cols *c)
{
	char a[32], b[32];
	double secs = (double)(d->t_ms[d->n - 1] - d->t_ms[0]) / 1000.0;

	rs_time(a, sizeof(a), d->t_ms[0]);
	rs_time(b, sizeof(b), d->t_ms[d->n - 1]);
	sb_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>iotriage report: ");
	rs_esc(sb, d->host);
	sb_printf(sb, " %s</title>\n<style>%s</style></head>\n<body>\n<h1>Incident report: ", a,
		  css);
	rs_esc(sb, d->host[0] ? d->host : "(no host name)");
	sb_printf(sb, "</h1>\n<p class=\"meta\">%s to %s (local time), %.0f s, %zu samples, from ",
		  a, b, secs, d->n);
	rs_esc(sb, source);
	if (c->reduced)
		sb_printf(sb,
			  ". Reduced to %zu columns of %.1f s: the band is each column's "
			  "min..max (no peak dropped), the line its mean.",
			  c->n, secs / (double)c->n);
	else
		sb_puts(sb, ". One column a sample.");
	sb_puts(sb, "</p>\n");
}

/* A finding's row was a warning or worse somewhere in the samples f..l */
static bool row_in_span(const struct rd_row *r, size_t f, size_t l)
{
	for (size_t k = f; k <= l; k++)
		if (r->sev[k] >= 2)
			return true;
	return false;
}

static void worst_section(struct strbuf *sb, const struct report_data *d)
{
	size_t f, l;
	int sev;
	char a[32], b[32];

	sb_puts(sb, "<h2>The worst span</h2>\n");
	if (!d->has_advice) {
		sb_puts(sb, "<p class=\"note\">The documents carry no findings (a --core-only "
			    "recording): no judgement to show.</p>\n");
		return;
	}
	if (!rd_worst_span(d, &f, &l, &sev)) {
		sb_puts(sb, "<p>No warning or critical finding in the window.</p>\n");
		return;
	}
	rs_time(a, sizeof(a), d->t_ms[f]);
	rs_time(b, sizeof(b), d->t_ms[l]);
	sb_printf(sb,
		  "<p id=\"worst\" data-t=\"%lld\" data-t2=\"%lld\">%s from %s to %s (%.0f s)."
		  "</p>\n<h3>Culprits and victims</h3>\n<table><tr><th>finding</th><th>who</th>"
		  "<th>victim</th><th>culprit</th></tr>\n",
		  (long long)d->t_ms[f], (long long)d->t_ms[l], rd_sev_name(sev), a, b,
		  (double)(d->t_ms[l] - d->t_ms[f]) / 1000.0);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct rd_row *r = &d->rows[i];

		if (!row_in_span(r, f, l))
			continue;
		rs_escf(sb, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", r->id,
			r->who ? r->who : "", r->victim ? r->victim : "",
			r->culprit && r->culprit[0] ? r->culprit : "unknown");
	}
	sb_puts(sb, "</table>\n<h3>Victims</h3>\n");
	{
		size_t shown = 0;

		for (size_t i = 0; i < d->nvictims && shown < 10; i++) {
			const struct rd_victim *v = &d->victims[i];

			if (v->t_ms < d->t_ms[f] || v->t_ms > d->t_ms[l])
				continue;
			sb_puts(sb, shown ? ", " : "<p>Waiting on IO (io_delay%): ");
			rs_esc(sb, v->comm);
			sb_printf(sb, " pid %lld %.1f%%", (long long)v->pid, v->delay_pct);
			shown++;
		}
		if (shown)
			sb_puts(sb, "</p>\n");
		else
			sb_printf(sb,
				  "<p class=\"note\">The recording names no process that waited "
				  "on IO in this span (delay accounting: %s).</p>\n",
				  d->delay_accounting[0] ? d->delay_accounting : "unknown");
	}
}

static void suggestions_section(struct strbuf *sb, const struct report_data *d)
{
	sb_puts(sb, "<h2>Suggestions</h2>\n");
	if (!d->nsuggs)
		sb_puts(sb, "<p>None was offered in the window.</p>\n");
	for (size_t i = 0; i < d->nsuggs; i++) {
		const struct model_suggestion *s = &d->suggs[i].s;

		rs_escf(sb, "<h3>%s (%s, answers %s)</h3>\n<p>%s</p>\n<pre class=\"cmd\">", s->id,
			s->severity_name, s->finding, s->reason);
		rs_lines(sb, s->commands, s->ncommands);
		sb_puts(sb, "</pre>\n<p>Undo:</p><pre class=\"undo\">");
		rs_lines(sb, s->undo, s->nundo);
		sb_puts(sb, "</pre>\n");
	}
}

/* Every apply and undo through the daemon in the window, with who asked */
static void events_table(struct strbuf *sb, const struct report_data *d)
{
	if (!d->nevents) {
		sb_puts(sb, "<p class=\"note\" id=\"applies\">No apply or undo through the "
			    "daemon in the window (the samples say each one they saw; a change "
			    "made by hand shows only in the numbers after it).</p>\n");
		return;
	}
	sb_puts(sb, "<table class=\"events\" id=\"applies\"><tr><th>time</th><th>what</th>"
		    "<th>suggestion</th><th>by</th></tr>\n");
	for (size_t i = 0; i < d->nevents; i++) {
		const struct rd_event *e = &d->events[i];
		char t[32];

		rs_time(t, sizeof(t), d->t_ms[e->at]);
		sb_printf(sb, "<tr data-t=\"%lld\"><td>%s</td><td>%s</td><td>",
			  (long long)d->t_ms[e->at], t, e->kind);
		rs_escf(sb, "%s</td><td>%s</td></tr>\n", e->id[0] ? e->id : "(every one applied)",
			e->by);
	}
	sb_puts(sb, "</table>\n");
}

static void findings_section(struct strbuf *sb, const struct report_data *d,
			     const struct rd_cols *c)
{
	sb_puts(sb, "<h2>Findings</h2>\n");
	if (d->nrows)
		rs_timeline(sb, d, c);
	else
		sb_printf(sb, "<p>%s</p>\n",
			  d->has_advice ? "No finding in the window."
					: "The documents carry no findings (--core-only).");
	sb_puts(sb, "<table class=\"heads\"><tr><th>time</th><th>headline</th></tr>\n");
	for (size_t i = 0; i < d->nheads; i++) {
		char t[32];

		rs_time(t, sizeof(t), d->t_ms[d->heads[i].at]);
		sb_printf(sb, "<tr data-t=\"%lld\"><td>%s</td><td>",
			  (long long)d->t_ms[d->heads[i].at], t);
		rs_esc(sb, d->heads[i].text);
		sb_puts(sb, "</td></tr>\n");
	}
	sb_puts(sb, "</table>\n");
	events_table(sb, d);
}

static void disk_section(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
			 const struct rd_cols *hc, const struct rd_disk *k, bool map)
{
	struct rs_series util[] = { { "util", "%util", "#1f5fbf", k->v[RD_UTIL] } };
	struct rs_series aqu[] = { { "aqu-sz", "aqu-sz", "#7a3fb0", k->v[RD_AQU] } };
	struct rs_series aw[] = {
		{ "r_await", "r_await", "#1f8f3f", k->v[RD_RAWAIT] },
		{ "w_await", "w_await", "#c06010", k->v[RD_WAWAIT] },
		{ "f_await", "f_await", "#777", k->v[RD_FAWAIT] },
		{ "r_p99", "read p99", "#0b4f1f", k->v[RD_RP99] },
		{ "w_p99", "write p99", "#803000", k->v[RD_WP99] },
	};
	char id[3][96];
	struct rs_chart ch[3] = {
		{ id[0], "%util (shaded: disk saturated finding)", "%", 100, util, 1, k->sat,
		  "disk_saturated" },
		{ id[1], "aqu-sz (average queue size)", "", 0, aqu, 1, k->sat, "disk_saturated" },
		{ id[2], k->has_p99 ? "await, ms (p99: the block probe's)" : "await, ms", "ms", 0,
		  aw, k->has_p99 ? 5 : 3, NULL, NULL },
	};

	snprintf(id[0], sizeof(id[0]), "disk:%s:util", k->name);
	snprintf(id[1], sizeof(id[1]), "disk:%s:aqu-sz", k->name);
	snprintf(id[2], sizeof(id[2]), "disk:%s:await", k->name);
	sb_puts(sb, "<h3 class=\"disk\">");
	rs_esc(sb, k->name);
	sb_puts(sb, "</h3>\n");
	for (int j = 0; j < 3; j++)
		rs_line_chart(sb, d, c, &ch[j]);
	if (map && k->hist)
		rs_latency_map(sb, d, hc, k);
}

static void disks_section(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c,
			  const struct rd_cols *hc)
{
	size_t idx[RS_DISKS_MAX], n = rs_pick_disks(d, idx), maps = 0;

	sb_puts(sb, "<h2>Disks</h2>\n");
	if (!n)
		sb_puts(sb, "<p>No disk had rates in the window.</p>\n");
	for (size_t i = 0; i < n; i++) {
		const struct rd_disk *k = &d->disks[idx[i]];

		disk_section(sb, d, c, hc, k, k->hist && maps < RS_MAPS_MAX);
		maps += k->hist != NULL;
	}
	if (d->ndisks > n) {
		sb_printf(sb, "<p class=\"note\">%zu more disks not drawn (idle or less busy): ",
			  d->ndisks - n);
		for (size_t i = 0, shown = 0; i < d->ndisks; i++) {
			bool drawn = false;

			for (size_t j = 0; j < n; j++)
				drawn |= idx[j] == i;
			if (drawn)
				continue;
			sb_puts(sb, shown++ ? ", " : "");
			rs_esc(sb, d->disks[i].name);
		}
		sb_puts(sb, ".</p>\n");
	}
	if (!d->has_trace)
		sb_puts(sb, "<p class=\"note\">No latency histograms: the recording has no trace "
			    "(iotriaged --trace).</p>\n");
}

static void rest_sections(struct strbuf *sb, const struct report_data *d, const struct rd_cols *c)
{
	struct rs_series psi[RD__PSI] = {
		{ "cpu.some", "cpu some", "#c06010", d->psi[RD_PSI_CPU_SOME] },
		{ "io.some", "io some", "#1f5fbf", d->psi[RD_PSI_IO_SOME] },
		{ "io.full", "io full", "#d43030", d->psi[RD_PSI_IO_FULL] },
	};
	struct rs_chart pc = {
		"pressure", "Pressure stall, % of the interval", "%", 0, psi, RD__PSI, NULL, NULL
	};

	sb_puts(sb, "<h2>Cores</h2>\n");
	if (d->ncpus)
		rs_cpu_strips(sb, d, c);
	else
		sb_puts(sb, "<p>No per-core rates in the window.</p>\n");
	if (d->ncpus > RS_CPUS_MAX)
		sb_printf(sb, "<p class=\"note\">The %d busiest of %zu cores.</p>\n", RS_CPUS_MAX,
			  d->ncpus);
	sb_puts(sb, "<h2>Pressure</h2>\n");
	if (d->has_psi)
		rs_line_chart(sb, d, c, &pc);
	else
		sb_puts(sb, "<p class=\"note\">No pressure in the documents (no PSI, or a "
			    "recording without the optional sections).</p>\n");
}

int report_html(struct strbuf *sb, const struct report_data *d, const char *source)
{
	struct rd_cols c = { 0 }, hc = { 0 };

	if (!d->n)
		return -ENODATA;
	if (rd_columns(d, RS_WIDTH, &c) < 0 || rd_columns(d, RS_HEAT_WIDTH, &hc) < 0) {
		rd_cols_free(&c);
		return -ENOMEM;
	}
	page_head(sb, d, source, &c);
	worst_section(sb, d);
	suggestions_section(sb, d);
	findings_section(sb, d, &c);
	disks_section(sb, d, &c, &hc);
	rest_sections(sb, d, &c);
	sb_printf(sb, "<div id=\"hover\"></div>\n<script>%s</script>\n</body></html>\n", script);
	rd_cols_free(&c);
	rd_cols_free(&hc);
	return sb->err;
}

/* ---- --text ---- */

static void text_str(struct strbuf *sb, const char *s)
{
	text_escape(sb, s, strlen(s), 0);
}

static void text_series(struct strbuf *sb, const struct report_data *d, const char *name,
			const double *v, const char *unit)
{
	struct rd_cols all = { .n = 1, .first = (size_t[]){ 0 }, .last = (size_t[]){ d->n - 1 } };
	double mx = 0, mn, mean, m2;
	size_t at = 0;
	char t[32];

	if (!series_max(d, v, &mx, &at) || !rd_reduce(d, v, &all, 0, &mn, &mean, &m2))
		return;
	rs_time(t, sizeof(t), d->t_ms[at]);
	sb_printf(sb, "  %-9s max %.2f%s at %s, mean %.2f%s\n", name, mx, unit, t + 11, mean, unit);
}

static void text_worst(struct strbuf *sb, const struct report_data *d)
{
	size_t f, l;
	int sev;
	char a[32], b[32];

	if (!rd_worst_span(d, &f, &l, &sev)) {
		sb_puts(sb, d->has_advice ? "No warning or critical finding in the window.\n"
					  : "No findings in the documents (--core-only).\n");
		return;
	}
	rs_time(a, sizeof(a), d->t_ms[f]);
	rs_time(b, sizeof(b), d->t_ms[l]);
	sb_printf(sb, "Worst span: %s from %s to %s (%.0f s)\n", rd_sev_name(sev), a, b + 11,
		  (double)(d->t_ms[l] - d->t_ms[f]) / 1000.0);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct rd_row *r = &d->rows[i];

		if (!row_in_span(r, f, l))
			continue;
		sb_puts(sb, "  ");
		text_str(sb, r->id);
		sb_puts(sb, ": ");
		text_str(sb, r->reason ? r->reason : "");
		sb_puts(sb, "\n    culprit: ");
		text_str(sb, r->culprit && r->culprit[0] ? r->culprit : "unknown");
		if (r->victim && r->victim[0]) {
			sb_puts(sb, "\n    victim: ");
			text_str(sb, r->victim);
		}
		sb_putc(sb, '\n');
	}
}

int report_text(struct strbuf *sb, const struct report_data *d, const char *source)
{
	size_t idx[RS_DISKS_MAX], n;
	char a[32], b[32];

	if (!d->n)
		return -ENODATA;
	rs_time(a, sizeof(a), d->t_ms[0]);
	rs_time(b, sizeof(b), d->t_ms[d->n - 1]);
	sb_puts(sb, "iotriage report: ");
	text_str(sb, d->host);
	sb_printf(sb, ", %s to %s, %zu samples, from ", a, b, d->n);
	text_str(sb, source);
	sb_puts(sb, "\n\n");
	text_worst(sb, d);
	sb_puts(sb, "\nHeadline changes:\n");
	for (size_t i = 0; i < d->nheads; i++) {
		rs_time(a, sizeof(a), d->t_ms[d->heads[i].at]);
		sb_printf(sb, "  %s  ", a + 11);
		text_str(sb, d->heads[i].text);
		sb_putc(sb, '\n');
	}
	n = rs_pick_disks(d, idx);
	for (size_t i = 0; i < n; i++) {
		const struct rd_disk *k = &d->disks[idx[i]];

		sb_puts(sb, "\nDisk ");
		text_str(sb, k->name);
		sb_puts(sb, ":\n");
		for (int j = 0; j < RD__DKEYS; j++)
			text_series(sb, d, rd_dkey_names[j], k->v[j],
				    j == RD_UTIL  ? "%"
				    : j == RD_AQU ? ""
						  : " ms");
	}
	sb_puts(sb, "\nCores (%irq + %soft):\n");
	for (size_t i = 0; i < d->ncpus && i < RS_CPUS_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "cpu%d", d->cpus[i].cpu);
		text_series(sb, d, name, d->cpus[i].v, "%");
	}
	sb_puts(sb, "\nPressure (stall % of the interval):\n");
	for (int j = 0; j < RD__PSI; j++)
		text_series(sb, d, rd_psi_names[j], d->psi[j], "%");
	sb_puts(sb, "\nSuggestions:\n");
	for (size_t i = 0; i < d->nsuggs; i++) {
		sb_puts(sb, "  ");
		text_str(sb, d->suggs[i].s.id);
		sb_puts(sb, ":\n");
		for (size_t k = 0; k < d->suggs[i].s.ncommands; k++) {
			sb_puts(sb, "    ");
			text_str(sb, d->suggs[i].s.commands[k]);
			sb_putc(sb, '\n');
		}
	}
	if (!d->nsuggs)
		sb_puts(sb, "  none offered in the window\n");
	sb_puts(sb, "\nApplied and undone through the daemon:\n");
	for (size_t i = 0; i < d->nevents; i++) {
		char t[32];

		rs_time(t, sizeof(t), d->t_ms[d->events[i].at]);
		sb_printf(sb, "  %s %s ", t, d->events[i].kind);
		text_str(sb, d->events[i].id[0] ? d->events[i].id : "(every one applied)");
		sb_puts(sb, " by ");
		text_str(sb, d->events[i].by);
		sb_putc(sb, '\n');
	}
	if (!d->nevents)
		sb_puts(sb, "  none in the window\n");
	return sb->err;
}
