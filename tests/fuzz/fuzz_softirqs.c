// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the softirqs parser on arbitrary bytes (no NUL terminator). */
#include <stddef.h>
#include <stdint.h>

#include "irqtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_error pe;
	struct irq_table t = { 0 };
	irqtab_parse((const char *)data, size, true, &t, &pe);
	irq_table_free(&t);
	return 0;
}
