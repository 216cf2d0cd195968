// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One request line -> a JSON object with a "cmd" string and an optional
 * "id", parsed by json-c. Pure over its bytes (fuzzed by
 * tests/fuzz/fuzz_request.c); what a command means is server.c's business.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon.h"

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
		if (!json_object_is_type(v, json_type_string) &&
		    !json_object_is_type(v, json_type_int)) {
			*ret_req = rq;
			set_err(ret_code, msg, msg_size, IOT_ERR_BAD_REQUEST,
				"\"id\" must be a string or an integer");
			return -EBADMSG;
		}
		rq.id = strdup(json_object_to_json_string_ext(
		    v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		if (!rq.id) {
			*ret_req = rq;
			set_err(ret_code, msg, msg_size, IOT_ERR_INTERNAL, "out of memory");
			return -ENOMEM;
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
	ret_req->cmd = json_object_get_string(v);
	return 0;
}

void request_free(struct request *rq)
{
	if (!rq)
		return;
	json_object_put(rq->root);
	free(rq->id);
	rq->root = NULL;
	rq->id = NULL;
	rq->cmd = NULL;
}

int request_get_int(const struct request *rq, const char *key, int64_t min, int64_t max, int64_t *v)
{
	json_object *o;
	int64_t x;

	if (!json_object_object_get_ex(rq->root, key, &o))
		return 0;
	if (!json_object_is_type(o, json_type_int))
		return -EINVAL;
	errno = 0;
	x = json_object_get_int64(o);
	/* json-c clamps out-of-range numbers and sets errno */
	if (errno || x < min || x > max)
		return -EINVAL;
	*v = x;
	return 1;
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
