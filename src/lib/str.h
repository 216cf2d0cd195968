/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixed-size C strings: the one copy-with-truncation helper the fixed
 * buffers of findings, topology labels and journal entries share.
 */
#ifndef IOTRIAGE_STR_H
#define IOTRIAGE_STR_H

#include <stddef.h>

/*
 * Copies src into dst[size] (size > 0), truncating at size - 1 bytes, and
 * always NUL-terminates. For labels and messages where a clipped text is
 * still useful; never for paths or anything compared afterwards.
 */
void str_copy(char *dst, size_t size, const char *src);

#endif
