// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The turbostat sources view (t): for every turbostat column of the sample
 * (Avg_MHz ... RAM_%), the source the sampler chose for it at its first
 * sample (msr, perf, sysfs, proc) and the register, event or file, or
 * "unavailable: why"; then the source families it probed. A clause of a
 * reason that two or more columns or families share (a VM's missing
 * /dev/cpu/N/msr is behind 19 of them) is listed once on top as [k] and
 * referred to by its number. Replaces the tables while open; the title and
 * the column header stay, the rest scrolls. Draws the model only: every
 * word is the document's.
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
#define CAUSES_MAX 16 /* shared clauses listed on top; more are written out */

/* The clauses ("; "-separated) that more than one reason holds, in the
 * order of their first appearance (columns, then families). */
struct causes {
	const char *text[CAUSES_MAX]; /* into a reason of the model */
	size_t len[CAUSES_MAX];
	size_t n;
};

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
 * it tried) unless flow, a clause longer than the width cut at spaces and
 * continued two columns in. The first line is the current one; the line
 * after the last is next.
 */
static void wrap_text(struct draw_text *o, int x, int attr, const char *text, bool flow)
{
	int w = o->r.w - x;
	const char *p = text;
	bool first = true;

	if (w < MIN_TEXT_W)
		w = MIN_TEXT_W;
	while (*p || first) {
		const char *semi = flow ? NULL : strstr(p, "; ");
		int clause = semi ? (int)(semi - p) + 1 : (int)strlen(p); /* with its ';' */
		int indent = 0;

		while (clause > 0 || first) {
			int n = draw_cut(p, clause, w - indent);

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

static void wrap(struct draw_text *o, int x, int attr, const char *text)
{
	wrap_text(o, x, attr, text, false);
}

/* Whether reason holds the clause text[0..len) whole. */
static bool has_clause(const char *reason, const char *text, size_t len)
{
	const char *p = reason;

	while (*p) {
		const char *semi = strstr(p, "; ");
		size_t n = semi ? (size_t)(semi - p) : strlen(p);

		if (n == len && strncmp(p, text, len) == 0)
			return true;
		if (!semi)
			break;
		p = semi + 2;
	}
	return false;
}

/* The unavailable reasons of the model, columns then families. */
static size_t reasons(const struct model_turbo *t, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < t->ncols && n < max; i++)
		if (!t->cols[i].st.available && t->cols[i].st.reason[0])
			out[n++] = t->cols[i].st.reason;
	for (int i = 0; i < MODEL_TURBO_FAMILIES && n < max; i++)
		if (t->fam[i].listed && !t->fam[i].available && t->fam[i].reason[0])
			out[n++] = t->fam[i].reason;
	return n;
}

static void find_causes(const struct model_turbo *t, struct causes *c)
{
	const char *r[256];
	size_t nr = reasons(t, r, sizeof(r) / sizeof(r[0]));

	c->n = 0;
	for (size_t i = 0; i < nr && c->n < CAUSES_MAX; i++) {
		const char *p = r[i];

		while (*p && c->n < CAUSES_MAX) {
			const char *semi = strstr(p, "; ");
			size_t len = semi ? (size_t)(semi - p) : strlen(p);
			size_t k, holders = 0;

			for (k = 0; k < c->n; k++)
				if (c->len[k] == len && strncmp(c->text[k], p, len) == 0)
					break;
			if (k == c->n) {
				for (size_t j = i; j < nr; j++)
					holders += has_clause(r[j], p, len);
				if (holders >= 2) {
					c->text[c->n] = p;
					c->len[c->n++] = len;
				}
			}
			if (!semi)
				break;
			p = semi + 2;
		}
	}
}

/* "unavailable: " and reason with each shared clause as its [k]. */
static void unavailable_text(const struct causes *c, const char *reason, char *buf, size_t size)
{
	const char *p = reason;
	size_t at;

	snprintf(buf, size, "unavailable: %s", reason[0] ? "" : "no reason given");
	at = strlen(buf);
	while (*p && at < size) {
		const char *semi = strstr(p, "; ");
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		size_t k;
		int n;

		for (k = 0; k < c->n; k++)
			if (c->len[k] == len && strncmp(c->text[k], p, len) == 0)
				break;
		if (k < c->n)
			n = snprintf(buf + at, size - at, "[%zu]%s", k + 1, semi ? "; " : "");
		else
			n = snprintf(buf + at, size - at, "%.*s%s", (int)len, p, semi ? "; " : "");
		if (n < 0)
			break;
		at += (size_t)n;
		if (!semi)
			break;
		p = semi + 2;
	}
}

static void column(struct draw_text *o, const struct ui *ui, const struct causes *cs,
		   const struct model_turbo_column *c)
{
	const struct model_turbo_status *s = &c->st;
	char buf[MODEL_SECTIONS_REASON_MAX + 16];

	put_at(o, 0, A_BOLD, c->name, NAME_W);
	if (!s->available) {
		put_at(o, NAME_W + 1, ui_attr(ui, PAIR_WARN), "-", SRC_W);
		unavailable_text(cs, s->reason, buf, sizeof(buf));
		/* the shared causes are numbers now: one line while it fits */
		wrap_text(o, TEXT_X, ui_attr(ui, PAIR_WARN), buf, cs->n > 0);
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
	struct causes cs;

	if (t->ncols == 0) {
		why_none(&ui->model, buf, sizeof(buf));
		draw_text_line(o, A_DIM, buf);
	}
	find_causes(t, &cs);
	if (cs.n) {
		draw_text_line(o, A_BOLD, "Shared causes, referred to below by their number");
		for (size_t k = 0; k < cs.n; k++) {
			char num[24];

			snprintf(num, sizeof(num), "[%zu]", k + 1);
			put_at(o, 0, A_BOLD, num, (int)strlen(num));
			snprintf(buf, sizeof(buf), "%.*s", (int)cs.len[k], cs.text[k]);
			wrap(o, (int)strlen(num) + 1, ui_attr(ui, PAIR_WARN), buf);
		}
		draw_text_line(o, 0, "");
	}
	for (size_t i = 0; i < t->ncols; i++)
		column(o, ui, &cs, &t->cols[i]);
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
		unavailable_text(&cs, f->reason, buf, sizeof(buf));
		wrap_text(o, NAME_W + 1, ui_attr(ui, PAIR_WARN), buf, cs.n > 0);
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
	       "MSR access in a VM; a cause several share listed once on top, written [k]); then "
	       "the source families probed (t or Esc returns; arrows "
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
