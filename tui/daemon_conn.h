/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One blocking connection to iotriaged for the subcommands (snapshot
 * --socket, suggest, apply, undo, worker) and the live view's apply, with the
 * limits a client owes itself whatever answers on the socket: the peer runs
 * as root or as us (SO_PEERCRED), a reply line is at most
 * IOT_PROTO_MAX_REPLY bytes, and it arrives within a deadline
 * (IOT_PROTO_CLIENT_TIMEOUT_MS unless the caller waits for events). The live
 * view's subscription (source_daemon.c) is non-blocking and applies the same rules
 * with daemon_conn_peer_check() and the same limits.
 */
#ifndef IOTRIAGE_TUI_DAEMON_CONN_H
#define IOTRIAGE_TUI_DAEMON_CONN_H

#include <stdbool.h>
#include <stddef.h>

struct daemon_conn {
	int fd;
	char *buf;   /* bytes read, the returned line first */
	size_t len;  /* bytes in buf */
	size_t cap;  /* allocated */
	size_t used; /* the line returned last, '\n' included: dropped next call */
};

/* Room for daemon_conn_open's and daemon_conn_peer_check's why. */
#define DAEMON_CONN_WHY_MAX 192

/*
 * Whether the server on fd runs as root or as our own uid (SO_PEERCRED):
 * 0, -EPERM with why naming the uid that answers, or -errno with why.
 */
int daemon_conn_peer_check(int fd, char *why, size_t why_size);

/*
 * Connects to path (blocking, O_CLOEXEC) and checks the peer. 0 with *ret
 * filled, or -errno with why set (strerror, or daemon_conn_peer_check's).
 */
int daemon_conn_open(const char *path, struct daemon_conn *ret, char *why, size_t why_size);
/* The socket alone (the live view's, non-blocking): connected and checked
 * as daemon_conn_open does. Returns the fd or -errno with why filled. */
int daemon_conn_socket(const char *path, bool nonblock, char *why, size_t why_size);
void daemon_conn_close(struct daemon_conn *c);

/* Writes all of line[0..len) within IOT_PROTO_CLIENT_TIMEOUT_MS: 0 or -errno
 * (-ETIMEDOUT). */
int daemon_conn_send(struct daemon_conn *c, const char *line, size_t len);

/*
 * The next line, without its '\n' and NUL-terminated in place, valid until
 * the next call: 0, -ETIMEDOUT (not whole within timeout_ms), -EMSGSIZE
 * (longer than max bytes), -ECONNRESET (the server closed first), -ENOMEM or
 * another -errno. Nothing grows past max + 64 KiB, whatever is sent.
 */
int daemon_conn_line(struct daemon_conn *c, size_t max, int timeout_ms, char **ret_line,
		     size_t *ret_len);

/* Words for daemon_conn_line's and daemon_conn_send's errors ("no reply within 10 s",
 * "a reply line over 64 MiB", ...), strerror for the others. */
const char *daemon_conn_strerror(int r, char *buf, size_t size);

#endif
