/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rec_file: the flight recorder's segment files (doc/recording.md). A
 * segment is a 256-byte header (magic, format version, host, boot id, run
 * id, interval) followed by frames, one per sample: a 52-byte header (sample
 * id, times, lengths, CRC32C) and a zstd payload, a key frame (the payload
 * itself) every key_every frames and delta frames (its rec_diff from the
 * previous payload) between. The payload is opaque here: collect packs and
 * unpacks it. The writer appends, rotates and deletes segments through one
 * directory fd; the reader treats every byte as hostile. Never prints.
 */
#ifndef IOTRIAGE_REC_FILE_H
#define IOTRIAGE_REC_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The format this code writes; the reader reads every version up to it.
 * 2: the header's keep_every (compaction); 3: the payload holds the
 * optional sections, their cadence and the topology too
 * (collect/rec_payload.c); frames unchanged; 4: a frame may be stored
 * uncompressed (a live segment, the header says so), sealed later; 5: the
 * header twice (a flipped byte in one costs nothing), a frame flag for
 * samples the writer's queue dropped before it; 6: the payload holds the
 * tracing stage's read (--trace, trace/rec_trace.c); frames unchanged. */
#define REC_FILE_VERSION  6
#define REC_FILE_HDR_SIZE 256
/* What precedes the frames in a segment of this version: the header and
 * its copy (versions 1-4: the header alone) */
#define REC_FILE_HDR_BYTES (2 * REC_FILE_HDR_SIZE)
#define REC_FILE_FRAME_HDR 52
/* A frame's payload, uncompressed: a big-256 host's sources are ~7 MB. */
#define REC_FILE_RAW_MAX ((size_t)192 << 20)
/* A segment the reader loads whole: the writer's segments are <= 16 MiB. */
#define REC_FILE_SEG_MAX ((size_t)256 << 20)
/* Frames between key frames unless told: a minute at 1 Hz. */
#define REC_FILE_KEY_EVERY 60
/* With recwriter_opts.store, a frame up to this size (its difference, or a
 * key frame's payload) goes out uncompressed; a larger one is compressed
 * at once (its zstd is not a cold start's cost, and the live segment stays
 * small on a big host). */
#define REC_FILE_STORE_MAX ((size_t)16 << 10)

/* CRC32C (Castagnoli, reflected polynomial 0x82F63B78), seeded with crc
 * (0 to start); the usual pre/post inversion is inside. */
uint32_t rec_crc32c(uint32_t crc, const void *buf, size_t len);

struct recwriter_opts {
	int dirfd;	      /* the record directory (duplicated; the caller keeps its own) */
	uint32_t interval_ms; /* written in each header */
	uint64_t max_bytes;   /* all segments together; 0: 256 MiB */
	int64_t max_age_s;    /* segments whose data are all older are removed; 0: no limit */
	uint64_t min_free;    /* stop recording under this many free bytes; 0: no floor */
	unsigned key_every;   /* 0: REC_FILE_KEY_EVERY */
	int level;	      /* zstd level; 0: 1 */
	const char *host;
	const char *mode;
	const char *boot_id; /* /proc/sys/kernel/random/boot_id's text; NULL: none */
	uint64_t run_id;     /* tells one daemon run's segments from the next's */
	/* frames of up to REC_FILE_STORE_MAX stored uncompressed: no zstd on
	 * the sampling path; recwriter_seal() compresses the segment once it
	 * is closed (doc/recording.md, "Sealing") */
	bool store;
	unsigned queue_max; /* recwriter_start_thread()'s queue; 0: REC_FILE_QUEUE_MAX */
};

/* The queue of an async writer: a minute at 1 Hz of a disk that does not
 * take a write, at most this many bytes of payloads (a big host's are MBs;
 * one frame always fits). */
#define REC_FILE_QUEUE_MAX   64
#define REC_FILE_QUEUE_BYTES ((size_t)64 << 20)

struct recwriter_stats {
	bool recording;	    /* false: stopped, reason says why */
	char reason[256];   /* why recording stopped ("" while recording) */
	uint64_t frames;    /* written by this writer */
	uint64_t bytes;	    /* of all segments in the directory, as last counted */
	uint64_t raw_bytes; /* payload bytes before compression, this writer */
	uint64_t segments;  /* in the directory */
	uint64_t removed;   /* segments removed by retention, this writer */
	uint64_t fsyncs;
	uint64_t stored;  /* frames written uncompressed, this writer */
	char segment[64]; /* the current segment's name, "" when none */
	/* async: frames waiting for the thread, the most that ever waited,
	 * the queue's size, frames dropped because it was full, the longest
	 * the thread took to write one (its write, fsync, rotation), the
	 * thread's CPU time writing them */
	uint32_t queued, queue_peak, queue_max;
	uint64_t dropped;
	int64_t write_max_ns;
	int64_t write_cpu_ns;
	int last_err; /* the thread's last append failure (-errno), 0 none */
};

struct recwriter;

/*
 * Prepares a writer on o->dirfd: takes an exclusive flock on it (-EBUSY:
 * another writer records there), applies retention, opens no segment yet
 * (the first append does). 0 or -errno; *ret_w written only on success.
 */
int recwriter_open(const struct recwriter_opts *o, struct recwriter **ret_w);

/*
 * Starts w's own thread: from then on appends are queued to it, and it
 * writes, fsyncs, rotates and removes, so that recwriter_append() never
 * waits on the disk; a frame that finds the queue full (o.queue_max
 * frames, or REC_FILE_QUEUE_BYTES of payloads) is dropped and counted, and
 * the next frame written says so (doc/recording.md, "Never waits on the
 * disk"). Start it after any fork (a thread does not survive one). 0 or
 * -errno (appends stay synchronous).
 */
int recwriter_start_thread(struct recwriter *w);

/*
 * Appends one frame: payload (len bytes, <= REC_FILE_RAW_MAX) of the sample
 * id taken at mono_ns/real_ns. One write() per frame (a kill -9 loses at
 * most the frame being written); fsync at most every 10 s of mono_ns and
 * at each segment close. Returns 1 written, 0 not written because
 * recording is stopped (free-space floor, a full disk: stats say why, and
 * it resumes by itself when space comes back), or -errno the first time a
 * failure stops it (the caller logs that once). With the thread: 1 queued
 * (the thread writes it; its failures are in the stats), 0 dropped (the
 * queue full: counted), never waiting on the thread's I/O.
 */
int recwriter_append(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
		     const void *payload, size_t len);

/* recwriter_append() of payload's bytes; when written (1), payload's buffer
 * is kept as the previous payload and payload gets another (reset), so
 * the bytes are not copied. */
struct strbuf;
int recwriter_append_take(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
			  struct strbuf *payload);

/* A copy of w's counts; with the thread, as it last published them
 * (never waits on its I/O). */
void recwriter_stats(struct recwriter *w, struct recwriter_stats *ret);

/* fsyncs and closes the segment, frees; accepts NULL. */
void recwriter_close(struct recwriter *w);

struct recwriter_compact_stats {
	uint64_t segments;     /* rewritten */
	uint64_t frames_in;    /* read from them */
	uint64_t frames_kept;  /* written to their replacements */
	uint64_t bytes_before; /* their sizes before */
	uint64_t bytes_after;  /* and after */
	int64_t cpu_ns;	       /* this thread's CPU time spent */
};

/*
 * Compaction (doc/recording.md): rewrites each segment of w's directory
 * whose data are all older than older_than_s before now_real and that keeps
 * every sample, keeping one sample in keep_every (the first of each run,
 * then one every keep_every intervals): the new segment is written as
 * NAME.tmp (O_EXCL), fdatasynced and renamed over NAME, so a crash at any
 * point leaves the old segment or the new one, whole. Never touches the
 * segment being written. Meant for a thread other than the one appending
 * (the only state they share is locked); it sleeps so that its CPU time
 * stays under duty_pct (0: no pacing) of the time it takes, and gives up
 * (-ECANCELED, the old segment kept) when *cancel (may be NULL) becomes
 * nonzero. Adds to *st; returns the number of segments rewritten or -errno.
 */
int recwriter_compact(struct recwriter *w, int64_t now_real, int64_t older_than_s,
		      unsigned keep_every, unsigned duty_pct, const int *cancel,
		      struct recwriter_compact_stats *st);

/*
 * Compaction's rule, pure (doc/recording.md, "Compaction"): a sample is
 * kept when it is the first of its run or taken at least step_ns after the
 * last one kept, step_ns being keep_every intervals less half of one
 * (rec_file_keep_step_ns). Shared with iotriage report, whose columns of a
 * long window are cut by the same rule (doc/report.md).
 */
static inline int64_t rec_file_keep_step_ns(unsigned keep_every, uint32_t interval_ms)
{
	return ((int64_t)keep_every * 2 - 1) * interval_ms * INT64_C(500000);
}

static inline bool rec_file_keep(int64_t real_ns, int64_t last_kept_ns, bool new_run,
				 int64_t step_ns)
{
	return new_run || real_ns - last_kept_ns >= step_ns;
}

/*
 * Sealing (doc/recording.md): rewrites each closed segment of w's directory
 * whose header says it may hold uncompressed frames (recwriter_opts.store)
 * with every frame compressed, every sample kept; crash-safe, paced and
 * cancelled as compaction is, never the segment being written. Adds to *st;
 * returns the number of segments sealed or -errno.
 */
int recwriter_seal(struct recwriter *w, unsigned duty_pct, const int *cancel,
		   struct recwriter_compact_stats *st);

/* One frame as the reader returns it. */
struct recframe {
	uint64_t id;
	int64_t mono_ns;
	int64_t real_ns;
	bool key;
	bool new_run;	     /* first frame of a run (daemon start) or after lost frames */
	const void *payload; /* valid until the next recreader call */
	size_t len;
	/* the segment's header */
	uint32_t version;
	uint32_t interval_ms; /* the sampling interval */
	uint32_t keep_every;  /* 1, or compacted: one sample in N of the run kept */
	uint64_t run_id;
	char host[64];
	char mode[16];
	char boot_id[40];
	const char *segment; /* its file name */
};

struct recreader;

/*
 * Opens path: a record directory (every segment in it, oldest first) or
 * one segment file. 0 or -errno with why set; *ret_r only on success.
 */
int recreader_open(const char *path, struct recreader **ret_r, char *why, size_t why_size);
/* The record directory dirfd (a descriptor of its own: dirfd stays the
 * caller's), named shown in why; as recreader_open(). */
int recreader_open_dir(int dirfd, const char *shown, struct recreader **ret_r, char *why,
		       size_t why_size);
void recreader_close(struct recreader *r);

/*
 * The next good frame in *ret: 1, 0 at the end, -errno (-ENOMEM). A torn
 * tail, a corrupt frame (CRC), the frames that depended on it up to the
 * next key frame, a segment that cannot be read: skipped, counted and
 * described (recreader_problem), never fatal.
 */
int recreader_next(struct recreader *r, struct recframe *ret);

/* recreader_seek() flags */
#define RECREADER_WITH_PREV 0x1u /* return the frame before the target first */
#define RECREADER_BEFORE    0x2u /* the target: the last frame before real_ns */

/*
 * Positions the reader so that recreader_next() returns the target: the
 * first frame taken at or after real_ns (or with RECREADER_BEFORE the last
 * one before it), decoding from the key frame before it; with
 * RECREADER_WITH_PREV the frame before the target (same segment) comes
 * first, so a consumer computing rates has both. Returns 1 with the
 * target's time in *ret_real (may be NULL), 0 when there is none (the
 * reader is then at the end), or -errno.
 */
int recreader_seek(struct recreader *r, int64_t real_ns, unsigned flags, int64_t *ret_real);

/* The time of the first and last frames of the recording (reads the first
 * and last segments; rewinds the reader). 1, or 0 when it has none. */
int recreader_span(struct recreader *r, int64_t *ret_first, int64_t *ret_last);

/* Problems met since the last call, one line each ("SEGMENT: what"), or
 * NULL when none; valid until the next recreader call. total (may be NULL)
 * gets the count of problems since open. */
const char *recreader_take_problems(struct recreader *r, uint64_t *ret_total);

/* Number of segment files found. */
size_t recreader_segments(const struct recreader *r);

#endif
