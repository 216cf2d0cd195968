// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the diskstats parser on arbitrary bytes (no NUL terminator). */
#include <stddef.h>
#include <stdint.h>

#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_error pe;
	struct disk_table t = { 0 };
	diskstats_parse((const char *)data, size, &t, &pe);
	disk_table_free(&t);
	return 0;
}
