// SPDX-License-Identifier: GPL-2.0-or-later
/* The wrappers behind alloc_count(): each call counted, then the libc's. */
#include <stddef.h>

#include "alloc_count.h"

static unsigned long n_allocs;

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t a, size_t b);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	n_allocs++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t a, size_t b)
{
	n_allocs++;
	return __real_calloc(a, b);
}

void *__wrap_realloc(void *p, size_t n)
{
	n_allocs++;
	return __real_realloc(p, n);
}

unsigned long alloc_count(void)
{
	return n_allocs;
}
