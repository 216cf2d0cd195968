// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Database roles (dbrole.h): titles and thread names into roles, and
 * the rule that decides whether a title is believed. Pure: strings in,
 * strings out; no I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dbrole.h"

/* PostgreSQL's auxiliary processes as their titles begin (postmaster.c,
 * miscinit.c's GetBackendTypeDesc): the longer of two with one prefix first. */
static const struct {
	const char *title, *role;
} pg_aux[] = {
	{ "checkpointer", "checkpointer" },
	{ "background writer", "background writer" },
	{ "walwriter", "walwriter" },
	{ "autovacuum launcher", "autovacuum launcher" },
	{ "autovacuum worker", "autovacuum worker" },
	{ "archiver", "archiver" },
	{ "logical replication launcher", "logical replication launcher" },
	{ "logical replication", "logical replication worker" },
	{ "walsender", "walsender" },
	{ "walreceiver", "walreceiver" },
	{ "wal summarizer", "wal summarizer" },
	{ "startup", "startup" },
	{ "parallel worker", "parallel worker" },
	{ "bgworker:", "bgworker" },
	{ "logger", "logger" },
	{ "stats collector", "stats collector" },
	{ "io worker", "io worker" },
};

/* s begins with word w followed by a space or the end. */
static bool starts_word(const char *s, const char *w)
{
	size_t n = strlen(w);

	return strncmp(s, w, n) == 0 && (s[n] == ' ' || s[n] == '\0' || w[n - 1] == ':');
}

static int pg_aux_of(const char *s, char *role, size_t role_size)
{
	for (size_t i = 0; i < sizeof(pg_aux) / sizeof(pg_aux[0]); i++) {
		if (starts_word(s, pg_aux[i].title)) {
			snprintf(role, role_size, "%s", pg_aux[i].role);
			return 0;
		}
	}
	return -ENOENT;
}

/* "USER DB HOST STATE...": the state is what follows the third word. */
static void pg_backend_state(const char *s, char *state, size_t state_size)
{
	const char *p = s;

	for (int words = 0; words < 3 && p; words++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	snprintf(state, state_size, "%s", p ? p : "");
}

int dbrole_pg_title(const char *cmdline, char *role, size_t role_size, char *state,
		    size_t state_size)
{
	static const char prefix[] = "postgres: ";
	const char *s, *colon;

	if (role_size)
		role[0] = '\0';
	if (state_size)
		state[0] = '\0';
	if (strncmp(cmdline, prefix, sizeof(prefix) - 1) != 0)
		return -ENOENT;
	s = cmdline + sizeof(prefix) - 1;
	if (pg_aux_of(s, role, role_size) == 0)
		return 0;
	/* cluster_name (Debian sets "15/main") comes first, ": " after it */
	colon = strstr(s, ": ");
	if (colon) {
		s = colon + 2;
		if (pg_aux_of(s, role, role_size) == 0)
			return 0;
	}
	if (!*s)
		return -ENOENT;
	snprintf(role, role_size, "backend");
	pg_backend_state(s, state, state_size);
	return 0;
}

/* "NAME.service" or "NAME@INSTANCE.service": a unit name without '/',
 * which procwho gives only for a service directly in system.slice. */
static bool unit_is(const char *unit, const char *name)
{
	size_t n = strlen(name), len = strlen(unit);

	if (strchr(unit, '/') || strncmp(unit, name, n) != 0)
		return false;
	return strcmp(unit + n, ".service") == 0 ||
	       (unit[n] == '@' && len > n + 9 && strcmp(unit + len - 8, ".service") == 0);
}

void dbrole_of(const char *comm, bool has_who, const char *cmdline, const char *user,
	       const char *unit, struct proc_role *ret)
{
	static const char *const my_units[] = { "mysql", "mysqld", "mariadb" };
	char role[PROC_ROLE_MAX], state[PROC_STATE_MAX];
	bool titled =
	    has_who && dbrole_pg_title(cmdline, role, sizeof(role), state, sizeof(state)) == 0;

	memset(ret, 0, sizeof(*ret));
	if (!has_who)
		return;
	if (strcmp(comm, "postgres") == 0 &&
	    (strcmp(user, "postgres") == 0 || unit_is(unit, "postgresql"))) {
		ret->db = PROC_DB_POSTGRES;
		if (titled) {
			snprintf(ret->role, sizeof(ret->role), "%s", role);
			snprintf(ret->state, sizeof(ret->state), "%s", state);
		} else {
			snprintf(ret->role, sizeof(ret->role), "postmaster");
		}
		return;
	}
	if ((strcmp(comm, "mysqld") == 0 || strcmp(comm, "mariadbd") == 0) &&
	    (strcmp(user, "mysql") == 0 || unit_is(unit, my_units[0]) ||
	     unit_is(unit, my_units[1]) || unit_is(unit, my_units[2]))) {
		ret->db = comm[1] == 'y' ? PROC_DB_MYSQL : PROC_DB_MARIADB;
		snprintf(ret->role, sizeof(ret->role), "server");
		return;
	}
	ret->claimed = titled;
}

int dbrole_mysql_thread(const char *name, char *role, size_t size)
{
	static const struct {
		const char *prefix, *role;
	} map[] = {
		{ "ib_pg_flush", "page cleaner" }, /* ib_pg_flush_co and its workers */
		{ "ib_log_writer", "log writer" },
		{ "ib_log_flush", "log flusher" },
		{ "ib_log_checkpt", "log checkpointer" },
		{ "ib_log_", "log" },
		{ "ib_io_wr", "io writer" },
		{ "ib_io_rd", "io reader" },
		{ "ib_io_", "io" },
		{ "ib_srv_purge", "purge" },
		{ "ib_srv_wkr", "purge" },
		{ "ib_src_main", "master" },
		{ "ib_buf_dump", "buffer dump" },
		{ "ib_", "innodb" },
		{ "connection", "connection" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (strncmp(name, map[i].prefix, strlen(map[i].prefix)) == 0) {
			snprintf(role, size, "%s", map[i].role);
			return 0;
		}
	}
	if (size)
		role[0] = '\0';
	return -ENOENT;
}

const char *dbrole_db_name(uint8_t db)
{
	switch (db) {
	case PROC_DB_POSTGRES:
		return "pg";
	case PROC_DB_MYSQL:
		return "mysql";
	case PROC_DB_MARIADB:
		return "mariadb";
	default:
		return "";
	}
}
