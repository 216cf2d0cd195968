// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recwriter: the flight recorder's segment writer: open, append (a key
 * frame or the difference from the last, compressed or stored), rotate,
 * retention, the free-space floor, a bounded fsync cadence, stats. Never
 * prints; a failure stops the recording with a reason and is retried.
 *
 * One of the flight recorder's files (doc/map.md, src/lib): rec_crc.c the
 * checksum, rec_segment.c the segments' names and listing, recwriter.c
 * writes, recwriter_thread.c the writer's thread, recwriter_compact.c
 * seals and compacts, recreader.c reads; rec_file_int.h is what they
 * share, rec_file.h the interface (doc/recording.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "grow.h"
#include "rec_diff.h"
#include "rec_file_int.h"
#include "treewrite.h"

static void fmt_bytes(char *buf, size_t size, uint64_t b)
{
	if (b >= (UINT64_C(1) << 30))
		snprintf(buf, size, "%.1f GiB", (double)b / (double)(UINT64_C(1) << 30));
	else
		snprintf(buf, size, "%.1f MiB", (double)b / (double)(UINT64_C(1) << 20));
}

/* Retention: the oldest segments go while the directory (with room for one
 * more full segment, or need bytes if more) exceeds max_bytes, or while everything in them is
 * older than max_age; never the segment being written. */
static void retention(struct recwriter *w, int64_t now_real, uint64_t need)
{
	struct seg_ent *v = NULL;
	uint64_t total = 0;
	size_t keep_from = 0;
	int n;

	n = rec_segment_list(w->dirfd, &v);
	if (n < 0)
		return;
	for (int i = 0; i < n; i++)
		total += v[i].size;
	for (int i = 0; i + 1 < n; i++) {
		bool too_big = total + (need > w->seg_max ? need : w->seg_max) > w->o.max_bytes;
		/* segment i ends where i + 1 starts */
		bool too_old =
		    w->o.max_age_s > 0 && (int64_t)v[i + 1].start_ms * 1000000 <
					      now_real - w->o.max_age_s * INT64_C(1000000000);

		if (!too_big && !too_old)
			break;
		if (w->st.segment[0] && strcmp(v[i].name, w->st.segment) == 0)
			break;
		pthread_mutex_lock(&w->lock);
		if (unlinkat(w->dirfd, v[i].name, 0) == 0) {
			total -= v[i].size;
			w->st.removed++;
		}
		pthread_mutex_unlock(&w->lock);
		keep_from = (size_t)i + 1;
	}
	/* the newest alone may still be too big only if max_bytes < a segment */
	w->st.bytes = total;
	w->st.segments = (uint64_t)n - keep_from;
	free(v);
}

static void seg_close(struct recwriter *w)
{
	if (w->fd < 0)
		return;
	if (fdatasync(w->fd) == 0)
		w->st.fsyncs++;
	close(w->fd);
	w->fd = -1;
	pthread_mutex_lock(&w->lock);
	w->st.segment[0] = '\0';
	pthread_mutex_unlock(&w->lock);
}

static void stop(struct recwriter *w, int64_t mono, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void stop(struct recwriter *w, int64_t mono, const char *fmt, ...)
{
	va_list ap;

	seg_close(w);
	w->stopped = true;
	w->st.recording = false;
	va_start(ap, fmt);
	vsnprintf(w->st.reason, sizeof(w->st.reason), fmt, ap);
	va_end(ap);
	w->retry_mono = mono + RETRY_NS;
}

/* 1 enough free space, 0 under the floor (stopped, reason set). */
static int check_floor(struct recwriter *w, int64_t mono, uint64_t need)
{
	struct statvfs sv;
	char fb[32], lb[32];
	uint64_t avail;

	if (fstatvfs(w->dirfd, &sv) < 0)
		return 1; /* cannot tell: the writes will */
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (avail >= need)
		return 1;
	fmt_bytes(fb, sizeof(fb), avail);
	fmt_bytes(lb, sizeof(lb), w->o.min_free);
	stop(w, mono,
	     "stopped: %s free on the record filesystem, under the floor of %s "
	     "(--record-min-free); resumes when space is freed",
	     fb, lb);
	return 0;
}

/* A segment's header in h: w's options, created at real, keep_every. */
void recwriter_seg_header(const struct recwriter *w, int64_t real, uint32_t keep_every,
			  unsigned char h[REC_FILE_HDR_SIZE])
{
	memset(h, 0, REC_FILE_HDR_SIZE);
	memcpy(h, seg_magic, 8);
	put32(h + 8, REC_FILE_VERSION);
	put32(h + 12, REC_FILE_HDR_BYTES);
	put32(h + 16, w->o.interval_ms);
	put32(h + 20, w->o.key_every);
	put64(h + 24, w->o.run_id);
	put64(h + 32, (uint64_t)real);
	put_str(h + 40, 40, w->boot_id);
	put_str(h + 80, 64, w->host);
	put_str(h + 144, 16, w->mode);
	put32(h + H_KEEP, keep_every);
	put32(h + H_FLAGS, w->o.store ? H_STORED : 0);
	put32(h + H_CRC, rec_crc32c(0, h, H_CRC));
}

/* h as a segment of its version starts: from version 5 twice (one flipped
 * byte in the header costs nothing: the reader takes the copy); into
 * ret_hdr, returns the length. */
size_t recwriter_seg_header_bytes(const unsigned char h[REC_FILE_HDR_SIZE],
				  unsigned char ret_hdr[REC_FILE_HDR_BYTES])
{
	memcpy(ret_hdr, h, REC_FILE_HDR_SIZE);
	if (get32(h + 8) < 5)
		return REC_FILE_HDR_SIZE;
	memcpy(ret_hdr + REC_FILE_HDR_SIZE, h, REC_FILE_HDR_SIZE);
	return 2 * REC_FILE_HDR_SIZE;
}

static int seg_open(struct recwriter *w, int64_t mono, int64_t real, uint64_t first_frame)
{
	unsigned char h[REC_FILE_HDR_SIZE] = { 0 }, hh[REC_FILE_HDR_BYTES];
	size_t hlen;
	uint64_t ms = real > 0 ? (uint64_t)real / 1000000 : 0;
	char name[SEG_NAME_LEN + 1];
	ssize_t n;
	int fd = -1;

	retention(w, real, REC_FILE_HDR_BYTES + first_frame);
	if (w->o.min_free && !check_floor(w, mono, w->o.min_free))
		return 0;
	/* a name taken (a restart within the same ms): the next ms */
	for (int tries = 0; tries < 16; tries++, ms++) {
		snprintf(name, sizeof(name), "%013" PRIu64 "-%016" PRIx64 ".iotr",
			 ms % UINT64_C(10000000000000), w->o.run_id);
		fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = -errno;

		stop(w, mono, "stopped: create segment %s: %s", name, strerror(-e));
		return e;
	}
	recwriter_seg_header(w, real, 1, h);
	hlen = recwriter_seg_header_bytes(h, hh);
	n = write(fd, hh, hlen);
	if (n != (ssize_t)hlen) {
		int e = n < 0 ? -errno : -ENOSPC;

		close(fd);
		unlinkat(w->dirfd, name, 0);
		stop(w, mono, "stopped: write segment %s: %s", name, strerror(-e));
		return e;
	}
	w->fd = fd;
	w->seg_bytes = hlen;
	w->seg_start_real = real;
	w->seg_frames = 0;
	w->st.bytes += hlen;
	w->st.segments++;
	pthread_mutex_lock(&w->lock);
	memcpy(w->st.segment, name, sizeof(name));
	pthread_mutex_unlock(&w->lock);
	return 1;
}

/* Removes what a compaction cut short left: "NAME.tmp" of a segment name
 * (its original is still there, whole: the rename never happened). */
static void remove_stale_tmp(int dirfd)
{
	struct dirent *de;
	DIR *d = rec_segment_dir(dirfd);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char seg[SEG_NAME_LEN + 1];
		struct stat st;

		if (strlen(de->d_name) != SEG_NAME_LEN + strlen(TMP_SUFFIX) ||
		    strcmp(de->d_name + SEG_NAME_LEN, TMP_SUFFIX) != 0)
			continue;
		memcpy(seg, de->d_name, SEG_NAME_LEN);
		seg[SEG_NAME_LEN] = '\0';
		if (rec_segment_name_ok(seg, NULL) &&
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(d);
}

int recwriter_open(const struct recwriter_opts *o, struct recwriter **ret_w)
{
	struct recwriter *w;
	int e;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->o = *o;
	if (!w->o.max_bytes)
		w->o.max_bytes = (uint64_t)256 << 20;
	if (!w->o.key_every)
		w->o.key_every = REC_FILE_KEY_EVERY;
	/* level 1: as small as 3 on these differences (bench_record size), and
	 * its smaller tables are cheaper to set up at each second's frame */
	if (!w->o.level)
		w->o.level = 1;
	snprintf(w->host, sizeof(w->host), "%s", o->host ? o->host : "");
	snprintf(w->mode, sizeof(w->mode), "%s", o->mode ? o->mode : "");
	snprintf(w->boot_id, sizeof(w->boot_id), "%s", o->boot_id ? o->boot_id : "");
	/* a segment is a 32nd of the budget: retention frees space in small steps */
	w->seg_max = w->o.max_bytes / 32;
	if (w->seg_max < 65536)
		w->seg_max = 65536;
	if (w->seg_max > ((uint64_t)16 << 20))
		w->seg_max = (uint64_t)16 << 20;
	w->fd = -1;
	pthread_mutex_init(&w->lock, NULL);
	w->dirfd = fcntl(o->dirfd, F_DUPFD_CLOEXEC, 3);
	if (w->dirfd < 0) {
		e = -errno;
		free(w);
		return e;
	}
	/* one writer per directory: another would delete our segments */
	if (flock(w->dirfd, LOCK_EX | LOCK_NB) < 0) {
		e = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(w->dirfd);
		free(w);
		return e;
	}
	w->cctx = ZSTD_createCCtx();
	if (w->cctx)
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->o.level);
	if (!w->cctx) {
		close(w->dirfd);
		free(w);
		return -ENOMEM;
	}
	w->st.recording = true;
	remove_stale_tmp(w->dirfd);
	retention(w, 0, 0);
	*ret_w = w;
	return 0;
}

void recwriter_close(struct recwriter *w)
{
	if (!w)
		return;
	recwriter_thread_stop(w);
	seg_close(w);
	ZSTD_freeCCtx(w->cctx);
	sb_free(&w->diff);
	close(w->dirfd);
	free(w->prev);
	free(w->out);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

void recwriter_stats(struct recwriter *w, struct recwriter_stats *ret)
{
	if (!w->thread_on) {
		*ret = w->st;
		return;
	}
	pthread_mutex_lock(&w->qlock);
	*ret = w->pub;
	pthread_mutex_unlock(&w->qlock);
}

/* The frame's payload into w->out after the header's room: zstd of the
 * payload (key) or of its difference from the previous one, or with
 * o.store those bytes themselves when small (*ret_stored). */
int recwriter_compress(struct recwriter *w, const void *payload, size_t len, bool key,
		       size_t *ret_z, bool *ret_stored)
{
	const void *src = payload;
	size_t bound, z, src_len = len;

	if (!key) {
		sb_reset(&w->diff);
		if (rec_diff_encode((const char *)w->prev, w->prev_len, payload, len, &w->diff) < 0)
			return -ENOMEM;
		src = w->diff.buf;
		src_len = w->diff.len;
	}
	*ret_stored = w->o.store && src_len <= REC_FILE_STORE_MAX;
	bound = (*ret_stored ? src_len : ZSTD_compressBound(src_len)) + REC_FILE_FRAME_HDR;
	if (grow((void **)&w->out, &w->out_cap, bound, 1) < 0)
		return -ENOMEM;
	if (*ret_stored) {
		/* at 1 Hz zstd starts cold every frame: a third of the
		 * recorder's CPU; sealing compresses the closed segment warm */
		memcpy(w->out + REC_FILE_FRAME_HDR, src, src_len);
		*ret_z = src_len;
		return 0;
	}
	/* the parameters were set once (recwriter_open): a second's frame
	 * should not pay for setting up zstd again */
	ZSTD_CCtx_reset(w->cctx, ZSTD_reset_session_only);
	z = ZSTD_compress2(w->cctx, w->out + REC_FILE_FRAME_HDR, bound - REC_FILE_FRAME_HDR, src,
			   src_len);
	if (ZSTD_isError(z))
		return -ENOMEM;
	*ret_z = z;
	return 0;
}

/* The header of the frame recwriter_compress() left in w->out. */
void recwriter_frame_header(struct recwriter *w, bool key, bool stored, bool dropped, size_t z,
			    size_t len, uint64_t id, int64_t mono_ns, int64_t real_ns)
{
	put32(w->out, FRAME_MAGIC);
	put32(w->out + 4, (key ? FRAME_KEY : FRAME_DIFF) | (stored ? FRAME_STORED : 0) |
			      (dropped ? FRAME_DROPPED : 0));
	put32(w->out + 8, (uint32_t)z);
	put32(w->out + 12, (uint32_t)len);
	put64(w->out + 16, w->seg_frames);
	put64(w->out + 24, id);
	put64(w->out + 32, (uint64_t)mono_ns);
	put64(w->out + 40, (uint64_t)real_ns);
	put32(w->out + F_CRC,
	      rec_crc32c(rec_crc32c(0, w->out, F_CRC), w->out + REC_FILE_FRAME_HDR, z));
}

int recwriter_append_now(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
			 const void *payload, size_t len, struct strbuf *take, bool dropped)
{
	size_t z;
	bool key, stored;
	int e;

	/* a sample not written (stopped, failed, dropped before the queue):
	 * the next frame written says so, and replay starts a new run there */
	dropped |= w->gap_next;
	w->gap_next = true;
	if (len > REC_FILE_RAW_MAX)
		return -EFBIG;
	if (w->stopped) {
		if (mono_ns < w->retry_mono)
			return 0;
		/* resume with room for a segment above the floor */
		if (!check_floor(w, mono_ns, w->o.min_free + w->seg_max / 4 + 65536))
			return 0;
		w->stopped = false;
		w->st.recording = true;
		w->st.reason[0] = '\0';
	}
	if (w->fd >= 0 &&
	    (real_ns - w->seg_start_real >= SEG_AGE_NS || real_ns < w->seg_start_real))
		seg_close(w);
	/* a new segment starts with a key frame */
	key = w->fd < 0 || w->seg_frames % w->o.key_every == 0;
	e = recwriter_compress(w, payload, len, key, &z, &stored);
	if (e < 0)
		return e;
	/* a frame that would take the segment past its size: in the next one */
	if (w->fd >= 0 && w->seg_frames && w->seg_bytes + REC_FILE_FRAME_HDR + z > w->seg_max) {
		seg_close(w);
		key = true;
		e = recwriter_compress(w, payload, len, key, &z, &stored);
		if (e < 0)
			return e;
	}
	if (w->fd < 0) {
		e = seg_open(w, mono_ns, real_ns, REC_FILE_FRAME_HDR + z);
		if (e <= 0)
			return e;
		w->last_fsync_mono = mono_ns;
	}
	recwriter_frame_header(w, key, stored, dropped, z, len, id, mono_ns, real_ns);
	e = treewrite_write_all(w->fd, w->out, REC_FILE_FRAME_HDR + z);
	if (e < 0) {
		char seg[sizeof(w->st.segment)];

		/* no torn frame left behind: cut back to the last whole one */
		if (ftruncate(w->fd, (off_t)w->seg_bytes) < 0) {
			/* the reader skips a torn tail anyway */
		}
		/* stop() closes the segment, which forgets its name */
		memcpy(seg, w->st.segment, sizeof(seg));
		stop(w, mono_ns, "stopped: write %s: %s", seg, strerror(-e));
		return e;
	}
	w->gap_next = false;
	w->seg_bytes += REC_FILE_FRAME_HDR + z;
	w->seg_frames++;
	w->st.frames++;
	w->st.bytes += REC_FILE_FRAME_HDR + z;
	w->st.raw_bytes += len;
	w->st.stored += stored;
	if (take) {
		/* the caller's buffer becomes the previous payload, ours its
		 * next one: 5.8 MB not copied a second on a 256-CPU host */
		unsigned char *p = w->prev;
		size_t cap = w->prev_cap;

		w->prev = (unsigned char *)take->buf;
		w->prev_cap = take->cap;
		w->prev_len = len;
		take->buf = (char *)p;
		take->cap = cap;
		take->len = 0;
	} else if (grow((void **)&w->prev, &w->prev_cap, len ? len : 1, 1) < 0) {
		w->prev_len = 0;
		w->seg_frames = 0; /* the next frame is a key frame */
		return 1;
	} else {
		memcpy(w->prev, payload, len);
		w->prev_len = len;
	}
	/* power loss loses at most FSYNC_NS; a sample never waits on the disk */
	if (mono_ns - w->last_fsync_mono >= FSYNC_NS) {
		if (fdatasync(w->fd) == 0)
			w->st.fsyncs++;
		w->last_fsync_mono = mono_ns;
		if (w->o.min_free)
			check_floor(w, mono_ns, w->o.min_free);
	}
	return 1;
}
