// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage's maps, read once a sample from a table: one row a
 * map, with its name in trace.bpf.c, the probes it is read under, its
 * reader and where its rows go in struct trace_raw. Readers take a batch
 * of a per-CPU hash (read_map), the slots some CPU took of a per-CPU slot
 * table (read_used) or the programs' globals (.bss); every count the kernel
 * returns is checked against what was asked and the map's size, and every
 * row against its range: a map is input too. Never prints.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "trace.h"
#include "trace.skel.h"
#include "trace_state.h"

/* a batch read of a hash map's entries takes at most this many bytes of values */
#define TRACE_BATCH_BYTES (1u << 20)

/* A map's rows into out (m the row's map, used its map of slots taken or
 * NULL): 0, or -errno (-ENOMEM ends the read). */
typedef int map_reader(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		       struct trace_raw *out);

static map_reader read_soft, read_hard, read_lat, read_cg, read_hlat, read_napi, read_blkq;

#define ON(k)	  (1u << (k))
#define RAW_AT(f) offsetof(struct trace_raw, f)
#define RAW_NONE  SIZE_MAX

/*
 * The maps read once a sample, in this order (a probe's own maps first: a
 * failure there switches it off before the maps that need it are read).
 * rows: trace_raw's count of the map's rows, emptied before every read;
 * said: trace_raw's bool that says they were read (RAW_NONE: the rows are
 * the probe's own, its probe_status says, and a map that cannot be read
 * switches the probe off).
 */
static const struct map_row {
	const char *map;  /* its name in trace.bpf.c (".bss": the programs' globals) */
	const char *used; /* a slot table's map of the slots taken, or NULL */
	unsigned probes;  /* read while these probes are on */
	map_reader *read;
	size_t rows, said;
} map_rows[] = {
	/* time per vector per CPU: soft_ns, soft_count */
	{ "soft_time", NULL, ON(TRACE_SOFTIRQ), read_soft, RAW_NONE, RAW_NONE },
	/* time per IRQ line per CPU: irq, irq_ns, irq_count */
	{ "hard_time", NULL, ON(TRACE_HARDIRQ), read_hard, RAW_AT(nirq), RAW_NONE },
	/* per (disk, op, stage): lat, lat_dropped */
	{ "lat_rows", "lat_used", ON(TRACE_BLOCK), read_lat, RAW_AT(nlat), RAW_NONE },
	/* per (cgroup, disk, stage): cg, cg_top, cg_dropped */
	{ "cg_rows", "cg_used", ON(TRACE_BLOCK), read_cg, RAW_AT(ncg), RAW_AT(cg_read) },
	/* per (disk, hardware queue, op), the device stage: hlat, hlat_dropped */
	{ ".bss", NULL, ON(TRACE_BLOCK), read_hlat, RAW_AT(nhlat), RAW_AT(hlat_read) },
	/* NET_RX time per NAPI: napi */
	{ "napi_time", NULL, ON(TRACE_SOFTIRQ), read_napi, RAW_AT(nnapi), RAW_AT(napi_read) },
	/* BLOCK time per (disk, hardware queue): blkq */
	{ "blkq_time", NULL, ON(TRACE_SOFTIRQ) | ON(TRACE_BLOCK), read_blkq, RAW_AT(nblkq),
	  RAW_AT(blkq_read) },
};

_Static_assert(sizeof(map_rows) / sizeof(map_rows[0]) == TRACE_MAPS,
	       "TRACE_MAPS is the table's length");

/*
 * Reads every entry of a per-CPU map in batches of at most `chunk` entries,
 * calling each(keys, vals, n) for each batch. Returns 0 or -errno. The count
 * the kernel returns is checked against what was asked, and the total
 * against max_entries.
 */
static int read_map(struct trace *t, const struct bpf_map *m, size_t key_size, size_t val_size,
		    int (*each)(struct trace *, struct trace_raw *, const void *, const void *,
				uint32_t),
		    struct trace_raw *out)
{
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint32_t max = bpf_map__max_entries(m), chunk, total = 0;
	size_t vs = (val_size + 7) / 8 * 8 * (size_t)t->ncpu;
	uint64_t batch = 0;
	bool first = true;
	int fd = bpf_map__fd(m), r;

	chunk = (uint32_t)(TRACE_BATCH_BYTES / vs);
	if (chunk < 16)
		chunk = 16;
	if (chunk > max)
		chunk = max;
	if (grow(&t->keys, &t->keys_size, chunk * key_size, 1) < 0 ||
	    grow(&t->vals, &t->vals_size, chunk * vs, 1) < 0)
		return -ENOMEM;
	for (;;) {
		uint32_t n = chunk;
		bool done;

		r = bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, t->keys, t->vals, &n,
					 &bo);
		done = r < 0 && errno == ENOENT;
		if (r < 0 && !done)
			return -errno;
		if (n > chunk || total + n > max)
			return -EBADMSG;
		total += n;
		r = n ? each(t, out, t->keys, t->vals, n) : 0;
		if (r < 0)
			return r;
		if (done || total == max)
			return 0;
		first = false;
	}
}

static int each_soft(struct trace *t, struct trace_raw *out, const void *keys, const void *vals,
		     uint32_t n)
{
	const struct trace_time *v = vals;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t vec = ((const uint32_t *)keys)[i];

		if (vec >= TRACE_NR_SOFTIRQS)
			continue;
		for (int c = 0; c < t->ncpu; c++) {
			const struct trace_time *x = &v[(size_t)i * (size_t)t->ncpu + (size_t)c];

			out->soft_ns[(size_t)c * TRACE_NR_SOFTIRQS + vec] = x->ns;
			out->soft_count[(size_t)c * TRACE_NR_SOFTIRQS + vec] = x->count;
		}
	}
	return 0;
}

static int each_hard(struct trace *t, struct trace_raw *out, const void *keys, const void *vals,
		     uint32_t n)
{
	const struct trace_time *v = vals;
	size_t nc = (size_t)t->ncpu, need = out->nirq + n;

	if (grow_to((void **)&out->irq, need, sizeof(*out->irq)) < 0 ||
	    grow_to((void **)&out->irq_ns, need * nc, sizeof(*out->irq_ns)) < 0 ||
	    grow_to((void **)&out->irq_count, need * nc, sizeof(*out->irq_count)) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		size_t row = out->nirq++;

		out->irq[row] = ((const uint32_t *)keys)[i];
		for (size_t k = 0; k < nc; k++) {
			out->irq_ns[row * nc + k] = v[i * nc + k].ns;
			out->irq_count[row * nc + k] = v[i * nc + k].count;
		}
	}
	return 0;
}

/* One CPU's row of a slot, its kinds that hold IOs appended to out->lat
 * (grown by the caller to hold two more). */
static void lat_row_take(struct trace_raw *out, const struct trace_lat_row *x)
{
	if (!x->op1 || x->op1 > TRACE_OP__COUNT)
		return;
	for (int k = 0; k < TRACE_LAT__COUNT; k++) {
		const struct trace_lat_val *v = &x->kind[k];
		struct trace_lat_raw *l;

		if (!v->count)
			continue;
		l = &out->lat[out->nlat++];
		l->major = x->dev >> 20;
		l->minor = x->dev & 0xfffff;
		l->hctx = 0;
		l->op = (uint8_t)(x->op1 - 1);
		l->kind = (uint8_t)k;
		memcpy(l->slots, v->slots, sizeof(l->slots));
		l->count = v->count;
		l->sum_ns = v->sum_ns;
		l->remote = v->remote;
	}
}

/*
 * The slots some CPU took of a per-CPU table of `slots` rows (used: its
 * companion array, one batch), each such slot's rows on every CPU (one
 * lookup a slot) handed to take(t, out, rows, ncpu). Returns 0 or -errno.
 */
static int read_used(struct trace *t, struct trace_raw *out, int used_fd, int rows_fd,
		     uint32_t slots, size_t row_size,
		     int (*take)(struct trace *, struct trace_raw *, const void *, size_t))
{
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	size_t nc = (size_t)t->ncpu, rs = (row_size + 7) / 8 * 8;
	uint32_t n = slots, batch = 0, *used, *keys;
	int r;

	used = malloc((size_t)slots * sizeof(*used));
	keys = malloc((size_t)slots * sizeof(*keys));
	if (!used || !keys) {
		free(used);
		free(keys);
		return -ENOMEM;
	}
	r = bpf_map_lookup_batch(used_fd, NULL, &batch, keys, used, &n, &bo);
	if (r < 0 && errno != ENOENT)
		r = -errno;
	else if (n > slots)
		r = -EBADMSG;
	else if (grow(&t->vals, &t->vals_size, nc * rs, 1) < 0)
		r = -ENOMEM;
	else
		r = 0;
	for (uint32_t i = 0; !r && i < n; i++) {
		if (!used[i] || keys[i] >= slots)
			continue;
		if (bpf_map_lookup_elem(rows_fd, &keys[i], t->vals) < 0)
			r = -errno;
		else
			r = take(t, out, t->vals, nc);
	}
	free(used);
	free(keys);
	return r;
}

/* A slot's (disk, op) rows, one per CPU, appended to out->lat */
static int take_lat(struct trace *t, struct trace_raw *out, const void *vals, size_t nc)
{
	size_t rs = (sizeof(struct trace_lat_row) + 7) / 8 * 8;

	(void)t;
	if (grow_to((void **)&out->lat, out->nlat + nc * TRACE_LAT__COUNT, sizeof(*out->lat)) < 0)
		return -ENOMEM;
	for (size_t c = 0; c < nc; c++)
		lat_row_take(out, (const struct trace_lat_row *)((const char *)vals + c * rs));
	return 0;
}

/* x's IOs added to d's */
static void lat_add(void *dst, const void *src)
{
	struct trace_lat_raw *d = dst;
	const struct trace_lat_raw *x = src;

	for (int s = 0; s < TRACE_HIST_SLOTS; s++)
		d->slots[s] += x->slots[s];
	d->count += x->count;
	d->sum_ns += x->sum_ns;
	d->remote += x->remote;
}

/*
 * The histograms: the slots some CPU took (lat_used, one batch), each
 * slot's rows on every CPU (one lookup a slot), then one row per (disk,
 * op, kind): a (disk, op) may sit in different slots on different CPUs.
 */
static int read_lat(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		    struct trace_raw *out)
{
	size_t w = 0;
	int r;

	r = read_used(t, out, bpf_map__fd(used), bpf_map__fd(m), t->lat_slots,
		      sizeof(struct trace_lat_row), take_lat);
	if (t->skel->bss)
		out->lat_dropped = t->skel->bss->lat_dropped;
	if (r < 0)
		return r;
	/* one row per key: the CPUs' rows of one (disk, op, kind) summed */
	out->nlat =
	    trace_rows_merge(out->lat, out->nlat, sizeof(*out->lat), trace_lat_cmp, lat_add);
	/* the checks every read gets, live or recorded (trace_lat_check) */
	for (size_t i = 0; i < out->nlat; i++) {
		if (trace_lat_check(&out->lat[i]) & TRACE_CHECK_BAD)
			out->rows_dropped++;
		else
			out->lat[w++] = out->lat[i];
	}
	out->nlat = w;
	return 0;
}

/* A slot's (cgroup, disk) rows, one per CPU, gathered in t->cg_rows for
 * trace_cg_take */
static int take_cg(struct trace *t, struct trace_raw *out, const void *vals, size_t nc)
{
	size_t rs = (sizeof(struct trace_cg_row) + 7) / 8 * 8;

	(void)out;
	if (grow((void **)&t->cg_rows, &t->cg_rows_cap, t->ncg_rows + nc, sizeof(*t->cg_rows)) < 0)
		return -ENOMEM;
	for (size_t c = 0; c < nc; c++)
		memcpy(&t->cg_rows[t->ncg_rows++], (const char *)vals + c * rs,
		       sizeof(*t->cg_rows));
	return 0;
}

/* The rows per (cgroup, disk, stage), their paths from the hierarchy
 * (walked again when an id is not known, at most once every 5 s). */
static int read_cg(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		   struct trace_raw *out)
{
	bool unknown = false;
	int r;

	if (!t->skel->bss)
		return -ENOENT;
	t->ncg_rows = 0;
	r = read_used(t, out, bpf_map__fd(used), bpf_map__fd(m), t->cg_slots,
		      sizeof(struct trace_cg_row), take_cg);
	if (r >= 0)
		r = trace_cg_take(t->cg_rows, t->ncg_rows, out);
	out->cg_dropped = t->skel->bss->cg_dropped;
	if (r < 0)
		return r;
	for (size_t i = 0; i < out->ncg && !unknown; i++)
		unknown = !trace_cgpaths_find(&t->cgp, out->cg[i].cgid);
	if ((unknown || !t->cgp.walked) && trace_cgpaths_walk(&t->cgp, out->mono_ns) == 0 &&
	    t->cgp.walked_ns == out->mono_ns)
		unknown = true; /* walked now: what it did not find is gone */
	else
		unknown = false;
	for (size_t i = 0; i < out->ncg; i++) {
		const char *p = trace_cgpaths_find(&t->cgp, out->cg[i].cgid);

		if (!p && unknown)
			trace_cgpaths_forget(&t->cgp, out->cg[i].cgid);
		snprintf(out->cg[i].path, sizeof(out->cg[i].path), "%s", p ? p : "");
	}
	snprintf(out->cg_top, sizeof(out->cg_top), "%s", t->cgp.top);
	return 0;
}

static int each_napi(struct trace *t, struct trace_raw *out, const void *keys, const void *vals,
		     uint32_t n)
{
	const struct trace_napi_val *v = vals;
	size_t nc = (size_t)t->ncpu;

	if (grow_to((void **)&out->napi, out->nnapi + n, sizeof(*out->napi)) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct trace_napi_raw *q = &out->napi[out->nnapi++];
		bool named = false;

		memset(q, 0, sizeof(*q));
		q->napi_id = ((const uint32_t *)keys)[i];
		q->irq = -1;
		q->index = -1;
		for (size_t k = 0; k < nc; k++) {
			const struct trace_napi_val *x = &v[i * nc + k];

			q->ns += x->ns;
			q->polls += x->polls;
			q->work += x->work;
			/* the CPU that created the entry filled its names */
			if (!named && x->named) {
				named = true;
				q->irq = x->irq;
				q->index = x->index;
				q->ifindex = x->ifindex;
				q->netns = x->netns;
				memcpy(q->dev, x->dev, sizeof(q->dev));
				q->dev[sizeof(q->dev) - 1] = '\0';
			}
		}
	}
	return 0;
}

static int each_blkq(struct trace *t, struct trace_raw *out, const void *keys, const void *vals,
		     uint32_t n)
{
	const struct trace_blkq_key *key = keys;
	const struct trace_blkq_val *v = vals;
	size_t nc = (size_t)t->ncpu;

	if (grow_to((void **)&out->blkq, out->nblkq + n, sizeof(*out->blkq)) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct trace_blkq_raw *q = &out->blkq[out->nblkq++];

		memset(q, 0, sizeof(*q));
		q->major = key[i].dev >> 20;
		q->minor = key[i].dev & 0xfffff;
		q->hctx = key[i].hctx;
		for (size_t k = 0; k < nc; k++) {
			q->ns += v[i * nc + k].ns;
			q->count += v[i * nc + k].count;
		}
	}
	return 0;
}

static int cmp_u32_rows(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The IRQ rows in ascending line order (a batch of a hash map comes in
 * bucket order): sorts an index, then permutes the three arrays. */
static int sort_irqs(struct trace_raw *r)
{
	size_t n = r->nirq, nc = r->ncpu;
	uint32_t(*idx)[2];
	uint64_t *ns, *cnt;

	if (n < 2)
		return 0; /* sorted; and malloc(0) may be NULL */
	idx = malloc(n * sizeof(*idx));
	ns = malloc(n * nc * sizeof(*ns));
	cnt = malloc(n * nc * sizeof(*cnt));
	if (!idx || !ns || !cnt) {
		free(idx);
		free(ns);
		free(cnt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		idx[i][0] = r->irq[i];
		idx[i][1] = (uint32_t)i;
	}
	qsort(idx, n, sizeof(*idx), cmp_u32_rows);
	for (size_t i = 0; i < n; i++) {
		r->irq[i] = idx[i][0];
		memcpy(&ns[i * nc], &r->irq_ns[idx[i][1] * nc], nc * sizeof(*ns));
		memcpy(&cnt[i * nc], &r->irq_count[idx[i][1] * nc], nc * sizeof(*cnt));
	}
	free(idx);
	free(r->irq_ns);
	free(r->irq_count);
	r->irq_ns = ns;
	r->irq_count = cnt;
	return 0;
}

static int read_soft(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		     struct trace_raw *out)
{
	(void)used;
	return read_map(t, m, sizeof(uint32_t), sizeof(struct trace_time), each_soft, out);
}

static int read_hard(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		     struct trace_raw *out)
{
	int e = read_map(t, m, sizeof(uint32_t), sizeof(struct trace_time), each_hard, out);

	(void)used;
	return e < 0 ? e : sort_irqs(out);
}

/* per hardware queue: the shared rows where the skeleton maps them (.bss),
 * no copy through the kernel; checked as any map's read */
static int read_hlat(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		     struct trace_raw *out)
{
	int e;

	(void)m;
	(void)used;
	if (!t->skel->bss)
		return -ENOENT;
	e = trace_hlat_take(t->skel->bss->hlat, TRACE_MAX_HLAT, out);
	if (e != -ENOMEM)
		out->hlat_dropped = t->skel->bss->hlat_dropped;
	return e;
}

/* the per-queue split: marked by the softirq probe's programs */
static int read_napi(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		     struct trace_raw *out)
{
	int e = read_map(t, m, sizeof(uint32_t), sizeof(struct trace_napi_val), each_napi, out);

	(void)used;
	if (e >= 0 && out->nnapi > 1)
		qsort(out->napi, out->nnapi, sizeof(*out->napi), trace_napi_cmp);
	return e;
}

static int read_blkq(struct trace *t, const struct bpf_map *m, const struct bpf_map *used,
		     struct trace_raw *out)
{
	int e = read_map(t, m, sizeof(struct trace_blkq_key), sizeof(struct trace_blkq_val),
			 each_blkq, out);

	(void)used;
	if (e >= 0 && out->nblkq > 1)
		qsort(out->blkq, out->nblkq, sizeof(*out->blkq), trace_blkq_cmp);
	return e;
}

int trace_maps_find(struct trace *t, char *why, size_t why_size)
{
	for (size_t i = 0; i < TRACE_MAPS; i++) {
		const struct map_row *row = &map_rows[i];

		t->map[i] = bpf_object__find_map_by_name(t->skel->obj, row->map);
		t->used[i] =
		    row->used ? bpf_object__find_map_by_name(t->skel->obj, row->used) : NULL;
		if (!t->map[i] || (row->used && !t->used[i])) {
			snprintf(why, why_size, "the BPF object has no map %s",
				 t->map[i] ? row->used : row->map);
			return -ENOENT;
		}
	}
	return 0;
}

int trace_maps_start(struct trace *t, struct trace_raw *r)
{
	size_t nc = (size_t)t->ncpu;

	for (size_t i = 0; i < TRACE_MAPS; i++) {
		if (map_rows[i].rows != RAW_NONE)
			*(size_t *)((char *)r + map_rows[i].rows) = 0;
		if (map_rows[i].said != RAW_NONE)
			*(bool *)((char *)r + map_rows[i].said) = false;
	}
	r->cg_top[0] = '\0';
	r->lat_slots = t->lat_slots;
	r->rows_dropped = 0;
	if (!r->soft_ns) {
		r->soft_ns = calloc(nc * TRACE_NR_SOFTIRQS, sizeof(*r->soft_ns));
		r->soft_count = calloc(nc * TRACE_NR_SOFTIRQS, sizeof(*r->soft_count));
		if (!r->soft_ns || !r->soft_count)
			return -ENOMEM;
	}
	memset(r->soft_ns, 0, nc * TRACE_NR_SOFTIRQS * sizeof(*r->soft_ns));
	memset(r->soft_count, 0, nc * TRACE_NR_SOFTIRQS * sizeof(*r->soft_count));
	return 0;
}

int trace_maps_read(struct trace *t, struct trace_raw *r)
{
	for (size_t i = 0; i < TRACE_MAPS; i++) {
		const struct map_row *row = &map_rows[i];
		bool on = true;
		int e;

		for (int k = 0; k < TRACE__COUNT; k++)
			on &= !(row->probes & ON(k)) || t->probe[k].on;
		if (!on)
			continue;
		e = row->read(t, t->map[i], t->used[i], r);
		if (e == -ENOMEM)
			return e;
		if (row->said != RAW_NONE) {
			*(bool *)((char *)r + row->said) = e >= 0;
			continue;
		}
		for (int k = 0; k < TRACE__COUNT && e < 0; k++) {
			if (!(row->probes & ON(k)))
				continue;
			t->probe[k].read = false;
			trace_probe_off(t, (enum trace_probe)k, "cannot read its map: %s",
					strerror(-e));
		}
	}
	return 0;
}

void trace_maps_free(struct trace *t)
{
	free(t->keys);
	free(t->vals);
	free(t->cg_rows);
}
