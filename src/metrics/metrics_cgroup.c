// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup v2 IO rates. Pure: no I/O, no clock. io.stat is hierarchical (a
 * parent's bytes include its children's), so the rows are not summed
 * across cgroups here; the busiest list keeps that to the reader.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metrics_rate.h"
#include "metrics_cgroup.h"
#include "unitname.h"

void metrics_cgroup_free(struct cgroup_metrics_set *x)
{
	if (!x)
		return;
	free(x->rows);
	free(x->devs);
	free(x->scratch);
	memset(x, 0, sizeof(*x));
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
	m->rkb_s = metrics_per_s(b->rbytes - a->rbytes, itv_cs) / 1024.0;
	m->wkb_s = metrics_per_s(b->wbytes - a->wbytes, itv_cs) / 1024.0;
	m->r_s = metrics_per_s(b->rios - a->rios, itv_cs);
	m->w_s = metrics_per_s(b->wios - a->wios, itv_cs);
	m->dkb_s = m->has_discard ? metrics_per_s(b->dbytes - a->dbytes, itv_cs) / 1024.0 : 0;
	m->d_s = m->has_discard ? metrics_per_s(b->dios - a->dios, itv_cs) : 0;
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

const char *cgroup_res_name(enum cg_res r)
{
	static const char *const names[CG_RES__COUNT] = { "io", "cpu", "memory" };

	return r < CG_RES__COUNT ? names[r] : "?";
}

void cgroup_unit_name(const char *path, char *out, size_t size)
{
	const char *name;
	size_t n;

	if (unit_system_service(path, strlen(path), &name, &n))
		snprintf(out, size, "%.*s", (int)n, name);
	else
		snprintf(out, size, "/%s", path);
}

/* The three pressure files' stall shares of cur against prev into m */
static void res_pcts(const struct cgroup_raw *p, const struct cgroup_raw *c, uint64_t itv_cs,
		     struct cgroup_metrics *m)
{
	const struct psi_line *ps[CG_RES__COUNT][2] = { { &p->some, &p->full },
							{ &p->cpu_some, &p->cpu_full },
							{ &p->mem_some, &p->mem_full } };
	const struct psi_line *cs[CG_RES__COUNT][2] = { { &c->some, &c->full },
							{ &c->cpu_some, &c->cpu_full },
							{ &c->mem_some, &c->mem_full } };

	m->some_valid = psi_pct(&p->some, &c->some, itv_cs, &m->some_pct);
	m->full_valid = psi_pct(&p->full, &c->full, itv_cs, &m->full_pct);
	for (int r = 0; r < CG_RES__COUNT; r++) {
		m->res_valid[r] = psi_pct(ps[r][0], cs[r][0], itv_cs, &m->res_some[r]);
		if (!psi_pct(ps[r][1], cs[r][1], itv_cs, &m->res_full[r]))
			m->res_full[r] = 0;
	}
}

/* The row of path's nearest ancestor that was read, or SIZE_MAX */
static size_t parent_row(const struct cgroup_table *ct, const char *path)
{
	char up[CGROUP_PATH_MAX];
	const struct cgroup_raw *g;

	if (!path[0])
		return SIZE_MAX;
	snprintf(up, sizeof(up), "%s", path);
	for (;;) {
		char *slash = strrchr(up, '/');

		if (slash)
			*slash = '\0';
		else
			up[0] = '\0';
		g = cgroup_table_find(ct, up);
		if (g)
			return (size_t)(g - ct->rows);
		if (!up[0])
			return SIZE_MAX;
	}
}

static void victim_insert(struct cgroup_metrics_set *x, const struct cgroup_victim *v)
{
	size_t k;

	if (x->nvictims == CGROUP_VICTIMS_N && v->some_pct <= x->victims[x->nvictims - 1].some_pct)
		return;
	k = x->nvictims < CGROUP_VICTIMS_N ? x->nvictims++ : x->nvictims - 1;
	while (k > 0 && v->some_pct > x->victims[k - 1].some_pct) {
		x->victims[k] = x->victims[k - 1];
		k--;
	}
	x->victims[k] = *v;
}

/*
 * The victims, flat across the tree: per resource, each row's longest
 * descendant stall is gathered bottom-up (the rows ascend by path, so a
 * child comes after its parent), then a row is a victim when it stalled
 * and no descendant explains half of it. Rows are x's, one per ct row.
 */
static int rank_victims(const struct cgroup_table *ct, struct cgroup_metrics_set *x)
{
	struct cgroup_victim_scratch *s;

	x->nvictims = 0;
	if (grow((void **)&x->scratch, &x->scratch_cap, ct->n + 1, sizeof(*x->scratch)) < 0)
		return -ENOMEM;
	s = x->scratch;
	for (size_t i = 0; i < ct->n; i++)
		s[i].parent = parent_row(ct, ct->rows[i].path);
	for (int r = 0; r < CG_RES__COUNT; r++) {
		for (size_t i = 0; i < ct->n; i++)
			s[i].desc = 0;
		for (size_t i = ct->n; i-- > 0;) {
			const struct cgroup_metrics *m = &x->rows[i];
			double own = m->res_valid[r] ? m->res_some[r] : 0;
			double up = own > s[i].desc ? own : s[i].desc;

			if (s[i].parent != SIZE_MAX && up > s[s[i].parent].desc)
				s[s[i].parent].desc = up;
		}
		for (size_t i = 0; i < ct->n; i++) {
			const struct cgroup_metrics *m = &x->rows[i];
			struct cgroup_victim v = { .row = i, .res = (enum cg_res)r };

			if (!m->res_valid[r] || m->res_some[r] <= 0 ||
			    s[i].desc >= 0.5 * m->res_some[r])
				continue;
			v.some_pct = m->res_some[r];
			v.full_pct = m->res_full[r];
			victim_insert(x, &v);
		}
	}
	return 0;
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
		if (p)
			res_pcts(p, c, itv_cs, m);
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
		if (weight(m) <= 0 && m->r_s + m->w_s + m->d_s <= 0 && m->some_pct <= 0 &&
		    m->res_some[CG_RES_CPU] <= 0 && m->res_some[CG_RES_MEM] <= 0)
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
	return rank_victims(ct, x);
}
