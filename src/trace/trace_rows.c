// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block probe's tables of rows as the maps hold them: their sizes,
 * chosen at load, and the pure part of taking their rows into a read
 * (bounds, merge, order): a map is input too. Built with or without BPF,
 * so the unit tests and the fuzzers take the same rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_raw.h"

size_t trace_rows_merge(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *),
			void (*add)(void *d, const void *x))
{
	char *b = rows;
	size_t w = 0;

	if (n < 2)
		return n;
	qsort(rows, n, size, cmp);
	for (size_t i = 1; i < n; i++) {
		if (!cmp(b + w * size, b + i * size)) {
			add(b + w * size, b + i * size);
			continue;
		}
		if (++w != i)
			memcpy(b + w * size, b + i * size, size);
	}
	return w + 1;
}

/* A histogram's buckets, count and sum added to another's, saturating (a
 * map is input: its counters may be anything) */
static void hist_add(uint64_t *slots, uint64_t *count, uint64_t *sum_ns, const uint64_t *x_slots,
		     uint64_t x_count, uint64_t x_sum_ns)
{
	for (int s = 0; s < TRACE_HIST_SLOTS; s++)
		trace_add_sat(&slots[s], x_slots[s]);
	trace_add_sat(count, x_count);
	trace_add_sat(sum_ns, x_sum_ns);
}

/* x's IOs added to d's */
static void hlat_add(void *dst, const void *src)
{
	struct trace_lat_raw *d = dst;
	const struct trace_lat_raw *x = src;

	hist_add(d->slots, &d->count, &d->sum_ns, x->slots, x->count, x->sum_ns);
	trace_add_sat(&d->remote, x->remote);
}

static void cg_add(void *dst, const void *src)
{
	struct trace_cg_raw *d = dst;
	const struct trace_cg_raw *x = src;

	hist_add(d->slots, &d->count, &d->sum_ns, x->slots, x->count, x->sum_ns);
}

/* A disk of one queue's row (TRACE_HLAT_MIRROR): the device stage of
 * its disk's (dev, op) row in r->lat, the same IOs; NULL when none */
static const struct trace_lat_raw *hlat_mirror(const struct trace_raw *r, uint32_t major,
					       uint32_t minor, uint8_t op)
{
	for (size_t i = 0; i < r->nlat; i++) {
		const struct trace_lat_raw *d = &r->lat[i];

		if (d->major == major && d->minor == minor && d->op == op &&
		    d->kind == TRACE_LAT_DEVICE)
			return d;
	}
	return NULL;
}

/* One slot as a row, false when it holds nothing to keep: free, its key
 * out of range, no IO yet, or impossible (trace_lat_check; counted). */
static bool hlat_decode(const struct trace_hlat_row *x, const struct trace_raw *r,
			struct trace_lat_raw *l, uint64_t *bad)
{
	uint32_t op1 = (uint32_t)(x->key & 0xff), hctx = (uint32_t)(x->key >> 8 & 0xffffff);
	uint32_t dev = (uint32_t)(x->key >> 32);

	if (!x->key || op1 < 1 || op1 > TRACE_OP__COUNT || hctx >= TRACE_HCTX_MAX)
		return false;
	memset(l, 0, sizeof(*l));
	l->major = dev >> 20;
	l->minor = dev & 0xfffff;
	l->hctx = hctx;
	l->op = (uint8_t)(op1 - 1);
	l->kind = TRACE_LAT_DEVICE;
	if (x->count == TRACE_HLAT_MIRROR) {
		const struct trace_lat_raw *d = hlat_mirror(r, l->major, l->minor, l->op);

		if (!d)
			return false;
		memcpy(l->slots, d->slots, sizeof(l->slots));
		l->count = d->count;
		l->sum_ns = d->sum_ns;
		l->remote = d->remote;
		return l->count != 0;
	}
	memcpy(l->slots, x->slots, sizeof(l->slots));
	/* the buckets are the truth: an IO's adds are not one atomic step, so
	 * a read may catch count or remote ahead or behind its bucket */
	l->count = x->count;
	l->sum_ns = x->sum_ns;
	l->remote = x->remote;
	if (trace_lat_check(l) & TRACE_CHECK_BAD) {
		(*bad)++;
		return false;
	}
	return l->count != 0; /* taken, no IO yet */
}

int trace_hlat_take(const struct trace_hlat_row *rows, size_t n, struct trace_raw *r)
{
	size_t k = 0;
	uint64_t bad = 0;
	void *a;

	r->nhlat = 0;
	if (n > TRACE_MAX_HLAT)
		n = TRACE_MAX_HLAT; /* the map's size: a longer table is not one */
	for (size_t i = 0; i < n; i++)
		k += hlat_decode(&rows[i], r, &(struct trace_lat_raw){ 0 }, &bad);
	a = realloc(r->hlat, (k ? k : 1) * sizeof(*r->hlat));
	if (!a)
		return -ENOMEM;
	r->hlat = a;
	r->rows_dropped += bad; /* counted once, in the first pass */
	for (size_t i = 0; i < n && r->nhlat < k; i++)
		r->nhlat += hlat_decode(&rows[i], r, &r->hlat[r->nhlat], &(uint64_t){ 0 });
	/* a key in two slots (the probe never does it; a map is input) */
	r->nhlat = trace_rows_merge(r->hlat, r->nhlat, sizeof(*r->hlat), trace_lat_cmp, hlat_add);
	return (int)r->nhlat;
}

/* One CPU's copy of a slot's stage as a row, false when it holds nothing
 * to keep (free, no IO, buckets that overflow a counter). */
static bool cg_decode(const struct trace_cg_row *x, int kind, struct trace_cg_raw *l)
{
	const struct trace_lat_val *v = &x->kind[kind];
	uint64_t n = 0;

	if (!x->cgid)
		return false;
	for (int s = 0; s < TRACE_HIST_SLOTS; s++)
		if (!trace_add_sat(&n, v->slots[s]))
			return false;
	if (!n)
		return false;
	memset(l, 0, sizeof(*l));
	l->cgid = x->cgid;
	l->major = x->dev >> 20;
	l->minor = x->dev & 0xfffff;
	l->kind = (uint8_t)kind;
	memcpy(l->slots, v->slots, sizeof(l->slots));
	l->count = n; /* the buckets are the truth */
	l->sum_ns = v->sum_ns;
	return true;
}

int trace_cg_take(const struct trace_cg_row *rows, size_t n, struct trace_raw *r)
{
	size_t k = 0, w = 0;
	void *a;

	r->ncg = 0;
	if (n > (size_t)TRACE_MAX_CG * TRACE_CG_CPUS_MAX)
		n = (size_t)TRACE_MAX_CG * TRACE_CG_CPUS_MAX;
	for (size_t i = 0; i < n; i++)
		for (int kind = 0; kind < TRACE_LAT__COUNT; kind++)
			k += cg_decode(&rows[i], kind, &(struct trace_cg_raw){ 0 });
	a = realloc(r->cg, (k ? k : 1) * sizeof(*r->cg));
	if (!a)
		return -ENOMEM;
	r->cg = a;
	for (size_t i = 0; i < n && r->ncg < k; i++)
		for (int kind = 0; kind < TRACE_LAT__COUNT && r->ncg < k; kind++)
			r->ncg += cg_decode(&rows[i], kind, &r->cg[r->ncg]);
	/* one row per key: the CPUs' copies (and slots) of one key summed */
	r->ncg = trace_rows_merge(r->cg, r->ncg, sizeof(*r->cg), trace_cg_cmp, cg_add);
	/* the checks every read gets, live or recorded (trace_lat_check) */
	for (size_t i = w = 0; i < r->ncg; i++) {
		if (trace_cg_check(&r->cg[i]) & TRACE_CHECK_BAD) {
			r->rows_dropped++;
			continue;
		}
		r->cg[w++] = r->cg[i];
	}
	r->ncg = w;
	return (int)r->ncg;
}

static unsigned log2_up(uint64_t v)
{
	unsigned b = 0;

	while (b < 63 && (1ull << b) < v)
		b++;
	return b;
}

unsigned trace_lat_bits(unsigned ndisk, unsigned ncpu)
{
	unsigned bits = log2_up((uint64_t)ndisk * 3 * 4);
	uint64_t row = sizeof(struct trace_lat_row), nc = ncpu ? ncpu : 1;

	if (bits < TRACE_LAT_BITS)
		bits = TRACE_LAT_BITS;
	if (bits > TRACE_LAT_BITS_MAX)
		bits = TRACE_LAT_BITS_MAX;
	while (bits > TRACE_LAT_BITS && (1ull << bits) * row * nc > TRACE_ROWS_BYTES_MAX / 2)
		bits--;
	return bits;
}

unsigned trace_cg_bits(unsigned ncpu)
{
	unsigned bits = TRACE_CG_BITS_MAX;
	uint64_t row = sizeof(struct trace_cg_row), nc = ncpu ? ncpu : 1;

	while (bits > TRACE_CG_BITS_MIN && (1ull << bits) * row * nc > TRACE_ROWS_BYTES_MAX / 2)
		bits--;
	return bits;
}
