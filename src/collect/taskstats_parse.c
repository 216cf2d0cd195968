// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bytes of who does the IO, decoded: taskstats answers and exit
 * messages (netlink attributes), /proc/PID/io, /proc/PID/stat and
 * /proc/PID/schedstat. Pure over (buf, len): opens nothing, keeps nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/taskstats.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "scan.h"
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
