// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CPUs panel: per core %irq, %soft, interrupts per second, the hottest
 * softirq and a load bar, "all" first; the hot core the model marked is
 * drawn so it stands out, in colour and in text (HOT), and the cores taking
 * the daemon's bench job's device interrupts say "job"; turbostat's Busy%,
 * Bzy_MHz and deepest C-state when the sample has them. With the tracing
 * stage's softirq time (--trace) the softirq column is "%soft by vector"
 * and a line under the header splits one CPU's %soft in full (the
 * selected or the hot one), with its hardirq time. Draws the model only.
 */
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "grow.h"
#include "model_summary.h"
#include "str.h"
#include "model_worker.h"
#include "ui.h"

/* SORT_AUTO, the default: by %irq+%soft with the hot core pinned first
 * while a core is hot (on a 256-CPU host it is otherwise far off screen),
 * by number when none is. */
enum { SORT_AUTO, SORT_CPU, SORT_IRQSOFT, SORT_INTR, SORT_BUSY };

static const char *const cpus_sorts[] = { "auto", "cpu", "%irq+%soft", "intr/s", "busy", NULL };

/* mpstat -u's columns first, all of them, so a row adds up to 100 at any
 * width >= 80 (%guest, guest and gnice together, only when some CPU ran a
 * guest); then the interrupt columns, then turbostat's. */
enum col {
	C_CPU,
	C_USR,
	C_NICE,
	C_SYS,
	C_IOWAIT,
	C_IRQ,
	C_SOFT,
	C_STEAL,
	C_GUEST,
	C_IDLE,
	C_INTR,
	C_SOFTIRQ,
	C_BUSY, /* turbostat's, when the sample's turbostat rows have them */
	C_BZY,
	C_DEEP,
	C__COUNT
};

/* prio: lower is kept first as the terminal narrows (doc/tui.md). */
static const struct {
	const char *label;
	int width;
	int prio;
} cols[C__COUNT] = {
	[C_CPU] = { "CPU", 7, 0 },
	[C_USR] = { "%usr", 6, 1 },
	[C_NICE] = { "%nice", 6, 2 },
	[C_SYS] = { "%sys", 6, 3 },
	[C_IOWAIT] = { "%iowait", 7, 4 },
	[C_IRQ] = { "%irq", 6, 5 },
	[C_SOFT] = { "%soft", 6, 6 },
	[C_STEAL] = { "%steal", 6, 7 },
	[C_GUEST] = { "%guest", 6, 9 },
	[C_IDLE] = { "%idle", 6, 8 },
	[C_INTR] = { "intr/s", 8, 10 },
	[C_SOFTIRQ] = { "softirq", 16, 11 },
	[C_BUSY] = { "Busy%", 6, 13 },
	[C_BZY] = { "Bzy_MHz", 7, 12 },
	[C_DEEP] = { "deepest C-state", 15, 14 },
};

#define BAR_MIN 12 /* below this the load bar says nothing */
/* The softirq column with --trace, "BLOCK 37.9 RCU 2.8 TIMER 0.3": as wide
 * as the width leaves, from the softirq column's up to SOFTV_MAX. */
#define SOFTV_MAX 40

/* Whether this sample has softirq time by vector, and that column's
 * width now (set by cpus_draw and pick). */
static bool soft_time;
static int softv_w;
/* The CPU column while some core is marked "job": fits "127 HOT job". */
#define CPU_JOB_W 11

static double sort_value(const struct model_cpu *c, int sort)
{
	if (!c->valid)
		return -1;
	switch (sort) {
	case SORT_IRQSOFT:
		return c->irq + c->soft;
	case SORT_INTR:
		return c->has_intr ? c->intr_s : -1;
	case SORT_BUSY:
		return 100.0 - c->idle;
	}
	return 0;
}

static const struct model *sort_model;
static int sort_key;
static bool sort_hot;

/* The order the panel uses now: SORT_AUTO resolved against the model. */
static int effective_sort(const struct ui *ui, bool *ret_hot)
{
	int sort = ui->panels[PANEL_CPUS].sort;
	bool hot = model_hot_cpu(&ui->model) >= 0;

	*ret_hot = sort == SORT_AUTO && hot;
	if (sort != SORT_AUTO)
		return sort;
	return hot ? SORT_IRQSOFT : SORT_CPU;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct model_cpu *x = &sort_model->cpus[*(const size_t *)a];
	const struct model_cpu *y = &sort_model->cpus[*(const size_t *)b];
	double vx, vy;

	/* "all" stays on top whatever the sort, then (auto) the hot core */
	if ((x->cpu < 0) != (y->cpu < 0))
		return x->cpu < 0 ? -1 : 1;
	if (sort_hot && x->hot != y->hot)
		return x->hot ? -1 : 1;
	if (sort_key != SORT_CPU) {
		vx = sort_value(x, sort_key);
		vy = sort_value(y, sort_key);
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return x->cpu - y->cpu;
}

static const char *cpu_name(const struct ui *ui, size_t i)
{
	return ui->model.cpus[i].name;
}

static void cpus_order(struct ui *ui)
{
	struct panel *p = &ui->panels[PANEL_CPUS];
	const struct model *m = &ui->model;

	p->norder = 0;
	if (m->ncpus && grow((void **)&p->order, &p->order_cap, m->ncpus, sizeof(*p->order)) >= 0) {
		for (size_t i = 0; i < m->ncpus; i++) {
			const struct model_cpu *c = &m->cpus[i];

			if (c->cpu < 0 || !p->filter[0] || strcmp(c->name, p->filter) == 0 ||
			    strcasestr(c->hot_soft, p->filter) ||
			    (c->hot && strcasestr("hot", p->filter)) ||
			    (strcasestr("job", p->filter) && model_worker_irq_on_cpu(m, c->cpu)))
				p->order[p->norder++] = i;
		}
		sort_model = m;
		sort_key = effective_sort(ui, &sort_hot);
		if (p->norder > 1)
			qsort(p->order, p->norder, sizeof(*p->order), cmp_cpu);
	}
	view_keep_selection(ui, PANEL_CPUS, cpu_name);
}

/* A column's width: the CPU column widens while a core is marked "job";
 * %iowait is "%iow" in 6 when the percentages would not fit otherwise. */
static int col_w(int c, int cpu_w, bool compact)
{
	if (c == C_IOWAIT && compact)
		return 6;
	if (c == C_SOFTIRQ && soft_time)
		return softv_w;
	return c == C_CPU ? cpu_w : cols[c].width;
}

static const char *col_label(int c, bool compact)
{
	if (c == C_SOFTIRQ && soft_time)
		return "%soft by vector";
	return c == C_IOWAIT && compact ? "%iow" : cols[c].label;
}

static bool any_soft_time(const struct model *m)
{
	for (size_t i = 0; i < m->ncpus; i++)
		if (m->cpus[i].trace.has_soft || m->cpus[i].trace.has_hard)
			return true;
	return false;
}

/* The line under the header with --trace: %soft by vector in full and the
 * hardirq time of the selected CPU while the panel has the focus, else of
 * the hot core (the one the headline names), else of the first row. */
static void draw_detail(const struct ui *ui, int y, struct rect r)
{
	const struct panel *p = &ui->panels[PANEL_CPUS];
	const struct model *m = &ui->model;
	long hot = model_hot_cpu(m);
	const struct model_cpu *c;
	char split[256], buf[384];

	if (!p->norder) {
		ui_fill(y, r.x, r.w, 0);
		return;
	}
	if (ui->focus != PANEL_CPUS && hot >= 0)
		c = &m->cpus[hot];
	else
		c = &m->cpus[p->order[p->sel < p->norder ? p->sel : 0]];
	char hard[48] = "";
	int room;

	if (c->cpu < 0)
		snprintf(buf, sizeof(buf), " all CPUs by time:");
	else
		snprintf(buf, sizeof(buf), " cpu %s%s by time:", c->name, c->hot ? " HOT" : "");
	if (c->trace.has_hard)
		snprintf(hard, sizeof(hard), "%s hardirq %.2f", c->trace.has_soft ? " |" : "",
			 c->trace.hard_pct);
	/* the vectors that fit whole beside the hardirq time: nothing is cut
	 * mid-number at 80 columns */
	room = r.w - (int)strlen(buf) - (int)strlen(" %soft ") - (int)strlen(hard);
	if (room < 0)
		room = 0;
	if (room > (int)sizeof(split) - 1)
		room = (int)sizeof(split) - 1;
	model_trace_soft_split(&c->trace, 2, (int)sizeof(split) - 1, split, sizeof(split));
	if (c->trace.has_soft && !split[0]) {
		str_cat(buf, sizeof(buf), " %%soft none");
	} else if (c->trace.has_soft) {
		/* none fits whole: left out rather than said "none" */
		model_trace_soft_split(&c->trace, 2, room, split, sizeof(split));
		if (split[0])
			str_cat(buf, sizeof(buf), " %%soft %s", split);
	}
	str_cat(buf, sizeof(buf), "%s", hard);
	ui_fill(y, r.x, r.w, 0);
	ui_put(y, r.x, r.w, ui_attr(ui, PAIR_SOFT), buf);
}

/* Columns that fit, strictly by priority (the first that does not fit
 * ends the list: fields drop whole, never a later one in an earlier one's
 * place), leaving BAR_MIN for the load bar after the essentials;
 * turbostat's only when some CPU row has them (have). */
static int pick(int width, int cpu_w, bool compact, const bool *have, bool *want)
{
	int left = width;

	for (int prio = 0; prio < C__COUNT; prio++)
		for (int c = 0; c < C__COUNT; c++) {
			int w;

			if (cols[c].prio != prio || !have[c])
				continue;
			/* --trace: the vectors take what is left, up to SOFTV_MAX */
			if (c == C_SOFTIRQ && soft_time)
				softv_w = left - 1 < SOFTV_MAX ? left - 1 : SOFTV_MAX;
			w = col_w(c, cpu_w, compact);
			if (c == C_SOFTIRQ && soft_time && w < cols[C_SOFTIRQ].width)
				return left;
			/* after the essentials, keep room for the bar */
			if (prio > cols[C_SOFTIRQ].prio && left - (w + 1) < BAR_MIN + 1)
				return left;
			if (w + 1 > left)
				return left;
			want[c] = true;
			left -= w + 1;
		}
	return left;
}

/* A turbostat cell of a CPU ("all": the summary row), as turbostat prints
 * it (Busy% %.2f, Bzy_MHz %.0f); "-" when its row has none this round. */
static void turbo_cell(const struct model *m, int cpu, int k, char *buf, size_t size)
{
	const struct model_turbo_cpu *t = model_sections_turbo_cpu(&m->sections, cpu);
	int w = cols[k].width;

	if (!t || !t->valid || (k == C_BUSY && !t->has_busy) || (k == C_BZY && !t->has_bzy) ||
	    (k == C_DEEP && !t->has_deep))
		snprintf(buf, size, "%*s", w, "-");
	else if (k == C_BUSY)
		snprintf(buf, size, "%*.2f", w, t->busy_pct);
	else if (k == C_BZY)
		snprintf(buf, size, "%*.0f", w, t->bzy_mhz);
	else /* "CPU%c6" as "c6", a cpuidle state by its name */
		snprintf(buf, size, "%-8.8s%*.2f",
			 strncmp(t->deep_name, "CPU%", 4) == 0 ? t->deep_name + 4 : t->deep_name,
			 w - 8, t->deep_pct);
}

/* The load bar: each share of the CPU's time as a run of its own character
 * and colour, so it reads the same without colour; on the hot row the
 * row's colour wins. */
static void draw_bar(const struct ui *ui, int y, int x, int w, int base, const struct model_cpu *c)
{
	const struct draw_seg seg[] = {
		{ c->usr + c->nice + c->guest + c->gnice, 'u', PAIR_GOOD },
		{ c->sys + c->steal, 's', PAIR_CRIT },
		{ c->irq, 'i', PAIR_IRQ },
		{ c->soft, 'S', PAIR_SOFT },
		{ c->iowait, 'w', PAIR_WAIT },
	};

	draw_meter(ui, y, x, w, base, seg, sizeof(seg) / sizeof(seg[0]), c->hot);
}

/* The columns chosen for this draw (cols_choose), what each row is drawn to. */
struct cpus_layout {
	bool want[C__COUNT];
	int cpu_w; /* the CPU column's width */
	bool compact;
	bool job;  /* some core takes the bench job's interrupts */
	int bar_w; /* the load bar's, shown from BAR_MIN */
};

static void draw_cpus_title(struct ui *ui, struct rect r)
{
	const struct panel *p = &ui->panels[PANEL_CPUS];
	const struct model *m = &ui->model;
	bool pin;
	int sort = effective_sort(ui, &pin);
	char label[64];

	if (p->sort == SORT_AUTO)
		snprintf(label, sizeof(label), "%s",
			 pin ? "%irq+%soft, hot first" : "cpu (none hot)");
	else
		snprintf(label, sizeof(label), "%s", cpus_sorts[sort]);
	draw_title(ui, PANEL_CPUS, r, "CPUs", label, p->norder ? p->norder - 1 : 0,
		   m->ncpus ? m->ncpus - 1 : 0, 0);
}

/* The columns that fit width w: the guest and turbostat ones only when the
 * sample has them, %iowait compact when the mpstat columns need it. */
static void cols_choose(const struct model *m, int w, struct cpus_layout *l)
{
	const struct model_turbo *t = &m->sections.turbo;
	bool have[C__COUNT];
	int need;

	l->job = model_worker_has_irq_cpus(m);
	l->cpu_w = l->job ? CPU_JOB_W : cols[C_CPU].width;
	for (int c = 0; c < C__COUNT; c++) {
		have[c] = true;
		l->want[c] = false;
	}
	have[C_GUEST] = false;
	for (size_t i = 0; i < m->ncpus; i++)
		have[C_GUEST] |= m->cpus[i].valid && m->cpus[i].guest + m->cpus[i].gnice > 0;
	have[C_BUSY] = t->present && t->any_busy;
	have[C_BZY] = t->present && t->any_bzy;
	have[C_DEEP] = t->present && t->any_deep;
	/* compact: the mpstat columns need all their width, the CPU column's included */
	need = l->cpu_w + 1;
	for (int c = C_USR; c <= C_IDLE; c++)
		need += have[c] ? cols[c].width + 1 : 0;
	l->compact = need > w;
	l->bar_w = pick(w, l->cpu_w, l->compact, have, l->want);
}

static void draw_cols_header(int y, int x, const struct cpus_layout *l)
{
	for (int c = 0; c < C__COUNT; c++) {
		char lab[24];
		int w = col_w(c, l->cpu_w, l->compact);

		if (!l->want[c])
			continue;
		snprintf(lab, sizeof(lab),
			 c == C_CPU || c == C_SOFTIRQ || c == C_DEEP ? "%-*s" : "%*s", w,
			 col_label(c, l->compact));
		ui_put(y, x, w, A_BOLD, lab);
		x += w + 1;
	}
	if (l->bar_w >= BAR_MIN)
		ui_put(y, x, l->bar_w, A_BOLD, "load");
}

/* The softirq column: the vectors' time with --trace, else the hottest
 * vector and its rate. */
static void softirq_cell(const struct model_cpu *c, char *buf, size_t size)
{
	char num[16];

	if (soft_time) {
		model_trace_soft_split(&c->trace, 1, softv_w, buf, size);
		return;
	}
	buf[0] = '\0';
	if (c->hot_soft[0]) {
		ui_fmt_num(num, sizeof(num), 7, c->hot_soft_s);
		snprintf(buf, size, "%-8.8s%s", c->hot_soft, num);
	}
}

/* The percentage and rate columns' values of a CPU; intr/s -1 unknown. */
static void col_values(const struct model *m, const struct model_cpu *c, double *v)
{
	v[C_USR] = c->usr;
	v[C_NICE] = c->nice;
	v[C_SYS] = c->sys;
	v[C_STEAL] = c->steal;
	v[C_GUEST] = c->guest + c->gnice;
	v[C_IOWAIT] = c->iowait;
	v[C_IRQ] = c->irq;
	v[C_SOFT] = c->soft;
	v[C_IDLE] = c->idle;
	v[C_INTR] = c->has_intr ? c->intr_s : (c->cpu < 0 && m->has_intr_all ? m->intr_all_s : -1);
}

/* Column k of a CPU's row at x; a high %irq or %soft warns (the hot row
 * has its own colour). */
static void draw_cell(const struct ui *ui, const struct cpus_layout *l, const struct model_cpu *c,
		      int k, double v, int y, int x, int base)
{
	int w = col_w(k, l->cpu_w, l->compact);
	char buf[MODEL_REASON_MAX + 16];
	int attr = 0;

	if (k >= C_BUSY) {
		turbo_cell(&ui->model, c->cpu, k, buf, sizeof(buf));
		ui_put(y, x, w, base, buf);
		return;
	}
	if (k == C_SOFTIRQ) {
		softirq_cell(c, buf, sizeof(buf));
		ui_put(y, x, w, base, buf);
		return;
	}
	if (k == C_INTR && v < 0) {
		ui_put(y, x, w, base, "       -");
		return;
	}
	if ((k == C_IRQ || k == C_SOFT) && v >= MODEL_HOT_PCT && !c->hot)
		attr = ui_attr(ui, PAIR_WARN);
	ui_fmt_num(buf, sizeof(buf), w, v);
	ui_put(y, x, w, ui_mix(base, attr), buf);
}

/* One CPU's row at y: its name (HOT, job), its columns and load bar, or
 * why it has no rates. */
static void draw_row(const struct ui *ui, const struct cpus_layout *l, const struct model_cpu *c,
		     int y, struct rect r, int base)
{
	const struct model *m = &ui->model;
	char buf[MODEL_REASON_MAX + 16];
	int x = r.x + l->cpu_w + 1;
	double v[C__COUNT] = { 0 };

	if (c->hot)
		base = ui_mix(base, ui_attr(ui, PAIR_HOT));
	ui_fill(y, r.x, r.w, base);
	snprintf(buf, sizeof(buf), "%s%s%s", c->name, c->hot ? " HOT" : "",
		 l->job && model_worker_irq_on_cpu(m, c->cpu) ? " job" : "");
	ui_put(y, r.x, l->cpu_w, base | A_BOLD, buf);
	if (!m->has_rates || !c->valid) {
		snprintf(buf, sizeof(buf), "(no rates: %s)",
			 !m->has_rates	? "waiting for a second sample"
			 : c->reason[0] ? c->reason
					: "offline");
		ui_put(y, x, r.w - (x - r.x), base | A_DIM, buf);
		return;
	}
	col_values(m, c, v);
	for (int k = C_USR; k < C__COUNT; k++) {
		if (!l->want[k])
			continue;
		draw_cell(ui, l, c, k, v[k], y, x, base);
		x += col_w(k, l->cpu_w, l->compact) + 1;
	}
	if (l->bar_w >= BAR_MIN)
		draw_bar(ui, y, x, l->bar_w, base, c);
}

static void cpus_draw(struct ui *ui, struct rect r)
{
	struct panel *p = &ui->panels[PANEL_CPUS];
	const struct model *m = &ui->model;
	struct cpus_layout l;

	draw_cpus_title(ui, r);
	/* a big host's heat map under the title, the table below it */
	if (ui->heat.alloc > 0 && r.h >= 2 + ui->heat.alloc) {
		view_heat.draw(ui, (struct rect){ r.y + 1, r.x, ui->heat.alloc, r.w });
		r.y += ui->heat.alloc;
		r.h -= ui->heat.alloc;
	} else {
		ui->heat.rows = 0; /* nothing to click on */
	}
	if (r.h < 2)
		return;
	soft_time = any_soft_time(m);
	cols_choose(m, r.w, &l);
	draw_cols_header(r.y + 1, r.x, &l);
	/* --trace: the selected CPU's split in full, under the header */
	if (soft_time && r.h >= 4) {
		draw_detail(ui, r.y + 2, r);
		r.y++;
		r.h--;
	}
	p->visible = r.h - 2;
	if (p->visible <= 0)
		return;
	if (p->norder == 0) {
		ui_put(r.y + 2, r.x, r.w, A_DIM,
		       !m->have_sample ? "  waiting for the first sample..."
		       : !m->has_rates ? "  measuring the first interval..."
				       : "  /proc/stat unavailable");
		return;
	}
	p->top = draw_follow(p->top, p->sel, (size_t)p->visible);
	for (int row = 0; row < p->visible && p->top + (size_t)row < p->norder; row++) {
		size_t idx = p->top + (size_t)row;

		draw_row(ui, &l, &m->cpus[p->order[idx]], r.y + 2 + row, r,
			 ui->focus == PANEL_CPUS && idx == p->sel ? A_REVERSE : 0);
	}
}

/* Title, header, the rows (one line when there are none) and the heat map
 * the layout gave it. */
static int cpus_lines(struct ui *ui, int w)
{
	const struct panel *p = &ui->panels[PANEL_CPUS];

	(void)w;
	return 2 + (p->norder ? (int)p->norder : 1) + ui->heat.alloc +
	       (any_soft_time(&ui->model) ? 1 : 0);
}

const struct view_ops view_cpus = {
	.name = "cpus",
	.draw = cpus_draw,
	.lines = cpus_lines,
	.order = cpus_order,
	.sorts = cpus_sorts,
	.row_name = cpu_name,
};
