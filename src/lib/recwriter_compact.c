// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recwriter_compact: the segments after they are written: sealed (stored
 * frames compressed) and, past an age, compacted (one sample in N kept),
 * each rewritten into "NAME.tmp" and renamed over its original under the
 * writer's lock, at a bounded share of a CPU.
 *
 * One of the flight recorder's files (doc/map.md, src/lib): rec_crc.c the
 * checksum, rec_segment.c the segments' names and listing, recwriter.c
 * writes, recwriter_thread.c the writer's thread, recwriter_compact.c
 * seals and compacts, recreader.c reads; rec_file_int.h is what they
 * share, rec_file.h the interface (doc/recording.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "grow.h"
#include "rec_file_int.h"
#include "treewrite.h"

/* ---- compaction ---- */

/* A reader of the one segment name in dirfd. */
static int reader_at(int dirfd, const char *name, struct recreader **ret)
{
	struct recreader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	r->dctx = ZSTD_createDCtx();
	r->segs = calloc(1, sizeof(*r->segs));
	if (r->dirfd < 0 || !r->dctx || !r->segs) {
		recreader_close(r);
		return -ENOMEM;
	}
	snprintf(r->segs[0].name, sizeof(r->segs[0].name), "%s", name);
	rec_segment_name_ok(r->segs[0].name, &r->segs[0].start_ms);
	r->nsegs = 1;
	r->cur = 1;
	r->discontinuity = true;
	*ret = r;
	return 0;
}

/* Sleeps so that this thread's CPU since *mark stays under duty_pct of
 * the time (checked every 20 ms of CPU). */
static void pace(unsigned duty_pct, int64_t *mark)
{
	int64_t used = clock_thread_cpu_ns() - *mark, ns;
	struct timespec ts;

	if (!duty_pct || duty_pct >= 100 || used < 20000000)
		return;
	ns = used * (100 - (int64_t)duty_pct) / (int64_t)duty_pct;
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	*mark = clock_thread_cpu_ns();
}

/* The segment name of w's directory, if it is one to rewrite: its header
 * in h and its identity in *before; seal: one that may hold stored frames,
 * else one that keeps every sample. 1 yes, 0 leave it (a stranger, damaged,
 * done, gone, or no room for its copy above the free-space floor: the
 * copy exists beside it until the rename), -errno. */
static int seg_claim(struct recwriter *w, const char *name, bool seal,
		     unsigned char h[REC_FILE_HDR_SIZE], struct stat *before)
{
	int fd = treewrite_open_regular(w->dirfd, name, O_RDONLY | O_NOFOLLOW, before);
	bool ok;

	if (fd < 0)
		return fd == -ENOENT || fd == -EXDEV || fd == -ELOOP ? 0 : fd;
	ok = pread(fd, h, REC_FILE_HDR_SIZE, 0) == (ssize_t)REC_FILE_HDR_SIZE &&
	     memcmp(h, seg_magic, 8) == 0 && get32(h + H_CRC) == rec_crc32c(0, h, H_CRC) &&
	     get32(h + 8) >= 1 && get32(h + 8) <= REC_FILE_VERSION &&
	     (get32(h + 8) < 2 || get32(h + H_KEEP) <= 1) &&
	     (!seal || (get32(h + 8) >= 4 && (get32(h + H_FLAGS) & H_STORED)));
	if (ok && w->o.min_free) {
		struct statvfs sv;

		if (fstatvfs(w->dirfd, &sv) == 0 &&
		    (uint64_t)sv.f_bavail * sv.f_frsize < w->o.min_free + (uint64_t)before->st_size)
			ok = false;
	}
	close(fd);
	return ok;
}

/* Creates NAME.tmp (O_EXCL; a crashed rewrite's is removed first) into tmp. */
static int tmp_open(struct recwriter *w, const char *name, char *tmp)
{
	int tfd = -1;

	snprintf(tmp, SEG_NAME_LEN + sizeof(TMP_SUFFIX), "%s%s", name, TMP_SUFFIX);
	for (int tries = 0; tries < 2; tries++) {
		tfd = openat(w->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			     0600);
		if (tfd >= 0 || errno != EEXIST)
			break;
		unlinkat(w->dirfd, tmp, 0); /* a crashed rewrite's */
	}
	return tfd < 0 ? -errno : tfd;
}

/* Ends a rewrite: e > 0 makes tmp durable and renames it over name,
 * unless name is no longer the file claimed (*before) or has become the
 * segment being written; else tmp goes. Closes tfd. Replaced, it adds one
 * segment, frames in and kept, *before's size and bytes to *st. 1
 * replaced, 0 not, -errno. */
static int seg_replace(struct recwriter *w, const char *name, const char *tmp, int tfd,
		       const struct stat *before, int e, uint64_t in, uint64_t kept, uint64_t bytes,
		       struct recwriter_compact_stats *st)
{
	struct stat now;

	if (e > 0 && fdatasync(tfd) < 0)
		e = -errno;
	close(tfd);
	if (e <= 0) {
		unlinkat(w->dirfd, tmp, 0);
		return e;
	}
	/* the new one is durable: it replaces the old unless retention has
	 * removed that meanwhile (then it goes too) */
	pthread_mutex_lock(&w->lock);
	/* nor if it became the segment being written: a new run's first
	 * segment exists a moment before st.segment names it, which the
	 * listing may have caught (its frames, if any, came after) */
	if (strcmp(name, w->st.segment) != 0 &&
	    fstatat(w->dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
	    now.st_dev == before->st_dev && now.st_ino == before->st_ino) {
		if (renameat(w->dirfd, tmp, w->dirfd, name) < 0)
			e = -errno;
	} else {
		e = 0;
	}
	pthread_mutex_unlock(&w->lock);
	if (e <= 0) {
		unlinkat(w->dirfd, tmp, 0);
		return e;
	}
	fsync(w->dirfd); /* the rename itself durable: else the old one comes back, whole */
	st->segments++;
	st->frames_in += in;
	st->frames_kept += kept;
	st->bytes_before += (uint64_t)before->st_size;
	st->bytes_after += bytes;
	return 1;
}

/* Rewrites segment name keeping one sample in keep_every (doc/recording.md,
 * "Compaction"), every frame compressed. 1 done, 0 nothing to do (already
 * compacted, unreadable, removed meanwhile), -errno. */
static int compact_one(struct recwriter *w, const char *name, unsigned keep_every,
		       unsigned duty_pct, const int *cancel, struct recwriter_compact_stats *st)
{
	unsigned char h[REC_FILE_HDR_SIZE], hh[REC_FILE_HDR_BYTES];
	char tmp[SEG_NAME_LEN + sizeof(TMP_SUFFIX)];
	struct recwriter *t = NULL;
	struct recreader *rd = NULL;
	struct recframe f;
	struct stat before;
	int64_t last_kept = 0, step_ns, mark = clock_thread_cpu_ns(), cpu0 = mark;
	uint64_t in = 0, bytes;
	int tfd = -1, e;

	e = seg_claim(w, name, false, h, &before);
	if (e <= 0)
		return e;
	e = reader_at(w->dirfd, name, &rd);
	t = calloc(1, sizeof(*t));
	if (e < 0 || !t || !(t->cctx = ZSTD_createCCtx())) {
		e = e < 0 ? e : -ENOMEM;
		goto out;
	}
	t->o = w->o;
	t->o.store = false; /* every frame compressed */
	t->o.interval_ms = get32(h + 16);
	t->o.run_id = get64(h + 24);
	get_str(t->boot_id, h + 40, 40);
	get_str(t->host, h + 80, 64);
	get_str(t->mode, h + 144, 16);
	ZSTD_CCtx_setParameter(t->cctx, ZSTD_c_compressionLevel, t->o.level);
	/* a kept sample every keep_every intervals, give or take half of one */
	step_ns = rec_file_keep_step_ns(keep_every, t->o.interval_ms);
	tfd = tmp_open(w, name, tmp);
	if (tfd < 0) {
		e = tfd;
		goto out;
	}
	recwriter_seg_header(t, (int64_t)get64(h + 32), keep_every, h);
	bytes = recwriter_seg_header_bytes(h, hh);
	e = treewrite_write_all(tfd, hh, bytes);
	while (e >= 0 && (e = recreader_next(rd, &f)) > 0) {
		size_t z;
		bool key, stored;

		in++;
		pace(duty_pct, &mark);
		if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) {
			e = -ECANCELED;
			break;
		}
		if (!rec_file_keep(f.real_ns, last_kept, f.new_run, step_ns))
			continue;
		last_kept = f.real_ns;
		key = t->seg_frames % t->o.key_every == 0;
		e = recwriter_compress(t, f.payload, f.len, key, &z, &stored);
		if (e < 0)
			break;
		recwriter_frame_header(t, key, stored, false, z, f.len, f.id, f.mono_ns, f.real_ns);
		e = treewrite_write_all(tfd, t->out, REC_FILE_FRAME_HDR + z);
		if (e < 0)
			break;
		bytes += REC_FILE_FRAME_HDR + z;
		t->seg_frames++;
		if (grow((void **)&t->prev, &t->prev_cap, f.len ? f.len : 1, 1) < 0) {
			e = -ENOMEM;
			break;
		}
		memcpy(t->prev, f.payload, f.len);
		t->prev_len = f.len;
	}
	/* nothing readable in it: left for the reader to describe */
	if (e >= 0)
		e = t->seg_frames ? 1 : 0;
	e = seg_replace(w, name, tmp, tfd, &before, e, in, t->seg_frames, bytes, st);
out:
	st->cpu_ns += clock_thread_cpu_ns() - cpu0;
	recreader_close(rd);
	if (t) {
		ZSTD_freeCCtx(t->cctx);
		sb_free(&t->diff);
		free(t->prev);
		free(t->out);
		free(t);
	}
	return e;
}

/* Seals segment name ("Sealing"): each stored frame's bytes compressed as
 * they are (a stored delta frame is already the difference: nothing to
 * decode or re-encode), every other frame copied, header and frame
 * headers the same but for the stored flags, lengths and CRCs. A segment
 * with a damaged frame is left as it is (the reader reports it). 1 done,
 * 0 nothing to do, -errno. */
static int seal_one(struct recwriter *w, const char *name, unsigned duty_pct, const int *cancel,
		    struct recwriter_compact_stats *st)
{
	unsigned char h[REC_FILE_HDR_SIZE], hh[REC_FILE_HDR_BYTES];
	char tmp[SEG_NAME_LEN + sizeof(TMP_SUFFIX)];
	struct recreader *rd = NULL;
	ZSTD_CCtx *cctx = NULL;
	unsigned char *out = NULL;
	size_t out_cap = 0;
	struct stat before;
	int64_t mark = clock_thread_cpu_ns(), cpu0 = mark;
	uint64_t bytes;
	int tfd = -1, e;

	e = seg_claim(w, name, true, h, &before);
	if (e <= 0)
		return e;
	e = reader_at(w->dirfd, name, &rd);
	if (e < 0 || !(cctx = ZSTD_createCCtx())) {
		e = e < 0 ? e : -ENOMEM;
		goto out;
	}
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, w->o.level);
	e = 0;
	if (!recreader_seg_load(rd, 0) || !rd->nfr || rd->size != (size_t)before.st_size ||
	    !recreader_seg_at(rd, 0, sizeof(h)) ||
	    memcmp(recreader_seg_at(rd, 0, sizeof(h)), h, sizeof(h)) != 0)
		goto out; /* unreadable, empty or changed: the reader will say */
	for (size_t i = 0; i < rd->nfr; i++)
		if (rd->fr[i].bad || rd->fr[i].unknown)
			goto out;
	if (recreader_take_problems(rd, NULL))
		goto out; /* a torn tail or a resync: left whole for the reader */
	tfd = tmp_open(w, name, tmp);
	if (tfd < 0) {
		e = tfd;
		goto out;
	}
	put32(h + H_FLAGS, get32(h + H_FLAGS) & ~H_STORED);
	put32(h + H_CRC, rec_crc32c(0, h, H_CRC));
	/* the frames after the header as the segment had it (its copy too) */
	bytes = recwriter_seg_header_bytes(h, hh);
	e = treewrite_write_all(tfd, hh, bytes);
	for (size_t i = 0; e >= 0 && i < rd->nfr; i++) {
		const struct fidx *f = &rd->fr[i];
		const unsigned char *fh =
		    recreader_seg_at(rd, f->off, REC_FILE_FRAME_HDR + f->zlen);
		size_t z = f->zlen;

		if (!fh) {
			e = -ENOMEM;
			break;
		}
		pace(duty_pct, &mark);
		if (cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED)) {
			e = -ECANCELED;
			break;
		}
		if (grow((void **)&out, &out_cap, REC_FILE_FRAME_HDR + ZSTD_compressBound(z), 1) <
		    0) {
			e = -ENOMEM;
			break;
		}
		memcpy(out, fh, REC_FILE_FRAME_HDR);
		if (f->stored) {
			ZSTD_CCtx_reset(cctx, ZSTD_reset_session_only);
			z = ZSTD_compress2(cctx, out + REC_FILE_FRAME_HDR,
					   out_cap - REC_FILE_FRAME_HDR, fh + REC_FILE_FRAME_HDR,
					   f->zlen);
			if (ZSTD_isError(z)) {
				e = -ENOMEM;
				break;
			}
			put32(out + 4, get32(fh + 4) & ~FRAME_STORED);
			put32(out + 8, (uint32_t)z);
		} else {
			memcpy(out + REC_FILE_FRAME_HDR, fh + REC_FILE_FRAME_HDR, z);
		}
		put32(out + F_CRC,
		      rec_crc32c(rec_crc32c(0, out, F_CRC), out + REC_FILE_FRAME_HDR, z));
		e = treewrite_write_all(tfd, out, REC_FILE_FRAME_HDR + z);
		bytes += REC_FILE_FRAME_HDR + z;
	}
	e = seg_replace(w, name, tmp, tfd, &before, e < 0 ? e : 1, rd->nfr, rd->nfr, bytes, st);
out:
	st->cpu_ns += clock_thread_cpu_ns() - cpu0;
	recreader_close(rd);
	ZSTD_freeCCtx(cctx);
	free(out);
	return e;
}

/* compact_one() over the segments but the current one: those whose data
 * are all older than older_than_s before now_real (older_than_s < 0: all) */
static int rewrite_segments(struct recwriter *w, int64_t now_real, int64_t older_than_s,
			    unsigned keep_every, unsigned duty_pct, const int *cancel,
			    struct recwriter_compact_stats *st)
{
	struct seg_ent *v = NULL;
	int n, done = 0, e = 0;

	n = rec_segment_list(w->dirfd, &v);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		bool current;

		/* segment i's data end where i + 1 starts: all older than the age */
		if (older_than_s >= 0 &&
		    (i + 1 == n || (int64_t)v[i + 1].start_ms * 1000000 >=
				       now_real - older_than_s * INT64_C(1000000000)))
			break;
		pthread_mutex_lock(&w->lock);
		current = strcmp(v[i].name, w->st.segment) == 0;
		pthread_mutex_unlock(&w->lock);
		if (current)
			continue;
		e = keep_every > 1 ? compact_one(w, v[i].name, keep_every, duty_pct, cancel, st)
				   : seal_one(w, v[i].name, duty_pct, cancel, st);
		if (e < 0)
			break;
		done += e;
	}
	free(v);
	return e < 0 ? e : done;
}

int recwriter_compact(struct recwriter *w, int64_t now_real, int64_t older_than_s,
		      unsigned keep_every, unsigned duty_pct, const int *cancel,
		      struct recwriter_compact_stats *st)
{
	if (keep_every < 2)
		return 0;
	return rewrite_segments(w, now_real, older_than_s < 0 ? 0 : older_than_s, keep_every,
				duty_pct, cancel, st);
}

int recwriter_seal(struct recwriter *w, unsigned duty_pct, const int *cancel,
		   struct recwriter_compact_stats *st)
{
	return rewrite_segments(w, 0, -1, 1, duty_pct, cancel, st);
}
