// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The disks panel: iostat -x columns of each device, as many as the width
 * allows (by model_disk_cols' priority: the saturated-or-slow, reads-or-
 * writes columns first), %util and await coloured over their thresholds,
 * and the daemon's bench job on a line of its own under its device's row;
 * with --trace the p99 of reads and writes beside their mean await (where
 * the width allows: they come after the eight).
 * The busy devices first: by %util then IOPS, devices without IO in the
 * interval hidden (iostat -z) until z, loop/zram/ram under the disks.
 * Draws the model only.
 */
#include <ncurses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "advise.h"
#include "grow.h"
#include "kname.h"
#include "model_worker.h"
#include "str.h"
#include "ui.h"

#define NAME_W 10

/* The first is the default: the busy device first. */
enum { SORT_UTIL, SORT_IOPS, SORT_AWAIT, SORT_AQU, SORT_KBS, SORT_NAME };

static const char *const disks_sorts[] = {
	"%util", "IOPS", "await", "aqu-sz", "kB/s", "name", NULL
};

static double disk_iops(const struct model_disk *d)
{
	return d->v[MD_RS] + d->v[MD_WS] + d->v[MD_DS] + d->v[MD_FS];
}

/* No IO in the interval, as iostat -z omits it: no request completed and
 * none in flight. A row without rates is not idle: it says why. */
static bool disk_idle(const struct model *m, const struct model_disk *d)
{
	return m->has_rates && d->valid && disk_iops(d) == 0 && d->v[MD_UTIL] == 0 &&
	       d->v[MD_AQU] == 0 && d->in_flight == 0;
}

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
		return disk_iops(d);
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

	/* loop/zram/ram under the disks whatever their numbers, so four idle or
	 * busy loop devices never push the disk they sit on off the first screen */
	if (kname_virtual_disk(x->name) != kname_virtual_disk(y->name))
		return kname_virtual_disk(x->name) ? 1 : -1;
	if (sort_key != SORT_NAME) {
		vx = sort_value(x, sort_key);
		vy = sort_value(y, sort_key);
		if (vx != vy)
			return vx < vy ? 1 : -1;
		/* %util ties (two saturated disks, many idle ones): by IOPS */
		vx = sort_value(x, SORT_IOPS);
		vy = sort_value(y, SORT_IOPS);
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

static void disks_order(struct ui *ui)
{
	struct panel *p = &ui->panels[PANEL_DISKS];
	const struct model *m = &ui->model;

	p->norder = 0;
	if (m->ndisks == 0 ||
	    grow((void **)&p->order, &p->order_cap, m->ndisks, sizeof(*p->order)) < 0) {
		view_keep_selection(ui, PANEL_DISKS, disk_name);
		return;
	}
	ui->disks_hidden = 0;
	for (size_t i = 0; i < m->ndisks; i++) {
		if (!disk_matches(&m->disks[i], p->filter))
			continue;
		/* a filter names what it wants: idle or not */
		if (!ui->show_idle && !p->filter[0] && disk_idle(m, &m->disks[i])) {
			ui->disks_hidden++;
			continue;
		}
		p->order[p->norder++] = i;
	}
	sort_model = m;
	sort_key = p->sort;
	if (p->norder > 1)
		qsort(p->order, p->norder, sizeof(*p->order), cmp_disk);
	view_keep_selection(ui, PANEL_DISKS, disk_name);
}

/* Flushes are slow beside writes on some disk: a commit waits on its
 * flush, so f_await is the pain a database feels, however small w_await
 * reads (doc/tui.md). */
static bool flushes_slow(const struct model *m)
{
	for (size_t i = 0; i < m->ndisks; i++) {
		const struct model_disk *d = &m->disks[i];
		double w = d->has[MD_WAWAIT] ? d->v[MD_WAWAIT] : 0;

		if (d->has[MD_FS] && d->has[MD_FAWAIT] &&
		    advise_flush_slow(d->v[MD_FS], d->v[MD_FAWAIT], w))
			return true;
	}
	return false;
}

/* A column's rank as the terminal narrows: the table's, except that slow
 * flushes put f_await and f/s right after w_await. */
static int col_rank(int c, bool flush)
{
	if (flush && (c == MD_FAWAIT || c == MD_FS))
		return 2 * model_disk_cols[MD_WAWAIT].prio + 1;
	return 2 * model_disk_cols[c].prio;
}

/* Columns shown at this width: by priority, then drawn in iostat's order. */
static size_t pick_columns(const struct model *m, int width, int *ret_cols)
{
	bool want[MD__COUNT] = { false };
	bool present[MD__COUNT] = { false };
	bool flush = flushes_slow(m);
	int left = width - NAME_W;
	size_t n = 0;

	for (size_t i = 0; i < m->ndisks; i++)
		for (int c = 0; c < MD__COUNT; c++)
			present[c] |= m->disks[i].has[c];
	/* strictly by priority: the first column that does not fit ends the
	 * list, so a narrow merge column never takes a wider throughput's place */
	for (int prio = 0; prio < MD__COUNT * 4; prio++)
		for (int c = 0; c < MD__COUNT; c++) {
			if (col_rank(c, flush) != prio || !present[c] || want[c])
				continue;
			if (model_disk_cols[c].width + 1 > left)
				goto done;
			want[c] = true;
			left -= model_disk_cols[c].width + 1;
		}
done:
	for (int c = 0; c < MD__COUNT; c++)
		if (want[c])
			ret_cols[n++] = c;
	return n;
}

static int value_attr(const struct ui *ui, int col, double v)
{
	if (col == MD_UTIL && v >= 80.0)
		return ui_attr(ui, PAIR_CRIT);
	if ((col == MD_RAWAIT || col == MD_WAWAIT || col == MD_FAWAIT) && v > ui->await_ms)
		return ui_attr(ui, PAIR_WARN);
	return 0;
}

/* Milliseconds from nanoseconds, with the decimals that matter at that size. */
static void fmt_ms(char *buf, size_t size, double ns)
{
	double ms = ns / 1e6;

	if (ms < 0.01) /* a RAM-backed target completes in well under a microsecond */
		snprintf(buf, size, "%.4f", ms);
	else if (ms < 1)
		snprintf(buf, size, "%.3f", ms);
	else if (ms < 100)
		snprintf(buf, size, "%.2f", ms);
	else
		snprintf(buf, size, "%.0f", ms);
}

/*
 * "job io_uring randread qd32: 41230 IOPS 168.9 MB/s lat avg 0.774 ms p99
 * 1.30 ms 12.0s": while it runs the rates over the daemon's last interval,
 * once ended ("done", "stopped") fio's measured-period rates. Latencies are
 * the completion latencies so far. Both directions of a mixed job are given
 * apart. away: the line is not under the device's row, so it names the
 * target.
 */
static void format_job(const struct model_worker *w, bool away, char *buf, size_t size)
{
	const struct model_worker_dir *rd = &w->dir[MW_READ], *wr = &w->dir[MW_WRITE];
	bool ended = !model_worker_active(w);
	bool both = rd->ios && wr->ios;
	double iops[MW__DIRS], bw = 0;
	char a[32], b[32];

	buf[0] = '\0';
	for (int d = 0; d < MW__DIRS; d++) {
		iops[d] = ended ? w->dir[d].iops : w->dir[d].iops_now;
		bw += ended ? w->dir[d].bw_bytes : w->dir[d].bw_bytes_now;
	}
	str_cat(buf, size, "  job %s %s qd%u", w->engine, w->rw, w->iodepth);
	if (w->numjobs > 1)
		str_cat(buf, size, " x%u", w->numjobs);
	if (w->sweep_points)
		str_cat(buf, size, " sweep %u/%u", w->sweep_point, w->sweep_points);
	else if (w->precondition && !ended)
		str_cat(buf, size, " precondition");
	if (ended || w->state == MW_STARTING)
		str_cat(buf, size, " %s", model_worker_state_word(w->state));
	str_cat(buf, size, ":");
	if (w->state == MW_FAILED) {
		str_cat(buf, size, " %s", w->error[0] ? w->error : "(no reason given)");
	} else if (w->state != MW_STARTING) {
		str_cat(buf, size, " %.0f IOPS", iops[MW_READ] + iops[MW_WRITE]);
		if (both)
			str_cat(buf, size, " (r %.0f w %.0f)", iops[MW_READ], iops[MW_WRITE]);
		/* MB as fio's MB/s: 10^6 bytes */
		str_cat(buf, size, " %.1f MB/s", bw / 1e6);
		if (both && rd->clat_n && wr->clat_n) {
			fmt_ms(a, sizeof(a), rd->clat_mean_ns);
			fmt_ms(b, sizeof(b), wr->clat_mean_ns);
			str_cat(buf, size, " lat avg r %s w %s ms", a, b);
			if (rd->has_p99 && wr->has_p99) {
				fmt_ms(a, sizeof(a), rd->clat_p99_ns);
				fmt_ms(b, sizeof(b), wr->clat_p99_ns);
				str_cat(buf, size, " p99 r %s w %s ms", a, b);
			}
		} else if (rd->clat_n || wr->clat_n) {
			const struct model_worker_dir *d = rd->clat_n ? rd : wr;

			fmt_ms(a, sizeof(a), d->clat_mean_ns);
			str_cat(buf, size, " lat avg %s ms", a);
			if (d->has_p99) {
				fmt_ms(a, sizeof(a), d->clat_p99_ns);
				str_cat(buf, size, " p99 %s ms", a);
			}
		}
	}
	if (w->planned_s > 0 && w->state < MW_COMPLETED)
		str_cat(buf, size, " %.1f/%.0fs", w->runtime_s, w->planned_s);
	else
		str_cat(buf, size, " %.1fs", w->elapsed_s);
	if (away || w->state == MW_STARTING)
		str_cat(buf, size, "  on %s%s%s%s", w->filename, w->device[0] ? " (" : "",
			w->device, w->device[0] ? ")" : "");
}

static void draw_job(const struct ui *ui, int y, struct rect r, const struct model_worker *w,
		     bool away)
{
	char buf[512];
	int attr;

	format_job(w, away, buf, sizeof(buf));
	if (w->state == MW_FAILED)
		attr = ui_attr(ui, PAIR_WARN);
	else if (model_worker_active(w))
		attr = ui_attr(ui, PAIR_GOOD) | (int)A_BOLD;
	else
		attr = 0; /* the result, kept a while: plain */
	ui_fill(y, r.x, r.w, 0);
	ui_put(y, r.x, r.w, attr, buf);
}

static void draw_row(const struct ui *ui, int y, struct rect r, const struct model_disk *d,
		     int base, const int *cols, size_t ncols)
{
	const struct model *m = &ui->model;
	int x;

	ui_fill(y, r.x, r.w, base);
	ui_put(y, r.x, NAME_W - 1, base | A_BOLD, d->name);
	if (!m->has_rates || !d->valid) {
		char why[MODEL_REASON_MAX + 16];

		snprintf(why, sizeof(why), "(no rates: %s)",
			 !m->has_rates	? "waiting for a second sample"
			 : d->reason[0] ? d->reason
					: "not in the previous sample");
		ui_put(y, r.x + NAME_W, r.w - NAME_W, base | A_DIM, why);
		return;
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

static void disks_draw(struct ui *ui, struct rect r)
{
	struct panel *p = &ui->panels[PANEL_DISKS];
	const struct model *m = &ui->model;
	const struct model_worker *w = model_worker_get(m);
	bool focused = ui->focus == PANEL_DISKS;
	size_t under = SIZE_MAX; /* the row the job line goes under */
	int cols[MD__COUNT];
	size_t ncols;
	bool job;
	int x, y;

	draw_title(ui, PANEL_DISKS, r, "Disks", disks_sorts[p->sort], p->norder, m->ndisks,
		   ui->disks_hidden);
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
	/* the job's line, when it leaves room for a device row */
	job = w && r.h - 2 >= 2;
	p->visible = r.h - 2 - (job ? 1 : 0);
	if (p->visible <= 0)
		return;
	y = r.y + 2;
	if (p->norder == 0) {
		if (job)
			draw_job(ui, y++, r, w, true);
		/* the embedded sampler's first document has no disk rows yet:
		 * that is "measuring", not "no devices" */
		ui_put(y, r.x, r.w, A_DIM,
		       !m->have_sample	  ? "  waiting for the first sample..."
		       : p->filter[0]	  ? "  no device matches the filter"
		       : ui->disks_hidden ? "  no IO in this interval on any device (z shows them)"
		       : !m->has_rates	  ? "  measuring the first interval..."
					  : "  no block devices");
		return;
	}
	p->top = draw_follow(p->top, p->sel, (size_t)p->visible);
	for (int row = 0;
	     job && w->device[0] && row < p->visible && p->top + (size_t)row < p->norder; row++)
		if (strcmp(m->disks[p->order[p->top + (size_t)row]].name, w->device) == 0)
			under = p->top + (size_t)row;
	/* a file on a device not in the table (tmpfs), a filtered or scrolled
	 * out device: the line goes first and names the target */
	if (job && under == SIZE_MAX)
		draw_job(ui, y++, r, w, true);
	for (int row = 0; row < p->visible && p->top + (size_t)row < p->norder; row++) {
		size_t idx = p->top + (size_t)row;

		draw_row(ui, y++, r, &m->disks[p->order[idx]],
			 focused && idx == p->sel ? A_REVERSE : 0, cols, ncols);
		if (idx == under)
			draw_job(ui, y++, r, w, false);
	}
}

/* Title, header, the rows (one line when there are none) and the job's line. */
static int disks_lines(struct ui *ui, int w)
{
	const struct panel *p = &ui->panels[PANEL_DISKS];

	(void)w;
	return 2 + (p->norder ? (int)p->norder : 1) + (model_worker_get(&ui->model) ? 1 : 0);
}

/* Enter on a disk: its queue chain. */
static unsigned disks_key(struct ui *ui, int ch)
{
	if ((ch == '\r' || ch == '\n' || ch == KEY_ENTER) && view_selected(ui, PANEL_DISKS)[0])
		return ui_open(ui, &view_chain);
	return UI_PASS;
}

const struct view_ops view_disks = {
	.name = "disks",
	.draw = disks_draw,
	.on_key = disks_key,
	.lines = disks_lines,
	.order = disks_order,
	.sorts = disks_sorts,
	.row_name = disk_name,
};
