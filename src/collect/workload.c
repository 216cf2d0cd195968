// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ties the workload sources to the snapshot: allocation on first use, the
 * sample order, copy and free. No parsing and no arithmetic here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "workload.h"
#include "treewrite.h"

/* CPU time of one source's read into cad->cpu_ns: what the budget weighs. */
static void spent(struct src_cadence *cad, int64_t t0)
{
	if (cad)
		cad->cpu_ns = (uint64_t)(clock_thread_cpu_ns() - t0);
}

static bool reads(const struct src_cadence *cad, enum cad_src k)
{
	return !cad || !cad[k].carried;
}

int workload_sample_some(struct workload_collector **pc, const struct root *r,
			 struct src_cadence *cad, struct workload_raw **ps)
{
	struct workload_collector *c = *pc;
	struct workload_raw *s = *ps;
	int64_t t0;
	int e;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return -ENOMEM;
		procfile_init(&c->vmstat, "proc/vmstat");
		for (int i = 0; i < PSI__COUNT; i++)
			procfile_init(&c->psi[i], NULL);
		*pc = c;
	}
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		*ps = s;
	}
	t0 = clock_thread_cpu_ns();
	if (reads(cad, CAD_PRESSURE)) {
		pressure_collect_pf(r, c->psi, &s->pressure);
		spent(cad ? &cad[CAD_PRESSURE] : NULL, t0);
	}
	if (c->samples++ % WORKLOAD_SETTINGS_EVERY == 0) {
		writeback_collect(r, &c->vmstat, &s->writeback);
		c->wb_last = s->writeback;
	} else {
		writeback_collect_counters(r, &c->vmstat, &c->wb_last, &s->writeback);
	}
	t0 = clock_thread_cpu_ns();
	if (reads(cad, CAD_CGROUPS)) {
		if (cgroup_collect_cc(&c->cg, r, &s->cgroups) < 0)
			return -ENOMEM;
		spent(cad ? &cad[CAD_CGROUPS] : NULL, t0);
	}
	t0 = clock_thread_cpu_ns();
	if (!reads(cad, CAD_PROCS)) {
		s->procs.carried = true;
		if (taskstats_exits_drain(&c->ts) < 0)
			return -ENOMEM;
	} else {
		e = taskstats_collect(&c->ts, r, &s->procs);
		s->procs.scan_cpu_ns = (uint64_t)(clock_thread_cpu_ns() - t0);
		spent(cad ? &cad[CAD_PROCS] : NULL, t0);
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			/* /proc not listable: the table says so already */
			s->procs.n = 0;
		}
	}
	if (!reads(cad, CAD_NICS))
		return 0;
	t0 = clock_thread_cpu_ns();
	e = ethtool_nl_collect(&c->en, r, &s->nics);
	spent(cad ? &cad[CAD_NICS] : NULL, t0);
	return e;
}

int workload_sample(struct workload_collector **pc, const struct root *r, struct workload_raw **ps)
{
	return workload_sample_some(pc, r, NULL, ps);
}

/* Copies one host file into the tree; 1 copied, 0 absent or refused. */
static int copy_file(const struct root *r, int dfd, const char *rel, struct procfile *pf)
{
	return treewrite_copy(r, dfd, rel, pf) == 0;
}

/* One cgroup row's files into the capture: its counters under the io
 * hierarchy's top, its pressure under the v2 tree's. The files copied. */
static unsigned copy_cgroup(const struct root *r, int dfd, const struct cgroup_table *t,
			    const struct cgroup_raw *g, struct procfile *pf)
{
	static const char *const psi[] = { "io.pressure", "cpu.pressure", "memory.pressure" };
	const bool has[] = { g->has_psi, g->has_cpu_psi, g->has_mem_psi };
	const char *ptop = t->psi_top[0] ? t->psi_top : t->top;
	char crel[sizeof(t->top) + CGROUP_PATH_MAX + 48];
	bool v1 = cgroup_top_is_blkio(t->top);
	const char *sep = g->path[0] ? "/" : "";
	unsigned files = 0;

	snprintf(crel, sizeof(crel), "%s%s%s/%s", t->top, sep, g->path,
		 v1 ? CGROUP_BLKIO_BYTES : "io.stat");
	if (g->has_stat)
		files += (unsigned)copy_file(r, dfd, crel, pf);
	snprintf(crel, sizeof(crel), "%s%s%s/" CGROUP_BLKIO_IOS, t->top, sep, g->path);
	if (g->has_stat && v1)
		files += (unsigned)copy_file(r, dfd, crel, pf);
	for (size_t k = 0; k < sizeof(psi) / sizeof(psi[0]); k++) {
		snprintf(crel, sizeof(crel), "%s%s%s/%s", ptop, sep, g->path, psi[k]);
		if (has[k])
			files += (unsigned)copy_file(r, dfd, crel, pf);
	}
	return files;
}

static unsigned copy_files(const struct root *r, int dfd, const struct workload_raw *s)
{
	static const char *const fixed[] = {
		"proc/pressure/io",
		"proc/pressure/cpu",
		"proc/pressure/irq",
		"proc/vmstat",
		"proc/sys/kernel/task_delayacct",
		"proc/sys/vm/dirty_ratio",
		"proc/sys/vm/dirty_background_ratio",
		"proc/sys/vm/dirty_bytes",
		"proc/sys/vm/dirty_background_bytes",
		"proc/sys/vm/dirty_expire_centisecs",
		"proc/sys/vm/dirty_writeback_centisecs",
	};
	struct procfile pf;
	unsigned files = 0;
	char rel[IOT_NAME_MAX + 64];

	procfile_init(&pf, NULL);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		files += (unsigned)copy_file(r, dfd, fixed[i], &pf);
	for (size_t i = 0; i < s->procs.n; i++) {
		snprintf(rel, sizeof(rel), "proc/%d/io", s->procs.rows[i].pid);
		files += (unsigned)copy_file(r, dfd, rel, &pf);
		snprintf(rel, sizeof(rel), "proc/%d/comm", s->procs.rows[i].pid);
		files += (unsigned)copy_file(r, dfd, rel, &pf);
		/* CPU time (cpu_pct); cmdline, status and cgroup are read only
		 * for processes that moved between two scans, not captured */
		snprintf(rel, sizeof(rel), "proc/%d/stat", s->procs.rows[i].pid);
		files += (unsigned)copy_file(r, dfd, rel, &pf);
		snprintf(rel, sizeof(rel), "proc/%d/schedstat", s->procs.rows[i].pid);
		if (s->procs.rows[i].has_sched)
			files += (unsigned)copy_file(r, dfd, rel, &pf);
	}
	/* the cgroup hierarchy: its top's controllers (and the v2 tree's, whose
	 * pressure files a hybrid host's rows carry), each cgroup's files */
	if (s->cgroups.top[0]) {
		snprintf(rel, sizeof(rel), "%s/cgroup.controllers", s->cgroups.top);
		files += (unsigned)copy_file(r, dfd, rel, &pf);
	}
	if (s->cgroups.psi_top[0] && strcmp(s->cgroups.psi_top, s->cgroups.top) != 0) {
		snprintf(rel, sizeof(rel), "%s/cgroup.controllers", s->cgroups.psi_top);
		files += (unsigned)copy_file(r, dfd, rel, &pf);
	}
	for (size_t i = 0; i < s->cgroups.n; i++)
		files += copy_cgroup(r, dfd, &s->cgroups, &s->cgroups.rows[i], &pf);
	procfile_free(&pf);
	/* an empty file per vector: the collector only lists the names */
	for (size_t i = 0; i < s->nics.n; i++) {
		const struct nic_raw *n = &s->nics.rows[i];
		struct nlreply none = { 0 };

		for (size_t k = 0; k < n->nirqs; k++) {
			snprintf(rel, sizeof(rel), "sys/class/net/%s/device/msi_irqs/%u", n->ifname,
				 n->irqs[k]);
			files += netlink_record(dfd, rel, &none) == 0;
		}
	}
	return files;
}

int workload_capture(const struct root *r, int dfd, unsigned *ret_files)
{
	struct workload_collector *c = NULL;
	struct workload_raw *s = NULL;
	int e;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	procfile_init(&c->vmstat, "proc/vmstat");
	for (int i = 0; i < PSI__COUNT; i++)
		procfile_init(&c->psi[i], NULL);
	c->ts.record = c->en.record = true;
	c->ts.record_dfd = c->en.record_dfd = dfd;
	e = workload_sample(&c, r, &s);
	if (e >= 0 && ret_files)
		*ret_files =
		    s->procs.answered + 1 + 2 * (unsigned)s->nics.n + copy_files(r, dfd, s);
	workload_raw_free(s);
	workload_collector_free(c);
	return e;
}

void workload_collector_free(struct workload_collector *c)
{
	if (!c)
		return;
	taskstats_collector_free(&c->ts);
	ethtool_nl_collector_free(&c->en);
	procfile_free(&c->vmstat);
	cgroup_collector_free(&c->cg);
	for (int i = 0; i < PSI__COUNT; i++)
		procfile_free(&c->psi[i]);
	free(c);
}

void workload_raw_free(struct workload_raw *s)
{
	if (!s)
		return;
	proc_table_free(&s->procs);
	nic_table_free(&s->nics);
	cgroup_table_free(&s->cgroups);
	free(s);
}

int workload_raw_copy(struct workload_raw **dst, const struct workload_raw *src)
{
	struct workload_raw *d = *dst;

	if (!src) {
		workload_raw_free(d);
		*dst = NULL;
		return 0;
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		*dst = d;
	}
	d->pressure = src->pressure;
	d->writeback = src->writeback;
	if (proc_table_copy(&d->procs, &src->procs) < 0 ||
	    nic_table_copy(&d->nics, &src->nics) < 0 ||
	    cgroup_table_copy(&d->cgroups, &src->cgroups) < 0)
		return -ENOMEM;
	return 0;
}
