// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The IRQs panel: a line per NIC (link, rates, channels, where its queue
 * vectors landed: view_ext.c), then the interrupt lines that fired in the
 * interval, busiest first, where they landed and where they are allowed to
 * go (the affinities the source read from /proc/irq/N). Draws the model only.
 */
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "ui.h"

enum { SORT_RATE, SORT_IRQ };

const char *const view_irqs_sorts[] = { "total/s", "irq", NULL };

#define W_IRQ	 6
#define W_TOTAL	 8
#define W_DEV	 16
#define W_AFF	 9
#define W_ONCPUS 12 /* least width worth showing */

static const struct model *sort_model;
static int sort_key;

static int cmp_irq(const void *a, const void *b)
{
	const struct model_irq *x = &sort_model->irqs[*(const size_t *)a];
	const struct model_irq *y = &sort_model->irqs[*(const size_t *)b];

	if (sort_key == SORT_RATE && x->total_s != y->total_s)
		return x->total_s < y->total_s ? 1 : -1;
	/* numbered IRQs in numeric order, then the named lines (LOC, RES...) */
	if (x->numeric != y->numeric)
		return x->numeric ? -1 : 1;
	if (x->numeric && x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool irq_matches(const struct model_irq *q, const char *filter)
{
	if (!filter[0])
		return q->valid && q->total_s > 0; /* only what fired this interval */
	return strcasestr(q->name, filter) || strcasestr(q->actions, filter) ||
	       strcasestr(q->chip, filter);
}

static const char *irq_name(const struct ui *ui, size_t i)
{
	return ui->model.irqs[i].name;
}

void view_irqs_order(struct ui *ui)
{
	struct panel *p = &ui->panels[PANEL_IRQS];
	const struct model *m = &ui->model;

	p->norder = 0;
	if (m->nirqs && grow((void **)&p->order, &p->order_cap, m->nirqs, sizeof(*p->order)) >= 0) {
		for (size_t i = 0; i < m->nirqs; i++)
			if (irq_matches(&m->irqs[i], p->filter))
				p->order[p->norder++] = i;
		sort_model = m;
		sort_key = p->sort;
		if (p->norder > 1)
			qsort(p->order, p->norder, sizeof(*p->order), cmp_irq);
	}
	view_keep_selection(ui, PANEL_IRQS, irq_name);
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

void view_irqs_draw(struct ui *ui, struct rect r)
{
	struct panel *p = &ui->panels[PANEL_IRQS];
	const struct model *m = &ui->model;
	bool focused = ui->focus == PANEL_IRQS;
	bool aff = r.w >= W_IRQ + W_TOTAL + W_DEV + 2 * W_AFF + W_ONCPUS + 5;
	int x_on = r.x + W_IRQ + 1 + W_TOTAL + 1 + W_DEV + 1 + (aff ? 2 * (W_AFF + 1) : 0);
	char hdr[256];
	int nics;

	view_title(ui, PANEL_IRQS, r, "IRQs", view_irqs_sorts, p->norder, m->nirqs);
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
	snprintf(hdr, sizeof(hdr), "%-*s %*s %-*s", W_IRQ, "IRQ", W_TOTAL, "total/s", W_DEV,
		 "device");
	ui_put(r.y + 1, r.x, r.w, A_BOLD, hdr);
	if (aff) {
		snprintf(hdr, sizeof(hdr), "%-*s %-*s", W_AFF, "affinity", W_AFF, "effective");
		ui_put(r.y + 1, x_on - 2 * (W_AFF + 1), 2 * (W_AFF + 1), A_BOLD, hdr);
	}
	ui_put(r.y + 1, x_on, r.w - (x_on - r.x), A_BOLD, "on CPUs (/s)");
	p->visible = r.h - 2;
	if (p->visible <= 0)
		return;
	if (p->norder == 0) {
		ui_put(r.y + 2, r.x, r.w, A_DIM,
		       !m->have_sample ? "  waiting for the first sample..."
		       : !m->has_rates ? "  waiting for a second sample..."
		       : p->filter[0]  ? "  no interrupt line matches the filter"
				       : "  no interrupts in this interval");
		return;
	}
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)p->visible)
		p->top = p->sel - (size_t)p->visible + 1;
	for (int row = 0; row < p->visible && p->top + (size_t)row < p->norder; row++) {
		size_t idx = p->top + (size_t)row;
		const struct model_irq *q = &m->irqs[p->order[idx]];
		int y = r.y + 2 + row;
		int base = focused && idx == p->sel ? A_REVERSE : 0;
		char num[16], line[256];

		ui_fill(y, r.x, r.w, base);
		ui_put(y, r.x, W_IRQ, base | A_BOLD, q->name);
		if (q->valid)
			ui_fmt_num(num, sizeof(num), W_TOTAL, q->total_s);
		else
			snprintf(num, sizeof(num), "%*s", W_TOTAL, "-");
		ui_put(y, r.x + W_IRQ + 1, W_TOTAL, base, num);
		ui_put(y, r.x + W_IRQ + W_TOTAL + 2, W_DEV, base,
		       q->actions[0] ? q->actions : q->chip);
		if (aff) {
			int xa = x_on - 2 * (W_AFF + 1);

			ui_put(y, xa, W_AFF, base,
			       q->has_smp   ? q->smp_list
			       : q->numeric ? "n/a"
					    : "");
			ui_put(y, xa + W_AFF + 1, W_AFF, base,
			       q->has_eff   ? q->eff_list
			       : q->numeric ? "n/a"
					    : "");
		}
		landed(q, line, sizeof(line), r.w - (x_on - r.x));
		ui_put(y, x_on, r.w - (x_on - r.x), base, line);
	}
}
