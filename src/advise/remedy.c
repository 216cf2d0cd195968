// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fix that fits the culprit, as text to type (never applied): the
 * culprit's own unit in a systemctl command, its pid where it runs outside
 * a unit (ionice where the disk's scheduler honours it, else a cgroup of
 * its own with a limit), and never a throttle or renice of a database's own
 * processes: for PostgreSQL and MariaDB/MySQL, the settings of their own
 * that bound the same work. Each into the finding's detail.
 */
#include "advise_int.h"

enum db_kind { DB_NONE, DB_POSTGRES, DB_MYSQL };

/* The database p is a process of, by its comm (the executable's name,
 * which a command line or title cannot change), DB_NONE else. */
static enum db_kind db_of(const struct proc_metrics *p)
{
	if (strcmp(p->comm, "postgres") == 0 || strcmp(p->comm, "postmaster") == 0)
		return DB_POSTGRES;
	if (strcmp(p->comm, "mariadbd") == 0 || strcmp(p->comm, "mysqld") == 0)
		return DB_MYSQL;
	return DB_NONE;
}

/* p's unit when it runs directly in a system.slice service or scope
 * ("backup.service"), into out; false otherwise (no unit to name). */
static bool system_unit(const struct proc_metrics *p, char *out, size_t size)
{
	const char *u = p->unit, *rest;

	if (!p->has_who || strncmp(u, "system.slice/", 13) != 0)
		return false;
	rest = u + 13;
	if (!rest[0] || strlen(rest) >= size ||
	    strspn(rest, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789:_.@-") != strlen(rest))
		return false;
	snprintf(out, size, "%s", rest);
	return true;
}

/* The processes ranked first (by IO, or by CPU), up to three, into ps;
 * their count. */
static size_t top_procs_of(const struct ctx *c, bool io, const struct proc_metrics **ps)
{
	const struct workload_metrics *x = c->m->workload;
	size_t n = 0;

	if (!x || !x->procs_valid)
		return 0;
	for (size_t k = 0; k < (io ? x->nby_io : x->nby_cpu) && n < 3; k++) {
		const struct proc_metrics *p = &x->procs[io ? x->by_io[k] : x->by_cpu[k]];

		if (io ? p->rkb_s + p->wkb_s >= 1 : p->cpu_pct >= 1)
			ps[n++] = p;
	}
	return n;
}

static const char *const db_io_text[] = {
	[DB_POSTGRES] =
	    "The IO is PostgreSQL's own: spread checkpoints over more of their interval "
	    "(checkpoint_completion_target = 0.9) and make them rarer (a larger max_wal_size, "
	    "checkpoint_timeout), let the background writer clean more between them "
	    "(bgwriter_lru_maxpages), and see who writes in pg_stat_bgwriter and pg_stat_io. "
	    "Not applied, and the database's processes are never throttled here: a backend "
	    "holding a lock would hold it longer.",
	[DB_MYSQL] = "The IO is the server's own: innodb_io_capacity and innodb_io_capacity_max "
		     "bound how fast the page cleaner flushes, innodb_flush_log_at_trx_commit = "
		     "2 trades the last second of commits after a crash for one log flush a "
		     "second (a durability choice, yours). Not applied, and the server is never "
		     "throttled here.",
};

static const char *const db_cpu_text[] = {
	[DB_POSTGRES] =
	    "The CPU time is PostgreSQL's backends: see the queries (SELECT pid, now() - "
	    "query_start, query FROM pg_stat_activity WHERE state = 'active' ORDER BY 2 DESC), "
	    "cancel a runaway (SELECT pg_cancel_backend(PID)), bound them (statement_timeout), "
	    "or pool connections. Not applied, and backends are never reniced here: one holding "
	    "a lock others wait on would hold it longer.",
	[DB_MYSQL] = "The CPU time is the server's queries: SHOW FULL PROCESSLIST, KILL QUERY "
		     "for a runaway, max_statement_time to bound them. Not applied, and the "
		     "server is never reniced here.",
};

/* A throttle of p's writes (or reads) on disk d, as commands to type. */
static void io_throttle(const struct ctx *c, struct finding *f, const struct proc_metrics *p,
			const struct disk_metrics *d, const struct topo_block *b)
{
	const struct cgroup_table *ct = c->cur->workload ? &c->cur->workload->cgroups : NULL;
	bool writes = p->wkb_s >= p->rkb_s;
	double mb = (writes ? p->wkb_s : p->rkb_s) / 1024 / 2;
	char unit[IOT_NAME_MAX + 16], comm[PROC_COMM_MAX * 4 + 1];
	long lim = mb < 1 ? 1 : (long)mb;

	text_safe(p->comm, comm, sizeof(comm));
	if (system_unit(p, unit, sizeof(unit))) {
		str_cat(f->detail, sizeof(f->detail),
			" Fix: throttle %s's unit to half its rate: systemctl set-property "
			"--runtime %s %s=\"/dev/%s %ldM\" (undo: systemctl set-property --runtime "
			"%s %s=).",
			comm, unit, writes ? "IOWriteBandwidthMax" : "IOReadBandwidthMax", d->name,
			lim, unit, writes ? "IOWriteBandwidthMax" : "IOReadBandwidthMax");
		return;
	}
	if (b && (strcmp(b->scheduler, "bfq") == 0 || strcmp(b->scheduler, "cfq") == 0)) {
		str_cat(f->detail, sizeof(f->detail),
			" Fix: %s pid %d runs in no unit: give it the idle IO class, which %s's "
			"scheduler %s honours: ionice -c3 -p %d (undo: ionice -c2 -n4 -p %d).",
			comm, p->pid, d->name, b->scheduler, p->pid, p->pid);
		return;
	}
	if (ct && ct->top[0] && ct->io_enabled) {
		bool v1 = cgroup_top_is_blkio(ct->top);
		const char *file = v1 ? (writes ? "blkio.throttle.write_bps_device"
						: "blkio.throttle.read_bps_device")
				      : "io.max";

		str_cat(f->detail, sizeof(f->detail),
			" Fix: %s pid %d runs in no unit and %s's scheduler (%s) ignores IO "
			"priorities (ionice), so put it in a cgroup of its own with half its rate: "
			"mkdir /%s/iotriage-throttle && echo \"%u:%u %s%ld\" > "
			"/%s/iotriage-throttle/%s && echo %d > /%s/iotriage-throttle/cgroup.procs "
			"(undo: echo %d > /%s/cgroup.procs && rmdir /%s/iotriage-throttle).",
			comm, p->pid, d->name, b && b->scheduler[0] ? b->scheduler : "unknown",
			ct->top, d->major, d->minor, v1 ? "" : (writes ? "wbps=" : "rbps="),
			lim * 1024 * 1024, ct->top, file, p->pid, ct->top, p->pid, ct->top,
			ct->top);
		return;
	}
	str_cat(f->detail, sizeof(f->detail),
		" Fix: %s pid %d runs in no unit and no io controller is mounted to limit it: "
		"stop or reschedule it (kill -STOP %d, kill -CONT %d to resume).",
		comm, p->pid, p->pid, p->pid);
}

void io_remedy(const struct ctx *c, struct finding *f, const struct disk_metrics *d,
	       const struct topo_block *b)
{
	const struct proc_metrics *ps[3];
	size_t n = top_procs_of(c, true, ps);
	enum db_kind db;

	if (!n)
		return;
	db = db_of(ps[0]);
	if (db != DB_NONE) {
		str_cat(f->detail, sizeof(f->detail), " %s", db_io_text[db]);
		return;
	}
	io_throttle(c, f, ps[0], d, b);
}

void cpu_remedy(const struct ctx *c, struct finding *f)
{
	const struct proc_metrics *ps[3];
	size_t n = top_procs_of(c, false, ps);
	char unit[IOT_NAME_MAX + 16], pids[64] = "";
	enum db_kind db = DB_NONE;
	size_t nice = 0;

	for (size_t i = 0; i < n; i++) {
		enum db_kind k = db_of(ps[i]);

		if (k != DB_NONE) {
			db = db == DB_NONE ? k : db;
			continue;
		}
		if (!nice && system_unit(ps[i], unit, sizeof(unit))) {
			str_cat(f->detail, sizeof(f->detail),
				" Fix: cap %s: systemctl set-property --runtime %s CPUQuota=50%% "
				"(undo: systemctl set-property --runtime %s CPUQuota=).",
				unit, unit, unit);
			nice++;
			continue;
		}
		str_cat(pids, sizeof(pids), " %d", ps[i]->pid);
	}
	if (pids[0])
		str_cat(f->detail, sizeof(f->detail),
			" Fix: lower the priority of what runs in no unit: renice -n 19 -p%s (note "
			"their nice values first to undo: ps -o pid,ni -p%s).",
			pids, pids);
	if (db != DB_NONE)
		str_cat(f->detail, sizeof(f->detail), " %s", db_cpu_text[db]);
	if (!n)
		str_cat(f->detail, sizeof(f->detail),
			" No process stands out: add CPUs or move work off this host.");
}
