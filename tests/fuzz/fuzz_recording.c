// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: what a flight recording's frame holds, after its CRC
 * (a recording is hostile input: anyone who could write it could make the
 * CRC match). The first byte chooses: even, the bytes are a payload for
 * snapshot_collector_unpack (the records and the /proc texts in them); odd, the
 * next two bytes are the length of a previous payload, followed by it and
 * a difference for recdiff_decode.
 */
#include <stddef.h>
#include <stdint.h>

#include "recdiff.h"
#include "snapshot.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct snapshot_collector c;
	static int opened;
	struct snapshot s = { 0 };
	struct strbuf out = { 0 };
	size_t n;

	if (size < 3)
		return 0;
	if (!(data[0] & 1)) {
		/* no file is read: the collector only lends its buffers */
		if (!opened && snapshot_collector_open("/", &c) == 0)
			opened = 1;
		if (opened)
			snapshot_collector_unpack(&c, data + 1, size - 1, &s);
		snapshot_free(&s);
		return 0;
	}
	n = (size_t)data[1] | (size_t)data[2] << 8;
	if (n > size - 3)
		n = size - 3;
	recdiff_decode((const char *)data + 3, n, (const char *)data + 3 + n, size - 3 - n, 1 << 20,
		       &out);
	sb_free(&out);
	return 0;
}
