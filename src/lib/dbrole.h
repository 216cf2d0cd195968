/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Database roles of processes and threads: what a PostgreSQL process title
 * ("postgres: 15/main: checkpointer") or a MySQL thread name ("ib_pg_flush_co")
 * says it does, and whether that is to be believed. Pure over the fields the
 * collector read; never a role from a command line alone: the process must
 * be the database's program (comm) and run as the database's user or in its
 * system unit, which an ordinary user cannot forge (doc/json.md, "Roles").
 */
#ifndef IOTRIAGE_DBROLE_H
#define IOTRIAGE_DBROLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROC_ROLE_MAX  32 /* "logical replication launcher" + NUL */
#define PROC_STATE_MAX 40 /* a backend's state, "idle in transaction (aborted)" */

enum proc_db {
	PROC_DB_NONE,
	PROC_DB_POSTGRES,
	PROC_DB_MYSQL,
	PROC_DB_MARIADB,
};

struct proc_role {
	uint8_t db;		    /* enum proc_db; PROC_DB_NONE: no role */
	char role[PROC_ROLE_MAX];   /* "checkpointer", "backend", "server"; "" none */
	char state[PROC_STATE_MAX]; /* a backend's "idle", "SELECT"; "" */
	bool claimed;		    /* the title names a role that was not believed */
};

/*
 * What a PostgreSQL title claims, trusting nothing: cmdline (escaped, as
 * procwho reads it) "postgres: [CLUSTER: ]ROLE ...". Writes the role
 * ("checkpointer", "background writer", "walwriter", "autovacuum launcher",
 * "autovacuum worker", "archiver", "logical replication launcher",
 * "logical replication worker", "walsender", "walreceiver", "startup",
 * "parallel worker", "bgworker", "logger", "stats collector", "backend") and
 * a backend's state ("idle in transaction", "SELECT"). 0, or -ENOENT when
 * the line is no PostgreSQL title.
 */
int dbrole_pg_title(const char *cmdline, char *role, size_t role_size, char *state,
		    size_t state_size);

/*
 * The role of a process from comm, the command line, its user and unit
 * (procwho_cgroup_unit's text), has_who false when those were not read
 * (then no role). PostgreSQL: comm "postgres" and user "postgres" or a unit
 * "postgresql.service" / "postgresql@*.service"; the postmaster is the
 * process without a title. MySQL/MariaDB: comm "mysqld" / "mariadbd" and
 * user "mysql" or unit "mysql.service", "mysqld.service", "mariadb.service"
 * (role "server"). A title claiming a role otherwise sets only claimed.
 */
void dbrole_of(const char *comm, bool has_who, const char *cmdline, const char *user,
	       const char *unit, struct proc_role *ret);

/*
 * The role of a MySQL 8 thread from its name (/proc/PID/task/TID/comm):
 * "ib_pg_flush_co" -> "page cleaner", "ib_log_writer" -> "log writer",
 * "ib_io_wr-3" -> "io writer" ... into role. 0, or -ENOENT (no InnoDB or
 * server thread name known).
 */
int dbrole_mysql_thread(const char *name, char *role, size_t size);

/* "pg", "mysql", "mariadb", or "" for PROC_DB_NONE. */
const char *dbrole_db_name(uint8_t db);

#endif
