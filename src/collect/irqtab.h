/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/interrupts and /proc/softirqs (irqtab.c): one shape, a header of
 * CPU columns then "LABEL: count ... [description]" -> struct irq_table.
 */
#ifndef IOTRIAGE_IRQTAB_H
#define IOTRIAGE_IRQTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "scan.h"

/* softirqs = false: /proc/interrupts; true: /proc/softirqs. */
int irqtab_parse(const char *buf, size_t len, bool softirqs, struct irq_table *t,
		 struct parse_error *err);
void irq_table_free(struct irq_table *t);
/* Deep copy (dst's storage reused); 0 or -ENOMEM. */
int irq_table_copy(struct irq_table *dst, const struct irq_table *src);
/* By label; NULL when absent. hint as disk_table_find()'s; a miss is a
 * binary search of the index irqtab_parse() built (linear in a table
 * built by hand). */
const struct irq_row *irq_table_find(const struct irq_table *t, const char *label, size_t *hint);
/* Column of cpu in t's header, or -1. */
int irq_table_cpu_col(const struct irq_table *t, int cpu);

static inline const uint64_t *irq_row_counts(const struct irq_table *t, const struct irq_row *r)
{
	return t->counts + r->counts_off;
}

#endif
