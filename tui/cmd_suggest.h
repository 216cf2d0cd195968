/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply and undo through iotriaged, shared by `iotriage apply/undo` and the
 * TUI's findings panel: one short blocking connection per request, beside
 * (never inside) a subscription.
 */
#ifndef IOTRIAGE_TUI_CMD_SUGGEST_H
#define IOTRIAGE_TUI_CMD_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct strbuf;

/* A refused hello's reply line (suggest_daemon_call's 4 KiB) quoted in a why. */
#define SUGGEST_WHY_MAX 4160

/* A connected (blocking, O_CLOEXEC) stream socket to path; fd or -errno. */
int suggest_daemon_connect(const char *path);

/* Writes one request line, reads one reply line into reply (NUL-terminated,
 * without the newline). Returns 0 or -errno (-ECONNRESET: closed first). */
int suggest_daemon_call(int fd, const char *req, char *reply, size_t size);

/*
 * hello, then snapshot on fd: the daemon's latest sample, for `suggest` and
 * `snapshot --socket`. Returns 0 with *ret_reply (the reply line without its
 * newline, {"ok":true,"sample":{SAMPLE}}; sb_free it) and *ret_root (that
 * line parsed, its "sample" an object; json_object_put it), or -errno with
 * why set and nothing returned: "hello: LINE" (another protocol version, or
 * not a daemon), "hello: WHY" or "snapshot: WHY" (that exchange failed or
 * timed out, a malformed reply) or the daemon's own error message ("no
 * sample has been taken yet"). why_size: SUGGEST_WHY_MAX.
 */
int suggest_daemon_sample(int fd, struct strbuf *ret_reply, struct json_object **ret_root,
			  char *why, size_t why_size);

/*
 * hello, then apply id (undo false), undo id, or undo everything (undo true,
 * id NULL) on fd. Returns 0 when the daemon did it (ret_msg: its message),
 * 1 when it refused (ret_msg: its error message, "" if it gave none), or
 * -errno when the exchange failed (ret_msg: "hello failed: ..." or
 * "apply: ..."). ret_msg is always written.
 */
int suggest_daemon_apply(int fd, const char *id, bool undo, char *ret_msg, size_t size);

#endif
