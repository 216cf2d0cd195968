// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The disks panel: iostat -x columns of each device, as many as the width
 * allows (most telling first), %util and await coloured over their
 * thresholds. Draws the model only.
 */
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "ui.h"

#define NAME_W 10

enum { SORT_NAME, SORT_UTIL, SORT_AWAIT, SORT_AQU, SORT_IOPS, SORT_KBS };

const char *const view_disks_sorts[] = { "name", "%util", "await", "aqu-sz", "IOPS", "kB/s", NULL };

static double sort_value(const struct model_disk *d, int sort)
{
	if (!d->valid)
		return -1;
	switch (sort) {
	case SORT_UTIL:
		return d->v[MD_UTIL];
	case SORT_AWAIT:
		return d->v[MD_RAWAIT] > d->v[MD_WAWAIT] ? d->v[MD_RAWAIT] : d->v[MD_WAWAIT];
	case SORT_AQU:
		return d->v[MD_AQU];
	case SORT_IOPS:
		return d->v[MD_RS] + d->v[MD_WS] + d->v[MD_DS] + d->v[MD_FS];
	case SORT_KBS:
		return d->v[MD_RKBS] + d->v[MD_WKBS] + d->v[MD_DKBS];
	}
	return 0;
}

/* qsort has no context argument; the panel being sorted is set just before. */
static const struct model *sort_model;
static int sort_key;

static int cmp_disk(const void *a, const void *b)
{
	const struct model_disk *x = &sort_model->disks[*(const size_t *)a];
	const struct model_disk *y = &sort_model->disks[*(const size_t *)b];
	double vx, vy;

	if (sort_key != SORT_NAME) {
		vx = sort_value(x, sort_key);
		vy = sort_value(y, sort_key);
		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

static bool disk_matches(const struct model_disk *d, const char *filter)
{
	return !filter[0] || strcasestr(d->name, filter) || strcasestr(d->dm_name, filter);
}

static const char *disk_name(const struct ui *ui, size_t i)
{
	return ui->model.disks[i].name;
}

void view_disks_order(struct ui *ui)
{
	struct panel *p = &ui->panels[PANEL_DISKS];
	const struct model *m = &ui->model;

	p->norder = 0;
	if (m->ndisks == 0 ||
	    grow((void **)&p->order, &p->order_cap, m->ndisks, sizeof(*p->order)) < 0) {
		view_keep_selection(ui, PANEL_DISKS, disk_name);
		return;
	}
	for (size_t i = 0; i < m->ndisks; i++)
		if (disk_matches(&m->disks[i], p->filter))
			p->order[p->norder++] = i;
	sort_model = m;
	sort_key = p->sort;
	if (p->norder > 1)
		qsort(p->order, p->norder, sizeof(*p->order), cmp_disk);
	view_keep_selection(ui, PANEL_DISKS, disk_name);
}

/* Columns shown at this width: by priority, then drawn in iostat's order. */
static size_t pick_columns(const struct model *m, int width, int *ret_cols)
{
	bool want[MD__COUNT] = { false };
	bool present[MD__COUNT] = { false };
	int left = width - NAME_W;
	size_t n = 0;

	for (size_t i = 0; i < m->ndisks; i++)
		for (int c = 0; c < MD__COUNT; c++)
			present[c] |= m->disks[i].has[c];
	for (int prio = 0; prio < MD__COUNT * 2; prio++)
		for (int c = 0; c < MD__COUNT; c++)
			if (model_disk_cols[c].prio == prio && present[c] && !want[c] &&
			    model_disk_cols[c].width + 1 <= left) {
				want[c] = true;
				left -= model_disk_cols[c].width + 1;
			}
	for (int c = 0; c < MD__COUNT; c++)
		if (want[c])
			ret_cols[n++] = c;
	return n;
}

static int value_attr(const struct ui *ui, int col, double v)
{
	if (col == MD_UTIL && v >= 80.0)
		return ui_attr(ui, PAIR_CRIT);
	if ((col == MD_RAWAIT || col == MD_WAWAIT) && v > ui->await_ms)
		return ui_attr(ui, PAIR_WARN);
	return 0;
}

void view_disks_draw(struct ui *ui, struct rect r)
{
	struct panel *p = &ui->panels[PANEL_DISKS];
	const struct model *m = &ui->model;
	bool focused = ui->focus == PANEL_DISKS;
	int cols[MD__COUNT];
	size_t ncols;
	int x;

	view_title(ui, PANEL_DISKS, r, "Disks", view_disks_sorts, p->norder, m->ndisks);
	if (r.h < 2)
		return;
	ncols = pick_columns(m, r.w, cols);
	ui_put(r.y + 1, r.x, NAME_W, A_BOLD, "Device");
	x = r.x + NAME_W;
	for (size_t c = 0; c < ncols; c++) {
		const struct model_col *mc = &model_disk_cols[cols[c]];
		char lab[16];

		snprintf(lab, sizeof(lab), "%*s", mc->width, mc->label);
		ui_put(r.y + 1, x + 1, mc->width, A_BOLD, lab);
		x += mc->width + 1;
	}
	p->visible = r.h - 2;
	if (p->visible <= 0)
		return;
	if (p->norder == 0) {
		ui_put(r.y + 2, r.x, r.w, A_DIM,
		       !m->have_sample ? "  waiting for the first sample..."
		       : p->filter[0]  ? "  no device matches the filter"
				       : "  no block devices");
		return;
	}
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)p->visible)
		p->top = p->sel - (size_t)p->visible + 1;
	for (int row = 0; row < p->visible && p->top + (size_t)row < p->norder; row++) {
		size_t idx = p->top + (size_t)row;
		const struct model_disk *d = &m->disks[p->order[idx]];
		int y = r.y + 2 + row;
		int base = focused && idx == p->sel ? A_REVERSE : 0;

		ui_fill(y, r.x, r.w, base);
		ui_put(y, r.x, NAME_W - 1, base | A_BOLD, d->name);
		if (!m->has_rates || !d->valid) {
			char why[MODEL_REASON_MAX + 16];

			snprintf(why, sizeof(why), "(no rates: %s)",
				 !m->has_rates	? "waiting for a second sample"
				 : d->reason[0] ? d->reason
						: "not in the previous sample");
			ui_put(y, r.x + NAME_W, r.w - NAME_W, base | A_DIM, why);
			continue;
		}
		x = r.x + NAME_W;
		for (size_t c = 0; c < ncols; c++) {
			const struct model_col *mc = &model_disk_cols[cols[c]];
			char num[32];

			if (d->has[cols[c]]) {
				ui_fmt_num(num, sizeof(num), mc->width, d->v[cols[c]]);
				ui_put(y, x + 1, mc->width,
				       ui_mix(base, value_attr(ui, cols[c], d->v[cols[c]])), num);
			} else {
				ui_put(y, x + 1, mc->width, base, "     -");
			}
			x += mc->width + 1;
		}
	}
}
