// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cost of turbostat's counters in a sample.
 *
 *   bench_msr WITH WITHOUT [ROUNDS]
 *
 * WITH and WITHOUT each hold recorded samples t0, t1, ... of one host, WITH
 * with dev/cpu/N/msr, WITHOUT the same trees without their dev/ directory:
 *   tests/fixtures/turbo/make-trees.py OUT intel      -> OUT/intel/{t0,t1}
 *   tests/fixtures/make-trees.py OUT big-256, then
 *   tests/fixtures/turbo/make-trees.py add-msr TREE/tN N  for each tN
 * Round by round, alternating so a noisy neighbour hurts both alike, it
 * takes the next sample of each (collect + compute against the previous +
 * JSON encode, what the daemon does per tick), and times turbo_collect alone
 * on WITH, which is the MSR reading: CPU time per sample and per CPU, from
 * the process CPU clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "encode.h"
#include "metrics.h"
#include "snapshot.h"
#include "metrics_turbo.h"

#define MAX_SAMPLES 8

static double cpu_now(void)
{
	return (double)clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
}

struct side {
	struct snapshot_collector c[MAX_SAMPLES]; /* one per recorded sample tN */
	unsigned nsamples, next;
	struct snapshot s[2];
	struct metrics m;
	struct strbuf sb;
	unsigned cur;
	double cpu_s;
};

static int side_open(struct side *x, const char *dir)
{
	char path[4096];

	for (x->nsamples = 0; x->nsamples < MAX_SAMPLES; x->nsamples++) {
		snprintf(path, sizeof(path), "%s/t%u", dir, x->nsamples);
		if (snapshot_collector_open(path, &x->c[x->nsamples]) < 0)
			break;
	}
	return x->nsamples >= 2 ? 0 : -ENOENT;
}

/* One full sample of the next recorded tree. */
static int side_sample(struct side *x)
{
	struct snapshot *cur = &x->s[x->cur], *prev = &x->s[x->cur ^ 1];
	double t0 = cpu_now();
	uint64_t itv;
	int r;

	r = snapshot_collector_sample(&x->c[x->next], cur);
	x->next = (x->next + 1) % x->nsamples;
	if (r < 0)
		return r;
	itv = metrics_interval_cs(prev, cur);
	r = metrics_compute(prev, cur, itv ? itv : 100, &x->m);
	if (r < 0)
		return r;
	sb_reset(&x->sb);
	encode_sample(&x->sb, cur, &x->m, NULL);
	x->cpu_s += cpu_now() - t0;
	x->cur ^= 1;
	return x->sb.err;
}

static void side_close(struct side *x)
{
	for (int i = 0; i < 2; i++)
		snapshot_free(&x->s[i]);
	metrics_free(&x->m);
	sb_free(&x->sb);
	for (unsigned i = 0; i < x->nsamples; i++)
		snapshot_collector_close(&x->c[i]);
}

int main(int argc, char **argv)
{
	struct side *with, *without;
	struct turbo_collector *tc = NULL;
	struct turbo_raw *raw = NULL;
	struct root root;
	char path[4096];
	double turbo_s = 0;
	long rounds = 1000;
	size_t ncpu;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_msr WITH WITHOUT [ROUNDS]\n");
		return 2;
	}
	if (argc > 3)
		rounds = strtol(argv[3], NULL, 10);
	with = calloc(1, sizeof(*with));
	without = calloc(1, sizeof(*without));
	snprintf(path, sizeof(path), "%s/t0", argv[1]);
	if (!with || !without || rounds <= 0)
		return 1;
	if (side_open(with, argv[1]) < 0 || side_open(without, argv[2]) < 0 ||
	    root_open(path, &root) < 0) {
		fprintf(stderr, "bench_msr: WITH and WITHOUT need t0 and t1\n");
		return 1;
	}
	/* prime: the first sample of each tree probes sources and opens the fds */
	for (unsigned i = 0; i < with->nsamples + 1; i++)
		if (side_sample(with) < 0 || side_sample(without) < 0) {
			fprintf(stderr, "bench_msr: sample failed\n");
			return 1;
		}
	with->cpu_s = without->cpu_s = 0;
	ncpu = with->s[0].stat.ncpu;
	if (!with->m.turbo || !(with->m.turbo->cols & (1u << TC_AVG_MHZ))) {
		fprintf(stderr, "bench_msr: %s has no MSR columns\n", argv[1]);
		return 1;
	}
	r = turbo_collect(&tc, &root, &with->s[0].stat, &raw);
	for (long i = 0; i < rounds && r >= 0; i++) {
		double t0;

		r = side_sample(with);
		if (r >= 0)
			r = side_sample(without);
		t0 = cpu_now();
		if (r >= 0)
			r = turbo_collect(&tc, &root, &with->s[0].stat, &raw);
		turbo_s += cpu_now() - t0;
	}
	if (r < 0) {
		fprintf(stderr, "bench_msr: %s\n", strerror(-r));
		return 1;
	}
	printf("cpus %zu, samples %u, rounds %ld\n", ncpu, with->nsamples, rounds);
	printf("turbo_collect (MSR reads): %.1f us/sample, %.2f us per CPU\n",
	       turbo_s / (double)rounds * 1e6, turbo_s / (double)rounds * 1e6 / (double)ncpu);
	printf("full sample with MSRs:    %.1f us\n", with->cpu_s / (double)rounds * 1e6);
	printf("full sample without MSRs: %.1f us\n", without->cpu_s / (double)rounds * 1e6);
	printf("MSRs add %.1f%% to the sample\n", 100.0 * (with->cpu_s / without->cpu_s - 1.0));
	turbo_raw_free(raw);
	turbo_collector_free(tc);
	root_close(&root);
	side_close(with);
	side_close(without);
	free(with);
	free(without);
	return 0;
}
