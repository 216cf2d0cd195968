/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Heap allocations counted: a program linked with alloc_count_dep (meson:
 * malloc, calloc and realloc wrapped at link time, -Wl,--wrap) reads how
 * many its own code made, to show a steady state that allocates nothing.
 */
#ifndef IOTRIAGE_ALLOC_COUNT_H
#define IOTRIAGE_ALLOC_COUNT_H

/* malloc, calloc and realloc calls so far */
unsigned long alloc_count(void);

#endif
