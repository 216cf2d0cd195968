/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reference-counted byte blobs (an encoded sample, a reply) and the history
 * ring of encoded samples. A sample is encoded once into a blob; the ring,
 * every subscriber's output queue and every history reply hold references to
 * the same bytes, so replies are copies of pointers and a stalled client pins
 * memory instead of duplicating it. Every sample but the newest is kept
 * zstd-compressed (level 1: 4.5x smaller for a sample of every source on
 * the development VM), so 600 s of them take ~1.4 MB instead of 6.4 MB; a
 * history reply decompresses what it sends. No I/O, no clock.
 */
#ifndef IOTRIAGED_HISTORY_H
#define IOTRIAGED_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct blob {
	unsigned refs; /* 0: static, never freed */
	size_t len;
	char data[];
};

/* A new blob of len uninitialised bytes, one reference. NULL when out of memory. */
struct blob *blob_alloc(size_t len);
/* A new blob holding a copy of data (len bytes, may be 0), one reference.
 * NULL when out of memory. */
struct blob *blob_new(const void *data, size_t len);
/* Takes a reference; returns b. */
struct blob *blob_ref(struct blob *b);
/* Drops a reference, frees on the last one. Accepts NULL and static blobs. */
void blob_unref(struct blob *b);

/* One sample: its blob is the whole event line
 * {"ok":true,"event":"sample","sample":DOC}\n, DOC at [doc_off, doc_off + doc_len).
 * Once a newer sample is pushed, b is dropped and z holds DOC compressed. */
struct hist_entry {
	uint64_t id;	 /* the sample's id ("sample" in DOC) */
	int64_t mono_ns; /* CLOCK_MONOTONIC of the sample */
	struct blob *b;	 /* the event line; NULL once compressed */
	struct blob *z;	 /* DOC, zstd frame; NULL while b is kept */
	size_t doc_off;
	size_t doc_len;
	size_t line_len; /* b's length when pushed (set by history_push) */
};

struct history {
	struct hist_entry *e; /* cap slots, a ring */
	size_t cap;
	size_t head; /* slot of the oldest entry */
	size_t n;
	size_t bytes;  /* sum of the kept samples' event lines, uncompressed */
	size_t stored; /* what they take: compressed frames and the newest line */
	bool raw;      /* keep every sample uncompressed (tests, benchmarks) */
	void *zctx;    /* ZSTD_CCtx, kept: a context per call costs its workspace */
};

/* Prepares a ring of cap samples (cap >= 1). 0, -EINVAL or -ENOMEM;
 * *ret_h written only on success. */
int history_init(size_t cap, struct history *ret_h);
/* Drops every reference and the slots. Accepts NULL. */
void history_free(struct history *h);

/* Appends e, taking over its reference; when full, the oldest entry's
 * reference is dropped. The previous newest entry is compressed (kept as
 * it was when that fails: out of memory). Ids must increase (the caller's
 * sampler does). */
void history_push(struct history *h, const struct hist_entry *e);

/* Writes entry e's DOC (doc_len bytes) to out: a copy, or the frame
 * decompressed. 0 or -EBADMSG (a frame that does not decompress to doc_len). */
int history_doc(const struct hist_entry *e, char *out);

/* The i-th kept entry, 0 the oldest; NULL when i >= n. */
const struct hist_entry *history_at(const struct history *h, size_t i);
/* The newest entry, NULL when empty. */
const struct hist_entry *history_latest(const struct history *h);

/* Index of the first entry with id > since (n if none). */
size_t history_find_since(const struct history *h, uint64_t since);
/* Index of the first entry taken at or after from_ns (n if none). */
size_t history_find_from(const struct history *h, int64_t from_ns);

#endif
