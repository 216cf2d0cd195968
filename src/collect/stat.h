/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/stat (stat.c): bytes -> struct stat_raw (the cpu lines, intr,
 * softirq, ctxt, procs_*), copies and lookups.
 */
#ifndef IOTRIAGE_STAT_H
#define IOTRIAGE_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "scan.h"

int stat_parse(const char *buf, size_t len, struct stat_raw *t, struct parse_error *err);
void stat_raw_free(struct stat_raw *t);
/* Deep copy (dst's storage reused); 0 or -ENOMEM. */
int stat_raw_copy(struct stat_raw *dst, const struct stat_raw *src);
/* The line of cpu; NULL when absent (offline). */
const struct cpu_raw *stat_find_cpu(const struct stat_raw *t, int cpu);

#endif
