// SPDX-License-Identifier: GPL-2.0-or-later
/* request.c: what a request line becomes (cmd, echoed id) and which error
 * code each malformed line gets, without a daemon. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "daemon.h"

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
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
