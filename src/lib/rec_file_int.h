/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the flight recorder's segment files (rec_file.h is the
 * interface): the on-disk layout's constants, little-endian fields, the
 * writer's and the reader's structs, and the functions the files share.
 * Only src/lib/rec*.c include it.
 *
 * One of the flight recorder's files (doc/map.md, src/lib): rec_crc.c the
 * checksum, rec_segment.c the segments' names and listing, recwriter.c
 * writes, recwriter_thread.c the writer's thread, recwriter_compact.c
 * seals and compacts, recreader.c reads; rec_file_int.h is what they
 * share, rec_file.h the interface (doc/recording.md).
 */
#ifndef IOTRIAGE_REC_FILE_INT_H
#define IOTRIAGE_REC_FILE_INT_H

#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <zstd.h>

#include "rec_file.h"
#include "strbuf.h"

static const char seg_magic[8] = { 'I', 'O', 'T', 'R', 'R', 'E', 'C', '\n' };
#define FRAME_MAGIC 0x31524649u /* "IFR1" little-endian */
#define FRAME_KEY   0x1u	/* zstd of the payload */
#define FRAME_DIFF  0x2u	/* zstd of the rec_diff from the previous frame's payload */
/* version 4: with FRAME_KEY or FRAME_DIFF, the bytes themselves, no zstd */
#define FRAME_STORED 0x4u
/* version 5: samples before it were not recorded (the async writer's queue
 * was full): the reader starts a new run there (a replay never carries
 * across what it did not see); older readers ignore it */
#define FRAME_DROPPED 0x8u
#define FSYNC_NS      (10 * INT64_C(1000000000))
#define RETRY_NS      (30 * INT64_C(1000000000))
#define SEG_AGE_NS    (3600 * INT64_C(1000000000))
/* "<13 digits of ms>-<16 hex of run id>.iotr" */
#define SEG_NAME_LEN (13 + 1 + 16 + 5)

/* little-endian fields */

static inline void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static inline void put_str(unsigned char *p, size_t size, const char *s)
{
	size_t n = s ? strnlen(s, size - 1) : 0;

	memset(p, 0, size);
	if (n)
		memcpy(p, s, n);
}

static inline void get_str(char *dst, const unsigned char *p, size_t size)
{
	size_t n = strnlen((const char *)p, size - 1);

	memcpy(dst, p, n);
	dst[n] = '\0';
}

/* Segment header layout (REC_FILE_HDR_SIZE bytes, little-endian):
 *   0 magic[8]  8 version  12 header size  16 interval_ms  20 key_every
 *  24 run_id (8)  32 created real ns (8)  40 boot_id[40]  80 host[64]
 * 144 mode[16]  160 keep_every (version 2: one sample in N of the run
 * kept by compaction, 1 none dropped; version 1: zero)  164 flags
 * (version 4: H_STORED)  168..251 zero  252 CRC32C of bytes 0..251 */
#define H_KEEP	 160
#define H_FLAGS	 164
#define H_STORED 0x1u /* may hold stored frames: recwriter_seal() compresses it */
#define H_CRC	 252
/* A compaction's new segment until it replaces the old: "NAME.tmp", a name
 * no reader or retention takes for a segment */
#define TMP_SUFFIX ".tmp"

/* Frame header (REC_FILE_FRAME_HDR bytes):
 *   0 magic  4 flags  8 compressed length  12 raw length  16 frame number
 *  in the segment (8)  24 sample id (8)  32 mono ns (8)  40 real ns (8)
 *  48 CRC32C of bytes 0..47 and the compressed payload */
#define F_CRC 48

struct seg_ent {
	char name[SEG_NAME_LEN + 1];
	uint64_t start_ms;
	uint64_t size;
};

/* rec_segment.c */
/* A listing of dirfd's entries (its own descriptor: dirfd stays ours),
 * or NULL with errno set. */
DIR *rec_segment_dir(int dirfd);
bool rec_segment_name_ok(const char *n, uint64_t *ret_ms);
/* The segments in dirfd, oldest first, regular files only (sizes from
 * fstatat without following). Returns the count or -errno. */
int rec_segment_list(int dirfd, struct seg_ent **ret);

/* ---- the writer (recwriter.c, recwriter_thread.c, recwriter_compact.c) ---- */

/* A queued frame of an async writer. */
struct qent {
	struct strbuf buf;
	uint64_t id;
	int64_t mono_ns, real_ns;
	bool dropped; /* frames were dropped right before it */
};

/* Emptied payload buffers kept for the sampling path's next frames (the
 * last freed first: two or three circulate while the disk keeps up). */
#define QUEUE_SPARE 4

struct recwriter {
	struct recwriter_opts o;
	/* held around unlinking a segment and renaming a compacted one over
	 * its original, so that compaction (another thread) never brings back a
	 * segment retention has just removed, nor removes the one being
	 * written; and around st.segment, which compaction reads */
	pthread_mutex_t lock;
	char host[64], mode[16], boot_id[40];
	int dirfd;
	int fd; /* current segment, -1 none */
	uint64_t seg_bytes;
	uint64_t seg_max;
	int64_t seg_start_real;
	uint64_t seg_frames;
	int64_t last_fsync_mono;
	int64_t retry_mono; /* stopped: when to look at the free space again */
	bool stopped;
	unsigned char *prev; /* the previous frame's payload: the next one's prefix */
	size_t prev_len, prev_cap;
	unsigned char *out; /* frame header + compressed payload */
	size_t out_cap;
	ZSTD_CCtx *cctx;
	struct strbuf diff; /* a delta frame before compression */
	struct recwriter_stats st;
	/* recwriter_start_thread(): the queue the sampling path fills and the thread empties;
	 * qlock is never held across I/O, so neither side waits on the disk */
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct qent *q; /* a ring of o.queue_max */
	unsigned qhead, qn;
	size_t qbytes;
	struct strbuf spare[QUEUE_SPARE]; /* emptied buffers, the last freed on top */
	unsigned nspare;
	bool qstop;
	bool drop_next;		    /* frames were dropped: the next queued says so */
	bool gap_next;		    /* a sample was not written: the next frame says so */
	struct recwriter_stats pub; /* st as the thread last published it */
};

/* A segment's header in h: w's options, created at real, keep_every. */
void recwriter_seg_header(const struct recwriter *w, int64_t real, uint32_t keep_every,
			  unsigned char h[REC_FILE_HDR_SIZE]);

/* h as a segment of its version starts: from version 5 twice (one flipped
 * byte in the header costs nothing: the reader takes the copy); into
 * ret_hdr, returns the length. */
size_t recwriter_seg_header_bytes(const unsigned char h[REC_FILE_HDR_SIZE],
				  unsigned char ret_hdr[REC_FILE_HDR_BYTES]);

/* The frame's payload into w->out after the header's room: zstd of the
 * payload (key) or of its difference from the previous one, or with
 * o.store those bytes themselves when small (*ret_stored). */
int recwriter_compress(struct recwriter *w, const void *payload, size_t len, bool key,
		       size_t *ret_z, bool *ret_stored);

/* The header of the frame recwriter_compress() left in w->out. */
void recwriter_frame_header(struct recwriter *w, bool key, bool stored, bool dropped, size_t z,
			    size_t len, uint64_t id, int64_t mono_ns, int64_t real_ns);

int recwriter_append_now(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
			 const void *payload, size_t len, struct strbuf *take, bool dropped);

/* Lets the thread write what is queued, then joins it. */
void recwriter_thread_stop(struct recwriter *w);

/* ---- the reader (recreader.c) ---- */

struct fidx {
	size_t off;
	uint64_t id;
	int64_t mono_ns, real_ns;
	uint32_t zlen, rlen;
	bool key;
	bool stored;  /* version 4: the bytes themselves, no zstd */
	bool bad;     /* CRC mismatch */
	bool unknown; /* neither a key nor a delta frame */
	/* frames are missing right before it (a damaged header skipped, a
	 * frame number skipped): nothing decodes until the next key frame */
	bool gap;
	bool dropped; /* the writer dropped samples right before it (a full queue) */
	uint64_t num; /* its frame number: the header's, or the one expected there (CRC failed) */
};

struct recreader {
	int dirfd; /* -1: a single file */
	char *file;
	struct seg_ent *segs;
	size_t nsegs;
	size_t cur; /* segment loaded (nsegs: none) */
	/* its file, read through a window (recreader_seg_at): memory in
	 * proportion to the biggest frame, not to the segment (a sparse 256 MiB
	 * file of a few KB on disk was read whole) */
	int fd; /* -1: none loaded */
	size_t size;
	unsigned char *win;
	size_t win_off, win_len, win_cap;
	uint32_t version, interval_ms, keep_every;
	uint64_t run_id;
	char host[64], mode[16], boot_id[40];
	struct fidx *fr;
	size_t nfr, fr_cap;
	size_t pos;	    /* next frame to decode */
	size_t emit_from;   /* frames before this are decoded, not returned (seek) */
	bool need_key;	    /* the chain is broken: skip to a key frame */
	bool have_prev;	    /* prev holds the payload of frame pos - 1 */
	bool discontinuity; /* the next returned frame starts a new run */
	uint64_t last_run;
	bool any_returned;
	bool done;	     /* past the last frame */
	struct strbuf pb[2]; /* payloads: pb[which] the last decoded */
	unsigned which;
	unsigned char *zbuf; /* a delta frame's difference, decompressed */
	size_t zcap;
	ZSTD_DCtx *dctx;
	struct strbuf probs;
	struct strbuf taken; /* what recreader_take_problems() returned last */
	uint64_t nprobs;
	/* bytes resync() may still check a candidate frame's CRC over, this
	 * segment: a file of false frame magics costs linear time, not square */
	uint64_t resync_budget;
};

/* Finds the next frame after damage at or after off: a plausible header
 * whose CRC holds (a magic inside a payload is not taken for a frame);
 * once the segment's budget of checked bytes is spent, a plausible one. */
size_t recreader_resync(struct recreader *r, size_t off);

/* Opens segment i and indexes its frames; false when it is unusable
 * (described as a problem). */
bool recreader_seg_load(struct recreader *r, size_t i);

/*
 * The loaded segment's bytes [off, off + len) (within r->size): a pointer
 * into the window, valid until the next call. What cannot be read (the
 * file shrank, a read error) reads as zeros: damage the frame checks
 * report. NULL only when out of memory for a frame that big.
 */
const unsigned char *recreader_seg_at(struct recreader *r, size_t off, size_t len);

/* Decodes frame f (against the previous payload for a delta frame) into
 * the other buffer. 0, -EBADMSG or -ENOMEM. */
int recreader_decode(struct recreader *r, const struct fidx *f);

#endif
