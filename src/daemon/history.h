/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reference-counted byte blobs (an encoded sample, a reply) and the history
 * ring of encoded samples. A sample is encoded once into a blob; the ring,
 * every subscriber's output queue and every history reply hold references to
 * the same bytes, so replies are copies of pointers and a stalled client pins
 * memory instead of duplicating it. Older samples are kept zstd-compressed,
 * HISTORY_BLOCK consecutive samples to a frame (level 1): a frame a sample
 * paid zstd's start-up, with cold caches, every tick (15 % of a 1 Hz
 * --core-only daemon's CPU), and consecutive samples share most of their
 * bytes, which one frame finds. A history reply decompresses what it sends,
 * each frame once. No I/O, no clock.
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

/* Samples to a zstd frame: 16 x 4 KB (--core-only) to 16 x 11 KB of JSON. */
#define HISTORY_BLOCK 16

/* One sample: its blob is the whole event line
 * {"ok":true,"event":"sample","sample":DOC}\n, DOC at [doc_off, doc_off + doc_len).
 * Once compressed, b is dropped and z is the frame holding DOC and the DOCs
 * of the samples compressed with it, shared by them. */
struct hist_entry {
	uint64_t id;	 /* the sample's id ("sample" in DOC) */
	int64_t mono_ns; /* CLOCK_MONOTONIC of the sample */
	struct blob *b;	 /* the event line; NULL once compressed */
	struct blob *z;	 /* the zstd frame holding DOC; NULL while b is kept */
	size_t z_off;	 /* DOC at [z_off, z_off + doc_len) of the frame's content */
	size_t z_len;	 /* the frame's content, decompressed */
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
	size_t stored; /* what they take: frames and the lines not compressed yet */
	size_t plain;  /* the newest entries that still hold their line */
	size_t block;  /* samples to a frame; 0: HISTORY_BLOCK */
	bool raw;      /* keep every sample uncompressed (tests, benchmarks) */
	void *zctx;    /* ZSTD_CCtx, kept: a context per call costs its workspace */
	char *zbuf;    /* scratch: a block's DOCs side by side, then its frame */
	size_t zbuf_cap;
	struct blob *dz; /* the frame last decompressed by history_docs_cached */
	char *dbuf;	 /* its content */
	size_t dbuf_cap;
};

/* Prepares a ring of cap samples (cap >= 1). 0, -EINVAL or -ENOMEM;
 * *ret_h written only on success. */
int history_init(size_t cap, struct history *ret_h);
/* Drops every reference and the slots. Accepts NULL. */
void history_free(struct history *h);

/* Appends e, taking over its reference; when full, the oldest entry's
 * reference is dropped. Ids must increase (the caller's sampler does). */
void history_push(struct history *h, const struct hist_entry *e);

/* Once more than a block of entries besides the newest hold their line,
 * compresses the oldest block of them into one frame (those kept as they
 * were when that fails: out of memory). Called after the newest sample went
 * out, so a frame's cost never delays it. */
void history_compact(struct history *h);

/* Writes the DOCs of entries [i, j), each compressed, joined by ',', to out
 * (their doc_len summed, plus j - i - 1 bytes), decompressing each frame
 * once. 0, -EINVAL (an entry not compressed or out of range), -ENOMEM or
 * -EBADMSG. */
int history_docs(const struct history *h, size_t i, size_t j, char *out);

/* As history_docs, keeping the frame decompressed last (one, whatever the
 * caller) for the next call: a history reply is written a chunk at a time,
 * several chunks a frame. */
int history_docs_cached(struct history *h, size_t i, size_t j, char *out);

/* The i-th kept entry, 0 the oldest; NULL when i >= n. */
const struct hist_entry *history_at(const struct history *h, size_t i);
/* The newest entry, NULL when empty. */
const struct hist_entry *history_latest(const struct history *h);

/* Index of the first entry with id > since (n if none). */
size_t history_find_since(const struct history *h, uint64_t since);
/* Index of the first entry taken at or after from_ns (n if none). */
size_t history_find_from(const struct history *h, int64_t from_ns);

#endif
