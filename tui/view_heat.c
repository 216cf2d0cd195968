// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CPU heat map of a big host, at the top of the CPUs panel: every CPU
 * one cell, in number order, a new line per NUMA node (the sample's
 * "numa"), else per package (turbostat's rows), and per 64 CPUs; the cell's height is the CPU's busy share
 * (100 - %idle, a digit without UTF-8), its colour %irq+%soft, the hot core
 * white on red. 256 CPUs take four lines at 80 columns. The cell of the
 * selected CPU is reversed; [ and ] (or a click) select the previous / next
 * cell's CPU in the panel. Draws the model only.
 */
#include <errno.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "grow.h"
#include "model_summary.h"
#include "ui.h"

#define HEAT_MIN_CPUS 64 /* fewer: the table shows them all soon enough */
#define LABEL_W	      8	 /* "p1  128 ": the line's package and first CPU */
#define GROUP	      8	 /* cells between spaces */

/* The CPU rows (no "all") in number order into ui->heat.cpus. */
static int heat_order(struct ui *ui)
{
	const struct model *m = &ui->model;
	struct heat_map *h = &ui->heat;
	int r;

	h->ncpus = 0;
	r = grow((void **)&h->cpus, &h->cpus_cap, m->ncpus ? m->ncpus : 1, sizeof(*h->cpus));
	if (r >= 0)
		r = grow((void **)&h->pkg, &h->pkg_cap, m->ncpus ? m->ncpus : 1, sizeof(*h->pkg));
	if (r < 0)
		return r;
	/* the document lists the CPUs in number order: no sort needed, but
	 * checked, since a hostile daemon could send any order */
	for (size_t i = 0; i < m->ncpus; i++) {
		if (m->cpus[i].cpu < 0)
			continue;
		if (h->ncpus && m->cpus[h->cpus[h->ncpus - 1]].cpu >= m->cpus[i].cpu)
			return -EINVAL;
		h->pkg[h->ncpus] = -1;
		h->cpus[h->ncpus++] = i;
	}
	/* NUMA nodes first (the document's "numa"): where memory is local */
	h->by_node = false;
	for (size_t i = 0; i < h->ncpus; i++)
		if (m->cpus[h->cpus[i]].node >= 0) {
			h->by_node = true;
			break;
		}
	if (h->by_node) {
		for (size_t i = 0; i < h->ncpus; i++)
			h->pkg[i] = m->cpus[h->cpus[i]].node;
		return 0;
	}
	/* packages from turbostat's rows: one pass, a binary search each (a
	 * lookup per cell would be quadratic at 1,024 CPUs) */
	for (size_t k = 0; m->sections.turbo.present && k < m->sections.turbo.ncpus; k++) {
		const struct model_turbo_cpu *t = &m->sections.turbo.cpus[k];
		size_t lo = 0, hi = h->ncpus;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (m->cpus[h->cpus[mid]].cpu < t->cpu)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < h->ncpus && m->cpus[h->cpus[lo]].cpu == t->cpu)
			h->pkg[lo] = t->pkg;
	}
	return 0;
}

/* Cells per line at width w. */
static int per_line(int w)
{
	int groups = (w - LABEL_W + 1) / (GROUP + 1);

	return groups > 0 ? groups * GROUP : 0;
}

/* Lays the cells out into lines: a new one when full or at a new package.
 * Fills h->line_start (index into h->cpus of each line's first cell). */
static int heat_layout(struct ui *ui, int w)
{
	struct heat_map *h = &ui->heat;
	int pl = per_line(w), in_line = 0, pkg = -2;

	h->nlines = 0;
	if (pl <= 0)
		return 0;
	for (size_t i = 0; i < h->ncpus; i++) {
		int p = h->pkg[i];

		if (i == 0 || in_line == pl || p != pkg) {
			if (grow((void **)&h->line_start, &h->lines_cap, h->nlines + 1,
				 sizeof(*h->line_start)) < 0)
				return 0;
			h->line_start[h->nlines++] = i;
			in_line = 0;
			pkg = p;
		}
		in_line++;
	}
	return (int)h->nlines;
}

static int heat_lines(struct ui *ui, int w)
{
	ui->heat.shown = false;
	if (ui->model.ncpus < HEAT_MIN_CPUS + 1 || heat_order(ui) < 0 || w < LABEL_W + GROUP)
		return 0;
	ui->heat.shown = true;
	return heat_layout(ui, w);
}

/* The line holding cell i. */
static size_t line_of(const struct heat_map *h, size_t i)
{
	size_t l = 0;

	while (l + 1 < h->nlines && h->line_start[l + 1] <= i)
		l++;
	return l;
}

/* Index into h->cpus of the CPU named name, -1 none. */
static long cell_of(const struct ui *ui, const char *name)
{
	const struct heat_map *h = &ui->heat;

	for (size_t i = 0; i < h->ncpus; i++)
		if (strcmp(ui->model.cpus[h->cpus[i]].name, name) == 0)
			return (long)i;
	return -1;
}

static int cell_attr(const struct ui *ui, const struct model_cpu *c)
{
	if (c->hot)
		return ui_attr(ui, PAIR_HOT);
	if (!c->valid)
		return (int)A_DIM;
	if (c->irq + c->soft >= MODEL_HOT_PCT)
		return ui_attr(ui, PAIR_SOFT) | (int)A_BOLD;
	if (100.0 - c->idle >= 80.0)
		return ui_attr(ui, PAIR_CRIT);
	if (100.0 - c->idle >= 50.0)
		return ui_attr(ui, PAIR_WARN);
	return ui_attr(ui, PAIR_GOOD);
}

static const char *cell_glyph(const struct ui *ui, const struct model_cpu *c, char *buf)
{
	double busy = 100.0 - c->idle;
	int lv;

	if (!c->valid || !ui->model.has_rates)
		return "?";
	if (busy < 0)
		busy = 0;
	if (ui->utf8) {
		lv = busy < 5 ? 0 : 1 + (int)(busy * 8 / 100.01);
		return lv == 0 ? "\u00b7" : draw_block(lv, true);
	}
	/* tens of busy %: "." under 10, "#" at 100 */
	lv = (int)(busy / 10);
	buf[0] = lv <= 0 ? '.' : lv >= 10 ? '#' : (char)('0' + lv);
	buf[1] = '\0';
	return buf;
}

static void heat_draw(struct ui *ui, struct rect r)
{
	struct heat_map *h = &ui->heat;
	const struct model *m = &ui->model;
	const char *sel = view_selected(ui, PANEL_CPUS);
	bool focused = ui->focus == PANEL_CPUS;
	long sel_cell = sel[0] ? cell_of(ui, sel) : -1;
	long hot = model_hot_cpu(m);
	size_t want_line;

	h->y = r.y;
	h->x = r.x;
	h->rows = r.h;
	if (!h->shown || r.h <= 0 || h->nlines == 0)
		return;
	/* the lines in view keep the selected CPU, else the hot one, on screen */
	if (sel_cell >= 0)
		want_line = line_of(h, (size_t)sel_cell);
	else if (hot >= 0 && cell_of(ui, m->cpus[hot].name) >= 0)
		want_line = line_of(h, (size_t)cell_of(ui, m->cpus[hot].name));
	else
		want_line = 0;
	if (h->top > h->nlines - 1)
		h->top = 0;
	h->top = draw_follow(h->top, want_line, (size_t)r.h);
	for (int row = 0; row < r.h && h->top + (size_t)row < h->nlines; row++) {
		size_t l = h->top + (size_t)row;
		size_t from = h->line_start[l];
		size_t to = l + 1 < h->nlines ? h->line_start[l + 1] : h->ncpus;
		const struct model_cpu *first = &m->cpus[h->cpus[from]];
		int pkg = h->pkg[from];
		int y = r.y + row, x = r.x + LABEL_W;
		char label[32];

		if (pkg >= 0 && (l == 0 || h->pkg[from - 1] != pkg))
			snprintf(label, sizeof(label), "%c%-2d%4d ", h->by_node ? 'n' : 'p', pkg,
				 first->cpu);
		else
			snprintf(label, sizeof(label), "   %4d ", first->cpu);
		ui_put(y, r.x, LABEL_W, (int)A_DIM, label);
		for (size_t i = from; i < to; i++) {
			const struct model_cpu *c = &m->cpus[h->cpus[i]];
			int attr = cell_attr(ui, c);
			char g[2];

			if ((long)i == sel_cell && focused)
				attr |= (int)A_REVERSE;
			if (i > from && (i - from) % GROUP == 0)
				x++;
			/* a block is one column but three bytes: not ui_put */
			draw_glyph(y, x, attr, cell_glyph(ui, c, g));
			x++;
		}
	}
}

/* Select the CPU of cell i in the CPUs panel (the table follows). */
static unsigned select_cell(struct ui *ui, long i)
{
	struct panel *p = &ui->panels[PANEL_CPUS];

	if (i < 0 || (size_t)i >= ui->heat.ncpus)
		return 0;
	snprintf(p->sel_key, sizeof(p->sel_key), "%s", ui->model.cpus[ui->heat.cpus[i]].name);
	ui->focus = PANEL_CPUS;
	return UI_REDRAW;
}

/* The cell under the screen position (y, x) at the last draw, -1 none. */
static long cell_at(const struct ui *ui, int y, int x)
{
	const struct heat_map *h = &ui->heat;
	size_t l, from, to;
	int col;

	if (y < h->y || y >= h->y + h->rows || x < h->x + LABEL_W)
		return -1;
	l = h->top + (size_t)(y - h->y);
	if (l >= h->nlines)
		return -1;
	col = x - h->x - LABEL_W;
	if (col % (GROUP + 1) == GROUP)
		return -1; /* the space between groups */
	from = h->line_start[l];
	to = l + 1 < h->nlines ? h->line_start[l + 1] : h->ncpus;
	col = col / (GROUP + 1) * GROUP + col % (GROUP + 1);
	return from + (size_t)col < to ? (long)(from + (size_t)col) : -1;
}

static unsigned heat_key(struct ui *ui, int ch)
{
	const char *sel = view_selected(ui, PANEL_CPUS);
	long cur;

	if (!ui->heat.shown)
		return UI_PASS;
	switch (ch) {
	case '[':
	case ']':
		cur = sel[0] ? cell_of(ui, sel) : -1;
		if (cur < 0) /* from "all": the first or the last cell */
			return select_cell(ui, ch == ']' ? 0 : (long)ui->heat.ncpus - 1);
		return select_cell(ui, ch == ']' ? cur + 1 : cur - 1);
	case KEY_MOUSE: {
		MEVENT ev;

		if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
			return 0;
		return select_cell(ui, cell_at(ui, ev.y, ev.x));
	}
	}
	return UI_PASS;
}

static void heat_free(struct ui *ui)
{
	free(ui->heat.cpus);
	free(ui->heat.line_start);
	free(ui->heat.pkg);
	memset(&ui->heat, 0, sizeof(ui->heat));
}

static const char *const heat_help[][2] = {
	{ "[ ]", "the CPU heat map (64 CPUs and more): select the previous / next cell's CPU "
		 "in the table; a click selects the cell clicked" },
	{ NULL, NULL },
};

const struct view_ops view_heat = {
	.name = "heat",
	.draw = heat_draw,
	.on_key = heat_key,
	.lines = heat_lines,
	.help = heat_help,
	.free = heat_free,
};
