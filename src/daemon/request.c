// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One request line -> a JSON object with a "cmd" string and an optional
 * "id", parsed by json-c, and the reply envelopes written around it. Pure
 * over its bytes (fuzzed by tests/fuzz/fuzz_request.c, which checks every
 * reply is valid UTF-8 JSON); what a command means is commands.c's business.
 *
 * json-c takes more than the protocol does: it keeps strings' NUL bytes and
 * invalid UTF-8 and clamps integers beyond 64 bits without a word. What it
 * lets through here would be echoed raw (an id), run as another command
 * ("status\u0000x" as status) or read as another number, so each is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"
#include "text.h"

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

static void set_err(enum iot_proto_error *ret_code, char *msg, size_t msg_size,
		    enum iot_proto_error code, const char *text)
{
	*ret_code = code;
	snprintf(msg, msg_size, "%s", text);
}

bool request_text_ok(json_object *v)
{
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);

	return s && !memchr(s, '\0', len) && text_utf8_valid(s, len);
}

int request_json_int(json_object *v, int64_t *ret)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	/*
	 * json-c keeps numbers above INT64_MAX as uint64 and clamps beyond
	 * UINT64_MAX and below INT64_MIN, setting no errno: a clamp can only
	 * land on INT64_MIN or read back as INT64_MAX, so both ends are out.
	 */
	x = json_object_get_int64(v);
	if (x == INT64_MIN || (x == INT64_MAX && json_object_get_uint64(v) != (uint64_t)INT64_MAX))
		return -ERANGE;
	*ret = x;
	return 0;
}

/* The "id" member as the JSON text echoed in replies, written by us: a
 * string of UTF-8 text without NUL, or an integer within +-(2^63 - 1). */
static int request_id_text(json_object *v, char **ret_id, const char **ret_why)
{
	struct strbuf sb = { 0 };
	int64_t x;

	if (json_object_is_type(v, json_type_string)) {
		if (!request_text_ok(v)) {
			*ret_why = "\"id\" must be UTF-8 text without NUL";
			return -EBADMSG;
		}
		sb_json_str(&sb, json_object_get_string(v));
	} else if (json_object_is_type(v, json_type_int)) {
		if (request_json_int(v, &x) < 0) {
			*ret_why = "\"id\" is out of range (an integer id is within +-(2^63 - 1))";
			return -EBADMSG;
		}
		sb_i64(&sb, x);
	} else {
		*ret_why = "\"id\" must be a string or an integer";
		return -EBADMSG;
	}
	if (sb.err) {
		sb_free(&sb);
		*ret_why = "out of memory";
		return -ENOMEM;
	}
	*ret_id = sb.buf; /* NUL-terminated by every append */
	return 0;
}

int request_parse(struct json_tokener *tok, const char *line, size_t len, struct request *ret_req,
		  enum iot_proto_error *ret_code, char *msg, size_t msg_size)
{
	struct request rq = { 0 };
	enum json_tokener_error jerr;
	json_object *o, *v;
	size_t end;

	while (len && is_blank(line[len - 1]))
		len--;
	*ret_req = rq;
	if (memchr(line, '\0', len)) {
		/* json-c stops at a NUL; the rest would be silently ignored */
		set_err(ret_code, msg, msg_size, IOT_ERR_BAD_JSON, "NUL byte in the request");
		return -EBADMSG;
	}
	if (!text_utf8_valid(line, len)) {
		/* JSON text is UTF-8 (RFC 8259); json-c would keep the bytes */
		set_err(ret_code, msg, msg_size, IOT_ERR_BAD_JSON, "the request is not UTF-8");
		return -EBADMSG;
	}
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, line, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	if (!o && jerr == json_tokener_continue) {
		/* a bare number could still continue: the end of the line ends it */
		o = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		end = len;
	}
	if (!o || jerr != json_tokener_success) {
		*ret_code = IOT_ERR_BAD_JSON;
		snprintf(msg, msg_size, "not JSON: %s",
			 jerr == json_tokener_continue ? "unexpected end of line"
						       : json_tokener_error_desc(jerr));
		json_object_put(o);
		return -EBADMSG;
	}
	while (end < len && is_blank(line[end]))
		end++;
	if (end < len) {
		set_err(ret_code, msg, msg_size, IOT_ERR_BAD_JSON,
			"more than one JSON value on the line");
		json_object_put(o);
		return -EBADMSG;
	}
	if (!json_object_is_type(o, json_type_object)) {
		set_err(ret_code, msg, msg_size, IOT_ERR_BAD_REQUEST,
			"a request is a JSON object with a \"cmd\"");
		json_object_put(o);
		return -EBADMSG;
	}
	rq.root = o;
	if (json_object_object_get_ex(o, "id", &v)) {
		const char *why = NULL;
		int r = request_id_text(v, &rq.id, &why);

		if (r < 0) {
			*ret_req = rq;
			set_err(ret_code, msg, msg_size,
				r == -ENOMEM ? IOT_ERR_INTERNAL : IOT_ERR_BAD_REQUEST, why);
			return r;
		}
	}
	*ret_req = rq;
	if (!json_object_object_get_ex(o, "cmd", &v) || !json_object_is_type(v, json_type_string)) {
		set_err(
		    ret_code, msg, msg_size, IOT_ERR_BAD_REQUEST,
		    "missing \"cmd\" (a string: hello, snapshot, subscribe, unsubscribe, history, "
		    "status, apply, undo, worker.start, worker.stop, worker.status)");
		return -EBADMSG;
	}
	if (!request_text_ok(v)) {
		set_err(ret_code, msg, msg_size, IOT_ERR_BAD_REQUEST,
			"\"cmd\" must be UTF-8 text without NUL");
		return -EBADMSG;
	}
	ret_req->cmd = json_object_get_string(v);
	return 0;
}

void request_free(struct request *rq)
{
	if (!rq)
		return;
	json_object_put(rq->root);
	free(rq->id);
	memset(rq, 0, sizeof(*rq));
}

int request_get_int(const struct request *rq, const char *key, int64_t min, int64_t max, int64_t *v)
{
	json_object *o;
	int64_t x;

	if (!json_object_object_get_ex(rq->root, key, &o))
		return 0;
	if (request_json_int(o, &x) < 0 || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 1;
}

/* ---- reply envelopes ---- */

void request_reply_start(struct strbuf *sb, const char *id)
{
	sb_reset(sb);
	sb_puts(sb, "{\"ok\":true");
	if (id) {
		sb_puts(sb, ",\"id\":");
		sb_puts(sb, id);
	}
}

void request_reply_error(struct strbuf *sb, const char *id, enum iot_proto_error code,
			 const char *msg)
{
	char cut[512];
	size_t n = strlen(msg);

	/* a message truncated to a byte count must not end in half a character */
	if (n >= sizeof(cut))
		n = sizeof(cut) - 1;
	n = text_utf8_cut(msg, n);
	memcpy(cut, msg, n);
	cut[n] = '\0';
	sb_reset(sb);
	sb_puts(sb, "{\"ok\":false");
	if (id) {
		sb_puts(sb, ",\"id\":");
		sb_puts(sb, id);
	}
	sb_puts(sb, ",\"error\":{\"code\":");
	sb_json_str(sb, iot_proto_error_name(code));
	sb_puts(sb, ",\"message\":");
	sb_json_str(sb, cut);
	sb_append(sb, "}}\n", 3);
}

int request_get_bool(const struct request *rq, const char *key)
{
	json_object *o;

	if (!json_object_object_get_ex(rq->root, key, &o))
		return 0;
	if (!json_object_is_type(o, json_type_boolean))
		return -EINVAL;
	return json_object_get_boolean(o) ? 1 : 0;
}
