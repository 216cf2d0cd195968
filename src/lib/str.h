/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixed-size C strings: the one copy-with-truncation helper the fixed
 * buffers of findings, topology labels and journal entries share, one
 * printf and one printf-append, and the
 * number a directory entry's name is (an IRQ, a queue).
 */
#ifndef IOTRIAGE_STR_H
#define IOTRIAGE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Copies src into dst[size] (size > 0), truncating at size - 1 bytes, and
 * always NUL-terminates. For labels and messages where a clipped text is
 * still useful; never for paths or anything compared afterwards.
 */
void str_copy(char *dst, size_t size, const char *src);

/* printf's output into buf[size], truncated as snprintf does: for ids,
 * labels and sysfs paths, where a clipped one is acceptable (a clipped
 * path simply fails to open). */
void str_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Appends printf's output to the NUL-terminated text in buf[size],
 * truncating as snprintf does; nothing when buf is already full. For
 * messages built piece by piece (a finding's note, a status line). */
void str_cat(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* True when s is all decimal digits (at least one) worth at most
 * UINT32_MAX: a sysfs name such as msi_irqs/35 or mq/3; *ret set then. */
bool str_u32(const char *s, uint32_t *ret);

#endif
