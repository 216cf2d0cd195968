// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Processes that start and end between two samples: invisible to a
 * /proc/PID/io scan, yet a cron job's tar or a short dd can be the IO an
 * incident is about. The taskstats family sends each exiting task's final
 * counters to the sockets registered for its CPU
 * (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, CAP_NET_ADMIN); the collector drains
 * them once a sample, sums them per thread group, and adds a row, marked
 * exited, for each group that both started and ended in the interval: all
 * its IO is the interval's, exactly, whatever its threads did.
 *
 * A group seen alive in the previous sample and gone now keeps the old
 * behaviour (counted in "exited", no row): its final total cannot be known
 * from the exit messages, which carry only the threads still alive then.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "grow.h"
#include "procfile.h"
#include "taskstats.h"

static struct nla_policy exit_policy[TASKSTATS_TYPE_MAX + 1] = {
	[TASKSTATS_TYPE_PID] = { .type = NLA_U32 },
	[TASKSTATS_TYPE_TGID] = { .type = NLA_U32 },
	[TASKSTATS_TYPE_STATS] = { .minlen = 0 },
	[TASKSTATS_TYPE_AGGR_PID] = { .type = NLA_NESTED },
	[TASKSTATS_TYPE_AGGR_TGID] = { .type = NLA_NESTED },
};

/* The IO fields and the group id: version 3 has the first, ac_tgid came later. */
#define TS_EXIT_MIN_LEN (offsetof(struct taskstats, cancelled_write_bytes) + sizeof(__u64))
#define TS_TGID_END	(offsetof(struct taskstats, ac_tgid) + sizeof(__u32))

static int bad(const char **what, const char *why)
{
	if (what)
		*what = why;
	return -EBADMSG;
}

int taskstats_exit_parse(const void *buf, size_t len, struct taskstats_exit_msg *ret,
			 const char **what)
{
	struct nlattr *tb[TASKSTATS_TYPE_MAX + 1], *in[TASKSTATS_TYPE_MAX + 1];
	struct taskstats_exit_msg m = { 0 };
	const struct nlmsghdr *h;
	struct taskstats ts;
	struct genlmsghdr g;
	size_t off = 0, n;
	int r;

	r = netlink_walk(buf, len, &off, &h);
	if (r < 0)
		return r == -EBADMSG ? bad(what, "truncated netlink header") : r;
	if (r == 0)
		return bad(what, "empty message");
	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return bad(what, "no generic netlink header");
	memcpy(&g, (const char *)h + NLMSG_HDRLEN, sizeof(g));
	if (g.cmd != TASKSTATS_CMD_NEW)
		return bad(what, "not a TASKSTATS_CMD_NEW message");
	/* libnl's parsers take non-const pointers but do not write */
	r = genlmsg_parse((struct nlmsghdr *)h, 0, tb, TASKSTATS_TYPE_MAX, exit_policy);
	if (r < 0)
		return bad(what, "attribute shorter than its type");
	/* the thread's own counters: AGGR_PID; AGGR_TGID (group delays, no
	 * bytes) only says the whole multi-threaded group ended with it */
	if (!tb[TASKSTATS_TYPE_AGGR_PID])
		return bad(what, "no TASKSTATS_TYPE_AGGR_PID");
	if (tb[TASKSTATS_TYPE_AGGR_TGID]) {
		r = nla_parse_nested(in, TASKSTATS_TYPE_MAX, tb[TASKSTATS_TYPE_AGGR_TGID],
				     exit_policy);
		if (r < 0 || !in[TASKSTATS_TYPE_TGID])
			return bad(what, "TASKSTATS_TYPE_AGGR_TGID without its TGID");
		m.group_dead = true;
		m.tgid = nla_get_u32(in[TASKSTATS_TYPE_TGID]);
	}
	r = nla_parse_nested(in, TASKSTATS_TYPE_MAX, tb[TASKSTATS_TYPE_AGGR_PID], exit_policy);
	if (r < 0)
		return bad(what, "nested attribute shorter than its type");
	if (!in[TASKSTATS_TYPE_PID] || !in[TASKSTATS_TYPE_STATS])
		return bad(what, "no TASKSTATS_TYPE_PID/STATS");
	m.pid = nla_get_u32(in[TASKSTATS_TYPE_PID]);
	n = (size_t)nla_len(in[TASKSTATS_TYPE_STATS]);
	if (n < TS_EXIT_MIN_LEN)
		return bad(what, "struct taskstats shorter than version 3 (no IO accounting)");
	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, nla_data(in[TASKSTATS_TYPE_STATS]), n < sizeof(ts) ? n : sizeof(ts));
	if (!m.group_dead) {
		/* a single-threaded group, or one thread of a group that goes on */
		if (n < TS_TGID_END)
			return bad(what, "struct taskstats without ac_tgid (before version 12)");
		m.tgid = ts.ac_tgid;
		m.group_dead = m.tgid == m.pid; /* its leader: no other thread left */
	}
	if (!m.pid || !m.tgid)
		return bad(what, "pid or tgid 0");
	memcpy(m.comm, ts.ac_comm, sizeof(m.comm) - 1);
	m.read_bytes = ts.read_bytes;
	m.write_bytes = ts.write_bytes;
	m.cancelled_write_bytes = ts.cancelled_write_bytes;
	*ret = m;
	return 0;
}

/* ---- the registered socket ---- */

/* "0-N" of the possible CPUs, as the kernel prints them. */
static int possible_cpus(const struct root *r, char *buf, size_t size)
{
	struct procfile pf;
	int e;

	procfile_init(&pf, "sys/devices/system/cpu/possible");
	e = procfile_read(&pf, r);
	if (e >= 0) {
		size_t n = pf.len;

		while (n && (pf.buf[n - 1] == '\n' || pf.buf[n - 1] == ' '))
			n--;
		if (n == 0 || n >= size)
			e = -EBADMSG;
		else
			snprintf(buf, size, "%.*s", (int)n, pf.buf);
	}
	procfile_free(&pf);
	return e < 0 ? e : 0;
}

/* Opens and registers the exit socket once; the result stays in exit_err. */
static void exits_open(struct taskstats_collector *tc, const struct root *r)
{
	struct nl_msg *msg;
	char mask[256];
	int e, fd, size = 1 << 20;

	tc->exit_opened = true;
	e = possible_cpus(r, mask, sizeof(mask));
	if (e == 0)
		e = netlink_open_genl(TASKSTATS_GENL_NAME, &tc->exit_conn);
	if (e < 0) {
		tc->exit_err = e;
		return;
	}
	msg = nlmsg_alloc();
	/* NLM_F_ACK: this file's sockets have libnl's auto-ack off (netlink.c),
	 * and the wait below must not run into the socket's 1 s timeout */
	if (!msg ||
	    !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, tc->exit_conn.family, 0,
			 NLM_F_REQUEST | NLM_F_ACK, TASKSTATS_CMD_GET, TASKSTATS_VERSION) ||
	    nla_put_string(msg, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask) < 0) {
		nlmsg_free(msg);
		tc->exit_err = -ENOMEM;
		netlink_close(&tc->exit_conn);
		return;
	}
	/* acknowledged: a refusal (EPERM without CAP_NET_ADMIN) is known now */
	e = nl_send_auto(tc->exit_conn.sk, msg);
	nlmsg_free(msg);
	if (e >= 0)
		e = nl_wait_for_ack(tc->exit_conn.sk);
	if (e < 0) {
		tc->exit_err = netlink_errno(e);
		netlink_close(&tc->exit_conn);
		return;
	}
	fd = nl_socket_get_fd(tc->exit_conn.sk);
	/* a burst of exits (a build, a fork bomb) between two samples */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		tc->exit_err = -errno;
		netlink_close(&tc->exit_conn);
		return;
	}
	tc->exit_err = 0;
}

static struct exit_group *group_of(struct taskstats_collector *tc, uint32_t tgid)
{
	for (size_t i = 0; i < tc->nexits; i++)
		if (tc->exits[i].tgid == tgid)
			return &tc->exits[i];
	if (grow((void **)&tc->exits, &tc->exits_cap, tc->nexits + 1, sizeof(*tc->exits)) < 0)
		return NULL;
	memset(&tc->exits[tc->nexits], 0, sizeof(*tc->exits));
	tc->exits[tc->nexits].tgid = tgid;
	return &tc->exits[tc->nexits++];
}

/* Sums one message into its group. 0 or -ENOMEM. */
static int exits_add(struct taskstats_collector *tc, const struct taskstats_exit_msg *m)
{
	struct exit_group *g = group_of(tc, m->tgid);

	if (!g)
		return -ENOMEM;
	g->read_bytes += m->read_bytes;
	g->write_bytes += m->write_bytes;
	g->cancelled_write_bytes += m->cancelled_write_bytes;
	if (m->pid == m->tgid || !g->comm[0])
		memcpy(g->comm, m->comm, sizeof(g->comm));
	g->dead |= m->group_dead;
	return 0;
}

/* Reads every pending exit message. 0, or -ENOMEM. */
static int exits_drain(struct taskstats_collector *tc)
{
	int fd = nl_socket_get_fd(tc->exit_conn.sk);
	unsigned char buf[16384] __attribute__((aligned(4)));

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		size_t off = 0;
		const struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) { /* the kernel dropped some: say so */
				tc->exit_lost++;
				continue;
			}
			return 0; /* EAGAIN: all read */
		}
		if (n == 0)
			return 0;
		while (netlink_walk(buf, (size_t)n, &off, &h) > 0) {
			struct taskstats_exit_msg m;

			if (taskstats_exit_parse(h, h->nlmsg_len, &m, NULL) < 0) {
				tc->exit_bad++;
				continue;
			}
			if (exits_add(tc, &m) < 0)
				return -ENOMEM;
		}
	}
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = ((const struct proc_raw *)a)->pid, y = ((const struct proc_raw *)b)->pid;

	return (x > y) - (x < y);
}

int taskstats_exits_collect(struct taskstats_collector *tc, const struct root *r,
			    struct proc_table *t)
{
	size_t added = 0;
	int e;

	t->exited_rows = 0;
	if (!tc->live)
		return 0;
	if (!tc->exit_opened)
		exits_open(tc, r);
	if (tc->exit_err)
		return 0;
	tc->nexits = 0;
	e = exits_drain(tc);
	if (e < 0)
		return e;
	for (size_t i = 0; i < tc->nexits; i++) {
		const struct exit_group *g = &tc->exits[i];
		struct proc_raw *p;

		/* alive at this scan (a PID reused), or alive at the last one */
		if (!g->dead || g->tgid > INT32_MAX || proc_table_find(t, (int32_t)g->tgid) ||
		    taskstats_was_seen(tc, (int32_t)g->tgid))
			continue;
		if (!g->read_bytes && !g->write_bytes && !g->cancelled_write_bytes)
			continue;
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		p = &t->rows[t->n++];
		memset(p, 0, sizeof(*p));
		p->pid = (int32_t)g->tgid;
		memcpy(p->comm, g->comm, sizeof(p->comm));
		p->source = PROC_SRC_TASKSTATS;
		p->exited = true;
		p->read_bytes = g->read_bytes;
		p->write_bytes = g->write_bytes;
		p->cancelled_write_bytes = g->cancelled_write_bytes;
		added++;
	}
	if (added)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_pid);
	t->exited_rows = (unsigned)added;
	return 0;
}

void taskstats_exits_free(struct taskstats_collector *tc)
{
	if (tc->exit_opened && !tc->exit_err)
		netlink_close(&tc->exit_conn);
	free(tc->exits);
	tc->exits = NULL;
	tc->nexits = tc->exits_cap = 0;
}
