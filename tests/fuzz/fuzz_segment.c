// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: a flight recording's segment file as the reader meets
 * it (`iotriage replay FILE` of a file someone handed over): header,
 * frame headers, lengths, CRCs, zstd, stored frames, the delta chain,
 * seeking. The first byte is the harness's: bit 0 set, the CRCs of the
 * header and of every frame the walk finds are made right first, so that
 * the mutations reach what lies behind them; the rest is the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

/* The CRCs as a writer would have made them, where the layout allows. */
static void fix_crcs(unsigned char *b, size_t n)
{
	size_t off;

	if (n < REC_FILE_HDR_SIZE)
		return;
	put_le32(b + 252, rec_crc32c(0, b, 252));
	/* version 5: the header's copy */
	if (n >= 2 * REC_FILE_HDR_SIZE && !memcmp(b + REC_FILE_HDR_SIZE, b, 8))
		put_le32(b + REC_FILE_HDR_SIZE + 252, rec_crc32c(0, b + REC_FILE_HDR_SIZE, 252));
	off = le32(b + 12);
	while (off >= REC_FILE_HDR_SIZE && off <= n && n - off >= REC_FILE_FRAME_HDR) {
		size_t z = le32(b + off + 8);

		if (z > n - off - REC_FILE_FRAME_HDR)
			break;
		put_le32(b + off + 48,
			 rec_crc32c(rec_crc32c(0, b + off, 48), b + off + REC_FILE_FRAME_HDR, z));
		off += REC_FILE_FRAME_HDR + z;
	}
}

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recreader *r;
	struct recframe f;
	unsigned char *b;
	int64_t first = 0, last = 0;
	char why[256];
	FILE *fp;
	int n = 0;

	if (size < 1 || size > ((size_t)4 << 20))
		return 0;
	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/fuzz_segment-XXXXXX");
		fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
		atexit(remove_file);
	}
	b = malloc(size - 1 ? size - 1 : 1);
	if (!b)
		return 0;
	memcpy(b, data + 1, size - 1);
	if (data[0] & 1)
		fix_crcs(b, size - 1);
	fp = fopen(path, "wb");
	if (!fp || fwrite(b, 1, size - 1, fp) != size - 1)
		abort();
	fclose(fp);
	free(b);
	if (recreader_open(path, &r, why, sizeof(why)) < 0)
		return 0;
	while (n++ < 4096 && recreader_next(r, &f) > 0)
		if (f.len && ((const unsigned char *)f.payload)[f.len - 1] == 0xff)
			break; /* touch the payload's last byte: ASan checks it */
	recreader_take_problems(r, NULL);
	if (recreader_span(r, &first, &last) > 0) {
		/* halves first: a hostile recording's times overflow a difference */
		recreader_seek(r, first / 2 + last / 2, RECREADER_WITH_PREV, NULL);
		while (n++ < 8192 && recreader_next(r, &f) > 0)
			;
		recreader_seek(r, last, RECREADER_BEFORE, NULL);
		recreader_next(r, &f);
	}
	recreader_take_problems(r, NULL);
	recreader_close(r);
	return 0;
}
