// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Blobs and the sample ring. The ring is bounded by a sample count fixed at
 * start (--history / --interval), so its memory is count x sample size and
 * nothing else; lookups are binary searches because ids and times increase.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "history.h"

/* zstd's fastest real level: ~20 us (cold cache) and 4.5x on a 10 KB sample */
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
	free(h->e);
	memset(h, 0, sizeof(*h));
}

static size_t stored_len(const struct hist_entry *e)
{
	return (e->b ? e->b->len : 0) + (e->z ? e->z->len : 0);
}

/* DOC of e as a zstd frame in e->z, e->b dropped; e kept as it is on failure. */
static void compress_entry(struct history *h, struct hist_entry *e)
{
	size_t bound = ZSTD_compressBound(e->doc_len), n;
	struct blob *z;

	if (!e->b || e->z)
		return;
	if (!h->zctx) {
		/* samples are KBs to a few hundred KB: small tables are as good
		 * (4.5x either way) and touch less memory in a cold cache */
		h->zctx = ZSTD_createCCtx();
		if (h->zctx &&
		    (ZSTD_isError(ZSTD_CCtx_setParameter(h->zctx, ZSTD_c_compressionLevel,
							 HISTORY_ZSTD_LEVEL)) ||
		     ZSTD_isError(ZSTD_CCtx_setParameter(h->zctx, ZSTD_c_hashLog, 12)) ||
		     ZSTD_isError(ZSTD_CCtx_setParameter(h->zctx, ZSTD_c_windowLog, 16)))) {
			ZSTD_freeCCtx(h->zctx);
			h->zctx = NULL;
		}
	}
	if (!h->zctx)
		return;
	z = blob_alloc(bound);
	if (!z)
		return;
	n = ZSTD_compress2(h->zctx, z->data, bound, e->b->data + e->doc_off, e->doc_len);
	if (ZSTD_isError(n)) {
		blob_unref(z);
		return;
	}
	/* the frame only: a right-sized copy, the bound can be much larger */
	e->z = blob_new(z->data, n);
	blob_unref(z);
	if (!e->z)
		return;
	h->stored -= e->b->len;
	h->stored += e->z->len;
	blob_unref(e->b);
	e->b = NULL;
}

void history_push(struct history *h, const struct hist_entry *e)
{
	size_t slot;

	if (h->n == h->cap) {
		struct hist_entry *old = &h->e[h->head];

		h->bytes -= old->line_len;
		h->stored -= stored_len(old);
		blob_unref(old->b);
		blob_unref(old->z);
		h->head = (h->head + 1) % h->cap;
		h->n--;
	}
	if (h->n && !h->raw)
		compress_entry(h, &h->e[(h->head + h->n - 1) % h->cap]);
	slot = (h->head + h->n) % h->cap;
	h->e[slot] = *e;
	h->e[slot].z = NULL;
	h->e[slot].line_len = e->b->len;
	h->bytes += e->b->len;
	h->stored += e->b->len;
	h->n++;
}

int history_doc(const struct hist_entry *e, char *out)
{
	size_t n;

	if (e->b) {
		memcpy(out, e->b->data + e->doc_off, e->doc_len);
		return 0;
	}
	if (!e->z)
		return -EBADMSG;
	n = ZSTD_decompress(out, e->doc_len, e->z->data, e->z->len);
	if (ZSTD_isError(n) || n != e->doc_len)
		return -EBADMSG;
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
