// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who a process is, and what the database role it claims is worth:
 * PostgreSQL titles and MySQL thread names into roles, the rule that a
 * role is believed only of the database's program run by the database's
 * user or in its unit (an exec -a impostor is not), the unit of a cgroup
 * path (a user's delegated subtree named like a system service reads as
 * the user's), and groups keyed by role, over a tree the collector reads.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "metrics_proc.h"
#include "dbrole.h"
#include "procwho.h"
#include "root.h"
#include "snapshot.h"
#include "taskstats.h"
#include "tree_util.h"

#define IMPOSTOR_TITLE                                          \
	"postgres: 15/main: checkpointer (user postgres, unit " \
	"system.slice/postgresql@15-main.service)"
#define DELEGATED \
	"/user.slice/user-1000.slice/user@1000.service/system.slice/postgresql@15-main.service"

static void pg(const char *cmdline, int want, const char *role, const char *state)
{
	char r[PROC_ROLE_MAX], s[PROC_STATE_MAX];

	assert_int_equal(dbrole_pg_title(cmdline, r, sizeof(r), s, sizeof(s)), want);
	assert_string_equal(r, role);
	assert_string_equal(s, state);
}

static void test_pg_titles(void **state)
{
	(void)state;
	pg("postgres: 15/main: checkpointer", 0, "checkpointer", "");
	pg("postgres: checkpointer", 0, "checkpointer", "");
	pg("postgres: 15/main: background writer", 0, "background writer", "");
	pg("postgres: 15/main: walwriter", 0, "walwriter", "");
	pg("postgres: 15/main: autovacuum launcher", 0, "autovacuum launcher", "");
	pg("postgres: 15/main: autovacuum worker bench", 0, "autovacuum worker", "");
	pg("postgres: 15/main: logical replication launcher", 0, "logical replication launcher",
	   "");
	pg("postgres: 15/main: archiver last was 000000010000000000000003", 0, "archiver", "");
	pg("postgres: 15/main: walsender repl 10.0.0.2(40312) streaming 0/3000148", 0, "walsender",
	   "");
	pg("postgres: 15/main: startup recovering 000000010000000000000004", 0, "startup", "");
	pg("postgres: 15/main: postgres bench [local] idle", 0, "backend", "idle");
	pg("postgres: 15/main: postgres bench [local] idle in transaction", 0, "backend",
	   "idle in transaction");
	pg("postgres: alice shop 10.0.0.7(5133) SELECT", 0, "backend", "SELECT");
	pg("postgres: 15/main: bgworker: pg_cron launcher", 0, "bgworker", "");
	pg("/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main", -ENOENT, "", "");
	pg("postgres:", -ENOENT, "", "");
}

static void role_of(const char *comm, const char *cmdline, const char *user, const char *unit,
		    const char *want_role, bool claimed)
{
	struct proc_role r;

	dbrole_of(comm, true, cmdline, user, unit, &r);
	assert_string_equal(r.role, want_role);
	assert_int_equal(r.db != PROC_DB_NONE, want_role[0] != '\0');
	assert_int_equal(r.claimed, claimed);
}

/* A role is believed of the database's program run by its user or in its
 * unit, never of a title alone. */
static void test_role_trust(void **state)
{
	struct proc_role r;

	(void)state;
	role_of("postgres", "postgres: 15/main: checkpointer", "postgres",
		"postgresql@15-main.service", "checkpointer", false);
	/* another account, but the system unit */
	role_of("postgres", "postgres: 15/main: checkpointer", "pgsvc",
		"postgresql@15-main.service", "checkpointer", false);
	role_of("postgres", "postgres: 15/main: checkpointer", "postgres", "/", "checkpointer",
		false);
	role_of("postgres", "/usr/lib/postgresql/15/bin/postgres -D /x", "postgres",
		"postgresql@15-main.service", "postmaster", false);
	/* exec -a by an ordinary user: comm is the program's, the title a lie */
	role_of("burner", IMPOSTOR_TITLE, "alice", "/user.slice/user-1000.slice/session-3.scope",
		"", true);
	/* the program renamed "postgres", run by alice in her delegated subtree
	 * named like the database's unit */
	role_of("postgres", IMPOSTOR_TITLE, "alice", DELEGATED, "", true);
	/* ... or a unit named alike elsewhere */
	role_of("postgres", "postgres: checkpointer", "alice", "postgresql-evil.service", "", true);
	role_of("mariadbd", "/usr/sbin/mariadbd", "mysql", "mariadb.service", "server", false);
	role_of("mariadbd", "/usr/sbin/mariadbd", "alice", "/user.slice/x.scope", "", false);
	role_of("fio", "fio --name=x", "root", "/", "", false);
	/* nothing read: nothing believed */
	dbrole_of("postgres", false, "", "", "", &r);
	assert_int_equal(r.db, PROC_DB_NONE);
}

static void test_mysql_threads(void **state)
{
	char r[PROC_ROLE_MAX];

	(void)state;
	assert_int_equal(dbrole_mysql_thread("ib_pg_flush_co", r, sizeof(r)), 0);
	assert_string_equal(r, "page cleaner");
	assert_int_equal(dbrole_mysql_thread("ib_log_writer", r, sizeof(r)), 0);
	assert_string_equal(r, "log writer");
	assert_int_equal(dbrole_mysql_thread("ib_io_wr-3", r, sizeof(r)), 0);
	assert_string_equal(r, "io writer");
	assert_int_equal(dbrole_mysql_thread("mariadbd", r, sizeof(r)), -ENOENT);
	assert_string_equal(r, "");
}

static void unit(const char *cgroup, const char *want)
{
	char out[PROC_UNIT_MAX];

	assert_int_equal(procwho_cgroup_unit(cgroup, strlen(cgroup), out, sizeof(out)), 0);
	assert_string_equal(out, want);
}

/* The unit's name only for a unit directly in system.slice; any other
 * path whole, so a user's subtree never reads as a system service. */
static void test_cgroup_unit(void **state)
{
	char out[PROC_UNIT_MAX], big[600];

	(void)state;
	unit("0::/system.slice/postgresql@15-main.service\n", "postgresql@15-main.service");
	unit("0::" DELEGATED "\n", DELEGATED);
	unit("0::/system.slice/docker-1.scope\n", "docker-1.scope");
	unit("0::/system.slice/x.service/payload\n", "/system.slice/x.service/payload");
	unit("0::/\n", "/");
	unit("4:cpu,cpuacct:/system.slice/mysql.service\n1:name=systemd:/a/b\n", "mysql.service");
	/* too long: the head (whose slice) and the tail (the leaf) stay */
	snprintf(big, sizeof(big),
		 "0::/user.slice/user-1000.slice/%0400d/system.slice/"
		 "postgresql@15-main.service\n",
		 0);
	assert_int_equal(procwho_cgroup_unit(big, strlen(big), out, sizeof(out)), 0);
	assert_true(strlen(out) < PROC_UNIT_MAX);
	assert_true(strncmp(out, "/user.slice/", 12) == 0);
	assert_non_null(strstr(out, "..."));
	assert_non_null(strstr(out, "/postgresql@15-main.service"));
}

/* /proc/PID/stat with utime ticks and a start time */
static void put_stat(const char *dir, int pid, const char *comm, unsigned utime)
{
	char rel[64], text[256];

	snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
	snprintf(text, sizeof(text),
		 "%d (%s) R 1 %d %d 0 -1 4194304 10 0 0 0 %u 0 0 0 20 0 1 0 %d 1000 100 0 0\n", pid,
		 comm, pid, pid, utime, 5000 + pid);
	tree_put(dir, rel, text);
}

static void put_proc(const char *dir, int pid, const char *comm, const char *cmdline,
		     size_t cmdline_len, unsigned uid, const char *cgroup, unsigned utime,
		     unsigned wbytes)
{
	char rel[64], text[256];

	put_stat(dir, pid, comm, utime);
	snprintf(rel, sizeof(rel), "proc/%d/comm", pid);
	snprintf(text, sizeof(text), "%s\n", comm);
	tree_put(dir, rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/io", pid);
	snprintf(text, sizeof(text),
		 "rchar: 0\nwchar: 0\nsyscr: 0\nsyscw: 0\nread_bytes: 0\nwrite_bytes: %u\n"
		 "cancelled_write_bytes: 0\n",
		 wbytes);
	tree_put(dir, rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nUid:\t%u\t%u\t%u\t%u\n", comm, uid, uid, uid, uid);
	tree_put(dir, rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/cmdline", pid);
	tree_put_bytes(dir, rel, cmdline, cmdline_len);
	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	tree_put(dir, rel, cgroup);
}

#define PUT(dir, pid, comm, cmd, uid, cg, ut, wb) \
	put_proc(dir, pid, comm, cmd, sizeof(cmd), uid, cg, ut, wb)

static void procs(const char *dir, unsigned step)
{
	static const char ckpt[] = "postgres: 15/main: checkpointer";
	static const char b1[] = "postgres: 15/main: postgres bench [local] COMMIT";
	static const char b2[] = "postgres: 15/main: postgres bench [local] idle";
	static const char imp[] = IMPOSTOR_TITLE;
	static const char fake[] = "postgres: 15/main: background writer";
	static const char my[] = "/usr/sbin/mariadbd\0--user=mysql";
	const char *pgcg = "0::/system.slice/postgresql@15-main.service\n";

	PUT(dir, 812, "postgres", ckpt, 105, pgcg, 10 + step * 5, step * 40960000);
	PUT(dir, 901, "postgres", b1, 105, pgcg, 10 + step * 50, step * 4096000);
	PUT(dir, 902, "postgres", b2, 105, pgcg, 10 + step * 60, step * 4096000);
	/* exec -a by alice */
	PUT(dir, 4000, "burner", imp, 1000, "0::/user.slice/user-1000.slice/session-3.scope\n",
	    10 + step * 90, step * 81920000);
	/* mariadbd --user=mysql: root when first read, mysql from the third scan */
	PUT(dir, 700, "mariadbd", my, step >= 3 ? 103 : 0, "0::/\n", 10 + step * 10, step * 409600);
	/* a binary named postgres in alice's delegated subtree */
	PUT(dir, 4001, "postgres", fake, 1000, "0::" DELEGATED "\n", 10 + step * 20,
	    step * 8192000);
}

static void scan(struct taskstats_collector *tc, const char *dir, struct proc_table *t)
{
	struct root r;

	assert_int_equal(root_open(dir, &r), 0);
	assert_int_equal(taskstats_collect(tc, &r, t), 0);
	root_close(&r);
}

static const struct proc_metrics *row(const struct workload_metrics *x, int32_t pid)
{
	for (size_t i = 0; i < x->nprocs; i++)
		if (x->procs[i].pid == pid)
			return &x->procs[i];
	fail_msg("pid %d not in the rows", pid);
	abort(); /* cmocka's fail does not tell the compiler it returns no more */
}

/* The collector over a tree: the impostor and the delegated subtree get
 * their own user and path and no role; the database's processes their roles
 * and backends one group; a server that changed its uid after exec is read
 * again. */
static void test_tree(void **state)
{
	struct taskstats_collector tc = { 0 };
	struct proc_table t[3] = { 0 };
	struct workload_raw w[3] = { 0 };
	struct snapshot s1 = { 0 }, s2 = { 0 };
	struct workload_metrics *x = NULL;
	const struct proc_metrics *p;
	const struct proc_group *g;
	char dir[64];

	(void)state;
	tree_new(dir, sizeof(dir), "procrole");
	tree_put(dir, "etc/passwd",
		 "root:x:0:0:root:/root:/bin/bash\n"
		 "postgres:x:105:111:PostgreSQL administrator:/var/lib/postgresql:/bin/bash\n"
		 "mysql:x:103:104:MariaDB Server:/nonexistent:/bin/false\n"
		 "alice:x:1000:1000::/home/alice:/bin/bash\n");
	/* three scans: the first has nothing to compare with, the second
	 * reads who moved, the third gives rates of rows with who */
	for (unsigned k = 0; k < 3; k++) {
		procs(dir, k + 1);
		scan(&tc, dir, &t[k]);
	}
	w[1].procs = t[1];
	w[2].procs = t[2];
	s1.workload = &w[1];
	s2.workload = &w[2];
	w[1].nics.rtnl.err = w[2].nics.rtnl.err = -ENOENT;
	assert_int_equal(metrics_proc_compute(&s1, &s2, 100, NULL, &x), 0);
	assert_true(x->procs_valid);
	assert_int_equal(x->procs_window_cs, 100);

	p = row(x, 812);
	assert_true(p->has_who);
	assert_string_equal(p->user, "postgres");
	assert_string_equal(p->unit, "postgresql@15-main.service");
	assert_int_equal(p->role.db, PROC_DB_POSTGRES);
	assert_string_equal(p->role.role, "checkpointer");

	p = row(x, 4000);
	assert_true(p->has_who);
	assert_string_equal(p->user, "alice");
	assert_int_equal(p->role.db, PROC_DB_NONE);
	assert_true(p->role.claimed);
	assert_string_equal(p->cmdline, IMPOSTOR_TITLE);

	p = row(x, 4001);
	assert_string_equal(p->user, "alice");
	assert_string_equal(p->unit, DELEGATED);
	assert_int_equal(p->role.db, PROC_DB_NONE);

	/* read again while it was root: mysql's now, and so its server */
	p = row(x, 700);
	assert_string_equal(p->user, "mysql");
	assert_int_equal(p->role.db, PROC_DB_MARIADB);
	assert_string_equal(p->role.role, "server");

	/* groups: the two backends as one, first; the impostor on its own */
	assert_true(x->ng_by_cpu >= 3);
	g = &x->groups[x->g_by_cpu[0]];
	assert_int_equal(g->db, PROC_DB_POSTGRES);
	assert_string_equal(g->role, "backend");
	assert_int_equal(g->n, 2);
	assert_true(g->cpu_pct > 109.99 && g->cpu_pct < 110.01); /* 50 + 60 ticks in 1 s */
	assert_string_equal(g->user, "postgres");
	assert_false(g->users_differ);
	g = &x->groups[x->g_by_cpu[1]];
	assert_string_equal(g->comm, "burner");
	assert_int_equal(g->n, 1);
	assert_int_equal(g->db, PROC_DB_NONE);
	assert_string_equal(g->user, "alice");
	/* by IO: the impostor (80 MB/s), then the checkpointer (40 MB/s) */
	g = &x->groups[x->g_by_io[1]];
	assert_string_equal(g->role, "checkpointer");
	assert_int_equal(g->pid, 812);

	metrics_proc_free(x);
	for (unsigned k = 0; k < 3; k++)
		proc_table_free(&t[k]);
	taskstats_collector_free(&tc);
	tree_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pg_titles),     cmocka_unit_test(test_role_trust),
		cmocka_unit_test(test_mysql_threads), cmocka_unit_test(test_cgroup_unit),
		cmocka_unit_test(test_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
