/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MariaDB's thread roles from its performance_schema.threads (THREAD_OS_ID
 * is the tid, NAME says what the thread does), read over the server's local
 * socket by a thread of its own, never on the sampling path: a slow or hung
 * server delays only the answer (connect and read time out), and the
 * sampler takes whatever answer is there. One answer per server start,
 * asked again after DBROLES_REFRESH_S for threads started since.
 */
#ifndef IOTRIAGE_DBROLES_H
#define IOTRIAGE_DBROLES_H

#include <stddef.h>
#include <stdint.h>

#include "dbrole.h"

#define DBROLES_SERVERS	    4
#define DBROLES_THREADS_MAX 4096
#define DBROLES_REFRESH_S   60
#define DBROLES_TIMEOUT_S   2 /* connect, read and write, each */
/* The option file an operator writes for a read-only account ([client]
 * user=, password=, socket=); IOTRIAGE_MARIADB_CNF names another. Without
 * it: the daemon's own login name over the unix_socket plugin (root may log
 * in so on Debian). */
#define DBROLES_CNF "/etc/iotriage/mariadb.cnf"

struct dbroles;

/* A new reader (no thread until first asked), or NULL on ENOMEM. */
struct dbroles *dbroles_new(void);

/* Stops the thread: waits for a query in flight to end (its timeouts). */
void dbroles_free(struct dbroles *d);

/* One thread's role, written by dbroles_fill. */
struct dbroles_thread {
	int32_t tid;
	char role[PROC_ROLE_MAX];
};

/*
 * The roles of server pid (started at start_ticks; its local socket at
 * socket_path) for the n threads in th (tid set; role written, "" when the
 * server's answer does not name it). Never waits on the server: asks the
 * reader's thread when there is no answer for this server start yet (or it
 * is DBROLES_REFRESH_S old) and returns the last answer's roles. Returns 1
 * with roles, 0 when there is no answer yet or none to be had: why (size
 * >= 1) says so ("asking performance_schema.threads", "connect
 * /run/mysqld/mysqld.sock: Access denied ...", "performance_schema is
 * off"); -ENOMEM.
 */
int dbroles_fill(struct dbroles *d, int32_t pid, uint64_t start_ticks, const char *socket_path,
		 struct dbroles_thread *th, size_t n, char *why, size_t why_size);

/* performance_schema's NAME ("thread/innodb/page_cleaner_thread") as a role
 * ("page cleaner"). Pure. */
void dbroles_name_role(const char *name, char *role, size_t size);

#endif
