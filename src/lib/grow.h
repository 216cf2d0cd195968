/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growing arrays that keep their capacity: tables are reused sample after sample. */
#ifndef IOTRIAGE_GROW_H
#define IOTRIAGE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes *arr hold at least `need` elements of `size` bytes. 0 or -ENOMEM. */
static inline int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / size)
			return -ENOMEM;
		ncap *= 2;
	}
	n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* Makes *arr exactly n elements of `size` bytes, at least one (a realloc
 * to 0 may give NULL), as it was on failure: a table rebuilt whole each
 * time, with no capacity kept. 0 or -ENOMEM. */
static inline int grow_to(void **arr, size_t n, size_t size)
{
	void *a;

	if (n > SIZE_MAX / size)
		return -ENOMEM;
	a = realloc(*arr, (n ? n : 1) * size);
	if (!a)
		return -ENOMEM;
	*arr = a;
	return 0;
}

/* Copies n elements of `size` bytes from src into *arr (grown as needed):
 * a table's rows into another table reused sample after sample. 0 or
 * -ENOMEM (*arr then as it was). */
static inline int grow_copy(void **arr, size_t *cap, const void *src, size_t n, size_t size)
{
	if (grow(arr, cap, n, size) < 0)
		return -ENOMEM;
	if (n)
		memcpy(*arr, src, n * size);
	return 0;
}

/* Frees an array grown by grow(), its count and capacity back to 0: a
 * table emptied for good. */
static inline void grow_free(void **arr, size_t *n, size_t *cap)
{
	free(*arr);
	*arr = NULL;
	*n = *cap = 0;
}

#endif
