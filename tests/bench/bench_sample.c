// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cost of one sample. Two modes:
 *
 *   bench_sample live|live-all [ROUNDS]
 *     On the live host: the full sample (collect + compute + JSON encode)
 *     beside the floor, merely pread()-ing the same five /proc files with
 *     their fds kept open; `live` leaves out the optional sources
 *     (turbostat, processes/NIC/pressure) that the floor does not read,
 *     `live-all` keeps them. The two alternate round by round, so a noisy
 *     neighbour hurts both alike; CPU time is the process CPU clock.
 *
 *   bench_sample tree DIR [ROUNDS]
 *     On a generated host (tests/fixtures/make-trees.py OUT big-256): the
 *     samples DIR/t0, t1, ... are loaded into memory once, then each round
 *     parses the next one into the snapshot of two samples ago (as the
 *     sampler does) and computes against the previous. Heap allocations are
 *     counted (malloc/calloc/realloc are wrapped at link time) to show that
 *     steady-state sampling allocates nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "encode.h"
#include "metrics.h"
#include "diskstats.h"
#include "irqtab.h"
#include "stat.h"
#include "uptime.h"
#include "snapshot.h"
#include "alloc_count.h"

static double cpu_now(void)
{
	return (double)clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
}

static const char *const files[] = { "/proc/uptime", "/proc/stat", "/proc/diskstats",
				     "/proc/interrupts", "/proc/softirqs" };
#define NFILES (sizeof(files) / sizeof(files[0]))

static int bench_live(int rounds, bool core_only)
{
	static char buf[1 << 20];
	struct snapshot_collector c;
	struct snapshot s[2] = { 0 };
	struct metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct encode_opts o = { .host = "bench", .mode = "live", .whole_only = true };
	int fds[NFILES];
	double t_floor = 0, t_full = 0, t0, t_collect = 0, t_compute = 0, t_encode = 0, t1, t2;
	size_t json_bytes = 0;

	for (size_t i = 0; i < NFILES; i++) {
		fds[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			fprintf(stderr, "bench: %s: %s\n", files[i], strerror(errno));
			return 1;
		}
	}
	if (snapshot_collector_open(NULL, &c) < 0)
		return 1;
	/* the floor reads the five core files: compare like with like */
	if (core_only)
		c.skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT;
	if (snapshot_collector_sample(&c, &s[0]) < 0)
		return 1;
	/* pass 1: floor and full sample alternate; no clock read inside a
	 * measured region (the process CPU clock is a syscall in a VM) */
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
		snapshot_collector_sample(&c, cur);
		/* back-to-back samples share an uptime tick: use a fixed 1 s */
		metrics_compute(prev, cur, 100, &m);
		sb_reset(&sb);
		encode_sample(&sb, cur, &m, &o);
		t_full += cpu_now() - t0;
		json_bytes = sb.len;
	}
	/* pass 2: where the time goes, phase by phase */
	for (int r = 0; r < rounds; r++) {
		struct snapshot *prev = &s[r & 1], *cur = &s[!(r & 1)];

		t0 = cpu_now();
		snapshot_collector_sample(&c, cur);
		t1 = cpu_now();
		metrics_compute(prev, cur, 100, &m);
		t2 = cpu_now();
		sb_reset(&sb);
		encode_sample(&sb, cur, &m, &o);
		t_encode += cpu_now() - t2;
		t_collect += t1 - t0;
		t_compute += t2 - t1;
	}
	printf("live host, %s, %d rounds (alternating):\n",
	       core_only ? "core sources (turbostat and processes/NIC/pressure off)"
			 : "every source",
	       rounds);
	printf("  floor (pread of the 5 files): %8.1f us/sample\n", t_floor / rounds * 1e6);
	printf("  full sample (collect+compute+encode): %8.1f us/sample, JSON %zu bytes\n",
	       t_full / rounds * 1e6, json_bytes);
	printf("    phases (separate pass): collect %.1f us, compute %.1f us, encode %.1f us\n",
	       t_collect / rounds * 1e6, t_compute / rounds * 1e6, t_encode / rounds * 1e6);
	printf("  ratio full/floor: %.3f (target <= 1.25)\n", t_full / t_floor);
	for (size_t i = 0; i < NFILES; i++)
		close(fds[i]);
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s[0]);
	snapshot_free(&s[1]);
	snapshot_collector_close(&c);
	return 0;
}

#define MAX_SAMPLES 8

/* The files of one recorded sample, read once into memory. */
struct sample_text {
	struct procfile pf[SRC__COUNT];
};

static int load_text(const char *dir, struct sample_text *st)
{
	struct root r;
	int ret = 0;

	if (root_open(dir, &r) < 0)
		return -1;
	for (int i = 0; i < SRC__COUNT; i++) {
		procfile_init(&st->pf[i], snapshot_source_path((enum src_id)i));
		if (st->pf[i].rel && procfile_read(&st->pf[i], &r) < 0)
			ret = -1;
		procfile_close(&st->pf[i]);
	}
	root_close(&r);
	return ret;
}

static void parse_text(const struct sample_text *st, struct snapshot *s)
{
	struct parse_error pe;

	uptime_parse(st->pf[SRC_UPTIME].buf, st->pf[SRC_UPTIME].len, &s->uptime, &pe);
	stat_parse(st->pf[SRC_STAT].buf, st->pf[SRC_STAT].len, &s->stat, &pe);
	diskstats_parse(st->pf[SRC_DISKSTATS].buf, st->pf[SRC_DISKSTATS].len, &s->disks, &pe);
	irqtab_parse(st->pf[SRC_INTERRUPTS].buf, st->pf[SRC_INTERRUPTS].len, false, &s->irqs, &pe);
	irqtab_parse(st->pf[SRC_SOFTIRQS].buf, st->pf[SRC_SOFTIRQS].len, true, &s->softirqs, &pe);
}

/*
 * Samples DIR/t0, DIR/t1, ... are parsed in turn into two snapshots that
 * alternate, exactly as the sampler does (each table is reused two samples
 * later), and each is computed against the one before it.
 */
static int bench_tree(const char *dir, int rounds)
{
	static struct sample_text texts[MAX_SAMPLES];
	struct snapshot s[2] = { 0 };
	struct metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct encode_opts o = { .host = "bench", .mode = "compute", .whole_only = true };
	double t_parse = 0, t_compute = 0, t_encode = 0, t0;
	unsigned long allocs_before = 0;
	int nsamples = 0;
	size_t bytes = 0;

	for (; nsamples < MAX_SAMPLES; nsamples++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/t%d", dir, nsamples);
		if (access(path, F_OK) < 0)
			break;
		if (load_text(path, &texts[nsamples]) < 0) {
			fprintf(stderr, "bench: cannot read %s\n", path);
			return 1;
		}
	}
	if (nsamples < 2) {
		fprintf(stderr, "bench: %s needs t0 and t1\n", dir);
		return 1;
	}
	for (int i = 0; i < SRC__COUNT; i++)
		bytes += texts[1].pf[i].len;
	parse_text(&texts[0], &s[0]);
	for (int r = 0; r < rounds + 2; r++) {
		/* uptime goes back when the cycle wraps: compute over a fixed 1 s */
		const struct sample_text *st = &texts[(r + 1) % nsamples];
		struct snapshot *prev = &s[r & 1], *cur = &s[!(r & 1)];

		if (r == 2)
			allocs_before = alloc_count(); /* after every table has grown once */
		t0 = cpu_now();
		parse_text(st, cur);
		if (r >= 2)
			t_parse += cpu_now() - t0;
		t0 = cpu_now();
		metrics_compute(prev, cur, 100, &m);
		if (r >= 2)
			t_compute += cpu_now() - t0;
		t0 = cpu_now();
		sb_reset(&sb);
		encode_sample(&sb, cur, &m, &o);
		if (r >= 2)
			t_encode += cpu_now() - t0;
	}
	printf("tree %s: %d samples, %zu bytes of /proc text per sample, %zu CPUs, %zu IRQ lines, "
	       "%zu disks, %d rounds\n",
	       dir, nsamples, bytes, s[0].stat.ncpu, s[0].irqs.n, s[0].disks.n, rounds);
	printf("  parse:   %8.3f ms/sample\n", t_parse / rounds * 1e3);
	printf("  compute: %8.3f ms/sample\n", t_compute / rounds * 1e3);
	printf("  parse + compute: %8.3f ms/sample (target <= 2 ms)\n",
	       (t_parse + t_compute) / rounds * 1e3);
	printf("  encode:  %8.3f ms/sample (%zu bytes of JSON)\n", t_encode / rounds * 1e3, sb.len);
	printf("  heap allocations after the first samples: %lu\n", alloc_count() - allocs_before);
	for (int i = 0; i < nsamples; i++)
		for (int k = 0; k < SRC__COUNT; k++)
			procfile_free(&texts[i].pf[k]);
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s[0]);
	snapshot_free(&s[1]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "live") == 0)
		return bench_live(argc > 2 ? atoi(argv[2]) : 2000, true);
	if (argc >= 2 && strcmp(argv[1], "live-all") == 0)
		return bench_live(argc > 2 ? atoi(argv[2]) : 2000, false);
	if (argc >= 3 && strcmp(argv[1], "tree") == 0)
		return bench_tree(argv[2], argc > 3 ? atoi(argv[3]) : 50);
	fprintf(stderr, "usage: bench_sample live|live-all [ROUNDS] | tree DIR [ROUNDS]\n");
	return 2;
}
