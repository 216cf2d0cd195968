// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_trace: the tracing stage's read as the flight recorder's trace
 * record: lines of tab-separated fields, numbers in decimal, text escaped
 * as \xHH, the line format of collect/rec_payload.c's sections
 * (lib/rec_text.c), so the frame codec (lib/rec_diff.c)
 * stores a counter that moved as its difference. A CPU that took no time,
 * a histogram's empty top buckets are left out. A missing trailing field
 * reads as 0, a line of an unknown kind is skipped (a later version may
 * add both). Never trusts a count: the tables are the lines present, each
 * bounded by what the maps can hold.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload.c packs a
 * sample's sections, trace/rec_trace.c its trace read, lib/rec_diff.c
 * makes a frame the difference from the last, lib/recwriter*.c and recreader.c
 * write and read the segments, daemon/rec.c drives them from iotriaged's loop
 * (doc/recording.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rec_text.h"
#include "rec_trace.h"

/* ---- writing ---- */

static void w_u(struct strbuf *o, uint64_t v)
{
	sb_putc(o, '\t');
	sb_u64(o, v);
}

/* Text escaped (lib/rec_text.c). */
static void w_s(struct strbuf *o, const char *s)
{
	sb_putc(o, '\t');
	rec_text_put_s(o, s);
}

/* A histogram's buckets, its empty top ones left out. */
static void w_slots(struct strbuf *o, const uint64_t *slots)
{
	int top = TRACE_HIST_SLOTS;

	while (top && !slots[top - 1])
		top--;
	for (int s = 0; s < top; s++)
		w_u(o, slots[s]);
}

/* A histogram's line: 'l' (disk, op, stage) or 'x' (disk, hardware queue,
 * op; the device stage), its empty top buckets left out. */
static void w_lat(struct strbuf *o, char kind, const struct trace_lat_raw *l)
{
	sb_putc(o, kind);
	w_u(o, l->major);
	w_u(o, l->minor);
	if (kind == 'x')
		w_u(o, l->hctx);
	w_u(o, l->op);
	if (kind == 'l')
		w_u(o, l->kind);
	w_u(o, l->count);
	w_u(o, l->sum_ns);
	w_u(o, l->remote);
	w_slots(o, l->slots);
	sb_putc(o, '\n');
}

/* A (cgroup, disk, stage) line 'g', its empty top buckets left out. */
static void w_cg(struct strbuf *o, const struct trace_cg_raw *g)
{
	sb_putc(o, 'g');
	w_u(o, g->cgid);
	w_u(o, g->major);
	w_u(o, g->minor);
	w_u(o, g->kind);
	w_u(o, g->count);
	w_u(o, g->sum_ns);
	w_s(o, g->path);
	w_slots(o, g->slots);
	sb_putc(o, '\n');
}

/* The record's header line, its hierarchy and stats lines, a line a probe. */
static void w_head(const struct trace_raw *r, struct strbuf *o)
{
	uint64_t budget;

	memcpy(&budget, &r->budget_pct, sizeof(budget)); /* a double exactly: its bits */
	/* the record's header is a line of its own for the frame codec */
	sb_puts(o, "\nh");
	w_u(o, r->valid);
	w_u(o, (uint64_t)(r->mono_ns < 0 ? 0 : r->mono_ns));
	w_u(o, r->stats);
	w_u(o, budget);
	w_u(o, r->ncpu);
	/* appended by the per-queue load and the block probe's sampling */
	w_u(o, r->block_sample);
	w_u(o, r->napi_read);
	w_u(o, r->blkq_read);
	/* appended by the per-hardware-queue histograms */
	w_u(o, r->hlat_read);
	w_u(o, r->hlat_dropped);
	/* appended by the namespaces */
	w_u(o, r->host_netns);
	/* appended by the per-cgroup histograms and the tables' sizing */
	w_u(o, r->lat_dropped);
	w_u(o, r->lat_slots);
	w_u(o, r->cg_read);
	w_u(o, r->cg_dropped);
	sb_putc(o, '\n');
	if (r->cg_top[0]) {
		sb_putc(o, 'G');
		w_s(o, r->cg_top);
		sb_putc(o, '\n');
	}
	if (r->stats_reason[0]) {
		sb_putc(o, 'w');
		w_s(o, r->stats_reason);
		sb_putc(o, '\n');
	}
	for (int k = 0; k < TRACE__COUNT; k++) {
		const struct trace_probe_status *p = &r->probe[k];

		sb_putc(o, 'p');
		w_u(o, (uint64_t)k);
		w_u(o, p->on);
		w_u(o, p->read);
		w_u(o, p->has_run);
		w_u(o, p->run_ns);
		w_u(o, p->run_cnt);
		w_s(o, p->reason);
		/* appended by the budget's backing off */
		w_u(o, p->over_budget);
		w_u(o, p->backing_off);
		w_u(o, p->off_ns);
		w_u(o, p->back_in_ns);
		sb_putc(o, '\n');
	}
}

int rec_trace_pack(const struct trace_raw *r, struct strbuf *o)
{
	size_t nc = r->ncpu;

	w_head(r, o);
	if (!r->valid)
		return o->err; /* the arrays of a failed read mean nothing */
	for (size_t c = 0; c < nc && r->soft_ns && r->soft_count; c++) {
		const uint64_t *ns = &r->soft_ns[c * TRACE_NR_SOFTIRQS];
		const uint64_t *cnt = &r->soft_count[c * TRACE_NR_SOFTIRQS];
		bool any = false;

		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
			any |= ns[v] || cnt[v];
		if (!any)
			continue; /* a possible CPU that never ran a softirq */
		sb_putc(o, 's');
		w_u(o, c);
		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
			w_u(o, ns[v]);
		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
			w_u(o, cnt[v]);
		sb_putc(o, '\n');
	}
	for (size_t i = 0; i < r->nirq; i++) {
		sb_putc(o, 'i');
		w_u(o, r->irq[i]);
		/* (cpu, ns, runs) of the CPUs the line ran on */
		for (size_t c = 0; c < nc; c++) {
			uint64_t ns = r->irq_ns[i * nc + c], cnt = r->irq_count[i * nc + c];

			if (!ns && !cnt)
				continue;
			w_u(o, c);
			w_u(o, ns);
			w_u(o, cnt);
		}
		sb_putc(o, '\n');
	}
	for (size_t i = 0; i < r->nnapi; i++) {
		const struct trace_napi_raw *q = &r->napi[i];

		sb_putc(o, 'n');
		w_u(o, q->napi_id);
		w_u(o, (uint64_t)((int64_t)q->irq + 1)); /* -1 none: 0 */
		w_u(o, (uint64_t)((int64_t)q->index + 1));
		w_u(o, q->ifindex);
		w_u(o, q->ns);
		w_u(o, q->polls);
		w_u(o, q->work);
		w_s(o, q->dev);
		w_u(o, q->netns); /* appended by the namespaces */
		sb_putc(o, '\n');
	}
	for (size_t i = 0; i < r->nblkq; i++) {
		const struct trace_blkq_raw *q = &r->blkq[i];

		sb_putc(o, 'q');
		w_u(o, q->major);
		w_u(o, q->minor);
		w_u(o, q->hctx);
		w_u(o, q->ns);
		w_u(o, q->count);
		sb_putc(o, '\n');
	}
	for (size_t i = 0; i < r->nlat; i++)
		w_lat(o, 'l', &r->lat[i]);
	for (size_t i = 0; i < r->nhlat; i++)
		w_lat(o, 'x', &r->hlat[i]);
	for (size_t i = 0; i < r->ncg; i++)
		w_cg(o, &r->cg[i]);
	return o->err;
}

/* ---- reading ---- */

/* A number below max (exclusive), else the record is malformed. */
static uint64_t r_below(struct rec_text *r, uint64_t max)
{
	uint64_t v = rec_text_u(r);

	if (v >= max) {
		r->bad = true;
		return 0;
	}
	return v;
}

static int grow_zero(void **p, size_t n, size_t size)
{
	void *a = realloc(*p, (n ? n : 1) * size);

	if (!a)
		return -ENOMEM;
	memset(a, 0, (n ? n : 1) * size);
	*p = a;
	return 0;
}

/* The arrays for ncpu CPUs, nirq lines and nlat histograms, zeroed. */
static int alloc_tables(struct trace_raw *t, size_t nirq, size_t nlat, size_t nnapi, size_t nblkq,
			size_t nhlat)
{
	size_t ns = (size_t)t->ncpu * TRACE_NR_SOFTIRQS, cells = nirq * t->ncpu;

	if (grow_zero((void **)&t->soft_ns, ns, sizeof(*t->soft_ns)) < 0 ||
	    grow_zero((void **)&t->soft_count, ns, sizeof(*t->soft_count)) < 0 ||
	    grow_zero((void **)&t->irq, nirq, sizeof(*t->irq)) < 0 ||
	    grow_zero((void **)&t->irq_ns, cells, sizeof(*t->irq_ns)) < 0 ||
	    grow_zero((void **)&t->irq_count, cells, sizeof(*t->irq_count)) < 0 ||
	    grow_zero((void **)&t->lat, nlat, sizeof(*t->lat)) < 0 ||
	    grow_zero((void **)&t->hlat, nhlat, sizeof(*t->hlat)) < 0 ||
	    grow_zero((void **)&t->napi, nnapi, sizeof(*t->napi)) < 0 ||
	    grow_zero((void **)&t->blkq, nblkq, sizeof(*t->blkq)) < 0)
		return -ENOMEM;
	return 0;
}

/* A 'g' line into t->cg (allocated by the caller to hold every 'g'):
 * a cgroup id (not 0), major and minor within dev_t, a stage index;
 * sorted and unique (trace_cg_cmp): the metrics merge two reads by it. */
static void r_cg(struct rec_text *r, struct trace_raw *t)
{
	struct trace_cg_raw *g = &t->cg[t->ncg];

	memset(g, 0, sizeof(*g));
	g->cgid = rec_text_u(r);
	g->major = (uint32_t)r_below(r, 1u << 12);
	g->minor = (uint32_t)r_below(r, 1u << 20);
	g->kind = (uint8_t)r_below(r, TRACE_LAT__COUNT);
	g->count = rec_text_u(r);
	g->sum_ns = rec_text_u(r);
	rec_text_s(r, g->path, sizeof(g->path));
	for (int s = 0; s < TRACE_HIST_SLOTS; s++)
		g->slots[s] = rec_text_u(r);
	if (!g->cgid || (t->ncg && trace_cg_cmp(&t->cg[t->ncg - 1], g) >= 0))
		r->bad = true;
	/* checked as the live reader's rows are (trace_lat_check) */
	if (!r->bad && trace_cg_check(g) & TRACE_CHECK_BAD) {
		t->rows_dropped++;
		return;
	}
	t->ncg++;
}

/* Lines of kind k (its first field exactly "k") in the record. */
static size_t count_kind(const char *p, size_t len, char k)
{
	struct rec_text r;
	size_t n = 0;

	rec_text_init(&r, p, len);
	while (rec_text_line(&r))
		n += r.lend - r.f >= 1 && r.f[0] == k && (r.lend - r.f == 1 || r.f[1] == '\t');
	return n;
}

static void r_irq(struct rec_text *r, struct trace_raw *t)
{
	size_t nc = t->ncpu, row = t->nirq;
	uint32_t irq = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);

	/* ascending, as trace.c sorts them: the metrics pair rows by a merge */
	if (row && irq <= t->irq[row - 1])
		r->bad = true;
	t->irq[row] = irq;
	while (r->f && !r->bad) {
		size_t c = (size_t)r_below(r, nc);

		t->irq_ns[row * nc + c] = rec_text_u(r);
		t->irq_count[row * nc + c] = rec_text_u(r);
	}
	t->nirq++;
}

/* An 'l' line into lat[*n] (kind 'l') or an 'x' line into hlat[*n]: major
 * and minor within the kernel's dev_t, as trace.c decodes it (12 and 20
 * bits), op and stage indices of the metrics' tables, a queue number below
 * TRACE_HCTX_MAX; sorted and unique (trace_lat_cmp): the metrics merge two
 * reads by this key. A histogram the live reader would not have kept, or
 * whose remote count is above its IOs (written after the live check, so
 * damage), is left out and counted in t->rows_dropped (trace_lat_check;
 * a count that is not its buckets' sum is set so, as live: recordings made
 * before the check hold such rows from reads that caught an IO's adds
 * half done). */
static void r_lat(struct rec_text *r, char kind, struct trace_lat_raw *rows, size_t *n,
		  struct trace_raw *t)
{
	struct trace_lat_raw *l = &rows[*n];

	memset(l, 0, sizeof(*l));
	l->major = (uint32_t)r_below(r, 1u << 12);
	l->minor = (uint32_t)r_below(r, 1u << 20);
	if (kind == 'x')
		l->hctx = (uint32_t)r_below(r, TRACE_HCTX_MAX);
	l->op = (uint8_t)r_below(r, TRACE_OP__COUNT);
	l->kind = kind == 'x' ? TRACE_LAT_DEVICE : (uint8_t)r_below(r, TRACE_LAT__COUNT);
	l->count = rec_text_u(r);
	l->sum_ns = rec_text_u(r);
	l->remote = rec_text_u(r);
	for (int s = 0; s < TRACE_HIST_SLOTS; s++)
		l->slots[s] = rec_text_u(r);
	if (*n && trace_lat_cmp(&rows[*n - 1], l) >= 0)
		r->bad = true;
	if (!r->bad && trace_lat_check(l) & (TRACE_CHECK_BAD | TRACE_CHECK_REMOTE)) {
		t->rows_dropped++;
		return;
	}
	(*n)++;
}

static void r_napi(struct rec_text *r, struct trace_raw *t)
{
	struct trace_napi_raw *q = &t->napi[t->nnapi];

	memset(q, 0, sizeof(*q));
	q->napi_id = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	q->irq = (int32_t)r_below(r, (uint64_t)INT32_MAX + 1) - 1;
	q->index = (int32_t)r_below(r, (uint64_t)INT32_MAX + 1) - 1;
	q->ifindex = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	q->ns = rec_text_u(r);
	q->polls = rec_text_u(r);
	q->work = rec_text_u(r);
	rec_text_s(r, q->dev, sizeof(q->dev));
	q->netns = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	/* ascending and unique: the metrics merge two reads by napi_id */
	if (t->nnapi && trace_napi_cmp(&t->napi[t->nnapi - 1], q) >= 0)
		r->bad = true;
	t->nnapi++;
}

static void r_blkq(struct rec_text *r, struct trace_raw *t)
{
	struct trace_blkq_raw *q = &t->blkq[t->nblkq];

	memset(q, 0, sizeof(*q));
	q->major = (uint32_t)r_below(r, 1u << 12);
	q->minor = (uint32_t)r_below(r, 1u << 20);
	q->hctx = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	q->ns = rec_text_u(r);
	q->count = rec_text_u(r);
	if (t->nblkq && trace_blkq_cmp(&t->blkq[t->nblkq - 1], q) >= 0)
		r->bad = true;
	t->nblkq++;
}

static void r_soft(struct rec_text *r, struct trace_raw *t)
{
	size_t c = (size_t)r_below(r, t->ncpu);

	for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
		t->soft_ns[c * TRACE_NR_SOFTIRQS + v] = rec_text_u(r);
	for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
		t->soft_count[c * TRACE_NR_SOFTIRQS + v] = rec_text_u(r);
}

static void r_lat_l(struct rec_text *r, struct trace_raw *t)
{
	r_lat(r, 'l', t->lat, &t->nlat, t);
}

static void r_lat_x(struct rec_text *r, struct trace_raw *t)
{
	r_lat(r, 'x', t->hlat, &t->nhlat, t);
}

/* The lines of a read's rows, each kind with its reader (into the tables
 * the header's line sets up: line_counts). */
static const struct row_line {
	char kind;
	void (*read)(struct rec_text *r, struct trace_raw *t);
} row_lines[] = {
	{ 's', r_soft },  { 'i', r_irq },   { 'n', r_napi }, { 'q', r_blkq },
	{ 'l', r_lat_l }, { 'x', r_lat_x }, { 'g', r_cg },
};

/* A line of kind k: a row of a valid read, or a kind of a later version
 * (skipped) */
static void r_row(struct rec_text *r, struct trace_raw *t, char k, bool valid)
{
	for (size_t i = 0; valid && i < sizeof(row_lines) / sizeof(row_lines[0]); i++)
		if (row_lines[i].kind == k) {
			row_lines[i].read(r, t);
			return;
		}
}

/* How many lines of each kind of rows a record holds: the tables' sizes. */
struct line_counts {
	size_t nirq, nlat, nnapi, nblkq, nhlat, ncg;
};

/* The 'h' line: the read's scalars and the CPU count, then the tables
 * for n's lines (when valid). 0, -EBADMSG or -ENOMEM. */
static int r_head(struct rec_text *r, struct trace_raw *t, bool *valid, const struct line_counts *n)
{
	uint64_t budget;

	*valid = rec_text_u(r) != 0;
	t->mono_ns = (int64_t)r_below(r, (uint64_t)INT64_MAX + 1);
	t->stats = rec_text_u(r) != 0;
	budget = rec_text_u(r);
	memcpy(&t->budget_pct, &budget, sizeof(budget));
	t->ncpu = (uint32_t)r_below(r, REC_TRACE_CPUS_MAX + 1);
	t->block_sample = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	t->napi_read = rec_text_u(r) != 0;
	t->blkq_read = rec_text_u(r) != 0;
	t->hlat_read = rec_text_u(r) != 0;
	t->hlat_dropped = rec_text_u(r);
	t->host_netns = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	t->lat_dropped = rec_text_u(r);
	t->lat_slots = (uint32_t)r_below(r, (uint64_t)TRACE_MAX_LAT + 1);
	t->cg_read = rec_text_u(r) != 0;
	t->cg_dropped = rec_text_u(r);
	if (r->bad || (*valid && !t->ncpu) || n->nirq * t->ncpu > REC_TRACE_CELLS_MAX)
		return -EBADMSG;
	if (*valid && (alloc_tables(t, n->nirq, n->nlat, n->nnapi, n->nblkq, n->nhlat) < 0 ||
		       grow_zero((void **)&t->cg, n->ncg, sizeof(*t->cg)) < 0))
		return -ENOMEM;
	return 0;
}

/* A 'p' line: a probe's state (one of a later version skipped). */
static void r_probe(struct rec_text *r, struct trace_raw *t)
{
	uint64_t i = rec_text_u(r);
	struct trace_probe_status *pr;

	if (i >= TRACE__COUNT)
		return; /* a probe of a later version */
	pr = &t->probe[i];
	pr->on = rec_text_u(r) != 0;
	pr->read = rec_text_u(r) != 0;
	pr->has_run = rec_text_u(r) != 0;
	pr->run_ns = rec_text_u(r);
	pr->run_cnt = rec_text_u(r);
	rec_text_s(r, pr->reason, sizeof(pr->reason));
	pr->over_budget = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	pr->backing_off = rec_text_u(r) != 0 && !pr->on;
	pr->off_ns = rec_text_u(r);
	pr->back_in_ns = rec_text_u(r);
}

int rec_trace_unpack(const char *p, size_t len, struct trace_raw *t)
{
	struct line_counts n = {
		.nirq = count_kind(p, len, 'i'),
		.nlat = count_kind(p, len, 'l'),
		.nnapi = count_kind(p, len, 'n'),
		.nblkq = count_kind(p, len, 'q'),
		.nhlat = count_kind(p, len, 'x'),
		.ncg = count_kind(p, len, 'g'),
	};
	struct rec_text r;
	bool valid = false, head = false;

	t->valid = false;
	t->nirq = t->nlat = t->nnapi = t->nblkq = t->nhlat = 0;
	t->napi_read = t->blkq_read = t->hlat_read = false;
	t->hlat_dropped = 0;
	t->host_netns = 0;
	t->rows_dropped = 0;
	t->lat_dropped = t->cg_dropped = 0;
	t->lat_slots = 0;
	t->cg_read = false;
	t->ncg = 0;
	t->cg_top[0] = '\0';
	t->block_sample = 0;
	t->stats = false;
	t->stats_reason[0] = '\0';
	memset(t->probe, 0, sizeof(t->probe));
	if (n.nirq > TRACE_MAX_IRQS || n.nlat > REC_TRACE_LAT_MAX || n.nnapi > TRACE_MAX_NAPI ||
	    n.nblkq > TRACE_MAX_BLKQ || n.nhlat > TRACE_MAX_HLAT || n.ncg > REC_TRACE_CG_MAX)
		return -EBADMSG;
	rec_text_init(&r, p, len);
	while (!r.bad && rec_text_line(&r)) {
		char k = rec_text_kind(&r);
		int e;

		if (!head && k != 'h')
			return -EBADMSG; /* the CPU count comes first */
		switch (k) {
		case 'h':
			if (head)
				return -EBADMSG;
			head = true;
			e = r_head(&r, t, &valid, &n);
			if (e < 0)
				return e;
			break;
		case 'w':
			rec_text_s(&r, t->stats_reason, sizeof(t->stats_reason));
			break;
		case 'p':
			r_probe(&r, t);
			break;
		case 'G':
			rec_text_s(&r, t->cg_top, sizeof(t->cg_top));
			break;
		default:
			r_row(&r, t, k, valid);
			break;
		}
	}
	if (r.bad || !head) {
		t->nirq = t->nlat = t->nnapi = t->nblkq = t->nhlat = t->ncg = 0;
		return -EBADMSG;
	}
	t->valid = valid;
	return 0;
}
