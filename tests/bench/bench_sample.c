// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cost of one sample. Two modes:
 *
 *   bench_sample live [ROUNDS]
 *     On the live host: the full sample (collect + compute + JSON encode)
 *     beside the floor, merely pread()-ing the same five /proc files with
 *     their fds kept open. The two alternate round by round, so a noisy
 *     neighbour hurts both alike; CPU time is the process CPU clock.
 *
 *   bench_sample tree BEFORE AFTER [ROUNDS]
 *     On a recorded/generated tree (tests/fixtures/make-trees.py big-256):
 *     the files are loaded into memory once, then each round parses AFTER's
 *     bytes into reused tables and computes against BEFORE. Heap
 *     allocations are counted (malloc/calloc/realloc are wrapped at link
 *     time) to show that steady-state sampling allocates nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "encode.h"
#include "metrics.h"
#include "parse.h"
#include "snapshot.h"

static unsigned long n_allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	n_allocs++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t a, size_t b)
{
	n_allocs++;
	return __real_calloc(a, b);
}

void *__wrap_realloc(void *p, size_t n)
{
	n_allocs++;
	return __real_realloc(p, n);
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const files[] = { "/proc/uptime", "/proc/stat", "/proc/diskstats",
				     "/proc/interrupts", "/proc/softirqs" };
#define NFILES (sizeof(files) / sizeof(files[0]))

static int bench_live(int rounds)
{
	static char buf[1 << 20];
	struct collector c;
	struct snapshot s[2] = { 0 };
	struct metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct encode_opts o = { .host = "bench", .mode = "live", .whole_only = true };
	int fds[NFILES];
	double t_floor = 0, t_full = 0, t0, t_collect = 0, t_compute = 0, t1, t2;
	size_t json_bytes = 0;

	for (size_t i = 0; i < NFILES; i++) {
		fds[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "bench: %s: %s\n", files[i], strerror(errno));
			return 1;
		}
	}
	if (collector_open(NULL, &c) < 0 || collector_sample(&c, &s[0]) < 0)
		return 1;
	for (int r = 0; r < rounds; r++) {
		struct snapshot *prev = &s[r & 1], *cur = &s[!(r & 1)];

		t0 = cpu_now();
		for (size_t i = 0; i < NFILES; i++) {
			off_t off = 0;
			ssize_t n;

			while ((n = pread(fds[i], buf, sizeof(buf), off)) > 0)
				off += n;
		}
		t_floor += cpu_now() - t0;

		t0 = cpu_now();
		collector_sample(&c, cur);
		t1 = cpu_now();
		/* back-to-back samples share an uptime tick: use a fixed 1 s */
		metrics_compute(prev, cur, 100, &m);
		t2 = cpu_now();
		sb_reset(&sb);
		encode_sample(&sb, cur, &m, &o);
		t_full += cpu_now() - t0;
		t_collect += t1 - t0;
		t_compute += t2 - t1;
		json_bytes = sb.len;
	}
	printf("live host, %d rounds (alternating):\n", rounds);
	printf("  floor (pread of the 5 files): %8.1f us/sample\n", t_floor / rounds * 1e6);
	printf("  full sample (collect+compute+encode): %8.1f us/sample, JSON %zu bytes\n",
	       t_full / rounds * 1e6, json_bytes);
	printf("    of which collect %.1f us, compute %.1f us, encode %.1f us\n",
	       t_collect / rounds * 1e6, t_compute / rounds * 1e6,
	       (t_full - t_collect - t_compute) / rounds * 1e6);
	printf("  ratio full/floor: %.3f (target <= 1.25)\n", t_full / t_floor);
	for (size_t i = 0; i < NFILES; i++)
		close(fds[i]);
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s[0]);
	snapshot_free(&s[1]);
	collector_close(&c);
	return 0;
}

struct raw_tree {
	struct procfile pf[SRC__COUNT];
};

static int bench_tree(const char *before, const char *after, int rounds)
{
	struct snapshot b = { 0 }, a = { 0 };
	struct metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct encode_opts o = { .host = "bench", .mode = "compute", .whole_only = true };
	struct collector c;
	double t_parse = 0, t_compute = 0, t_encode = 0, t0;
	unsigned long allocs_before;
	size_t bytes = 0;

	if (snapshot_load_tree(before, &b) < 0 || collector_open(after, &c) < 0)
		return 1;
	/* read AFTER's files once; rounds parse them from memory */
	if (collector_sample(&c, &a) < 0)
		return 1;
	for (int i = 0; i < SRC__COUNT; i++)
		bytes += c.pf[i].len;
	metrics_compute(&b, &a, metrics_interval_cs(&b, &a), &m);
	encode_sample(&sb, &a, &m, &o);
	allocs_before = n_allocs;
	for (int r = 0; r < rounds; r++) {
		struct parse_error pe;

		t0 = cpu_now();
		uptime_parse(c.pf[SRC_UPTIME].buf, c.pf[SRC_UPTIME].len, &a.uptime, &pe);
		stat_parse(c.pf[SRC_STAT].buf, c.pf[SRC_STAT].len, &a.stat, &pe);
		diskstats_parse(c.pf[SRC_DISKSTATS].buf, c.pf[SRC_DISKSTATS].len, &a.disks, &pe);
		irqtab_parse(c.pf[SRC_INTERRUPTS].buf, c.pf[SRC_INTERRUPTS].len, false, &a.irqs,
			     &pe);
		irqtab_parse(c.pf[SRC_SOFTIRQS].buf, c.pf[SRC_SOFTIRQS].len, true, &a.softirqs,
			     &pe);
		t_parse += cpu_now() - t0;
		t0 = cpu_now();
		metrics_compute(&b, &a, metrics_interval_cs(&b, &a), &m);
		t_compute += cpu_now() - t0;
		t0 = cpu_now();
		sb_reset(&sb);
		encode_sample(&sb, &a, &m, &o);
		t_encode += cpu_now() - t0;
	}
	printf("tree %s: %zu bytes of /proc text, %zu CPUs, %zu IRQ lines, %zu disks, %d rounds\n",
	       after, bytes, a.stat.ncpu, a.irqs.n, a.disks.n, rounds);
	printf("  parse:   %8.3f ms/sample\n", t_parse / rounds * 1e3);
	printf("  compute: %8.3f ms/sample\n", t_compute / rounds * 1e3);
	printf("  parse + compute: %8.3f ms/sample (target <= 2 ms)\n",
	       (t_parse + t_compute) / rounds * 1e3);
	printf("  encode:  %8.3f ms/sample (%zu bytes of JSON)\n", t_encode / rounds * 1e3, sb.len);
	printf("  heap allocations after the first sample: %lu\n", n_allocs - allocs_before);
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&a);
	snapshot_free(&b);
	collector_close(&c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "live") == 0)
		return bench_live(argc > 2 ? atoi(argv[2]) : 2000);
	if (argc >= 4 && strcmp(argv[1], "tree") == 0)
		return bench_tree(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 50);
	fprintf(stderr, "usage: bench_sample live [ROUNDS] | tree BEFORE AFTER [ROUNDS]\n");
	return 2;
}
