// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who does the IO. Every sample reads /proc/PID/io for every process (three
 * syscalls each) and asks taskstats only about the processes whose bytes
 * moved, because one taskstats question per PID per second is what makes
 * iotop expensive. Parsing of both sources is pure over bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/taskstats.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "grow.h"
#include "procwho.h"
#include "scan.h"
#include "treewrite.h"
#include "taskstats.h"

/* ---- pure decoding ---- */

static const struct nla_policy ts_policy[TASKSTATS_TYPE_MAX + 1] = {
	[TASKSTATS_TYPE_PID] = { .type = NLA_U32 },
	[TASKSTATS_TYPE_TGID] = { .type = NLA_U32 },
	[TASKSTATS_TYPE_STATS] = { .type = NLA_UNSPEC },
	[TASKSTATS_TYPE_AGGR_PID] = { .type = NLA_NESTED },
	[TASKSTATS_TYPE_AGGR_TGID] = { .type = NLA_NESTED },
};

/* The v1..v3 prefix of struct taskstats reaches cancelled_write_bytes; older
 * kernels without IO accounting send less and are refused. */
#define TS_MIN_LEN (offsetof(struct taskstats, cancelled_write_bytes) + sizeof(__u64))

/* The one TASKSTATS_CMD_NEW message in buf, its top-level attributes in tb. */
static int parse_top(const void *buf, size_t len, struct nlattr **tb, const char **what)
{
	const struct nlmsghdr *h;
	int r;

	r = netlink_genl_first(buf, len, TASKSTATS_CMD_NEW, &h, what);
	if (r < 0)
		return r;
	/* libnl's parsers take non-const pointers but do not write */
	if (genlmsg_parse((struct nlmsghdr *)h, 0, tb, TASKSTATS_TYPE_MAX, ts_policy) < 0)
		return netlink_bad(what, "attribute shorter than its type");
	return 0;
}

/* The struct taskstats of a nested AGGR_* part into *ts (the prefix this
 * build knows; newer kernels append fields), its length in *ret_len. */
static int parse_stats(const struct nlattr *stats, struct taskstats *ts, size_t *ret_len,
		       const char **what)
{
	size_t n;

	if (!stats)
		return netlink_bad(what, "no TASKSTATS_TYPE_STATS");
	n = (size_t)nla_len(stats);
	if (n < TS_MIN_LEN)
		return netlink_bad(what,
				   "struct taskstats shorter than version 3 (no IO accounting)");
	memset(ts, 0, sizeof(*ts));
	memcpy(ts, nla_data(stats), n < sizeof(*ts) ? n : sizeof(*ts));
	*ret_len = n;
	return 0;
}

int taskstats_parse(const void *buf, size_t len, struct taskstats_answer *ret, const char **what)
{
	struct nlattr *tb[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1], *agg;
	struct taskstats_answer a = { 0 };
	struct taskstats ts;
	size_t n;
	int r;

	r = parse_top(buf, len, tb, what);
	if (r < 0)
		return r;
	agg = tb[TASKSTATS_TYPE_AGGR_TGID];
	a.tgid = agg != NULL;
	if (!agg)
		agg = tb[TASKSTATS_TYPE_AGGR_PID];
	if (!agg)
		return netlink_bad(what, "no TASKSTATS_TYPE_AGGR_TGID/PID");
	r = nla_parse_nested(in, TASKSTATS_TYPE_MAX, agg, ts_policy);
	if (r < 0)
		return netlink_bad(what, "nested attribute shorter than its type");
	if (a.tgid ? !in[TASKSTATS_TYPE_TGID] : !in[TASKSTATS_TYPE_PID])
		return netlink_bad(what, "no TASKSTATS_TYPE_TGID/PID");
	a.pid = nla_get_u32(in[a.tgid ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID]);
	r = parse_stats(in[TASKSTATS_TYPE_STATS], &ts, &n, what);
	if (r < 0)
		return r;
	a.version = ts.version;
	memcpy(a.comm, ts.ac_comm, sizeof(a.comm) - 1);
	a.comm[sizeof(a.comm) - 1] = '\0';
	a.read_bytes = ts.read_bytes;
	a.write_bytes = ts.write_bytes;
	a.cancelled_write_bytes = ts.cancelled_write_bytes;
	a.blkio_count = ts.blkio_count;
	a.blkio_delay_ns = ts.blkio_delay_total;
	*ret = a;
	return 0;
}

/* ac_tgid came with version 12: before it a thread cannot be placed */
#define TS_TGID_END (offsetof(struct taskstats, ac_tgid) + sizeof(__u32))

int taskstats_exit_parse(const void *buf, size_t len, struct taskstats_exit_msg *ret,
			 const char **what)
{
	struct nlattr *tb[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1];
	struct taskstats_exit_msg m = { 0 };
	struct taskstats ts;
	size_t n;
	int r;

	r = parse_top(buf, len, tb, what);
	if (r < 0)
		return r;
	/* the thread's own counters: AGGR_PID; AGGR_TGID (group delays, no
	 * bytes) only says the whole multi-threaded group ended with it */
	if (!tb[TASKSTATS_TYPE_AGGR_PID])
		return netlink_bad(what, "no TASKSTATS_TYPE_AGGR_PID");
	if (tb[TASKSTATS_TYPE_AGGR_TGID]) {
		r = nla_parse_nested(in, TASKSTATS_TYPE_MAX, tb[TASKSTATS_TYPE_AGGR_TGID],
				     ts_policy);
		if (r < 0 || !in[TASKSTATS_TYPE_TGID])
			return netlink_bad(what, "TASKSTATS_TYPE_AGGR_TGID without its TGID");
		m.group_dead = true;
		m.tgid = nla_get_u32(in[TASKSTATS_TYPE_TGID]);
	}
	r = nla_parse_nested(in, TASKSTATS_TYPE_MAX, tb[TASKSTATS_TYPE_AGGR_PID], ts_policy);
	if (r < 0)
		return netlink_bad(what, "nested attribute shorter than its type");
	if (!in[TASKSTATS_TYPE_PID])
		return netlink_bad(what, "no TASKSTATS_TYPE_PID");
	m.pid = nla_get_u32(in[TASKSTATS_TYPE_PID]);
	r = parse_stats(in[TASKSTATS_TYPE_STATS], &ts, &n, what);
	if (r < 0)
		return r;
	if (!m.group_dead) {
		/* a single-threaded group, or one thread of a group that goes on */
		if (n < TS_TGID_END)
			return netlink_bad(what,
					   "struct taskstats without ac_tgid (before version 12)");
		m.tgid = ts.ac_tgid;
		m.group_dead = m.tgid == m.pid; /* its leader: no other thread left */
	}
	m.ppid = ts.ac_ppid;
	if (!m.pid || !m.tgid)
		return netlink_bad(what, "pid or tgid 0");
	memcpy(m.comm, ts.ac_comm, sizeof(m.comm) - 1);
	m.read_bytes = ts.read_bytes;
	m.write_bytes = ts.write_bytes;
	m.cancelled_write_bytes = ts.cancelled_write_bytes;
	*ret = m;
	return 0;
}

int taskstats_procio_parse(const char *buf, size_t len, struct proc_raw *ret)
{
	static const char *const keys[] = { "read_bytes:", "write_bytes:",
					    "cancelled_write_bytes:" };
	uint64_t v[3] = { 0 };
	unsigned seen = 0;
	struct cursor c;

	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		const char *tok;
		size_t n = scan_token(&c, &tok);

		for (unsigned i = 0; n && i < 3; i++) {
			if (strlen(keys[i]) != n || memcmp(tok, keys[i], n) != 0)
				continue;
			if (scan_u64(&c, &v[i]) < 0 || !scan_at_eol(&c))
				return -EBADMSG;
			seen |= 1u << i;
		}
		scan_next_line(&c);
	}
	if (seen != 7)
		return -EBADMSG;
	ret->read_bytes = v[0];
	ret->write_bytes = v[1];
	ret->cancelled_write_bytes = v[2];
	return 0;
}

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

struct nl_msg *taskstats_request(int family, uint32_t tgid)
{
	return request(family, TASKSTATS_CMD_ATTR_TGID, tgid);
}

struct nl_msg *taskstats_request_thread(int family, uint32_t tid)
{
	return request(family, TASKSTATS_CMD_ATTR_PID, tid);
}

/* ---- tables ---- */

void proc_table_free(struct proc_table *t)
{
	if (!t)
		return;
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

int proc_table_copy(struct proc_table *dst, const struct proc_table *src)
{
	struct proc_table t = *src;

	/* src's fields, dst's storage */
	t.rows = dst->rows;
	t.cap = dst->cap;
	if (grow_copy((void **)&t.rows, &t.cap, src->rows, src->n, sizeof(*t.rows)) < 0)
		return -ENOMEM;
	*dst = t;
	return 0;
}

const struct proc_raw *proc_table_find(const struct proc_table *t, int32_t pid)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pid == pid)
			return &t->rows[mid];
		if (t->rows[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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

static void __attribute__((format(printf, 3, 4)))
status_set(struct src_status *st, int err, const char *fmt, ...)
{
	va_list ap;

	st->err = err;
	st->reason[0] = '\0';
	if (err == 0 || !fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(st->reason, sizeof(st->reason), fmt, ap);
	va_end(ap);
}

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

/* Reads fd from offset 0 into buf (NUL-terminated); stat: the file is one
 * line, complete at its newline. Length or -errno. */
static ssize_t read_fd(int fd, char *buf, size_t size, bool stat)
{
	ssize_t n, got = 0;

	while ((size_t)got + 1 < size) {
		n = pread(fd, buf + got, size - 1 - (size_t)got, got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += n;
		/* cancelled_write_bytes is /proc/PID/io's last line (since 2.6.20):
		 * once it is complete the EOF read is a syscall per process saved */
		buf[got] = '\0';
		if (buf[got - 1] == '\n' && (stat || strstr(buf, "\ncancelled_write_bytes:")))
			break;
	}
	buf[got] = '\0';
	return got;
}

static int cmp_iofd(const void *a, const void *b)
{
	const struct io_fd *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static struct io_fd *iofd_find(struct taskstats_collector *tc, int32_t pid)
{
	size_t lo = 0, hi = tc->niofd;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tc->iofd[mid].pid == pid)
			return &tc->iofd[mid];
		if (tc->iofd[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Processes whose descriptors are kept open between samples (two each:
 * io and stat): a quarter of the soft RLIMIT_NOFILE, less a margin for
 * everything else the process opens, at most 4096. */
static size_t iofd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (rl.rlim_cur < 512)
		return 0;
	return (rl.rlim_cur - 256) / 4 < 4096 ? (rl.rlim_cur - 256) / 4 : 4096;
}

static void iofd_keep(struct taskstats_collector *tc, const struct proc_raw *row, int fd, int sfd)
{
	if (fd < 0 && sfd < 0)
		return;
	if (tc->niofd_next >= tc->iofd_budget ||
	    grow((void **)&tc->iofd_next, &tc->iofd_next_cap, tc->niofd_next + 1,
		 sizeof(*tc->iofd_next)) < 0) {
		if (fd >= 0)
			close(fd);
		if (sfd >= 0)
			close(sfd);
		return;
	}
	tc->iofd_next[tc->niofd_next++] =
	    (struct io_fd){ .pid = row->pid,
			    .fd = fd,
			    .sfd = sfd,
			    .ticks = row->utime_ticks + row->stime_ticks,
			    .runq_ns = row->runq_ns,
			    .has_sched = row->has_sched };
}

/*
 * /proc/PID/NAME of one process into buf, through *fd: the descriptor of
 * the previous sample is re-read with pread (one syscall instead of open,
 * read, close): it stays bound to the process it was opened for, so once
 * that process is gone it answers ESRCH, even when the number now names
 * another process, and is reopened. *fd is left open on success (-1 on
 * failure). Length or -errno.
 */
static ssize_t read_kept(const struct root *r, int32_t pid, const char *name, int *fd, char *buf,
			 size_t size)
{
	bool stat = strcmp(name, "stat") == 0;
	char rel[32];
	ssize_t n;

	if (*fd >= 0) {
		n = read_fd(*fd, buf, size, stat);
		if (n >= 0)
			return n;
		close(*fd);
		*fd = -1;
	}
	/* through the root: in a recorded tree proc/PID/io may be a FIFO or a
	 * symlink out of it, and must not block or leave the tree */
	snprintf(rel, sizeof(rel), "proc/%d/%s", pid, name);
	*fd = root_openat(r, rel, O_RDONLY);
	if (*fd < 0) {
		n = *fd;
		*fd = -1;
		return n;
	}
	n = read_fd(*fd, buf, size, stat);
	if (n < 0) {
		close(*fd);
		*fd = -1;
	}
	return n;
}

/* After a scan: close the descriptors of processes not seen, keep the rest. */
static void iofd_swap(struct taskstats_collector *tc)
{
	struct io_fd *tmp = tc->iofd;
	size_t cap = tc->iofd_cap;

	for (size_t i = 0; i < tc->niofd; i++) {
		if (tc->iofd[i].fd >= 0)
			close(tc->iofd[i].fd);
		if (tc->iofd[i].sfd >= 0)
			close(tc->iofd[i].sfd);
	}
	if (tc->niofd_next)
		qsort(tc->iofd_next, tc->niofd_next, sizeof(*tc->iofd_next), cmp_iofd);
	tc->iofd = tc->iofd_next;
	tc->iofd_cap = tc->iofd_next_cap;
	tc->niofd = tc->niofd_next;
	tc->iofd_next = tmp;
	tc->iofd_next_cap = cap;
	tc->niofd_next = 0;
}

static bool parse_pid(const char *s, int32_t *ret)
{
	int64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > INT32_MAX / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v <= 0 || v > INT32_MAX)
		return false;
	*ret = (int32_t)v;
	return true;
}

struct procfs_scan {
	struct taskstats_collector *tc;
	const struct root *r;
	struct proc_table *t;
	char *path_for_msg;
	size_t msg_size;
	unsigned ok;
	int err; /* a refusal, or the first malformed file */
};

/*
 * The run-queue wait of row (its stat read): /proc/PID/schedstat when its
 * CPU time moved since the last scan (old: that scan's, NULL new) or it is
 * new, else the last value carried (it did not run, so it did not wait).
 * Opened and closed: a third descriptor kept per process would cost more
 * than the few processes that run each interval.
 */
static void read_sched(const struct root *r, const struct io_fd *old, struct proc_raw *row)
{
	char buf[128], rel[40];
	ssize_t n;
	int fd;

	if (!row->has_stat)
		return;
	if (old && old->has_sched && old->ticks == row->utime_ticks + row->stime_ticks) {
		row->has_sched = true;
		row->runq_ns = old->runq_ns;
		return;
	}
	snprintf(rel, sizeof(rel), "proc/%d/schedstat", row->pid);
	fd = root_openat(r, rel, O_RDONLY);
	if (fd < 0)
		return;
	n = read_fd(fd, buf, sizeof(buf), false);
	close(fd);
	if (n > 0)
		(void)taskstats_schedstat_parse(buf, (size_t)n, row);
}

static int scan_pid(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct procfs_scan *s = ctx;
	struct proc_table *t = s->t;
	struct proc_raw row = { 0 };
	char buf[512], sbuf[1024], rel[32];
	struct io_fd *old;
	int fd = -1, sfd = -1;
	ssize_t n, ns;

	if (!parse_pid(name, &row.pid))
		return 0;
	old = iofd_find(s->tc, row.pid);
	if (old) {
		fd = old->fd;
		sfd = old->sfd;
		old->fd = old->sfd = -1;
	}
	snprintf(rel, sizeof(rel), "%d/io", row.pid);
	n = read_kept(s->r, row.pid, "io", &fd, buf, sizeof(buf));
	/* stat is world-readable: the CPU time of a process whose io is refused */
	ns = read_kept(s->r, row.pid, "stat", &sfd, sbuf, sizeof(sbuf));
	if (ns > 0)
		(void)taskstats_stat_parse(sbuf, (size_t)ns, &row);
	read_sched(s->r, old, &row);
	iofd_keep(s->tc, &row, fd, sfd);
	if (n == -ENOENT || n == -ESRCH) {
		t->vanished++; /* exited since readdir: no row, no stale data */
		return 0;
	}
	if (n == -EACCES || n == -EPERM) {
		t->unreadable++;
		s->err = (int)n;
		if (!row.has_stat)
			return 0;
		row.io_unknown = true;
	} else if (n < 0 || taskstats_procio_parse(buf, (size_t)n, &row) < 0) {
		/* a malformed file is that process's problem, not the table's */
		if (!s->err) {
			s->err = n < 0 ? (int)n : -EBADMSG;
			snprintf(s->path_for_msg, s->msg_size, "%s", rel);
		}
		return 0;
	}
	row.source = PROC_SRC_PROCFS;
	if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
		return -ENOMEM;
	t->rows[t->n++] = row;
	s->ok++;
	return 0;
}

static int scan_procfs(struct taskstats_collector *tc, const struct root *r, struct proc_table *t,
		       char *path_for_msg, size_t msg_size)
{
	struct procfs_scan s = { tc, r, t, path_for_msg, msg_size, 0, 0 };
	int e;

	e = root_for_each_entry(r, "proc", scan_pid, &s);
	if (e < 0)
		return e;
	iofd_swap(tc);
	proc_table_sort(t);
	/* nothing readable at all is a source failure; some refusals are a note */
	if (!s.ok && s.err)
		return s.err;
	/* a /proc without a single process: a tree recorded without them */
	if (!s.ok && !t->vanished)
		return -ENOENT;
	return 0;
}

static const struct proc_seen *seen_find(const struct taskstats_collector *tc, int32_t pid)
{
	size_t lo = 0, hi = tc->nseen;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tc->seen[mid].pid == pid)
			return &tc->seen[mid];
		if (tc->seen[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
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

int taskstats_stat_comm(const char *buf, size_t len, char *ret, size_t size)
{
	const char *open_p = memchr(buf, '(', len), *close_p = NULL;
	size_t n;

	if (!open_p || size == 0)
		return -EBADMSG;
	for (const char *q = buf + len; q > open_p; q--) {
		if (q[-1] == ')') {
			close_p = q - 1;
			break;
		}
	}
	if (!close_p)
		return -EBADMSG;
	n = (size_t)(close_p - open_p - 1);
	if (n > size - 1)
		n = size - 1;
	memcpy(ret, open_p + 1, n);
	ret[n] = '\0';
	return (int)n;
}

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h PF_KTHREAD */

int taskstats_schedstat_parse(const char *buf, size_t len, struct proc_raw *ret)
{
	const char *p = buf, *end = buf + len;
	uint64_t v[2];

	for (int k = 0; k < 2; k++) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return -EBADMSG;
		v[k] = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (v[k] > (UINT64_MAX - 9) / 10)
				return -EBADMSG;
			v[k] = v[k] * 10 + (uint64_t)(*p - '0');
		}
		if (p >= end || (*p != ' ' && *p != '\n'))
			return -EBADMSG;
	}
	ret->runq_ns = v[1];
	ret->has_sched = true;
	return 0;
}

int taskstats_stat_parse(const char *buf, size_t len, struct proc_raw *ret)
{
	char comm[PROC_COMM_MAX];
	const char *close_p = NULL;
	uint64_t v[44] = { 0 }; /* v[k]: field k (1-based, proc(5)) from 3 on */
	const char *tok;
	unsigned k = 3;
	struct cursor c;

	if (taskstats_stat_comm(buf, len, comm, sizeof(comm)) < 0)
		return -EBADMSG;
	for (const char *q = buf + len; q > buf; q--) {
		if (q[-1] == ')') {
			close_p = q;
			break;
		}
	}
	cursor_init(&c, close_p, len - (size_t)(close_p - buf));
	/* field 3 is the state letter: skipped as a token */
	if (!scan_token(&c, &tok))
		return -EBADMSG;
	for (k = 4; k < 44; k++) {
		if (scan_at_eol(&c))
			break;
		/* some fields are signed (priority, nice, tty_nr): those read
		 * 0, none of them is used */
		scan_blanks(&c);
		if (c.p < c.end && *c.p == '-') {
			if (!scan_token(&c, &tok))
				return -EBADMSG;
			continue;
		}
		if (scan_u64(&c, &v[k]) < 0)
			return -EBADMSG;
	}
	/* starttime (22) is the last one this reader needs to trust */
	if (k <= 22)
		return -EBADMSG;
	memcpy(ret->comm, comm, sizeof(comm));
	ret->kthread = (v[9] & PF_KTHREAD_FLAG) != 0;
	ret->utime_ticks = v[14];
	ret->stime_ticks = v[15];
	ret->start_ticks = v[22];
	ret->gtime_ticks = k > 43 ? v[43] : 0;
	ret->has_stat = true;
	return 0;
}

static void read_comm(const struct root *r, struct proc_raw *p)
{
	char rel[32], stat[512]; /* pid, then a name of at most 64 bytes in "(...)" */
	int n;

	snprintf(rel, sizeof(rel), "proc/%d/comm", p->pid);
	if (root_read_small(r, rel, p->comm, sizeof(p->comm)) >= 0)
		return;
	/* no comm file (a kernel before 2.6.33, a recorded tree without it):
	 * /proc/PID/stat carries the same name, where pidstat reads it */
	p->comm[0] = '\0';
	snprintf(rel, sizeof(rel), "proc/%d/stat", p->pid);
	n = root_read_small(r, rel, stat, sizeof(stat));
	if (n > 0)
		(void)taskstats_stat_comm(stat, (size_t)n, p->comm, sizeof(p->comm));
}

/* The answer about one process (attr TGID) or thread (PID) into tc->reply:
 * asked live, or the tree's file rel; kept under capture. Bytes or -errno. */
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

int taskstats_collect(struct taskstats_collector *tc, const struct root *r, struct proc_table *t)
{
	char where[48] = "";
	char disp[256];
	const char *what = NULL;
	size_t ncand = 0;
	int e;

	t->n = 0;
	t->carried = false;
	t->unreadable = t->queried = t->answered = t->vanished = 0;
	status_set(&t->procfs, 0, NULL);
	status_set(&t->taskstats, 0, NULL);
	tc->live = r->path[0] == '\0';
	t->delayacct = read_delayacct(r);

	if (!tc->iofd_budget_set) {
		tc->iofd_budget_set = true;
		tc->iofd_budget = iofd_budget();
	}
	e = scan_procfs(tc, r, t, where, sizeof(where));
	if (e < 0) {
		root_display(r, where[0] ? where : "proc/PID/io", disp, sizeof(disp));
		status_set(&t->procfs, e, "%s: %s", disp, strerror(-e));
		t->n = 0;
	} else if (t->unreadable) {
		/* partial: say so, but the source works */
		snprintf(t->procfs.reason, sizeof(t->procfs.reason),
			 "/proc/PID/io of %u process(es) not readable (ptrace access denied)",
			 t->unreadable);
	}

	if (tc->live && !tc->opened) {
		tc->opened = true;
		tc->open_err = netlink_open_genl(TASKSTATS_GENL_NAME, &tc->conn);
	}
	if (tc->live && tc->open_err) {
		status_set(&t->taskstats, tc->open_err, "genl family " TASKSTATS_GENL_NAME ": %s%s",
			   netlink_hint(tc->open_err), "; bytes from /proc/PID/io");
	} else if (!tc->live) {
		int dfd = root_openat(r, "netlink/taskstats", O_RDONLY | O_DIRECTORY);

		if (dfd < 0) {
			root_display(r, "netlink/taskstats", disp, sizeof(disp));
			status_set(&t->taskstats, dfd, "%s: no recorded answers (%s)", disp,
				   strerror(-dfd));
		} else {
			close(dfd);
		}
	}

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
				status_set(&t->taskstats, e, "answer for pid %s: %s", pid, what);
			else
				status_set(&t->taskstats, e, "pid %s: %s", pid, netlink_hint(e));
		}
	}
	/* bytes-only rows that did IO still get a name */
	for (size_t k = 0; k < ncand; k++) {
		struct proc_raw *p = &t->rows[tc->order[k].row];

		if (!p->comm[0] && (io_total(p) || p->source == PROC_SRC_TASKSTATS))
			read_comm(r, p);
	}
	if (t->taskstats.err) {
		/* a half-asked sample mixes sources: fall back for all of it */
		for (size_t i = 0; i < t->n; i++) {
			t->rows[i].has_delay = false;
			t->rows[i].blkio_count = t->rows[i].blkio_delay_ns = 0;
			t->rows[i].source = PROC_SRC_PROCFS;
		}
	}
	/* processes that started and ended since the last sample (live only) */
	if (tc->live && !tc->open_err) {
		size_t len = strlen(t->taskstats.reason);

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
	}
	if (tc->live && !tc->open_err && t->unreadable) {
		size_t len = strlen(t->procfs.reason);

		e = ts_io_fill(tc, r, t);
		if (e < 0)
			return e;
		snprintf(t->procfs.reason + len, sizeof(t->procfs.reason) - len,
			 ": their bytes from taskstats, asked for those that ran (%u thread(s))",
			 t->ts_io_asked);
	}
	if (!tc->who) {
		tc->who = calloc(1, sizeof(*tc->who));
		if (!tc->who)
			return -ENOMEM;
	}
	e = procwho_fill(tc->who, r, t, row_moved, tc);
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
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
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

	if (!parse_pid(name, &row.pid))
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
	status_set(&t->status, 0, NULL);
	tc->live = r->path[0] == '\0';
	t->delayacct = read_delayacct(r);
	if (tc->live && !tc->opened) {
		tc->opened = true;
		tc->open_err = netlink_open_genl(TASKSTATS_GENL_NAME, &tc->conn);
	}
	if (tc->live && tc->open_err) {
		status_set(&t->status, tc->open_err, "genl family " TASKSTATS_GENL_NAME ": %s",
			   netlink_hint(tc->open_err));
		return 0;
	}
	snprintf(rel, sizeof(rel), "proc/%d/task", pid);
	e = root_for_each_entry(r, rel, add_thread, t);
	if (e == -ENOMEM)
		return e;
	if (e < 0) {
		root_display(r, rel, disp, sizeof(disp));
		status_set(&t->status, e, "%s: %s", disp,
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
				status_set(&t->status, e, "answer for thread %d: %s", p->pid, what);
			else
				status_set(&t->status, e, "thread %d: %s", p->pid, netlink_hint(e));
			t->n = 0;
			return 0;
		}
		p->has_delay = t->delayacct != 0;
		i++;
	}
	return 0;
}
