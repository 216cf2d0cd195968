// SPDX-License-Identifier: GPL-2.0-or-later
/* history.c: blobs' reference counts, the ring's eviction and byte count, and
 * the since/seconds lookups that history replies use. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "history.h"

static struct hist_entry entry(uint64_t id, int64_t mono_ns, size_t len)
{
	char buf[64];
	struct hist_entry e = { .id = id, .mono_ns = mono_ns };

	memset(buf, 'a' + (int)(id % 26), sizeof(buf));
	e.b = blob_new(buf, len);
	assert_non_null(e.b);
	e.doc_off = 0;
	e.doc_len = len;
	return e;
}

static void test_blob_refs(void **state)
{
	struct blob *b = blob_new("xyz", 3);

	(void)state;
	assert_non_null(b);
	assert_int_equal(b->len, 3);
	assert_memory_equal(b->data, "xyz", 3);
	assert_ptr_equal(blob_ref(b), b);
	assert_int_equal(b->refs, 2);
	blob_unref(b);
	assert_int_equal(b->refs, 1);
	blob_unref(b); /* freed: ASan would catch a use after this */
	blob_unref(NULL);
	b = blob_new(NULL, 0);
	assert_non_null(b);
	assert_int_equal(b->len, 0);
	blob_unref(b);
}

static void test_ring_evicts_oldest(void **state)
{
	struct history h = { 0 }, untouched = { .cap = 77 };
	struct hist_entry e;

	(void)state;
	assert_int_equal(history_init(0, &untouched), -EINVAL);
	assert_int_equal(untouched.cap, 77);
	assert_int_equal(history_init(3, &h), 0);
	assert_null(history_latest(&h));
	assert_int_equal(history_find_since(&h, 0), 0);
	for (uint64_t id = 1; id <= 5; id++) {
		e = entry(id, (int64_t)id * 1000, 10 + id);
		history_push(&h, &e);
	}
	/* ids 3, 4, 5 kept: 13 + 14 + 15 bytes */
	assert_int_equal(h.n, 3);
	assert_int_equal(h.bytes, 42);
	assert_int_equal(history_at(&h, 0)->id, 3);
	assert_int_equal(history_at(&h, 2)->id, 5);
	assert_null(history_at(&h, 3));
	assert_int_equal(history_latest(&h)->id, 5);
	history_free(&h);
	history_free(NULL);
}

static void test_lookups(void **state)
{
	struct history h;
	struct hist_entry e;

	(void)state;
	assert_int_equal(history_init(8, &h), 0);
	/* ids 10..19 at 100 ms steps from t = 1 s; the ring keeps 12..19 */
	for (uint64_t id = 10; id < 20; id++) {
		e = entry(id, 1000000000LL + (int64_t)(id - 10) * 100000000LL, 8);
		history_push(&h, &e);
	}
	assert_int_equal(history_at(&h, 0)->id, 12);
	assert_int_equal(history_find_since(&h, 0), 0);	   /* all kept */
	assert_int_equal(history_find_since(&h, 11), 0);   /* evicted ones are just gone */
	assert_int_equal(history_find_since(&h, 12), 1);   /* strictly after 12 */
	assert_int_equal(history_find_since(&h, 18), 7);   /* only 19 */
	assert_int_equal(history_find_since(&h, 19), 8);   /* nothing newer */
	assert_int_equal(history_find_since(&h, 1000), 8); /* future id */
	/* 19 was taken at 1.9 s: the last 0.3 s are 1.6 .. 1.9 -> ids 16..19 */
	assert_int_equal(history_at(&h, history_find_from(&h, 1600000000LL))->id, 16);
	assert_int_equal(history_find_from(&h, 1600000001LL), 5);
	assert_int_equal(history_find_from(&h, 0), 0);
	assert_int_equal(history_find_from(&h, 2000000000LL), 8);
	history_free(&h);
}

static void test_shared_blob_outlives_ring(void **state)
{
	struct history h;
	struct hist_entry e;
	struct blob *held;

	(void)state;
	assert_int_equal(history_init(1, &h), 0);
	e = entry(1, 1, 16);
	history_push(&h, &e);
	/* a client's queue holds the sample while the ring moves on */
	held = blob_ref(history_latest(&h)->b);
	e = entry(2, 2, 16);
	history_push(&h, &e);
	assert_int_equal(held->refs, 1);
	assert_int_equal(held->data[0], 'a' + 1);
	blob_unref(held);
	history_free(&h);
}

/* Older samples are kept compressed, a block to a frame, and come back byte
 * for byte, one by one and as a run; the newest stays a shared event line
 * until a block is full; raw keeps everything as it came. */
static void test_compressed(void **state)
{
	static const char fmt[] =
	    "{\"version\":1,\"sample\":%d,\"disks\":[{\"disk_device\":\"vda\",\"r/s\":0.00,"
	    "\"w/s\":12.00,\"util\":0.40},{\"disk_device\":\"vdb\",\"r/s\":0.00,\"w/s\":12.00,"
	    "\"util\":0.40},{\"disk_device\":\"vdc\",\"r/s\":0.00,\"w/s\":12.00,"
	    "\"util\":0.40}],\"cpu-load\":[{\"cpu\":\"all\",\"usr\":1.00,\"idle\":99.00}]}";
	char doc[16][400], out[16 * 400], want[16 * 400];
	size_t len[16], off = 0;
	struct history h, r;
	struct hist_entry e, *x;

	(void)state;
	assert_int_equal(history_init(8, &h), 0);
	assert_int_equal(history_init(8, &r), 0);
	h.block = 3;
	r.raw = true;
	for (int id = 1; id <= 11; id++) {
		len[id - 1] = (size_t)snprintf(doc[id - 1], sizeof(doc[0]), fmt, id);
		e = (struct hist_entry){ .id = (uint64_t)id, .mono_ns = id };
		e.b = blob_new(doc[id - 1], len[id - 1]);
		e.doc_len = len[id - 1];
		history_push(&h, &e);
		history_compact(&h);
		e.b = blob_new(doc[id - 1], len[id - 1]);
		history_push(&r, &e);
		history_compact(&r);
		if (id == 8) {
			/* 1-3 and 4-6 in two frames, 7 and 8 as they came */
			for (size_t i = 0; i < 8; i++)
				assert_true((history_at(&h, i)->z != NULL) == (i < 6));
			assert_ptr_equal(history_at(&h, 0)->z, history_at(&h, 2)->z);
			assert_ptr_not_equal(history_at(&h, 2)->z, history_at(&h, 3)->z);
			assert_int_equal(history_at(&h, 0)->z->refs, 3);
		}
	}
	/* 11 pushed into 8 slots: 1-3 gone (their frame with them), 4-6 and
	 * 7-9 compressed, 10 and 11 lines */
	assert_int_equal(h.n, 8);
	assert_int_equal(history_at(&h, 0)->id, 4);
	assert_int_equal(h.plain, 2);
	assert_true(h.stored < h.bytes);
	assert_int_equal(r.stored, r.bytes);
	assert_int_equal(r.plain, 8);
	for (size_t i = 0; i < h.n; i++) {
		const struct hist_entry *y = history_at(&h, i);

		assert_true((y->b != NULL) == (i >= 6));
		memset(out, 0, sizeof(out));
		if (y->b) /* a line as it came */
			memcpy(out, y->b->data + y->doc_off, y->doc_len);
		else /* one entry of its frame */
			assert_int_equal(history_docs(&h, i, i + 1, out), 0);
		assert_memory_equal(out, doc[i + 3], len[i + 3]);
		assert_non_null(history_at(&r, i)->b);
		if (i < 6) {
			if (i)
				want[off++] = ',';
			memcpy(want + off, doc[i + 3], len[i + 3]);
			off += len[i + 3];
		}
	}
	/* the compressed run, across two frames, joined as a reply sends it */
	memset(out, 0, sizeof(out));
	assert_int_equal(history_docs(&h, 0, 6, out), 0);
	assert_memory_equal(out, want, off);
	assert_int_equal(history_docs(&h, 5, 7, out), -EINVAL); /* 10 is not compressed */
	/* a damaged frame is refused, not decoded into garbage */
	x = &h.e[h.head];
	e = *x;
	x->z = blob_new(e.z->data, e.z->len / 2);
	assert_int_equal(history_docs(&h, 0, 1, out), -EBADMSG);
	blob_unref(x->z);
	*x = e;
	history_free(&h);
	history_free(&r);
}

/* What the ring really holds: each frame once, and the lines. */
static size_t stored_now(const struct history *h)
{
	const struct blob *last = NULL;
	size_t sum = 0;

	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *y = history_at(h, i);

		if (y->b)
			sum += y->b->len;
		else if (y->z != last)
			sum += y->z->len;
		last = y->z;
	}
	return sum;
}

/* history_docs_cached: the same bytes as history_docs, the frame kept for
 * the next call (a history reply's next chunk), and the ring's accounting
 * unchanged by the reference the cache holds when that frame leaves it. */
static void test_docs_cached(void **state)
{
	struct history h;
	struct hist_entry e;
	char doc[16][64], a[1024], b[1024];
	size_t len;

	(void)state;
	assert_int_equal(history_init(6, &h), 0);
	h.block = 3;
	for (int id = 1; id <= 16; id++) {
		len = (size_t)snprintf(doc[id - 1], sizeof(doc[0]),
				       "{\"sample\":%d,\"x\":\"%030d\"}", id, id);
		e = (struct hist_entry){ .id = (uint64_t)id, .mono_ns = id, .doc_len = len };
		e.b = blob_new(doc[id - 1], len);
		history_push(&h, &e);
		history_compact(&h);
		if (history_at(&h, 0)->z) {
			/* the oldest frame, one chunk at a time, then whole */
			memset(a, 0, sizeof(a));
			memset(b, 0, sizeof(b));
			assert_int_equal(history_docs(&h, 0, 2, a), 0);
			assert_int_equal(history_docs_cached(&h, 0, 1, b), 0);
			assert_ptr_equal(h.dz, history_at(&h, 0)->z);
			len = history_at(&h, 0)->doc_len;
			b[len] = ',';
			assert_int_equal(history_docs_cached(&h, 1, 2, b + len + 1), 0);
			assert_memory_equal(a, b, sizeof(a));
			/* the cache keeps the oldest frame as it leaves the ring */
			assert_int_equal(history_docs_cached(&h, 0, 1, b), 0);
		}
		assert_int_equal(h.stored, stored_now(&h));
	}
	assert_int_equal(history_docs_cached(&h, 0, h.n, a), -EINVAL); /* lines too */
	history_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blob_refs),  cmocka_unit_test(test_ring_evicts_oldest),
		cmocka_unit_test(test_lookups),	   cmocka_unit_test(test_shared_blob_outlives_ring),
		cmocka_unit_test(test_compressed), cmocka_unit_test(test_docs_cached),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
