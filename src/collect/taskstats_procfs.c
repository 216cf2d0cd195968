// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who does the IO, the /proc side: every process's /proc/PID/io and stat
 * read each sample, their descriptors kept open between samples within a
 * budget, schedstat read again only when the CPU ticks moved. Reads only;
 * asks the kernel nothing over netlink (taskstats.c does).
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "grow.h"
#include "scan.h"
#include "str.h"
#include "taskstats.h"
#include "taskstats_int.h"
#include "rowfind.h"
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
	return rowfind_i32(tc->iofd, tc->niofd, sizeof(*tc->iofd), offsetof(struct io_fd, pid),
			   pid);
}

size_t taskstats_iofd_budget(void)
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

bool taskstats_parse_pid(const char *s, int32_t *ret)
{
	uint32_t v;

	if (!str_u32(s, &v) || v == 0 || v > INT32_MAX)
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

	if (!taskstats_parse_pid(name, &row.pid))
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

int taskstats_scan_procfs(struct taskstats_collector *tc, const struct root *r,
			  struct proc_table *t, char *path_for_msg, size_t msg_size)
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

void taskstats_read_comm(const struct root *r, struct proc_raw *p)
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
