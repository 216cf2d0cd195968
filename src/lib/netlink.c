// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libnl sockets that hand back the kernel's answers as bytes, and the pure
 * walk over those bytes. The only file that sends netlink requests; it never
 * interprets a payload (taskstats.c, ethtool_nl.c and rtnl.c do).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "grow.h"
#include "netlink.h"
#include "treewrite.h"
#include "root.h"

void nlreply_free(struct nlreply *r)
{
	if (!r)
		return;
	free(r->buf);
	r->buf = NULL;
	r->len = r->cap = 0;
}

int netlink_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case 0:
		return 0;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_PROTO_MISMATCH:
	case NLE_AF_NOSUPPORT:
		return -EPROTONOSUPPORT;
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_MSG_OVERFLOW:
	case NLE_PARSE_ERR:
	case NLE_RANGE:
	case NLE_INVAL:
		return -EBADMSG;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

/* A stuck kernel answer must not stall the daemon's one-second tick. */
static int conn_setup(struct nl_sock *sk)
{
	struct timeval tv = { .tv_sec = 1 };
	int fd = nl_socket_get_fd(sk);

	/* libnl versions differ on SOCK_CLOEXEC: make sure */
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	/* requests are GETs: the reply is the answer, an extra ACK is noise */
	nl_socket_disable_auto_ack(sk);
	return 0;
}

/* A socket of protocol proto, set up as conn_setup() does; with genl_name
 * (generic netlink) that family's id resolved into ret->family. */
static int open_conn(int proto, const char *genl_name, struct nlconn *ret)
{
	struct nl_sock *sk;
	int r, family = 0;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, proto); /* genl_connect() is this with NETLINK_GENERIC */
	if (r < 0) {
		r = netlink_errno(r);
		goto fail;
	}
	r = conn_setup(sk);
	if (r < 0)
		goto fail;
	if (genl_name) {
		r = genl_ctrl_resolve(sk, genl_name);
		if (r < 0) {
			r = netlink_errno(r);
			goto fail;
		}
		family = r;
	}
	ret->sk = sk;
	ret->family = family;
	return 0;
fail:
	nl_socket_free(sk);
	return r;
}

int netlink_open_genl(const char *name, struct nlconn *ret)
{
	return open_conn(NETLINK_GENERIC, name, ret);
}

int netlink_open_route(struct nlconn *ret)
{
	return open_conn(NETLINK_ROUTE, NULL, ret);
}

void netlink_close(struct nlconn *c)
{
	if (!c || !c->sk)
		return;
	nl_socket_free(c->sk);
	c->sk = NULL;
}

static int reply_append(struct nlreply *out, const void *p, size_t n)
{
	if (grow((void **)&out->buf, &out->cap, out->len + n, 1) < 0)
		return -ENOMEM;
	memcpy(out->buf + out->len, p, n);
	out->len += n;
	return 0;
}

int netlink_transact(struct nlconn *c, struct nl_msg *msg, struct nlreply *out)
{
	uint32_t seq;
	bool done = false;
	int r;

	out->len = 0;
	r = nl_send_auto(c->sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (r < 0)
		return netlink_errno(r);
	while (!done) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		size_t off = 0;
		int n;

		n = nl_recv(c->sk, &peer, &buf, NULL);
		if (n <= 0) {
			free(buf);
			return n == 0 ? -EBADMSG : netlink_errno(n);
		}
		/* keep the raw bytes of our messages; the walk validates them */
		while (off + sizeof(struct nlmsghdr) <= (size_t)n) {
			const struct nlmsghdr *h = (const void *)(buf + off);
			size_t step = NLMSG_ALIGN(h->nlmsg_len);

			if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > (size_t)n - off) {
				free(buf);
				return -EBADMSG;
			}
			if (h->nlmsg_seq == seq) {
				r = reply_append(out, h,
						 step <= (size_t)n - off ? step : h->nlmsg_len);
				if (r < 0) {
					free(buf);
					return r;
				}
				if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR ||
				    !(h->nlmsg_flags & NLM_F_MULTI))
					done = true;
			}
			off += step;
		}
		free(buf);
	}
	return (int)out->len;
}

int netlink_walk(const void *buf, size_t len, size_t *off, const struct nlmsghdr **ret_nlh)
{
	const unsigned char *b = buf;

	while (*off < len) {
		const struct nlmsghdr *h;
		struct nlmsghdr hdr;
		size_t rem = len - *off, start;

		if (rem < sizeof(hdr))
			return -EBADMSG;
		/* recorded bytes come from a file: do not trust alignment */
		memcpy(&hdr, b + *off, sizeof(hdr));
		if (hdr.nlmsg_len < sizeof(hdr) || hdr.nlmsg_len > rem)
			return -EBADMSG;
		if ((uintptr_t)(b + *off) % 4)
			return -EBADMSG;
		h = (const void *)(b + *off);
		start = *off;
		*off += NLMSG_ALIGN(hdr.nlmsg_len) < rem ? NLMSG_ALIGN(hdr.nlmsg_len) : rem;
		if (hdr.nlmsg_type == NLMSG_DONE) {
			*off = SIZE_MAX; /* tells a dump reader the end was seen */
			return 0;
		}
		if (hdr.nlmsg_type == NLMSG_NOOP)
			continue;
		if (hdr.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;

			if (hdr.nlmsg_len < NLMSG_HDRLEN + sizeof(e.error))
				return -EBADMSG;
			memcpy(&e.error, b + start + NLMSG_HDRLEN, sizeof(e.error));
			if (e.error == 0)
				continue;
			/* the kernel sends -errno; anything else is not a kernel answer */
			if (e.error > 0 || e.error < -4095)
				return -EBADMSG;
			return e.error;
		}
		*ret_nlh = h;
		return 1;
	}
	return 0;
}

int netlink_genl_first(const void *buf, size_t len, uint8_t cmd, const struct nlmsghdr **ret_nlh,
		       const char **what)
{
	const struct nlmsghdr *h;
	struct genlmsghdr g;
	size_t off = 0;
	int r;

	r = netlink_walk(buf, len, &off, &h);
	if (r < 0)
		return r == -EBADMSG ? netlink_bad(what, "truncated netlink header") : r;
	if (r == 0)
		return netlink_bad(what, "empty answer");
	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return netlink_bad(what, "no generic netlink header");
	memcpy(&g, (const char *)h + NLMSG_HDRLEN, sizeof(g));
	if (g.cmd != cmd)
		return netlink_bad(what, "answer to another command");
	*ret_nlh = h;
	return 0;
}

int netlink_fetch(struct nlconn *c, struct nl_msg *msg, const struct root *r, const char *rel,
		  int record_dfd, struct nlreply *out)
{
	int e;

	if (!c) {
		nlmsg_free(msg);
		e = netlink_read_recorded(r, rel, out);
	} else if (!msg) {
		return -ENOMEM;
	} else {
		e = netlink_transact(c, msg, out);
	}
	/* capture keeps the answer as it came, also from a recorded tree */
	if (e >= 0 && record_dfd >= 0)
		netlink_record(record_dfd, rel, out);
	return e;
}

const char *netlink_hint(int err)
{
	switch (err) {
	case -EPERM:
	case -EACCES:
		return "needs CAP_NET_ADMIN (run as root)";
	case -ENOENT:
		return "netlink family not offered by this kernel";
	case -EOPNOTSUPP:
		return "not supported by the driver";
	case -ESRCH:
		return "process exited";
	case -EAGAIN:
		return "no answer within 1 s";
	case -EBADMSG:
		return "malformed or truncated answer";
	default:
		return strerror(-err);
	}
}

int netlink_read_recorded(const struct root *r, const char *rel, struct nlreply *out)
{
	ssize_t n;
	int fd, e = 0;

	fd = root_openat(r, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	out->len = 0;
	for (;;) {
		if (out->len >= (1u << 20)) {
			e = -EFBIG; /* a link dump of a big router is ~ 100 kB */
			break;
		}
		if (grow((void **)&out->buf, &out->cap, out->len + 4096, 1) < 0) {
			e = -ENOMEM;
			break;
		}
		n = read(fd, out->buf + out->len, out->cap - out->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			e = -errno;
		if (n <= 0)
			break;
		out->len += (size_t)n;
	}
	close(fd);
	return e < 0 ? e : (int)out->len;
}

int netlink_record(int dfd, const char *rel, const struct nlreply *out)
{
	return treewrite_write(dfd, rel, out->buf, out->len);
}
