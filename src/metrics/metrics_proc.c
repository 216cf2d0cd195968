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
#include <sys/types.h>

#include "grow.h"
#include "metrics_rate.h"
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
	free(x->groups);
	free(x->group_slots);
	free(x->troles);
	free(x->nics);
	free(x->nic_irqs);
	metrics_cgroup_free(&x->cgroups);
	free(x);
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
	m->usr_pct = metrics_per_s(d[0] > d[2] ? d[0] - d[2] : 0, itv_cs);
	m->sys_pct = metrics_per_s(d[1], itv_cs);
	m->cpu_pct = metrics_per_s(d[0] + d[1], itv_cs);
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
	size_t group[PROC_TOP_N];
	struct proc_role role[PROC_TOP_N];
	uint64_t ticks[PROC_TOP_N];
	size_t n;
};

static void cpu_only_add(struct cpu_only *o, size_t row, size_t group, const struct proc_role *role,
			 uint64_t ticks)
{
	size_t j;

	if (o->n == PROC_TOP_N && ticks <= o->ticks[o->n - 1])
		return;
	j = o->n < PROC_TOP_N ? o->n++ : o->n - 1;
	while (j > 0 && ticks > o->ticks[j - 1]) {
		o->row[j] = o->row[j - 1];
		o->group[j] = o->group[j - 1];
		o->role[j] = o->role[j - 1];
		o->ticks[j] = o->ticks[j - 1];
		j--;
	}
	o->row[j] = row;
	o->group[j] = group;
	o->role[j] = *role;
	o->ticks[j] = ticks;
}

/* ---- groups ---- */

/* '\x1f' (unit separator) between the parts: no escaped field holds it */
static void group_key(const struct proc_raw *c, const struct proc_role *role, char *key,
		      size_t size)
{
	if (role->db && role->role[0])
		snprintf(key, size, "%s\x1f%s", dbrole_db_name(role->db), role->role);
	else
		snprintf(key, size, "cmd\x1f%s\x1f%s\x1f%s", c->comm, c->has_who ? c->unit : "",
			 c->has_who ? c->user : "");
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Empty hash slots for up to n groups (a power of two, twice n at least). */
static int groups_reset(struct workload_metrics *x, size_t n)
{
	size_t want = 16;

	while (want < 2 * n)
		want *= 2;
	if (want > x->group_slots_n) {
		uint32_t *sl = realloc(x->group_slots, want * sizeof(*sl));

		if (!sl)
			return -ENOMEM;
		x->group_slots = sl;
		x->group_slots_n = want;
	}
	memset(x->group_slots, 0xff, x->group_slots_n * sizeof(*x->group_slots));
	x->ngroups = 0;
	return 0;
}

/* Adds one active process to its group; its index, or -ENOMEM. */
static ssize_t group_add(struct workload_metrics *x, const struct proc_raw *c,
			 const struct proc_role *role, double kb_rd, double kb_wr, double delay,
			 double cpu)
{
	char key[PROC_GROUP_KEY_MAX];
	size_t mask = x->group_slots_n - 1, i;
	struct proc_group *g;
	double kb = kb_rd + kb_wr;

	group_key(c, role, key, sizeof(key));
	for (i = fnv1a(key) & mask; x->group_slots[i] != UINT32_MAX; i = (i + 1) & mask)
		if (strcmp(x->groups[x->group_slots[i]].key, key) == 0)
			break;
	if (x->group_slots[i] == UINT32_MAX) {
		if (grow((void **)&x->groups, &x->groups_cap, x->ngroups + 1, sizeof(*x->groups)) <
		    0)
			return -ENOMEM;
		g = &x->groups[x->ngroups];
		memset(g, 0, sizeof(*g));
		memcpy(g->key, key, sizeof(g->key));
		g->db = role->db;
		memcpy(g->role, role->role, sizeof(g->role));
		memcpy(g->comm, c->comm, sizeof(g->comm));
		g->has_who = c->has_who;
		memcpy(g->user, c->user, sizeof(g->user));
		memcpy(g->unit, c->unit, sizeof(g->unit));
		x->group_slots[i] = (uint32_t)x->ngroups++;
	}
	g = &x->groups[x->group_slots[i]];
	if (c->has_who && !g->has_who) {
		g->has_who = true;
		memcpy(g->user, c->user, sizeof(g->user));
		memcpy(g->unit, c->unit, sizeof(g->unit));
	} else if (c->has_who) {
		g->users_differ |= strcmp(g->user, c->user) != 0;
		g->units_differ |= strcmp(g->unit, c->unit) != 0;
	}
	g->n++;
	g->rkb_s += kb_rd;
	g->wkb_s += kb_wr;
	g->io_delay += delay;
	g->cpu_pct += cpu;
	if (g->n == 1 || kb > g->top_kb_s || (kb == g->top_kb_s && cpu > g->top_cpu)) {
		g->pid = c->pid;
		g->top_kb_s = kb;
		g->top_cpu = cpu;
		if (c->has_who)
			memcpy(g->cmdline, c->cmdline, sizeof(g->cmdline));
		else
			g->cmdline[0] = '\0';
	}
	return (ssize_t)x->group_slots[i];
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

/* What a process did over the interval: bytes read, written and cancelled
 * (less its reaped children's, counted on their own rows), the bytes of
 * children it reaped, and its block IO delay. */
struct io_delta {
	uint64_t r, w, c, gone;
	uint64_t delay_ns, count;
	bool dly;
};

/* p is prev_row()'s (or a zero row for a process that started: started). */
static void io_delta(const struct proc_raw *p, const struct proc_raw *c, bool started,
		     struct io_delta *d)
{
	uint64_t dd, dn;

	/* bytes of one kind in both rows (a process whose /proc/PID/io
	 * was refused has taskstats' thread sums, and a first answer is a
	 * baseline), else no IO rate this interval */
	if (c->io_unknown || (!started && (p->io_unknown || p->io_taskstats != c->io_taskstats))) {
		d->r = d->w = d->c = 0;
	} else if (!delta(p->read_bytes, c->read_bytes, &d->r) ||
		   !delta(p->write_bytes, c->write_bytes, &d->w) ||
		   !delta(p->cancelled_write_bytes, c->cancelled_write_bytes, &d->c)) {
		/* went back (a thread's bytes gone with it): no IO rate;
		 * its CPU time is still the process's */
		d->r = d->w = d->c = 0;
	}
	/* the children's IO the kernel folded in at wait(): already shown
	 * on the children's own rows (doc/netlink.md, double count) */
	dd = reaped(p->reaped_read_bytes, c->reaped_read_bytes);
	d->r -= dd < d->r ? dd : d->r;
	dn = reaped(p->reaped_write_bytes, c->reaped_write_bytes);
	d->w -= dn < d->w ? dn : d->w;
	d->gone = dd + dn;
	dd = reaped(p->reaped_cancelled_bytes, c->reaped_cancelled_bytes);
	d->c -= dd < d->c ? dd : d->c;
	d->gone += dd;
	d->delay_ns = d->count = 0;
	d->dly = c->has_delay && p->has_delay &&
		 delta(p->blkio_delay_ns, c->blkio_delay_ns, &d->delay_ns) &&
		 delta(p->blkio_count, c->blkio_count, &d->count);
}

/* A new row for process c (started: absent from the previous sample), or
 * NULL without memory. */
static struct proc_metrics *proc_row_add(struct workload_metrics *x, const struct proc_raw *c,
					 bool started)
{
	struct proc_metrics *m;

	if (grow((void **)&x->procs, &x->procs_cap, x->nprocs + 1, sizeof(*x->procs)) < 0)
		return NULL;
	m = &x->procs[x->nprocs++];
	memset(m, 0, sizeof(*m));
	m->pid = c->pid;
	memcpy(m->comm, c->comm, sizeof(m->comm));
	m->source = c->source;
	m->started = started;
	m->exited = c->exited;
	return m;
}

/* The busiest processes that did no IO: a CPU culprit is a row too. */
static int add_cpu_only_rows(const struct proc_table *pt, const struct proc_table *ct,
			     uint64_t itv_cs, const struct cpu_only *busy,
			     struct workload_metrics *x)
{
	struct proc_raw zero = { 0 };

	for (size_t k = 0; k < busy->n; k++) {
		const struct proc_raw *c = &ct->rows[busy->row[k]];
		const struct proc_raw *p = prev_row(pt, c);
		uint64_t dcpu[3];
		struct proc_metrics *m;

		if (!p) {
			zero.has_stat = c->has_stat;
			p = &zero;
		}
		m = proc_row_add(x, c, p == &zero);
		if (!m)
			return -ENOMEM;
		if (cpu_delta(p, c, dcpu))
			cpu_rates(m, dcpu, itv_cs);
		if (p->has_sched && c->has_sched && c->runq_ns >= p->runq_ns) {
			/* ns over the interval's itv_cs * 10^7 ns, in percent */
			m->has_runq = true;
			m->runq_pct = (double)(c->runq_ns - p->runq_ns) / ((double)itv_cs * 1e5);
		}
		who_copy(m, c);
		m->role = busy->role[k];
		m->group = busy->group[k];
	}
	return 0;
}

static int procs_compute(const struct proc_table *pt, const struct proc_table *ct, uint64_t itv_cs,
			 struct workload_metrics *x)
{
	struct cpu_only busy = { .n = 0 };
	struct proc_raw zero = { 0 };

	x->nprocs = 0;
	x->exited = 0;
	x->procs_valid = !pt->procfs.err && !ct->procfs.err;
	x->ngroups = 0;
	if (!x->procs_valid)
		return 0;
	if (groups_reset(x, ct->n) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < pt->n; i++)
		if (!proc_table_find(ct, pt->rows[i].pid))
			x->exited++;
	for (size_t i = 0; i < ct->n; i++) {
		const struct proc_raw *c = &ct->rows[i];
		const struct proc_raw *p = prev_row(pt, c);
		uint64_t dcpu[3] = { 0, 0, 0 };
		struct proc_metrics *m;
		struct proc_role role;
		struct io_delta d;
		bool cpu;
		ssize_t g;

		/* a PID absent before started during the interval: all its IO is ours */
		if (!p) {
			zero.has_stat = c->has_stat;
			p = &zero;
		}
		io_delta(p, c, p == &zero, &d);
		cpu = cpu_delta(p, c, dcpu);
		if (!d.r && !d.w && !d.c && !d.delay_ns && !(cpu && dcpu[0] + dcpu[1]))
			continue;
		dbrole_of(c->comm, c->has_who, c->cmdline, c->user, c->unit, &role);
		g = group_add(x, c, &role, metrics_per_s(d.r, itv_cs) / 1024.0,
			      metrics_per_s(d.w, itv_cs) / 1024.0,
			      d.dly ? (double)d.delay_ns / ((double)itv_cs * 1e5) : 0,
			      cpu ? metrics_per_s(dcpu[0] + dcpu[1], itv_cs) : 0);
		if (g < 0)
			return -ENOMEM;
		if (!d.r && !d.w && !d.c && !d.delay_ns) {
			cpu_only_add(&busy, i, (size_t)g, &role, dcpu[0] + dcpu[1]);
			continue;
		}
		m = proc_row_add(x, c, p == &zero);
		if (!m)
			return -ENOMEM;
		m->rkb_s = metrics_per_s(d.r, itv_cs) / 1024.0;
		m->wkb_s = metrics_per_s(d.w, itv_cs) / 1024.0;
		m->ckb_s = metrics_per_s(d.c, itv_cs) / 1024.0;
		m->reaped_kb_s = metrics_per_s(d.gone, itv_cs) / 1024.0;
		m->has_delay = d.dly;
		if (d.dly) {
			/* ns over an interval of itv_cs * 10^7 ns, in percent */
			m->io_delay = (double)d.delay_ns / ((double)itv_cs * 1e5);
			m->blkio_s = metrics_per_s(d.count, itv_cs);
		}
		if (cpu)
			cpu_rates(m, dcpu, itv_cs);
		who_copy(m, c);
		m->role = role;
		m->group = (size_t)g;
	}
	return add_cpu_only_rows(pt, ct, itv_cs, &busy, x);
}

/* ---- database servers' threads ---- */

static const struct proc_thread *thread_find(const struct proc_table *t, int32_t pid, int32_t tid)
{
	size_t lo = 0, hi = t->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct proc_thread *th = &t->threads[mid];

		if (th->pid == pid && th->tid == tid)
			return th;
		if (th->pid < pid || (th->pid == pid && th->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_trole(const void *a, const void *b)
{
	const struct proc_thread_metrics *x = a, *y = b;
	double vx = x->rkb_s + x->wkb_s, vy = y->rkb_s + y->wkb_s;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->role, y->role);
}

/* Per role of each believed server: the bytes of its threads this interval
 * (a thread new since the last scan: all of its bytes). */
static int threads_compute(const struct proc_table *pt, const struct proc_table *ct,
			   uint64_t itv_cs, struct workload_metrics *x)
{
	bool unnamed = false;

	x->ntroles = 0;
	x->threads_why[0] = '\0';
	for (size_t i = 0; i < ct->nthreads; i++) {
		const struct proc_thread *th = &ct->threads[i], *pth;
		const struct proc_raw *c = proc_table_find(ct, th->pid), *p;
		struct proc_thread_metrics *m = NULL;
		struct proc_role role;
		char name[PROC_ROLE_MAX];
		uint64_t dr = 0, dw = 0;

		if (!c)
			continue;
		dbrole_of(c->comm, c->has_who, c->cmdline, c->user, c->unit, &role);
		if (!role.db)
			continue;
		p = prev_row(pt, c);
		pth = p ? thread_find(pt, th->pid, th->tid) : NULL;
		if (pth && (!delta(pth->read_bytes, th->read_bytes, &dr) ||
			    !delta(pth->write_bytes, th->write_bytes, &dw)))
			continue;
		if (!pth) {
			dr = th->read_bytes;
			dw = th->write_bytes;
		}
		if (!dr && !dw)
			continue;
		if (th->role[0]) {
			memcpy(name, th->role, sizeof(name));
		} else if (dbrole_mysql_thread(th->comm, name, sizeof(name)) < 0) {
			name[0] = '\0'; /* by tid */
			unnamed = true;
		}
		for (size_t k = 0; name[0] && k < x->ntroles; k++)
			if (x->troles[k].pid == th->pid && strcmp(x->troles[k].role, name) == 0)
				m = &x->troles[k];
		if (!m) {
			if (grow((void **)&x->troles, &x->troles_cap, x->ntroles + 1,
				 sizeof(*x->troles)) < 0)
				return -ENOMEM;
			m = &x->troles[x->ntroles++];
			memset(m, 0, sizeof(*m));
			m->pid = th->pid;
			m->db = role.db;
			memcpy(m->role, name, sizeof(m->role));
			m->tid = th->tid;
		} else if ((double)(dr + dw) * 100.0 / (double)itv_cs / 1024.0 >
			   m->rkb_s + m->wkb_s) {
			m->tid = th->tid;
		}
		m->n++;
		m->rkb_s += metrics_per_s(dr, itv_cs) / 1024.0;
		m->wkb_s += metrics_per_s(dw, itv_cs) / 1024.0;
	}
	if (x->ntroles > 1)
		qsort(x->troles, x->ntroles, sizeof(*x->troles), cmp_trole);
	if (ct->threads_status.err)
		snprintf(x->threads_why, sizeof(x->threads_why), "threads not read: %.280s",
			 ct->threads_status.reason);
	else if (unnamed && ct->roles_why[0])
		snprintf(x->threads_why, sizeof(x->threads_why), "threads by tid, no roles: %.280s",
			 ct->roles_why);
	else if (unnamed)
		snprintf(x->threads_why, sizeof(x->threads_why),
			 "threads by tid: neither their names nor performance_schema say a role");
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

static double group_value(const struct proc_group *g, int by)
{
	if (by == BY_DELAY)
		return g->io_delay;
	if (by == BY_CPU)
		return g->cpu_pct;
	return g->rkb_s + g->wkb_s;
}

/* <0 when group a ranks before group b: bigger first, then by key, so
 * equal groups keep their order from one sample to the next */
static int group_rank(const struct workload_metrics *x, enum proc_order by, size_t a, size_t b)
{
	double va = group_value(&x->groups[a], by), vb = group_value(&x->groups[b], by);

	if (va != vb)
		return va > vb ? -1 : 1;
	return strcmp(x->groups[a].key, x->groups[b].key);
}

static double proc_value_at(const struct workload_metrics *x, enum proc_order by, size_t i)
{
	return order_value(&x->procs[i], by);
}

static double group_value_at(const struct workload_metrics *x, enum proc_order by, size_t i)
{
	return group_value(&x->groups[i], by);
}

/* The top PROC_TOP_N of n rows (value > 0) into out by insertion, linear
 * in n; rank_fn < 0 when row a ranks before row b. Their number. */
static size_t
top_n(const struct workload_metrics *x, enum proc_order by, size_t n,
      double (*value_fn)(const struct workload_metrics *, enum proc_order, size_t),
      int (*rank_fn)(const struct workload_metrics *, enum proc_order, size_t, size_t), size_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (value_fn(x, by, i) <= 0)
			continue;
		if (k == PROC_TOP_N && rank_fn(x, by, i, out[k - 1]) >= 0)
			continue;
		j = k < PROC_TOP_N ? k++ : k - 1;
		while (j > 0 && rank_fn(x, by, i, out[j - 1]) < 0) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = i;
	}
	return k;
}

static void tops(struct workload_metrics *x)
{
	x->nby_io = top_n(x, BY_IO, x->nprocs, proc_value_at, rank, x->by_io);
	x->nby_delay = top_n(x, BY_DELAY, x->nprocs, proc_value_at, rank, x->by_delay);
	x->nby_cpu = top_n(x, BY_CPU, x->nprocs, proc_value_at, rank, x->by_cpu);
	x->nby_runq = top_n(x, BY_RUNQ, x->nprocs, proc_value_at, rank, x->by_runq);
	x->ng_by_io = top_n(x, BY_IO, x->ngroups, group_value_at, group_rank, x->g_by_io);
	x->ng_by_delay = top_n(x, BY_DELAY, x->ngroups, group_value_at, group_rank, x->g_by_delay);
	x->ng_by_cpu = top_n(x, BY_CPU, x->ngroups, group_value_at, group_rank, x->g_by_cpu);
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
			m->rxpck_s = metrics_per_s(d[0], itv_cs);
			m->txpck_s = metrics_per_s(d[1], itv_cs);
			m->rxkb_s = metrics_per_s(d[2], itv_cs) / 1024.0;
			m->txkb_s = metrics_per_s(d[3], itv_cs) / 1024.0;
			m->rxerr_s = metrics_per_s(d[4], itv_cs);
			m->txerr_s = metrics_per_s(d[5], itv_cs);
			m->rxdrop_s = metrics_per_s(d[6], itv_cs);
			m->txdrop_s = metrics_per_s(d[7], itv_cs);
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

/* *pm, allocated on first use, into *ret; -EINVAL without an interval. */
static int workload_metrics_get(uint64_t itv_cs, struct workload_metrics **pm,
				struct workload_metrics **ret)
{
	if (!itv_cs)
		return -EINVAL;
	if (!*pm) {
		*pm = calloc(1, sizeof(**pm));
		if (!*pm)
			return -ENOMEM;
	}
	*ret = *pm;
	return 0;
}

int metrics_proc_compute(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv_cs,
			 const struct rate_table *irq, struct workload_metrics **pm)
{
	struct workload_metrics *x;
	int e;

	e = workload_metrics_get(itv_cs, pm, &x);
	if (e < 0)
		return e;
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
		x->nprocs = x->nby_io = x->nby_delay = x->nby_cpu = x->nby_runq = 0;
		x->ngroups = x->ng_by_io = x->ng_by_delay = x->ng_by_cpu = 0;
		x->ntroles = 0;
		x->threads_why[0] = '\0';
		x->procs_window_cs = 0;
		x->procs_age_cs = 0;
		x->exited = 0;
		x->procs_valid = false;
	}
	if (!prev->workload || !cur->workload)
		return 0;
	if (!cur->workload->procs.carried) {
		x->procs_window_cs =
		    procs_interval(&prev->workload->procs, &cur->workload->procs, itv_cs);
		e = procs_compute(&prev->workload->procs, &cur->workload->procs, x->procs_window_cs,
				  x);
		if (e < 0)
			return e;
		tops(x);
		e = threads_compute(&prev->workload->procs, &cur->workload->procs,
				    x->procs_window_cs, x);
		if (e < 0)
			return e;
	}
	x->procs_age_cs = 0;
	if (cur->workload->procs.carried && cur->workload->procs.scan_uptime_cs &&
	    !cur->status[SRC_UPTIME].err &&
	    cur->uptime.uptime_cs > cur->workload->procs.scan_uptime_cs)
		x->procs_age_cs = cur->uptime.uptime_cs - cur->workload->procs.scan_uptime_cs;
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
	struct workload_metrics *x;
	int e;

	e = workload_metrics_get(itv_cs, pm, &x);
	if (e < 0)
		return e;
	x->nby_io = x->nby_delay = x->nby_cpu = x->nby_runq = 0;
	x->ng_by_io = x->ng_by_delay = x->ng_by_cpu = 0;
	/* another process behind the same number is not a rate */
	if (prev->pid != cur->pid) {
		x->nprocs = 0;
		x->procs_valid = false;
		return 0;
	}
	e = procs_compute(&p, &c, itv_cs, x);
	if (e < 0)
		return e;
	tops(x);
	return 0;
}
