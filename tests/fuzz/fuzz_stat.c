// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the stat parser on arbitrary bytes (no NUL terminator). */
#include <stddef.h>
#include <stdint.h>

#include "stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_error pe;
	struct stat_raw t = { 0 };
	stat_parse((const char *)data, size, &t, &pe);
	stat_raw_free(&t);
	return 0;
}
