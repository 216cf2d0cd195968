// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: cgroup v2 io.stat (cgroup_iostat_parse) and cgroup v1
 * blkio.throttle.io_service_bytes + io_serviced (cgroup_blkio_parse) on
 * arbitrary bytes, no NUL terminator, with room for a few lines and for
 * none. For blkio the input is split at its first NUL: the bytes file
 * before it, the IOs file after (the whole input as both when it has none).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *nul = memchr(s, '\0', size);
	size_t a = nul ? (size_t)(nul - s) : size;
	const char *ios = nul ? nul + 1 : s;
	size_t b = nul ? size - a - 1 : size;
	struct cgroup_io io[4];
	size_t n;

	cgroup_iostat_parse(s, size, io, 4, &n);
	cgroup_iostat_parse(s, size, io, 0, &n);
	cgroup_blkio_parse(s, a, ios, b, io, 4, &n);
	cgroup_blkio_parse(s, a, ios, b, io, 0, &n);
	return 0;
}
