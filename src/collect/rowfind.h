/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rows kept in ascending order of an int32 key (processes and what is kept
 * per pid: seen, descriptors, reaped credits, who each is; CPUs): the one
 * binary search over them. Pure.
 */
#ifndef IOTRIAGE_ROWFIND_H
#define IOTRIAGE_ROWFIND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(int) == sizeof(int32_t), "an int key is read as an int32_t");

/* The row of n (each size bytes, an int32_t or int key at key_off,
 * ascending by it) whose key is key, or NULL. */
static inline void *rowfind_i32(const void *rows, size_t n, size_t size, size_t key_off,
				int32_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *row = (const char *)rows + mid * size;
		int32_t v;

		memcpy(&v, row + key_off, sizeof(v));
		if (v == key)
			return (void *)row;
		if (v < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

#endif
