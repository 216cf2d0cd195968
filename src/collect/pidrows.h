/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rows kept in ascending pid order (processes, the pids seen, their kept
 * descriptors, reaped credits, who each process is): the one binary
 * search over them. Pure.
 */
#ifndef IOTRIAGE_PIDROWS_H
#define IOTRIAGE_PIDROWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The row of n (each size bytes, an int32_t pid at pid_off, ascending by
 * it) whose pid is pid, or NULL. */
static inline void *pidrows_find(const void *rows, size_t n, size_t size, size_t pid_off,
				 int32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *row = (const char *)rows + mid * size;
		int32_t v;

		memcpy(&v, row + pid_off, sizeof(v));
		if (v == pid)
			return (void *)row;
		if (v < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

#endif
