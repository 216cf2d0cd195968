/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply and undo through iotriaged, shared by `iotriage apply/undo` and the
 * TUI's findings panel: one short blocking connection per request
 * (daemon_conn.h), beside (never inside) a subscription.
 */
#ifndef IOTRIAGE_TUI_CMD_SUGGEST_H
#define IOTRIAGE_TUI_CMD_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

struct daemon_conn;
struct json_object;
struct strbuf;

/* A refused hello's reply line (4 KiB of it) quoted in a why. */
#define SUGGEST_WHY_MAX 4160

/*
 * hello, then snapshot on c (daemon_conn.h: peer checked, replies bounded and
 * timed): the daemon's latest sample, for `suggest` and
 * `snapshot --socket`. Returns 0 with *ret_reply (the reply line without its
 * newline, {"ok":true,"sample":{SAMPLE}}; sb_free it) and *ret_root (that
 * line parsed, its "sample" an object; json_object_put it), or -errno with
 * why set and nothing returned: "hello: LINE" (another protocol version, or
 * not a daemon), "hello: WHY" or "snapshot: WHY" (that exchange failed or
 * timed out, a malformed reply) or the daemon's own error message ("no
 * sample has been taken yet"). why_size: SUGGEST_WHY_MAX.
 */
int suggest_daemon_sample(struct daemon_conn *c, struct strbuf *ret_reply,
			  struct json_object **ret_root, char *why, size_t why_size);

/*
 * hello, then apply id (undo false), undo id, or undo everything (undo true,
 * id NULL) on c. With shown (apply only: the suggestion as a screen showed
 * it), the daemon writes only if its suggestion id still writes exactly
 * shown's writes, else refuses. Returns 0 when the daemon did it (ret_msg: its message),
 * 1 when it refused (ret_msg: its error message, "" if it gave none), or
 * -errno when the exchange failed (ret_msg: "hello failed: ..." or
 * "apply: ..."). ret_msg is always written.
 */
struct model_suggestion;
int suggest_daemon_apply(struct daemon_conn *c, const char *id, bool undo,
			 const struct model_suggestion *shown, char *ret_msg, size_t size);

#endif
