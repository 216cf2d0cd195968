// SPDX-License-Identifier: GPL-2.0-or-later
/* request.c: what a request line becomes (cmd, echoed id), which error code
 * each malformed line gets, and that every reply written around a request is
 * valid UTF-8 JSON, without a daemon. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "daemon.h"
#include "text.h"

static int parse(struct json_tokener *tok, const char *line, struct request *rq,
		 enum iot_proto_error *code)
{
	char msg[256] = "";
	int r;

	*code = IOT_ERR__COUNT;
	r = request_parse(tok, line, strlen(line), rq, code, msg, sizeof(msg));
	if (r < 0)
		assert_true(msg[0] != '\0'); /* every error says why */
	return r;
}

/* A reply line: one JSON object, valid UTF-8, ending in exactly one '\n'. */
static void assert_reply_valid(const struct strbuf *sb)
{
	json_object *o;

	assert_true(sb->len > 0 && sb->buf[sb->len - 1] == '\n');
	assert_null(memchr(sb->buf, '\n', sb->len - 1));
	if (!text_utf8_valid(sb->buf, sb->len))
		fail_msg("reply is not UTF-8: %s", sb->buf);
	o = json_tokener_parse(sb->buf);
	if (!o || !json_object_is_type(o, json_type_object))
		fail_msg("reply is not a JSON object: %s", sb->buf);
	json_object_put(o);
}

/* The reply a daemon would write to line: the error, or an ok envelope. */
static void reply_to(struct json_tokener *tok, const char *line, size_t len, struct strbuf *sb)
{
	enum iot_proto_error code;
	struct request rq;
	char msg[256];

	if (request_parse(tok, line, len, &rq, &code, msg, sizeof(msg)) < 0) {
		request_reply_error(sb, rq.id, code, msg);
	} else {
		request_reply_start(sb, rq.id);
		sb_puts(sb, ",\"cmd\":");
		sb_json_str(sb, rq.cmd);
		sb_append(sb, "}\n", 2);
	}
	request_free(&rq);
}

static void test_good(void **state)
{
	struct json_tokener *tok = *state;
	enum iot_proto_error code;
	struct request rq;
	int64_t v = -1;

	assert_int_equal(
	    parse(tok, "{\"cmd\":\"history\",\"since\":12,\"id\":\"a/b\"}\r\n", &rq, &code), 0);
	assert_string_equal(rq.cmd, "history");
	assert_string_equal(rq.id, "\"a/b\""); /* JSON text, echoed as is */
	assert_int_equal(request_get_int(&rq, "since", 0, INT64_MAX, &v), 1);
	assert_int_equal(v, 12);
	assert_int_equal(request_get_int(&rq, "seconds", 0, 10, &v), 0);
	assert_int_equal(v, 12); /* absent: untouched */
	assert_int_equal(request_get_int(&rq, "since", 0, 11, &v), -EINVAL);
	assert_int_equal(request_get_int(&rq, "cmd", 0, 11, &v), -EINVAL);
	request_free(&rq);

	assert_int_equal(parse(tok, "  {\"id\":-7,\"cmd\":\"status\"}  ", &rq, &code), 0);
	assert_string_equal(rq.id, "-7");
	request_free(&rq);
	assert_int_equal(parse(tok, "{\"cmd\":\"snapshot\"}", &rq, &code), 0);
	assert_null(rq.id);
	request_free(&rq);
}

static void test_bad(void **state)
{
	static const struct {
		const char *line;
		enum iot_proto_error code;
		const char *id;
	} cases[] = {
		{ "", IOT_ERR_BAD_JSON, NULL },
		{ "hello", IOT_ERR_BAD_JSON, NULL },
		{ "{\"cmd\":", IOT_ERR_BAD_JSON, NULL },
		{ "{\"cmd\":\"a\"} {}", IOT_ERR_BAD_JSON, NULL },
		{ "{\"cmd\":\"a\"}x", IOT_ERR_BAD_JSON, NULL },
		{ "42", IOT_ERR_BAD_REQUEST, NULL },
		{ "[{\"cmd\":\"status\"}]", IOT_ERR_BAD_REQUEST, NULL },
		{ "{\"cmd\":1,\"id\":5}", IOT_ERR_BAD_REQUEST, "5" },
		{ "{\"id\":\"x\"}", IOT_ERR_BAD_REQUEST, "\"x\"" },
		{ "{\"cmd\":\"status\",\"id\":{}}", IOT_ERR_BAD_REQUEST, NULL },
		{ "{\"cmd\":\"status\",\"id\":1.5}", IOT_ERR_BAD_REQUEST, NULL },
	};
	struct json_tokener *tok = *state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum iot_proto_error code;
		struct request rq;

		assert_int_equal(parse(tok, cases[i].line, &rq, &code), -EBADMSG);
		if (code != cases[i].code)
			fail_msg("'%s': code %d, expected %d", cases[i].line, code, cases[i].code);
		if (cases[i].id)
			assert_string_equal(rq.id, cases[i].id);
		else
			assert_null(rq.id);
		request_free(&rq);
	}
}

static void test_nul_and_depth(void **state)
{
	struct json_tokener *tok = *state;
	enum iot_proto_error code;
	char deep[200];
	struct request rq;
	char msg[64];

	/* an embedded NUL would make json-c ignore the rest of the line */
	assert_int_equal(
	    request_parse(tok, "{\"cmd\":\"x\"}\0junk", 16, &rq, &code, msg, sizeof(msg)),
	    -EBADMSG);
	assert_int_equal(code, IOT_ERR_BAD_JSON);
	request_free(&rq);
	/* nesting beyond the tokener's depth is an error, not a crash */
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	assert_int_equal(parse(tok, deep, &rq, &code), -EBADMSG);
	assert_int_equal(code, IOT_ERR_BAD_JSON);
	request_free(&rq);
}

/* Issue 12: what json-c lets through is refused, and every reply is valid
 * UTF-8 JSON: ids past 64 bits clamped, invalid UTF-8 echoed raw, NUL inside
 * "cmd", a message cut inside a character. */
static void test_odd_values(void **state)
{
	static const struct {
		const char *line;
		enum iot_proto_error code;
	} refused[] = {
		{ "{\"cmd\":\"status\",\"id\":18446744073709551616}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"status\",\"id\":18446744073709551615}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"status\",\"id\":9223372036854775808}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"status\",\"id\":-9223372036854775808}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"status\",\"id\":-99999999999999999999}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"status\",\"id\":\"\xff\xfe\"}", IOT_ERR_BAD_JSON },
		{ "{\"cmd\":\"status\",\"id\":\"\xc3\"}", IOT_ERR_BAD_JSON },
		{ "{\"cmd\":\"status\",\"id\":\"\xed\xa0\x80\"}", IOT_ERR_BAD_JSON },
		{ "{\"cmd\":\"status\",\"id\":\"a\\u0000b\"}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"status\\u0000x\"}", IOT_ERR_BAD_REQUEST },
		{ "{\"cmd\":\"st\xe9tus\"}", IOT_ERR_BAD_JSON },
		{ "{\"cmd\":\"status\",\"x\":\"\xc0\xaf\"}", IOT_ERR_BAD_JSON },
	};
	struct json_tokener *tok = *state;
	struct strbuf sb = { 0 };
	enum iot_proto_error code;
	struct request rq;
	char msg[600];
	int64_t v = 0;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(parse(tok, refused[i].line, &rq, &code), -EBADMSG);
		if (code != refused[i].code)
			fail_msg("'%s': code %d, expected %d", refused[i].line, code,
				 refused[i].code);
		assert_null(rq.id); /* an odd id is not echoed */
		request_free(&rq);
		reply_to(tok, refused[i].line, strlen(refused[i].line), &sb);
		assert_reply_valid(&sb);
	}

	/* the ends of the range, echoed as written */
	assert_int_equal(parse(tok, "{\"cmd\":\"x\",\"id\":9223372036854775807}", &rq, &code), 0);
	assert_string_equal(rq.id, "9223372036854775807");
	request_free(&rq);
	assert_int_equal(parse(tok, "{\"cmd\":\"x\",\"id\":-9223372036854775807}", &rq, &code), 0);
	assert_string_equal(rq.id, "-9223372036854775807");
	request_free(&rq);
	/* a string id is written again by us: escapes normalised, UTF-8 kept */
	assert_int_equal(
	    parse(tok, "{\"cmd\":\"x\",\"id\":\"\\u00e9\\/\xe2\x82\xac\\u001b\"}", &rq, &code), 0);
	assert_string_equal(rq.id, "\"\xc3\xa9/\xe2\x82\xac\\u001b\"");
	request_free(&rq);
	/* an escaped lone surrogate: json-c makes it U+FFFD, valid text */
	reply_to(tok, "{\"cmd\":\"\\ud800\",\"id\":\"\\udc00\"}", 27, &sb);
	assert_reply_valid(&sb);

	/* integers past 64 bits are not clamped into range */
	assert_int_equal(parse(tok,
			       "{\"cmd\":\"history\",\"since\":18446744073709551616,"
			       "\"seconds\":9223372036854775808,\"every\":-9223372036854775809}",
			       &rq, &code),
			 0);
	assert_int_equal(request_get_int(&rq, "since", 0, INT64_MAX, &v), -EINVAL);
	assert_int_equal(request_get_int(&rq, "seconds", 0, INT64_MAX, &v), -EINVAL);
	assert_int_equal(request_get_int(&rq, "every", INT64_MIN, INT64_MAX, &v), -EINVAL);
	request_free(&rq);
	/* hello's version 2^32 + 1 is a version, not a malformed request */
	assert_int_equal(parse(tok, "{\"cmd\":\"hello\",\"version\":4294967297}", &rq, &code), 0);
	assert_int_equal(request_get_int(&rq, "version", 0, INT64_MAX, &v), 1);
	assert_int_equal(v, 4294967297LL);
	request_free(&rq);

	/* an error message cut to 511 bytes inside a character */
	memset(msg, 'a', sizeof(msg));
	for (size_t i = 1; i + 1 < sizeof(msg); i += 2)
		memcpy(msg + i, "\xc3\xa9", 2);
	msg[sizeof(msg) - 1] = '\0';
	request_reply_error(&sb, NULL, IOT_ERR_UNKNOWN_CMD, msg);
	assert_reply_valid(&sb);
	/* and a message quoting any bytes at all */
	request_reply_error(&sb, "1", IOT_ERR_BAD_REQUEST,
			    "\x1b[31m \xff\xc2\x9b \x7f \xf4\x90\x80\x80");
	assert_reply_valid(&sb);
	assert_non_null(strstr(sb.buf, "\\u001b[31m \\ufffd\\u009b \\u007f "
				       "\\ufffd\\ufffd\\ufffd\\ufffd"));
	sb_free(&sb);
}

static int setup(void **state)
{
	*state = json_tokener_new_ex(32);
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	json_tokener_free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_nul_and_depth),
		cmocka_unit_test(test_odd_values),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
