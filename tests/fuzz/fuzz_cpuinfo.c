// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the /proc/cpuinfo vendor/family/model parser on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "turbo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct turbo_info in;

	memset(&in, 0, sizeof(in));
	if (turbo_cpuinfo_parse((const char *)data, size, &in) == 0 &&
	    strnlen(in.vendor, sizeof(in.vendor)) == sizeof(in.vendor))
		__builtin_trap(); /* vendor must come back NUL-terminated */
	return 0;
}
