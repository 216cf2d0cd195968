// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The human form of a sample: an iostat -x style disk table, a per-CPU table
 * with the mpstat columns that matter for interrupt load, and the top IRQs.
 * Prints metrics only; computes nothing but sorting order.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report_workload.h"
#include "encode_turbo.h"

static void print_disks(FILE *f, const struct metrics *m, bool all_disks)
{
	fprintf(f, "%-12s %8s %8s %10s %10s %7s %7s %6s %6s %8s %8s %7s %8s %8s %6s %6s\n",
		"Device", "r/s", "w/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s", "%rrqm", "%wrqm",
		"r_await", "w_await", "aqu-sz", "rareq-sz", "wareq-sz", "svctm", "%util");
	for (size_t i = 0; i < m->ndisks; i++) {
		const struct disk_metrics *d = &m->disks[i];

		if (!all_disks && (!d->whole || d->unused))
			continue;
		if (!d->valid) {
			fprintf(f, "%-12s  (no delta: %s)\n", d->name, d->reason);
			continue;
		}
		fprintf(f,
			"%-12s %8.2f %8.2f %10.2f %10.2f %7.2f %7.2f %6.2f %6.2f %8.2f %8.2f %7.2f "
			"%8.2f %8.2f %6.2f %6.2f\n",
			d->name, d->r_s, d->w_s, d->rkb_s, d->wkb_s, d->rrqm_s, d->wrqm_s,
			d->rrqm_pct, d->wrqm_pct, d->r_await, d->w_await, d->aqu_sz, d->rareq_sz,
			d->wareq_sz, d->svctm, d->util);
	}
}

/* The softirq with the highest rate on CPU column k, or NULL. */
static const struct rate_row *hottest_softirq(const struct metrics *m, int cpu, double *ret_rate)
{
	const struct rate_table *rt = &m->softirq;
	const struct rate_row *best = NULL;
	double bv = 0;
	int col = -1;

	for (size_t k = 0; k < rt->ncpu; k++)
		if (rt->cpu_ids[k] == cpu)
			col = (int)k;
	if (col < 0)
		return NULL;
	for (size_t i = 0; i < rt->n; i++) {
		double v = rt->rates[rt->rows[i].rates_off + (size_t)col];

		if (rt->rows[i].valid && v > bv) {
			bv = v;
			best = &rt->rows[i];
		}
	}
	*ret_rate = bv;
	return best;
}

static void print_cpus(FILE *f, const struct metrics *m)
{
	if (!m->cpu_valid)
		return;
	fprintf(f, "\n%-4s %7s %7s %7s %7s %7s %7s %7s %11s  %s\n", "CPU", "%usr", "%sys",
		"%iowait", "%irq", "%soft", "%steal", "%idle", "intr/s", "hottest softirq");
	for (size_t i = 0; i <= m->ncpu; i++) {
		const struct cpu_metrics *c = i == 0 ? &m->all : &m->cpus[i - 1];
		char name[16];

		if (c->cpu == IOT_CPU_ALL)
			snprintf(name, sizeof(name), "all");
		else
			snprintf(name, sizeof(name), "%d", c->cpu);
		if (!c->valid) {
			/* /proc/interrupts does not depend on the /proc/stat row */
			if (m->irq_valid && c->has_intr_s)
				fprintf(f, "%-4s  (no delta: %s; intr/s %.2f)\n", name, c->reason,
					c->intr_s);
			else
				fprintf(f, "%-4s  (no delta: %s)\n", name, c->reason);
			continue;
		}
		fprintf(f, "%-4s %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f ", name, c->usr, c->sys,
			c->iowait, c->irq, c->soft, c->steal, c->idle);
		if (c->cpu == IOT_CPU_ALL) {
			if (m->intr_valid)
				fprintf(f, "%11.2f\n", m->intr_all_s);
			else
				fprintf(f, "%11s\n", "-");
		} else {
			double rate = 0;
			const struct rate_row *hot = hottest_softirq(m, c->cpu, &rate);

			if (m->irq_valid)
				fprintf(f, "%11.2f", c->intr_s);
			else
				fprintf(f, "%11s", "-");
			if (hot)
				fprintf(f, "  %s %.2f/s", hot->label, rate);
			fputc('\n', f);
		}
	}
}

static const struct metrics *sort_ctx;

static int cmp_irq_rate(const void *a, const void *b)
{
	const struct rate_row *x = &sort_ctx->irq.rows[*(const size_t *)a];
	const struct rate_row *y = &sort_ctx->irq.rows[*(const size_t *)b];

	return (y->total_s > x->total_s) - (y->total_s < x->total_s);
}

static void print_irqs(FILE *f, const struct snapshot *cur, const struct metrics *m)
{
	const struct rate_table *rt = &m->irq;
	size_t *order, shown = 0;

	if (!m->irq_valid || rt->n == 0)
		return;
	order = malloc(rt->n * sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < rt->n; i++)
		order[i] = i;
	sort_ctx = m;
	if (rt->n > 1)
		qsort(order, rt->n, sizeof(*order), cmp_irq_rate);
	fprintf(f, "\n%-6s %11s  %-24s %s\n", "IRQ", "total/s", "device", "per CPU/s");
	for (size_t i = 0; i < rt->n && shown < 10; i++) {
		const struct rate_row *rr = &rt->rows[order[i]];
		const struct irq_row *row = &cur->irqs.rows[rr->cur_index];

		if (!rr->valid || rr->total_s <= 0)
			continue;
		shown++;
		fprintf(f, "%-6s %11.2f  %-24.24s", rr->label, rr->total_s, row->actions);
		for (size_t k = 0; k < rt->ncpu; k++) {
			double v = rt->rates[rr->rates_off + k];

			if (v > 0)
				fprintf(f, " cpu%d=%.0f", rt->cpu_ids[k], v);
		}
		fputc('\n', f);
	}
	free(order);
}

/* turbostat's table and why any column is missing (src/metrics/metrics_turbo.c formats it). */
static void print_turbo(FILE *f, const struct metrics *m)
{
	struct strbuf sb = { 0 };

	encode_turbo_table(&sb, m->turbo);
	if (sb.len) {
		fputc('\n', f);
		fwrite(sb.buf, 1, sb.len, f);
	}
	sb_free(&sb);
}

void report_print(FILE *f, const struct snapshot *cur, const struct metrics *m, bool all_disks)
{
	fprintf(f, "interval %.2f s\n\n", (double)m->itv_cs / 100.0);
	print_disks(f, m, all_disks);
	print_cpus(f, m);
	print_irqs(f, cur, m);
	print_turbo(f, m);
	report_workload_print(f, cur, m);
}

void report_sources(const struct snapshot *s, const char *label)
{
	for (int i = 0; i < SRC__COUNT; i++)
		if (s->status[i].err)
			fprintf(stderr, "iotriage: %s%s%s unavailable: %s\n", label ? label : "",
				label ? ": " : "", snapshot_source_name((enum src_id)i),
				s->status[i].reason);
}
