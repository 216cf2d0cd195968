// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The subcommands' connection to iotriaged (daemon_conn.h): connect, check who
 * answers, then lines in and out under a size limit and a deadline, so an
 * impostor on the socket can neither make us buffer without end nor wait
 * forever (issue 12).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon_conn.h"
#include "clock.h"
#include "grow.h"
#include "iotriage/protocol.h"

#define CHUNK 65536

int daemon_conn_peer_check(int fd, char *why, size_t why_size)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		int e = errno;

		snprintf(why, why_size, "cannot tell who answers (SO_PEERCRED): %s", strerror(e));
		return -e;
	}
	/* iotriaged runs as root (the system daemon) or as the user (their
	 * own); anyone else could feed us made-up samples or take our apply */
	if (cred.uid == 0 || cred.uid == geteuid() || cred.uid == getuid())
		return 0;
	snprintf(why, why_size, "answered by uid %u, neither root nor you (uid %u): not trusted",
		 (unsigned)cred.uid, (unsigned)geteuid());
	return -EPERM;
}

int daemon_conn_socket(const char *path, bool nonblock, char *why, size_t why_size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(why, why_size, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0) {
		r = -errno;
		snprintf(why, why_size, "%s", strerror(-r));
		return r;
	}
	/* a Unix stream connect completes at once or fails: no EINPROGRESS */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		snprintf(why, why_size, "%s", strerror(-r));
		close(fd);
		return r;
	}
	r = daemon_conn_peer_check(fd, why, why_size);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int daemon_conn_open(const char *path, struct daemon_conn *ret, char *why, size_t why_size)
{
	int fd = daemon_conn_socket(path, false, why, why_size);

	if (fd < 0)
		return fd;
	*ret = (struct daemon_conn){ .fd = fd };
	return 0;
}

void daemon_conn_close(struct daemon_conn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	*c = (struct daemon_conn){ .fd = -1 };
}

/* Waits for events on c->fd until deadline_ms: 0 ready, -ETIMEDOUT, -errno. */
static int wait_fd(const struct daemon_conn *c, short events, int64_t deadline_ms)
{
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = events };
		int64_t left = deadline_ms - clock_mono_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > 0)
			return 0;
	}
}

int daemon_conn_send(struct daemon_conn *c, const char *line, size_t len)
{
	int64_t deadline = clock_mono_ms() + IOT_PROTO_CLIENT_TIMEOUT_MS;

	while (len) {
		ssize_t n = send(c->fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			r = wait_fd(c, POLLOUT, deadline);
			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		line += n;
		len -= (size_t)n;
	}
	return 0;
}

int daemon_conn_line(struct daemon_conn *c, size_t max, int timeout_ms, char **ret_line,
		     size_t *ret_len)
{
	int64_t deadline = clock_mono_ms() + timeout_ms;
	size_t scanned = 0;

	/* drop the line handed out last time */
	if (c->used) {
		memmove(c->buf, c->buf + c->used, c->len - c->used);
		c->len -= c->used;
		c->used = 0;
	}
	for (;;) {
		char *nl =
		    c->len > scanned ? memchr(c->buf + scanned, '\n', c->len - scanned) : NULL;
		ssize_t n;
		int r;

		if (nl) {
			*nl = '\0';
			c->used = (size_t)(nl - c->buf) + 1;
			if (c->used - 1 > max)
				return -EMSGSIZE;
			*ret_line = c->buf;
			*ret_len = c->used - 1;
			return 0;
		}
		scanned = c->len;
		if (c->len > max)
			return -EMSGSIZE; /* no newline within the limit */
		if (c->cap - c->len < CHUNK &&
		    grow((void **)&c->buf, &c->cap, c->len + CHUNK + 1, 1) < 0)
			return -ENOMEM;
		n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			r = wait_fd(c, POLLIN, deadline);
			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		c->len += (size_t)n;
	}
}

const char *daemon_conn_strerror(int r, char *buf, size_t size)
{
	if (r == -ETIMEDOUT)
		snprintf(buf, size, "no reply within %d s", IOT_PROTO_CLIENT_TIMEOUT_MS / 1000);
	else if (r == -EMSGSIZE)
		snprintf(buf, size, "a reply line over the limit (%u MiB)",
			 IOT_PROTO_MAX_REPLY >> 20);
	else if (r == -ECONNRESET)
		snprintf(buf, size, "the server closed the connection");
	else
		snprintf(buf, size, "%s", strerror(-r));
	return buf;
}
