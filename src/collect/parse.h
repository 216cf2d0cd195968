/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers: bytes of one /proc file -> raw tables. Pure (no I/O, no clock),
 * so they are fuzzed and unit-tested on bytes. Tables keep their capacity
 * between calls: after the first sample, parsing allocates nothing.
 */
#ifndef IOTRIAGE_PARSE_H
#define IOTRIAGE_PARSE_H

#include <stddef.h>

#include "iotriage/types.h"
#include "scan.h"

/*
 * Each parser fills *t from (buf, len), reusing its storage. Returns 0, or
 * -EBADMSG (malformed; *err says where), -ENOMEM. On failure the table's
 * contents are unspecified but it stays valid for clear/free and reuse.
 */
int diskstats_parse(const char *buf, size_t len, struct disk_table *t, struct parse_error *err);
int stat_parse(const char *buf, size_t len, struct stat_raw *t, struct parse_error *err);
/* /proc/interrupts (softirqs = false) or /proc/softirqs (softirqs = true). */
int irqtab_parse(const char *buf, size_t len, bool softirqs, struct irq_table *t,
		 struct parse_error *err);
int uptime_parse(const char *buf, size_t len, struct uptime_raw *ret, struct parse_error *err);

void disk_table_free(struct disk_table *t);

/* (Re)builds t's index by major:minor for disk_table_find(); 0 or -ENOMEM
 * (the table is then searched linearly). */
int disk_table_index(struct disk_table *t);
void stat_raw_free(struct stat_raw *t);
void irq_table_free(struct irq_table *t);

/* Deep copies (dst's storage reused); 0 or -ENOMEM. */
int disk_table_copy(struct disk_table *dst, const struct disk_table *src);
int stat_raw_copy(struct stat_raw *dst, const struct stat_raw *src);
int irq_table_copy(struct irq_table *dst, const struct irq_table *src);

/* Lookups by identity; NULL when absent. hint (may be NULL) is the row index
 * to try first and is advanced past a hit, so pairing two tables in the
 * same order is linear. A disk table indexed by disk_table_index() (as
 * diskstats_parse() leaves it) is otherwise searched in O(log n); the first
 * of several rows with one major:minor is the one found. */
const struct disk_raw *disk_table_find(const struct disk_table *t, uint32_t major, uint32_t minor,
				       size_t *hint);
const struct cpu_raw *stat_find_cpu(const struct stat_raw *t, int cpu);
const struct irq_row *irq_table_find(const struct irq_table *t, const char *label, size_t *hint);
/* Column of cpu in t's header, or -1. */
int irq_table_cpu_col(const struct irq_table *t, int cpu);

static inline const uint64_t *irq_row_counts(const struct irq_table *t, const struct irq_row *r)
{
	return t->counts + r->counts_off;
}

#endif
