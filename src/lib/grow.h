/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growing arrays that keep their capacity: tables are reused sample after sample. */
#ifndef IOTRIAGE_GROW_H
#define IOTRIAGE_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

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

#endif
