// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: cgroup v2 io.stat (cgroup_iostat_parse) on arbitrary
 * bytes, no NUL terminator, with room for a few lines and for none.
 */
#include <stddef.h>
#include <stdint.h>

#include "cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgroup_io io[4];
	size_t n;

	cgroup_iostat_parse((const char *)data, size, io, 4, &n);
	cgroup_iostat_parse((const char *)data, size, io, 0, &n);
	return 0;
}
