// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who suffers, in one place: the cgroups that waited longest on a
 * finding's resource (their pressure files' totals over the interval,
 * ranked flat across the tree: metrics_cgroup.h) and, for the CPUs, the
 * processes that waited longest on a run queue (/proc/PID/schedstat). The
 * culprit's own cgroup is not its victim.
 */
#include "advise_int.h"
#include "unitname.h"

/* path ("system.slice/x.service", "" the top) holds the cause u, whose
 * unit the collector names as procwho_cgroup_unit does: "x.service"
 * directly in system.slice, else the whole path ("/" the top); a group
 * whose members run in several units holds none alone. */
static bool causes_cgroup(const char *path, const struct culprit *u)
{
	const char *name;
	size_t n;

	if (!u || !u->has_who || u->units_differ || !u->unit[0])
		return false;
	if (u->unit[0] == '/')
		return strcmp(path, u->unit + 1) == 0;
	/* the unit's name: the path is that system.slice service (one rule) */
	return unit_system_service(path, strlen(path), &name, &n) && strlen(u->unit) == n &&
	       memcmp(name, u->unit, n) == 0;
}

/* --trace: the IO the cgroup at path (below the top, "" the top) owns on
 * disk d, measured per request by the block probe, NULL none. The probe's
 * paths are of the io controller's hierarchy: on a hybrid host (v1 blkio)
 * a v2 victim's path matches only where the same path exists there. */
static const struct trace_cg_metrics *traced_cgroup(const struct ctx *c, const char *path,
						    const struct disk_metrics *d)
{
	const struct trace_metrics *tm = c->tm;

	if (!c->block_timed || !tm->has_cg || !d)
		return NULL;
	for (size_t i = 0; i < tm->ncg; i++) {
		const struct trace_cg_metrics *g = &tm->cg[i];
		const char *p = g->path[0] == '/' ? g->path + 1 : g->path;

		if (g->major == d->major && g->minor == d->minor && g->path[0] &&
		    strcmp(p, path) == 0 && g->has[TRACE_LAT_DEVICE] &&
		    g->lat[TRACE_LAT_DEVICE].count >= ADV_TAIL_MIN_IOS)
			return g;
	}
	return NULL;
}

/* The cgroups that waited on res, longest first, into f (the first in
 * f->victim, up to three in a sentence of f->detail). How many named. */
static unsigned cgroup_victims(const struct ctx *c, struct finding *f, enum cg_res res,
			       const struct culprit *cause, const struct disk_metrics *d)
{
	const struct workload_metrics *x = c->m->workload;
	const struct cgroup_table *ct = c->cur->workload ? &c->cur->workload->cgroups : NULL;
	char unit[CGROUP_PATH_MAX + 1], safe[ADV_TEXT_MAX];
	unsigned shown = 0;

	if (!x || !x->cgroups_valid || !ct)
		return 0;
	for (size_t i = 0; i < x->cgroups.nvictims && shown < 3; i++) {
		const struct cgroup_victim *v = &x->cgroups.victims[i];
		const struct cgroup_metrics *m = &x->cgroups.rows[v->row];
		const char *path;

		if (v->res != res || v->some_pct < ADV_VICTIM_PCT || m->cur_index >= ct->n)
			continue;
		path = ct->rows[m->cur_index].path;
		if (causes_cgroup(path, cause))
			continue;
		cgroup_unit_name(path, unit, sizeof(unit));
		text_safe(unit, safe, sizeof(safe));
		if (!shown) {
			size_t n = strlen(safe);

			/* a long path by its end, the part that names it */
			snprintf(f->victim, sizeof(f->victim), "%s%.56s %s %.0f%%",
				 n > 56 ? "..." : "", n > 56 ? safe + n - 53 : safe,
				 cgroup_res_name(res), v->some_pct);
		}
		if (!shown)
			str_cat(f->detail, sizeof(f->detail),
				"%sWho waits on %s (share of the interval stalled): ",
				f->detail[0] ? " " : "", cgroup_res_name(res));
		str_cat(f->detail, sizeof(f->detail), "%s%s some %.0f%% full %.0f%%",
			shown ? ", " : "", safe, v->some_pct, v->full_pct);
		if (res == CG_RES_IO) {
			const struct trace_cg_metrics *g = traced_cgroup(c, path, d);

			if (g && g->has[TRACE_LAT_QUEUED])
				str_cat(f->detail, sizeof(f->detail),
					" (its IO on %s: queued p99 %.2f ms, at the device p50 "
					"%.2f ms p99 %.2f ms)",
					d->name, g->lat[TRACE_LAT_QUEUED].p99_us / 1000,
					g->lat[TRACE_LAT_DEVICE].p50_us / 1000,
					g->lat[TRACE_LAT_DEVICE].p99_us / 1000);
			else if (g)
				str_cat(f->detail, sizeof(f->detail),
					" (its IO on %s at the device: p50 %.2f ms p99 %.2f ms)",
					d->name, g->lat[TRACE_LAT_DEVICE].p50_us / 1000,
					g->lat[TRACE_LAT_DEVICE].p99_us / 1000);
		}
		shown++;
	}
	if (shown)
		str_cat(f->detail, sizeof(f->detail), ".");
	return shown;
}

/* The processes that waited longest for a CPU, into f's detail (the first
 * in f->victim when no cgroup was named); the cause's processes (a
 * group's every member) are not its victims. */
static void runq_victims(const struct ctx *c, struct finding *f, const struct culprit *cause)
{
	const struct workload_metrics *x = c->m->workload;
	char label[ADV_TEXT_MAX];
	unsigned shown = 0;

	if (!x || !x->procs_valid)
		return;
	for (size_t k = 0; k < x->nby_runq && shown < 3; k++) {
		const struct proc_metrics *p = &x->procs[x->by_runq[k]];

		if (p->runq_pct < ADV_VICTIM_PCT || culprit_has(c, cause, p))
			continue;
		proc_short(p, label, sizeof(label));
		if (!f->victim[0])
			snprintf(f->victim, sizeof(f->victim),
				 "%.40s pid %d waits %.0f%% for a CPU", label, p->pid, p->runq_pct);
		if (!shown)
			str_cat(f->detail, sizeof(f->detail),
				"%sWaiting for a CPU (run-queue wait, share of the interval): ",
				f->detail[0] ? " " : "");
		str_cat(f->detail, sizeof(f->detail), "%s%s pid %d %.0f%%", shown ? ", " : "",
			label, p->pid, p->runq_pct);
		shown++;
	}
	if (shown)
		str_cat(f->detail, sizeof(f->detail), ".");
}

void io_victims(const struct ctx *c, struct finding *f, const struct disk_metrics *d,
		const struct culprit *cause)
{
	cgroup_victims(c, f, CG_RES_IO, cause, d);
}

void cpu_victims(const struct ctx *c, struct finding *f, const struct culprit *cause)
{
	cgroup_victims(c, f, CG_RES_CPU, cause, NULL);
	runq_victims(c, f, cause);
}
