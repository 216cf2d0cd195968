// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The header's turbostat and pressure/writeback lines (and the tracing
 * stage's state), from the model's turbostat, pressure, writeback and trace
 * sections. A section the sample lacks is said to be unavailable, with its
 * reason, never drawn as zeros. Draws the model only.
 */
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "str.h"
#include "ui.h"

/* kB (1024 bytes) as "4 kB", "77 MB", "2.3 GB". */
static void fmt_kb(char *buf, size_t size, uint64_t kb)
{
	if (kb < 10 * 1024)
		snprintf(buf, size, "%llu kB", (unsigned long long)kb);
	else if (kb < 10 * 1024 * 1024)
		snprintf(buf, size, "%.0f MB", (double)kb / 1024.0);
	else
		snprintf(buf, size, "%.1f GB", (double)kb / (1024.0 * 1024.0));
}

/* ---- turbostat ---- */

/* "turbostat: PkgWatt 106.40 W  RAMWatt 35.77 W  PkgTmp 53°C  CoreTmp 52°C",
 * or "turbostat: unavailable (why)". */
static void turbo_line(const struct ui *ui, bool brief, char *buf, size_t size)
{
	const struct model_sections *x = &ui->model.sections;
	const struct model_turbo *t = &x->turbo;
	const char *deg = ui->utf8 ? "°C" : " C";
	char why[MODEL_SECTIONS_REASON_MAX];
	bool cpu_cols = t->any_busy || t->any_bzy;

	model_sections_turbo_why(x, ui->model.has_rates, why, sizeof(why));
	/* brief: the sources' reason is on the unavailable line; a section
	 * the sample does not carry says why here */
	if (why[0] && brief && t->present) {
		snprintf(buf, size, "turbostat n/a");
		return;
	}
	if (why[0]) {
		snprintf(buf, size, "turbostat: %s (%s)",
			 cpu_cols ? "watts, temperatures unavailable" : "unavailable", why);
		return;
	}
	snprintf(buf, size, "turbostat:");
	for (int k = MT_PKGWATT; k <= MT_RAMWATT; k++)
		if (t->has[k])
			str_cat(buf, size, "  %s %.2f W", model_turbo_col_names[k], t->v[k]);
	for (int k = MT_PKGTMP; k <= MT_CORETMP; k++)
		if (t->has[k])
			str_cat(buf, size, "  %s %.0f%s", model_turbo_col_names[k], t->v[k], deg);
	if (t->suspect)
		str_cat(buf, size, "  (watts over more than the energy counter's range: suspect)");
	if (!cpu_cols) {
		const struct model_turbo_status *s = &t->col[MT_BZY_MHZ];

		model_sections_short_reason(s->reason, why, sizeof(why));
		str_cat(buf, size, "  Busy%%/Bzy_MHz unavailable (%s)",
			s->known && !s->available && why[0] ? why : "not in this sample");
	}
}

/* ---- pressure and writeback ---- */

static void psi_part(const struct model_sections *x, bool brief, char *buf, size_t size)
{
	bool any = false;

	snprintf(buf, size, "PSI");
	for (int i = 0; i < MP__COUNT; i++) {
		const struct model_psi *p = &x->psi[i];

		if (!p->present)
			continue;
		any = true;
		str_cat(buf, size, " %s", model_psi_names[i]);
		if (p->some.present)
			str_cat(buf, size, " some %.1f%%", p->some.avg10);
		if (p->full.present)
			str_cat(buf, size, " full %.1f%%", p->full.avg10);
	}
	if (any)
		return;
	/* the first resource's reason says it for all (PSI off, old kernel) */
	if (brief && x->psi[MP_IO].reason[0]) {
		snprintf(buf, size, "PSI n/a");
	} else if (x->psi[MP_IO].reason[0]) {
		char why[MODEL_SECTIONS_REASON_MAX];

		model_sections_short_reason(x->psi[MP_IO].reason, why, sizeof(why));
		snprintf(buf, size, "PSI unavailable (%s)", why);
	} else {
		snprintf(buf, size, "PSI not in this sample");
	}
}

/* "dirty 77 MB, below background": the attribute says how bad. */
static int wb_part(const struct ui *ui, bool brief, char *buf, size_t size)
{
	const struct model_writeback *w = &ui->model.sections.wb;
	char a[32], b[32];

	if ((!w->present || !w->has_dirty) && brief && w->reason[0]) {
		snprintf(buf, size, "writeback n/a");
		return 0;
	}
	if (!w->present || !w->has_dirty) {
		char why[MODEL_SECTIONS_REASON_MAX];

		model_sections_short_reason(w->reason, why, sizeof(why));
		snprintf(buf, size, "writeback %s%s%s",
			 why[0] ? "unavailable (" : "not in this sample", why, why[0] ? ")" : "");
		return 0;
	}
	fmt_kb(a, sizeof(a), w->dirty_kb);
	fmt_kb(b, sizeof(b), w->writeback_kb);
	snprintf(buf, size, "dirty %s, writeback %s", a, b);
	if (strcmp(w->state, "below_background") == 0) {
		str_cat(buf, size, ", below background");
	} else if (strcmp(w->state, "background") == 0) {
		fmt_kb(a, sizeof(a), w->bg_threshold_kb);
		str_cat(buf, size, ", background writeback (above %s)", a);
		return ui_attr(ui, PAIR_WARN);
	} else if (strcmp(w->state, "throttled") == 0) {
		fmt_kb(a, sizeof(a), w->freerun_kb);
		str_cat(buf, size, ", THROTTLED: writers wait (above %s)", a);
		return ui_attr(ui, PAIR_CRIT);
	} else if (strcmp(w->state, "blocked") == 0) {
		fmt_kb(a, sizeof(a), w->threshold_kb);
		str_cat(buf, size, ", BLOCKED at the dirty limit %s", a);
		return ui_attr(ui, PAIR_CRIT);
	} else if (w->state[0]) {
		str_cat(buf, size, ", %s", w->state);
	}
	return 0;
}

/* parts joined by sep into buf, each whole: a part that does not fit in
 * width columns is cut at its last ", " or "  " that fits (a clause or a
 * column, never a number in two) or left out. */
static void fit_parts(char *buf, size_t size, int width, const char *sep, const char *const *parts,
		      size_t n)
{
	snprintf(buf, size, " ");
	for (size_t i = 0; i < n; i++) {
		int room = width - (int)strlen(buf) - (i ? (int)strlen(sep) : 0);
		int len = (int)strlen(parts[i]);

		if (!parts[i][0] || room <= 0)
			continue;
		while (len > room && len > 0) {
			const char *p = parts[i] + len - 1; /* not the cut we are at */

			/* back to the previous ", " or "  " (turbostat's columns) */
			while (p > parts[i] && !(p[0] == ',' && p[1] == ' ') &&
			       !(p[0] == ' ' && p[1] == ' ' && p[-1] != ':'))
				p--;
			len = (int)(p - parts[i]);
		}
		if (len <= 0)
			continue;
		str_cat(buf, size, "%s%.*s", i && buf[1] ? sep : "", len, parts[i]);
	}
}

/* --trace not running whole, said on the one line after PSI (its reason
 * is on the unavailable line from 30 rows): "tracing n/a", "tracing:
 * block off" ("tracing off" where that does not fit); "" when it runs or
 * was not asked for. */
static const char *trace_part(const struct model_trace *t)
{
	static char buf[64];

	if (!t->present || (t->available && !t->malformed && !t->off[0] && !t->lat_dropped))
		return "";
	if (!t->available || t->malformed)
		return "tracing n/a";
	if (!t->off[0]) {
		/* every probe on, IOs in no latency row */
		snprintf(buf, sizeof(buf), "tracing: %llu IOs untimed",
			 (unsigned long long)t->lat_dropped);
		return buf;
	}
	snprintf(buf, sizeof(buf), "tracing:%s%s%s off", t->hard ? "" : " hardirq",
		 t->soft ? "" : " softirq", t->block ? "" : " block");
	return buf;
}

int view_header_draw(struct ui *ui, int y, int n)
{
	char turbo[512], psi[512], wb[512], line[1600], why[MODEL_SECTIONS_REASON_MAX];
	int wb_attr, drawn = 0;

	if (n <= 0 || !ui->model.have_sample)
		return 0;
	if (!ui->model.has_rates) {
		/* the first document carries none of these sections */
		ui_put(y, 0, COLS, A_DIM,
		       " turbostat, PSI, writeback: waiting for a second sample");
		if (n > 1)
			ui_put(y + 1, 0, COLS, A_DIM, "");
		return n > 1 ? 2 : 1;
	}
	/* turbostat without watts or temperatures has no line of its own:
	 * "n/a" with the others, its reason once on the unavailable line */
	model_sections_turbo_why(&ui->model.sections, true, why, sizeof(why));
	if (why[0] && ui->model.sections.turbo.present)
		n = 1;
	/* what is not available only says so: its reason is on the
	 * unavailable line, once (ui.c) */
	turbo_line(ui, n == 1, turbo, sizeof(turbo));
	psi_part(&ui->model.sections, true, psi, sizeof(psi));
	wb_attr = wb_part(ui, true, wb, sizeof(wb));
	if (n == 1) {
		/* one line: what moves first, turbostat's last; what is not
		 * available only says so (its reason is on the unavailable line) */
		/* tracing asked for and not running whole comes before the
		 * dirty cache: at 80 columns after PSI there is room for
		 * "tracing off" only (its reason on the unavailable line) */
		const char *tr = trace_part(&ui->model.trace);
		const char *parts[] = { psi, tr, wb, turbo };

		if (tr[0] && strcmp(tr, "tracing n/a") && ui->model.trace.off[0] &&
		    1 + (int)strlen(psi) + 3 + (int)strlen(tr) > COLS)
			parts[1] = "tracing off";
		fit_parts(line, sizeof(line), COLS, " | ", parts, 4);
		ui_put(y, 0, COLS, wb_attr, line);
		return 1;
	}
	{
		const char *parts[] = { turbo };

		fit_parts(line, sizeof(line), COLS, "", parts, 1);
		ui_put(y + drawn++, 0, COLS, 0, line);
	}
	snprintf(line, sizeof(line), " %s  |  ", psi);
	ui_put(y + drawn, 0, COLS, 0, line);
	if ((int)strlen(line) < COLS) {
		const char *parts[] = { wb };
		char w2[600];

		fit_parts(w2, sizeof(w2), COLS - (int)strlen(line) + 1, "", parts, 1);
		ui_put(y + drawn, (int)strlen(line), COLS - (int)strlen(line), wb_attr, w2 + 1);
	}
	drawn++;
	return drawn;
}
