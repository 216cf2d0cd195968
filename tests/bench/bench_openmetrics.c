// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cost of one /metrics scrape: rendering the exposition of a sample the
 * daemon already holds (what iotriaged does per scrape; no /proc read), its
 * bytes and its series count, beside the cost of taking that sample.
 *
 *   bench_openmetrics DIR [ROUNDS]
 *     DIR/t0 and DIR/t1: a recorded pair (tests/fixtures/make-trees.py OUT
 *     big-256, or iotriage capture twice on the live host). Loads both,
 *     computes metrics and advice once, then renders ROUNDS expositions
 *     (0.0.4 and OpenMetrics alternately) and reparses t1 as often, both
 *     timed on the process CPU clock in the same run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "advise.h"
#include "clock.h"
#include "encode_openmetrics.h"
#include "metrics.h"
#include "snapshot.h"
#include "topology.h"

static double cpu_s(void)
{
	return (double)clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct snapshot s0 = { 0 }, s1 = { 0 }, tmp = { 0 };
	struct metrics m = { 0 };
	struct topology t = { 0 };
	struct advice a = { 0 };
	struct strbuf sb = { 0 };
	struct root r;
	char d0[4096], d1[4096];
	unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
	double *render, *load;
	size_t series = 0, bytes;
	regex_t *exclude = NULL;

	if (argc < 2 || rounds == 0) {
		fprintf(stderr, "usage: bench_openmetrics DIR [ROUNDS]\n");
		return 2;
	}
	snprintf(d0, sizeof(d0), "%s/t0", argv[1]);
	snprintf(d1, sizeof(d1), "%s/t1", argv[1]);
	if (snapshot_load_tree(d0, &s0) < 0 || snapshot_load_tree(d1, &s1) < 0) {
		fprintf(stderr, "bench_openmetrics: %s: cannot load t0/t1\n", argv[1]);
		return 1;
	}
	if (metrics_compute(&s0, &s1, metrics_interval_cs(&s0, &s1), &m) < 0)
		return 1;
	if (root_open(d1, &r) == 0) {
		topology_collect(&r, &t);
		root_close(&r);
		advise_run(&(struct advise_input){ .cur = &s1, .m = &m, .t = &t }, &a);
	}
	/* what the daemon serves: its default device exclusion */
	if (om_exclude_compile(OM_DEVICE_EXCLUDE_DEFAULT, &exclude) < 0)
		return 1;
	render = calloc(rounds, sizeof(*render));
	load = calloc(rounds, sizeof(*load));
	if (!render || !load)
		return 1;
	for (unsigned i = 0; i < rounds; i++) {
		struct om_opts o = { .format = i % 2 ? OM_OPENMETRICS : OM_PROMETHEUS,
				     .device_exclude = exclude };
		double c0 = cpu_s();

		sb_reset(&sb);
		if (om_render(&sb, &s1, &m, &a, &o) < 0)
			return 1;
		render[i] = cpu_s() - c0;
		c0 = cpu_s();
		snapshot_free(&tmp);
		if (snapshot_load_tree(d1, &tmp) < 0)
			return 1;
		load[i] = cpu_s() - c0;
	}
	sb_reset(&sb);
	om_render(&sb, &s1, &m, &a,
		  &(struct om_opts){ .format = OM_PROMETHEUS, .device_exclude = exclude });
	bytes = sb.len;
	for (size_t i = 0; i < sb.len; i++)
		if ((i == 0 || sb.buf[i - 1] == '\n') && sb.buf[i] != '#')
			series++;
	qsort(render, rounds, sizeof(*render), cmp_double);
	qsort(load, rounds, sizeof(*load), cmp_double);
	printf("host %s: %zu disks, %zu cpus, %zu irq lines, %zu findings\n", argv[1], s1.disks.n,
	       s1.stat.ncpu, s1.irqs.n, a.nfindings);
	printf("exposition: %zu bytes, %zu series (text 0.0.4)\n", bytes, series);
	printf("render per scrape: median %.1f us, p90 %.1f us (CPU)\n", render[rounds / 2] * 1e6,
	       render[rounds * 9 / 10] * 1e6);
	printf("load the recorded sample (read + parse): median %.1f us\n", load[rounds / 2] * 1e6);
	printf("ratio render / load: %.2f\n", render[rounds / 2] / load[rounds / 2]);
	sb_free(&sb);
	om_exclude_free(exclude);
	advice_free(&a);
	topology_free(&t);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
	snapshot_free(&tmp);
	free(render);
	free(load);
	return 0;
}
