// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The incident report's reading of sample documents (tui/report_json.c,
 * tui/report_data.c): the in-place walk of a document's text, its strings'
 * escapes, every prefix of a real document refused or read without going
 * past it (ASan in CI), and the reduction to columns keeping each
 * column's min and max. No I/O but the fixture, no clock.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_data.h"
#include "report_json.h"
#include "strbuf.h"

#define SAMPLE FIXTURES_DIR "/trace-live/sample.json"

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

static void test_walk(void **state)
{
	static const char doc[] = "{\"a\": 1.5, \"b\":[1,{\"c\":\"x,}]\\\"\"},3], \"d\":true,"
				  "\"e\":null}";
	const char *k, *v, *ve;
	struct rj_it it;
	size_t kn, n = 0;
	double x;
	bool b;

	(void)state;
	assert_int_equal(rj_open(doc, doc + strlen(doc), &it), 0);
	while (rj_next(&it, &k, &kn, &v, &ve) > 0) {
		if (rj_key(k, kn, "a"))
			assert_true(rj_num(v, ve, &x) && x == 1.5);
		if (rj_key(k, kn, "b"))
			assert_int_equal(ve - v, (ptrdiff_t)strlen("[1,{\"c\":\"x,}]\\\"\"},3]"));
		if (rj_key(k, kn, "d"))
			assert_true(rj_bool(v, ve, &b) && b);
		if (rj_key(k, kn, "e"))
			assert_false(rj_num(v, ve, &x));
		n++;
	}
	assert_int_equal(n, 4);
}

static void test_strings(void **state)
{
	static const char s1[] = "\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\ud800x\\n\"";
	char buf[64];

	(void)state;
	assert_true(rj_str(s1, s1 + strlen(s1), buf, sizeof(buf)));
	assert_string_equal(buf, "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx\n");
	/* cut to fit, never past the buffer */
	assert_true(rj_str(s1, s1 + strlen(s1), buf, 4));
	assert_string_equal(buf, "a\"b");
	assert_false(rj_str("\"\\u12\"", "\"\\u12\"" + 6, buf, sizeof(buf)));
	assert_false(rj_str("12", "12" + 2, buf, sizeof(buf)));
}

/* Every prefix of a real document, and the document with each byte
 * changed: refused or taken, never read past its end (ASan). */
static void test_prefixes(void **state)
{
	struct report_data d = { 0 };
	struct strbuf scratch = { 0 };
	size_t len;
	char *doc = slurp(SAMPLE, &len);
	char *cut;

	(void)state;
	assert_int_equal(rd_add_text(&d, doc, len, &scratch), 1);
	assert_true(d.ndisks > 0 && d.ncpus > 0);
	for (size_t n = 0; n < len; n += 7) {
		cut = malloc(n + 1); /* NUL-terminated, as rd_add_text wants */
		assert_non_null(cut);
		memcpy(cut, doc, n);
		cut[n] = '\0';
		assert_true(rd_add_text(&d, cut, n, &scratch) >= 0);
		free(cut);
	}
	for (size_t i = 0; i < len; i += 13) {
		char was = doc[i];

		doc[i] = "\"{}[],\\:"[i % 9]; /* the ninth: a NUL inside the text */
		assert_true(rd_add_text(&d, doc, len, &scratch) >= 0);
		doc[i] = was;
	}
	rd_free(&d);
	sb_free(&scratch);
	free(doc);
}

/* 1000 samples into 10 columns: each column's min and max are its
 * samples', the mean weighted by interval; the peak survives. */
static void test_reduce(void **state)
{
	struct report_data d = { 0 };
	struct strbuf scratch = { 0 };
	struct rd_cols c;
	double mn, mean, mx;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		char doc[256];
		int n =
		    snprintf(doc, sizeof(doc),
			     "{\"timestamp_ms\":%d,\"interval_ms\":%d,\"disks\":[{\"disk_device\":"
			     "\"sda\",\"valid\":true,\"util\":%d}]}",
			     1000 * (i + 1), i % 2 ? 1000 : 3000,
			     i == 567 ? 100
			     : i % 2  ? 10
				      : 20);

		assert_int_equal(rd_add_text(&d, doc, (size_t)n, &scratch), 1);
	}
	assert_int_equal(rd_columns(&d, 10, &c), 0);
	assert_true(c.reduced);
	assert_int_equal(c.n, 10);
	for (size_t k = 0; k < c.n; k++) {
		assert_true(rd_reduce(&d, d.disks[0].v[RD_UTIL], &c, k, &mn, &mean, &mx));
		assert_true(mn == 10);
		assert_true(mx == (c.first[k] <= 567 && 567 <= c.last[k] ? 100 : 20));
		if (mx == 20) /* 20 for 3 s, 10 for 1 s */
			assert_true(fabs(mean - 17.5) < 1e-9);
	}
	rd_cols_free(&c);
	rd_free(&d);
	sb_free(&scratch);
}

/* A restart (a document without interval_ms: the first of a run) starts a
 * column, as compaction keeps the first sample of each run */
static void test_restart(void **state)
{
	struct report_data d = { 0 };
	struct strbuf scratch = { 0 };
	struct rd_cols c;
	bool seen = false;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		char doc[160];
		int n = snprintf(doc, sizeof(doc), "{\"timestamp_ms\":%d%s}", 1000 * (i + 1),
				 i == 555 ? "" : ",\"interval_ms\":1000");

		assert_int_equal(rd_add_text(&d, doc, (size_t)n, &scratch), 1);
	}
	assert_int_equal(rd_columns(&d, 10, &c), 0);
	for (size_t k = 0; k < c.n; k++) {
		assert_false(c.first[k] < 555 && c.last[k] >= 555);
		seen |= c.first[k] == 555;
	}
	assert_true(seen);
	assert_true(c.n >= 10 && c.n <= 11);
	rd_cols_free(&c);
	rd_free(&d);
	sb_free(&scratch);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),	 cmocka_unit_test(test_strings),
		cmocka_unit_test(test_prefixes), cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
