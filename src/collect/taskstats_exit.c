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
 * The notices' decoder, taskstats_exit_parse(), is beside the answers' in
 * taskstats.c.
 */
#include <errno.h>
#include <stddef.h>
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
#include "rowfind.h"

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

/* Groups summed between two scans at most: with the scan every N samples
 * (sampler.c) a fork-heavy host would otherwise grow the list (and this
 * linear search) for two minutes. Past it, notices are counted as lost. */
#define EXIT_GROUPS_MAX 8192

/* Twice the groups: linear probing stays short. A power of two. */
#define EXIT_SLOTS (2 * EXIT_GROUPS_MAX)

static struct exit_group *group_of(struct taskstats_collector *tc, uint32_t tgid, bool *ret_full)
{
	struct exit_slot *sl;
	uint32_t h;

	*ret_full = false;
	if (!tc->exit_slots) {
		tc->exit_slots = calloc(EXIT_SLOTS, sizeof(*tc->exit_slots));
		if (!tc->exit_slots)
			return NULL;
	}
	if (tc->nexits == 0 && ++tc->exit_gen == 0) { /* a new interval: the index empties */
		memset(tc->exit_slots, 0, EXIT_SLOTS * sizeof(*tc->exit_slots));
		tc->exit_gen = 1;
	}
	/* Knuth's multiplicative hash: PIDs come in runs */
	for (h = (tgid * 2654435761u) & (EXIT_SLOTS - 1);; h = (h + 1) & (EXIT_SLOTS - 1)) {
		sl = &tc->exit_slots[h];
		if (sl->gen != tc->exit_gen)
			break;
		if (tc->exits[sl->idx].tgid == tgid)
			return &tc->exits[sl->idx];
	}
	if (tc->nexits >= EXIT_GROUPS_MAX) {
		*ret_full = true;
		return NULL;
	}
	if (grow((void **)&tc->exits, &tc->exits_cap, tc->nexits + 1, sizeof(*tc->exits)) < 0)
		return NULL;
	memset(&tc->exits[tc->nexits], 0, sizeof(*tc->exits));
	tc->exits[tc->nexits].tgid = tgid;
	sl->gen = tc->exit_gen;
	sl->idx = (uint32_t)tc->nexits;
	return &tc->exits[tc->nexits++];
}

/* Sums one message into its group. 0 or -ENOMEM. */
static int exits_add(struct taskstats_collector *tc, const struct taskstats_exit_msg *m)
{
	bool full;
	struct exit_group *g = group_of(tc, m->tgid, &full);

	if (!g && full) {
		tc->exit_lost++;
		return 0;
	}
	if (!g)
		return -ENOMEM;
	g->read_bytes += m->read_bytes;
	g->write_bytes += m->write_bytes;
	g->cancelled_write_bytes += m->cancelled_write_bytes;
	if (m->pid == m->tgid || !g->comm[0])
		memcpy(g->comm, m->comm, sizeof(g->comm));
	if (m->pid == m->tgid || !g->ppid)
		g->ppid = m->ppid;
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
	/* notices drained on samples that skipped the scan are still here:
	 * tc->nexits is emptied once they are used (taskstats_collect) */
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
		proc_table_sort(t);
	t->exited_rows = (unsigned)added;
	return 0;
}

/* ---- parent/child double count ---- */

static struct reap_credit *credit_find(struct taskstats_collector *tc, int32_t pid)
{
	return rowfind_i32(tc->credits, tc->ncredits, sizeof(*tc->credits),
			   offsetof(struct reap_credit, pid), pid);
}

static struct reap_credit *credit_get(struct taskstats_collector *tc, int32_t pid)
{
	struct reap_credit *c = credit_find(tc, pid);
	size_t at = 0;

	if (c)
		return c;
	if (grow((void **)&tc->credits, &tc->credits_cap, tc->ncredits + 1, sizeof(*tc->credits)) <
	    0)
		return NULL;
	while (at < tc->ncredits && tc->credits[at].pid < pid)
		at++;
	memmove(&tc->credits[at + 1], &tc->credits[at], (tc->ncredits - at) * sizeof(*tc->credits));
	tc->ncredits++;
	memset(&tc->credits[at], 0, sizeof(*tc->credits));
	tc->credits[at].pid = pid;
	return &tc->credits[at];
}

static uint64_t sum3(const uint64_t v[3])
{
	return v[0] + v[1] + v[2];
}

int taskstats_credit_apply(struct taskstats_collector *tc, struct proc_table *t)
{
	size_t k = 0;

	/*
	 * wait_task_zombie() adds the child's own counters and those of the
	 * children it reaped itself (signal->ioac) to the parent's: a child's
	 * notices sum its threads' own bytes, so what it was still owed passes
	 * up to its parent with them.
	 */
	for (size_t i = 0; i < tc->nexits; i++) {
		const struct exit_group *g = &tc->exits[i];
		uint64_t add[3] = { g->read_bytes, g->write_bytes, g->cancelled_write_bytes };
		struct reap_credit *own, *parent;

		if (!g->dead || !g->ppid || g->ppid > INT32_MAX || g->tgid > INT32_MAX ||
		    g->ppid == g->tgid)
			continue;
		own = credit_find(tc, (int32_t)g->tgid);
		if (own) {
			for (int j = 0; j < 3; j++)
				add[j] += own->pend[j];
			memset(own->pend, 0, sizeof(own->pend));
		}
		if (!sum3(add))
			continue;
		parent = credit_get(tc, (int32_t)g->ppid);
		if (!parent)
			return -ENOMEM;
		for (int j = 0; j < 3; j++)
			parent->pend[j] += add[j];
	}
	/* absorb into the rows, keep only the credits of live processes */
	for (size_t i = 0; i < tc->ncredits; i++) {
		struct reap_credit c = tc->credits[i];
		struct proc_raw *p = (struct proc_raw *)proc_table_find(t, c.pid);
		const struct proc_seen *s;
		uint64_t now, grew;

		if (!p || p->exited)
			continue;
		/*
		 * The counters absorbed at most what they grew by since the
		 * previous scan: a child whose notice came between the scan and
		 * the wait is still owed, the others are not. All-or-nothing
		 * would keep every child owed as long as one is (a shell reaping
		 * dd after dd never catches up), so the growth is applied as far
		 * as it goes and the rest stays owed.
		 */
		s = taskstats_seen(tc, c.pid);
		now = p->read_bytes + p->write_bytes + p->cancelled_write_bytes;
		grew = !s ? now : now > s->io_bytes ? now - s->io_bytes : 0;
		for (int j = 0; j < 3 && grew; j++) {
			uint64_t a = c.pend[j] < grew ? c.pend[j] : grew;

			c.applied[j] += a;
			c.pend[j] -= a;
			grew -= a;
		}
		p->reaped_read_bytes = c.applied[0];
		p->reaped_write_bytes = c.applied[1];
		p->reaped_cancelled_bytes = c.applied[2];
		tc->credits[k++] = c;
	}
	tc->ncredits = k;
	return 0;
}

int taskstats_exits_drain(struct taskstats_collector *tc)
{
	if (!tc->live || !tc->exit_opened || tc->exit_err)
		return 0;
	return exits_drain(tc);
}

void taskstats_exits_free(struct taskstats_collector *tc)
{
	if (tc->exit_opened && !tc->exit_err)
		netlink_close(&tc->exit_conn);
	grow_free((void **)&tc->exits, &tc->nexits, &tc->exits_cap);
	free(tc->exit_slots);
	tc->exit_slots = NULL;
	grow_free((void **)&tc->credits, &tc->ncredits, &tc->credits_cap);
}
