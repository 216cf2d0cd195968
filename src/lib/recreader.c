// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recreader: the flight recorder's segments read back, every byte hostile:
 * a torn tail, a bad CRC, a header that lies about lengths are skipped and
 * described, never trusted; frames decoded (zstd, rec_diff), seek by time,
 * the span of a recording. The payload is opaque: collect unpacks it.
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
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "rec_diff.h"
#include "rec_file_int.h"
#include "treewrite.h"
#include "root.h"

static void problem(struct recreader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void problem(struct recreader *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->nprobs++;
	/* bounded: a segment of garbage does not grow memory without end */
	if (r->probs.len < 65536) {
		sb_puts(&r->probs, line);
		sb_putc(&r->probs, '\n');
	}
}

const char *recreader_take_problems(struct recreader *r, uint64_t *ret_total)
{
	struct strbuf t = r->taken;

	if (ret_total)
		*ret_total = r->nprobs;
	/* hand out the lines gathered so far and start a new list */
	r->taken = r->probs;
	r->probs = t;
	sb_reset(&r->probs);
	return r->taken.len && !r->taken.err ? sb_cstr(&r->taken) : NULL;
}

size_t recreader_segments(const struct recreader *r)
{
	return r->nsegs;
}

/* A reader of the directory fd (taken) or, fd < 0, of the one file path. */
static int reader_new(int fd, const char *path, struct recreader **ret_r, char *why,
		      size_t why_size)
{
	struct recreader *r;
	int n;

	r = calloc(1, sizeof(*r));
	if (!r) {
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	r->fd = -1;
	r->dirfd = fd;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx) {
		recreader_close(r);
		return -ENOMEM;
	}
	if (fd >= 0) {
		n = rec_segment_list(fd, &r->segs);
		if (n < 0) {
			snprintf(why, why_size, "%s: %s", path, strerror(-n));
			recreader_close(r);
			return n;
		}
		r->nsegs = (size_t)n;
	} else {
		const char *base = strrchr(path, '/');

		r->file = strdup(path);
		r->segs = calloc(1, sizeof(*r->segs));
		if (!r->file || !r->segs) {
			recreader_close(r);
			return -ENOMEM;
		}
		snprintf(r->segs[0].name, sizeof(r->segs[0].name), "%s", base ? base + 1 : path);
		rec_segment_name_ok(r->segs[0].name, &r->segs[0].start_ms);
		r->nsegs = 1;
	}
	r->cur = r->nsegs;
	r->discontinuity = true;
	*ret_r = r;
	return 0;
}

int recreader_open_dir(int dirfd, const char *shown, struct recreader **ret_r, char *why,
		       size_t why_size)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int e = -errno;

		snprintf(why, why_size, "%s: %s", shown, strerror(-e));
		return e;
	}
	return reader_new(fd, shown, ret_r, why, why_size);
}

int recreader_open(const char *path, struct recreader **ret_r, char *why, size_t why_size)
{
	struct stat st;
	int fd;

	/* looked at before it is opened: a recording handed over may hold a
	 * FIFO or a device node (whose open is its driver's) by any name */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = -errno;

		snprintf(why, why_size, "%s: %s", path, strerror(-e));
		if (fd >= 0)
			close(fd);
		return e;
	}
	if (S_ISDIR(st.st_mode)) {
		int pfd = fd;

		fd = root_reopen(pfd, O_RDONLY | O_DIRECTORY);
		close(pfd);
		if (fd < 0) {
			snprintf(why, why_size, "%s: %s", path, strerror(-fd));
			return fd;
		}
		return reader_new(fd, path, ret_r, why, why_size);
	}
	close(fd);
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_size, "%s: neither a record directory nor a segment file", path);
		return -EINVAL;
	}
	return reader_new(-1, path, ret_r, why, why_size);
}

void recreader_close(struct recreader *r)
{
	if (!r)
		return;
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->file);
	free(r->segs);
	if (r->fd >= 0)
		close(r->fd);
	free(r->win);
	free(r->fr);
	sb_free(&r->pb[0]);
	sb_free(&r->pb[1]);
	free(r->zbuf);
	ZSTD_freeDCtx(r->dctx);
	sb_free(&r->probs);
	sb_free(&r->taken);
	free(r);
}

/* The bytes a window reads at least: a few frames of a small host. */
#define REC_WINDOW ((size_t)256 << 10)

const unsigned char *recreader_seg_at(struct recreader *r, size_t off, size_t len)
{
	size_t want = len > REC_WINDOW ? len : REC_WINDOW, got = 0;

	if (off >= r->win_off && len <= r->win_len && off - r->win_off <= r->win_len - len)
		return r->win + (off - r->win_off);
	if (want > r->size - off)
		want = r->size - off;
	if (want < len)
		want = len;
	if (grow((void **)&r->win, &r->win_cap, want ? want : 1, 1) < 0)
		return NULL;
	while (got < want) {
		ssize_t n = pread(r->fd, r->win + got, want - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	memset(r->win + got, 0, want - got);
	r->win_off = off;
	r->win_len = want;
	return r->win;
}

/* Whether h (len bytes on) starts with a segment header that holds. */
static bool header_ok(const unsigned char *h, size_t len)
{
	return len >= REC_FILE_HDR_SIZE && memcmp(h, seg_magic, 8) == 0 &&
	       get32(h + H_CRC) == rec_crc32c(0, h, H_CRC);
}

/* Whether a frame header that is plausible starts at off: its magic, a
 * length within the segment, a payload length within the bound. */
static bool frame_plausible(struct recreader *r, size_t off)
{
	const unsigned char *h;

	if (r->size - off < REC_FILE_FRAME_HDR ||
	    !(h = recreader_seg_at(r, off, REC_FILE_FRAME_HDR)))
		return false;
	return get32(h) == FRAME_MAGIC && get32(h + 8) <= r->size - off - REC_FILE_FRAME_HDR &&
	       get32(h + 12) <= REC_FILE_RAW_MAX;
}

/* Whether the plausible frame at off passes its CRC. */
static bool frame_crc_ok(struct recreader *r, size_t off)
{
	const unsigned char *h = recreader_seg_at(r, off, REC_FILE_FRAME_HDR);

	if (!h)
		return false;
	h = recreader_seg_at(r, off, REC_FILE_FRAME_HDR + get32(h + 8));
	return h && get32(h + F_CRC) ==
			rec_crc32c(rec_crc32c(0, h, F_CRC), h + REC_FILE_FRAME_HDR, get32(h + 8));
}

/* Whether the frame after one that failed its CRC may be at off: the end,
 * a frame that holds, or a torn one (the tail the loop reports). */
static bool frame_lands(struct recreader *r, size_t off)
{
	const unsigned char *h;

	if (r->size - off < 4)
		return true;
	if (!(h = recreader_seg_at(r, off, 4)) || get32(h) != FRAME_MAGIC)
		return false;
	if (r->size - off < REC_FILE_FRAME_HDR)
		return true;
	if (frame_plausible(r, off))
		return frame_crc_ok(r, off);
	h = recreader_seg_at(r, off, REC_FILE_FRAME_HDR);
	return h && get32(h + 8) > r->size - off - REC_FILE_FRAME_HDR;
}

/* Finds the next frame after damage at or after off: a plausible header
 * whose CRC holds (a magic inside a payload is not taken for a frame);
 * once the segment's budget of checked bytes is spent, a plausible one. */
size_t recreader_resync(struct recreader *r, size_t off)
{
	for (size_t o = off; o + REC_FILE_FRAME_HDR <= r->size; o++) {
		size_t len = r->size - o < REC_WINDOW ? r->size - o : REC_WINDOW;
		const unsigned char *w = recreader_seg_at(r, o, len), *m;
		uint32_t z;

		/* to the next magic through the window (bytes of a hole, of a
		 * payload): not a window's check a byte */
		if (!w)
			break;
		m = memmem(w, len, "IFR1", 4);
		if (!m) {
			o += len - 4; /* and +1: a magic across the window's end is found */
			continue;
		}
		o += (size_t)(m - w);
		if (!frame_plausible(r, o))
			continue;
		/* in the window: plausible */
		z = get32(recreader_seg_at(r, o, REC_FILE_FRAME_HDR) + 8);
		if (r->resync_budget < z + REC_FILE_FRAME_HDR)
			return o;
		r->resync_budget -= z + REC_FILE_FRAME_HDR;
		if (frame_crc_ok(r, o))
			return o;
	}
	return r->size;
}

/* The segment's file into r->fd (read through the window), a regular
 * file of at most REC_FILE_SEG_MAX; false (a problem said) when it cannot
 * be. */
static bool seg_read(struct recreader *r, const char *name)
{
	struct stat st;
	int fd;

	if (r->dirfd >= 0)
		fd = treewrite_open_regular(r->dirfd, name, O_RDONLY | O_NOFOLLOW, &st);
	else
		fd = treewrite_open_regular(AT_FDCWD, r->file, O_RDONLY, &st);
	if (fd < 0) {
		problem(r, "%s: %s", name,
			fd == -EXDEV || fd == -ELOOP ? "not a regular file, skipped"
						     : strerror(-fd));
		return false;
	}
	if ((uint64_t)st.st_size > REC_FILE_SEG_MAX) {
		problem(r, "%s: not a regular file of at most %zu MiB, skipped", name,
			REC_FILE_SEG_MAX >> 20);
		close(fd);
		return false;
	}
	/* held until the next segment: read as the frames are (a segment
	 * renamed over or removed meanwhile reads as it was) */
	r->fd = fd;
	r->size = (size_t)st.st_size;
	return true;
}

/* The segment's header (or, version 5, its copy) into r; *ret_off where
 * its frames start. False (a problem said) when the segment is skipped. */
static bool seg_header_read(struct recreader *r, const char *name, size_t *ret_off)
{
	const unsigned char *h0, *hd;
	size_t off;

	h0 = hd = recreader_seg_at(
	    r, 0, r->size < 2 * REC_FILE_HDR_SIZE ? r->size : 2 * REC_FILE_HDR_SIZE);
	if (!hd)
		return false;
	if (!header_ok(hd, r->size)) {
		/* version 5: the copy right after it */
		hd = h0 + REC_FILE_HDR_SIZE;
		if (r->size < REC_FILE_HDR_SIZE || !header_ok(hd, r->size - REC_FILE_HDR_SIZE) ||
		    get32(hd + 8) < 5) {
			if (r->size < REC_FILE_HDR_SIZE || memcmp(h0, seg_magic, 8) != 0)
				problem(r, "%s: not an iotriage recording (no header), skipped",
					name);
			else
				problem(r, "%s: header CRC mismatch, segment skipped", name);
			return false;
		}
		problem(r, "%s: header damaged, its copy used", name);
	}
	r->version = get32(hd + 8);
	off = get32(hd + 12);
	if (r->version < 1 || r->version > REC_FILE_VERSION) {
		problem(r, "%s: format version %u, this iotriage reads 1 to %u: skipped", name,
			r->version, REC_FILE_VERSION);
		return false;
	}
	if (off < REC_FILE_HDR_SIZE || off > r->size) {
		problem(r, "%s: header size %zu out of range, skipped", name, off);
		return false;
	}
	r->interval_ms = get32(hd + 16);
	r->keep_every = r->version >= 2 ? get32(hd + H_KEEP) : 0;
	if (r->keep_every < 1)
		r->keep_every = 1;
	r->run_id = get64(hd + 24);
	get_str(r->boot_id, hd + 40, 40);
	get_str(r->host, hd + 80, 64);
	get_str(r->mode, hd + 144, 16);
	*ret_off = off;
	return true;
}

/* The frames of the loaded segment from off, indexed into r->fr: damaged
 * headers skipped by resync, a torn tail ignored, gaps marked. False on
 * -ENOMEM. */
static bool seg_frames(struct recreader *r, const char *name, size_t off)
{
	uint64_t expect = 0;
	bool gap = false;

	r->resync_budget = 4 * (uint64_t)r->size;
	while (off < r->size) {
		const unsigned char *h;
		struct fidx *f;
		uint32_t zlen, flags;

		if (r->size - off < REC_FILE_FRAME_HDR) {
			problem(r, "%s: torn tail at offset %zu (%zu bytes), ignored", name, off,
				r->size - off);
			break;
		}
		if (!frame_plausible(r, off)) {
			bool magic = (h = recreader_seg_at(r, off, 4)) && get32(h) == FRAME_MAGIC;
			size_t next = recreader_resync(r, off + 1);

			if (next >= r->size && magic)
				problem(r, "%s: torn tail at offset %zu (%zu bytes), ignored", name,
					off, r->size - off);
			else
				problem(r,
					"%s: damaged frame header at offset %zu (frame %" PRIu64
					"), %zu bytes skipped",
					name, off, expect, next - off);
			off = next;
			gap = true;
			continue;
		}
		if (grow((void **)&r->fr, &r->fr_cap, r->nfr + 1, sizeof(*r->fr)) < 0)
			return false;
		/* the header's fields before the CRC's read moves the window */
		h = recreader_seg_at(r, off, REC_FILE_FRAME_HDR); /* in it: plausible */
		zlen = get32(h + 8);
		flags = get32(h + 4);
		f = &r->fr[r->nfr++];
		f->off = off;
		f->key = flags & FRAME_KEY;
		f->stored = flags & FRAME_STORED;
		/* a kind of frame this version does not know: newer, or damage */
		f->unknown = (!f->key && !(flags & FRAME_DIFF)) || (f->stored && r->version < 4);
		f->zlen = zlen;
		f->rlen = get32(h + 12);
		f->id = get64(h + 24);
		f->mono_ns = (int64_t)get64(h + 32);
		f->real_ns = (int64_t)get64(h + 40);
		f->dropped = flags & FRAME_DROPPED;
		f->num = get64(h + 16);
		f->bad = !frame_crc_ok(r, off);
		/* a writer numbers a segment's frames from 0 without a gap: a
		 * number skipped is a frame lost, which a delta frame needs */
		f->num = f->bad ? expect : f->num;
		f->gap = gap || f->num != expect;
		gap = false;
		expect = f->num + 1;
		off += REC_FILE_FRAME_HDR + zlen;
		/* a frame that fails its CRC may lie about its length: the next
		 * frame is where it says only if one that holds starts there
		 * (or a torn one, or the end); else the next one that holds */
		if (f->bad && !frame_lands(r, off)) {
			off = recreader_resync(r, f->off + 1);
			gap = true;
		}
	}
	return true;
}

/* Opens segment i and indexes its frames; false when it is unusable
 * (described as a problem). */
bool recreader_seg_load(struct recreader *r, size_t i)
{
	const char *name = r->segs[i].name;
	size_t off;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->win_off = r->win_len = 0;
	r->size = 0;
	r->nfr = 0;
	r->cur = i;
	r->pos = 0;
	r->emit_from = 0;
	r->have_prev = false;
	r->need_key = true;
	return seg_read(r, name) && seg_header_read(r, name, &off) && seg_frames(r, name, off);
}

/* Decodes frame f (against the previous payload for a delta frame) into
 * the other buffer. 0, -EBADMSG or -ENOMEM. */
int recreader_decode(struct recreader *r, const struct fidx *f)
{
	const unsigned char *z = recreader_seg_at(r, f->off, REC_FILE_FRAME_HDR + f->zlen);
	struct strbuf *out = &r->pb[r->which ^ 1];
	const unsigned char *src;
	size_t got = f->zlen;
	int e;

	if (!z)
		return -ENOMEM;
	z += REC_FILE_FRAME_HDR;
	src = z;

	if (!f->stored) {
		unsigned long long n = ZSTD_getFrameContentSize(z, f->zlen);

		/* the sizes a writer of ours puts there, checked before any
		 * allocation */
		if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR ||
		    n > (f->key ? f->rlen : 2 * (unsigned long long)REC_FILE_RAW_MAX))
			return -EBADMSG;
		if (grow((void **)&r->zbuf, &r->zcap, n ? (size_t)n : 1, 1) < 0)
			return -ENOMEM;
		ZSTD_DCtx_reset(r->dctx, ZSTD_reset_session_and_parameters);
		ZSTD_DCtx_setParameter(r->dctx, ZSTD_d_windowLogMax, 28);
		got = ZSTD_decompressDCtx(r->dctx, r->zbuf, (size_t)n, z, f->zlen);
		if (ZSTD_isError(got) || got != n)
			return -EBADMSG;
		src = r->zbuf;
	}
	if (f->key) {
		sb_reset(out);
		sb_append(out, (const char *)src, got);
		e = out->err;
	} else {
		const struct strbuf *prev = &r->pb[r->which];

		e = rec_diff_decode(prev->buf ? prev->buf : "", prev->len, (const char *)src, got,
				    f->rlen, out);
	}
	if (e < 0)
		return e == -ENOMEM ? e : -EBADMSG;
	if (out->len != f->rlen)
		return -EBADMSG;
	r->which ^= 1;
	return 0;
}

/* Frame f skipped, for why; broken: the delta chain breaks there (the next
 * frame must be a key frame). */
static void skip_frame(struct recreader *r, const struct fidx *f, const char *why, bool broken)
{
	problem(r, "%s: frame %" PRIu64 " (sample %" PRIu64 ") %s, skipped", r->segs[r->cur].name,
		f->num, f->id, why);
	if (broken) {
		r->need_key = true;
		r->have_prev = false;
	}
	r->pos++;
}

int recreader_next(struct recreader *r, struct recframe *ret)
{
	for (;;) {
		const struct fidx *f;
		bool lost = false;
		int e;

		if (r->done)
			return 0;
		if (r->cur >= r->nsegs || r->pos >= r->nfr) {
			size_t next = r->cur >= r->nsegs ? 0 : r->cur + 1;

			if (next >= r->nsegs) {
				r->done = true;
				return 0;
			}
			recreader_seg_load(r, next);
			continue;
		}
		f = &r->fr[r->pos];
		if (f->gap) {
			/* frames lost before it: a delta frame has no base */
			r->need_key = true;
			r->have_prev = false;
		}
		if (f->bad) {
			skip_frame(r, f, "fails its CRC", true);
			continue;
		}
		if (f->unknown) {
			skip_frame(r, f, "of an unknown kind", true);
			continue;
		}
		if (!f->key && (r->need_key || !r->have_prev)) {
			skip_frame(r, f, "depends on a lost frame", false);
			continue;
		}
		e = recreader_decode(r, f);
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			skip_frame(r, f, "does not decompress", true);
			continue;
		}
		if ((f->key && r->need_key && (r->pos > 0 || f->gap)) || f->dropped)
			lost = true;
		r->need_key = false;
		r->have_prev = true;
		r->pos++;
		if (r->pos - 1 < r->emit_from)
			continue; /* decoded only to reach a seek target */
		memset(ret, 0, sizeof(*ret));
		ret->id = f->id;
		ret->mono_ns = f->mono_ns;
		ret->real_ns = f->real_ns;
		ret->key = f->key;
		ret->payload = r->pb[r->which].buf ? r->pb[r->which].buf : "";
		ret->len = r->pb[r->which].len;
		ret->version = r->version;
		ret->interval_ms = r->interval_ms;
		ret->keep_every = r->keep_every;
		ret->run_id = r->run_id;
		memcpy(ret->host, r->host, sizeof(ret->host));
		memcpy(ret->mode, r->mode, sizeof(ret->mode));
		memcpy(ret->boot_id, r->boot_id, sizeof(ret->boot_id));
		ret->segment = r->segs[r->cur].name;
		ret->new_run =
		    r->discontinuity || lost || !r->any_returned || r->last_run != r->run_id;
		r->discontinuity = false;
		r->any_returned = true;
		r->last_run = r->run_id;
		return 1;
	}
}

int recreader_seek(struct recreader *r, int64_t real_ns, unsigned flags, int64_t *ret_real)
{
	size_t lo = 0, hi = r->nsegs, s, k = 0, start, key;
	uint64_t t_ms = real_ns > 0 ? (uint64_t)real_ns / 1000000 : 0;
	bool before = flags & RECREADER_BEFORE, found = false;

	/* the last segment that starts at or before t (names sort by start) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->segs[mid].start_ms <= t_ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = lo ? lo - 1 : 0;
	if (before) {
		/* the last frame before t: in s, or the last of an earlier one */
		for (size_t i = s + 1; i-- > 0 && !found;) {
			if (!recreader_seg_load(r, i))
				continue;
			for (k = 0; k < r->nfr && r->fr[k].real_ns < real_ns; k++)
				;
			if (k > 0) {
				k--;
				s = i;
				found = true;
			}
		}
	} else {
		for (; s < r->nsegs && !found; s++) {
			if (!recreader_seg_load(r, s))
				continue;
			for (k = 0; k < r->nfr && r->fr[k].real_ns < real_ns; k++)
				;
			found = k < r->nfr;
		}
	}
	r->discontinuity = true;
	r->done = !found;
	if (!found)
		return 0;
	if (ret_real)
		*ret_real = r->fr[k].real_ns;
	start = (flags & RECREADER_WITH_PREV) && k > 0 ? k - 1 : k;
	for (key = start; key > 0 && !r->fr[key].key; key--)
		;
	r->pos = key;
	r->emit_from = start;
	r->need_key = true;
	r->have_prev = false;
	return 1;
}

int recreader_span(struct recreader *r, int64_t *ret_first, int64_t *ret_last)
{
	int64_t first = 0, last = 0;
	bool have = false;

	/* the first frame of the first readable segment, the last of the last */
	for (size_t i = 0; i < r->nsegs && !have; i++)
		if (recreader_seg_load(r, i) && r->nfr) {
			first = r->fr[0].real_ns;
			have = true;
		}
	for (size_t i = r->nsegs; have && i-- > 0;)
		if (recreader_seg_load(r, i) && r->nfr) {
			last = r->fr[r->nfr - 1].real_ns;
			break;
		}
	/* back to the start */
	r->cur = r->nsegs;
	r->done = false;
	r->discontinuity = true;
	r->nfr = 0;
	r->pos = 0;
	if (!have)
		return 0;
	*ret_first = first;
	*ret_last = last;
	return 1;
}
