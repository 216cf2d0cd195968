// SPDX-License-Identifier: GPL-2.0-or-later
/* scan.c: numbers, tokens and line handling over bounded buffers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "scan.h"
#include "str.h"

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

/*
 * scan_count_fast agrees with scan_u64 (value and cursor) whenever it takes
 * a field, and takes every " %10u" field below 10^8: checked over fields of
 * every width and shape, including near-misses (inner spaces, letters,
 * 9 and 10 digits, a digit right after, a field cut by the buffer's end).
 */
static void check_field(const char *buf, size_t len, bool must_take)
{
	struct cursor a, b;
	uint64_t va = 0, vb = 0;
	bool took;

	cursor_init(&a, buf, len);
	cursor_init(&b, buf, len);
	took = scan_count_fast(&a, &va);
	if (must_take)
		assert_true(took);
	if (!took) {
		assert_ptr_equal(a.p, buf);
		return;
	}
	assert_int_equal(scan_u64(&b, &vb), 0);
	assert_int_equal(va, vb);
	assert_ptr_equal(a.p, b.p);
}

static void test_count_fast(void **state)
{
	static const char tails[] = " \n\t\0x9";
	char buf[32];
	uint64_t seed = 88172645463325252ULL;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		uint64_t v;
		int width;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		v = seed % 10000000000ULL;
		if (i % 3 == 0)
			v %= 1000;
		if (i % 7 == 0)
			v = 0;
		width = snprintf(buf, sizeof(buf), " %10llu", (unsigned long long)v);
		assert_int_equal(width, 11);
		buf[11] = tails[i % (sizeof(tails) - 1)];
		check_field(buf, 12, v < 100000000ULL && buf[11] != 'x' && buf[11] != '9');
		check_field(buf, 11, v < 100000000ULL);
		/* one byte damaged anywhere: never a different number than scan_u64 */
		buf[1 + (int)(seed >> 40) % 10] = (seed >> 20) & 1 ? ' ' : 'a';
		check_field(buf, 12, false);
	}
	check_field("     12 34", 10, false); /* too short */
	check_field("      12 34 ", 12, false);
	check_field("          7", 11, true);
}

/* A directory entry's name as a number: digits only, 32 bits. */
static void test_str_u32(void **state)
{
	static const char *const bad[] = {
		"", "4294967296", "99999999999999999999", "3a", "-1", "+1", " 1", "1 ",
	};
	uint32_t v = 7;

	(void)state;
	assert_true(str_u32("0", &v));
	assert_int_equal(v, 0);
	assert_true(str_u32("035", &v));
	assert_int_equal(v, 35);
	assert_true(str_u32("4294967295", &v));
	assert_int_equal(v, UINT32_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_false(str_u32(bad[i], &v));
		assert_int_equal(v, 7); /* untouched */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),    cmocka_unit_test(test_count_fast),
		cmocka_unit_test(test_bounds), cmocka_unit_test(test_tokens_lines),
		cmocka_unit_test(test_copy),   cmocka_unit_test(test_str_u32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
