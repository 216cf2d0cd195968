// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rates and percentiles of the tracing stage: pure over two trace_raw reads.
 * Rows pair by identity (IRQ line, disk+op+stage, disk+hardware queue+op,
 * NAPI, disk+hardware queue), never by position; a
 * counter that went down (its map entry re-created) gives no row.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diskstats.h"
#include "grow.h"
#include "metrics_trace.h"

void metrics_trace_free(struct trace_metrics *m)
{
	if (!m)
		return;
	free(m->soft_us_s);
	free(m->hard_us_s);
	free(m->irq);
	free(m->irq_us_s);
	free(m->irq_cnt_s);
	free(m->disks);
	free(m->hctx);
	free(m->napi);
	free(m->blkq);
	free(m->cg);
	memset(m, 0, sizeof(*m));
}

/* bucket i holds [2^i, 2^(i+1)) µs, bucket 0 [0, 2) (biolatency's log2) */
static double slot_lo(int i)
{
	return i ? ldexp(1.0, i) : 0.0;
}

static double slot_hi(int i)
{
	return ldexp(1.0, i + 1);
}

double metrics_trace_quantile(const uint64_t slots[TRACE_HIST_SLOTS], uint64_t n, double q)
{
	double rank, cum = 0;

	if (!n)
		return 0;
	rank = q * (double)n;
	for (int i = 0; i < TRACE_HIST_SLOTS; i++) {
		double c = (double)slots[i];

		if (c > 0 && cum + c >= rank)
			return slot_lo(i) + (slot_hi(i) - slot_lo(i)) * ((rank - cum) / c);
		cum += c;
	}
	return slot_hi(TRACE_HIST_SLOTS - 1);
}

/*
 * The interval's histogram of a row (c less p, p NULL: new) into *d,
 * checked as a read is (trace_lat_check) and against the interval: false
 * when it cannot be (its buckets' sum overflows, a mean past its highest
 * bucket, more IOs than TRACE_IO_MIN_NS allows at the sampling weight),
 * counted in m->rows_dropped. A remote count above the IOs is capped.
 */
static bool lat_delta(const struct trace_raw *prev, const struct trace_raw *cur,
		      const struct trace_lat_raw *p, const struct trace_lat_raw *c,
		      struct trace_metrics *m, struct trace_lat_raw *d)
{
	uint32_t w =
	    prev->block_sample > cur->block_sample ? prev->block_sample : cur->block_sample;

	*d = *c;
	for (int i = 0; i < TRACE_HIST_SLOTS && p; i++)
		d->slots[i] -= p->slots[i];
	d->sum_ns -= p ? p->sum_ns : 0;
	d->remote -= p ? p->remote : 0;
	if ((trace_lat_check(d) & TRACE_CHECK_BAD) ||
	    !trace_ios_ok(d->count, (uint64_t)(cur->mono_ns - prev->mono_ns), w)) {
		m->rows_dropped++;
		return false;
	}
	return true;
}

/* the interval's histogram d (lat_delta) as percentiles */
static void lat_compute(const struct trace_lat_raw *d, struct trace_lat_metrics *l)
{
	uint64_t n = d->count;

	memset(l, 0, sizeof(*l));
	for (int i = 0; i < TRACE_HIST_SLOTS; i++) {
		l->slots[i] = d->slots[i];
		if (l->slots[i])
			l->max_us = slot_hi(i);
	}
	l->count = n;
	if (!n)
		return;
	l->mean_us = (double)d->sum_ns / 1000.0 / (double)n;
	l->p50_us = metrics_trace_quantile(l->slots, n, 0.50);
	l->p90_us = metrics_trace_quantile(l->slots, n, 0.90);
	l->p99_us = metrics_trace_quantile(l->slots, n, 0.99);
	l->p999_us = metrics_trace_quantile(l->slots, n, 0.999);
}

/* a counter that went down: the entry was re-created, no difference */
static bool lat_reset(const struct trace_lat_raw *p, const struct trace_lat_raw *c)
{
	if (c->count < p->count || c->sum_ns < p->sum_ns || c->remote < p->remote)
		return true;
	for (int i = 0; i < TRACE_HIST_SLOTS; i++)
		if (c->slots[i] < p->slots[i])
			return true;
	return false;
}

/* prev's row (n rows of size bytes) of c's key, from *j on: both reads
 * sorted by cmp, one merge; NULL when prev has none */
static const void *pair(const void *rows, size_t n, size_t size, size_t *j, const void *c,
			int (*cmp)(const void *, const void *))
{
	const char *b = rows;

	while (*j < n && cmp(b + *j * size, c) < 0)
		(*j)++;
	return *j < n && cmp(b + *j * size, c) == 0 ? b + *j * size : NULL;
}

static int disks_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			 const struct disk_table *names, struct trace_metrics *m)
{
	size_t j = 0;

	m->ndisk = 0;
	if (grow_to((void **)&m->disks, cur->nlat, sizeof(*m->disks)) < 0)
		return -ENOMEM;
	/* both reads are sorted by (major, minor, op, kind): one merge */
	for (size_t i = 0; i < cur->nlat; i++) {
		const struct trace_lat_raw *c = &cur->lat[i];
		const struct trace_lat_raw *p =
		    pair(prev->lat, prev->nlat, sizeof(*prev->lat), &j, c, trace_lat_cmp);
		struct trace_disk_metrics *d;
		struct trace_lat_raw dl;

		if (p && lat_reset(p, c))
			continue;
		/* new, or left out of prev as impossible: its difference unknown */
		if (!p && prev->rows_dropped)
			continue;
		if (!lat_delta(prev, cur, p, c, m, &dl))
			continue;
		d = m->ndisk ? &m->disks[m->ndisk - 1] : NULL;
		if (!d || d->major != c->major || d->minor != c->minor) {
			const struct disk_raw *row =
			    names ? disk_table_find(names, c->major, c->minor, NULL) : NULL;

			d = &m->disks[m->ndisk++];
			memset(d, 0, sizeof(*d));
			d->major = c->major;
			d->minor = c->minor;
			if (row)
				memcpy(d->name, row->name, sizeof(d->name));
		}
		d->has[c->op][c->kind] = true;
		lat_compute(&dl, &d->lat[c->op][c->kind]);
		if (c->kind == TRACE_LAT_DEVICE) {
			d->completed += d->lat[c->op][c->kind].count;
			d->remote += dl.remote;
		}
	}
	return 0;
}

/* The device stage by disk, hardware queue and op: rows that completed
 * IO in the interval, the same percentiles as the disks' (lat_compute). */
static int hctx_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			struct trace_metrics *m)
{
	size_t j = 0;

	m->nhctx = 0;
	m->has_hctx = prev->hlat_read && cur->hlat_read;
	m->hctx_dropped = m->has_hctx && cur->hlat_dropped >= prev->hlat_dropped
			      ? cur->hlat_dropped - prev->hlat_dropped
			      : 0;
	if (!m->has_hctx)
		return 0;
	if (grow_to((void **)&m->hctx, cur->nhlat, sizeof(*m->hctx)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->nhlat; i++) {
		const struct trace_lat_raw *c = &cur->hlat[i];
		const struct trace_lat_raw *p =
		    pair(prev->hlat, prev->nhlat, sizeof(*prev->hlat), &j, c, trace_lat_cmp);
		struct trace_hctx_metrics *h = &m->hctx[m->nhctx];
		struct trace_lat_raw dl;

		if (c->op >= TRACE_OP__COUNT || (p && lat_reset(p, c)) ||
		    (!p && prev->rows_dropped) || !lat_delta(prev, cur, p, c, m, &dl))
			continue;
		lat_compute(&dl, &h->lat);
		if (!h->lat.count)
			continue;
		h->major = c->major;
		h->minor = c->minor;
		h->hctx = c->hctx;
		h->op = c->op;
		h->count_s = (double)h->lat.count / m->itv_s;
		h->remote = dl.remote; /* at most its IOs (lat_delta) */
		m->nhctx++;
	}
	return 0;
}

/* a cgroup row as a histogram, for lat_compute */
static void cg_as_lat(const struct trace_cg_raw *g, struct trace_lat_raw *l)
{
	memset(l, 0, sizeof(*l));
	memcpy(l->slots, g->slots, sizeof(l->slots));
	l->count = g->count;
	l->sum_ns = g->sum_ns;
}

/* IO by the cgroup that owns it, per disk: both reads sorted by
 * (cgid, major, minor, kind), one merge; rows with IO in the interval */
static int cg_compute(const struct trace_raw *prev, const struct trace_raw *cur,
		      const struct disk_table *names, struct trace_metrics *m)
{
	size_t j = 0;

	m->ncg = 0;
	m->has_cg = prev->cg_read && cur->cg_read;
	m->cg_dropped = m->has_cg && cur->cg_dropped >= prev->cg_dropped
			    ? cur->cg_dropped - prev->cg_dropped
			    : 0;
	memcpy(m->cg_top, cur->cg_top, sizeof(m->cg_top));
	m->cg_top[sizeof(m->cg_top) - 1] = '\0';
	if (!m->has_cg)
		return 0;
	if (grow_to((void **)&m->cg, cur->ncg, sizeof(*m->cg)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->ncg; i++) {
		const struct trace_cg_raw *c = &cur->cg[i], *p = NULL;
		struct trace_lat_raw pl, cl, dl;
		struct trace_cg_metrics *g;
		struct trace_lat_metrics l;

		if (c->kind >= TRACE_LAT__COUNT)
			continue;
		p = pair(prev->cg, prev->ncg, sizeof(*prev->cg), &j, c, trace_cg_cmp);
		cg_as_lat(c, &cl);
		if (p)
			cg_as_lat(p, &pl);
		if (p && lat_reset(&pl, &cl))
			continue;
		/* new, or left out of prev as impossible: its difference unknown */
		if (!p && prev->rows_dropped)
			continue;
		if (!lat_delta(prev, cur, p ? &pl : NULL, &cl, m, &dl))
			continue;
		lat_compute(&dl, &l);
		if (!l.count)
			continue;
		g = m->ncg ? &m->cg[m->ncg - 1] : NULL;
		if (!g || g->cgid != c->cgid || g->major != c->major || g->minor != c->minor) {
			const struct disk_raw *row =
			    names ? disk_table_find(names, c->major, c->minor, NULL) : NULL;

			g = &m->cg[m->ncg++];
			memset(g, 0, sizeof(*g));
			g->cgid = c->cgid;
			memcpy(g->path, c->path, sizeof(g->path));
			g->path[sizeof(g->path) - 1] = '\0';
			g->major = c->major;
			g->minor = c->minor;
			if (row)
				memcpy(g->name, row->name, sizeof(g->name));
		}
		g->has[c->kind] = true;
		g->lat[c->kind] = l;
		if (c->kind == TRACE_LAT_DEVICE)
			g->count_s = (double)l.count / m->itv_s;
	}
	return 0;
}

static int irqs_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			struct trace_metrics *m)
{
	uint64_t dt_ns = (uint64_t)(cur->mono_ns - prev->mono_ns);
	size_t nc = cur->ncpu, j = 0;

	m->nirq = 0;
	if (grow_to((void **)&m->irq, cur->nirq, sizeof(*m->irq)) < 0 ||
	    grow_to((void **)&m->irq_us_s, cur->nirq * nc, sizeof(*m->irq_us_s)) < 0 ||
	    grow_to((void **)&m->irq_cnt_s, cur->nirq * nc, sizeof(*m->irq_cnt_s)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->nirq; i++) {
		const uint64_t *pn = NULL, *pc = NULL, *cn = &cur->irq_ns[i * nc];
		const uint64_t *cc = &cur->irq_count[i * nc];
		bool any = false, reset = false;

		while (j < prev->nirq && prev->irq[j] < cur->irq[i])
			j++;
		if (j < prev->nirq && prev->irq[j] == cur->irq[i]) {
			pn = &prev->irq_ns[j * nc];
			pc = &prev->irq_count[j * nc];
		}
		for (size_t k = 0; k < nc; k++) {
			reset |= pn && (cn[k] < pn[k] || cc[k] < pc[k]);
			any |= cc[k] != (pc ? pc[k] : 0);
		}
		if (reset || !any)
			continue;
		/* more of a CPU's time than the interval had: left out (trace_raw.h) */
		for (size_t k = 0; k < nc && !reset; k++)
			reset = !trace_time_ok(cn[k] - (pn ? pn[k] : 0), dt_ns);
		if (reset) {
			m->rows_dropped++;
			continue;
		}
		for (size_t k = 0; k < nc; k++) {
			double us_s = (double)(cn[k] - (pn ? pn[k] : 0)) / 1000.0 / m->itv_s;

			m->irq_us_s[m->nirq * nc + k] = us_s;
			m->irq_cnt_s[m->nirq * nc + k] =
			    (double)(cc[k] - (pc ? pc[k] : 0)) / m->itv_s;
			m->hard_us_s[k] += us_s;
		}
		m->irq[m->nirq++] = cur->irq[i];
	}
	return 0;
}

/* A per-queue row (a NAPI's NET_RX time, a hardware queue's BLOCK time)
 * over the interval, p_ns its previous read's time (0 new): kept unless
 * it is idle, was re-created (down: a counter went down) or took more
 * than all the CPUs' time (then counted in m->rows_dropped). */
static bool queue_row_ok(uint64_t c_ns, uint64_t p_ns, bool down, const struct trace_raw *cur,
			 uint64_t dt_ns, struct trace_metrics *m)
{
	if (down || c_ns == p_ns)
		return false;
	if (!trace_time_ok((c_ns - p_ns) / cur->ncpu, dt_ns)) {
		m->rows_dropped++; /* more than all the CPUs' time */
		return false;
	}
	return true;
}

/* NET_RX time by NAPI: both reads sorted by napi_id, one merge */
static int napi_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			struct trace_metrics *m)
{
	size_t j = 0;

	uint64_t dt_ns = (uint64_t)(cur->mono_ns - prev->mono_ns);

	m->nnapi = 0;
	m->has_napi = prev->napi_read && cur->napi_read;
	if (!m->has_napi)
		return 0;
	if (grow_to((void **)&m->napi, cur->nnapi, sizeof(*m->napi)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->nnapi; i++) {
		const struct trace_napi_raw *c = &cur->napi[i], *p = NULL;
		struct trace_napi_metrics *q;

		p = pair(prev->napi, prev->nnapi, sizeof(*prev->napi), &j, c, trace_napi_cmp);
		if (!queue_row_ok(c->ns, p ? p->ns : 0,
				  p && (c->ns < p->ns || c->polls < p->polls || c->work < p->work),
				  cur, dt_ns, m))
			continue;
		q = &m->napi[m->nnapi++];
		memset(q, 0, sizeof(*q));
		q->napi_id = c->napi_id;
		q->irq = c->irq;
		q->index = c->index;
		memcpy(q->dev, c->dev, sizeof(q->dev));
		q->dev[sizeof(q->dev) - 1] = '\0';
		q->ifindex = c->ifindex;
		q->netns = c->netns;
		q->foreign = c->netns && cur->host_netns && c->netns != cur->host_netns;
		q->us_s = (double)(c->ns - (p ? p->ns : 0)) / 1000.0 / m->itv_s;
		q->polls_s = (double)(c->polls - (p ? p->polls : 0)) / m->itv_s;
		q->packets_s = (double)(c->work - (p ? p->work : 0)) / m->itv_s;
	}
	return 0;
}

/* BLOCK time by disk and hardware queue: sorted by (major, minor, hctx) */
static int blkq_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			const struct disk_table *names, struct trace_metrics *m)
{
	size_t j = 0;

	uint64_t dt_ns = (uint64_t)(cur->mono_ns - prev->mono_ns);

	m->nblkq = 0;
	m->has_blkq = prev->blkq_read && cur->blkq_read;
	if (!m->has_blkq)
		return 0;
	if (grow_to((void **)&m->blkq, cur->nblkq, sizeof(*m->blkq)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->nblkq; i++) {
		const struct trace_blkq_raw *c = &cur->blkq[i], *p = NULL;
		const struct disk_raw *row;
		struct trace_blkq_metrics *q;

		p = pair(prev->blkq, prev->nblkq, sizeof(*prev->blkq), &j, c, trace_blkq_cmp);
		if (!queue_row_ok(c->ns, p ? p->ns : 0, p && (c->ns < p->ns || c->count < p->count),
				  cur, dt_ns, m))
			continue;
		q = &m->blkq[m->nblkq++];
		memset(q, 0, sizeof(*q));
		q->major = c->major;
		q->minor = c->minor;
		q->hctx = c->hctx;
		row = names ? disk_table_find(names, c->major, c->minor, NULL) : NULL;
		if (row)
			memcpy(q->name, row->name, sizeof(q->name));
		q->us_s = (double)(c->ns - (p ? p->ns : 0)) / 1000.0 / m->itv_s;
		q->completed_s = (double)(c->count - (p ? p->count : 0)) / m->itv_s;
	}
	return 0;
}

int metrics_trace_compute(const struct trace_raw *prev, const struct trace_raw *cur,
			  const struct disk_table *names, struct trace_metrics *m)
{
	size_t nc = cur->ncpu, ns = nc * TRACE_NR_SOFTIRQS;
	double *a, *b;
	int r;

	if (!prev->valid || !cur->valid || prev->ncpu != cur->ncpu || !nc ||
	    cur->mono_ns <= prev->mono_ns)
		return -EINVAL;
	m->itv_s = (double)(cur->mono_ns - prev->mono_ns) / 1e9;
	m->budget_pct = cur->budget_pct;
	m->ncpu = cur->ncpu;
	a = realloc(m->soft_us_s, ns * sizeof(*m->soft_us_s));
	if (a)
		m->soft_us_s = a;
	b = realloc(m->hard_us_s, nc * sizeof(*m->hard_us_s));
	if (b)
		m->hard_us_s = b;
	if (!a || !b)
		return -ENOMEM;
	memset(m->hard_us_s, 0, nc * sizeof(*m->hard_us_s));
	for (int k = 0; k < TRACE__COUNT; k++) {
		const struct trace_probe_status *p = &prev->probe[k], *c = &cur->probe[k];

		/* a probe switched off at cur's read was still read then */
		m->on[k] = p->read && c->read;
		m->off[k] = !c->on;
		m->over_budget[k] = c->backing_off;
		m->off_s[k] = c->backing_off ? (double)c->off_ns / 1e9 : 0;
		m->probe_cpu_pct[k] = -1;
		if (p->has_run && c->has_run && c->run_ns >= p->run_ns)
			m->probe_cpu_pct[k] = (double)(c->run_ns - p->run_ns) / 1e7 / m->itv_s;
	}
	m->rows_dropped = cur->rows_dropped;
	for (size_t i = 0; i < ns; i++) {
		uint64_t d =
		    cur->soft_ns[i] >= prev->soft_ns[i] ? cur->soft_ns[i] - prev->soft_ns[i] : 0;

		/* more of a CPU's time than the interval had: left out */
		if (!trace_time_ok(d, (uint64_t)(cur->mono_ns - prev->mono_ns))) {
			m->rows_dropped++;
			d = 0;
		}
		m->soft_us_s[i] = (double)d / 1000.0 / m->itv_s;
	}
	m->has_lat_dropped = prev->probe[TRACE_BLOCK].read && cur->probe[TRACE_BLOCK].read;
	m->lat_dropped = m->has_lat_dropped && cur->lat_dropped >= prev->lat_dropped
			     ? cur->lat_dropped - prev->lat_dropped
			     : 0;
	r = irqs_compute(prev, cur, m);
	if (r >= 0)
		r = disks_compute(prev, cur, names, m);
	if (r >= 0)
		r = cg_compute(prev, cur, names, m);
	if (r >= 0)
		r = hctx_compute(prev, cur, m);
	if (r >= 0)
		r = napi_compute(prev, cur, m);
	if (r >= 0)
		r = blkq_compute(prev, cur, names, m);
	return r;
}
