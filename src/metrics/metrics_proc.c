// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rates for processes, NICs, pressure and writeback. Pure: no I/O, no clock;
 * the interval comes in as a parameter. Rows are paired by identity (PID,
 * interface name, IRQ number), never by position.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metrics_proc.h"
#include "snapshot.h"

const char *metrics_proc_wb_state_name(enum wb_state s)
{
	switch (s) {
	case WB_BELOW_BACKGROUND:
		return "below_background";
	case WB_BACKGROUND:
		return "background";
	case WB_THROTTLED:
		return "throttled";
	case WB_BLOCKED:
		return "blocked";
	default:
		return "unknown";
	}
}

void metrics_proc_free(struct workload_metrics *x)
{
	if (!x)
		return;
	free(x->procs);
	free(x->nics);
	free(x->nic_irqs);
	metrics_cgroup_free(&x->cgroups);
	free(x);
}

static double per_s(uint64_t delta, uint64_t itv_cs)
{
	return (double)delta * 100.0 / (double)itv_cs;
}

/* Counter pair -> delta; false when it went back (PID reuse, reset). */
static bool delta(uint64_t prev, uint64_t cur, uint64_t *ret)
{
	if (cur < prev)
		return false;
	*ret = cur - prev;
	return true;
}

/* Reaped children's bytes of the interval: a credit that went back is a
 * new process behind the number, all of whose credit is the interval's. */
static uint64_t reaped(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : cur;
}

/* Between two scans: the samples' interval when the previous sample
 * scanned; when it carried an older scan's table, the two scans'
 * /proc/uptime difference (the samples' interval without one). */
static uint64_t procs_interval(const struct proc_table *pt, const struct proc_table *ct,
			       uint64_t itv_cs)
{
	if (pt->carried && pt->scan_uptime_cs && ct->scan_uptime_cs > pt->scan_uptime_cs)
		return ct->scan_uptime_cs - pt->scan_uptime_cs;
	return itv_cs;
}

/* CPU ticks of the interval into *ret_d (utime, stime, guest): false
 * without /proc/PID/stat in both, or counters that went back. */
static bool cpu_delta(const struct proc_raw *p, const struct proc_raw *c, uint64_t ret_d[3])
{
	return p->has_stat && c->has_stat && delta(p->utime_ticks, c->utime_ticks, &ret_d[0]) &&
	       delta(p->stime_ticks, c->stime_ticks, &ret_d[1]) &&
	       delta(p->gtime_ticks, c->gtime_ticks, &ret_d[2]);
}

/* pidstat -u over USER_HZ (100) ticks: %usr leaves guest time out
 * (utime holds it), %CPU is utime + stime, percent of one CPU. */
static void cpu_rates(struct proc_metrics *m, const uint64_t d[3], uint64_t itv_cs)
{
	m->has_cpu = true;
	m->usr_pct = per_s(d[0] > d[2] ? d[0] - d[2] : 0, itv_cs);
	m->sys_pct = per_s(d[1], itv_cs);
	m->cpu_pct = per_s(d[0] + d[1], itv_cs);
}

static void who_copy(struct proc_metrics *m, const struct proc_raw *c)
{
	m->has_who = c->has_who;
	m->uid = c->uid;
	memcpy(m->user, c->user, sizeof(m->user));
	memcpy(m->cmdline, c->cmdline, sizeof(m->cmdline));
	memcpy(m->unit, c->unit, sizeof(m->unit));
}

/* CPU-only rows kept: the PROC_TOP_N with the most ticks, by insertion */
struct cpu_only {
	size_t row[PROC_TOP_N]; /* in ct */
	uint64_t ticks[PROC_TOP_N];
	size_t n;
};

static void cpu_only_add(struct cpu_only *o, size_t row, uint64_t ticks)
{
	size_t j;

	if (o->n == PROC_TOP_N && ticks <= o->ticks[o->n - 1])
		return;
	j = o->n < PROC_TOP_N ? o->n++ : o->n - 1;
	while (j > 0 && ticks > o->ticks[j - 1]) {
		o->row[j] = o->row[j - 1];
		o->ticks[j] = o->ticks[j - 1];
		j--;
	}
	o->row[j] = row;
	o->ticks[j] = ticks;
}

/* The previous row of c: none (a new process) when the pid now names a
 * process started at another time. */
static const struct proc_raw *prev_row(const struct proc_table *pt, const struct proc_raw *c)
{
	const struct proc_raw *p = proc_table_find(pt, c->pid);

	if (p && p->has_stat && c->has_stat && p->start_ticks != c->start_ticks)
		return NULL;
	return p;
}

static int procs_compute(const struct proc_table *pt, const struct proc_table *ct, uint64_t itv_cs,
			 struct workload_metrics *x)
{
	struct cpu_only busy = { .n = 0 };
	struct proc_raw zero = { 0 };

	x->nprocs = 0;
	x->exited = 0;
	x->procs_valid = !pt->procfs.err && !ct->procfs.err;
	if (!x->procs_valid)
		return 0;
	for (size_t i = 0; i < pt->n; i++)
		if (!proc_table_find(ct, pt->rows[i].pid))
			x->exited++;
	for (size_t i = 0; i < ct->n; i++) {
		const struct proc_raw *c = &ct->rows[i];
		const struct proc_raw *p = prev_row(pt, c);
		uint64_t dr, dw, dc, dd = 0, dn = 0, dgone, dcpu[3];
		struct proc_metrics *m;
		bool dly, cpu;

		/* a PID absent before started during the interval: all its IO is ours */
		if (!p) {
			zero.has_stat = c->has_stat;
			p = &zero;
		}
		/* bytes of one kind in both rows (a process whose /proc/PID/io
		 * was refused has taskstats' thread sums, and a first answer is a
		 * baseline), else no IO rate this interval */
		if (c->io_unknown ||
		    (p != &zero && (p->io_unknown || p->io_taskstats != c->io_taskstats))) {
			dr = dw = dc = 0;
		} else if (!delta(p->read_bytes, c->read_bytes, &dr) ||
			   !delta(p->write_bytes, c->write_bytes, &dw) ||
			   !delta(p->cancelled_write_bytes, c->cancelled_write_bytes, &dc)) {
			/* went back (a thread's bytes gone with it): no IO rate;
			 * its CPU time is still the process's */
			dr = dw = dc = 0;
		}
		/* the children's IO the kernel folded in at wait(): already shown
		 * on the children's own rows (doc/netlink.md, double count) */
		dd = reaped(p->reaped_read_bytes, c->reaped_read_bytes);
		dr -= dd < dr ? dd : dr;
		dn = reaped(p->reaped_write_bytes, c->reaped_write_bytes);
		dw -= dn < dw ? dn : dw;
		dgone = dd + dn;
		dd = reaped(p->reaped_cancelled_bytes, c->reaped_cancelled_bytes);
		dc -= dd < dc ? dd : dc;
		dgone += dd;
		dd = dn = 0;
		dly = c->has_delay && p->has_delay &&
		      delta(p->blkio_delay_ns, c->blkio_delay_ns, &dd) &&
		      delta(p->blkio_count, c->blkio_count, &dn);
		cpu = cpu_delta(p, c, dcpu);
		if (!dr && !dw && !dc && !dd) {
			if (cpu && dcpu[0] + dcpu[1])
				cpu_only_add(&busy, i, dcpu[0] + dcpu[1]);
			continue;
		}
		if (grow((void **)&x->procs, &x->procs_cap, x->nprocs + 1, sizeof(*x->procs)) < 0)
			return -ENOMEM;
		m = &x->procs[x->nprocs++];
		memset(m, 0, sizeof(*m));
		m->pid = c->pid;
		memcpy(m->comm, c->comm, sizeof(m->comm));
		m->source = c->source;
		m->started = p == &zero;
		m->exited = c->exited;
		m->rkb_s = per_s(dr, itv_cs) / 1024.0;
		m->wkb_s = per_s(dw, itv_cs) / 1024.0;
		m->ckb_s = per_s(dc, itv_cs) / 1024.0;
		m->reaped_kb_s = per_s(dgone, itv_cs) / 1024.0;
		m->has_delay = dly;
		if (dly) {
			/* ns over an interval of itv_cs * 10^7 ns, in percent */
			m->io_delay = (double)dd / ((double)itv_cs * 1e5);
			m->blkio_s = per_s(dn, itv_cs);
		}
		if (cpu)
			cpu_rates(m, dcpu, itv_cs);
		who_copy(m, c);
	}
	/* the busiest that did no IO: a CPU culprit is a row too */
	for (size_t k = 0; k < busy.n; k++) {
		const struct proc_raw *c = &ct->rows[busy.row[k]];
		const struct proc_raw *p = prev_row(pt, c);
		uint64_t dcpu[3];
		struct proc_metrics *m;

		if (!p) {
			zero.has_stat = c->has_stat;
			p = &zero;
		}
		if (grow((void **)&x->procs, &x->procs_cap, x->nprocs + 1, sizeof(*x->procs)) < 0)
			return -ENOMEM;
		m = &x->procs[x->nprocs++];
		memset(m, 0, sizeof(*m));
		m->pid = c->pid;
		memcpy(m->comm, c->comm, sizeof(m->comm));
		m->source = c->source;
		m->started = p == &zero;
		m->exited = c->exited;
		if (cpu_delta(p, c, dcpu))
			cpu_rates(m, dcpu, itv_cs);
		if (p->has_sched && c->has_sched && c->runq_ns >= p->runq_ns) {
			/* ns over the interval's itv_cs * 10^7 ns, in percent */
			m->has_runq = true;
			m->runq_pct = (double)(c->runq_ns - p->runq_ns) / ((double)itv_cs * 1e5);
		}
		who_copy(m, c);
	}
	return 0;
}

enum proc_order { BY_IO, BY_DELAY, BY_CPU, BY_RUNQ };

static double order_value(const struct proc_metrics *p, enum proc_order by)
{
	if (by == BY_DELAY)
		return p->has_delay ? p->io_delay : 0;
	if (by == BY_CPU)
		return p->cpu_pct;
	if (by == BY_RUNQ)
		return p->has_runq ? p->runq_pct : 0;
	return p->rkb_s + p->wkb_s;
}

/* <0 when row a ranks before row b: bigger first, then lower PID */
static int rank(const struct workload_metrics *x, enum proc_order by, size_t a, size_t b)
{
	const struct proc_metrics *p = &x->procs[a], *q = &x->procs[b];
	double vp = order_value(p, by);
	double vq = order_value(q, by);

	if (vp != vq)
		return vp > vq ? -1 : 1;
	return (p->pid > q->pid) - (p->pid < q->pid);
}

/* Top PROC_TOP_N rows into out by insertion: linear in the row count. */
static size_t top_n(const struct workload_metrics *x, enum proc_order by, size_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < x->nprocs; i++) {
		size_t j;

		if (order_value(&x->procs[i], by) <= 0)
			continue;
		if (k == PROC_TOP_N && rank(x, by, i, out[k - 1]) >= 0)
			continue;
		j = k < PROC_TOP_N ? k++ : k - 1;
		while (j > 0 && rank(x, by, i, out[j - 1]) < 0) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = i;
	}
	return k;
}

static int irq_row_of(const struct rate_table *rt, uint32_t irq, size_t *ret)
{
	char label[16];

	snprintf(label, sizeof(label), "%u", irq);
	for (size_t i = 0; i < rt->n; i++) {
		if (strcmp(rt->rows[i].label, label) == 0) {
			*ret = i;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * keep: ct is the table of the last read, carried (the sampler skipped the
 * link dump), and x->nics its rows' rates: they stay; the vectors' IRQ
 * rates, of this sample's /proc/interrupts, are computed again.
 */
static int nics_compute(const struct nic_table *pt, const struct nic_table *ct, uint64_t itv_cs,
			const struct rate_table *irq, bool keep, struct workload_metrics *x)
{
	/* carried with no rates to keep (a replay starting here): prev holds
	 * the same read, so its rows give no interval, not zeros */
	bool carried = keep;

	keep = keep && x->nnics == ct->n;
	x->nnics = x->nnic_irqs = 0;
	if (ct->rtnl.err)
		return 0;
	if (grow((void **)&x->nics, &x->nics_cap, ct->n, sizeof(*x->nics)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < ct->n; i++) {
		const struct nic_raw *c = &ct->rows[i];
		const struct nic_raw *p = pt->rtnl.err ? NULL : nic_table_find(pt, c->ifname);
		struct nic_metrics *m = &x->nics[x->nnics++];
		const struct nic_link_stats *a, *b;
		uint64_t d[8];

		if (keep) {
			m->cur_index = i;
			goto irqs;
		}
		memset(m, 0, sizeof(*m));
		m->cur_index = i;
		m->valid =
		    !carried && p && p->has_stats && c->has_stats && p->ifindex == c->ifindex;
		if (m->valid) {
			a = &p->stats;
			b = &c->stats;
			m->valid = delta(a->rx_packets, b->rx_packets, &d[0]) &&
				   delta(a->tx_packets, b->tx_packets, &d[1]) &&
				   delta(a->rx_bytes, b->rx_bytes, &d[2]) &&
				   delta(a->tx_bytes, b->tx_bytes, &d[3]) &&
				   delta(a->rx_errors, b->rx_errors, &d[4]) &&
				   delta(a->tx_errors, b->tx_errors, &d[5]) &&
				   delta(a->rx_dropped, b->rx_dropped, &d[6]) &&
				   delta(a->tx_dropped, b->tx_dropped, &d[7]);
		}
		if (m->valid) {
			m->rxpck_s = per_s(d[0], itv_cs);
			m->txpck_s = per_s(d[1], itv_cs);
			m->rxkb_s = per_s(d[2], itv_cs) / 1024.0;
			m->txkb_s = per_s(d[3], itv_cs) / 1024.0;
			m->rxerr_s = per_s(d[4], itv_cs);
			m->txerr_s = per_s(d[5], itv_cs);
			m->rxdrop_s = per_s(d[6], itv_cs);
			m->txdrop_s = per_s(d[7], itv_cs);
		}
irqs:
		m->irq_off = x->nnic_irqs;
		if (grow((void **)&x->nic_irqs, &x->nic_irqs_cap, x->nnic_irqs + c->nirqs,
			 sizeof(*x->nic_irqs)) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < c->nirqs; k++) {
			struct nic_irq_metrics *q = &x->nic_irqs[x->nnic_irqs++];
			const struct rate_row *rr;
			const double *rates;

			memset(q, 0, sizeof(*q));
			q->irq = c->irqs[k];
			q->irq_row = SIZE_MAX;
			q->busiest_cpu = -1;
			if (!irq || irq_row_of(irq, q->irq, &q->irq_row) < 0)
				continue;
			rr = &irq->rows[q->irq_row];
			if (!rr->valid)
				continue;
			q->total_s = rr->total_s;
			rates = irq->rates + rr->rates_off;
			for (size_t j = 0; j < irq->ncpu; j++) {
				if (rates[j] > q->busiest_cpu_s) {
					q->busiest_cpu_s = rates[j];
					q->busiest_cpu = irq->cpu_ids[j];
				}
			}
		}
		m->nirqs = x->nnic_irqs - m->irq_off;
	}
	return 0;
}

static void psi_compute(const struct pressure_raw *p, const struct pressure_raw *c, uint64_t itv_cs,
			struct workload_metrics *x)
{
	for (int i = 0; i < PSI__COUNT; i++) {
		const struct psi_raw *a = &p->res[i], *b = &c->res[i];
		struct psi_metrics *m = &x->psi[i];
		uint64_t d;

		memset(m, 0, sizeof(*m));
		if (a->status.err || b->status.err)
			continue;
		/* total= is in microseconds; the interval is itv_cs * 10^4 us */
		m->some_valid = a->some.present && b->some.present &&
				delta(a->some.total_us, b->some.total_us, &d);
		if (m->some_valid)
			m->some_pct = (double)d / ((double)itv_cs * 100.0);
		m->full_valid = a->full.present && b->full.present &&
				delta(a->full.total_us, b->full.total_us, &d);
		if (m->full_valid)
			m->full_pct = (double)d / ((double)itv_cs * 100.0);
		/* stall accounting runs on per-CPU clocks: clip the rounding overshoot */
		if (m->some_pct > 100.0)
			m->some_pct = 100.0;
		if (m->full_pct > 100.0)
			m->full_pct = 100.0;
	}
}

static void wb_compute(const struct writeback_raw *w, struct workload_metrics *x)
{
	uint64_t dirty;

	x->wb_state = WB_UNKNOWN;
	x->wb_freerun_pages = 0;
	if (!w->has_vmstat || !w->has_thresholds)
		return;
	/* balance_dirty_pages(): dirty + writeback against the thresholds;
	 * below the midpoint ("freerun") writers are never throttled */
	x->wb_freerun_pages = (w->nr_dirty_threshold + w->nr_dirty_bg_threshold) / 2;
	dirty = w->nr_dirty + w->nr_writeback;
	if (dirty >= w->nr_dirty_threshold && w->nr_dirty_threshold)
		x->wb_state = WB_BLOCKED;
	else if (dirty > x->wb_freerun_pages)
		x->wb_state = WB_THROTTLED;
	else if (w->nr_dirty > w->nr_dirty_bg_threshold)
		x->wb_state = WB_BACKGROUND;
	else
		x->wb_state = WB_BELOW_BACKGROUND;
}

/* A source read after samples that carried its last read's rows: its rates
 * span the two reads (doc/daemon.md, "CPU budget"). */
static uint64_t cad_interval(const struct snapshot *prev, const struct snapshot *cur,
			     enum cad_src k, uint64_t itv_cs)
{
	const struct src_cadence *p = &prev->cadence[k], *c = &cur->cadence[k];

	if (p->carried && p->read_uptime_cs && c->read_uptime_cs > p->read_uptime_cs)
		return c->read_uptime_cs - p->read_uptime_cs;
	return itv_cs;
}

int metrics_proc_compute(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv_cs,
			 const struct rate_table *irq, struct workload_metrics **pm)
{
	struct workload_metrics *x = *pm;
	int e;

	if (!itv_cs)
		return -EINVAL;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		*pm = x;
	}
	/* a sample that skipped a source (snapshot.cadence) keeps the last
	 * read's rates */
	if (!cur->cadence[CAD_NICS].carried)
		x->nnics = x->nnic_irqs = 0;
	if (!cur->cadence[CAD_PRESSURE].carried)
		memset(x->psi, 0, sizeof(x->psi));
	x->wb_state = WB_UNKNOWN;
	if (!cur->cadence[CAD_CGROUPS].carried) {
		x->cgroups_valid = false;
		x->cgroups.n = x->cgroups.ntop = x->cgroups.active = 0;
	}
	if (!cur->workload || !cur->workload->procs.carried) {
		x->nprocs = x->nby_io = x->nby_delay = x->nby_cpu = 0;
		x->exited = 0;
		x->procs_valid = false;
	}
	if (!prev->workload || !cur->workload)
		return 0;
	if (!cur->workload->procs.carried) {
		e = procs_compute(
		    &prev->workload->procs, &cur->workload->procs,
		    procs_interval(&prev->workload->procs, &cur->workload->procs, itv_cs), x);
		if (e < 0)
			return e;
		x->nby_io = top_n(x, BY_IO, x->by_io);
		x->nby_delay = top_n(x, BY_DELAY, x->by_delay);
		x->nby_cpu = top_n(x, BY_CPU, x->by_cpu);
		x->nby_runq = top_n(x, BY_RUNQ, x->by_runq);
	}
	e = nics_compute(&prev->workload->nics, &cur->workload->nics,
			 cad_interval(prev, cur, CAD_NICS, itv_cs), irq,
			 cur->cadence[CAD_NICS].carried, x);
	if (e < 0)
		return e;
	if (!cur->cadence[CAD_PRESSURE].carried)
		psi_compute(&prev->workload->pressure, &cur->workload->pressure,
			    cad_interval(prev, cur, CAD_PRESSURE, itv_cs), x);
	wb_compute(&cur->workload->writeback, x);
	if (cur->cadence[CAD_CGROUPS].carried)
		return 0;
	x->cgroups_valid =
	    !prev->workload->cgroups.status.err && !cur->workload->cgroups.status.err;
	if (x->cgroups_valid)
		return metrics_cgroup_compute(&prev->workload->cgroups, &cur->workload->cgroups,
					      cad_interval(prev, cur, CAD_CGROUPS, itv_cs),
					      &x->cgroups);
	return 0;
}

int metrics_proc_threads(const struct thread_table *prev, const struct thread_table *cur,
			 uint64_t itv_cs, struct workload_metrics **pm)
{
	struct proc_table p = { .rows = prev->rows, .n = prev->n, .procfs = prev->status };
	struct proc_table c = { .rows = cur->rows, .n = cur->n, .procfs = cur->status };
	struct workload_metrics *x = *pm;
	int e;

	if (!itv_cs)
		return -EINVAL;
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		*pm = x;
	}
	x->nby_io = x->nby_delay = x->nby_cpu = x->nby_runq = 0;
	/* another process behind the same number is not a rate */
	if (prev->pid != cur->pid) {
		x->nprocs = 0;
		x->procs_valid = false;
		return 0;
	}
	e = procs_compute(&p, &c, itv_cs, x);
	if (e < 0)
		return e;
	x->nby_io = top_n(x, BY_IO, x->by_io);
	x->nby_delay = top_n(x, BY_DELAY, x->by_delay);
	x->nby_cpu = top_n(x, BY_CPU, x->by_cpu);
	x->nby_runq = top_n(x, BY_RUNQ, x->by_runq);
	return 0;
}
