// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Culprit identity, in one place: who causes a finding (the processes and
 * cgroups behind a disk's IO or the CPUs' time) and how a process is named
 * (proc_label, proc_short).
 */
#include "advise_int.h"

/* "pid 812 postgres: 15/main: checkpointer (user postgres, unit
 * system.slice/postgresql@15-main.service)", or "pid 812 postgres" when who
 * runs it was not read. cmdline is escaped by the collector already. */
void proc_label(const struct proc_metrics *p, char *buf, size_t size)
{
	char comm[PROC_COMM_MAX * 4 + 1];

	if (!p->has_who || !p->cmdline[0]) {
		snprintf(buf, size, "pid %d %s", p->pid, text_safe(p->comm, comm, sizeof(comm)));
		return;
	}
	snprintf(buf, size, "pid %d %.120s (user %s%s%s)", p->pid, p->cmdline, p->user,
		 p->unit[0] ? ", unit " : "", p->unit);
}

/* A process in a word, or in the title it set: "fio" (the command's base
 * name), "postgres: 15/main: checkpointer" (a first word ending in ':' is
 * a title, as PostgreSQL and sshd set), the comm when the command line was
 * not read. */
void proc_short(const struct proc_metrics *p, char *buf, size_t size)
{
	const char *cl = p->cmdline, *sp, *base;
	char comm[PROC_COMM_MAX * 4 + 1];
	size_t n;

	if (!p->has_who || !cl[0] || cl[0] == '[') {
		snprintf(buf, size, "%s", text_safe(p->comm, comm, sizeof(comm)));
		return;
	}
	sp = strchr(cl, ' ');
	if (sp && sp > cl && sp[-1] == ':') {
		n = strlen(cl);
		if (n > 40) { /* the title's words that fit, whole */
			n = 40;
			while (n > 0 && cl[n] != ' ')
				n--;
		}
		snprintf(buf, size, "%.*s", (int)n, cl);
		return;
	}
	n = sp ? (size_t)(sp - cl) : strlen(cl);
	base = cl;
	for (size_t i = 0; i + 1 < n; i++)
		if (cl[i] == '/')
			base = cl + i + 1;
	snprintf(buf, size, "%.*s", (int)(n - (size_t)(base - cl)), base);
}

/* The processes doing the most IO (all disks: per-process counters do not
 * say which) and the cgroups doing the most on disk d, into f->culprit. */
void io_culprits(const struct ctx *c, struct finding *f, const struct disk_metrics *d)
{
	const struct workload_metrics *x = c->m->workload;
	char label[ADV_TEXT_MAX];
	unsigned shown = 0;

	if (!x || !x->procs_valid)
		return; /* unknown: the culprit stays "" */
	for (size_t k = 0; k < x->nby_io && shown < 3; k++) {
		const struct proc_metrics *p = &x->procs[x->by_io[k]];

		if (p->rkb_s + p->wkb_s < 1)
			continue;
		if (!shown) {
			double kbs = p->rkb_s + p->wkb_s;

			proc_short(p, label, sizeof(label));
			str_cat(f->who, sizeof(f->who), "%s pid %d %.0f %s", label, p->pid,
				kbs >= 1024 ? kbs / 1024 : kbs, kbs >= 1024 ? "MB/s" : "kB/s");
		}
		proc_label(p, label, sizeof(label));
		str_cat(f->culprit, sizeof(f->culprit), "%s%s (%.0f kB/s read, %.0f kB/s written)",
			shown ? "; " : "", label, p->rkb_s, p->wkb_s);
		shown++;
	}
	if (!d || !x->cgroups_valid || !c->cur->workload)
		return;
	shown = 0;
	for (size_t k = 0; k < x->cgroups.ntop && shown < 2; k++) {
		const struct cgroup_metrics *cg = &x->cgroups.rows[x->cgroups.top[k]];
		const struct cgroup_table *ct = &c->cur->workload->cgroups;

		if (!cg->valid || cg->cur_index >= ct->n)
			continue;
		for (size_t j = 0; j < cg->ndev; j++) {
			const struct cgroup_dev_metrics *dm = &x->cgroups.devs[cg->dev_off + j];

			if (dm->major != d->major || dm->minor != d->minor ||
			    dm->rkb_s + dm->wkb_s < 1)
				continue;
			text_safe(ct->rows[cg->cur_index].path, label, sizeof(label));
			str_cat(f->culprit, sizeof(f->culprit), "%scgroup %s: %.0f kB/s on %s",
				f->culprit[0] ? "; " : "", label[0] ? label : "/",
				dm->rkb_s + dm->wkb_s, d->name);
			shown++;
		}
	}
}

/* The first three processes by CPU use, or (io_wait) by the share of time
 * they waited on IO, into f->culprit, the first into f->who. */
static void top_procs(const struct ctx *c, bool io_wait, struct finding *f)
{
	const struct workload_metrics *x = c->m->workload;
	char label[ADV_TEXT_MAX];
	unsigned shown = 0;
	size_t n;

	if (!x || !x->procs_valid)
		return;
	n = io_wait ? x->nby_delay : x->nby_cpu;
	for (size_t k = 0; k < n && shown < 3; k++) {
		const struct proc_metrics *p = &x->procs[io_wait ? x->by_delay[k] : x->by_cpu[k]];

		if ((io_wait ? p->io_delay : p->cpu_pct) < 1)
			continue;
		if (!shown)
			proc_short(p, label, sizeof(label));
		if (!shown && io_wait)
			str_cat(f->who, sizeof(f->who), "%s pid %d waits %.0f%% on IO", label,
				p->pid, p->io_delay);
		else if (!shown)
			str_cat(f->who, sizeof(f->who), "%s pid %d %%CPU %.0f", label, p->pid,
				p->cpu_pct);
		proc_label(p, label, sizeof(label));
		if (io_wait)
			str_cat(f->culprit, sizeof(f->culprit),
				"%s%s waits %.0f%% of the time on IO", shown ? "; " : "", label,
				p->io_delay);
		else
			str_cat(f->culprit, sizeof(f->culprit),
				"%s%s %%CPU %.0f (usr %.0f sys %.0f)", shown ? "; " : "", label,
				p->cpu_pct, p->usr_pct, p->sys_pct);
		shown++;
	}
}

/* The processes using the most CPU, into f->culprit. */
void cpu_culprits(const struct ctx *c, struct finding *f)
{
	top_procs(c, false, f);
}

/* The processes that wait the most on IO, into f->culprit. */
void iowait_culprits(const struct ctx *c, struct finding *f)
{
	top_procs(c, true, f);
}
