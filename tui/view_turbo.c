// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The turbostat sources view (t): for every turbostat column of the sample
 * (Avg_MHz ... RAM_%), the source the sampler chose for it at its first
 * sample (msr, perf, sysfs, proc) and the register, event or file, or
 * "unavailable: why"; then the source families it probed. Replaces the
 * tables while open; the title and the column header stay, the rest
 * scrolls. Draws the model only: every word is the document's.
 */
#include <limits.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "ui.h"

#define NAME_W	   9 /* "Bzy_MHz", "Pkg%pc2", "powercap" */
#define SRC_W	   6 /* "sysfs" */
#define TEXT_X	   (NAME_W + 1 + SRC_W + 1)
#define MIN_TEXT_W 20 /* narrower, the text is clipped rather than cut into crumbs */

static void put_at(const struct draw_text *o, int x, int attr, const char *s, int len)
{
	int y = draw_text_row(o);
	char buf[512];

	if (y < 0 || x >= o->r.w)
		return;
	snprintf(buf, sizeof(buf), "%.*s", len, s);
	ui_put(y, o->r.x + x, o->r.w - x, attr, buf);
}

/*
 * text from column x, over as many lines as it takes: each "; " clause of
 * a reason on a line of its own (the sampler joins one clause per source
 * it tried), a clause longer than the width cut at spaces and continued
 * two columns in. The first line is the current one; the line after the
 * last is next.
 */
static void wrap(struct draw_text *o, int x, int attr, const char *text)
{
	int w = o->r.w - x;
	const char *p = text;
	bool first = true;

	if (w < MIN_TEXT_W)
		w = MIN_TEXT_W;
	while (*p || first) {
		const char *semi = strstr(p, "; ");
		int clause = semi ? (int)(semi - p) + 1 : (int)strlen(p); /* with its ';' */
		int indent = 0;

		while (clause > 0 || first) {
			int n = clause, avail = w - indent;

			if (n > avail) {
				n = avail;
				while (n > 0 && p[n] != ' ')
					n--;
				if (n == 0)
					n = avail;
			}
			if (!first)
				o->line++;
			put_at(o, x + indent, attr, p, n);
			first = false;
			p += n;
			clause -= n;
			while (clause > 0 && *p == ' ') {
				p++;
				clause--;
			}
			indent = 2;
		}
		while (*p == ' ')
			p++;
	}
	o->line++;
}

static void column(struct draw_text *o, const struct ui *ui, const struct model_turbo_column *c)
{
	const struct model_turbo_status *s = &c->st;
	char buf[MODEL_SECTIONS_REASON_MAX + 16];

	put_at(o, 0, A_BOLD, c->name, NAME_W);
	if (!s->available) {
		put_at(o, NAME_W + 1, ui_attr(ui, PAIR_WARN), "-", SRC_W);
		snprintf(buf, sizeof(buf), "unavailable: %s",
			 s->reason[0] ? s->reason : "no reason given");
		wrap(o, TEXT_X, ui_attr(ui, PAIR_WARN), buf);
		return;
	}
	put_at(o, NAME_W + 1, ui_attr(ui, PAIR_GOOD), s->source[0] ? s->source : "?", SRC_W);
	wrap(o, TEXT_X, 0, s->detail[0] ? s->detail : "(no detail given)");
	if (s->reason[0]) {
		/* the chosen source's caveat: cpufreq's instantaneous MHz */
		snprintf(buf, sizeof(buf), "note: %s", s->reason);
		wrap(o, TEXT_X, A_DIM, buf);
	}
}

/* Why there are no columns to list: "turbostat: ...". */
static void why_none(const struct model *m, char *buf, size_t size)
{
	const struct model_turbo *t = &m->sections.turbo;
	const char *why = "not in this sample";
	bool bad = false;

	if (!m->have_sample) {
		why = "waiting for the first sample";
	} else if (!m->has_rates) {
		why = "waiting for a second sample";
	} else if (strncmp(m->sections.bad, "turbostat", 9) == 0) {
		why = "the section could not be read: ";
		bad = true;
	} else if (t->present) {
		why = "the sample names no column";
	} else if (!t->sampled) {
		why = "not in the sample (iotriaged --core-only, or older)";
	}
	snprintf(buf, size, "turbostat: %s%s", why, bad ? m->sections.bad : "");
}

static void body(struct draw_text *o, const struct ui *ui)
{
	const struct model_turbo *t = &ui->model.sections.turbo;
	bool any_family = false;
	char buf[MODEL_SECTIONS_REASON_MAX + 64];

	if (t->ncols == 0) {
		why_none(&ui->model, buf, sizeof(buf));
		draw_text_line(o, A_DIM, buf);
	}
	for (size_t i = 0; i < t->ncols; i++)
		column(o, ui, &t->cols[i]);
	for (int i = 0; i < MODEL_TURBO_FAMILIES; i++)
		any_family |= t->fam[i].listed;
	if (!any_family)
		return;
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD,
		       "Source families, probed at the first sample (MSR, then perf, then sysfs)");
	for (int i = 0; i < MODEL_TURBO_FAMILIES; i++) {
		const struct model_turbo_family *f = &t->fam[i];

		if (!f->listed)
			continue;
		put_at(o, 0, A_BOLD, f->name, NAME_W);
		if (f->available) {
			wrap(o, NAME_W + 1, ui_attr(ui, PAIR_GOOD), "available");
			continue;
		}
		snprintf(buf, sizeof(buf), "unavailable: %s",
			 f->reason[0] ? f->reason : "no reason given");
		wrap(o, NAME_W + 1, ui_attr(ui, PAIR_WARN), buf);
	}
}

static void turbo_draw(struct ui *ui, struct rect r)
{
	const struct model_turbo *t = &ui->model.sections.turbo;
	struct draw_text o = { .r = { r.y + 2, r.x, r.h - 2, r.w } };
	struct draw_text count;
	int total;
	char title[256];
	size_t avail = 0;
	int n;

	if (r.h <= 0)
		return;
	if (o.r.h < 0)
		o.r.h = 0;
	/* count first (h 0 draws nothing): the scroll is clamped before
	 * anything is drawn */
	count = (struct draw_text){ .r = { o.r.y, o.r.x, 0, o.r.w } };
	body(&count, ui);
	total = count.line;
	draw_scroll_fit(&ui->turbo.scroll, total, o.r.h);
	ui->turbo.page = o.r.h > 1 ? o.r.h : 1;

	for (size_t i = 0; i < t->ncols; i++)
		avail += t->cols[i].st.available;
	if (t->ncols)
		n = snprintf(title, sizeof(title),
			     "> turbostat sources: %zu columns, %zu available", t->ncols, avail);
	else
		n = snprintf(title, sizeof(title), "> turbostat sources");
	if (total > o.r.h && n > 0 && (size_t)n < sizeof(title))
		draw_range(title + n, sizeof(title) - (size_t)n, "  [", ui->turbo.scroll.top, o.r.h,
			   total, ", arrows scroll]");
	draw_line(r.y, r.x, r.w, ui_attr(ui, PAIR_TITLE) | (int)A_REVERSE, title);
	if (r.h > 1) {
		snprintf(title, sizeof(title), "%-*s %-*s %s", NAME_W, "Column", SRC_W, "Source",
			 "register, event or file; or why it is unavailable");
		ui_put(r.y + 1, r.x, r.w, A_BOLD, title);
	}
	o.top = ui->turbo.scroll.top;
	body(&o, ui);
}

static unsigned turbo_key(struct ui *ui, int ch)
{
	struct turbo_panel *tp = &ui->turbo;
	int page = tp->page > 1 ? tp->page : 1;

	switch (ch) {
	case 't':
	case 27: /* Esc */
		tp->open = false;
		tp->scroll.top = 0;
		return UI_REDRAW;
	case KEY_DOWN:
	case 'j': /* the last page at the most, as End */
		if (tp->scroll.top + page < tp->scroll.nlines)
			tp->scroll.top++;
		return UI_REDRAW;
	case KEY_END:
	case 'G':
		tp->scroll.top = INT_MAX / 2; /* the draw clamps it to the last page */
		return UI_REDRAW;
	case 'f': /* the findings panel, the processes view instead */
	case 'p':
		return UI_PASS;
	}
	return draw_scroll_key(&tp->scroll, ch, page);
}

static void turbo_open(struct ui *ui)
{
	ui->turbo.scroll.top = 0;
}

static const char *const turbo_help[][2] = {
	{ "t", "the turbostat sources view: for each turbostat column (Avg_MHz, Busy%, Bzy_MHz, "
	       "TSC_MHz, IRQ, SMI, CPU%c1.., CoreTmp, PkgTmp, Pkg%pc.., PkgWatt, CorWatt, "
	       "RAMWatt, PKG_%, RAM_%) the source chosen at the first sample (msr, perf, sysfs, "
	       "proc) and its register, event or file, or \"unavailable: why\" (not root, no "
	       "MSR access in a VM); then the source families probed (t or Esc returns; arrows "
	       "scroll)" },
	{ NULL, NULL },
};

const struct view_ops view_turbo = {
	.name = "turbo",
	.keys = { 't' },
	.open_at = offsetof(struct ui, turbo.open),
	.open = turbo_open,
	.draw = turbo_draw,
	.on_key = turbo_key,
	.help = turbo_help,
	.footer_key = "t",
	.footer_label = "Turbo",
	.footer_optional = true,
};
