// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who does the IO. Every sample reads /proc/PID/io for every process (three
 * syscalls each) and asks taskstats only about the processes whose bytes
 * moved, because one taskstats question per PID per second is what makes
 * iotop expensive. This file asks and ranks; taskstats_procfs.c reads
 * /proc, taskstats_parse.c decodes both sources' bytes (pure).
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/taskstats.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "grow.h"
#include "procwho.h"
#include "dbroles.h"
#include "scan.h"
#include "treewrite.h"
#include "taskstats.h"
#include "taskstats_int.h"
#include "src_status.h"
#include "rowfind.h"

/* TASKSTATS_CMD_GET of one id: attr says whether a process or a thread. */
static struct nl_msg *request(int family, int attr, uint32_t id)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, TASKSTATS_CMD_GET,
			 TASKSTATS_GENL_VERSION) ||
	    nla_put_u32(msg, attr, id) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* ---- tables ---- */

void proc_table_free(struct proc_table *t)
{
	if (!t)
		return;
	grow_free((void **)&t->rows, &t->n, &t->cap);
	grow_free((void **)&t->threads, &t->nthreads, &t->threads_cap);
}

int proc_table_copy(struct proc_table *dst, const struct proc_table *src)
{
	struct proc_table t = *src;

	/* src's fields, dst's storage */
	t.rows = dst->rows;
	t.cap = dst->cap;
	t.threads = dst->threads;
	t.threads_cap = dst->threads_cap;
	if (grow_copy((void **)&t.rows, &t.cap, src->rows, src->n, sizeof(*t.rows)) < 0 ||
	    grow_copy((void **)&t.threads, &t.threads_cap, src->threads, src->nthreads,
		      sizeof(*t.threads)) < 0) {
		dst->rows = t.rows; /* what grew is dst's, freed with it */
		dst->cap = t.cap;
		dst->threads = t.threads;
		dst->threads_cap = t.threads_cap;
		return -ENOMEM;
	}
	*dst = t;
	return 0;
}

const struct proc_raw *proc_table_find(const struct proc_table *t, int32_t pid)
{
	return rowfind_i32(t->rows, t->n, sizeof(*t->rows), offsetof(struct proc_raw, pid), pid);
}

void taskstats_collector_free(struct taskstats_collector *tc)
{
	if (!tc)
		return;
	for (size_t i = 0; i < tc->niofd; i++) {
		if (tc->iofd[i].fd >= 0)
			close(tc->iofd[i].fd);
		if (tc->iofd[i].sfd >= 0)
			close(tc->iofd[i].sfd);
	}
	free(tc->iofd);
	free(tc->iofd_next);
	thread_table_free(&tc->db_threads);
	dbroles_free(tc->dbroles);
	free(tc->dbr_scratch);
	netlink_close(&tc->conn);
	nlreply_free(&tc->reply);
	free(tc->seen);
	free(tc->next);
	free(tc->order);
	procwho_cache_free(tc->who);
	free(tc->who);
	taskstats_exits_free(tc);
	memset(tc, 0, sizeof(*tc));
}

/* ---- collect ---- */

static int cmp_pid(const void *a, const void *b)
{
	const struct proc_raw *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void proc_table_sort(struct proc_table *t)
{
	if (t->n > 1) /* rows is NULL while empty: qsort's base must not be (UBSan) */
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_pid);
}

static const struct proc_seen *seen_find(const struct taskstats_collector *tc, int32_t pid)
{
	return rowfind_i32(tc->seen, tc->nseen, sizeof(*tc->seen), offsetof(struct proc_seen, pid),
			   pid);
}

static uint64_t io_total(const struct proc_raw *p)
{
	return p->read_bytes + p->write_bytes + p->cancelled_write_bytes;
}

/* Priority of asking about a row: 0 = do not ask. */
static uint64_t ask_priority(const struct taskstats_collector *tc, const struct proc_raw *p)
{
	const struct proc_seen *s = tc->seen ? seen_find(tc, p->pid) : NULL;
	uint64_t now = io_total(p);

	if (!s) /* first sample, or a new process: its whole history counts */
		return now;
	if (s->delay_grew)
		return UINT64_MAX;
	return now > s->io_bytes ? now - s->io_bytes : 0;
}

static int cmp_candidate(const void *a, const void *b)
{
	const struct ts_candidate *x = a, *y = b;

	if (x->priority != y->priority)
		return (x->priority < y->priority) - (x->priority > y->priority);
	return (x->row > y->row) - (x->row < y->row);
}

static void apply_answer(struct proc_raw *p, const struct taskstats_answer *a, int8_t delayacct)
{
	/*
	 * Only the delays: for a thread group the kernel leaves the IO byte
	 * fields 0 (fill_stats_for_tgid() sums delays, not task_io_accounting),
	 * while /proc/PID/io already holds the group's bytes, dead threads
	 * included.
	 */
	p->source = PROC_SRC_TASKSTATS;
	if (a->comm[0])
		memcpy(p->comm, a->comm, sizeof(p->comm));
	p->blkio_count = a->blkio_count;
	p->blkio_delay_ns = a->blkio_delay_ns;
	/* with accounting off the kernel sends zeros, which are not "no delay" */
	p->has_delay = delayacct != 0;
}

static int8_t read_delayacct(const struct root *r)
{
	char v[8];

	if (root_read_small(r, "proc/sys/kernel/task_delayacct", v, sizeof(v)) <= 0)
		return -1; /* before 5.14 there is no switch: on unless booted nodelayacct */
	return v[0] == '0' ? 0 : 1;
}

static int ask(struct taskstats_collector *tc, const struct root *r, int attr, int32_t id,
	       const char *rel)
{
	struct nl_msg *msg = tc->live ? request(tc->conn.family, attr, (uint32_t)id) : NULL;
	int e = netlink_fetch(tc->live ? &tc->conn : NULL, msg, r, rel, -1, &tc->reply);

	/* an answer only CAP_NET_ADMIN gets: root's in a capture */
	if (e >= 0 && tc->record)
		treewrite_write_mode(tc->record_dfd, rel, tc->reply.buf, tc->reply.len, 0600);
	return e;
}

/* Asks about one process. 0 answered, 1 no answer for this one (exited, not
 * recorded), or -errno that ends the asking for this sample. */
static int ask_one(struct taskstats_collector *tc, const struct root *r, struct proc_raw *p,
		   int8_t delayacct, struct proc_table *t, const char **what)
{
	struct taskstats_answer a;
	char rel[64];
	int e;

	snprintf(rel, sizeof(rel), "netlink/taskstats/%d.bin", p->pid);
	e = ask(tc, r, TASKSTATS_CMD_ATTR_TGID, p->pid, rel);
	if (!tc->live && e == -ENOENT)
		return 1;
	t->queried++;
	if (e < 0)
		return e;
	*what = NULL;
	e = taskstats_parse(tc->reply.buf, tc->reply.len, &a, what);
	if (e == -ESRCH) {
		t->vanished++;
		return 1;
	}
	if (e < 0)
		return e;
	if (a.pid != (uint32_t)p->pid) {
		*what = "answer for another process";
		return -EBADMSG;
	}
	apply_answer(p, &a, delayacct);
	t->answered++;
	return 0;
}

static int remember(struct taskstats_collector *tc, const struct proc_table *t)
{
	struct proc_seen *tmp;
	size_t tcap;

	if (grow((void **)&tc->next, &tc->next_cap, t->n, sizeof(*tc->next)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct proc_raw *p = &t->rows[i];
		const struct proc_seen *s = tc->seen ? seen_find(tc, p->pid) : NULL;
		struct proc_seen *n = &tc->next[i];

		n->pid = p->pid;
		n->io_bytes = io_total(p);
		n->cpu_ticks = p->utime_ticks + p->stime_ticks;
		n->start_ticks = p->start_ticks;
		n->io_taskstats = p->io_taskstats;
		n->rd = p->read_bytes;
		n->wr = p->write_bytes;
		n->cw = p->cancelled_write_bytes;
		n->blkio_count = p->blkio_count;
		n->delay_ns = s ? s->delay_ns : 0;
		n->delay_grew = false;
		if (p->source == PROC_SRC_TASKSTATS) {
			n->delay_grew = s && p->blkio_delay_ns > s->delay_ns;
			n->delay_ns = p->blkio_delay_ns;
		}
	}
	tmp = tc->seen;
	tcap = tc->seen_cap;
	tc->seen = tc->next;
	tc->seen_cap = tc->next_cap;
	tc->nseen = t->n;
	tc->next = tmp;
	tc->next_cap = tcap;
	return 0;
}

/*
 * The bytes of a process whose /proc/PID/io is refused (another user's,
 * without CAP_SYS_PTRACE): the sum of its threads' taskstats answers, which
 * need only CAP_NET_ADMIN (the thread group's answer carries no bytes:
 * fill_stats_for_tgid() sums delays only). Asked only when the process ran
 * since the last scan (utime + stime moved: IO is issued by a running task),
 * else the last answer is carried. Threads that ended took their bytes
 * with them: the sum goes back, and metrics drop that interval's rate.
 */
static int ts_io_fill(struct taskstats_collector *tc, const struct root *r, struct proc_table *t)
{
	struct thread_table tt = { 0 };
	unsigned asked = 0;
	int e = 0;

	t->ts_io_rows = t->ts_io_asked = 0;
	for (size_t i = 0; i < t->n && e >= 0; i++) {
		struct proc_raw *p = &t->rows[i];
		const struct proc_seen *s = seen_find(tc, p->pid);
		bool known = s && s->io_taskstats && s->start_ticks == p->start_ticks;
		uint64_t sum[5] = { 0 };

		if (!p->io_unknown)
			continue;
		if (known && p->utime_ticks + p->stime_ticks == s->cpu_ticks) {
			/* idle since: the same bytes */
			p->read_bytes = s->rd;
			p->write_bytes = s->wr;
			p->cancelled_write_bytes = s->cw;
			p->blkio_count = s->blkio_count;
			p->blkio_delay_ns = s->delay_ns;
			p->io_unknown = false;
			p->io_taskstats = true;
			p->source = PROC_SRC_TASKSTATS;
			p->has_delay = t->delayacct != 0;
			t->ts_io_rows++;
			continue;
		}
		/* never ran: no IO to ask about, and the first answer is a baseline */
		if (!known && p->utime_ticks + p->stime_ticks == 0)
			continue;
		if (asked >= TASKSTATS_MAX_IO_THREADS)
			continue;
		e = taskstats_threads_collect(tc, r, p->pid, &tt);
		if (e < 0)
			break;
		if (tt.status.err)
			continue;
		asked += (unsigned)tt.n;
		for (size_t k = 0; k < tt.n; k++) {
			sum[0] += tt.rows[k].read_bytes;
			sum[1] += tt.rows[k].write_bytes;
			sum[2] += tt.rows[k].cancelled_write_bytes;
			sum[3] += tt.rows[k].blkio_count;
			sum[4] += tt.rows[k].blkio_delay_ns;
		}
		p->read_bytes = sum[0];
		p->write_bytes = sum[1];
		p->cancelled_write_bytes = sum[2];
		p->blkio_count = sum[3];
		p->blkio_delay_ns = sum[4];
		p->io_unknown = false;
		p->io_taskstats = true;
		p->source = PROC_SRC_TASKSTATS;
		p->has_delay = tt.delayacct != 0;
		t->ts_io_rows++;
	}
	t->ts_io_asked = asked;
	thread_table_free(&tt);
	return e;
}

/* Whether a row did IO or ran since the previous scan: who it is matters */
static bool row_moved(const struct proc_raw *p, void *ctx)
{
	const struct taskstats_collector *tc = ctx;
	const struct proc_seen *s;

	if (!tc->nseen)
		return false; /* the first scan: nothing to compare with */
	s = seen_find(tc, p->pid);
	if (!s)
		return p->utime_ticks + p->stime_ticks + io_total(p) > 0;
	return p->utime_ticks + p->stime_ticks > s->cpu_ticks || io_total(p) > s->io_bytes;
}

/* The server's socket from its command line ("--socket=PATH"), else "" */
static void server_socket(const char *cmdline, char *out, size_t size)
{
	const char *at = strstr(cmdline, "--socket=");
	size_t n;

	out[0] = '\0';
	if (!at)
		return;
	at += 9;
	n = strcspn(at, " ");
	/* escaped bytes (procwho) are not a path to connect to */
	if (n && n < size && !memchr(at, '\\', n)) {
		memcpy(out, at, n);
		out[n] = '\0';
	}
}

/* MariaDB names every thread "mariadbd": a believed server's roles come from
 * its performance_schema.threads, read by dbroles.c's thread (live only). */
static int mariadb_roles(struct taskstats_collector *tc, const struct proc_raw *p,
			 struct proc_thread *th, size_t n, char *why, size_t why_size)
{
	struct proc_role role;
	char sock[108];

	dbrole_of(p->comm, p->has_who, p->cmdline, p->user, p->unit, &role);
	if (role.db != PROC_DB_MARIADB || !n)
		return 0;
	if (!tc->live) {
		snprintf(why, why_size, "roles from performance_schema.threads: live only");
		return 0;
	}
	if (!tc->dbroles && !(tc->dbroles = dbroles_new()))
		return -ENOMEM;
	if (grow((void **)&tc->dbr_scratch, &tc->dbr_cap, n, sizeof(*tc->dbr_scratch)) < 0)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		tc->dbr_scratch[k].tid = th[k].tid;
	server_socket(p->cmdline, sock, sizeof(sock));
	if (dbroles_fill(tc->dbroles, p->pid, p->start_ticks, sock, tc->dbr_scratch, n, why,
			 why_size) > 0)
		why[0] = '\0';
	for (size_t k = 0; k < n; k++)
		memcpy(th[k].role, tc->dbr_scratch[k].role, sizeof(th[k].role));
	return 0;
}

/* A database server's threads, each with its name and bytes: InnoDB's page
 * cleaner and log writer are threads of one process, and which of them
 * writes is the question on a database host. A handful of servers, a few
 * dozen threads each: one taskstats question per thread. */
static int db_threads(struct taskstats_collector *tc, const struct root *r, struct proc_table *t)
{
	unsigned servers = 0;
	int e;

	t->nthreads = 0;
	src_status_set(&t->threads_status, 0, NULL);
	t->roles_why[0] = '\0';
	for (size_t i = 0; i < t->n && servers < PROC_DB_SERVERS_MAX; i++) {
		const struct proc_raw *p = &t->rows[i];
		struct thread_table *tt = &tc->db_threads;

		if (!p->has_stat || p->exited ||
		    (strcmp(p->comm, "mysqld") != 0 && strcmp(p->comm, "mariadbd") != 0))
			continue;
		servers++;
		e = taskstats_threads_collect(tc, r, p->pid, tt);
		if (e < 0)
			return e;
		if (tt->status.err) {
			t->threads_status = tt->status;
			continue;
		}
		if (grow((void **)&t->threads, &t->threads_cap, t->nthreads + tt->n,
			 sizeof(*t->threads)) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < tt->n; k++) {
			struct proc_thread *th = &t->threads[t->nthreads + k];

			memset(th, 0, sizeof(*th));
			th->pid = p->pid;
			th->tid = tt->rows[k].pid;
			memcpy(th->comm, tt->rows[k].comm, sizeof(th->comm));
			th->read_bytes = tt->rows[k].read_bytes;
			th->write_bytes = tt->rows[k].write_bytes;
		}
		e = mariadb_roles(tc, p, t->threads + t->nthreads, tt->n, t->roles_why,
				  sizeof(t->roles_why));
		if (e < 0)
			return e;
		t->nthreads += tt->n;
	}
	return 0;
}

/* Every process's /proc/PID/io and stat into t; procfs says what failed. */
static void collect_procfs(struct taskstats_collector *tc, const struct root *r,
			   struct proc_table *t)
{
	char where[48] = "";
	char disp[256];
	int e;

	if (!tc->iofd_budget_set) {
		tc->iofd_budget_set = true;
		tc->iofd_budget = taskstats_iofd_budget();
	}
	e = taskstats_scan_procfs(tc, r, t, where, sizeof(where));
	if (e < 0) {
		root_display(r, where[0] ? where : "proc/PID/io", disp, sizeof(disp));
		src_status_set(&t->procfs, e, "%s: %s", disp, strerror(-e));
		t->n = 0;
	} else if (t->unreadable) {
		/* partial: say so, but the source works */
		snprintf(t->procfs.reason, sizeof(t->procfs.reason),
			 "/proc/PID/io of %u process(es) not readable (ptrace access denied)",
			 t->unreadable);
	}
}

/* Live: the genl socket opened once; a tree: its recorded answers there.
 * t->taskstats says why not. */
static void taskstats_source_status(struct taskstats_collector *tc, const struct root *r,
				    struct proc_table *t)
{
	char disp[256];

	if (tc->live && !tc->opened) {
		tc->opened = true;
		tc->open_err = netlink_open_genl(TASKSTATS_GENL_NAME, &tc->conn);
	}
	if (tc->live && tc->open_err) {
		src_status_set(&t->taskstats, tc->open_err,
			       "genl family " TASKSTATS_GENL_NAME ": %s%s",
			       netlink_hint(tc->open_err), "; bytes from /proc/PID/io");
	} else if (!tc->live) {
		int dfd = root_openat(r, "netlink/taskstats", O_RDONLY | O_DIRECTORY);

		if (dfd < 0) {
			root_display(r, "netlink/taskstats", disp, sizeof(disp));
			src_status_set(&t->taskstats, dfd, "%s: no recorded answers (%s)", disp,
				       strerror(-dfd));
		} else {
			close(dfd);
		}
	}
}

/* The rows worth a question into tc->order, most bytes moved first, at
 * most TASKSTATS_MAX_QUERIES live: their number, or -ENOMEM. */
static ssize_t rank_candidates(struct taskstats_collector *tc, const struct proc_table *t)
{
	size_t ncand = 0;

	if (grow((void **)&tc->order, &tc->order_cap, t->n, sizeof(*tc->order)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		/* recorded trees: every process with a recorded answer */
		uint64_t prio = tc->live ? ask_priority(tc, &t->rows[i]) : 1;

		if (prio)
			tc->order[ncand++] = (struct ts_candidate){ .priority = prio, .row = i };
	}
	if (tc->live && ncand) {
		qsort(tc->order, ncand, sizeof(*tc->order), cmp_candidate);
		if (ncand > TASKSTATS_MAX_QUERIES)
			ncand = TASKSTATS_MAX_QUERIES;
	}
	return (ssize_t)ncand;
}

/* Asks taskstats about the ncand ranked rows, names the ones that did IO,
 * and falls back to /proc for every row when a question failed. 0 or -ENOMEM. */
static int ask_ranked(struct taskstats_collector *tc, const struct root *r, struct proc_table *t,
		      size_t ncand)
{
	const char *what = NULL;
	int e;

	/* with accounting off every delay is 0 and the group answer has no bytes:
	 * asking would cost a round trip per process for nothing */
	if (t->delayacct == 0 && !t->taskstats.err)
		snprintf(t->taskstats.reason, sizeof(t->taskstats.reason),
			 "not asked: delay accounting off (sysctl kernel.task_delayacct=0)");
	for (size_t k = 0; k < ncand && !t->taskstats.err && t->delayacct != 0; k++) {
		struct proc_raw *p = &t->rows[tc->order[k].row];
		char pid[16];

		e = ask_one(tc, r, p, t->delayacct, t, &what);
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			snprintf(pid, sizeof(pid), "%d", p->pid);
			if (e == -EBADMSG && what)
				src_status_set(&t->taskstats, e, "answer for pid %s: %s", pid,
					       what);
			else
				src_status_set(&t->taskstats, e, "pid %s: %s", pid,
					       netlink_hint(e));
		}
	}
	/* bytes-only rows that did IO still get a name */
	for (size_t k = 0; k < ncand; k++) {
		struct proc_raw *p = &t->rows[tc->order[k].row];

		if (!p->comm[0] && (io_total(p) || p->source == PROC_SRC_TASKSTATS))
			taskstats_read_comm(r, p);
	}
	if (t->taskstats.err) {
		/* a half-asked sample mixes sources: fall back for all of it */
		for (size_t i = 0; i < t->n; i++) {
			t->rows[i].has_delay = false;
			t->rows[i].blkio_count = t->rows[i].blkio_delay_ns = 0;
			t->rows[i].source = PROC_SRC_PROCFS;
		}
	}
	return 0;
}

/* Live: processes that started and ended since the last sample credited,
 * and the bytes of unreadable /proc/PID/io asked of taskstats. 0 or -errno. */
static int collect_live_extras(struct taskstats_collector *tc, const struct root *r,
			       struct proc_table *t)
{
	size_t len;
	int e;

	if (!tc->live || tc->open_err)
		return 0;
	len = strlen(t->taskstats.reason);
	e = taskstats_exits_collect(tc, r, t);
	if (e >= 0)
		e = taskstats_credit_apply(tc, t);
	tc->nexits = 0; /* used: the next scan starts a new interval */
	if (e < 0)
		return e;
	if (!t->taskstats.err && tc->exit_err)
		snprintf(t->taskstats.reason + len, sizeof(t->taskstats.reason) - len,
			 "%sno exit notices (%s): processes that start and end between "
			 "samples are not seen",
			 len ? "; " : "", netlink_hint(tc->exit_err));
	else if (!t->taskstats.err && tc->exit_lost)
		snprintf(t->taskstats.reason + len, sizeof(t->taskstats.reason) - len,
			 "%sexit notices dropped %u time(s) (socket full, or 8192 groups "
			 "between two scans)",
			 len ? "; " : "", tc->exit_lost);
	if (t->unreadable) {
		len = strlen(t->procfs.reason);
		e = ts_io_fill(tc, r, t);
		if (e < 0)
			return e;
		snprintf(t->procfs.reason + len, sizeof(t->procfs.reason) - len,
			 ": their bytes from taskstats, asked for those that ran (%u thread(s))",
			 t->ts_io_asked);
	}
	return 0;
}

int taskstats_collect(struct taskstats_collector *tc, const struct root *r, struct proc_table *t)
{
	ssize_t ncand;
	int e;

	t->n = 0;
	t->carried = false;
	t->unreadable = t->queried = t->answered = t->vanished = 0;
	src_status_set(&t->procfs, 0, NULL);
	src_status_set(&t->taskstats, 0, NULL);
	tc->live = r->path[0] == '\0';
	t->delayacct = read_delayacct(r);

	collect_procfs(tc, r, t);
	taskstats_source_status(tc, r, t);
	ncand = rank_candidates(tc, t);
	if (ncand < 0)
		return (int)ncand;
	e = ask_ranked(tc, r, t, (size_t)ncand);
	if (e >= 0)
		e = collect_live_extras(tc, r, t);
	if (e < 0)
		return e;
	if (!tc->who) {
		tc->who = calloc(1, sizeof(*tc->who));
		if (!tc->who)
			return -ENOMEM;
	}
	e = procwho_fill(tc->who, r, t, row_moved, tc);
	if (e < 0)
		return e;
	e = db_threads(tc, r, t);
	if (e < 0)
		return e;
	return remember(tc, t);
}

bool taskstats_was_seen(const struct taskstats_collector *tc, int32_t pid)
{
	return seen_find(tc, pid) != NULL;
}

const struct proc_seen *taskstats_seen(const struct taskstats_collector *tc, int32_t pid)
{
	return tc->seen ? seen_find(tc, pid) : NULL;
}

void thread_table_free(struct thread_table *t)
{
	if (!t)
		return;
	grow_free((void **)&t->rows, &t->n, &t->cap);
}

static int ask_thread(struct taskstats_collector *tc, const struct root *r, struct proc_raw *p,
		      const char **what)
{
	struct taskstats_answer a;
	char rel[64];
	int e;

	snprintf(rel, sizeof(rel), "netlink/taskstats/threads/%d.bin", p->pid);
	e = ask(tc, r, TASKSTATS_CMD_ATTR_PID, p->pid, rel);
	if (e < 0)
		return e;
	*what = NULL;
	e = taskstats_parse(tc->reply.buf, tc->reply.len, &a, what);
	if (e < 0)
		return e;
	if (a.tgid || a.pid != (uint32_t)p->pid) {
		*what = "answer for another thread";
		return -EBADMSG;
	}
	/* a single thread's answer is filled by bacct/xacct: bytes and delays */
	memcpy(p->comm, a.comm, sizeof(p->comm));
	p->read_bytes = a.read_bytes;
	p->write_bytes = a.write_bytes;
	p->cancelled_write_bytes = a.cancelled_write_bytes;
	p->blkio_count = a.blkio_count;
	p->blkio_delay_ns = a.blkio_delay_ns;
	p->source = PROC_SRC_TASKSTATS;
	return 0;
}

/* One row per thread of /proc/PID/task, up to TASKSTATS_MAX_THREADS. */
static int add_thread(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct thread_table *t = ctx;
	struct proc_raw row = { 0 };

	if (!taskstats_parse_pid(name, &row.pid))
		return 0;
	if (t->n == TASKSTATS_MAX_THREADS) {
		t->truncated = true;
		return 1;
	}
	if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
		return -ENOMEM;
	t->rows[t->n++] = row;
	return 0;
}

int taskstats_threads_collect(struct taskstats_collector *tc, const struct root *r, int32_t pid,
			      struct thread_table *t)
{
	char rel[48], disp[256];
	const char *what = NULL;
	int e = 0;

	t->pid = pid;
	t->n = 0;
	t->vanished = 0;
	t->truncated = false;
	src_status_set(&t->status, 0, NULL);
	tc->live = r->path[0] == '\0';
	t->delayacct = read_delayacct(r);
	if (tc->live && !tc->opened) {
		tc->opened = true;
		tc->open_err = netlink_open_genl(TASKSTATS_GENL_NAME, &tc->conn);
	}
	if (tc->live && tc->open_err) {
		src_status_set(&t->status, tc->open_err, "genl family " TASKSTATS_GENL_NAME ": %s",
			       netlink_hint(tc->open_err));
		return 0;
	}
	snprintf(rel, sizeof(rel), "proc/%d/task", pid);
	e = root_for_each_entry(r, rel, add_thread, t);
	if (e == -ENOMEM)
		return e;
	if (e < 0) {
		root_display(r, rel, disp, sizeof(disp));
		src_status_set(&t->status, e, "%s: %s", disp,
			       e == -ENOENT ? "no such process" : strerror(-e));
		return 0;
	}
	if (t->n)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_pid);
	for (size_t i = 0; i < t->n;) {
		struct proc_raw *p = &t->rows[i];

		e = ask_thread(tc, r, p, &what);
		if (e == -ENOMEM)
			return e;
		if (e == -ESRCH || (!tc->live && e == -ENOENT)) {
			/* ended since the listing (or not recorded): no row */
			memmove(p, p + 1, (t->n - i - 1) * sizeof(*p));
			t->n--;
			t->vanished++;
			continue;
		}
		if (e < 0) {
			if (e == -EBADMSG && what)
				src_status_set(&t->status, e, "answer for thread %d: %s", p->pid,
					       what);
			else
				src_status_set(&t->status, e, "thread %d: %s", p->pid,
					       netlink_hint(e));
			t->n = 0;
			return 0;
		}
		p->has_delay = t->delayacct != 0;
		i++;
	}
	return 0;
}
