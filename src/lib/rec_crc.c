// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_crc: the CRC32C (Castagnoli) of the recorder's segment and frame
 * headers and payloads: SSE4.2's crc32 instruction where the CPU has it,
 * else slicing by 8 (both give the same bits).
 *
 * One of the flight recorder's files (doc/map.md, src/lib): rec_crc.c the
 * checksum, rec_segment.c the segments' names and listing, recwriter.c
 * writes, recwriter_thread.c the writer's thread, recwriter_compact.c
 * seals and compacts, recreader.c reads; rec_file_int.h is what they
 * share, rec_file.h the interface (doc/recording.md).
 */
#include <string.h>

#include "rec_file_int.h"

/* ---- CRC32C ---- */

static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] =
			    (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The CPU's crc32 instruction (SSE4.2) computes this very CRC: a frame's
 * 500 bytes in ~50 ns, where the tables took microseconds with the cache
 * cold, as it is once a second. Same bits as the tables (unit test). */
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const unsigned char *p,
							    size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;

		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	while (len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#define CRC_HW 1
#endif

uint32_t rec_crc32c(uint32_t crc, const void *buf, size_t len)
{
	/* 1 tables ready, 2 the instruction */
	static int ready;
	const unsigned char *p = buf;
	int how = __atomic_load_n(&ready, __ATOMIC_ACQUIRE);

	/* idempotent: two threads racing here write the same values */
	if (!how) {
		crc_init();
		how = 1;
#ifdef CRC_HW
		if (__builtin_cpu_supports("sse4.2"))
			how = 2;
#endif
		__atomic_store_n(&ready, how, __ATOMIC_RELEASE);
	}
	crc = ~crc;
#ifdef CRC_HW
	if (how == 2)
		return ~crc32c_hw(crc, p, len);
#endif
	/* slicing by 8: ~1.5 GB/s, so checking a 16 MiB segment is ~10 ms */
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);

		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
		      crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
		      crc_table[3][p[4]] ^ crc_table[2][p[5]] ^ crc_table[1][p[6]] ^
		      crc_table[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_table[0][(crc ^ *p++) & 0xff];
	return ~crc;
}
