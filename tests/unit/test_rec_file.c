// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's pure parts: CRC32C's check value, the delta frame
 * codec (rec_diff) round-tripping what /proc prints, and refusing what a
 * damaged or hostile recording holds without reading outside its bytes;
 * stored frames and sealing (format version 4) in a temporary directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "rec_diff.h"
#include "rec_file.h"
#include "strbuf.h"
#include "tree_util.h"

static void test_crc32c(void **state)
{
	(void)state;
	/* the check value of CRC-32C (RFC 3720, B.4) */
	assert_int_equal(rec_crc32c(0, "123456789", 9), 0xE3069283u);
	/* in pieces: the same */
	assert_int_equal(rec_crc32c(rec_crc32c(0, "12345", 5), "6789", 4), 0xE3069283u);
	assert_int_equal(rec_crc32c(0, "", 0), 0);
}

/* Bit by bit, the definition: what the tables and the CPU's instruction
 * (whichever this machine uses) must both give. */
static uint32_t crc32c_bits(uint32_t crc, const unsigned char *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return ~crc;
}

static void test_crc32c_every_length(void **state)
{
	unsigned char buf[600];
	uint32_t x = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	/* every length and alignment a frame's tail or start can have */
	for (size_t off = 0; off < 9; off++)
		for (size_t n = 0; n + off <= sizeof(buf); n += n < 40 ? 1 : 37)
			assert_int_equal(rec_crc32c(7, buf + off, n), crc32c_bits(7, buf + off, n));
}

static void roundtrip_n(const char *a, size_t an, const char *b, size_t bn)
{
	struct strbuf d = { 0 }, out = { 0 };

	assert_int_equal(rec_diff_encode(a, an, b, bn, &d), 0);
	assert_int_equal(rec_diff_decode(a, an, d.buf ? d.buf : "", d.len, 1 << 20, &out), 0);
	assert_int_equal(out.len, bn);
	assert_memory_equal(out.buf ? out.buf : "", b, out.len);
	sb_free(&d);
	sb_free(&out);
}

static void roundtrip(const char *a, const char *b)
{
	roundtrip_n(a, strlen(a), b, strlen(b));
}

static void test_rec_diff_roundtrip(void **state)
{
	(void)state;
	roundtrip("", "");
	roundtrip("", "cpu 1 2 3\n");
	roundtrip("cpu 1 2 3\n", "");
	roundtrip("cpu 1 2 3\ncpu0 1 2 3\n", "cpu 1 2 3\ncpu0 1 2 3\n");
	/* counters up, down (a reset), across a digit, the padding shifting */
	roundtrip("cpu 10 20 30\nintr 99 1\n", "cpu 12 19 30\nintr 100 1\n");
	roundtrip(" 24:         99          0   PCI-MSI 1-edge  nvme0q1\n",
		  " 24:        100          0   PCI-MSI 1-edge  nvme0q1\n");
	/* leading zeros and fractions are kept as bytes */
	roundtrip("12.05 30.01\n", "12.06 30.09\n");
	roundtrip("x 007\n", "x 008\n");
	/* 20 digits: more than a uint64 reads back as printed */
	roundtrip("n 99999999999999999999\n", "n 99999999999999999998\n");
	roundtrip("n 18446744073709551615 0\n", "n 0 18446744073709551615\n");
	/* no final newline, lines added and removed */
	roundtrip("a 1\nb 2", "a 1\nb 3");
	roundtrip("a 1\nb 2\n", "a 1\nc 9\nb 2\n");
	/* a mostly unchanged line (sparse) and a fully changed one */
	roundtrip("L 0 0 0 0 0 0 0 0 0 5 0 0\n", "L 0 0 0 0 0 0 0 0 0 6 0 0\n");
	roundtrip("L 1 2 3 4 5 6\n", "L 2 3 4 5 6 7\n");
	/* text right after a number changing, a number growing into text */
	roundtrip("12a 5\n", "12b 5\n");
	roundtrip("12 x\n", "123 x\n");
	roundtrip("a 5\n", "a x\n");
	roundtrip("x 12\n", "x 1\n");
	/* unchanged odd numbers beside a changed one */
	roundtrip("007 0.05 99999999999999999999 5\n", "007 0.05 99999999999999999999 6\n");
	/* binary bytes (the payload's record headers) */
	roundtrip("\x01\x00\x0a\x00 7\n\xff", "\x01\x00\x0a\x00 8\n\xfe");
}

/* Long lines of numbers (a 256-CPU /proc/interrupts row is ~2.8 KB) with a
 * few changed: the encoder counts the unchanged numbers eight bytes at a
 * time, so runs cross word boundaries at every offset; a miscount would
 * put a change on the wrong number and fail the round trip. */
static void test_rec_diff_long_lines(void **state)
{
	static char a[8192], b[8192];

	(void)state;
	srand(7);
	for (int round = 0; round < 400; round++) {
		size_t an = 0, bn = 0;
		int lines = 1 + rand() % 4;

		for (int l = 0; l < lines; l++) {
			int cols = 1 + rand() % 120, width = 1 + rand() % 12;

			an += (size_t)snprintf(a + an, sizeof(a) - an, "%3d:", l);
			bn += (size_t)snprintf(b + bn, sizeof(b) - bn, "%3d:", l);
			for (int c = 0; c < cols && an < 7000 && bn < 7000; c++) {
				unsigned v = (unsigned)rand() % 100000, w = v;
				int pad = rand() % 3 ? width : 1; /* "%10u" or " %u" */

				if (rand() % 10 == 0)
					w = v + (unsigned)rand() % 1000;
				an += (size_t)snprintf(a + an, sizeof(a) - an, " %*u", pad, v);
				bn += (size_t)snprintf(b + bn, sizeof(b) - bn, " %*u", pad, w);
			}
			an += (size_t)snprintf(a + an, sizeof(a) - an, "  IR-PCI-MSI x\n");
			bn += (size_t)snprintf(b + bn, sizeof(b) - bn, "  IR-PCI-MSI x\n");
		}
		roundtrip_n(a, an, b, bn);
	}
}

static void test_rec_diff_hostile(void **state)
{
	static const char prev[] = "cpu 1 2 3\nintr 5\n";
	struct strbuf out = { 0 };
	char junk[64];

	(void)state;
	/* unknown op, truncated varint, SAME past the end, RAW overrunning */
	assert_int_equal(rec_diff_decode(prev, sizeof(prev) - 1, "\x09", 1, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(rec_diff_decode(prev, sizeof(prev) - 1, "\x01\x80", 2, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(rec_diff_decode(prev, sizeof(prev) - 1, "\x01\x7f", 2, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(rec_diff_decode(prev, sizeof(prev) - 1,
					 "\x03\x7f"
					 "ab",
					 4, 1 << 20, &out),
			 -EBADMSG);
	/* NUMS with too few changes; SPARSE with changes for numbers not there */
	assert_int_equal(rec_diff_decode(prev, sizeof(prev) - 1, "\x02\x00", 2, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(
	    rec_diff_decode(prev, sizeof(prev) - 1, "\x04\x01\x05\x02", 4, 1 << 20, &out),
	    -EBADMSG);
	/* the output bound */
	assert_int_equal(rec_diff_decode(prev, sizeof(prev) - 1, "\x01\x02", 2, 4, &out), -EFBIG);
	/* random bytes never crash (ASan builds check the reads) */
	srand(1);
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand() % (int)sizeof(junk));

		for (size_t k = 0; k < n; k++)
			junk[k] = (char)(rand() % 6);
		rec_diff_decode(prev, sizeof(prev) - 1, junk, n, 1 << 16, &out);
	}
	sb_free(&out);
}

/*
 * A difference that grows its line: each "0 " of the previous payload
 * changed by -1 reads back as 18446744073709551615, a 1-byte varint for
 * 20 bytes out. Over a line of a million of them, a few kilobytes of zstd
 * would decode to 21 MB against a bound of 2: the bound holds inside the
 * line, not only after it.
 */
static void test_rec_diff_bomb(void **state)
{
	const size_t nums = 1000000, max = 2 * nums + 1;
	struct strbuf prev = { 0 }, diff = { 0 }, out = { 0 };

	(void)state;
	for (size_t i = 0; i < nums; i++)
		sb_append(&prev, "0 ", 2);
	sb_putc(&prev, '\n');
	sb_putc(&diff, 2); /* NUMS */
	for (size_t i = 0; i < nums; i++)
		sb_putc(&diff, 1); /* zigzag 1: -1 */
	assert_false(prev.err || diff.err);
	assert_int_equal(rec_diff_decode(prev.buf, prev.len, diff.buf, diff.len, max, &out),
			 -EFBIG);
	/* what the decoder held: about the bound, never ten times it */
	assert_true(out.cap <= 2 * max + 64);
	/* the same through SPARSE: a million pairs (0 unchanged before, -1) */
	sb_reset(&diff);
	sb_putc(&diff, 4);
	sb_append(&diff, "\xc0\x84\x3d", 3); /* varint 1000000 */
	for (size_t i = 0; i < nums; i++)
		sb_append(&diff, "\x00\x01", 2);
	sb_free(&out);
	assert_int_equal(rec_diff_decode(prev.buf, prev.len, diff.buf, diff.len, max, &out),
			 -EFBIG);
	assert_true(out.cap <= 2 * max + 64);
	sb_free(&prev);
	sb_free(&diff);
	sb_free(&out);
}

/* Payload i of a /proc/stat-like text whose counters move; every 7th one
 * much longer than REC_FILE_STORE_MAX (compressed at once, not stored). */
static size_t payload(char *buf, size_t size, int i)
{
	size_t n = 0;
	int lines = i % 7 == 3 ? 2000 : 20;

	for (int l = 0; l < lines && n + 64 < size; l++)
		n += (size_t)snprintf(buf + n, size - n, "cpu%d %d %d %d 0 0\n", l, 1000 + i * l,
				      7 * i, l);
	return n;
}

/* The one segment in dir: its bytes (freed by the caller). */
static unsigned char *segment_bytes(const char *dir, size_t *ret_len, char *name, size_t nsize)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned char *buf = NULL;
	char path[1024];
	FILE *f;
	long len;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".iotr") && !strstr(de->d_name, ".tmp"))
			snprintf(name, nsize, "%s", de->d_name);
	closedir(d);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*ret_len = (size_t)len;
	return buf;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Counts the frames of a segment's bytes with their flags' stored bit. */
static void count_frames(const unsigned char *b, size_t len, int *ret_all, int *ret_stored)
{
	size_t off = le32(b + 12);

	*ret_all = *ret_stored = 0;
	while (off + 52 <= len) {
		(*ret_all)++;
		*ret_stored += (le32(b + off + 4) & 4) != 0;
		off += 52 + le32(b + off + 8);
	}
}

/* Every payload read back, equal, in order, with no problem (every 7th
 * one short with short_only, as write_frames() writes it); the number of
 * segments. */
static size_t read_back(const char *dir, int n, bool short_only)
{
	static char want[256 << 10];
	struct recreader *r;
	struct recframe f;
	char why[256];
	size_t segs;
	int i = 0;

	assert_int_equal(recreader_open(dir, &r, why, sizeof(why)), 0);
	segs = recreader_segments(r);
	while (recreader_next(r, &f) == 1) {
		size_t len = payload(want, sizeof(want), short_only && i % 7 == 3 ? 4 : i);

		assert_int_equal(f.id, (uint64_t)i + 1);
		assert_int_equal(f.len, len);
		assert_memory_equal(f.payload, want, len);
		i++;
	}
	assert_int_equal(i, n);
	assert_null(recreader_take_problems(r, NULL));
	recreader_close(r);
	return segs;
}

/* Into o->dirfd (opened on the new directory dir, a mkdtemp template),
 * n frames of payload(i) a second apart, every 7th one long but with
 * short_only (payload(4) there instead); the writer closed. */
static void write_frames(char *dir, struct recwriter_opts *o, int n, bool short_only)
{
	static char buf[256 << 10];
	struct recwriter *w;

	assert_non_null(mkdtemp(dir));
	o->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(o->dirfd >= 0);
	assert_int_equal(recwriter_open(o, &w), 0);
	for (int i = 0; i < n; i++) {
		size_t len = payload(buf, sizeof(buf), short_only && i % 7 == 3 ? 4 : i);

		assert_int_equal(
		    recwriter_append(w, (uint64_t)i + 1, (int64_t)i * 1000000000,
				     INT64_C(1700000000000000000) + (int64_t)i * 1000000000, buf,
				     len),
		    1);
	}
	recwriter_close(w);
}

/* rm -r of write_frames()' directory, and its fd closed. */
static void remove_frames(const char *dir, int dirfd)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd, de->d_name, 0);
	closedir(d);
	close(dirfd);
	rmdir(dir);
}

static void test_store_and_seal(void **state)
{
	static char buf[256 << 10];
	char dir[] = "/tmp/iotr-rec_file-XXXXXX", name[256];
	struct recwriter_opts o = {
		.interval_ms = 1000, .host = "h", .mode = "daemon", .store = true, .run_id = 7
	};
	struct recwriter_compact_stats st = { 0 };
	struct recwriter *w;
	unsigned char *seg;
	size_t len, before;
	int all, stored, i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	o.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(o.dirfd >= 0);
	assert_int_equal(recwriter_open(&o, &w), 0);
	for (i = 0; i < 70; i++) {
		size_t n = payload(buf, sizeof(buf), i);

		assert_int_equal(
		    recwriter_append(w, (uint64_t)i + 1, (int64_t)i * 1000000000,
				     INT64_C(1700000000000000000) + (int64_t)i * 1000000000, buf,
				     n),
		    1);
	}
	/* the segment being written: stored, never sealed */
	assert_int_equal(recwriter_seal(w, 0, NULL, &st), 0);
	recwriter_close(w);
	seg = segment_bytes(dir, &len, name, sizeof(name));
	assert_int_equal(le32(seg + 8), REC_FILE_VERSION);
	assert_int_equal(le32(seg + 164) & 1, 1); /* the header says: stored */
	count_frames(seg, len, &all, &stored);
	assert_int_equal(all, 70);
	assert_int_equal(stored, 70 - 10); /* the ten long ones compressed */
	before = len;
	read_back(dir, 70, false);
	{
		/* the same bytes claiming version 3, which had no stored frame:
		 * those frames are of an unknown kind, skipped and said, never
		 * taken for zstd or for a payload */
		unsigned char *v3 = malloc(len);
		char path[1024], why[256];
		struct recreader *r;
		struct recframe f;
		const char *probs;
		FILE *fp;
		int got = 0;

		assert_non_null(v3);
		memcpy(v3, seg, len);
		v3[8] = 3;
		{
			uint32_t c = rec_crc32c(0, v3, 252);

			memcpy(v3 + 252, &c, 4); /* little-endian hosts */
		}
		snprintf(path, sizeof(path), "%s/v3.iotr", dir);
		fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(v3, 1, len, fp), len);
		fclose(fp);
		assert_int_equal(recreader_open(path, &r, why, sizeof(why)), 0);
		while (recreader_next(r, &f) == 1)
			got++;
		probs = recreader_take_problems(r, NULL);
		assert_non_null(probs);
		assert_non_null(strstr(probs, "unknown kind"));
		assert_true(got < 70);
		recreader_close(r);
		unlink(path);
		free(v3);
	}
	free(seg);

	/* not while its copy would take the filesystem under the floor */
	o.store = false;
	o.min_free = (uint64_t)1 << 62;
	assert_int_equal(recwriter_open(&o, &w), 0);
	assert_int_equal(recwriter_seal(w, 0, NULL, &st), 0);
	recwriter_close(w);
	o.min_free = 0;
	/* a later writer seals it: compressed, every frame kept, same bytes read */
	assert_int_equal(recwriter_open(&o, &w), 0);
	assert_int_equal(recwriter_seal(w, 0, NULL, &st), 1);
	assert_int_equal(st.segments, 1);
	assert_int_equal(st.frames_in, 70);
	assert_int_equal(st.frames_kept, 70);
	/* sealed once: nothing more to do */
	assert_int_equal(recwriter_seal(w, 0, NULL, &st), 0);
	recwriter_close(w);
	seg = segment_bytes(dir, &len, name, sizeof(name));
	assert_int_equal(le32(seg + 164) & 1, 0);
	count_frames(seg, len, &all, &stored);
	assert_int_equal(all, 70);
	assert_int_equal(stored, 0);
	assert_true(len < before);
	free(seg);
	read_back(dir, 70, false);

	{
		char path[1024];

		snprintf(path, sizeof(path), "%s/%s", dir, name);
		unlink(path);
		rmdir(dir);
	}
	close(o.dirfd);
}

/* A segment with a damaged frame is not sealed: left byte for byte as it
 * is, for the reader to report what it lost. */
static void test_seal_leaves_damage(void **state)
{
	char dir[] = "/tmp/iotr-rec_file-XXXXXX", name[256], path[1024];
	struct recwriter_opts o = { .interval_ms = 1000, .store = true, .run_id = 9 };
	struct recwriter_compact_stats st = { 0 };
	struct recwriter *w;
	unsigned char *seg, *again;
	size_t len, len2, off;
	FILE *f;

	(void)state;
	write_frames(dir, &o, 10, true);
	seg = segment_bytes(dir, &len, name, sizeof(name));
	/* a bit of the 6th frame's bytes */
	off = le32(seg + 12);
	for (int k = 0; k < 5; k++)
		off += 52 + le32(seg + off + 8);
	seg[off + 52 + 3] ^= 0x10;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fwrite(seg, 1, len, f), len);
	fclose(f);
	assert_int_equal(recwriter_open(&o, &w), 0);
	assert_int_equal(recwriter_seal(w, 0, NULL, &st), 0);
	recwriter_close(w);
	again = segment_bytes(dir, &len2, name, sizeof(name));
	assert_int_equal(len2, len);
	assert_memory_equal(again, seg, len);
	free(again);
	free(seg);
	unlink(path);
	rmdir(dir);
	close(o.dirfd);
}

struct sealer {
	struct recwriter *w;
	int stop;
	struct recwriter_compact_stats st;
	uint64_t sealed; /* st.segments, for the other thread (atomic) */
	int err;
};

static void *sealer_main(void *arg)
{
	struct sealer *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		int r = recwriter_seal(s->w, 0, &s->stop, &s->st);

		if (r < 0 && r != -ECANCELED)
			s->err = r;
		__atomic_store_n(&s->sealed, s->st.segments, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The daemon's two threads: one appends (segments rotating every 60
 * frames) while the other seals whatever is closed, over and over; every
 * frame reads back, in order, equal, and the segment being written is
 * never sealed under it (the threaded builds check the locking). */
static void test_seal_concurrent(void **state)
{
	static char buf[256 << 10];
	char dir[] = "/tmp/iotr-rec_file-XXXXXX";
	struct recwriter_opts o = {
		.interval_ms = 1000, .store = true, .run_id = 11, .max_bytes = (uint64_t)4 << 20
	};
	struct recwriter_compact_stats st = { 0 };
	struct sealer sl = { 0 };
	pthread_t th;
	const int n = 600;

	(void)state;
	assert_non_null(mkdtemp(dir));
	o.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(o.dirfd >= 0);
	assert_int_equal(recwriter_open(&o, &sl.w), 0);
	assert_int_equal(pthread_create(&th, NULL, sealer_main, &sl), 0);
	for (int i = 0; i < n; i++) {
		size_t len = payload(buf, sizeof(buf), i % 7 == 3 ? 4 : i);

		/* a minute apart: a new segment every hour, every 60 frames */
		assert_int_equal(
		    recwriter_append(sl.w, (uint64_t)i + 1, (int64_t)i * 60000000000,
				     INT64_C(1700000000000000000) + (int64_t)i * 60000000000, buf,
				     len),
		    1);
		/* half way, until the sealer has sealed one (5 s at most),
		 * then on while it seals the rest */
		for (int k = 0;
		     i == n / 2 && k < 5000 && !__atomic_load_n(&sl.sealed, __ATOMIC_ACQUIRE); k++)
			usleep(1000);
		if (i % 20 == 0)
			usleep(200);
	}
	__atomic_store_n(&sl.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	assert_int_equal(sl.err, 0);
	assert_true(sl.st.segments > 0); /* it did seal while the other wrote */
	recwriter_close(sl.w);
	/* the last one, closed now */
	assert_int_equal(recwriter_open(&o, &sl.w), 0);
	assert_int_equal(recwriter_seal(sl.w, 0, NULL, &st), 1);
	recwriter_close(sl.w);
	assert_true(read_back(dir, n, true) > 5);
	remove_frames(dir, o.dirfd);
}

/* A recording handed over may hold a FIFO or a device node by a segment's
 * name: never opened (no wait on the FIFO; a free major's node would
 * answer its open with ENXIO): not listed as segments, refused when named
 * on the command line, and skipped and said when a segment becomes one
 * after it was listed. */
static void test_reader_not_regular(void **state)
{
	char dir[] = "/tmp/iotr-rec_file-XXXXXX", p[1024], name[256], why[256];
	struct recwriter_opts o = { .interval_ms = 1000, .run_id = 5 };
	unsigned major_free = tree_free_char_major();
	struct recreader *r;
	struct recframe f;
	const char *probs;
	unsigned char *seg;
	size_t len;
	int got = 0;

	(void)state;
	write_frames(dir, &o, 5, true);
	seg = segment_bytes(dir, &len, name, sizeof(name));
	free(seg);
	snprintf(p, sizeof(p), "%s/1600000000000-0000000000000001.iotr", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/1600000000001-0000000000000002.iotr", dir);
	if (!major_free || mknod(p, S_IFCHR | 0600, makedev(major_free, 0)) < 0)
		print_message("no free char major or mknod refused: device case not run\n");
	assert_int_equal(recreader_open(dir, &r, why, sizeof(why)), 0);
	while (recreader_next(r, &f) == 1)
		got++;
	assert_int_equal(got, 5);
	assert_null(recreader_take_problems(r, NULL));
	recreader_close(r);
	/* the FIFO itself, named on the command line: refused, not waited on */
	snprintf(p, sizeof(p), "%s/1600000000000-0000000000000001.iotr", dir);
	assert_int_equal(recreader_open(p, &r, why, sizeof(why)), -EINVAL);
	/* a segment named on the command line that becomes a FIFO once opened */
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(recreader_open(p, &r, why, sizeof(why)), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(recreader_next(r, &f), 0);
	probs = recreader_take_problems(r, NULL);
	assert_non_null(probs);
	assert_non_null(strstr(probs, "not a regular file"));
	recreader_close(r);
	remove_frames(dir, o.dirfd);
}

/* The frames read back from seg's bytes (written to path): each must be
 * the payload recorded for its sample (never a value decoded against the
 * wrong base); returns which samples came back in got[] and checks that
 * every message's frame number is its sample's (ids are frame + 1 here). */
static void read_damaged(const char *path, const unsigned char *seg, size_t len, int n, bool got[])
{
	static char want[256 << 10];
	struct recreader *r;
	struct recframe f;
	const char *probs, *p;
	char why[256];
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(seg, 1, len, fp), len);
	fclose(fp);
	memset(got, 0, (size_t)n * sizeof(*got));
	assert_int_equal(recreader_open(path, &r, why, sizeof(why)), 0);
	while (recreader_next(r, &f) == 1) {
		size_t wl;

		assert_true(f.id >= 1 && f.id <= (uint64_t)n);
		wl = payload(want, sizeof(want), f.id % 7 == 4 ? 4 : (int)f.id - 1);
		assert_int_equal(f.len, wl);
		assert_memory_equal(f.payload, want, wl);
		got[f.id - 1] = true;
	}
	probs = recreader_take_problems(r, NULL);
	for (p = probs; p && (p = strstr(p, ": frame ")); p++) {
		unsigned long long num, id;

		assert_int_equal(sscanf(p, ": frame %llu (sample %llu)", &num, &id), 2);
		/* a frame that fails its CRC may have had its sample id hit */
		if (!strncmp(strchr(p, ')'), ") fails its CRC", 15))
			continue;
		if (num + 1 != id)
			fail_msg("message numbers frame %llu for sample %llu: %s", num, id, probs);
	}
	recreader_close(r);
}

/* One byte of a delta frame's header changed (every offset, four ways),
 * in a live segment (stored frames) and a compressed one: every frame
 * read back is the one recorded, none after the damage decodes until the
 * next key frame, and everything from that key frame on comes back. */
static void test_damaged_frame_header(void **state)
{
	const unsigned char ways[4][2] = { { 0x01, 0 }, { 0x80, 0 }, { 0, 0x00 }, { 0, 0xff } };
	enum { N = 30, KEY = 10, HIT = 13 };
	bool got[N];

	(void)state;
	for (int store = 0; store < 2; store++) {
		char dir[] = "/tmp/iotr-rec_file-XXXXXX", name[256], path[1024];
		struct recwriter_opts o = { .interval_ms = 1000, .run_id = 3, .key_every = KEY };
		unsigned char *seg, *copy;
		size_t len, off;

		o.store = store;
		write_frames(dir, &o, N, true);
		seg = segment_bytes(dir, &len, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/copy-%s", dir, name);
		copy = malloc(len);
		assert_non_null(copy);
		off = le32(seg + 12);
		for (int k = 0; k < HIT; k++)
			off += 52 + le32(seg + off + 8);
		for (size_t at = 0; at < 52; at++)
			for (int w = 0; w < 4; w++) {
				memcpy(copy, seg, len);
				if (ways[w][0])
					copy[off + at] ^= ways[w][0];
				else
					copy[off + at] = ways[w][1];
				read_damaged(path, copy, len, N, got);
				for (int i = 0; i < N; i++)
					if (!got[i] && (i < HIT || i >= (HIT / KEY + 1) * KEY))
						fail_msg("store %d, byte %zu of frame %d's header "
							 "changed (way %d): frame %d lost",
							 store, at, HIT, w, i);
			}
		unlink(path);
		free(copy);
		free(seg);
		remove_frames(dir, o.dirfd);
	}
}

/* One byte of the segment header changed, in the header or in its copy
 * (format version 5): every frame still reads back, the first header's
 * damage said once. */
static void test_damaged_segment_header(void **state)
{
	char dir[] = "/tmp/iotr-rec_file-XXXXXX", name[256], path[1024];
	struct recwriter_opts o = { .interval_ms = 1000, .run_id = 4, .key_every = 10 };
	enum { N = 12 };
	unsigned char *seg, *copy;
	bool got[N];
	size_t len;

	(void)state;
	o.store = true;
	write_frames(dir, &o, N, true);
	seg = segment_bytes(dir, &len, name, sizeof(name));
	assert_int_equal(le32(seg + 8), REC_FILE_VERSION);
	assert_int_equal(le32(seg + 12), REC_FILE_HDR_BYTES);
	snprintf(path, sizeof(path), "%s/copy-%s", dir, name);
	copy = malloc(len);
	assert_non_null(copy);
	for (size_t at = 0; at < REC_FILE_HDR_BYTES; at++)
		for (int w = 0; w < 2; w++) {
			memcpy(copy, seg, len);
			copy[at] ^= w ? 0xff : 0x01;
			read_damaged(path, copy, len, N, got);
			for (int i = 0; i < N; i++)
				if (!got[i])
					fail_msg("byte %zu of the segment header changed: frame %d "
						 "lost",
						 at, i);
		}
	unlink(path);
	free(copy);
	free(seg);
	remove_frames(dir, o.dirfd);
}

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The writer's own thread (recwriter_start_thread): every frame written
 * in order, the same bytes as a synchronous writer's; the counts
 * published. A frame flagged as written after dropped samples (flag 8)
 * starts a new run in the reader and breaks no delta chain. */
static void test_writer_thread(void **state)
{
	static char buf[256 << 10];
	char dir[] = "/tmp/iotr-rec_file-XXXXXX", name[256], path[1024], why[256];
	struct recwriter_opts o = { .interval_ms = 1000, .run_id = 6, .key_every = 10 };
	struct recwriter_stats st;
	struct recwriter *w;
	struct recreader *r;
	struct recframe f;
	struct strbuf sb = { 0 };
	unsigned char *seg;
	size_t len, off;
	enum { N = 40 };
	int i = 0;

	(void)state;
	o.store = true;
	assert_non_null(mkdtemp(dir));
	o.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(o.dirfd >= 0);
	assert_int_equal(recwriter_open(&o, &w), 0);
	assert_int_equal(recwriter_start_thread(w), 0);
	for (i = 0; i < N; i++) {
		size_t n = payload(buf, sizeof(buf), i % 7 == 3 ? 4 : i);

		sb_reset(&sb);
		sb_append(&sb, buf, n);
		/* half through the buffer-taking way the daemon uses */
		assert_int_equal(
		    i % 2 ? recwriter_append_take(
				w, (uint64_t)i + 1, (int64_t)i * 1000000000,
				INT64_C(1700000000000000000) + (int64_t)i * 1000000000, &sb)
			  : recwriter_append(w, (uint64_t)i + 1, (int64_t)i * 1000000000,
					     INT64_C(1700000000000000000) + (int64_t)i * 1000000000,
					     buf, n),
		    1);
	}
	recwriter_stats(w, &st);
	assert_int_equal(st.queue_max, REC_FILE_QUEUE_MAX);
	assert_int_equal(st.dropped, 0);
	recwriter_close(w);
	sb_free(&sb);
	assert_int_equal(read_back(dir, N, true), 1);
	/* frame 15 (a delta frame) flagged as after dropped samples */
	seg = segment_bytes(dir, &len, name, sizeof(name));
	off = le32(seg + 12);
	for (int k = 0; k < 15; k++)
		off += 52 + le32(seg + off + 8);
	put_le32(seg + off + 4, le32(seg + off + 4) | 8);
	put_le32(seg + off + 48,
		 rec_crc32c(rec_crc32c(0, seg + off, 48), seg + off + 52, le32(seg + off + 8)));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	{
		FILE *fp = fopen(path, "wb");

		assert_non_null(fp);
		assert_int_equal(fwrite(seg, 1, len, fp), len);
		fclose(fp);
	}
	assert_int_equal(recreader_open(dir, &r, why, sizeof(why)), 0);
	for (i = 0; recreader_next(r, &f) == 1; i++) {
		size_t n = payload(buf, sizeof(buf), i % 7 == 3 ? 4 : i);

		assert_int_equal(f.id, (uint64_t)i + 1);
		assert_int_equal(f.len, n);
		assert_memory_equal(f.payload, buf, n);
		assert_int_equal(f.new_run, i == 0 || i == 15);
	}
	assert_int_equal(i, N);
	assert_null(recreader_take_problems(r, NULL));
	recreader_close(r);
	free(seg);
	remove_frames(dir, o.dirfd);
}

/* A sample that is not written (here: too big) makes the next frame
 * written start a new run in the reader (frame flag 8), with the writer's
 * thread or without: a replay never carries rows across a missing sample. */
static void test_gap_after_unwritten(void **state)
{
	static char buf[256 << 10];

	(void)state;
	for (int threaded = 0; threaded < 2; threaded++) {
		char dir[] = "/tmp/iotr-rec_file-XXXXXX", why[256];
		struct recwriter_opts o = { .interval_ms = 1000, .run_id = 8, .key_every = 10 };
		struct recwriter *w;
		struct recreader *r;
		struct recframe f;
		int i, n = 0;

		o.store = true;
		assert_non_null(mkdtemp(dir));
		o.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(o.dirfd >= 0);
		assert_int_equal(recwriter_open(&o, &w), 0);
		if (threaded)
			assert_int_equal(recwriter_start_thread(w), 0);
		for (i = 0; i < 12; i++) {
			size_t len = i == 5 ? REC_FILE_RAW_MAX + 1
					    : payload(buf, sizeof(buf), i % 7 == 3 ? 4 : i);

			assert_int_equal(
			    recwriter_append(w, (uint64_t)i + 1, (int64_t)i * 1000000000,
					     INT64_C(1700000000000000000) + (int64_t)i * 1000000000,
					     buf, len),
			    i == 5 ? -EFBIG : 1);
		}
		recwriter_close(w);
		assert_int_equal(recreader_open(dir, &r, why, sizeof(why)), 0);
		while (recreader_next(r, &f) == 1) {
			size_t len = payload(buf, sizeof(buf), f.id % 7 == 4 ? 4 : (int)f.id - 1);

			assert_int_not_equal(f.id, 6);
			assert_int_equal(f.len, len);
			assert_memory_equal(f.payload, buf, len);
			assert_int_equal(f.new_run, f.id == 1 || f.id == 7);
			n++;
		}
		assert_int_equal(n, 11);
		assert_null(recreader_take_problems(r, NULL));
		recreader_close(r);
		remove_frames(dir, o.dirfd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_crc32c_every_length),
		cmocka_unit_test(test_rec_diff_roundtrip),
		cmocka_unit_test(test_rec_diff_long_lines),
		cmocka_unit_test(test_rec_diff_hostile),
		cmocka_unit_test(test_rec_diff_bomb),
		cmocka_unit_test(test_store_and_seal),
		cmocka_unit_test(test_seal_leaves_damage),
		cmocka_unit_test(test_seal_concurrent),
		cmocka_unit_test(test_reader_not_regular),
		cmocka_unit_test(test_damaged_frame_header),
		cmocka_unit_test(test_damaged_segment_header),
		cmocka_unit_test(test_writer_thread),
		cmocka_unit_test(test_gap_after_unwritten),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
