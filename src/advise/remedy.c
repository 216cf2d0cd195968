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

/* The database the culprit u is of: its believed role (dbrole.h: the
 * database's program run by its user or in its unit), else, when who runs
 * it was not read, by its comm (the executable's name, which a command
 * line or title cannot change); DB_NONE else. */
static enum db_kind db_of(const struct culprit *u)
{
	if (u->has_who)
		return u->db == PROC_DB_POSTGRES ? DB_POSTGRES : u->db ? DB_MYSQL : DB_NONE;
	if (strcmp(u->comm, "postgres") == 0 || strcmp(u->comm, "postmaster") == 0)
		return DB_POSTGRES;
	if (strcmp(u->comm, "mariadbd") == 0 || strcmp(u->comm, "mysqld") == 0)
		return DB_MYSQL;
	return DB_NONE;
}

/* u's unit when it runs directly in a system.slice service or scope, all
 * of a group's members in the same one ("backup.service": the collector
 * gives a unit's name only then, a whole path with its leading '/' else),
 * into out; false otherwise (no unit to name). */
static bool system_unit(const struct culprit *u, char *out, size_t size)
{
	const char *rest = u->unit;

	if (!u->has_who || u->units_differ || rest[0] == '/')
		return false;
	if (!rest[0] || strlen(rest) >= size ||
	    strspn(rest, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789:_.@-") != strlen(rest))
		return false;
	snprintf(out, size, "%s", rest);
	return true;
}

/* The culprit in a command's words: "fio pid 14840", "fio x4 (pids 14840
 * 14841 14842 14843)"; its pids, space-separated, into pids (a group's
 * members measured this sample, up to CULPRIT_PIDS_MAX). */
struct named {
	char label[PROC_COMM_MAX * 4 + 40 + CULPRIT_PIDS_MAX * 12];
	char pids[CULPRIT_PIDS_MAX * 12];
	int32_t pid[CULPRIT_PIDS_MAX];
	size_t n;
};

static void name_pids(const struct ctx *c, const struct culprit *u, struct named *w)
{
	char comm[PROC_COMM_MAX * 4 + 1];

	text_safe(u->comm, comm, sizeof(comm));
	w->n = culprit_pids(c, u, w->pid, CULPRIT_PIDS_MAX);
	w->pids[0] = '\0';
	for (size_t i = 0; i < w->n; i++)
		str_cat(w->pids, sizeof(w->pids), "%s%d", i ? " " : "", w->pid[i]);
	if (u->count > 1)
		snprintf(w->label, sizeof(w->label), "%s x%u (pids %s%s)", comm, u->count, w->pids,
			 w->n < u->count ? " and more" : "");
	else
		snprintf(w->label, sizeof(w->label), "%s pid %d", comm, u->pid);
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

/* A throttle of u's writes (or reads) on disk d, as commands to type. */
static void io_throttle(const struct ctx *c, struct finding *f, const struct culprit *u,
			const struct disk_metrics *d, const struct topo_block *b)
{
	const struct cgroup_table *ct = c->cur->workload ? &c->cur->workload->cgroups : NULL;
	bool writes = u->wkb_s >= u->rkb_s;
	double mb = (writes ? u->wkb_s : u->rkb_s) / 1024 / 2;
	const char *runs = u->count > 1 ? "run" : "runs";
	char unit[IOT_NAME_MAX + 16], comm[PROC_COMM_MAX * 4 + 1];
	long lim = mb < 1 ? 1 : (long)mb;
	struct named w;

	text_safe(u->comm, comm, sizeof(comm));
	if (system_unit(u, unit, sizeof(unit))) {
		str_cat(f->detail, sizeof(f->detail),
			" Fix: throttle %s's unit to half its rate: systemctl set-property "
			"--runtime %s %s=\"/dev/%s %ldM\" (undo: systemctl set-property --runtime "
			"%s %s=).",
			comm, unit, writes ? "IOWriteBandwidthMax" : "IOReadBandwidthMax", d->name,
			lim, unit, writes ? "IOWriteBandwidthMax" : "IOReadBandwidthMax");
		return;
	}
	name_pids(c, u, &w);
	if (b && (strcmp(b->scheduler, "bfq") == 0 || strcmp(b->scheduler, "cfq") == 0)) {
		str_cat(f->detail, sizeof(f->detail),
			" Fix: %s %s in no unit: give %s the idle IO class, which %s's "
			"scheduler %s honours: ionice -c3 -p %s (undo: ionice -c2 -n4 -p %s).",
			w.label, runs, u->count > 1 ? "them" : "it", d->name, b->scheduler, w.pids,
			w.pids);
		return;
	}
	if (ct && ct->top[0] && ct->io_enabled) {
		bool v1 = cgroup_top_is_blkio(ct->top);
		const char *file = v1 ? (writes ? "blkio.throttle.write_bps_device"
						: "blkio.throttle.read_bps_device")
				      : "io.max";
		char moves[CULPRIT_PIDS_MAX * 12 + 128], back[CULPRIT_PIDS_MAX * 12 + 128];

		/* cgroup.procs takes one pid a write: a group's as one loop, so
		 * the command stays short enough to be whole in the detail */
		if (w.n == 1) {
			snprintf(moves, sizeof(moves),
				 " && echo %d > /%s/iotriage-throttle/cgroup.procs", w.pid[0],
				 ct->top);
			snprintf(back, sizeof(back), "echo %d > /%s/cgroup.procs && ", w.pid[0],
				 ct->top);
		} else {
			snprintf(
			    moves, sizeof(moves),
			    " && for p in %s; do echo $p > /%s/iotriage-throttle/cgroup.procs; "
			    "done",
			    w.pids, ct->top);
			snprintf(back, sizeof(back),
				 "for p in %s; do echo $p > /%s/cgroup.procs; done && ", w.pids,
				 ct->top);
		}
		str_cat(f->detail, sizeof(f->detail),
			" Fix: %s %s in no unit and %s's scheduler (%s) ignores IO "
			"priorities (ionice), so put %s in a cgroup of %s own with half %s rate: "
			"mkdir /%s/iotriage-throttle && echo \"%u:%u %s%ld\" > "
			"/%s/iotriage-throttle/%s%s (undo: %srmdir /%s/iotriage-throttle).",
			w.label, runs, d->name, b && b->scheduler[0] ? b->scheduler : "unknown",
			u->count > 1 ? "them" : "it", u->count > 1 ? "their" : "its",
			u->count > 1 ? "their" : "its", ct->top, d->major, d->minor,
			v1 ? "" : (writes ? "wbps=" : "rbps="), lim * 1024 * 1024, ct->top, file,
			moves, back, ct->top);
		return;
	}
	str_cat(f->detail, sizeof(f->detail),
		" Fix: %s %s in no unit and no io controller is mounted to limit %s: "
		"stop or reschedule %s (kill -STOP %s, kill -CONT %s to resume).",
		w.label, runs, u->count > 1 ? "them" : "it", u->count > 1 ? "them" : "it", w.pids,
		w.pids);
}

void io_remedy(const struct ctx *c, struct finding *f, const struct disk_metrics *d,
	       const struct topo_block *b)
{
	const struct culprit *u = first_cause(f);
	enum db_kind db;

	if (!u)
		return;
	db = db_of(u);
	if (db != DB_NONE) {
		str_cat(f->detail, sizeof(f->detail), " %s", db_io_text[db]);
		return;
	}
	io_throttle(c, f, u, d, b);
}

/* f's culprits by CPU: a unit capped, the database's own advice, and what
 * runs in no unit reniced (every member of a group measured). */
void cpu_remedy(const struct ctx *c, struct finding *f)
{
	char unit[IOT_NAME_MAX + 16], pids[CULPRIT_PIDS_MAX * 3 * 12] = "";
	enum db_kind db = DB_NONE;
	size_t capped = 0, n = 0;

	for (unsigned k = 0; k < f->nculprits; k++) {
		const struct culprit *u = &f->culprits[k];
		enum db_kind kind;
		struct named w;

		if (u->kind == CULPRIT_CGROUP)
			continue;
		n++;
		kind = db_of(u);
		if (kind != DB_NONE) {
			db = db == DB_NONE ? kind : db;
			continue;
		}
		if (!capped && system_unit(u, unit, sizeof(unit))) {
			str_cat(f->detail, sizeof(f->detail),
				" Fix: cap %s: systemctl set-property --runtime %s CPUQuota=50%% "
				"(undo: systemctl set-property --runtime %s CPUQuota=).",
				unit, unit, unit);
			capped++;
			continue;
		}
		name_pids(c, u, &w);
		str_cat(pids, sizeof(pids), " %s", w.pids);
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
