/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/diskstats (diskstats.c): bytes -> struct disk_table, its index by
 * major:minor, copies and lookups.
 */
#ifndef IOTRIAGE_DISKSTATS_H
#define IOTRIAGE_DISKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "scan.h"

/*
 * Fills *t from (buf, len), reusing its storage (after the first sample,
 * parsing allocates nothing). Pure: no I/O, no clock, fuzzed. Returns 0, or
 * -EBADMSG (malformed; *err says where), -ENOMEM. On failure the table's
 * contents are unspecified but it stays valid for free and reuse.
 */
int diskstats_parse(const char *buf, size_t len, struct disk_table *t, struct parse_error *err);
void disk_table_free(struct disk_table *t);
/* (Re)builds t's index by major:minor for disk_table_find(); 0 or -ENOMEM
 * (the table is then searched linearly). */
int disk_table_index(struct disk_table *t);
/* Deep copy (dst's storage reused); 0 or -ENOMEM. */
int disk_table_copy(struct disk_table *dst, const struct disk_table *src);
/* By identity; NULL when absent. hint (may be NULL) is the row index to try
 * first and is advanced past a hit, so pairing two tables in the same order
 * is linear. A table indexed by disk_table_index() (as diskstats_parse()
 * leaves it) is otherwise searched in O(log n); the first of several rows
 * with one major:minor is the one found. */
const struct disk_raw *disk_table_find(const struct disk_table *t, uint32_t major, uint32_t minor,
				       size_t *hint);

#endif
