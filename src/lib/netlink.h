/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared netlink plumbing on top of libnl: a request goes out through a libnl
 * socket and the kernel's answer comes back as raw bytes, exactly what a
 * recorded tree stores under netlink/ (doc/netlink.md). Walking those bytes is
 * pure, so every reply parser is testable and fuzzable without a kernel.
 */
#ifndef IOTRIAGE_NETLINK_H
#define IOTRIAGE_NETLINK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

struct nl_sock;
struct nl_msg;

/* A growing byte buffer holding one reply (one or more netlink messages). */
struct nlreply {
	unsigned char *buf;
	size_t len;
	size_t cap;
};

void nlreply_free(struct nlreply *r);

/* One open socket; family is the resolved generic netlink id (0 for rtnetlink). */
struct nlconn {
	struct nl_sock *sk;
	int family;
};

/*
 * Connects to generic netlink and resolves name ("TASKSTATS", "ethtool").
 * Returns 0, -ENOENT (the kernel has no such family: module not loaded or
 * not built), -EPERM/-EACCES, -ENOMEM or another -errno. *ret written only on
 * success.
 */
int netlink_open_genl(const char *name, struct nlconn *ret);
/* Connects to NETLINK_ROUTE. Same returns. */
int netlink_open_route(struct nlconn *ret);
void netlink_close(struct nlconn *c);

/*
 * Sends msg (consumed in every case) and reads the whole answer into out
 * (storage reused): one message for a plain request, up to NLMSG_DONE for a
 * dump. Messages of other sequence numbers (late answers to an earlier,
 * abandoned request) are dropped. Returns the byte count or -errno of the
 * transport (-EAGAIN after a one second timeout). A kernel refusal is not an
 * error here: it is an NLMSG_ERROR in out, which netlink_walk() reports.
 */
int netlink_transact(struct nlconn *c, struct nl_msg *msg, struct nlreply *out);

/* Maps a libnl -NLE_* code to the closest -errno. */
int netlink_errno(int nle);

/*
 * Walks (buf, len) message by message. Each call returns the next message in
 * *ret_nlh: 1 when one was returned, 0 at the end (NLMSG_DONE or the end of
 * the bytes), -EBADMSG for a truncated or malformed header, or the kernel's
 * -errno carried by an NLMSG_ERROR message (-EPERM, -ESRCH, -EOPNOTSUPP).
 * *off is the cursor, start it at 0; at NLMSG_DONE it becomes SIZE_MAX, so
 * a dump whose bytes end without NLMSG_DONE is recognised as truncated. An
 * ACK (NLMSG_ERROR with error 0) and NLMSG_NOOP are skipped.
 */
int netlink_walk(const void *buf, size_t len, size_t *off, const struct nlmsghdr **ret_nlh);

/* Sets *what (when what is not NULL) to why, a static text naming what is
 * wrong with an answer, and returns -EBADMSG: for the reply parsers. */
static inline int netlink_bad(const char **what, const char *why)
{
	if (what)
		*what = why;
	return -EBADMSG;
}

/*
 * The first message of a generic netlink answer in (buf, len), checked to
 * carry a generic netlink header with command cmd: 0 and *ret_nlh, the
 * kernel's -errno of an NLMSG_ERROR, or -EBADMSG with *what saying why
 * ("truncated netlink header", "empty answer", "no generic netlink header",
 * "answer to another command"). Pure, like netlink_walk().
 */
int netlink_genl_first(const void *buf, size_t len, uint8_t cmd, const struct nlmsghdr **ret_nlh,
		       const char **what);

/*
 * A recorded answer: reads rel under r (at most 1 MiB) into out. The bytes
 * are what netlink_transact() returned when the tree was captured. Returns
 * the length or -errno (-ENOENT: nothing recorded, -EFBIG).
 */
struct root;
int netlink_read_recorded(const struct root *r, const char *rel, struct nlreply *out);

/* Capture: writes out's bytes to rel under dfd through treewrite_write() (its
 * directories created, no symlink followed, the file created anew). 0 or -errno. */
int netlink_record(int dfd, const char *rel, const struct nlreply *out);

/*
 * One request's answer into out, live or from a recorded tree: with c, msg
 * goes out through netlink_transact() (msg NULL: -ENOMEM, an allocation
 * failed); without c (a tree), msg is freed and the answer is the file rel
 * under r (netlink_read_recorded). With record_dfd >= 0 (capture) the answer
 * is then written to rel under it, whichever way it came. Returns the byte
 * count or -errno; msg is consumed in every case.
 */
int netlink_fetch(struct nlconn *c, struct nl_msg *msg, const struct root *r, const char *rel,
		  int record_dfd, struct nlreply *out);

/* A short human name for a netlink -errno in the context of a request:
 * "-EPERM" gets "needs CAP_NET_ADMIN". Never NULL. */
const char *netlink_hint(int err);

#endif
