// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_file: the flight recorder's segment files: writer (append, rotate,
 * retention, free-space floor, bounded fsync cadence) and reader (every byte hostile:
 * a torn tail, a bad CRC, a header that lies about lengths are skipped and
 * described, never trusted). The payload is opaque: collect packs it.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload.c packs a
 * sample's sections, trace/rec_trace.c its trace read, lib/rec_diff.c
 * makes a frame the difference from the last, lib/rec_file.c writes and
 * reads the segments, daemon/rec.c drives them from iotriaged's loop
 * (doc/recording.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "grow.h"
#include "rec_diff.h"
#include "rec_file.h"
#include "treewrite.h"
#include "root.h"
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

/* ---- CRC32C ---- */

static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] =
			    (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The CPU's crc32 instruction (SSE4.2) computes this very CRC: a frame's
 * 500 bytes in ~50 ns, where the tables took microseconds with the cache
 * cold, as it is once a second. Same bits as the tables (unit test). */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p,
							    size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#define CRC_HW 1
#endif

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	/* 1 tables ready, 2 the instruction */
	static int ready;
	const unsigned char *p = buf;
	int how = __atomic_load_n(&ready, __ATOMIC_ACQUIRE);

	/* idempotent: two threads racing here write the same values */
	if (!how) {
		crc_init();
		how = 1;
#ifdef CRC_HW
		if (__builtin_cpu_supports("sse4.2"))
			how = 2;
#endif
		__atomic_store_n(&ready, how, __ATOMIC_RELEASE);
	}
	crc = ~crc;
#ifdef CRC_HW
	if (how == 2)
		return ~crc32c_hw(crc, p, len);
#endif
	/* slicing by 8: ~1.5 GB/s, so checking a 16 MiB segment is ~10 ms */
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^
		      crc_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

/* ---- little-endian fields ---- */

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put_str(unsigned char *p, size_t size, const char *s)
{
	size_t n = s ? strnlen(s, size - 1) : 0;

	memset(p, 0, size);
	if (n)
		memcpy(p, s, n);
}

static void get_str(char *dst, const unsigned char *p, size_t size)
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

static bool seg_name_ok(const char *n, uint64_t *ret_ms)
{
	uint64_t ms = 0;

	if (strlen(n) != SEG_NAME_LEN || n[13] != '-' || strcmp(n + 30, ".iotr") != 0)
		return false;
	for (int i = 0; i < 13; i++) {
		if (n[i] < '0' || n[i] > '9')
			return false;
		ms = ms * 10 + (uint64_t)(n[i] - '0');
	}
	for (int i = 14; i < 30; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return false;
	if (ret_ms)
		*ret_ms = ms;
	return true;
}

struct seg_ent {
	char name[SEG_NAME_LEN + 1];
	uint64_t start_ms;
	uint64_t size;
};

static int cmp_seg(const void *a, const void *b)
{
	return strcmp(((const struct seg_ent *)a)->name, ((const struct seg_ent *)b)->name);
}

/* A listing of dirfd's entries (its own descriptor: dirfd stays ours),
 * or NULL with errno set. */
static DIR *dir_stream(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		errno = ENOMEM;
	}
	return d;
}

/* The segments in dirfd, oldest first, regular files only (sizes from
 * fstatat without following). Returns the count or -errno. */
static int list_segments(int dirfd, struct seg_ent **ret)
{
	struct seg_ent *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = dir_stream(dirfd);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		uint64_t ms;

		if (!seg_name_ok(de->d_name, &ms))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			closedir(d);
			free(v);
			return -ENOMEM;
		}
		memcpy(v[n].name, de->d_name, SEG_NAME_LEN + 1);
		v[n].start_ms = ms;
		v[n].size = (uint64_t)st.st_size;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_seg);
	*ret = v;
	return (int)n;
}

/* ---- writer ---- */

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

static void async_stop(struct recwriter *w);

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

	n = list_segments(w->dirfd, &v);
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
static void seg_header(const struct recwriter *w, int64_t real, uint32_t keep_every,
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
	put32(h + H_CRC, crc32c(0, h, H_CRC));
}

/* h as a segment of its version starts: from version 5 twice (one flipped
 * byte in the header costs nothing: the reader takes the copy); into
 * ret_hdr, returns the length. */
static size_t seg_header_bytes(const unsigned char h[REC_FILE_HDR_SIZE],
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
	seg_header(w, real, 1, h);
	hlen = seg_header_bytes(h, hh);
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
	DIR *d = dir_stream(dirfd);

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
		if (seg_name_ok(seg, NULL) &&
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
	async_stop(w);
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

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The frame's payload into w->out after the header's room: zstd of the
 * payload (key) or of its difference from the previous one, or with
 * o.store those bytes themselves when small (*ret_stored). */
static int compress(struct recwriter *w, const void *payload, size_t len, bool key, size_t *ret_z,
		    bool *ret_stored)
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

/* The header of the frame compress() left in w->out. */
static void frame_header(struct recwriter *w, bool key, bool stored, bool dropped, size_t z,
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
	put32(w->out + F_CRC, crc32c(crc32c(0, w->out, F_CRC), w->out + REC_FILE_FRAME_HDR, z));
}

static int append(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
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
	e = compress(w, payload, len, key, &z, &stored);
	if (e < 0)
		return e;
	/* a frame that would take the segment past its size: in the next one */
	if (w->fd >= 0 && w->seg_frames && w->seg_bytes + REC_FILE_FRAME_HDR + z > w->seg_max) {
		seg_close(w);
		key = true;
		e = compress(w, payload, len, key, &z, &stored);
		if (e < 0)
			return e;
	}
	if (w->fd < 0) {
		e = seg_open(w, mono_ns, real_ns, REC_FILE_FRAME_HDR + z);
		if (e <= 0)
			return e;
		w->last_fsync_mono = mono_ns;
	}
	frame_header(w, key, stored, dropped, z, len, id, mono_ns, real_ns);
	e = write_all(w->fd, w->out, REC_FILE_FRAME_HDR + z);
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

/* ---- reader ---- */

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
	/* its file, read through a window (seg_at): memory in proportion to
	 * the biggest frame, not to the segment (a sparse 256 MiB file of a
	 * few KB on disk was read whole) */
	int fd;
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
		n = list_segments(fd, &r->segs);
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
		seg_name_ok(r->segs[0].name, &r->segs[0].start_ms);
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

/*
 * The loaded segment's bytes [off, off + len) (within r->size): a pointer
 * into the window, valid until the next call. What cannot be read (the
 * file shrank, a read error) reads as zeros: damage the frame checks
 * report. NULL only when out of memory for a frame that big.
 */
static const unsigned char *seg_at(struct recreader *r, size_t off, size_t len)
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
	       get32(h + H_CRC) == crc32c(0, h, H_CRC);
}

/* Whether a frame header that is plausible starts at off: its magic, a
 * length within the segment, a payload length within the bound. */
static bool frame_plausible(struct recreader *r, size_t off)
{
	const unsigned char *h;

	if (r->size - off < REC_FILE_FRAME_HDR || !(h = seg_at(r, off, REC_FILE_FRAME_HDR)))
		return false;
	return get32(h) == FRAME_MAGIC && get32(h + 8) <= r->size - off - REC_FILE_FRAME_HDR &&
	       get32(h + 12) <= REC_FILE_RAW_MAX;
}

/* Whether the plausible frame at off passes its CRC. */
static bool frame_crc_ok(struct recreader *r, size_t off)
{
	const unsigned char *h = seg_at(r, off, REC_FILE_FRAME_HDR);

	if (!h)
		return false;
	h = seg_at(r, off, REC_FILE_FRAME_HDR + get32(h + 8));
	return h && get32(h + F_CRC) ==
			crc32c(crc32c(0, h, F_CRC), h + REC_FILE_FRAME_HDR, get32(h + 8));
}

/* Whether the frame after one that failed its CRC may be at off: the end,
 * a frame that holds, or a torn one (the tail the loop reports). */
static bool frame_lands(struct recreader *r, size_t off)
{
	const unsigned char *h;

	if (r->size - off < 4)
		return true;
	if (!(h = seg_at(r, off, 4)) || get32(h) != FRAME_MAGIC)
		return false;
	if (r->size - off < REC_FILE_FRAME_HDR)
		return true;
	if (frame_plausible(r, off))
		return frame_crc_ok(r, off);
	h = seg_at(r, off, REC_FILE_FRAME_HDR);
	return h && get32(h + 8) > r->size - off - REC_FILE_FRAME_HDR;
}

/* Finds the next frame after damage at or after off: a plausible header
 * whose CRC holds (a magic inside a payload is not taken for a frame);
 * once the segment's budget of checked bytes is spent, a plausible one. */
static size_t resync(struct recreader *r, size_t off)
{
	for (size_t o = off; o + REC_FILE_FRAME_HDR <= r->size; o++) {
		size_t len = r->size - o < REC_WINDOW ? r->size - o : REC_WINDOW;
		const unsigned char *w = seg_at(r, o, len), *m;
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
		z = get32(seg_at(r, o, REC_FILE_FRAME_HDR) + 8); /* in the window: plausible */
		if (r->resync_budget < z + REC_FILE_FRAME_HDR)
			return o;
		r->resync_budget -= z + REC_FILE_FRAME_HDR;
		if (frame_crc_ok(r, o))
			return o;
	}
	return r->size;
}

/* Opens segment i and indexes its frames; false when it is unusable
 * (described as a problem). */
static bool seg_load(struct recreader *r, size_t i)
{
	const char *name = r->segs[i].name;
	const unsigned char *hd;
	struct stat st;
	uint64_t expect = 0;
	bool gap = false;
	size_t off;
	int fd;

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
	hd = seg_at(r, 0, r->size < 2 * REC_FILE_HDR_SIZE ? r->size : 2 * REC_FILE_HDR_SIZE);
	if (!hd)
		return false;
	if (!header_ok(hd, r->size)) {
		const unsigned char *h0 = hd;

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
			bool magic = (h = seg_at(r, off, 4)) && get32(h) == FRAME_MAGIC;
			size_t next = resync(r, off + 1);

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
		h = seg_at(r, off, REC_FILE_FRAME_HDR); /* in it: plausible */
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
			off = resync(r, f->off + 1);
			gap = true;
		}
	}
	return true;
}

/* Decodes frame f (against the previous payload for a delta frame) into
 * the other buffer. 0, -EBADMSG or -ENOMEM. */
static int decode(struct recreader *r, const struct fidx *f)
{
	const unsigned char *z = seg_at(r, f->off, REC_FILE_FRAME_HDR + f->zlen);
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
			seg_load(r, next);
			continue;
		}
		f = &r->fr[r->pos];
		if (f->gap) {
			/* frames lost before it: a delta frame has no base */
			r->need_key = true;
			r->have_prev = false;
		}
		if (f->bad) {
			problem(r,
				"%s: frame %" PRIu64 " (sample %" PRIu64 ") fails its CRC, skipped",
				r->segs[r->cur].name, f->num, f->id);
			r->need_key = true;
			r->have_prev = false;
			r->pos++;
			continue;
		}
		if (f->unknown) {
			problem(r,
				"%s: frame %" PRIu64 " (sample %" PRIu64
				") of an unknown kind, skipped",
				r->segs[r->cur].name, f->num, f->id);
			r->need_key = true;
			r->have_prev = false;
			r->pos++;
			continue;
		}
		if (!f->key && (r->need_key || !r->have_prev)) {
			problem(r,
				"%s: frame %" PRIu64 " (sample %" PRIu64
				") depends on a lost frame, skipped",
				r->segs[r->cur].name, f->num, f->id);
			r->pos++;
			continue;
		}
		e = decode(r, f);
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			problem(r,
				"%s: frame %" PRIu64 " (sample %" PRIu64
				") does not decompress, skipped",
				r->segs[r->cur].name, f->num, f->id);
			r->need_key = true;
			r->have_prev = false;
			r->pos++;
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
			if (!seg_load(r, i))
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
			if (!seg_load(r, s))
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
		if (seg_load(r, i) && r->nfr) {
			first = r->fr[0].real_ns;
			have = true;
		}
	for (size_t i = r->nsegs; have && i-- > 0;)
		if (seg_load(r, i) && r->nfr) {
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

/* ---- the async writer: the disk's waits in a thread of their own ---- */

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Under qlock: st as the thread left it, with the queue's counts. */
static void publish(struct recwriter *w)
{
	struct recwriter_stats keep = w->pub;

	w->pub = w->st;
	w->pub.queued = w->qn;
	w->pub.queue_peak = keep.queue_peak;
	w->pub.queue_max = w->o.queue_max;
	w->pub.dropped = keep.dropped;
	w->pub.write_max_ns = keep.write_max_ns;
	w->pub.write_cpu_ns = keep.write_cpu_ns;
	w->pub.last_err = keep.last_err;
}

static void *writer_main(void *arg)
{
	struct recwriter *w = arg;

	pthread_mutex_lock(&w->qlock);
	for (;;) {
		struct qent e;
		int64_t t0, cpu0;
		int r;

		while (!w->qn && !w->qstop)
			pthread_cond_wait(&w->qcond, &w->qlock);
		if (!w->qn)
			break; /* stopped and drained */
		e = w->q[w->qhead];
		memset(&w->q[w->qhead].buf, 0, sizeof(e.buf));
		w->qhead = (w->qhead + 1) % w->o.queue_max;
		w->qn--;
		w->qbytes -= e.buf.len;
		pthread_mutex_unlock(&w->qlock);
		t0 = clock_ns(CLOCK_MONOTONIC);
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		r = append(w, e.id, e.mono_ns, e.real_ns, e.buf.buf ? e.buf.buf : "", e.buf.len,
			   &e.buf, e.dropped);
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		t0 = clock_ns(CLOCK_MONOTONIC) - t0;
		pthread_mutex_lock(&w->qlock);
		publish(w);
		w->pub.write_cpu_ns += cpu0;
		if (t0 > w->pub.write_max_ns)
			w->pub.write_max_ns = t0;
		if (r < 0)
			w->pub.last_err = r;
		/* its buffer (the previous payload's, after a swap) for a next frame */
		if (w->nspare < QUEUE_SPARE) {
			sb_reset(&e.buf);
			e.buf.err = 0;
			w->spare[w->nspare++] = e.buf;
		} else {
			sb_free(&e.buf);
		}
	}
	pthread_mutex_unlock(&w->qlock);
	return NULL;
}

/* Queues payload's bytes (its buffer taken, another given back) for the
 * thread, or drops the frame when the queue is full. Never waits on I/O:
 * qlock is held by the thread only between its writes. */
static int enqueue(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
		   struct strbuf *payload)
{
	struct qent *e;

	pthread_mutex_lock(&w->qlock);
	if (payload->len > REC_FILE_RAW_MAX) {
		w->drop_next = true;
		pthread_mutex_unlock(&w->qlock);
		return -EFBIG;
	}
	if (w->qn == w->o.queue_max || (w->qn && w->qbytes + payload->len > REC_FILE_QUEUE_BYTES)) {
		w->pub.dropped++;
		w->drop_next = true;
		pthread_mutex_unlock(&w->qlock);
		return 0;
	}
	e = &w->q[(w->qhead + w->qn) % w->o.queue_max];
	e->buf = *payload;
	if (w->nspare)
		*payload = w->spare[--w->nspare];
	else
		memset(payload, 0, sizeof(*payload));
	sb_reset(payload);
	e->id = id;
	e->mono_ns = mono_ns;
	e->real_ns = real_ns;
	e->dropped = w->drop_next;
	w->drop_next = false;
	w->qn++;
	w->qbytes += e->buf.len;
	if (w->qn > w->pub.queue_peak)
		w->pub.queue_peak = w->qn;
	w->pub.queued = w->qn;
	pthread_cond_signal(&w->qcond);
	pthread_mutex_unlock(&w->qlock);
	return 1;
}

int recwriter_start_thread(struct recwriter *w)
{
	int e;

	if (w->thread_on)
		return 0;
	if (!w->o.queue_max)
		w->o.queue_max = REC_FILE_QUEUE_MAX;
	w->q = calloc(w->o.queue_max, sizeof(*w->q));
	if (!w->q)
		return -ENOMEM;
	pthread_mutex_init(&w->qlock, NULL);
	pthread_cond_init(&w->qcond, NULL);
	w->pub = w->st;
	w->pub.queue_max = w->o.queue_max;
	e = pthread_create(&w->thread, NULL, writer_main, w);
	if (e) {
		pthread_cond_destroy(&w->qcond);
		pthread_mutex_destroy(&w->qlock);
		free(w->q);
		w->q = NULL;
		return -e;
	}
	w->thread_on = true;
	return 0;
}

/* Lets the thread write what is queued, then joins it. */
static void async_stop(struct recwriter *w)
{
	if (!w->thread_on)
		return;
	pthread_mutex_lock(&w->qlock);
	w->qstop = true;
	pthread_cond_signal(&w->qcond);
	pthread_mutex_unlock(&w->qlock);
	pthread_join(w->thread, NULL);
	w->thread_on = false;
	for (unsigned i = 0; i < w->o.queue_max; i++)
		sb_free(&w->q[i].buf);
	for (unsigned i = 0; i < w->nspare; i++)
		sb_free(&w->spare[i]);
	free(w->q);
	pthread_cond_destroy(&w->qcond);
	pthread_mutex_destroy(&w->qlock);
}

int recwriter_append(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
		     const void *payload, size_t len)
{
	struct strbuf copy = { 0 };
	int r;

	if (!w->thread_on)
		return append(w, id, mono_ns, real_ns, payload, len, NULL, false);
	if (len > REC_FILE_RAW_MAX) {
		copy.len = len; /* enqueue() refuses it, and says so in the next frame */
		return enqueue(w, id, mono_ns, real_ns, &copy);
	}
	sb_append(&copy, payload, len);
	r = copy.err ? copy.err : enqueue(w, id, mono_ns, real_ns, &copy);
	sb_free(&copy);
	return r;
}

int recwriter_append_take(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
			  struct strbuf *payload)
{
	if (payload->err)
		return payload->err;
	if (w->thread_on)
		return enqueue(w, id, mono_ns, real_ns, payload);
	return append(w, id, mono_ns, real_ns, payload->buf ? payload->buf : "", payload->len,
		      payload, false);
}

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
	seg_name_ok(r->segs[0].name, &r->segs[0].start_ms);
	r->nsegs = 1;
	r->cur = 1;
	r->discontinuity = true;
	*ret = r;
	return 0;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps so that this thread's CPU since *mark stays under duty_pct of
 * the time (checked every 20 ms of CPU). */
static void pace(unsigned duty_pct, int64_t *mark)
{
	int64_t used = thread_cpu_ns() - *mark, ns;
	struct timespec ts;

	if (!duty_pct || duty_pct >= 100 || used < 20000000)
		return;
	ns = used * (100 - (int64_t)duty_pct) / (int64_t)duty_pct;
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	*mark = thread_cpu_ns();
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
	     memcmp(h, seg_magic, 8) == 0 && get32(h + H_CRC) == crc32c(0, h, H_CRC) &&
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
	int64_t last_kept = 0, step_ns, mark = thread_cpu_ns(), cpu0 = mark;
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
	seg_header(t, (int64_t)get64(h + 32), keep_every, h);
	bytes = seg_header_bytes(h, hh);
	e = write_all(tfd, hh, bytes);
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
		e = compress(t, f.payload, f.len, key, &z, &stored);
		if (e < 0)
			break;
		frame_header(t, key, stored, false, z, f.len, f.id, f.mono_ns, f.real_ns);
		e = write_all(tfd, t->out, REC_FILE_FRAME_HDR + z);
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
	st->cpu_ns += thread_cpu_ns() - cpu0;
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
	int64_t mark = thread_cpu_ns(), cpu0 = mark;
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
	if (!seg_load(rd, 0) || !rd->nfr || rd->size != (size_t)before.st_size ||
	    !seg_at(rd, 0, sizeof(h)) || memcmp(seg_at(rd, 0, sizeof(h)), h, sizeof(h)) != 0)
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
	put32(h + H_CRC, crc32c(0, h, H_CRC));
	/* the frames after the header as the segment had it (its copy too) */
	bytes = seg_header_bytes(h, hh);
	e = write_all(tfd, hh, bytes);
	for (size_t i = 0; e >= 0 && i < rd->nfr; i++) {
		const struct fidx *f = &rd->fr[i];
		const unsigned char *fh = seg_at(rd, f->off, REC_FILE_FRAME_HDR + f->zlen);
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
		put32(out + F_CRC, crc32c(crc32c(0, out, F_CRC), out + REC_FILE_FRAME_HDR, z));
		e = write_all(tfd, out, REC_FILE_FRAME_HDR + z);
		bytes += REC_FILE_FRAME_HDR + z;
	}
	e = seg_replace(w, name, tmp, tfd, &before, e < 0 ? e : 1, rd->nfr, rd->nfr, bytes, st);
out:
	st->cpu_ns += thread_cpu_ns() - cpu0;
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

	n = list_segments(w->dirfd, &v);
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
