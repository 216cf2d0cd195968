// SPDX-License-Identifier: GPL-2.0-or-later
/* scan.c: numbers, tokens and line handling over bounded buffers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "scan.h"

static void test_u64(void **state)
{
	const char buf[] = "  42 18446744073709551615 18446744073709551616 12x";
	struct cursor c;
	uint64_t v;

	(void)state;
	cursor_init(&c, buf, strlen(buf));
	assert_int_equal(scan_u64(&c, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(scan_u64(&c, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(scan_u64(&c, &v), -ERANGE);
	/* a refused number leaves the cursor where it was */
	c.p = strstr(buf, "12x");
	assert_int_equal(scan_u64(&c, &v), -EINVAL);
	assert_ptr_equal(c.p, strstr(buf, "12x"));
}

static void test_bounds(void **state)
{
	/* the buffer ends in the middle of "123": scanning must stop at len */
	const char buf[] = "12345";
	struct cursor c;
	uint64_t v;

	(void)state;
	cursor_init(&c, buf, 3);
	assert_int_equal(scan_u64(&c, &v), 0);
	assert_int_equal(v, 123);
	assert_true(cursor_eof(&c));
	assert_int_equal(scan_u64(&c, &v), -EINVAL);
}

static void test_tokens_lines(void **state)
{
	const char buf[] = "a bb\tccc  \nline2 rest of it  \n";
	struct cursor c;
	const char *t;
	size_t n;

	(void)state;
	cursor_init(&c, buf, strlen(buf));
	n = scan_token(&c, &t);
	assert_int_equal(n, 1);
	n = scan_token(&c, &t);
	assert_int_equal(n, 2);
	assert_memory_equal(t, "bb", 2);
	n = scan_token(&c, &t);
	assert_int_equal(n, 3);
	assert_true(scan_at_eol(&c));
	scan_next_line(&c);
	assert_int_equal(c.line, 2);
	n = scan_token(&c, &t);
	assert_int_equal(n, 5);
	n = scan_rest(&c, &t);
	assert_int_equal(n, strlen("rest of it"));
	assert_memory_equal(t, "rest of it", n);
}

static void test_copy(void **state)
{
	char dst[4];

	(void)state;
	assert_true(scan_copy(dst, sizeof(dst), "abc", 3));
	assert_string_equal(dst, "abc");
	assert_false(scan_copy(dst, sizeof(dst), "abcd", 4));
	assert_string_equal(dst, "abc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_tokens_lines),
		cmocka_unit_test(test_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
