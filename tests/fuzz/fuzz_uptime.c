// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the uptime parser on arbitrary bytes (no NUL terminator). */
#include <stddef.h>
#include <stdint.h>

#include "uptime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_error pe;
	struct uptime_raw t;
	uptime_parse((const char *)data, size, &t, &pe);
	return 0;
}
