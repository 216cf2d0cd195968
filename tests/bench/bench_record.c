// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's costs (doc/PERFORMANCE.md, "Flight recorder"):
 *
 *   bench_record size SRC          re-records SRC's payloads at each zstd
 *                                  level: bytes per sample (key frames
 *                                  included) and CPU per sample
 *   bench_record week SRC OUT [DAYS]  writes a DAYS-day (default 7) 1 Hz
 *                                  recording into OUT (a 0700 directory)
 *                                  from SRC's payloads, cycled, with
 *                                  synthetic times one second apart
 *   bench_record day SRC OUT [HOURS [KEEP]]  writes HOURS (default 24)
 *                                  of 1 Hz from SRC's payloads (cycled, one
 *                                  second apart) into OUT (a 0700 directory)
 *                                  and compacts all but the last hour keeping
 *                                  one sample in KEEP (default 10): the
 *                                  recording a daemon with the default
 *                                  compaction leaves (iotriage report's
 *                                  benchmark, tests/bench/bench_report.sh)
 *   bench_record compact SRC KEEP [MINUTES]  records MINUTES (default
 *                                  60) of 1 Hz from SRC's payloads (forward,
 *                                  then backward, and so on: no wrap), then
 *                                  compacts all but the last segment keeping
 *                                  one sample in KEEP: bytes/sample before
 *                                  and after, compaction CPU per sample, and
 *                                  what 24 h (the last hour full) average
 *   bench_record seek DIR [N]      N (default 50) seeks to random minutes of
 *                                  DIR: open + seek + first sample replayed,
 *                                  each in a fresh process state (mean, max)
 *   bench_record iofloor DIR [BYTES]  the kernel's part of a frame, with the
 *                                  caches cold as at 1 Hz (64 MiB touched
 *                                  between frames): BYTES (default 560, a
 *                                  stored frame here) a frame into a file in
 *                                  DIR, an fdatasync every 10 frames, by
 *                                  write(), by a store into a shared mapping
 *                                  (sparse; and the file zero-filled first)
 *
 * SRC is a recording (a directory or a segment) made by iotriaged --record.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "rec_file.h"
#include "sampler.h"

struct payloads {
	char **p;
	size_t *len;
	size_t n;
};

static double now_s(clockid_t id)
{
	return (double)clock_ns(id) / 1e9;
}

static int load(const char *src, struct payloads *ret)
{
	struct recreader *r;
	struct recframe f;
	char why[512];
	size_t cap = 0;

	if (recreader_open(src, &r, why, sizeof(why)) < 0) {
		fprintf(stderr, "bench_record: %s\n", why);
		return -1;
	}
	memset(ret, 0, sizeof(*ret));
	while (recreader_next(r, &f) > 0) {
		if (ret->n == cap) {
			cap = cap ? cap * 2 : 64;
			ret->p = realloc(ret->p, cap * sizeof(*ret->p));
			ret->len = realloc(ret->len, cap * sizeof(*ret->len));
			if (!ret->p || !ret->len)
				return -1;
		}
		ret->p[ret->n] = malloc(f.len ? f.len : 1);
		if (!ret->p[ret->n])
			return -1;
		memcpy(ret->p[ret->n], f.payload, f.len);
		ret->len[ret->n++] = f.len;
	}
	recreader_close(r);
	return ret->n ? 0 : -1;
}

static void payloads_free(struct payloads *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		free(pl->p[i]);
	free(pl->p);
	free(pl->len);
	memset(pl, 0, sizeof(*pl));
}

static int mkdir_private(const char *dir)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int cmd_size(const char *src)
{
	static const int levels[] = { 1, 3, 6, 9 };
	struct payloads pl;
	char dir[] = "/tmp/bench_record.XXXXXX";

	if (load(src, &pl) < 0 || !mkdtemp(dir))
		return 1;
	printf("%zu samples of %zu bytes (the first) from %s\n", pl.n, pl.len[0], src);
	printf("%-6s %14s %14s\n", "level", "bytes/sample", "cpu us/sample");
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		struct recwriter_opts o = { .interval_ms = 1000,
					    .max_bytes = (uint64_t)1 << 40,
					    .level = levels[l],
					    .run_id = 1 };
		struct recwriter_stats st;
		struct recwriter *w;
		char sub[64];
		double t0;
		int fd;

		snprintf(sub, sizeof(sub), "%s/l%d", dir, levels[l]);
		fd = mkdir_private(sub);
		o.dirfd = fd;
		if (fd < 0 || recwriter_open(&o, &w) < 0)
			return 1;
		/* 3 rounds: key frames at their real share (1 in 60) */
		t0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		for (size_t k = 0; k < 3 * pl.n; k++)
			recwriter_append(w, k + 1, (int64_t)k * 1000000000,
					 (int64_t)(k + 1) * 1000000000, pl.p[k % pl.n],
					 pl.len[k % pl.n]);
		t0 = now_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
		recwriter_stats(w, &st);
		recwriter_close(w);
		close(fd);
		printf("%-6d %14.0f %14.0f\n", levels[l],
		       (double)(st.bytes - REC_FILE_HDR_BYTES * st.segments) / (double)st.frames,
		       t0 * 1e6 / (double)st.frames);
	}
	/* the re-recordings are scratch (written in /tmp, ours alone) */
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static int cmd_week(const char *src, const char *out, int days)
{
	struct recwriter_opts o = { .interval_ms = 1000,
				    .max_bytes = (uint64_t)1 << 40,
				    .run_id = 7 };
	int64_t n = (int64_t)days * 86400, base = INT64_C(1700000000) * 1000000000;
	struct recwriter_stats st;
	struct payloads pl;
	struct recwriter *w;
	int fd;

	if (load(src, &pl) < 0)
		return 1;
	fd = mkdir_private(out);
	o.dirfd = fd;
	if (fd < 0 || recwriter_open(&o, &w) < 0) {
		payloads_free(&pl);
		return 1;
	}
	for (int64_t k = 0; k < n; k++)
		recwriter_append(w, (uint64_t)k + 1, k * 1000000000, base + k * 1000000000,
				 pl.p[k % (int64_t)pl.n], pl.len[k % (int64_t)pl.n]);
	recwriter_stats(w, &st);
	recwriter_close(w);
	printf("%lld samples, %llu bytes in %llu segments (%.0f bytes/sample)\n", (long long)n,
	       (unsigned long long)st.bytes, (unsigned long long)st.segments,
	       (double)st.bytes / (double)n);
	return 0;
}

static int cmd_day(const char *src, const char *out, int hours, unsigned keep)
{
	struct recwriter_opts o = { .interval_ms = 1000,
				    .max_bytes = (uint64_t)1 << 40,
				    .run_id = 11 };
	int64_t n = (int64_t)hours * 3600, base = INT64_C(1700000000) * 1000000000;
	struct recwriter_compact_stats cs = { 0 };
	struct recwriter_stats st;
	struct payloads pl;
	struct recwriter *w;
	int fd, r;

	if (hours < 1 || keep < 2 || load(src, &pl) < 0)
		return 1;
	fd = mkdir_private(out);
	o.dirfd = fd;
	if (fd < 0 || recwriter_open(&o, &w) < 0) {
		payloads_free(&pl);
		return 1;
	}
	for (int64_t k = 0; k < n; k++)
		recwriter_append(w, (uint64_t)k + 1, k * 1000000000, base + k * 1000000000,
				 pl.p[k % (int64_t)pl.n], pl.len[k % (int64_t)pl.n]);
	/* the daemon's defaults: --record-compact-after 1h, --record-compact-keep 10 */
	/* a second after the last sample: the last hour stays whole */
	r = recwriter_compact(w, base + (n + 1) * 1000000000, 3600, keep, 0, NULL, &cs);
	recwriter_stats(w, &st);
	recwriter_close(w);
	close(fd);
	payloads_free(&pl);
	if (r < 0)
		return 1;
	printf("%lld samples, %llu compacted to %llu: %llu bytes in %llu segments\n", (long long)n,
	       (unsigned long long)cs.frames_in, (unsigned long long)cs.frames_kept,
	       (unsigned long long)st.bytes, (unsigned long long)st.segments);
	return 0;
}

static int cmd_compact(const char *src, unsigned keep, int minutes)
{
	struct recwriter_opts o = { .interval_ms = 1000,
				    .max_bytes = (uint64_t)1 << 40,
				    .run_id = 9 };
	struct recwriter_compact_stats cs = { 0 };
	struct recwriter_stats st;
	struct recwriter *w;
	struct payloads pl;
	char dir[] = "/tmp/bench_record.XXXXXX";
	int64_t n = (int64_t)minutes * 60, base = INT64_C(1700000000) * 1000000000;
	double t0, rec_s, full, thin, day;
	int fd, r;

	if (load(src, &pl) < 0 || !mkdtemp(dir) || (fd = mkdir_private(dir)) < 0)
		return 1;
	o.dirfd = fd;
	if (recwriter_open(&o, &w) < 0)
		return 1;
	t0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	for (int64_t k = 0; k < n; k++) {
		/* 0 1 .. n-1 n-2 .. 1 0 1 ..: every step one sample's change */
		size_t period = pl.n > 1 ? 2 * (pl.n - 1) : 1, i = (size_t)k % period;

		if (i >= pl.n)
			i = period - i;
		recwriter_append(w, (uint64_t)k + 1, k * 1000000000, base + k * 1000000000, pl.p[i],
				 pl.len[i]);
	}
	rec_s = now_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
	recwriter_stats(w, &st);
	full = (double)(st.bytes - REC_FILE_HDR_BYTES * st.segments) / (double)st.frames;
	r = recwriter_compact(w, base + n * 1000000000, 0, keep, 0, NULL, &cs);
	recwriter_close(w);
	close(fd);
	if (r < 0 || !cs.frames_in) {
		fprintf(stderr, "bench_record: compaction: %s\n",
			r < 0 ? strerror(-r) : "nothing (one segment: record more minutes)");
		nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
		return 1;
	}
	thin = (double)cs.bytes_after / (double)cs.frames_in;
	day = (full * 3600 + thin * 23 * 3600) / 86400;
	printf("%zu payloads of %zu bytes from %s, %d minutes at 1 Hz: %" PRIu64 " segments\n",
	       pl.n, pl.len[0], src, minutes, st.segments);
	printf("recording: %.0f bytes/sample, %.0f us CPU/sample\n", full,
	       rec_s * 1e6 / (double)st.frames);
	printf("compacted 1 in %u: %" PRIu64 " segments, %" PRIu64 " of %" PRIu64
	       " samples kept, %.0f bytes per original sample (%.0f per kept one), "
	       "%.0f us CPU per original sample\n",
	       keep, cs.segments, cs.frames_kept, cs.frames_in, thin,
	       (double)cs.bytes_after / (double)cs.frames_kept,
	       (double)cs.cpu_ns / 1e3 / (double)cs.frames_in);
	printf("24 h (the last hour full, 23 h compacted): %.0f bytes/sample; 1 GiB holds %.1f "
	       "days, 256 MiB %.1f\n",
	       day, (double)(1 << 30) / day / 86400, (double)(256 << 20) / day / 86400);
	nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static int cmd_seek(const char *dir, int n)
{
	double sum = 0, max = 0;
	int64_t first, last;
	struct sampler_replay *rp;
	char why[512];

	if (sampler_replay_open(dir, &rp, why, sizeof(why)) < 0 ||
	    sampler_replay_span(rp, &first, &last) <= 0) {
		fprintf(stderr, "bench_record: %s: no recording\n", dir);
		return 1;
	}
	sampler_replay_close(rp);
	srand(42);
	for (int i = 0; i < n; i++) {
		int64_t minutes = (last - first) / 60000000000;
		int64_t t = first + (int64_t)(rand() % (int)(minutes ? minutes : 1)) * 60000000000;
		const struct recframe *f;
		double t0 = now_s(CLOCK_MONOTONIC), dt;

		/* everything a `replay --at` does: open, seek, the first document */
		if (sampler_replay_open(dir, &rp, why, sizeof(why)) < 0 ||
		    sampler_replay_seek(rp, t, false) <= 0 || sampler_replay_next(rp, &f) <= 0 ||
		    !sampler_json(sampler_replay_sampler(rp), NULL)) {
			fprintf(stderr, "bench_record: seek %d failed\n", i);
			return 1;
		}
		sampler_replay_close(rp);
		dt = now_s(CLOCK_MONOTONIC) - t0;
		sum += dt;
		if (dt > max)
			max = dt;
	}
	printf("%d seeks to a random minute of %.1f days: mean %.1f ms, max %.1f ms\n", n,
	       (double)(last - first) / 86400e9, sum / n * 1e3, max * 1e3);
	return 0;
}

/* One way of putting a frame where kill -9 cannot take it: 0 write(),
 * 1 store into a mapping of a sparse file, 2 of a zero-filled one. */
static int iofloor_run(const char *path, int how, size_t bytes, char *evict, size_t evict_len)
{
	const int frames = 200;
	const size_t cap = (size_t)1 << 20;
	char *frame = malloc(bytes), *map = NULL;
	double t_put = 0, t_sync = 0;
	size_t off = 0;
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	/* O_EXCL, O_NOFOLLOW: DIR may be /tmp, where another user could have
	 * put a link by that name to a file of root's */
	if (fd < 0 || !frame || bytes * frames > cap) {
		fprintf(stderr, "bench_record: %s: %s\n", path,
			fd < 0 ? strerror(errno) : "frames too large");
		free(frame);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	memset(frame, 'x', bytes);
	if (how == 2) {
		char *z = calloc(1, cap);

		if (!z || pwrite(fd, z, cap, 0) != (ssize_t)cap || fdatasync(fd) < 0) {
			free(z);
			free(frame);
			close(fd);
			unlink(path);
			return 1;
		}
		free(z);
	} else if (how == 1 && ftruncate(fd, (off_t)cap) < 0) {
		free(frame);
		close(fd);
		unlink(path);
		return 1;
	}
	if (how) {
		map = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (map == MAP_FAILED) {
			free(frame);
			close(fd);
			unlink(path);
			return 1;
		}
	}
	for (int i = 0; i < frames; i++) {
		struct timespec gap = { 0, 10000000 };
		double t0;

		for (size_t k = 0; k < evict_len; k += 64)
			evict[k]++;
		nanosleep(&gap, NULL);
		t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
		if (how)
			memcpy(map + off, frame, bytes);
		else if (write(fd, frame, bytes) != (ssize_t)bytes)
			break;
		off += bytes;
		t_put += now_s(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (i % 10 == 9) {
			t0 = now_s(CLOCK_THREAD_CPUTIME_ID);
			fdatasync(fd);
			t_sync += now_s(CLOCK_THREAD_CPUTIME_ID) - t0;
		}
	}
	printf("%-28s %6.1f us a frame + fdatasync %6.1f us a call = %5.1f us a frame\n",
	       how == 0	  ? "write()"
	       : how == 1 ? "store, sparse mapping"
			  : "store, zero-filled mapping",
	       t_put / frames * 1e6, t_sync / (frames / 10) * 1e6, (t_put + t_sync) / frames * 1e6);
	if (map)
		munmap(map, cap);
	close(fd);
	unlink(path);
	free(frame);
	return 0;
}

static int cmd_iofloor(const char *dir, size_t bytes)
{
	const size_t evict_len = (size_t)64 << 20;
	char path[4096], *evict = malloc(evict_len);
	int e = 0;

	if (!evict)
		return 1;
	memset(evict, 1, evict_len);
	snprintf(path, sizeof(path), "%s/bench_record-iofloor.%d", dir, (int)getpid());
	printf("%zu bytes a frame, 200 frames 10 ms apart, caches cold, in %s\n", bytes, dir);
	for (int how = 0; how < 3 && !e; how++)
		e = iofloor_run(path, how, bytes, evict, evict_len);
	free(evict);
	return e;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "size") == 0)
		return cmd_size(argv[2]);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "week") == 0)
		return cmd_week(argv[2], argv[3], argc == 5 ? atoi(argv[4]) : 7);
	if (argc >= 4 && argc <= 6 && strcmp(argv[1], "day") == 0)
		return cmd_day(argv[2], argv[3], argc >= 5 ? atoi(argv[4]) : 24,
			       argc == 6 ? (unsigned)atoi(argv[5]) : 10);
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "compact") == 0)
		return cmd_compact(argv[2], (unsigned)atoi(argv[3]),
				   argc == 5 ? atoi(argv[4]) : 60);
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "seek") == 0)
		return cmd_seek(argv[2], argc == 4 ? atoi(argv[3]) : 50);
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "iofloor") == 0)
		return cmd_iofloor(argv[2], argc == 4 ? (size_t)atol(argv[3]) : 560);
	fprintf(stderr, "usage: bench_record size SRC | week SRC OUT [DAYS] | compact SRC KEEP "
			"[MINUTES] | seek DIR [N] | iofloor DIR [BYTES]\n");
	return 2;
}
