// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for iotriaged's request reader: any bytes as one line.
 * Whatever the line, the reply written around it (the error, or an ok
 * envelope quoting its cmd) must be one valid UTF-8 JSON object on one line.
 */
#include <stdint.h>
#include <stdlib.h>

#include "daemon.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reply(const struct strbuf *sb)
{
	json_object *o;

	if (sb->err)
		return;
	if (!sb->len || sb->buf[sb->len - 1] != '\n' || memchr(sb->buf, '\n', sb->len - 1) ||
	    !text_utf8_valid(sb->buf, sb->len))
		abort();
	o = json_tokener_parse(sb->buf);
	if (!o || !json_object_is_type(o, json_type_object))
		abort();
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct json_tokener *tok;
	static struct strbuf sb;
	enum iot_proto_error code;
	struct request rq;
	char msg[256];
	int64_t v;

	if (size > IOT_PROTO_MAX_LINE)
		return 0;
	if (!tok)
		tok = json_tokener_new_ex(32);
	if (!tok)
		abort();
	if (request_parse(tok, (const char *)data, size, &rq, &code, msg, sizeof(msg)) == 0) {
		request_get_int(&rq, "since", 0, INT64_MAX, &v);
		request_get_int(&rq, "every", 1, 1000000, &v);
		if (!rq.cmd)
			abort();
		request_reply_start(&sb, rq.id);
		sb_puts(&sb, ",\"cmd\":");
		sb_json_str(&sb, rq.cmd);
		sb_append(&sb, "}\n", 2);
	} else {
		if ((unsigned)code >= IOT_ERR__COUNT)
			abort();
		request_reply_error(&sb, rq.id, code, msg);
	}
	check_reply(&sb);
	request_free(&rq);
	return 0;
}
