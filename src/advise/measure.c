// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The readings every rule family shares: medians, the tracing stage's
 * measured time per CPU, IRQ line and disk, lookups into the rate tables,
 * pressure (PSI) and a disk's await.
 */
#include "advise_int.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of sorted[0..n) with one instance of `self` removed. */
double median_without(const double *sorted, size_t n, double self)
{
	size_t pos = 0, k = n - 1, i1, i2;

	while (pos < n && sorted[pos] != self)
		pos++;
	if (k == 0)
		return 0;
	i1 = (k - 1) / 2;
	i2 = k / 2;
	i1 = i1 < pos ? i1 : i1 + 1;
	i2 = i2 < pos ? i2 : i2 + 1;
	return (sorted[i1] + sorted[i2]) / 2;
}

double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return (v[(n - 1) / 2] + v[n / 2]) / 2;
}

/* The measured irq+soft time of cpu in µs/s (hardirq of every line plus
 * every softirq vector); -1 when not traced. */
double trace_cpu_us(const struct ctx *c, int cpu)
{
	const struct trace_metrics *tm = c->tm;
	double us;

	if (!c->timed || cpu < 0 || (uint32_t)cpu >= tm->ncpu)
		return -1;
	us = tm->hard_us_s[cpu];
	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		us += tm->soft_us_s[(size_t)cpu * TRACE_NR_SOFTIRQS + v];
	return us;
}

double trace_soft_us(const struct ctx *c, int cpu)
{
	double us = 0;

	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		us += c->tm->soft_us_s[(size_t)cpu * TRACE_NR_SOFTIRQS + v];
	return us;
}

/* Hardirq µs/s of IRQ line irq on cpu; 0 when it did not run there. */
double trace_irq_us(const struct ctx *c, uint32_t irq, int cpu)
{
	const struct trace_metrics *tm = c->tm;

	if (!c->timed || cpu < 0 || (uint32_t)cpu >= tm->ncpu)
		return 0;
	for (size_t i = 0; i < tm->nirq; i++)
		if (tm->irq[i] == irq)
			return tm->irq_us_s[i * tm->ncpu + (size_t)cpu];
	return 0;
}

/* A core's irq+soft load in % of the interval: measured time when traced,
 * else mpstat's %irq + %soft. */
double cpu_load(const struct ctx *c, const struct cpu_metrics *cm)
{
	double us = trace_cpu_us(c, cm->cpu);

	return us >= 0 ? us / 1e4 : cm->irq + cm->soft;
}

/* The block probe's numbers of the disk called name; NULL none. */
const struct trace_disk_metrics *trace_disk(const struct ctx *c, const char *name)
{
	if (!c->block_timed)
		return NULL;
	for (size_t i = 0; i < c->tm->ndisk; i++)
		if (c->tm->disks[i].name[0] && strcmp(c->tm->disks[i].name, name) == 0)
			return &c->tm->disks[i];
	return NULL;
}

int rate_col(const struct rate_table *rt, int cpu)
{
	return cpu_ids_col(rt->cpu_ids, rt->ncpu, cpu);
}

const struct irq_row *rate_irq_row(const struct ctx *c, const struct rate_row *rr)
{
	if (rr->cur_index >= c->cur->irqs.n)
		return NULL;
	return &c->cur->irqs.rows[rr->cur_index];
}

/* The /proc/interrupts row of irq: its actions stand in for /sys/kernel/irq
 * on kernels before 4.17. */
const struct irq_row *cur_irq_row(const struct ctx *c, uint32_t irq)
{
	char label[16];

	snprintf(label, sizeof(label), "%u", irq);
	return irq_table_find(&c->cur->irqs, label, NULL);
}

const char *irq_actions(const struct ctx *c, const struct irq_row *row, const struct topo_irq *ti)
{
	if (ti && ti->actions[0])
		return ti->actions;
	return row ? row->actions : "";
}

/* Grouping key of an IRQ: its PCI device, else its action name without the
 * trailing queue number ("mpt2sas0-msix12" -> "mpt2sas0-msix"). */
void irq_group_key(const struct ctx *c, const struct topo_irq *ti, const char *actions, char *buf,
		   size_t size)
{
	size_t n;

	if (ti && ti->dev >= 0) {
		snprintf(buf, size, "dev:%s", c->t->devs[ti->dev].pci);
		return;
	}
	snprintf(buf, size, "act:%s", actions);
	n = strlen(buf);
	while (n > 4 && buf[n - 1] >= '0' && buf[n - 1] <= '9')
		buf[--n] = '\0';
}

double disk_await(const struct disk_metrics *d)
{
	double ios = d->r_s + d->w_s;

	return ios > 0 ? (d->r_await * d->r_s + d->w_await * d->w_s) / ios : 0;
}

const struct disk_raw *raw_of(const struct ctx *c, const struct disk_metrics *d)
{
	return disk_table_find(&c->cur->disks, d->major, d->minor, NULL);
}

const struct disk_metrics *metrics_by_name(const struct metrics *m, const char *name)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (strcmp(m->disks[i].name, name) == 0)
			return &m->disks[i];
	return NULL;
}

/* The some-stall share of resource r this interval, -1 when unknown. */
double psi_some(const struct ctx *c, enum psi_res r)
{
	const struct workload_metrics *x = c->m->workload;

	return x && x->psi[r].some_valid ? x->psi[r].some_pct : -1;
}

static double psi_full(const struct ctx *c, enum psi_res r)
{
	const struct workload_metrics *x = c->m->workload;

	return x && x->psi[r].full_valid ? x->psi[r].full_pct : -1;
}

/* Pressure says the workload waits on r now. */
bool psi_hurts(const struct ctx *c, enum psi_res r)
{
	return advise_psi_hurts_pct(psi_some(c, r), psi_full(c, r));
}

void psi_text(const struct ctx *c, enum psi_res r, char *buf, size_t size)
{
	double some = psi_some(c, r), full = psi_full(c, r);

	if (some < 0)
		snprintf(buf, size, "%s pressure unknown", pressure_name(r));
	else if (full < 0)
		snprintf(buf, size, "%s pressure some %.0f%%", pressure_name(r), some);
	else
		snprintf(buf, size, "%s pressure some %.0f%% full %.0f%%", pressure_name(r), some,
			 full);
}
