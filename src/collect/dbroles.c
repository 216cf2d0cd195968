// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * MariaDB thread roles from performance_schema.threads (dbroles.h): one
 * reader thread, a few servers' answers behind a lock. The sampler only
 * ever takes the lock for a copy; the server is talked to by the reader
 * alone, with libmariadb's timeouts, so nothing on the sampling path waits
 * on it.
 */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_MARIADB
#include <mysql.h>
#endif

#include "clock.h"
#include "dbroles.h"

struct server {
	int32_t pid;
	uint64_t start_ticks;
	char socket[108]; /* sun_path; "" the option file's or libmariadb's default */
	bool want;	  /* asked, not answered yet */
	bool answered;	  /* map and why are this start's */
	int64_t answered_ns;
	uint64_t used; /* last dbroles_fill, to reuse the oldest slot */
	char why[256];
	struct dbroles_thread *map; /* ascending tid */
	size_t n;
};

struct dbroles {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started, stop;
	int start_err;
	uint64_t tick;
	struct server s[DBROLES_SERVERS];
};

void dbroles_name_role(const char *name, char *role, size_t size)
{
	static const struct {
		const char *name, *role;
	} known[] = {
		{ "thread/innodb/page_cleaner_thread", "page cleaner" },
		{ "thread/innodb/thread_pool_thread", "innodb pool" },
		{ "thread/innodb/io_write_thread", "io writer" },
		{ "thread/innodb/io_read_thread", "io reader" },
		{ "thread/innodb/io_log_thread", "log" },
		{ "thread/innodb/srv_master_thread", "master" },
		{ "thread/innodb/srv_purge_thread", "purge" },
		{ "thread/innodb/srv_worker_thread", "purge" },
		{ "thread/sql/one_connection", "connection" },
		{ "thread/sql/main", "main" },
	};
	const char *last;
	size_t k = 0;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (strcmp(name, known[i].name) == 0) {
			snprintf(role, size, "%s", known[i].role);
			return;
		}
	}
	/* "thread/sql/slave_sql" -> "slave sql": the name's last part */
	last = strrchr(name, '/');
	last = last ? last + 1 : name;
	for (; *last && k + 1 < size; last++) {
		if (strcmp(last, "_thread") == 0)
			break;
		role[k++] = *last == '_' ? ' ' : (*last >= 0x20 && *last < 0x7f ? *last : '?');
	}
	if (size)
		role[k] = '\0';
}

static int cmp_tid(const void *a, const void *b)
{
	const struct dbroles_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

#ifdef HAVE_MARIADB
/* Asks one server; the map (ascending tid) or why there is none. */
static void query(const char *socket_path, struct dbroles_thread **ret_map, size_t *ret_n,
		  char *why, size_t why_size)
{
	unsigned int to = DBROLES_TIMEOUT_S;
	const char *cnf = getenv("IOTRIAGE_MARIADB_CNF");
	const char *user = NULL;
	struct dbroles_thread *map = NULL;
	struct passwd pw, *pwp = NULL;
	char pwbuf[1024];
	size_t n = 0, cap = 0;
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	MYSQL *m;

	*ret_map = NULL;
	*ret_n = 0;
	if (!cnf)
		cnf = DBROLES_CNF;
	m = mysql_init(NULL);
	if (!m) {
		snprintf(why, why_size, "libmariadb: out of memory");
		return;
	}
	mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &to);
	mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &to);
	mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &to);
	if (access(cnf, R_OK) == 0) {
		mysql_options(m, MYSQL_READ_DEFAULT_FILE, cnf);
		mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "client");
	} else if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp) {
		user = pwp->pw_name; /* unix_socket: the account of our own uid */
	}
	if (!mysql_real_connect(m, "localhost", user, NULL, NULL, 0,
				socket_path[0] ? socket_path : NULL, 0)) {
		snprintf(why, why_size, "connect %s: %s",
			 socket_path[0] ? socket_path : "(default socket)", mysql_error(m));
		goto out;
	}
	if (mysql_query(m, "SELECT THREAD_OS_ID, NAME FROM performance_schema.threads "
			   "WHERE THREAD_OS_ID IS NOT NULL") != 0 ||
	    !(res = mysql_store_result(m))) {
		snprintf(why, why_size, "performance_schema.threads: %s", mysql_error(m));
		goto out;
	}
	while ((row = mysql_fetch_row(res)) && n < DBROLES_THREADS_MAX) {
		long tid;
		char *end;

		if (!row[0] || !row[1])
			continue;
		tid = strtol(row[0], &end, 10);
		if (*end || tid <= 0 || tid > INT32_MAX)
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct dbroles_thread *g = realloc(map, nc * sizeof(*map));

			if (!g)
				break;
			map = g;
			cap = nc;
		}
		map[n].tid = (int32_t)tid;
		dbroles_name_role(row[1], map[n].role, sizeof(map[n].role));
		n++;
	}
	if (!n)
		snprintf(why, why_size,
			 "performance_schema.threads is empty: performance_schema is off "
			 "(performance_schema=ON in the server's configuration, then a restart)");
	qsort(map, n, sizeof(*map), cmp_tid);
	*ret_map = map;
	*ret_n = n;
	map = NULL;
out:
	free(map);
	if (res)
		mysql_free_result(res);
	mysql_close(m);
}
#else
static void query(const char *socket_path, struct dbroles_thread **ret_map, size_t *ret_n,
		  char *why, size_t why_size)
{
	(void)socket_path;
	*ret_map = NULL;
	*ret_n = 0;
	snprintf(why, why_size, "built without libmariadb");
}
#endif

static void *reader(void *arg)
{
	struct dbroles *d = arg;

	pthread_mutex_lock(&d->lock);
	for (;;) {
		struct server *s = NULL;
		struct dbroles_thread *map;
		char sock[sizeof(s->socket)], why[sizeof(s->why)] = "";
		int32_t pid;
		uint64_t start;
		size_t n;

		while (!d->stop) {
			for (size_t i = 0; i < DBROLES_SERVERS && !s; i++)
				if (d->s[i].want)
					s = &d->s[i];
			if (s)
				break;
			pthread_cond_wait(&d->cond, &d->lock);
		}
		if (d->stop)
			break;
		pid = s->pid;
		start = s->start_ticks;
		memcpy(sock, s->socket, sizeof(sock));
		pthread_mutex_unlock(&d->lock);
		query(sock, &map, &n, why, sizeof(why));
		pthread_mutex_lock(&d->lock);
		if (s->pid != pid || s->start_ticks != start) {
			free(map); /* the slot went to another server meanwhile */
			continue;
		}
		free(s->map);
		s->map = map;
		s->n = n;
		memcpy(s->why, why, sizeof(s->why));
		s->want = false;
		s->answered = true;
		s->answered_ns = clock_mono_ns();
	}
	pthread_mutex_unlock(&d->lock);
#ifdef HAVE_MARIADB
	mysql_thread_end();
#endif
	return NULL;
}

struct dbroles *dbroles_new(void)
{
	struct dbroles *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	return d;
}

void dbroles_free(struct dbroles *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	if (d->started)
		pthread_join(d->thread, NULL);
	for (size_t i = 0; i < DBROLES_SERVERS; i++)
		free(d->s[i].map);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static struct server *slot(struct dbroles *d, int32_t pid, uint64_t start_ticks,
			   const char *socket_path)
{
	struct server *old = &d->s[0];

	for (size_t i = 0; i < DBROLES_SERVERS; i++) {
		if (d->s[i].pid == pid && d->s[i].start_ticks == start_ticks)
			return &d->s[i];
		if (d->s[i].used < old->used)
			old = &d->s[i];
	}
	/* a new server (or one restarted): the oldest slot, asked afresh */
	free(old->map);
	memset(old, 0, sizeof(*old));
	old->pid = pid;
	old->start_ticks = start_ticks;
	snprintf(old->socket, sizeof(old->socket), "%s", socket_path);
	snprintf(old->why, sizeof(old->why), "asking performance_schema.threads");
	old->want = true;
	return old;
}

int dbroles_fill(struct dbroles *d, int32_t pid, uint64_t start_ticks, const char *socket_path,
		 struct dbroles_thread *th, size_t n, char *why, size_t why_size)
{
	struct server *s;
	int r = 0;

	pthread_mutex_lock(&d->lock);
	if (!d->started && !d->start_err) {
		d->start_err = -pthread_create(&d->thread, NULL, reader, d);
		d->started = d->start_err == 0;
	}
	if (d->start_err) {
		snprintf(why, why_size, "no reader thread: %s", strerror(-d->start_err));
		pthread_mutex_unlock(&d->lock);
		return 0;
	}
	s = slot(d, pid, start_ticks, socket_path);
	s->used = ++d->tick;
	if (s->answered && !s->want &&
	    clock_mono_ns() - s->answered_ns > (int64_t)DBROLES_REFRESH_S * 1000000000)
		s->want = true; /* threads started since; the old answer meanwhile */
	if (s->want)
		pthread_cond_signal(&d->cond);
	for (size_t i = 0; i < n; i++) {
		struct dbroles_thread key = { .tid = th[i].tid }, *hit;

		hit = s->n ? bsearch(&key, s->map, s->n, sizeof(*s->map), cmp_tid) : NULL;
		snprintf(th[i].role, sizeof(th[i].role), "%s", hit ? hit->role : "");
		r |= hit != NULL;
	}
	snprintf(why, why_size, "%s", s->why);
	pthread_mutex_unlock(&d->lock);
	return r;
}
