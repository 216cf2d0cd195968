/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * irqaff: one IRQ's affinity as the kernel states it in /proc/irq/N/ under
 * --root, for the live view. Kept as the kernel's cpulist text; the full
 * topology reader for the advisor is src/collect/topology.c.
 */
#ifndef IOTRIAGE_IRQAFF_H
#define IOTRIAGE_IRQAFF_H

#include <stdbool.h>
#include <stdint.h>

#include "root.h"

#define IRQAFF_LIST_MAX 192 /* "0-3,8,10-11": a cpulist as the kernel prints it */

struct irqaff {
	bool has_smp; /* smp_affinity_list was readable */
	bool has_eff; /* effective_affinity_list was readable (>= 4.15, x86 and a few others) */
	char smp_list[IRQAFF_LIST_MAX];
	char eff_list[IRQAFF_LIST_MAX];
};

/*
 * Reads /proc/irq/IRQ/{smp_affinity_list,effective_affinity_list}. Returns 0
 * when the IRQ's directory has at least one of them (the other is marked
 * absent), -ENOENT when neither exists (no such IRQ, or a root without
 * /proc/irq), another -errno when a file could not be read. *ret is written
 * only on success.
 */
int irqaff_read(const struct root *r, uint32_t irq, struct irqaff *ret);

#endif
