// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Culprit identity, in one place: who causes a finding (the processes, the
 * groups of one database role or one command and cgroup, and the cgroups
 * behind a disk's IO or the CPUs' time) as structured fields (struct
 * culprit: pid, user, unit, role, the command line as the process's own
 * words), and the text and headline words made from them. Nothing a
 * process wrote (its command line, its title, its comm) is ever read as
 * who it is: a role is the one dbrole.h believes, the user and unit are the
 * kernel's, and the command line is quoted, last, marked as its own words.
 */
#include "advise_int.h"

#define CMDLINE_TEXT_MAX 100 /* of a command line in the culprit's text (JSON has it whole) */

/* "pg checkpointer", "pg backend" (its state aside), "" without a role. */
static void role_label(uint8_t db, const char *role, char *buf, size_t size)
{
	if (db && role[0])
		snprintf(buf, size, "%s %s", dbrole_db_name(db), role);
	else if (size)
		buf[0] = '\0';
}

/*
 * What a process or a user may have named (a command line, a comm, a cgroup
 * path) for text: escaped for a terminal (text_safe), its '"' as \x22 and
 * its ';' as \x3b, and cut after max bytes (never inside an escape): it
 * can neither close the quotes around a command line nor hold a "; " (the
 * entries' separator, where the findings panel breaks lines) and so start
 * an entry of its own that speaks as us.
 */
static const char *words(const char *in, size_t max, char *buf, size_t size)
{
	char tmp[4 * PROC_CMDLINE_MAX + 1];
	size_t k = 0;

	text_safe(in, tmp, sizeof(tmp));
	for (const char *s = tmp; *s && k + 5 < size && (size_t)(s - tmp) < max; s++) {
		if (*s == '\\' && (size_t)(s - tmp) + 4 > max)
			break;
		if (*s == '"' || *s == ';') {
			memcpy(buf + k, *s == '"' ? "\\x22" : "\\x3b", 4);
			k += 4;
		} else {
			buf[k++] = *s;
		}
	}
	if (size)
		buf[k] = '\0';
	return buf;
}

/* A process in a word for a headline or a victim: its believed role
 * ("pg checkpointer"), else its comm (the kernel's name of the program,
 * which exec -a does not change), never a title it set. */
void proc_short(const struct proc_metrics *p, char *buf, size_t size)
{
	char comm[PROC_COMM_MAX * 4 + 1];

	if (p->role.db && p->role.role[0])
		role_label(p->role.db, p->role.role, buf, size);
	else
		snprintf(buf, size, "%s", words(p->comm, PROC_COMM_MAX, comm, sizeof(comm)));
}

/* ---- the structured list ---- */

/* One process's fields into u. */
static void from_proc(struct culprit *u, const struct proc_metrics *p)
{
	memset(u, 0, sizeof(*u));
	u->kind = CULPRIT_PROCESS;
	u->pid = p->pid;
	u->count = 1;
	memcpy(u->comm, p->comm, sizeof(u->comm));
	u->has_who = p->has_who;
	if (p->has_who) {
		memcpy(u->user, p->user, sizeof(u->user));
		memcpy(u->unit, p->unit, sizeof(u->unit));
		memcpy(u->cmdline, p->cmdline, sizeof(u->cmdline));
	}
	u->db = p->role.db;
	memcpy(u->role, p->role.role, sizeof(u->role));
	memcpy(u->state, p->role.state, sizeof(u->state));
	u->role_claimed = p->role.claimed;
	u->rkb_s = p->rkb_s;
	u->wkb_s = p->wkb_s;
	u->cpu_pct = p->cpu_pct;
	u->usr_pct = p->usr_pct;
	u->sys_pct = p->sys_pct;
	u->io_delay = p->io_delay;
}

static const struct proc_metrics *proc_of(const struct workload_metrics *x, int32_t pid)
{
	for (size_t i = 0; i < x->nprocs; i++)
		if (x->procs[i].pid == pid)
			return &x->procs[i];
	return NULL;
}

/* A group's fields into u: one process as itself (its row when it has
 * one), several as the group with the busiest member's pid and words. */
static void from_group(struct culprit *u, const struct workload_metrics *x,
		       const struct proc_group *g)
{
	const struct proc_metrics *p = proc_of(x, g->pid);

	if (g->n == 1 && p) {
		from_proc(u, p);
		return;
	}
	memset(u, 0, sizeof(*u));
	u->kind = g->n == 1 ? CULPRIT_PROCESS : CULPRIT_GROUP;
	u->pid = g->pid;
	u->count = g->n;
	memcpy(u->comm, g->comm, sizeof(u->comm));
	u->has_who = g->has_who;
	if (g->has_who) {
		memcpy(u->user, g->user, sizeof(u->user));
		memcpy(u->unit, g->unit, sizeof(u->unit));
		memcpy(u->cmdline, g->cmdline, sizeof(u->cmdline));
	}
	u->users_differ = g->users_differ;
	u->units_differ = g->units_differ;
	u->db = g->db;
	memcpy(u->role, g->role, sizeof(u->role));
	if (p && !g->db)
		u->role_claimed = p->role.claimed;
	u->rkb_s = g->rkb_s;
	u->wkb_s = g->wkb_s;
	u->cpu_pct = g->cpu_pct;
	u->io_delay = g->io_delay;
}

static double by_value(const struct culprit *u, enum culprit_by by)
{
	if (by == CULPRIT_BY_DELAY)
		return u->io_delay;
	if (by == CULPRIT_BY_CPU)
		return u->cpu_pct;
	return u->rkb_s + u->wkb_s;
}

/* The first processes or groups by `by` into f->culprits: groups where the
 * metrics have them (a role's processes as one, keyed the same from one
 * sample to the next), else the processes. How many. */
static unsigned list(const struct ctx *c, struct finding *f, enum culprit_by by, unsigned max)
{
	const struct workload_metrics *x = c->m->workload;
	static const double floor_of[] = {
		[CULPRIT_BY_IO] = 1, [CULPRIT_BY_CPU] = 1, [CULPRIT_BY_DELAY] = 1
	};
	const size_t *gi = by == CULPRIT_BY_IO	  ? x->g_by_io
			   : by == CULPRIT_BY_CPU ? x->g_by_cpu
						  : x->g_by_delay;
	const size_t *pi = by == CULPRIT_BY_IO	  ? x->by_io
			   : by == CULPRIT_BY_CPU ? x->by_cpu
						  : x->by_delay;
	size_t ng = by == CULPRIT_BY_IO	   ? x->ng_by_io
		    : by == CULPRIT_BY_CPU ? x->ng_by_cpu
					   : x->ng_by_delay;
	size_t np = by == CULPRIT_BY_IO	   ? x->nby_io
		    : by == CULPRIT_BY_CPU ? x->nby_cpu
					   : x->nby_delay;
	unsigned n = 0;

	for (size_t k = 0; ng ? k < ng : k < np; k++) {
		struct culprit *u = &f->culprits[f->nculprits];

		if (n == max || f->nculprits == ADV_CULPRITS_MAX)
			break;
		if (ng)
			from_group(u, x, &x->groups[gi[k]]);
		else
			from_proc(u, &x->procs[pi[k]]);
		if (by_value(u, by) < floor_of[by])
			continue;
		f->nculprits++;
		n++;
	}
	return n;
}

/* ---- text ---- */

/* MB/s, one unit for headline and culprit: 0.1 below 10, whole above */
static void mb(double kb_s, char *buf, size_t size)
{
	double v = kb_s / 1024;

	snprintf(buf, size, v < 10 ? "%.1f MB/s" : "%.0f MB/s", v);
}

/* "pg checkpointer pid 812", "pg backends x4", "fio pid 14840", "sh x3" */
static void name_of(const struct culprit *u, char *buf, size_t size)
{
	char comm[PROC_COMM_MAX * 4 + 1], role[PROC_ROLE_MAX + 8];

	role_label(u->db, u->role, role, sizeof(role));
	if (u->count > 1)
		snprintf(buf, size, "%s%s x%u",
			 role[0] ? role : words(u->comm, PROC_COMM_MAX, comm, sizeof(comm)),
			 role[0] && strcmp(u->role, "backend") == 0 ? "s" : "", u->count);
	else
		snprintf(buf, size, "%s pid %d",
			 role[0] ? role : words(u->comm, PROC_COMM_MAX, comm, sizeof(comm)),
			 u->pid);
}

/*
 * One entry: its name, then who the kernel says runs it (user, always;
 * unit), then its own words quoted last: 'pg checkpointer pid 812 (user
 * postgres, unit postgresql@15-main.service, own words "postgres: 15/main:
 * checkpointer")'.
 */
static void identity(const struct culprit *u, char *buf, size_t size)
{
	char name[PROC_ROLE_MAX + PROC_COMM_MAX * 4 + 32], user[PROC_USER_MAX * 4 + 8];
	char unit[PROC_UNIT_MAX * 4 + 8], said[CMDLINE_TEXT_MAX * 4 + 8];

	name_of(u, name, sizeof(name));
	if (!u->has_who) {
		snprintf(buf, size, "%s (user unknown: not read yet)", name);
		return;
	}
	words(u->user, PROC_USER_MAX, user, sizeof(user));
	words(u->unit, PROC_UNIT_MAX, unit, sizeof(unit));
	words(u->cmdline, CMDLINE_TEXT_MAX, said, sizeof(said));
	if (u->count > 1) {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", u->pid);
		snprintf(buf, size,
			 "%.60s (user %.40s%s, unit %.140s%s, busiest pid %s%s%s%.110s%s)", name,
			 user, u->users_differ ? " and others" : "", unit[0] ? unit : "?",
			 u->units_differ ? " and others" : "", pid,
			 u->role_claimed ? ", its title claims a role it is not given" : "",
			 said[0] ? ", its own words \"" : "", said, said[0] ? "\"" : "");
	} else {
		snprintf(buf, size, "%.60s (user %.40s, unit %.140s%s%s%.110s%s)", name, user,
			 unit[0] ? unit : "?",
			 u->role_claimed ? ", its title claims a role it is not given" : "",
			 said[0] ? ", own words \"" : "", said, said[0] ? "\"" : "");
	}
}

/* The headline's words: the name cut to what leaves the number whole
 * ("pg checkpointer pid 812 38 MB/s", "pg backends x4 112 %CPU", "fio pid
 * 14840 525 MB/s", "burner pid 4000 (nobody) 95 %CPU"): a process without
 * a role says whose it is unless root's (the 80-column headline keeps its
 * victim; a user's process can never pass for a role there). */
static void who_of(const struct culprit *u, const char *number, char *buf, size_t size)
{
	char name[PROC_ROLE_MAX + PROC_COMM_MAX * 4 + 32], user[PROC_USER_MAX * 4 + 8];
	int room;

	name_of(u, name, sizeof(name));
	if (!u->db && u->has_who && strcmp(u->user, "root") != 0) {
		size_t n = strlen(name);

		snprintf(name + n, sizeof(name) - n, " (%s)",
			 words(u->user, PROC_USER_MAX, user, sizeof(user)));
	}
	room = (int)size - 2 - (int)strlen(number);
	if (room < 8)
		room = 8;
	snprintf(buf, size, "%.*s %s", room, name, number);
}

/* The seconds the rates span when they are not the finding's: the process
 * scan ran over another window (the daemon's cadence, doc/json.md). */
static void window_note(const struct ctx *c, struct finding *f)
{
	const struct workload_metrics *x = c->m->workload;

	if (!x->procs_window_cs || (x->procs_window_cs == c->m->itv_cs && !x->procs_age_cs))
		return;
	f->culprit_window_s = (double)x->procs_window_cs / 100;
	f->culprit_age_s = (double)x->procs_age_cs / 100;
	if (x->procs_age_cs)
		str_cat(f->culprit, sizeof(f->culprit),
			" (the processes' rates over %.1f s ending %.1f s before this sample, not "
			"the finding's %.1f s)",
			f->culprit_window_s, f->culprit_age_s, (double)c->m->itv_cs / 100);
	else
		str_cat(f->culprit, sizeof(f->culprit),
			" (the processes' rates over %.1f s, not the finding's %.1f s)",
			f->culprit_window_s, (double)c->m->itv_cs / 100);
}

/* A server culprit's threads by role (its bytes, biggest first) into
 * u->threads: where in mariadbd the writes go. */
static void thread_roles(const struct workload_metrics *x, struct culprit *u)
{
	size_t k = 0;

	u->threads[0] = '\0';
	if (!u->db || u->count != 1)
		return;
	for (size_t i = 0; i < x->ntroles && k < 3; i++) {
		const struct proc_thread_metrics *t = &x->troles[i];
		char rate[24], name[PROC_ROLE_MAX + 16];

		if (t->pid != u->pid || t->rkb_s + t->wkb_s < 1)
			continue;
		mb(t->rkb_s + t->wkb_s, rate, sizeof(rate));
		if (t->role[0])
			snprintf(name, sizeof(name), "%s", t->role);
		else
			snprintf(name, sizeof(name), "thread %d", t->tid);
		str_cat(u->threads, sizeof(u->threads), "%s%s %s", k ? ", " : "", name, rate);
		k++;
	}
}

/* ---- the rules' entry points ---- */

/* The processes doing the most IO (all disks: per-process counters do not
 * say which) and the cgroups doing the most on disk d, into f. A process's
 * write_bytes counts pages as it dirties them: when the processes wrote
 * much more than the disk did, that is said. */
void io_culprits(const struct ctx *c, struct finding *f, const struct disk_metrics *d)
{
	const struct workload_metrics *x = c->m->workload;
	char id[ADV_TEXT_MAX], rd[24], wr[24], sum[24];
	double wr_sum = 0;
	unsigned n;

	if (!x || !x->procs_valid)
		return; /* unknown: the culprit stays "" */
	n = list(c, f, CULPRIT_BY_IO, 3);
	for (unsigned k = 0; k < n; k++) {
		const struct culprit *u = &f->culprits[k];

		identity(u, id, sizeof(id));
		mb(u->rkb_s, rd, sizeof(rd));
		mb(u->wkb_s, wr, sizeof(wr));
		mb(u->rkb_s + u->wkb_s, sum, sizeof(sum));
		if (!k)
			who_of(u, sum, f->who, sizeof(f->who));
		thread_roles(x, &f->culprits[k]);
		str_cat(f->culprit, sizeof(f->culprit), "%s%s: %s read, %s written%s%s%s",
			k ? "; " : "", id, rd, wr, u->threads[0] ? " (its threads: " : "",
			u->threads, u->threads[0] ? ")" : "");
	}
	/* every process's writes, not only the ones named */
	wr_sum = 0;
	for (size_t i = 0; i < x->ngroups; i++)
		wr_sum += x->groups[i].wkb_s;
	for (size_t i = 0; !x->ngroups && i < x->nprocs; i++)
		wr_sum += x->procs[i].wkb_s;
	if (d && n && wr_sum >= 1024 && wr_sum > 1.5 * d->wkb_s) {
		mb(wr_sum, sum, sizeof(sum));
		mb(d->wkb_s, wr, sizeof(wr));
		f->culprit_dirtied = true;
		str_cat(f->culprit, sizeof(f->culprit),
			" (a process's written counts pages as it dirties them: dirtied %s; %s "
			"wrote %s, the page cache holds the rest for writeback)",
			sum, d->name, wr);
	}
	window_note(c, f);
	if (!d || !x->cgroups_valid || !c->cur->workload)
		return;
	n = 0;
	for (size_t k = 0; k < x->cgroups.ntop && n < 2; k++) {
		const struct cgroup_metrics *cg = &x->cgroups.rows[x->cgroups.top[k]];
		const struct cgroup_table *ct = &c->cur->workload->cgroups;

		if (!cg->valid || cg->cur_index >= ct->n)
			continue;
		for (size_t j = 0; j < cg->ndev; j++) {
			const struct cgroup_dev_metrics *dm = &x->cgroups.devs[cg->dev_off + j];
			struct culprit *u = &f->culprits[f->nculprits];
			char unit[CGROUP_PATH_MAX + 1], safe[ADV_TEXT_MAX];

			if (dm->major != d->major || dm->minor != d->minor ||
			    dm->rkb_s + dm->wkb_s < 1 || f->nculprits == ADV_CULPRITS_MAX)
				continue;
			cgroup_unit_name(ct->rows[cg->cur_index].path, unit, sizeof(unit));
			memset(u, 0, sizeof(*u));
			u->kind = CULPRIT_CGROUP;
			snprintf(u->unit, sizeof(u->unit), "%.160s", unit);
			u->rkb_s = dm->rkb_s;
			u->wkb_s = dm->wkb_s;
			f->nculprits++;
			mb(dm->rkb_s + dm->wkb_s, sum, sizeof(sum));
			str_cat(f->culprit, sizeof(f->culprit), "%scgroup %s: %s on %s",
				f->culprit[0] ? "; " : "",
				words(unit, sizeof(unit), safe, sizeof(safe)), sum, d->name);
			n++;
		}
	}
}

/* The first three by CPU use, or (io_wait) by the share of time they
 * waited on IO, into f; the first into f->who. */
static void top_procs(const struct ctx *c, bool io_wait, struct finding *f)
{
	const struct workload_metrics *x = c->m->workload;
	char id[ADV_TEXT_MAX], num[32];
	unsigned n;

	if (!x || !x->procs_valid)
		return;
	n = list(c, f, io_wait ? CULPRIT_BY_DELAY : CULPRIT_BY_CPU, 3);
	for (unsigned k = 0; k < n; k++) {
		const struct culprit *u = &f->culprits[k];

		identity(u, id, sizeof(id));
		if (io_wait) {
			snprintf(num, sizeof(num), "waits %.0f%% on IO", u->io_delay);
			str_cat(f->culprit, sizeof(f->culprit),
				"%s%s waits %.0f%% of the time on IO", k ? "; " : "", id,
				u->io_delay);
		} else {
			snprintf(num, sizeof(num), "%.0f %%CPU", u->cpu_pct);
			if (u->count == 1)
				str_cat(f->culprit, sizeof(f->culprit),
					"%s%s: %.0f %%CPU (usr %.0f sys %.0f)", k ? "; " : "", id,
					u->cpu_pct, u->usr_pct, u->sys_pct);
			else
				str_cat(f->culprit, sizeof(f->culprit), "%s%s: %.0f %%CPU together",
					k ? "; " : "", id, u->cpu_pct);
		}
		if (!k)
			who_of(u, num, f->who, sizeof(f->who));
	}
	if (n)
		window_note(c, f);
}

/* The processes using the most CPU, into f. */
void cpu_culprits(const struct ctx *c, struct finding *f)
{
	top_procs(c, false, f);
}

/* The processes that wait the most on IO, into f. */
void iowait_culprits(const struct ctx *c, struct finding *f)
{
	top_procs(c, true, f);
}

/* ---- the culprit as the victims and the fix see it ---- */

/* f's first process or group culprit (the headline's), NULL none: what
 * its victims leave out and its fix names. */
const struct culprit *first_cause(const struct finding *f)
{
	for (unsigned k = 0; k < f->nculprits; k++)
		if (f->culprits[k].kind != CULPRIT_CGROUP)
			return &f->culprits[k];
	return NULL;
}

/* The group u stands for in this sample's metrics, SIZE_MAX none (a
 * process, or a group no longer there). */
static size_t group_of(const struct workload_metrics *x, const struct culprit *u)
{
	if (u->kind != CULPRIT_GROUP)
		return SIZE_MAX;
	for (size_t i = 0; i < x->ngroups; i++)
		if (x->groups[i].pid == u->pid && x->groups[i].n == u->count)
			return i;
	return SIZE_MAX;
}

/* p is u, or one of u's members. */
bool culprit_has(const struct ctx *c, const struct culprit *u, const struct proc_metrics *p)
{
	const struct workload_metrics *x = c->m->workload;
	size_t g;

	if (!u || u->kind == CULPRIT_CGROUP)
		return false;
	if (p->pid == u->pid)
		return true;
	g = x ? group_of(x, u) : SIZE_MAX;
	return g != SIZE_MAX && p->group == g;
}

/* u's pids, busiest first (a group's members among the processes measured
 * this sample, its busiest pid first), up to max, into pids; how many. */
size_t culprit_pids(const struct ctx *c, const struct culprit *u, int32_t *pids, size_t max)
{
	const struct workload_metrics *x = c->m->workload;
	size_t n = 0, g;

	if (!u || u->kind == CULPRIT_CGROUP || !max)
		return 0;
	pids[n++] = u->pid;
	g = x ? group_of(x, u) : SIZE_MAX;
	for (size_t i = 0; g != SIZE_MAX && i < x->nprocs && n < max; i++)
		if (x->procs[i].group == g && x->procs[i].pid != u->pid)
			pids[n++] = x->procs[i].pid;
	return n;
}

const char *advise_culprit_kind_name(enum culprit_kind k)
{
	switch (k) {
	case CULPRIT_GROUP:
		return "group";
	case CULPRIT_CGROUP:
		return "cgroup";
	default:
		return "process";
	}
}
