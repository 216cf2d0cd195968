// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fixed-size C strings (str.h). No allocation, no I/O.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "str.h"

void str_copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

bool str_u32(const char *s, uint32_t *ret)
{
	uint64_t v = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*ret = (uint32_t)v;
	return true;
}

void str_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

void str_cat(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strnlen(buf, size);
	va_list ap;

	if (len + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}
