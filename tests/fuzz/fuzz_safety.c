// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the bench's readers of /proc/self/mountinfo and
 * /proc/swaps (src/workers/safety.c) on arbitrary bytes, against a family
 * with a whole disk, a partition and a dm holder, so both the major:minor
 * and the /dev/NAME, /dev/mapper/NAME matching paths run. The first byte
 * picks the parser; the rest is the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "safety.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct safety_family f;
	char why[SAFETY_WHY_MAX];
	const char *buf;

	if (!f.n) {
		f.dev[0] = (struct safety_dev){
			.name = "loop0", .major = 7, .minor = 0, .role = SAFETY_SELF
		};
		f.dev[1] = (struct safety_dev){
			.name = "loop0p1", .major = 259, .minor = 0, .role = SAFETY_PARTITION
		};
		f.dev[2] = (struct safety_dev){ .name = "dm-0",
						.dm_name = "vg-data",
						.major = 253,
						.minor = 0,
						.role = SAFETY_HOLDER };
		f.n = 3;
		f.npartitions = 1;
		f.nholders = 1;
	}
	if (size < 1)
		return 0;
	buf = (const char *)data + 1;
	if (data[0] & 1)
		safety_swaps_find(buf, size - 1, &f, why, sizeof(why));
	else
		safety_mountinfo_find(buf, size - 1, &f, why, sizeof(why));
	/* a small why buffer: the message must be cut, never overflow */
	safety_mountinfo_find(buf, size - 1, &f, why, 8);
	return 0;
}
