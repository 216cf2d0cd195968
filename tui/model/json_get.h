/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading members of the sample document with json-c, shared by the TUI's
 * decoders (model*.c). Each returns 1 when the member was read, 0 when it is
 * absent (or null, for strings), -EBADMSG when it is there with the wrong
 * type; a decoder that tolerates wrong types tests "> 0", one that reports
 * them tests "< 0".
 */
#ifndef IOTRIAGE_TUI_JSON_GET_H
#define IOTRIAGE_TUI_JSON_GET_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

/* One JSON document of len bytes (need not be NUL-terminated) into *ret:
 * 0, -EBADMSG (not exactly one document), -ENOMEM. */
static inline int mj_parse(const char *json, size_t len, struct json_object **ret)
{
	struct json_tokener *tok;
	struct json_object *o;
	int r = 0;

	if (len > INT32_MAX)
		return -EBADMSG;
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, json, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		r = -EBADMSG;
	} else {
		*ret = o;
	}
	json_tokener_free(tok);
	return r;
}

/* Member key of o, NULL when o is not an object or has no such member. */
static inline struct json_object *mj_get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static inline bool mj_is_num(struct json_object *v)
{
	return v &&
	       (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int));
}

static inline int mj_num(struct json_object *o, const char *key, double *ret)
{
	struct json_object *v = mj_get(o, key);

	if (!v)
		return 0;
	if (!mj_is_num(v))
		return -EBADMSG;
	*ret = json_object_get_double(v);
	return 1;
}

static inline int mj_int(struct json_object *o, const char *key, int64_t *ret)
{
	struct json_object *v = mj_get(o, key);

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -EBADMSG;
	*ret = json_object_get_int64(v);
	return 1;
}

/* A non-negative integer: the daemon writes counters as JSON integers. */
static inline int mj_uint(struct json_object *o, const char *key, uint64_t *ret)
{
	int64_t x;
	int r = mj_int(o, key, &x);

	if (r <= 0)
		return r;
	if (x < 0)
		return -EBADMSG;
	*ret = (uint64_t)x;
	return 1;
}

static inline int mj_bool(struct json_object *o, const char *key, bool *ret)
{
	struct json_object *v = mj_get(o, key);

	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -EBADMSG;
	*ret = json_object_get_boolean(v);
	return 1;
}

/* A string into buf, cut to fit; buf is "" unless one was read. */
static inline int mj_str(struct json_object *o, const char *key, char *buf, size_t size)
{
	struct json_object *v = mj_get(o, key);
	const char *s;

	buf[0] = '\0';
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EBADMSG;
	s = json_object_get_string(v);
	snprintf(buf, size, "%s", s ? s : "");
	return 1;
}

#endif
