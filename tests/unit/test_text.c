// SPDX-License-Identifier: GPL-2.0-or-later
/* text.c: strict UTF-8, cutting on a character boundary, and the terminal
 * escaping every text output of iotriage goes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "text.h"

static void test_utf8(void **state)
{
	static const char *const good[] = { "",
					    "abc",
					    "\xc3\xa9",
					    "\xe2\x82\xac",
					    "\xf0\x9f\x98\x80",
					    "\xf4\x8f\xbf\xbf",
					    "\xed\x9f\xbf",
					    "a\0b" };
	static const char *const bad[] = { "\x80",
					   "\xc0\xaf",
					   "\xc1\xbf",
					   "\xe0\x80\xaf",
					   "\xed\xa0\x80",
					   "\xf4\x90\x80\x80",
					   "\xf5\x80\x80\x80",
					   "\xc3",
					   "\xe2\x82",
					   "\xff" };
	(void)state;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(text_utf8_valid(good[i], i == 7 ? 3 : strlen(good[i])));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (text_utf8_valid(bad[i], strlen(bad[i])))
			fail_msg("bad[%zu] taken for UTF-8", i);
	/* cut: never inside a character, never more than the open one */
	assert_int_equal(text_utf8_cut("ab\xe2\x82\xac", 5), 5);
	assert_int_equal(text_utf8_cut("ab\xe2\x82\xac", 4), 2);
	assert_int_equal(text_utf8_cut("ab\xe2\x82\xac", 3), 2);
	assert_int_equal(text_utf8_cut("ab\xf0\x9f\x98\x80", 5), 2);
	assert_int_equal(text_utf8_cut("ab", 2), 2);
	assert_int_equal(text_utf8_cut("\x80\x80\x80\x80", 4), 4);
}

static void check(const char *in, size_t n, unsigned flags, const char *want)
{
	struct strbuf sb = { 0 };

	text_escape(&sb, in, n ? n : strlen(in), flags);
	if (strcmp(sb_cstr(&sb), want) != 0)
		fail_msg("escape: got '%s', want '%s'", sb_cstr(&sb), want);
	sb_free(&sb);
}

static void test_escape(void **state)
{
	char buf[12];

	(void)state;
	check("plain caf\xc3\xa9 \xe2\x82\xac", 0, 0, "plain caf\xc3\xa9 \xe2\x82\xac");
	check("\x1b]0;owned\x07\x1b[2J", 0, 0, "\\x1b]0;owned\\x07\\x1b[2J");
	check("a\nb\tc\rd", 0, 0, "a\\x0ab\\x09c\\x0dd");
	check("a\nb\tc\rd", 0, TEXT_KEEP_NL, "a\nb\tc\\x0dd");
	check("\x7f \xc2\x9b"
	      "31m \xc2\xa0",
	      0, 0, "\\x7f \\xc2\\x9b31m \xc2\xa0");
	check("\x9b"
	      "31m \xff \xc3",
	      0, 0, "\\x9b31m \\xff \\xc3");
	check("a\0b", 3, 0, "a\\x00b");
	/* text_safe: bounded, cut on a whole escape or character */
	assert_string_equal(text_safe("ab\x1b[1m", buf, sizeof(buf)), "ab\\x1b[1m");
	assert_string_equal(text_safe("abcdefgh\x1b", buf, sizeof(buf)), "abcdefgh");
	assert_string_equal(text_safe("abcdefghi\xe2\x82\xac", buf, sizeof(buf)), "abcdefghi");
	assert_string_equal(text_safe("abcdefgh\xe2\x82\xac", buf, sizeof(buf)),
			    "abcdefgh\xe2\x82\xac");
}

/* What sh makes of word: its one argument, printed by printf, or NULL when
 * it is not exactly one argument. */
static char *through_sh(const char *word, char *out, size_t size)
{
	struct strbuf cmd = { 0 };
	size_t n;
	FILE *p;

	sb_puts(&cmd, "set -- ");
	sb_puts(&cmd, word);
	sb_puts(&cmd, "; [ $# -eq 1 ] && printf '%s' \"$1\"");
	assert_int_equal(cmd.err, 0);
	p = popen(sb_cstr(&cmd), "r");
	assert_non_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	sb_free(&cmd);
	return pclose(p) == 0 ? out : NULL;
}

static void test_shell_word(void **state)
{
	static const char *const plain[] = {
		"0-3,8", "mq-deadline", "/proc/irq/24/smp_affinity_list", "eth0", "ff,00000000",
		"a=b",	 "50%"
	};
	static const char *const hostile[] = {
		"sdb;reboot", "$(id)", "`id`",	"a b",	 "",	"it's", "'",	"''",
		"a\\b",	      "!x",    "*",	"~root", "=ls", "%1",	"a\nb", "a|b&c",
		"x>y",	      "\"q\"", "{a,b}", "[ab]",	 "#c",	"a\tb",
	};
	struct strbuf sb = { 0 };
	char out[256];

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		sb_reset(&sb);
		text_shell_word(&sb, plain[i]);
		assert_string_equal(sb_cstr(&sb), plain[i]); /* what users read stays as it is */
	}
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		sb_reset(&sb);
		text_shell_word(&sb, hostile[i]);
		assert_string_not_equal(sb_cstr(&sb), hostile[i]);
		assert_non_null(through_sh(sb_cstr(&sb), out, sizeof(out)));
		assert_string_equal(out, hostile[i]);
	}
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_shell_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
