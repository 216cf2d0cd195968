// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cost of turbostat's counters in a sample.
 *
 *   bench_msr WITH WITHOUT [ROUNDS]
 *
 * WITH is a recorded tree with dev/cpu/N/msr (tests/fixtures/turbo/
 * make-trees.py OUT intel -> OUT/intel/t0), WITHOUT the same tree without
 * its dev/ directory. Round by round, alternating so a noisy neighbour hurts
 * both alike, it takes a full sample (collect + compute against the previous
 * + JSON encode) of each, and times turbo_collect alone on WITH, which is the
 * MSR reading itself: CPU time per sample and per CPU, process CPU clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "encode.h"
#include "metrics.h"
#include "snapshot.h"
#include "turbo.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct side {
	struct collector c;
	struct snapshot s[2];
	struct metrics m;
	struct strbuf sb;
	unsigned cur;
	double cpu_s;
};

/* One full sample: what the daemon does per tick. */
static int side_sample(struct side *x)
{
	struct snapshot *cur = &x->s[x->cur], *prev = &x->s[x->cur ^ 1];
	double t0 = cpu_now();
	int r;

	r = collector_sample(&x->c, cur);
	if (r < 0)
		return r;
	/* a recorded tree does not advance: a fixed 1 s interval */
	r = metrics_compute(prev, cur, 100, &x->m);
	if (r < 0)
		return r;
	sb_reset(&x->sb);
	encode_sample(&x->sb, cur, &x->m, NULL);
	x->cpu_s += cpu_now() - t0;
	x->cur ^= 1;
	return x->sb.err;
}

int main(int argc, char **argv)
{
	struct side *with, *without;
	struct turbo_collector *tc = NULL;
	struct turbo_raw *raw = NULL;
	struct root root;
	double turbo_s = 0;
	long rounds = 2000;
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
	if (!with || !without || rounds <= 0)
		return 1;
	if (collector_open(argv[1], &with->c) < 0 || collector_open(argv[2], &without->c) < 0 ||
	    root_open(argv[1], &root) < 0) {
		fprintf(stderr, "bench_msr: cannot open the trees\n");
		return 1;
	}
	/* prime both: the first sample probes sources and opens the fds */
	for (int i = 0; i < 2; i++)
		if (side_sample(with) < 0 || side_sample(without) < 0) {
			fprintf(stderr, "bench_msr: sample failed\n");
			return 1;
		}
	with->cpu_s = without->cpu_s = 0;
	ncpu = with->s[0].stat.ncpu;
	if (!with->s[0].turbo || !with->m.turbo || !(with->m.turbo->cols & (1u << TC_AVG_MHZ))) {
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
	printf("cpus %zu, rounds %ld\n", ncpu, rounds);
	printf("turbo_collect (MSR reads): %.1f us/sample, %.2f us per CPU\n",
	       turbo_s / (double)rounds * 1e6, turbo_s / (double)rounds * 1e6 / (double)ncpu);
	printf("full sample with MSRs:    %.1f us\n", with->cpu_s / (double)rounds * 1e6);
	printf("full sample without MSRs: %.1f us\n", without->cpu_s / (double)rounds * 1e6);
	printf("MSRs add %.1f%% to the sample\n", 100.0 * (with->cpu_s / without->cpu_s - 1.0));
	turbo_raw_free(raw);
	turbo_collector_free(tc);
	root_close(&root);
	for (int i = 0; i < 2; i++) {
		snapshot_free(&with->s[i]);
		snapshot_free(&without->s[i]);
	}
	metrics_free(&with->m);
	metrics_free(&without->m);
	sb_free(&with->sb);
	sb_free(&without->sb);
	collector_close(&with->c);
	collector_close(&without->c);
	free(with);
	free(without);
	return 0;
}
