// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's cost (issue 17): the per-process scan's cadence as a pure
 * function of the measured costs, and the rates of a scan taken several
 * samples after the previous one (the samples between carry its table).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "workload.h"
#include "metrics_proc.h"
#include "sampler.h"
#include "snapshot.h"
#include "topology.h"
#include "tree_util.h"

#define MS 1000000LL

/* The per-process scan alone (the other sources cost nothing measured). */
static uint32_t scan_every(int64_t scan_ns, int64_t base_ns, int64_t budget_ns)
{
	int64_t cost[CAD__COUNT] = { [CAD_PROCS] = scan_ns };
	uint32_t every[CAD__COUNT];

	sampler_cadence(cost, 0, base_ns, budget_ns, every);
	for (int k = 0; k < CAD__COUNT; k++)
		if (k != CAD_PROCS)
			assert_int_equal(every[k], 1);
	return every[CAD_PROCS];
}

static void test_scan_every(void **state)
{
	(void)state;
	/* no budget, or nothing measured yet: every sample */
	assert_int_equal(scan_every(10 * MS, MS, 0), 1);
	assert_int_equal(scan_every(0, MS, 5 * MS), 1);
	/* a small host: 100 processes, 0.2 ms a scan, 0.9 ms the rest */
	assert_int_equal(scan_every(200000, 900000, 5 * MS), 1);
	/* 2 000 sleeping processes on the development VM: 8 ms a scan, 0.86 ms
	 * the rest: at most a quarter of it on average (38 samples) */
	assert_int_equal(scan_every(8 * MS, 860000, 5 * MS), 38);
	/* the budget binds when the rest is costly: 10 ms a scan, 4 ms the
	 * rest, 5 ms budget: 1 ms left a sample */
	assert_int_equal(scan_every(10 * MS, 4 * MS, 5 * MS), 10);
	/* no room at all, or a huge host: the cap */
	assert_int_equal(scan_every(10 * MS, 6 * MS, 5 * MS), SAMPLER_EVERY_MAX);
	assert_int_equal(scan_every(1000 * MS, MS, 5 * MS), SAMPLER_EVERY_MAX);
}

#define US 1000LL

/* Every optional source by one rule: a quarter of the rest of the sample
 * shared out cheapest first; what a client or a finding pins is read every
 * sample and not weighed. */
static void test_cadence(void **state)
{
	int64_t cost[CAD__COUNT] = {
		[CAD_PRESSURE] = 20 * US, [CAD_CGROUPS] = 60 * US, [CAD_NICS] = 80 * US,
		[CAD_TURBO] = 100 * US,	  [CAD_PROCS] = 9 * MS,
	};
	uint32_t every[CAD__COUNT];
	int64_t avg = 0;

	(void)state;
	/* 400 us the rest, 5 ms budget: 100 us a sample for the five */
	sampler_cadence(cost, 0, 400 * US, 5 * MS, every);
	assert_int_equal(every[CAD_PRESSURE], 1);	       /* 20 of its 20 */
	assert_int_equal(every[CAD_CGROUPS], 3);	       /* 60 / (80 / 4) */
	assert_int_equal(every[CAD_NICS], 4);		       /* 80 / (60 / 3) */
	assert_int_equal(every[CAD_TURBO], 5);		       /* 100 / (40 / 2) */
	assert_int_equal(every[CAD_PROCS], SAMPLER_EVERY_MAX); /* 9 ms / 20 us */
	for (int k = 0; k < CAD__COUNT; k++)
		if (k != CAD_PROCS)
			avg += cost[k] / every[k];
	assert_true(avg <= 100 * US);
	/* a client looks at turbostat, a finding needs the NICs: every sample,
	 * and the others share the same 100 us */
	sampler_cadence(cost, 1u << CAD_TURBO | 1u << CAD_NICS, 400 * US, 5 * MS, every);
	assert_int_equal(every[CAD_TURBO], 1);
	assert_int_equal(every[CAD_NICS], 1);
	assert_int_equal(every[CAD_PRESSURE], 1);
	assert_int_equal(every[CAD_CGROUPS], 2); /* 60 / (80 / 2) */
	assert_int_equal(every[CAD_PROCS], 180); /* 9 ms / 50 us */
	/* a rest past the budget: every unpinned source at the cap */
	sampler_cadence(cost, 1u << CAD_PROCS, 6 * MS, 5 * MS, every);
	assert_int_equal(every[CAD_PROCS], 1);
	for (int k = 0; k < CAD__COUNT; k++)
		if (k != CAD_PROCS)
			assert_int_equal(every[k], SAMPLER_EVERY_MAX);
	/* no budget: everything every sample */
	sampler_cadence(cost, 0, 400 * US, 0, every);
	for (int k = 0; k < CAD__COUNT; k++)
		assert_int_equal(every[k], 1);
}

static void put_proc(struct snapshot *s, uint64_t uptime_cs, bool carried, uint64_t written)
{
	struct proc_table *t;

	s->workload = calloc(1, sizeof(*s->workload));
	assert_non_null(s->workload);
	t = &s->workload->procs;
	t->rows = calloc(1, sizeof(*t->rows));
	assert_non_null(t->rows);
	t->n = t->cap = 1;
	t->rows[0].pid = 42;
	strcpy(t->rows[0].comm, "writer");
	t->rows[0].write_bytes = written;
	t->carried = carried;
	t->scan_uptime_cs = uptime_cs;
	s->workload->cgroups.status.err = -ENOENT;
}

static void free_snap(struct snapshot *s)
{
	workload_raw_free(s->workload);
	s->workload = NULL;
}

/* A scan 5 s after the previous one, whose table the sample 1 s before
 * carried: the rate is over the 5 s between the scans, not the last 1 s. */
static void test_carried_interval(void **state)
{
	struct snapshot prev = { 0 }, cur = { 0 };
	struct workload_metrics *x = NULL;

	(void)state;
	put_proc(&prev, 1000, true, 10 << 20);
	put_proc(&cur, 1500, false, 60 << 20);
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_true(x->procs_valid);
	assert_int_equal(x->nby_io, 1);
	assert_true(x->procs[0].wkb_s > 10239.99 && x->procs[0].wkb_s < 10240.01);
	/* the next sample skips the scan: the rates stay those of the scan */
	free_snap(&prev);
	put_proc(&prev, 1600, true, 99 << 20);
	assert_int_equal(metrics_proc_compute(&cur, &prev, 100, NULL, &x), 0);
	assert_int_equal(x->nby_io, 1);
	assert_true(x->procs[0].wkb_s > 10239.99 && x->procs[0].wkb_s < 10240.01);
	/* adjacent scans (the previous sample scanned): the samples' interval */
	free_snap(&prev);
	free_snap(&cur);
	put_proc(&prev, 1000, false, 0);
	put_proc(&cur, 1500, false, 1 << 20);
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_true(x->procs[0].wkb_s > 1023.99 && x->procs[0].wkb_s < 1024.01);
	metrics_proc_free(x);
	free_snap(&prev);
	free_snap(&cur);
}

static void put_psi(struct snapshot *s, uint64_t read_cs, bool carried, uint64_t io_some_us)
{
	s->workload = calloc(1, sizeof(*s->workload));
	assert_non_null(s->workload);
	s->workload->procs.carried = true; /* only pressure matters here */
	s->workload->cgroups.status.err = -ENOENT;
	s->workload->nics.rtnl.err = -ENOENT;
	s->workload->pressure.res[PSI_IO].some.present = true;
	s->workload->pressure.res[PSI_IO].some.total_us = io_some_us;
	s->workload->pressure.res[PSI_CPU].status.err = -ENOENT;
	s->workload->pressure.res[PSI_IRQ].status.err = -ENOENT;
	s->cadence[CAD_PRESSURE].carried = carried;
	s->cadence[CAD_PRESSURE].read_uptime_cs = read_cs;
}

/* Any optional source read after samples that carried its last read: the
 * rate spans the two reads; a sample that carries keeps the read's rate. */
static void test_cadence_interval(void **state)
{
	struct snapshot a = { 0 }, b = { 0 };
	struct workload_metrics *x = NULL;

	(void)state;
	/* read at 10.00 s, carried by the sample at 14.00 s; read again at
	 * 15.00 s with 1 s more stall: 1 s of 5 s is 20 %, not 1 s of 1 s */
	put_psi(&a, 1000, true, 3000000);
	put_psi(&b, 1500, false, 4000000);
	assert_int_equal(metrics_proc_compute(&a, &b, 100, NULL, &x), 0);
	assert_true(x->psi[PSI_IO].some_valid);
	assert_true(x->psi[PSI_IO].some_pct > 19.99 && x->psi[PSI_IO].some_pct < 20.01);
	/* the next sample carries that read (its rows, its time): the 20 % stays */
	free_snap(&a);
	put_psi(&a, 1500, true, 4000000);
	assert_int_equal(metrics_proc_compute(&b, &a, 100, NULL, &x), 0);
	assert_true(x->psi[PSI_IO].some_valid);
	assert_true(x->psi[PSI_IO].some_pct > 19.99 && x->psi[PSI_IO].some_pct < 20.01);
	/* adjacent reads: the samples' interval */
	free_snap(&a);
	free_snap(&b);
	put_psi(&a, 1000, false, 0);
	put_psi(&b, 1100, false, 500000);
	assert_int_equal(metrics_proc_compute(&a, &b, 100, NULL, &x), 0);
	assert_true(x->psi[PSI_IO].some_pct > 49.99 && x->psi[PSI_IO].some_pct < 50.01);
	metrics_proc_free(x);
	free_snap(&a);
	free_snap(&b);
}

static void put_comm(const char *dir, int pid, const char *comm)
{
	char rel[64], text[64];

	snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
	snprintf(text, sizeof(text), "%s\n", comm);
	tree_put(dir, rel, text);
}

static void drop_comm(const char *dir, int pid)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/proc/%d/comm", dir, pid);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/proc/%d", dir, pid);
	assert_int_equal(rmdir(p), 0);
}

static bool ib_running(const struct root *r, struct topo_hint *h, int *ret_pid)
{
	struct topology t;
	bool run;

	assert_int_equal(topology_collect_hint(r, h, &t), 0);
	run = t.irqbalance.running;
	*ret_pid = t.irqbalance.pid;
	topology_free(&t);
	return run;
}

/* irqbalance is found without reading every /proc/PID/comm each time: its
 * PID is checked first, and a search that found none waits 5 reads. */
static void test_irqbalance_hint(void **state)
{
	struct topo_hint h = { 0 };
	struct root r;
	char dir[64];
	int pid = 0;

	(void)state;
	tree_new(dir, sizeof(dir), "cost-topo");
	tree_mkdirs(dir, "proc");
	put_comm(dir, 100, "irqbalance");
	put_comm(dir, 200, "bash");
	assert_int_equal(root_open(dir, &r), 0);
	assert_true(ib_running(&r, &h, &pid));
	assert_int_equal(pid, 100);
	assert_int_equal(h.irqbalance_pid, 100);
	/* it stopped: the PID check fails, /proc is searched, none */
	drop_comm(dir, 100);
	assert_false(ib_running(&r, &h, &pid));
	assert_int_equal(h.rescan_wait, TOPO_IRQBALANCE_RESCAN - 1);
	/* still none at the 6th read: the next search waits twice as long */
	for (int i = 0; i < TOPO_IRQBALANCE_RESCAN; i++)
		assert_false(ib_running(&r, &h, &pid));
	assert_int_equal(h.rescan_wait, 2 * TOPO_IRQBALANCE_RESCAN - 1);
	/* started again under another PID: seen at the 12th read, not before */
	put_comm(dir, 300, "irqbalance");
	for (int i = 0; i < 2 * TOPO_IRQBALANCE_RESCAN - 1; i++)
		assert_false(ib_running(&r, &h, &pid));
	assert_true(ib_running(&r, &h, &pid));
	assert_int_equal(pid, 300);
	assert_int_equal(h.rescan_every, 0);
	/* the waits stop doubling at the cap */
	drop_comm(dir, 300);
	for (int i = 0, n = 0; n < 6; i++) {
		assert_false(ib_running(&r, &h, &pid));
		if (h.rescan_wait == h.rescan_every - 1 && h.rescan_every)
			n++;
		assert_true(h.rescan_every <= TOPO_IRQBALANCE_RESCAN_MAX);
		assert_true(i < 200);
	}
	assert_int_equal(h.rescan_every, TOPO_IRQBALANCE_RESCAN_MAX);
	put_comm(dir, 300, "irqbalance");
	/* without a hint, every read searches */
	drop_comm(dir, 300);
	put_comm(dir, 400, "irqbalance");
	assert_true(ib_running(&r, NULL, &pid));
	assert_int_equal(pid, 400);
	root_close(&r);
	tree_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irqbalance_hint),	 cmocka_unit_test(test_scan_every),
		cmocka_unit_test(test_cadence),		 cmocka_unit_test(test_carried_interval),
		cmocka_unit_test(test_cadence_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
