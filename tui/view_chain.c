// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The queue chain of a disk (Enter on a disk row): its blk-mq hardware
 * queues, each queue's interrupt (nvme0qN), the CPU the interrupt landed on
 * and that CPU's %irq+%soft, BLOCK softirqs and busy share, beside the
 * disk's await, busiest queue first: "this disk is slow because its
 * completions land on the drowning core" in one look. With the tracing
 * stage (--trace), a line of the disk's latency percentiles by op and
 * where its completions ran, each CPU's BLOCK softirq time, and each
 * queue's own BLOCK time and device p99. Draws the
 * model's "blk-mq" section and the rows' trace numbers only.
 */
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "model_summary.h"
#include "str.h"
#include "ui.h"

static int cmp_queue(const void *a, const void *b)
{
	const struct model_mq_queue *x = *(const struct model_mq_queue *const *)a;
	const struct model_mq_queue *y = *(const struct model_mq_queue *const *)b;
	double vx = x->valid ? x->irq_s : -1, vy = y->valid ? y->irq_s : -1;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->hctx < y->hctx ? -1 : x->hctx > y->hctx;
}

static const struct model_disk *disk_row(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (strcmp(m->disks[i].name, name) == 0)
			return &m->disks[i];
	return NULL;
}

/* ms from µs with the decimals that matter at that size */
static void fmt_ms(char *buf, size_t size, double us)
{
	double ms = us / 1e3;

	snprintf(buf, size, ms < 1 ? "%.3f" : ms < 100 ? "%.2f" : "%.0f", ms);
}

/*
 * "  trace: read p50 0.047 p99 5.98 max 8.19 ms (queued p99 0.008), write
 * ...; 95.1% completed on another CPU": the device's percentiles (issue to
 * complete) by op, the time queued before issue where there was some; ""
 * without the block probe's numbers.
 */
static void lat_line(const struct model_disk *dr, char *buf, size_t size)
{
	static const char *const ops[MT__OPS] = { "read", "write", "flush", "discard" };
	const struct model_disk_trace *t = dr ? &dr->trace : NULL;
	bool any = false;

	buf[0] = '\0';
	if (!t || !t->has_lat)
		return;
	snprintf(buf, size, "  trace:");
	for (int op = 0; op < MT__OPS; op++) {
		const struct model_lat *d = &t->lat[op][MT_DEVICE], *q = &t->lat[op][MT_QUEUED];
		char a[24], b[24], c[24];

		if (!d->has)
			continue;
		fmt_ms(a, sizeof(a), d->p50_us);
		fmt_ms(b, sizeof(b), d->p99_us);
		fmt_ms(c, sizeof(c), d->max_us);
		str_cat(buf, size, "%s %s p50 %s p99 %s max %s ms", any ? "," : "", ops[op], a, b,
			c);
		if (q->has) {
			fmt_ms(a, sizeof(a), q->p99_us);
			str_cat(buf, size, " (queued p99 %s)", a);
		}
		any = true;
	}
	if (t->has_remote)
		str_cat(buf, size, "; %.1f%% completed on another CPU", t->remote_pct);
}

/* " 0.219" (7 wide): the queue's device p99 of op in ms, "-" none; op
 * -1: of the op with more IOs a second */
static void p99_cell(const struct model_mq_queue *q, int op, char *buf, size_t size)
{
	char ms[24];

	if (op < 0)
		op = !q->has_p99[0] || (q->has_p99[1] && q->ios_s[1] > q->ios_s[0]);
	if (!q->has_p99[op]) {
		snprintf(buf, size, " %6s", "-");
		return;
	}
	fmt_ms(ms, sizeof(ms), q->p99_us[op]);
	snprintf(buf, size, " %6.6s", ms);
}

static const struct model_cpu *cpu_of(const struct model *m, int cpu)
{
	for (size_t i = 0; i < m->ncpus; i++)
		if (m->cpus[i].cpu == cpu)
			return &m->cpus[i];
	return NULL;
}

static void chain_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	struct chain_panel *c = &ui->chain;
	const struct model_mq_disk *d = model_blkmq_disk(&m->blkmq, c->disk);
	const struct model_disk *dr = disk_row(m, c->disk);
	long hot = model_hot_cpu(m);
	int hot_cpu = hot >= 0 ? m->cpus[hot].cpu : -1;
	const struct model_mq_queue **order;
	char buf[320], aw[96] = "", lat[320];
	bool block_time = false, queue_time = false, queue_lat = false, both;
	int y = r.y, rows;

	/* the disk's await first: at 80 columns the title is cut on the right */
	if (dr && dr->valid)
		snprintf(aw, sizeof(aw), " r_await %.2f w_await %.2f ms %%util %.2f;",
			 dr->v[MD_RAWAIT], dr->v[MD_WAWAIT], dr->v[MD_UTIL]);
	if (!d) {
		snprintf(buf, sizeof(buf), "> %s%s", c->disk, aw);
		draw_line(y++, r.x, r.w, ui_attr(ui, PAIR_TITLE), buf);
		lat_line(dr, lat, sizeof(lat));
		if (lat[0])
			ui_put(y++, r.x, r.w, 0, lat);
		ui_put(y, r.x, r.w, A_DIM,
		       m->blkmq_bad[0]	   ? m->blkmq_bad
		       : !m->has_rates	   ? "  waiting for a second sample..."
		       : !m->blkmq.present ? "  not in the sample: an iotriaged older than the "
					     "blk-mq section"
					   : "  no blk-mq hardware queues: a partition, a "
					     "bio-based device (md, dm) or no mq/ in sysfs");
		c->scroll.nlines = 0;
		return;
	}
	snprintf(buf, sizeof(buf), "> %s%s %zu hctx%s%s%s, %zu %s", d->disk, aw, d->nr_hw_queues,
		 d->controller[0] ? " of " : "", d->controller,
		 d->controller[0] ? "" : " (not NVMe: no interrupt per queue)", d->nqueues,
		 d->controller[0] ? "fired" : "listed");
	draw_line(y++, r.x, r.w, ui_attr(ui, PAIR_TITLE), buf);
	lat_line(dr, lat, sizeof(lat));
	if (lat[0])
		ui_put(y++, r.x, r.w, 0, lat);
	for (size_t i = 0; i < m->ncpus; i++)
		block_time |= m->cpus[i].trace.has_soft;
	for (size_t i = 0; i < d->nqueues; i++) {
		queue_time |= d->queues[i].has_qtime;
		queue_lat |= d->queues[i].has_p99[0] || d->queues[i].has_p99[1];
	}
	/* the queue's device p99 in ms: reads' and writes' when the width
	 * has room (78 columns before BLOCK%), else the busier op's */
	both = queue_lat && 78 + (block_time ? 7 : 0) + (queue_time ? 8 : 0) + 14 <= r.w;
	snprintf(buf, sizeof(buf), "%4s %-11s %-6s %-9s %8s %-8s %10s %8s %6s%s%s%s", "hctx",
		 "CPUs", "IRQ", "queue", "irq/s", "on CPU", "%irq+%soft", "BLOCK/s", "busy%",
		 block_time ? " BLOCK%" : "", queue_time ? " qBLOCK%" : "",
		 both	     ? "  r_p99  w_p99"
		 : queue_lat ? "    p99"
			     : "");
	ui_put(y++, r.x, r.w, A_BOLD, buf);
	rows = r.h - 2 - (lat[0] ? 1 : 0);
	c->scroll.nlines = (int)d->nqueues;
	if (d->nqueues == 0) {
		ui_put(y, r.x, r.w, A_DIM,
		       "  no queue's interrupt fired in this interval: the disk is idle");
		return;
	}
	order = calloc(d->nqueues, sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < d->nqueues; i++)
		order[i] = &d->queues[i];
	qsort(order, d->nqueues, sizeof(*order), cmp_queue);
	draw_scroll_fit(&c->scroll, (int)d->nqueues, 1); /* the last queue at the top at most */
	for (int row = 0; row < rows && c->scroll.top + row < c->scroll.nlines; row++) {
		const struct model_mq_queue *q = order[c->scroll.top + row];
		bool on_hot = q->cpu >= 0 && q->cpu == hot_cpu;
		char rate[16], on[16], load[16], blk[16], busy[16];
		int attr = on_hot ? ui_attr(ui, PAIR_HOT) : 0;

		if (q->valid)
			ui_fmt_num(rate, sizeof(rate), 8, q->irq_s);
		else
			snprintf(rate, sizeof(rate), "%8s", q->has_irq ? "-" : "");
		if (q->cpu >= 0)
			snprintf(on, sizeof(on), "%d%s", q->cpu, on_hot ? " HOT" : "");
		else
			on[0] = '\0';
		if (q->has_load) {
			ui_fmt_num(load, sizeof(load), 10, q->cpu_irq + q->cpu_soft);
			ui_fmt_num(busy, sizeof(busy), 6, q->cpu_busy);
		} else {
			snprintf(load, sizeof(load), "%10s", q->cpu >= 0 ? "-" : "");
			snprintf(busy, sizeof(busy), "%6s", q->cpu >= 0 ? "-" : "");
		}
		if (q->has_block)
			ui_fmt_num(blk, sizeof(blk), 8, q->block_s);
		else
			snprintf(blk, sizeof(blk), "%8s", q->cpu >= 0 ? "-" : "");
		snprintf(buf, sizeof(buf), "%4u %-11.11s %-6.6s %-9.9s %s %-8.8s %s %s %s", q->hctx,
			 q->cpu_list, q->irq, q->irq_name, rate, on, load, blk, busy);
		if (block_time) {
			/* the BLOCK softirq's time on the CPU it landed on */
			const struct model_cpu *mc = q->cpu >= 0 ? cpu_of(m, q->cpu) : NULL;

			if (mc && mc->trace.has_soft)
				str_cat(buf, sizeof(buf), " %6.2f",
					mc->trace.soft_pct[MODEL_SOFT_BLOCK]);
			else
				str_cat(buf, sizeof(buf), " %6s", q->cpu >= 0 ? "-" : "");
		}
		if (queue_time) {
			/* this queue's own completions' BLOCK time, wherever they ran */
			if (q->has_qtime)
				str_cat(buf, sizeof(buf), " %7.2f", q->qblock_pct);
			else
				str_cat(buf, sizeof(buf), " %7s", "-");
		}
		for (int op = both ? 0 : -1; queue_lat && op < (both ? 2 : 0); op++) {
			char cell[16];

			p99_cell(q, op, cell, sizeof(cell));
			str_cat(buf, sizeof(buf), "%s", cell);
		}
		draw_line(y++, r.x, r.w, attr, buf);
	}
	free(order);
}

static unsigned chain_key(struct ui *ui, int ch)
{
	struct chain_panel *c = &ui->chain;

	switch (ch) {
	case 27: /* Esc */
	case '\r':
	case '\n':
	case KEY_ENTER:
		c->open = false;
		c->scroll.top = 0;
		return UI_REDRAW;
	case 'f':
	case 'p':
	case 't':
		c->open = false;
		return UI_PASS;
	}
	return draw_scroll_key(&c->scroll, ch, LINES - 4 > 1 ? LINES - 4 : 1);
}

/* Enter on a disk row: that disk's chain. */
static void chain_open(struct ui *ui)
{
	snprintf(ui->chain.disk, sizeof(ui->chain.disk), "%s", view_selected(ui, PANEL_DISKS));
	ui->chain.scroll.top = 0;
}

static const char *const chain_help[][2] = {
	{ "Enter", "on a disk: its queue chain (each blk-mq queue's CPUs, NVMe interrupt, the "
		   "CPU it lands on and that CPU's load, with --trace the disk's latency "
		   "percentiles, that CPU's BLOCK softirq time and each queue's own BLOCK "
		   "time and device p99; Enter or Esc returns); on a "
		   "device's group of IRQ lines (big hosts): expand / fold its lines" },
	{ NULL, NULL },
};

const struct view_ops view_chain = {
	.name = "chain",
	.flags = VIEW_SUMMARY,
	.open_at = offsetof(struct ui, chain.open),
	.open = chain_open,
	.draw = chain_draw,
	.on_key = chain_key,
	.help = chain_help,
};
