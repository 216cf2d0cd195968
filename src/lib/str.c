// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fixed-size C strings (str.h). No allocation, no I/O.
 */
#include <string.h>

#include "str.h"

void str_copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}
