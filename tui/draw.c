// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TUI's widgets: what more than one view drew the same way, written
 * once (draw.h says what each is). Everything goes through ui_put and
 * ui_fill, so names are escaped and clipped as everywhere else, except the
 * block glyphs, which are one column but several bytes.
 */
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"

void draw_line(int y, int x, int w, int attr, const char *s)
{
	ui_fill(y, x, w, attr);
	ui_put(y, x, w, attr, s);
}

void draw_title(struct ui *ui, enum panel_id id, struct rect r, const char *name, const char *sort,
		size_t shown, size_t total, size_t idle_hidden)
{
	const struct panel *p = &ui->panels[id];
	bool focused = ui->focus == id;
	char buf[256];
	int n;

	n = snprintf(buf, sizeof(buf), "%s%s (%zu", focused ? "> " : "  ", name, shown);
	if (shown != total && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " of %zu", total);
	if (idle_hidden && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", %zu idle hidden: z shows",
			      idle_hidden);
	if (n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, ")  sort: %s", sort);
	if (p->filter[0] && n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, "  filter: %s", p->filter);
	draw_line(r.y, r.x, r.w, focused ? ui_attr(ui, PAIR_TITLE) : (int)A_BOLD, buf);
}

void draw_pct(char *buf, size_t size, int w, double pct)
{
	snprintf(buf, size, pct < 1 ? "%*.3f" : pct < 100 ? "%*.2f" : "%*.1f", w, pct);
}

size_t draw_follow(size_t top, size_t sel, size_t rows)
{
	if (sel < top)
		top = sel;
	if (sel >= top + rows)
		top = sel - rows + 1;
	return top;
}

/* ---- scrolled text ---- */

int draw_text_row(const struct draw_text *t)
{
	int y = t->line - t->top;

	if (y < 0 || y >= t->r.h)
		return -1;
	return t->r.y + y;
}

void draw_text_line(struct draw_text *t, int attr, const char *s)
{
	int y = draw_text_row(t);

	if (y >= 0)
		ui_put(y, t->r.x, t->r.w, attr, s);
	t->line++;
}

/* A formatted line; bar: over the whole width filled with attr. */
static void text_vline(struct draw_text *t, int attr, bool bar, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static void text_vline(struct draw_text *t, int attr, bool bar, const char *fmt, va_list ap)
{
	int y = draw_text_row(t);
	char buf[512];

	if (y >= 0) {
		vsnprintf(buf, sizeof(buf), fmt, ap);
		if (bar)
			ui_fill(y, t->r.x, t->r.w, attr);
		ui_put(y, t->r.x, t->r.w, attr, buf);
	}
	t->line++;
}

void draw_text_printf(struct draw_text *t, int attr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vline(t, attr, false, fmt, ap);
	va_end(ap);
}

void draw_text_bar(struct draw_text *t, int attr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_vline(t, attr, true, fmt, ap);
	va_end(ap);
}

int draw_cut(const char *p, int n, int w)
{
	int k;

	if (n <= w)
		return n;
	for (k = w; k > 0 && p[k] != ' '; k--)
		;
	return k ? k : w;
}

void draw_text_wrap(struct draw_text *t, int attr, int indent, const char *first, const char *text)
{
	int tw = t->r.w - indent;
	const char *p = text;

	if (tw < 20)
		tw = 20;
	do {
		char line[1024];
		int n = draw_cut(p, (int)strlen(p), tw);

		if (first)
			snprintf(line, sizeof(line), "%s%.*s", first, n, p);
		else
			snprintf(line, sizeof(line), "%*s%.*s", indent, "", n, p);
		draw_text_line(t, attr, line);
		first = NULL;
		p += n;
		while (*p == ' ')
			p++;
	} while (*p);
}

void draw_range(char *buf, size_t size, const char *pre, int top, int h, int total,
		const char *post)
{
	snprintf(buf, size, "%s%d-%d of %d%s", pre, top + 1, top + h < total ? top + h : total,
		 total, post);
}

unsigned draw_scroll_key(struct scroll *s, int ch, int page)
{
	switch (ch) {
	case KEY_UP:
	case 'k':
		s->top = s->top > 0 ? s->top - 1 : 0;
		return UI_REDRAW;
	case KEY_DOWN:
	case 'j':
		if (s->top + 1 < s->nlines)
			s->top++;
		return UI_REDRAW;
	case KEY_PPAGE:
		s->top = s->top > page ? s->top - page : 0;
		return UI_REDRAW;
	case KEY_NPAGE:
		if (s->top + page < s->nlines)
			s->top += page;
		return UI_REDRAW;
	case KEY_HOME:
	case 'g':
		s->top = 0;
		return UI_REDRAW;
	}
	if (ui_key_is_global(ch))
		return UI_PASS;
	return 0; /* the tables' keys (sort, filter, Tab) would act unseen */
}

void draw_scroll_fit(struct scroll *s, int nlines, int h)
{
	s->nlines = nlines;
	if (s->top > nlines - h)
		s->top = nlines - h > 0 ? nlines - h : 0;
}

/* ---- bars and glyphs ---- */

void draw_meter(const struct ui *ui, int y, int x, int w, int base, const struct draw_seg *seg,
		size_t nseg, bool plain)
{
	int inner = w - 2, used = 0;

	if (inner < 1)
		return;
	ui_put(y, x, 1, base | A_BOLD, "[");
	for (size_t s = 0; s < nseg; s++) {
		int n = (int)(seg[s].pct * inner / 100.0 + 0.5);
		char run[256];

		if (n > inner - used)
			n = inner - used;
		if (n <= 0)
			continue;
		/* on a marked row the row's colour wins: letters tell the shares apart */
		memset(run, ui->color && !plain ? '|' : seg[s].ch, sizeof(run));
		run[n < (int)sizeof(run) ? n : (int)sizeof(run) - 1] = '\0';
		ui_put(y, x + 1 + used, n, plain ? base : ui_mix(base, ui_attr(ui, seg[s].pair)),
		       run);
		used += n;
	}
	ui_put(y, x + 1 + inner, 1, base | A_BOLD, "]");
}

const char *draw_block(int eighths, bool utf8)
{
	static const char *const blocks_utf8[9] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const blocks_ascii[9] = { " ", "_", ".", "-", "~", "=", "+", "*", "#" };

	if (eighths < 0)
		eighths = 0;
	if (eighths > 8)
		eighths = 8;
	return utf8 ? blocks_utf8[eighths] : blocks_ascii[eighths];
}

void draw_glyph(int y, int x, int attr, const char *g)
{
	if (y < 0 || x < 0 || y >= LINES || x >= COLS)
		return;
	attron(attr);
	mvaddstr(y, x, g);
	attroff(attr);
}

int draw_severity_attr(const struct ui *ui, enum model_severity s)
{
	return ui_attr(ui, s == MODEL_SEV_CRITICAL  ? PAIR_CRIT
			   : s == MODEL_SEV_WARNING ? PAIR_WARN
						    : PAIR_INFO);
}
