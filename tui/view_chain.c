// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The queue chain of a disk (Enter on a disk row): its blk-mq hardware
 * queues, each queue's interrupt (nvme0qN), the CPU the interrupt landed on
 * and that CPU's %irq+%soft, BLOCK softirqs and busy share, beside the
 * disk's await, busiest queue first: "this disk is slow because its
 * completions land on the drowning core" in one look. With the tracing
 * stage (--trace), a line of the disk's latency percentiles by op and
 * where its completions ran, each CPU's BLOCK softirq time, and each
 * queue's own BLOCK time and device p99. Enter on a NIC line: its queues
 * the same way, each NAPI's own NET_RX time with --trace, and the per-CPU
 * backlog. Draws the model's "blk-mq", "nics" and trace sections only.
 */
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "model_summary.h"
#include "str.h"
#include "ui.h"

/* A queue's row, whichever chain: sorted by key (busiest first), then by
 * its place in the section; hot when its interrupt landed on the hot core. */
struct chain_row {
	double key, key2;
	size_t pos;
	bool hot;
	char text[320];
};

static int cmp_row(const void *a, const void *b)
{
	const struct chain_row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	if (x->key2 != y->key2)
		return x->key2 < y->key2 ? 1 : -1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The rows under the header from y on, busiest first, scrolled; the hot
 * core's on red. */
static void chain_rows_draw(struct ui *ui, struct rect r, int y, struct chain_row *v, size_t n)
{
	struct chain_panel *c = &ui->chain;
	int rows = r.h - (y - r.y);

	qsort(v, n, sizeof(*v), cmp_row);
	c->scroll.nlines = (int)n;
	draw_scroll_fit(&c->scroll, (int)n, 1); /* the last queue at the top at most */
	for (int row = 0; row < rows && c->scroll.top + row < c->scroll.nlines; row++) {
		const struct chain_row *q = &v[c->scroll.top + row];

		draw_line(y++, r.x, r.w, q->hot ? ui_attr(ui, PAIR_HOT) : 0, q->text);
	}
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

/* The optional columns of a disk's chain: BLOCK time on the CPU, a
 * queue's own, its device p99 (both ops when the width has room). */
struct disk_cols {
	bool block_time, queue_time, queue_lat, both;
};

static struct disk_cols disk_cols_choose(const struct model *m, const struct model_mq_disk *d,
					 int w)
{
	struct disk_cols k = { false };

	for (size_t i = 0; i < m->ncpus; i++)
		k.block_time |= m->cpus[i].trace.has_soft;
	for (size_t i = 0; i < d->nqueues; i++) {
		k.queue_time |= d->queues[i].has_qtime;
		k.queue_lat |= d->queues[i].has_p99[0] || d->queues[i].has_p99[1];
	}
	/* the queue's device p99 in ms: reads' and writes' when the width
	 * has room (78 columns before BLOCK%), else the busier op's */
	k.both = k.queue_lat && 78 + (k.block_time ? 7 : 0) + (k.queue_time ? 8 : 0) + 14 <= w;
	return k;
}

/* The title line (title) and the trace's latency line under it; returns
 * the next row. */
static int draw_disk_top(struct ui *ui, struct rect r, const struct model_disk *dr,
			 const char *title)
{
	char lat[320];
	int y = r.y;

	draw_line(y++, r.x, r.w, ui_attr(ui, PAIR_TITLE), title);
	lat_line(dr, lat, sizeof(lat));
	if (lat[0])
		ui_put(y++, r.x, r.w, 0, lat);
	return y;
}

/* A queue's row: hctx, CPUs, its interrupt and where it landed, that
 * CPU's load, then the optional columns k chose. */
static void disk_queue_row(const struct model *m, const struct model_mq_queue *q, int hot_cpu,
			   const struct disk_cols *k, struct chain_row *row)
{
	bool on_hot = q->cpu >= 0 && q->cpu == hot_cpu;
	char rate[16], on[16], load[16], blk[16], busy[16];
	char *t = row->text;
	size_t size = sizeof(row->text);

	row->key = q->valid ? q->irq_s : -1;
	row->key2 = -(double)q->hctx;
	row->hot = on_hot;
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
	snprintf(t, size, "%4u %-11.11s %-6.6s %-9.9s %s %-8.8s %s %s %s", q->hctx, q->cpu_list,
		 q->irq, q->irq_name, rate, on, load, blk, busy);
	if (k->block_time) {
		/* the BLOCK softirq's time on the CPU it landed on */
		const struct model_cpu *mc = q->cpu >= 0 ? cpu_of(m, q->cpu) : NULL;

		if (mc && mc->trace.has_soft)
			str_cat(t, size, " %6.2f", mc->trace.soft_pct[MODEL_SOFT_BLOCK]);
		else
			str_cat(t, size, " %6s", q->cpu >= 0 ? "-" : "");
	}
	if (k->queue_time) {
		/* this queue's own completions' BLOCK time, wherever they ran */
		if (q->has_qtime)
			str_cat(t, size, " %7.2f", q->qblock_pct);
		else
			str_cat(t, size, " %7s", "-");
	}
	for (int op = k->both ? 0 : -1; k->queue_lat && op < (k->both ? 2 : 0); op++) {
		char cell[16];

		p99_cell(q, op, cell, sizeof(cell));
		str_cat(t, size, "%s", cell);
	}
}

/* A disk without blk-mq queues in the sample: why. */
static void draw_disk_none(struct ui *ui, struct rect r, const struct model_disk *dr,
			   const char *aw)
{
	const struct model *m = &ui->model;
	char buf[320];
	int y;

	snprintf(buf, sizeof(buf), "> %s%s", ui->chain.disk, aw);
	y = draw_disk_top(ui, r, dr, buf);
	ui_put(y, r.x, r.w, A_DIM,
	       m->blkmq_bad[0]	   ? m->blkmq_bad
	       : !m->has_rates	   ? "  waiting for a second sample..."
	       : !m->blkmq.present ? "  not in the sample: an iotriaged older than the "
				     "blk-mq section"
				   : "  no blk-mq hardware queues: a partition, a "
				     "bio-based device (md, dm) or no mq/ in sysfs");
	ui->chain.scroll.nlines = 0;
}

static void disk_chain_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	struct chain_panel *c = &ui->chain;
	const struct model_mq_disk *d = model_blkmq_disk(&m->blkmq, c->disk);
	const struct model_disk *dr = disk_row(m, c->disk);
	long hot = model_hot_cpu(m);
	int hot_cpu = hot >= 0 ? m->cpus[hot].cpu : -1;
	struct chain_row *rows;
	struct disk_cols k;
	char buf[320], aw[96] = "";
	int y;

	/* the disk's await first: at 80 columns the title is cut on the right */
	if (dr && dr->valid)
		snprintf(aw, sizeof(aw), " r_await %.2f w_await %.2f ms %%util %.2f;",
			 dr->v[MD_RAWAIT], dr->v[MD_WAWAIT], dr->v[MD_UTIL]);
	if (!d) {
		draw_disk_none(ui, r, dr, aw);
		return;
	}
	snprintf(buf, sizeof(buf), "> %s%s %zu hctx%s%s%s, %zu %s", d->disk, aw, d->nr_hw_queues,
		 d->controller[0] ? " of " : "", d->controller,
		 d->controller[0] ? "" : " (not NVMe: no interrupt per queue)", d->nqueues,
		 d->controller[0] ? "fired" : "listed");
	y = draw_disk_top(ui, r, dr, buf);
	k = disk_cols_choose(m, d, r.w);
	snprintf(buf, sizeof(buf), "%4s %-11s %-6s %-9s %8s %-8s %10s %8s %6s%s%s%s", "hctx",
		 "CPUs", "IRQ", "queue", "irq/s", "on CPU", "%irq+%soft", "BLOCK/s", "busy%",
		 k.block_time ? " BLOCK%" : "", k.queue_time ? " qBLOCK%" : "",
		 k.both	       ? "  r_p99  w_p99"
		 : k.queue_lat ? "    p99"
			       : "");
	ui_put(y++, r.x, r.w, A_BOLD, buf);
	if (d->nqueues == 0) {
		c->scroll.nlines = 0;
		ui_put(y, r.x, r.w, A_DIM,
		       "  no queue's interrupt fired in this interval: the disk is idle");
		return;
	}
	rows = calloc(d->nqueues, sizeof(*rows));
	if (!rows)
		return;
	for (size_t i = 0; i < d->nqueues; i++) {
		rows[i].pos = i;
		disk_queue_row(m, &d->queues[i], hot_cpu, &k, &rows[i]);
	}
	chain_rows_draw(ui, r, y, rows, d->nqueues);
	free(rows);
}

/* ---- a NIC's queues ---- */

static const struct model_nic *nic_of(const struct model *m, const char *name)
{
	for (size_t i = 0; i < m->sections.nics.n; i++)
		if (strcmp(m->sections.nics.v[i].name, name) == 0)
			return &m->sections.nics.v[i];
	return NULL;
}

static const struct model_irq *irq_line(const struct model *m, int irq)
{
	for (size_t i = 0; irq >= 0 && i < m->nirqs; i++)
		if (m->irqs[i].numeric && m->irqs[i].irq == (uint32_t)irq)
			return &m->irqs[i];
	return NULL;
}

/* The columns from 104 columns on; below, the handler's name and polls/s go. */
#define NIC_WIDE 104

/*
 * One queue's row: q its NAPI (NULL: a vector no NAPI names, its time
 * unknown), v its interrupt vector in the nics section (NULL: none or not
 * listed), backlog the per-CPU backlog's row (no IRQ, no CPU of its own).
 */
static void nic_row(const struct model *m, const struct model_napi *q,
		    const struct model_nic_irq *v, int hot_cpu, bool wide, bool timed,
		    struct chain_row *row)
{
	bool backlog = q && q->napi_id == 0;
	int irq = v ? (int)v->irq : q ? q->irq : -1;
	const struct model_irq *line = irq_line(m, irq);
	int cpu = v && v->busiest_cpu >= 0	       ? v->busiest_cpu
		  : line && line->ncpus && line->valid ? line->cpus[0].cpu
						       : -1;
	const struct model_cpu *mc = cpu >= 0 ? cpu_of(m, cpu) : NULL;
	double irq_s = v && v->has_rate ? v->total_s : line && line->valid ? line->total_s : -1;
	char queue[16], napi[16], irqs[16], rate[16], on[16], load[16], netrx[16], own[16];
	char *buf = row->text;
	size_t size = sizeof(row->text);

	row->key = q ? q->pct : -1;
	row->key2 = irq_s;
	row->hot = cpu >= 0 && cpu == hot_cpu;
	if (backlog)
		snprintf(queue, sizeof(queue), "backlog");
	else if (q && q->queue >= 0)
		snprintf(queue, sizeof(queue), "%d", q->queue);
	else
		snprintf(queue, sizeof(queue), "-");
	if (q && !backlog)
		snprintf(napi, sizeof(napi), "%u", q->napi_id);
	else
		snprintf(napi, sizeof(napi), "-");
	if (irq >= 0)
		snprintf(irqs, sizeof(irqs), "%d", irq);
	else
		snprintf(irqs, sizeof(irqs), "-");
	if (irq_s >= 0)
		ui_fmt_num(rate, sizeof(rate), 8, irq_s);
	else
		snprintf(rate, sizeof(rate), "%8s", "-");
	if (cpu >= 0)
		snprintf(on, sizeof(on), "%d%s", cpu, row->hot ? " HOT" : "");
	else
		snprintf(on, sizeof(on), "-");
	if (mc && mc->valid)
		ui_fmt_num(load, sizeof(load), 10, mc->irq + mc->soft);
	else
		snprintf(load, sizeof(load), "%10s", "-");
	if (mc && mc->trace.has_soft)
		snprintf(netrx, sizeof(netrx), "%7.2f", mc->trace.soft_pct[MODEL_SOFT_NET_RX]);
	else
		snprintf(netrx, sizeof(netrx), "%7s", "-");
	if (q)
		draw_pct(own, sizeof(own), 8, q->pct);
	else
		snprintf(own, sizeof(own), "%8s", "-");
	snprintf(buf, size, "%-7s %6s %-5s", queue, napi, irqs);
	if (wide)
		str_cat(buf, size, " %-16.16s",
			backlog ? "lo netif_rx RPS"
			: line	? line->actions
			: v	? v->actions
				: "");
	str_cat(buf, size, " %s %-8.8s %s", rate, on, load);
	if (!timed)
		return;
	str_cat(buf, size, " %s %s", netrx, own);
	if (wide) {
		if (q)
			str_cat(buf, size, " %8.0f", q->polls_s);
		else
			str_cat(buf, size, " %8s", "-");
	}
	if (q)
		str_cat(buf, size, " %8.0f", q->packets_s);
	else
		str_cat(buf, size, " %8s", "-");
}

static void nic_chain_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	struct chain_panel *c = &ui->chain;
	const struct model_nic *n = nic_of(m, c->nic);
	long hot = model_hot_cpu(m);
	int hot_cpu = hot >= 0 ? m->cpus[hot].cpu : -1;
	bool wide = r.w >= NIC_WIDE, timed = m->napi.present;
	struct chain_row *rows;
	size_t nrows = 0, cap;
	char buf[320], pct[24];
	double t;
	int y = r.y;

	snprintf(buf, sizeof(buf), "> nic %s", c->nic);
	if (n && model_trace_napi_dev(&m->napi, n->name, n->ifindex, -1, &t)) {
		draw_pct(pct, sizeof(pct), 0, t);
		str_cat(buf, sizeof(buf), " NET_RX %s%% of a CPU;", pct);
	}
	if (n && n->has_rates)
		str_cat(buf, sizeof(buf), " rx %.2f kB/s %.0f pk/s, tx %.2f kB/s %.0f pk/s;",
			n->rxkb_s, n->rxpck_s, n->txkb_s, n->txpck_s);
	if (n && n->channels == MN_SET)
		str_cat(buf, sizeof(buf), " %llu rx %llu tx queues, combined %llu/%llu",
			(unsigned long long)n->rx_queues, (unsigned long long)n->tx_queues,
			(unsigned long long)n->ch_combined, (unsigned long long)n->ch_combined_max);
	else if (n)
		str_cat(buf, sizeof(buf), " %llu rx %llu tx queues",
			(unsigned long long)n->rx_queues, (unsigned long long)n->tx_queues);
	draw_line(y++, r.x, r.w, ui_attr(ui, PAIR_TITLE), buf);
	if (!n) {
		ui_put(y, r.x, r.w, A_DIM,
		       !m->has_rates		   ? "  waiting for a second sample..."
		       : !m->sections.nics.present ? "  the sample has no nics section (iotriaged "
						     "--core-only, or too old)"
						   : "  not in this sample: the link went away");
		c->scroll.nlines = 0;
		return;
	}
	if (!timed) {
		char why[MODEL_TRACE_LINE_MAX + 64];

		/* the probe off over its budget, or tracing unavailable: why */
		model_trace_cause(&m->trace, why, sizeof(why));
		if (!m->trace.present)
			snprintf(why, sizeof(why),
				 "needs --trace (iotriage --trace as root, or iotriaged --trace)");
		else if (!why[0])
			snprintf(why, sizeof(why), "not in this sample");
		snprintf(buf, sizeof(buf), "  NET_RX time per queue: %s", why);
		ui_put(y++, r.x, r.w, A_DIM, buf);
	}
	snprintf(buf, sizeof(buf), "%-7s %6s %-5s", "queue", "NAPI", "IRQ");
	if (wide)
		str_cat(buf, sizeof(buf), " %-16s", "handler");
	str_cat(buf, sizeof(buf), " %8s %-8s %10s", "irq/s", "on CPU", "%irq+%soft");
	if (timed)
		str_cat(buf, sizeof(buf), " %7s %8s%s %8s", "NET_RX%", "qNET_RX%",
			wide ? "  polls/s" : "", "pk/s");
	ui_put(y++, r.x, r.w, A_BOLD, buf);
	/* its NAPIs, its vectors no NAPI names, the backlog */
	cap = m->napi.n + n->nirqs;
	if (cap == 0) {
		c->scroll.nlines = 0;
		ui_put(y, r.x, r.w, A_DIM,
		       "  no interrupt vector and no NET_RX time: a virtual link");
		return;
	}
	rows = calloc(cap, sizeof(*rows));
	if (!rows)
		return;
	for (size_t i = 0; i < m->napi.n; i++) {
		const struct model_napi *q = &m->napi.v[i];
		const struct model_nic_irq *v = NULL;

		if (q->napi_id && !model_napi_of(q, n->name, n->ifindex))
			continue;
		for (size_t k = 0; q->irq >= 0 && k < n->nirqs && !v; k++)
			if (n->irqs[k].irq == (uint32_t)q->irq)
				v = &n->irqs[k];
		rows[nrows].pos = nrows;
		nic_row(m, q, v, hot_cpu, wide, timed, &rows[nrows++]);
	}
	for (size_t k = 0; k < n->nirqs; k++) {
		bool named = false;

		for (size_t i = 0; i < m->napi.n && !named; i++)
			named = m->napi.v[i].irq == (int)n->irqs[k].irq &&
				model_napi_of(&m->napi.v[i], n->name, n->ifindex);
		if (named)
			continue;
		rows[nrows].pos = nrows;
		nic_row(m, NULL, &n->irqs[k], hot_cpu, wide, timed, &rows[nrows++]);
	}
	chain_rows_draw(ui, r, y, rows, nrows);
	free(rows);
}

static void chain_draw(struct ui *ui, struct rect r)
{
	if (ui->chain.nic[0])
		nic_chain_draw(ui, r);
	else
		disk_chain_draw(ui, r);
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

/* Enter on a disk row: that disk's chain; on a NIC line (the IRQs panel's
 * "nic NAME"): that NIC's. */
static void chain_open(struct ui *ui)
{
	const char *sel = view_selected(ui, PANEL_IRQS);

	ui->chain.nic[0] = '\0';
	if (ui->focus == PANEL_IRQS && strncmp(sel, "nic ", 4) == 0)
		snprintf(ui->chain.nic, sizeof(ui->chain.nic), "%s", sel + 4);
	else
		snprintf(ui->chain.disk, sizeof(ui->chain.disk), "%s",
			 view_selected(ui, PANEL_DISKS));
	ui->chain.scroll.top = 0;
}

static const char *const chain_help[][2] = {
	{ "Enter", "on a disk: its queue chain (each blk-mq queue's CPUs, NVMe interrupt, the "
		   "CPU it lands on and that CPU's load, with --trace the disk's latency "
		   "percentiles, that CPU's BLOCK softirq time and each queue's own BLOCK "
		   "time and device p99; Enter or Esc returns); on a "
		   "NIC line (IRQs panel): its queues (NAPI, IRQ, the CPU it lands on and its "
		   "load, with --trace each queue's NET_RX time and the per-CPU backlog); on a "
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
