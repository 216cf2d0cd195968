// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IRQs panel: a line per NIC (link, rates, channels, where its queue
 * vectors landed: view_nics.c), then the interrupt lines that fired in the
 * interval, busiest first, where they landed and where they are allowed to
 * go (the affinities the source read from /proc/irq/N). On big hosts the
 * lines of a device (nvme0's 64 queues) are one row with its total, spread
 * and hottest CPU (model_irqgroup.c); Enter expands it. With the tracing
 * stage's hardirq time (--trace), each line's handler time as % of a CPU
 * beside its count. Draws the model only.
 */
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "grow.h"
#include "model_irqgroup.h"
#include "ui.h"

enum { SORT_RATE, SORT_IRQ };

static const char *const irqs_sorts[] = { "total/s", "irq", NULL };

#define W_IRQ	 6
#define W_TOTAL	 8
#define W_DEV	 16
#define W_AFF	 9
#define W_ONCPUS 12 /* least width worth showing */
#define W_TIME	 6  /* "%cpu": handler time, --trace only */

/* Big hosts group the lines by device (model_irqgroup.c): from this many
 * CPUs, or this many lines fired. */
#define GROUP_MIN_CPUS	64
#define GROUP_MIN_LINES 64

static const struct model *sort_model;
static const struct model_irq_groups *sort_groups;
static int sort_key;

/* A row of the order: an interrupt line (i < nirqs) or a group (nirqs + g). */
static double row_rate(size_t i)
{
	if (i >= sort_model->nirqs)
		return sort_groups->groups[i - sort_model->nirqs].total_s;
	return sort_model->irqs[i].total_s;
}

/* A group sorts by its busiest line's number and name. */
static const struct model_irq *row_line(size_t i)
{
	if (i >= sort_model->nirqs) {
		const struct model_irq_group *g = &sort_groups->groups[i - sort_model->nirqs];

		return &sort_model->irqs[sort_groups->members[g->first]];
	}
	return &sort_model->irqs[i];
}

static int cmp_irq(const void *a, const void *b)
{
	size_t ia = *(const size_t *)a, ib = *(const size_t *)b;
	const struct model_irq *x = row_line(ia);
	const struct model_irq *y = row_line(ib);

	if (sort_key == SORT_RATE && row_rate(ia) != row_rate(ib))
		return row_rate(ia) < row_rate(ib) ? 1 : -1;
	/* numbered IRQs in numeric order, then the named lines (LOC, RES...) */
	if (x->numeric != y->numeric)
		return x->numeric ? -1 : 1;
	if (x->numeric && x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Without a filter, only what fired this interval unless z shows the idle lines too. */
static bool irq_matches(const struct model_irq *q, const char *filter, bool show_idle)
{
	if (!filter[0])
		return show_idle || (q->valid && q->total_s > 0);
	return strcasestr(q->name, filter) || strcasestr(q->actions, filter) ||
	       strcasestr(q->chip, filter);
}

/* The NIC lines are rows nirqs + ngroups + (index into the model's nics). */
static size_t nic_base(const struct ui *ui)
{
	return ui->model.nirqs + ui->irqg.groups.ngroups;
}

static const char *irqs_row_name(const struct ui *ui, size_t i)
{
	static char nic[48]; /* read at once by every caller */

	if (i >= nic_base(ui)) {
		snprintf(nic, sizeof(nic), "nic %s",
			 ui->model.sections.nics.v[i - nic_base(ui)].name);
		return nic;
	}
	if (i >= ui->model.nirqs)
		return ui->irqg.groups.groups[i - ui->model.nirqs].name;
	return ui->model.irqs[i].name;
}

static bool expanded(const struct ui *ui, const char *name)
{
	for (size_t i = 0; i < ui->irqg.nexpanded; i++)
		if (strcmp(ui->irqg.expanded[i], name) == 0)
			return true;
	return false;
}

/* Whether the lines are grouped by device now: a big host, no filter. */
static bool grouping(const struct ui *ui, size_t fired)
{
	const struct model *m = &ui->model;

	return !ui->panels[PANEL_IRQS].filter[0] &&
	       (m->ncpus > GROUP_MIN_CPUS || fired > GROUP_MIN_LINES);
}

static void irqs_order(struct ui *ui)
{
	struct panel *p = &ui->panels[PANEL_IRQS];
	const struct model *m = &ui->model;
	struct model_irq_groups *gs = &ui->irqg.groups;
	size_t fired = 0, nitems;
	bool grouped;

	p->norder = 0;
	gs->ngroups = 0;
	ui->irqs_hidden = 0;
	ui->irqs_nic_rows = 0;
	if (!m->nirqs)
		goto nics;
	for (size_t i = 0; i < m->nirqs; i++)
		fired += irq_matches(&m->irqs[i], p->filter, ui->show_idle);
	/* a line that did not fire is hidden as iostat -z hides an idle disk */
	ui->irqs_hidden = p->filter[0] || !m->has_rates ? 0 : m->nirqs - fired;
	grouped = grouping(ui, fired) && model_irq_groups_build(m, gs) >= 0;
	if (!grouped)
		gs->ngroups = 0;
	/* room for every line and every group: a group's members follow it */
	if (grow((void **)&p->order, &p->order_cap, m->nirqs + gs->ngroups, sizeof(*p->order)) < 0)
		goto out;
	for (size_t i = 0; i < m->nirqs; i++)
		if (irq_matches(&m->irqs[i], p->filter, ui->show_idle) &&
		    (!grouped || gs->group_of[i] < 0))
			p->order[p->norder++] = i;
	for (size_t g = 0; g < gs->ngroups; g++)
		p->order[p->norder++] = m->nirqs + g;
	nitems = p->norder;
	sort_model = m;
	sort_groups = gs;
	sort_key = p->sort;
	if (nitems > 1)
		qsort(p->order, nitems, sizeof(*p->order), cmp_irq);
	/* an expanded group's lines under it, busiest first: shift the rest down */
	for (size_t k = 0; k < p->norder; k++) {
		const struct model_irq_group *g;

		if (p->order[k] < m->nirqs)
			continue;
		g = &gs->groups[p->order[k] - m->nirqs];
		if (!expanded(ui, g->name))
			continue;
		memmove(p->order + k + 1 + g->n, p->order + k + 1,
			(p->norder - k - 1) * sizeof(*p->order));
		memcpy(p->order + k + 1, gs->members + g->first, g->n * sizeof(*p->order));
		p->norder += g->n;
		k += g->n;
	}
nics:
	/* the NIC lines first, as drawn above the lines: Enter opens a NIC's chain */
	{
		size_t own[NIC_LINES_MAX], n = view_nics_pick(ui, own);

		if (n && grow((void **)&p->order, &p->order_cap, p->norder + n,
			      sizeof(*p->order)) >= 0) {
			memmove(p->order + n, p->order, p->norder * sizeof(*p->order));
			for (size_t k = 0; k < n; k++)
				p->order[k] = nic_base(ui) + own[k];
			p->norder += n;
			ui->irqs_nic_rows = n;
		}
	}
out:
	view_keep_selection(ui, PANEL_IRQS, irqs_row_name);
}

/* Enter on a NIC line: its queue chain; on a device group of lines: expand
 * or fold it. */
static unsigned irqs_key(struct ui *ui, int ch)
{
	struct panel *p = &ui->panels[PANEL_IRQS];
	struct irq_group_state *st = &ui->irqg;
	const char *name;

	if (ch != '\r' && ch != '\n' && ch != KEY_ENTER)
		return UI_PASS;
	if (p->norder && p->sel < p->norder && p->order[p->sel] >= nic_base(ui))
		return ui_open(ui, &view_chain);
	if (p->norder == 0 || p->sel >= p->norder || p->order[p->sel] < ui->model.nirqs)
		return 0;
	name = irqs_row_name(ui, p->order[p->sel]);
	for (size_t i = 0; i < st->nexpanded; i++)
		if (strcmp(st->expanded[i], name) == 0) {
			memmove(st->expanded[i], st->expanded[i + 1],
				(st->nexpanded - i - 1) * sizeof(st->expanded[0]));
			st->nexpanded--;
			return UI_REDRAW;
		}
	if (st->nexpanded == IRQ_EXPANDED_MAX) /* the oldest folds again */
		memmove(st->expanded[0], st->expanded[1],
			--st->nexpanded * sizeof(st->expanded[0]));
	snprintf(st->expanded[st->nexpanded++], sizeof(st->expanded[0]), "%s", name);
	return UI_REDRAW;
}

/* "64 CPUs, hottest 200:392.0k 98%" — a group's spread. */
static void group_spread(const struct model_irq_group *g, char *buf, size_t size)
{
	char num[16];

	if (g->hot_cpu < 0) {
		snprintf(buf, size, "on no CPU");
		return;
	}
	if (g->hot_s >= 1e6)
		snprintf(num, sizeof(num), "%.1fM", g->hot_s / 1e6);
	else if (g->hot_s >= 1e4)
		snprintf(num, sizeof(num), "%.1fk", g->hot_s / 1e3);
	else
		snprintf(num, sizeof(num), "%.0f", g->hot_s);
	snprintf(buf, size, "%zu CPU%s, hottest %d:%s %.0f%%", g->ncpus, g->ncpus == 1 ? "" : "s",
		 g->hot_cpu, num, g->total_s > 0 ? g->hot_s / g->total_s * 100.0 : 0.0);
}

/* "0:19.9k 3:120" — the CPUs it landed on, busiest first, as fits in w. */
static void landed(const struct model_irq *q, char *buf, size_t size, int w)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < q->ncpus; k++) {
		char num[16], item[32];
		int n;

		double v = q->cpus[k].rate_s;

		/* compact: the table above has the exact total */
		if (v >= 1e6)
			snprintf(num, sizeof(num), "%.1fM", v / 1e6);
		else if (v >= 1e4)
			snprintf(num, sizeof(num), "%.1fk", v / 1e3);
		else if (v >= 100)
			snprintf(num, sizeof(num), "%.0f", v);
		else
			snprintf(num, sizeof(num), "%.1f", v);
		n = snprintf(item, sizeof(item), "%s%d:%s", len ? " " : "", q->cpus[k].cpu, num);
		if (n < 0 || len + (size_t)n + 4 > (size_t)w || len + (size_t)n + 4 >= size) {
			if (len + 4 < size)
				memcpy(buf + len, " ...", 5);
			return;
		}
		memcpy(buf + len, item, (size_t)n + 1);
		len += (size_t)n;
	}
}

/* Whether the sample times the lines' handlers (--trace, hardirq probe on). */
static bool any_time(const struct model *m)
{
	return m->trace.hard;
}

/* A line's handler time as % of one CPU; "-" for a numbered line the probe
 * did not time this interval, "" for the per-CPU system lines (LOC, RES:
 * no irq_handler_entry). */
static void time_cell(const struct model_irq *q, char *buf, size_t size)
{
	if (q->has_time)
		draw_pct(buf, size, W_TIME, q->time_us_s / 1e4);
	else
		snprintf(buf, size, "%*s", W_TIME, q->numeric ? "-" : "");
}

/* A group's: its lines' handler time together. */
static void group_time(const struct model *m, const struct model_irq_groups *gs,
		       const struct model_irq_group *g, char *buf, size_t size)
{
	double us = 0;
	bool any = false;

	for (size_t k = 0; k < g->n; k++) {
		const struct model_irq *q = &m->irqs[gs->members[g->first + k]];

		us += q->has_time ? q->time_us_s : 0;
		any |= q->has_time;
	}
	if (any)
		draw_pct(buf, size, W_TIME, us / 1e4);
	else
		snprintf(buf, size, "%*s", W_TIME, "-");
}

/* Where the columns go at this width: the handler time with --trace, the
 * affinities when they fit. */
struct irqs_cols {
	bool timed;
	int wt; /* the time column and its space, 0 without */
	bool aff;
	int x, w;  /* the panel's */
	int x_dev; /* the device column's x */
	int x_aff; /* the affinities' (aff) */
	int x_on;  /* the CPUs it landed on */
};

static struct irqs_cols cols_place(const struct model *m, struct rect r)
{
	struct irqs_cols c = { .timed = any_time(m), .x = r.x, .w = r.w };

	c.wt = c.timed ? W_TIME + 1 : 0;
	c.aff = r.w >= W_IRQ + W_TOTAL + c.wt + W_DEV + 2 * W_AFF + W_ONCPUS + 5;
	c.x_dev = r.x + W_IRQ + 1 + W_TOTAL + 1 + c.wt;
	c.x_on = c.x_dev + W_DEV + 1 + (c.aff ? 2 * (W_AFF + 1) : 0);
	c.x_aff = c.x_on - 2 * (W_AFF + 1);
	return c;
}

/* The title: the lines shown (rows when grouped by device). */
static void draw_irqs_title(struct ui *ui, struct rect r, size_t nlines)
{
	const struct panel *p = &ui->panels[PANEL_IRQS];
	char label[48];

	if (ui->irqg.groups.ngroups) {
		/* the counts are rows: say that lines are grouped */
		snprintf(label, sizeof(label), "%s, by device (Enter expands)",
			 irqs_sorts[p->sort]);
		draw_title(ui, PANEL_IRQS, r, "IRQs", label, nlines, nlines, ui->irqs_hidden);
	} else {
		draw_title(ui, PANEL_IRQS, r, "IRQs", irqs_sorts[p->sort], nlines,
			   nlines + ui->irqs_hidden, ui->irqs_hidden);
	}
}

static void draw_cols_header(int y, const struct irqs_cols *c)
{
	char hdr[256];

	if (c->timed)
		snprintf(hdr, sizeof(hdr), "%-*s %*s %*s %-*s", W_IRQ, "IRQ", W_TOTAL, "total/s",
			 W_TIME, "%cpu", W_DEV, "device");
	else
		snprintf(hdr, sizeof(hdr), "%-*s %*s %-*s", W_IRQ, "IRQ", W_TOTAL, "total/s", W_DEV,
			 "device");
	ui_put(y, c->x, c->w, A_BOLD, hdr);
	if (c->aff) {
		snprintf(hdr, sizeof(hdr), "%-*s %-*s", W_AFF, "affinity", W_AFF, "effective");
		ui_put(y, c->x_aff, 2 * (W_AFF + 1), A_BOLD, hdr);
	}
	ui_put(y, c->x_on, c->w - (c->x_on - c->x), A_BOLD, "on CPUs (/s)");
}

/* A device's group: "[64]", its total, "+ nvme0" (- expanded), its spread. */
static void draw_group_row(const struct ui *ui, const struct irqs_cols *c,
			   const struct model_irq_group *g, int y, int base)
{
	int xs = c->aff ? c->x_aff : c->x_on;
	char num[16], line[256];

	snprintf(line, sizeof(line), "[%zu]", g->n);
	ui_put(y, c->x, W_IRQ, base | A_BOLD, line);
	ui_fmt_num(num, sizeof(num), W_TOTAL, g->total_s);
	ui_put(y, c->x + W_IRQ + 1, W_TOTAL, base, num);
	if (c->timed) {
		group_time(&ui->model, &ui->irqg.groups, g, num, sizeof(num));
		ui_put(y, c->x_dev - c->wt, W_TIME, base, num);
	}
	snprintf(line, sizeof(line), "%s %s", expanded(ui, g->name) ? "-" : "+", g->name);
	ui_put(y, c->x_dev, W_DEV, base | A_BOLD, line);
	group_spread(g, line, sizeof(line));
	ui_put(y, xs, c->w - (xs - c->x), base, line);
}

/* An interrupt line i of the model: its total, time, device (indented
 * under its expanded group), affinities and the CPUs it landed on. */
static void draw_line_row(const struct ui *ui, const struct irqs_cols *c, size_t i, int y, int base)
{
	const struct model_irq *q = &ui->model.irqs[i];
	char num[16], line[256];

	ui_put(y, c->x, W_IRQ, base | A_BOLD, q->name);
	if (q->valid)
		ui_fmt_num(num, sizeof(num), W_TOTAL, q->total_s);
	else
		snprintf(num, sizeof(num), "%*s", W_TOTAL, "-");
	ui_put(y, c->x + W_IRQ + 1, W_TOTAL, base, num);
	if (c->timed) {
		time_cell(q, num, sizeof(num));
		ui_put(y, c->x_dev - c->wt, W_TIME, base, num);
	}
	if (ui->irqg.groups.ngroups && ui->irqg.groups.group_of[i] >= 0) {
		/* a line of an expanded group, indented under it */
		snprintf(line, sizeof(line), "  %s", q->actions);
		ui_put(y, c->x_dev, W_DEV, base, line);
	} else {
		ui_put(y, c->x_dev, W_DEV, base, q->actions[0] ? q->actions : q->chip);
	}
	if (c->aff) {
		ui_put(y, c->x_aff, W_AFF, base,
		       q->has_smp   ? q->smp_list
		       : q->numeric ? "n/a"
				    : "");
		ui_put(y, c->x_aff + W_AFF + 1, W_AFF, base,
		       q->has_eff   ? q->eff_list
		       : q->numeric ? "n/a"
				    : "");
	}
	landed(q, line, sizeof(line), c->w - (c->x_on - c->x));
	ui_put(y, c->x_on, c->w - (c->x_on - c->x), base, line);
}

static void irqs_draw(struct ui *ui, struct rect r)
{
	struct panel *p = &ui->panels[PANEL_IRQS];
	const struct model *m = &ui->model;
	struct irqs_cols c;
	int nics;
	/* the NIC lines lead the order (drawn above the header), the table follows */
	size_t nn = ui->irqs_nic_rows <= p->norder ? ui->irqs_nic_rows : p->norder;
	size_t nlines = p->norder - nn;

	draw_irqs_title(ui, r, nlines);
	/* the NICs' lines under the title, leaving the header and a row */
	nics = view_nics_lines(ui);
	if (nics > r.h - 3)
		nics = r.h - 3 > 0 ? r.h - 3 : 0;
	if (nics) {
		view_nics_draw(ui, (struct rect){ r.y + 1, r.x, nics, r.w });
		r.y += nics;
		r.h -= nics;
	}
	if (r.h < 2)
		return;
	c = cols_place(m, r);
	draw_cols_header(r.y + 1, &c);
	p->visible = r.h - 2;
	if (p->visible <= 0)
		return;
	if (nlines == 0) {
		ui_put(r.y + 2, r.x, r.w, A_DIM,
		       !m->have_sample ? "  waiting for the first sample..."
		       : !m->has_rates ? "  waiting for a second sample..."
		       : p->filter[0]  ? "  no interrupt line matches the filter"
				       : "  no interrupts in this interval");
		return;
	}
	if (p->sel >= nn)
		p->top = draw_follow(p->top, p->sel - nn, (size_t)p->visible);
	else if (p->top >= nlines)
		p->top = 0;
	for (int row = 0; row < p->visible && p->top + (size_t)row < nlines; row++) {
		size_t idx = nn + p->top + (size_t)row;
		int y = r.y + 2 + row;
		int base = ui->focus == PANEL_IRQS && idx == p->sel ? A_REVERSE : 0;

		ui_fill(y, r.x, r.w, base);
		if (p->order[idx] >= m->nirqs)
			draw_group_row(ui, &c, &ui->irqg.groups.groups[p->order[idx] - m->nirqs], y,
				       base);
		else
			draw_line_row(ui, &c, p->order[idx], y, base);
	}
}

/* Title, the NICs' lines, header and the rows (one line when there are none). */
static int irqs_lines(struct ui *ui, int w)
{
	const struct panel *p = &ui->panels[PANEL_IRQS];

	size_t nlines =
	    p->norder - (ui->irqs_nic_rows <= p->norder ? ui->irqs_nic_rows : p->norder);

	(void)w;
	return 2 + (nlines ? (int)nlines : 1) + view_nics_lines(ui);
}

static void irqs_free(struct ui *ui)
{
	model_irq_groups_free(&ui->irqg.groups);
}

const struct view_ops view_irqs = {
	.name = "irqs",
	.draw = irqs_draw,
	.on_key = irqs_key,
	.lines = irqs_lines,
	.order = irqs_order,
	.sorts = irqs_sorts,
	.row_name = irqs_row_name,
	.free = irqs_free,
};
