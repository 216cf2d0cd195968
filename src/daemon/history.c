// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Blobs and the sample ring. The ring is bounded by a sample count fixed at
 * start (--history / --interval), so its memory is count x sample size and
 * nothing else; lookups are binary searches because ids and times increase.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "history.h"

/* zstd's fastest real level */
#define HISTORY_ZSTD_LEVEL 1

struct blob *blob_alloc(size_t len)
{
	struct blob *b;

	if (len > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + len);
	if (!b)
		return NULL;
	b->refs = 1;
	b->len = len;
	return b;
}

struct blob *blob_new(const void *data, size_t len)
{
	struct blob *b = blob_alloc(len);

	if (b && len)
		memcpy(b->data, data, len);
	return b;
}

struct blob *blob_ref(struct blob *b)
{
	if (b && b->refs)
		b->refs++;
	return b;
}

void blob_unref(struct blob *b)
{
	if (!b || !b->refs)
		return;
	if (--b->refs == 0)
		free(b);
}

int history_init(size_t cap, struct history *ret_h)
{
	struct history h = { 0 };

	if (cap == 0)
		return -EINVAL;
	h.e = calloc(cap, sizeof(*h.e));
	if (!h.e)
		return -ENOMEM;
	h.cap = cap;
	*ret_h = h;
	return 0;
}

void history_free(struct history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++) {
		blob_unref(h->e[(h->head + i) % h->cap].b);
		blob_unref(h->e[(h->head + i) % h->cap].z);
	}
	ZSTD_freeCCtx(h->zctx);
	free(h->zbuf);
	blob_unref(h->dz);
	free(h->dbuf);
	free(h->e);
	memset(h, 0, sizeof(*h));
}

/* The kept zstd context, made on first use; NULL when out of memory. */
static ZSTD_CCtx *zctx(struct history *h)
{
	if (!h->zctx) {
		/* small tables touch less memory in a cold cache; a block of
		 * samples repeats most of itself within a few KB */
		h->zctx = ZSTD_createCCtx();
		if (h->zctx &&
		    (ZSTD_isError(ZSTD_CCtx_setParameter(h->zctx, ZSTD_c_compressionLevel,
							 HISTORY_ZSTD_LEVEL)) ||
		     ZSTD_isError(ZSTD_CCtx_setParameter(h->zctx, ZSTD_c_hashLog, 13)) ||
		     ZSTD_isError(ZSTD_CCtx_setParameter(h->zctx, ZSTD_c_windowLog, 17)))) {
			ZSTD_freeCCtx(h->zctx);
			h->zctx = NULL;
		}
	}
	return h->zctx;
}

static bool scratch(struct history *h, size_t len)
{
	char *p;

	if (len <= h->zbuf_cap)
		return true;
	p = realloc(h->zbuf, len);
	if (!p)
		return false;
	h->zbuf = p;
	h->zbuf_cap = len;
	return true;
}

/* Entries [first, first + k) (each holding its line) into one frame. */
static void compress_block(struct history *h, size_t first, size_t k)
{
	size_t len = 0, off = 0, bound, n;
	ZSTD_CCtx *cc = zctx(h);
	struct blob *z;

	if (!cc)
		return;
	for (size_t i = first; i < first + k; i++)
		len += history_at(h, i)->doc_len;
	bound = ZSTD_compressBound(len);
	if (!scratch(h, len + bound))
		return;
	for (size_t i = first; i < first + k; i++) {
		const struct hist_entry *e = history_at(h, i);

		memcpy(h->zbuf + off, e->b->data + e->doc_off, e->doc_len);
		off += e->doc_len;
	}
	n = ZSTD_compress2(cc, h->zbuf + len, bound, h->zbuf, len);
	if (ZSTD_isError(n))
		return;
	z = blob_new(h->zbuf + len, n);
	if (!z)
		return;
	off = 0;
	for (size_t i = first; i < first + k; i++) {
		struct hist_entry *e = &h->e[(h->head + i) % h->cap];

		h->stored -= e->b->len;
		blob_unref(e->b);
		e->b = NULL;
		e->z = blob_ref(z);
		e->z_off = off;
		e->z_len = len;
		off += e->doc_len;
	}
	h->stored += z->len;
	h->plain -= k;
	blob_unref(z); /* the entries hold it now */
}

void history_compact(struct history *h)
{
	size_t block = h->block ? h->block : HISTORY_BLOCK;

	/* the newest stays a line: it is what snapshot and subscribers get */
	if (h->raw || h->plain < block + 1)
		return;
	compress_block(h, h->n - h->plain, block);
}

void history_push(struct history *h, const struct hist_entry *e)
{
	size_t slot;

	if (h->n == h->cap) {
		struct hist_entry *old = &h->e[h->head];

		h->bytes -= old->line_len;
		if (old->b) {
			h->stored -= old->b->len;
			h->plain--;
		} else if (old->z && old->z->refs == 1 + (old->z == h->dz)) {
			h->stored -= old->z->len; /* the frame's last sample */
		}
		blob_unref(old->b);
		blob_unref(old->z);
		h->head = (h->head + 1) % h->cap;
		h->n--;
	}
	slot = (h->head + h->n) % h->cap;
	h->e[slot] = *e;
	h->e[slot].z = NULL;
	h->e[slot].line_len = e->b->len;
	h->bytes += e->b->len;
	h->stored += e->b->len;
	h->plain++;
	h->n++;
}

/* A frame's content into a new buffer of z_len bytes; NULL on failure, with
 * the reason in *ret_err. */
static char *unpack(const struct hist_entry *e, int *ret_err)
{
	char *buf = malloc(e->z_len ? e->z_len : 1);
	size_t n;

	if (!buf) {
		*ret_err = -ENOMEM;
		return NULL;
	}
	n = ZSTD_decompress(buf, e->z_len, e->z->data, e->z->len);
	if (ZSTD_isError(n) || n != e->z_len || e->z_off + e->doc_len > e->z_len) {
		free(buf);
		*ret_err = -EBADMSG;
		return NULL;
	}
	return buf;
}

int history_docs(const struct history *h, size_t i, size_t j, char *out)
{
	const struct blob *frame = NULL;
	char *buf = NULL;
	size_t off = 0;
	int r = 0;

	if (i > j || j > h->n)
		return -EINVAL;
	for (size_t k = i; k < j; k++) {
		const struct hist_entry *e = history_at(h, k);

		if (!e->z) {
			r = -EINVAL;
			break;
		}
		if (e->z != frame) {
			free(buf);
			buf = unpack(e, &r);
			if (!buf)
				break;
			frame = e->z;
		}
		if (e->z_off + e->doc_len > e->z_len) {
			r = -EBADMSG;
			break;
		}
		if (k > i)
			out[off++] = ',';
		memcpy(out + off, buf + e->z_off, e->doc_len);
		off += e->doc_len;
	}
	free(buf);
	return r;
}

int history_docs_cached(struct history *h, size_t i, size_t j, char *out)
{
	size_t off = 0;

	if (i > j || j > h->n)
		return -EINVAL;
	for (size_t k = i; k < j; k++) {
		const struct hist_entry *e = history_at(h, k);

		if (!e->z)
			return -EINVAL;
		if (e->z != h->dz) {
			size_t n;

			if (e->z_len > h->dbuf_cap) {
				char *p = realloc(h->dbuf, e->z_len);

				if (!p)
					return -ENOMEM;
				h->dbuf = p;
				h->dbuf_cap = e->z_len;
			}
			blob_unref(h->dz);
			h->dz = NULL;
			n = ZSTD_decompress(h->dbuf, e->z_len, e->z->data, e->z->len);
			if (ZSTD_isError(n) || n != e->z_len)
				return -EBADMSG;
			h->dz = blob_ref(e->z);
		}
		if (e->z_off + e->doc_len > e->z_len)
			return -EBADMSG;
		if (k > i)
			out[off++] = ',';
		memcpy(out + off, h->dbuf + e->z_off, e->doc_len);
		off += e->doc_len;
	}
	return 0;
}

const struct hist_entry *history_at(const struct history *h, size_t i)
{
	if (i >= h->n)
		return NULL;
	return &h->e[(h->head + i) % h->cap];
}

const struct hist_entry *history_latest(const struct history *h)
{
	return h->n ? history_at(h, h->n - 1) : NULL;
}

size_t history_find_since(const struct history *h, uint64_t since)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (history_at(h, mid)->id > since)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t history_find_from(const struct history *h, int64_t from_ns)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (history_at(h, mid)->mono_ns >= from_ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}
