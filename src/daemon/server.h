/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the socket server's parts share among themselves: listen.c (the
 * socket and its directory), conn.c (the clients' connections: queues, reading,
 * pushing, history streaming, accept and reap) and commands.c (the
 * dispatch table). The rest of the daemon sees daemon.h's server_* only.
 */
#ifndef IOTRIAGED_SERVER_H
#define IOTRIAGED_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon.h"

/* Logs why at prio and marks c dead (freed by server_reap). */
void client_kill(struct daemon *d, struct client *c, int prio, const char *why);
/* Reply bytes (not pushes) queued to c and not yet written. */
size_t client_reply_backlog(const struct client *c);
/* Queues [off, off + len) of b (a reference is taken). 0 or -ENOMEM. */
int client_queue_seg(struct client *c, struct blob *b, size_t off, size_t len, bool push);
/* Queues d->sb's contents as one reply. 0 or -ENOMEM. */
int client_queue_sb(struct daemon *d, struct client *c);
/* Queues the next chunk of c's history reply (cmd_history started it);
 * false when the client was killed. */
bool client_history_step(struct daemon *d, struct client *c);
/* The recorded part of c's history reply (rec.c's thread made it; b NULL:
 * none), queued before the ring's samples, and the reply goes on. */
void client_history_part(struct daemon *d, struct client *c, struct blob *b, size_t count);

/* Runs one request line through the dispatch table; replies exactly once.
 * Returns what the handler returned (-errno: the client is dropped). */
int commands_dispatch(struct daemon *d, struct client *c, const char *line, size_t len);

#endif
