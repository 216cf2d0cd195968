// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's pure parts: CRC32C's check value, the delta frame
 * codec (recdiff) round-tripping what /proc prints, and refusing what a
 * damaged or hostile recording holds without reading outside its bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "recdiff.h"
#include "recfile.h"
#include "strbuf.h"

static void test_crc32c(void **state)
{
	(void)state;
	/* the check value of CRC-32C (RFC 3720, B.4) */
	assert_int_equal(crc32c(0, "123456789", 9), 0xE3069283u);
	/* in pieces: the same */
	assert_int_equal(crc32c(crc32c(0, "12345", 5), "6789", 4), 0xE3069283u);
	assert_int_equal(crc32c(0, "", 0), 0);
}

/* Bit by bit, the definition: what the tables and the CPU's instruction
 * (whichever this machine uses) must both give. */
static uint32_t crc32c_bits(uint32_t crc, const unsigned char *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
	}
	return ~crc;
}

static void test_crc32c_every_length(void **state)
{
	unsigned char buf[600];
	uint32_t x = 12345;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	/* every length and alignment a frame's tail or start can have */
	for (size_t off = 0; off < 9; off++)
		for (size_t n = 0; n + off <= sizeof(buf); n += n < 40 ? 1 : 37)
			assert_int_equal(crc32c(7, buf + off, n), crc32c_bits(7, buf + off, n));
}

static void roundtrip_n(const char *a, size_t an, const char *b, size_t bn)
{
	struct strbuf d = { 0 }, out = { 0 };

	assert_int_equal(recdiff_encode(a, an, b, bn, &d), 0);
	assert_int_equal(recdiff_decode(a, an, d.buf ? d.buf : "", d.len, 1 << 20, &out), 0);
	assert_int_equal(out.len, bn);
	assert_memory_equal(out.buf ? out.buf : "", b, out.len);
	sb_free(&d);
	sb_free(&out);
}

static void roundtrip(const char *a, const char *b)
{
	roundtrip_n(a, strlen(a), b, strlen(b));
}

static void test_recdiff_roundtrip(void **state)
{
	(void)state;
	roundtrip("", "");
	roundtrip("", "cpu 1 2 3\n");
	roundtrip("cpu 1 2 3\n", "");
	roundtrip("cpu 1 2 3\ncpu0 1 2 3\n", "cpu 1 2 3\ncpu0 1 2 3\n");
	/* counters up, down (a reset), across a digit, the padding shifting */
	roundtrip("cpu 10 20 30\nintr 99 1\n", "cpu 12 19 30\nintr 100 1\n");
	roundtrip(" 24:         99          0   PCI-MSI 1-edge  nvme0q1\n",
		  " 24:        100          0   PCI-MSI 1-edge  nvme0q1\n");
	/* leading zeros and fractions are kept as bytes */
	roundtrip("12.05 30.01\n", "12.06 30.09\n");
	roundtrip("x 007\n", "x 008\n");
	/* 20 digits: more than a uint64 reads back as printed */
	roundtrip("n 99999999999999999999\n", "n 99999999999999999998\n");
	roundtrip("n 18446744073709551615 0\n", "n 0 18446744073709551615\n");
	/* no final newline, lines added and removed */
	roundtrip("a 1\nb 2", "a 1\nb 3");
	roundtrip("a 1\nb 2\n", "a 1\nc 9\nb 2\n");
	/* a mostly unchanged line (sparse) and a fully changed one */
	roundtrip("L 0 0 0 0 0 0 0 0 0 5 0 0\n", "L 0 0 0 0 0 0 0 0 0 6 0 0\n");
	roundtrip("L 1 2 3 4 5 6\n", "L 2 3 4 5 6 7\n");
	/* text right after a number changing, a number growing into text */
	roundtrip("12a 5\n", "12b 5\n");
	roundtrip("12 x\n", "123 x\n");
	roundtrip("a 5\n", "a x\n");
	roundtrip("x 12\n", "x 1\n");
	/* unchanged odd numbers beside a changed one */
	roundtrip("007 0.05 99999999999999999999 5\n", "007 0.05 99999999999999999999 6\n");
	/* binary bytes (the payload's record headers) */
	roundtrip("\x01\x00\x0a\x00 7\n\xff", "\x01\x00\x0a\x00 8\n\xfe");
}

/* Long lines of numbers (a 256-CPU /proc/interrupts row is ~2.8 KB) with a
 * few changed: the encoder counts the unchanged numbers eight bytes at a
 * time, so runs cross word boundaries at every offset; a miscount would
 * put a change on the wrong number and fail the round trip. */
static void test_recdiff_long_lines(void **state)
{
	static char a[8192], b[8192];

	(void)state;
	srand(7);
	for (int round = 0; round < 400; round++) {
		size_t an = 0, bn = 0;
		int lines = 1 + rand() % 4;

		for (int l = 0; l < lines; l++) {
			int cols = 1 + rand() % 120, width = 1 + rand() % 12;

			an += (size_t)snprintf(a + an, sizeof(a) - an, "%3d:", l);
			bn += (size_t)snprintf(b + bn, sizeof(b) - bn, "%3d:", l);
			for (int c = 0; c < cols && an < 7000 && bn < 7000; c++) {
				unsigned v = (unsigned)rand() % 100000, w = v;
				int pad = rand() % 3 ? width : 1; /* "%10u" or " %u" */

				if (rand() % 10 == 0)
					w = v + (unsigned)rand() % 1000;
				an += (size_t)snprintf(a + an, sizeof(a) - an, " %*u", pad, v);
				bn += (size_t)snprintf(b + bn, sizeof(b) - bn, " %*u", pad, w);
			}
			an += (size_t)snprintf(a + an, sizeof(a) - an, "  IR-PCI-MSI x\n");
			bn += (size_t)snprintf(b + bn, sizeof(b) - bn, "  IR-PCI-MSI x\n");
		}
		roundtrip_n(a, an, b, bn);
	}
}

static void test_recdiff_hostile(void **state)
{
	static const char prev[] = "cpu 1 2 3\nintr 5\n";
	struct strbuf out = { 0 };
	char junk[64];

	(void)state;
	/* unknown op, truncated varint, SAME past the end, RAW overrunning */
	assert_int_equal(recdiff_decode(prev, sizeof(prev) - 1, "\x09", 1, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(recdiff_decode(prev, sizeof(prev) - 1, "\x01\x80", 2, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(recdiff_decode(prev, sizeof(prev) - 1, "\x01\x7f", 2, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(recdiff_decode(prev, sizeof(prev) - 1,
					"\x03\x7f"
					"ab",
					4, 1 << 20, &out),
			 -EBADMSG);
	/* NUMS with too few changes; SPARSE with changes for numbers not there */
	assert_int_equal(recdiff_decode(prev, sizeof(prev) - 1, "\x02\x00", 2, 1 << 20, &out),
			 -EBADMSG);
	assert_int_equal(
	    recdiff_decode(prev, sizeof(prev) - 1, "\x04\x01\x05\x02", 4, 1 << 20, &out), -EBADMSG);
	/* the output bound */
	assert_int_equal(recdiff_decode(prev, sizeof(prev) - 1, "\x01\x02", 2, 4, &out), -EFBIG);
	/* random bytes never crash (ASan builds check the reads) */
	srand(1);
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand() % (int)sizeof(junk));

		for (size_t k = 0; k < n; k++)
			junk[k] = (char)(rand() % 6);
		recdiff_decode(prev, sizeof(prev) - 1, junk, n, 1 << 16, &out);
	}
	sb_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_crc32c_every_length),
		cmocka_unit_test(test_recdiff_roundtrip),
		cmocka_unit_test(test_recdiff_long_lines),
		cmocka_unit_test(test_recdiff_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
