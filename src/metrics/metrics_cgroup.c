// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup v2 IO rates. Pure: no I/O, no clock. io.stat is hierarchical (a
 * parent's bytes include its children's), so the rows are not summed
 * across cgroups here; the busiest list keeps that to the reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metrics_cgroup.h"

void metrics_cgroup_free(struct cgroup_metrics_set *x)
{
	if (!x)
		return;
	free(x->rows);
	free(x->devs);
	memset(x, 0, sizeof(*x));
}

static double per_s(uint64_t d, uint64_t itv_cs)
{
	return (double)d * 100.0 / (double)itv_cs;
}

static const struct cgroup_io *dev_find(const struct cgroup_table *t, const struct cgroup_raw *g,
					uint32_t major, uint32_t minor)
{
	for (size_t i = 0; i < g->nio; i++) {
		const struct cgroup_io *io = &t->io[g->io_off + i];

		if (io->major == major && io->minor == minor)
			return io;
	}
	return NULL;
}

static bool dev_rates(const struct cgroup_io *a, const struct cgroup_io *b, uint64_t itv_cs,
		      struct cgroup_dev_metrics *m)
{
	if (b->rbytes < a->rbytes || b->wbytes < a->wbytes || b->rios < a->rios ||
	    b->wios < a->wios || b->dbytes < a->dbytes || b->dios < a->dios)
		return false;
	m->major = b->major;
	m->minor = b->minor;
	m->has_discard = a->has_discard && b->has_discard;
	m->rkb_s = per_s(b->rbytes - a->rbytes, itv_cs) / 1024.0;
	m->wkb_s = per_s(b->wbytes - a->wbytes, itv_cs) / 1024.0;
	m->r_s = per_s(b->rios - a->rios, itv_cs);
	m->w_s = per_s(b->wios - a->wios, itv_cs);
	m->dkb_s = m->has_discard ? per_s(b->dbytes - a->dbytes, itv_cs) / 1024.0 : 0;
	m->d_s = m->has_discard ? per_s(b->dios - a->dios, itv_cs) : 0;
	return true;
}

static bool psi_pct(const struct psi_line *a, const struct psi_line *b, uint64_t itv_cs,
		    double *ret)
{
	double v;

	if (!a->present || !b->present || b->total_us < a->total_us)
		return false;
	/* total= is in µs; the interval is itv_cs * 10^4 µs */
	v = (double)(b->total_us - a->total_us) / ((double)itv_cs * 100.0);
	*ret = v > 100.0 ? 100.0 : v;
	return true;
}

static double weight(const struct cgroup_metrics *m)
{
	return m->rkb_s + m->wkb_s + m->dkb_s;
}

/* <0 when a ranks before b: more bytes, then more stall, then the path order */
static int rank(const struct cgroup_metrics_set *x, size_t a, size_t b)
{
	const struct cgroup_metrics *p = &x->rows[a], *q = &x->rows[b];

	if (weight(p) != weight(q))
		return weight(p) > weight(q) ? -1 : 1;
	if (p->some_pct != q->some_pct)
		return p->some_pct > q->some_pct ? -1 : 1;
	return (a > b) - (a < b);
}

int metrics_cgroup_compute(const struct cgroup_table *pt, const struct cgroup_table *ct,
			   uint64_t itv_cs, struct cgroup_metrics_set *x)
{
	if (!itv_cs)
		return -EINVAL;
	x->n = x->ndevs = x->ntop = 0;
	x->active = 0;
	if (grow((void **)&x->rows, &x->cap, ct->n, sizeof(*x->rows)) < 0 ||
	    grow((void **)&x->devs, &x->devs_cap, ct->nio, sizeof(*x->devs)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < ct->n; i++) {
		const struct cgroup_raw *c = &ct->rows[i];
		const struct cgroup_raw *p = cgroup_table_find(pt, c->path);
		struct cgroup_metrics *m = &x->rows[x->n++];
		size_t k;

		memset(m, 0, sizeof(*m));
		m->cur_index = i;
		m->dev_off = x->ndevs;
		if (p) {
			m->some_valid = psi_pct(&p->some, &c->some, itv_cs, &m->some_pct);
			m->full_valid = psi_pct(&p->full, &c->full, itv_cs, &m->full_pct);
		}
		m->valid = p && p->has_stat && c->has_stat;
		for (size_t j = 0; m->valid && j < c->nio; j++) {
			const struct cgroup_io *b = &ct->io[c->io_off + j];
			const struct cgroup_io *a = dev_find(pt, p, b->major, b->minor);
			struct cgroup_dev_metrics *d = &x->devs[x->ndevs];
			struct cgroup_io zero = { .major = b->major,
						  .minor = b->minor,
						  .has_discard = b->has_discard };

			/* a device new in this cgroup: all its counts are the interval's */
			if (!dev_rates(a ? a : &zero, b, itv_cs, d))
				continue;
			x->ndevs++;
			m->rkb_s += d->rkb_s;
			m->wkb_s += d->wkb_s;
			m->r_s += d->r_s;
			m->w_s += d->w_s;
			m->dkb_s += d->dkb_s;
			m->d_s += d->d_s;
		}
		m->ndev = x->ndevs - m->dev_off;
		if (weight(m) <= 0 && m->r_s + m->w_s + m->d_s <= 0 && m->some_pct <= 0)
			continue;
		x->active++;
		/* insertion into the busiest CGROUP_TOP_N: linear in the rows */
		if (x->ntop == CGROUP_TOP_N && rank(x, x->n - 1, x->top[x->ntop - 1]) >= 0)
			continue;
		k = x->ntop < CGROUP_TOP_N ? x->ntop++ : x->ntop - 1;
		while (k > 0 && rank(x, x->n - 1, x->top[k - 1]) < 0) {
			x->top[k] = x->top[k - 1];
			k--;
		}
		x->top[k] = x->n - 1;
	}
	return 0;
}
