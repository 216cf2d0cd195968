// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * irqaff: read one IRQ's requested and effective affinity under the root.
 * Text only, as the kernel prints it; no interpretation, no writes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "irqaff.h"

/* A file that is absent is not an error: effective_affinity_list only exists
 * on kernels >= 4.15 with GENERIC_IRQ_EFFECTIVE_AFF_MASK. */
static int irqaff_read_list(const struct root *r, uint32_t irq, const char *file, char *buf,
			    size_t size, bool *ret_has)
{
	char rel[64]; /* "proc/irq/" + 10 digits + "/effective_affinity_list" */
	int n;

	snprintf(rel, sizeof(rel), "proc/irq/%u/%s", irq, file);
	n = root_read_small(r, rel, buf, size);
	if (n == -ENOENT) {
		buf[0] = '\0';
		*ret_has = false;
		return 0;
	}
	if (n < 0)
		return n;
	*ret_has = true;
	return 0;
}

int irqaff_read(const struct root *r, uint32_t irq, struct irqaff *ret)
{
	struct irqaff a;
	int k;

	k = irqaff_read_list(r, irq, "smp_affinity_list", a.smp_list, sizeof(a.smp_list),
			     &a.has_smp);
	if (k >= 0)
		k = irqaff_read_list(r, irq, "effective_affinity_list", a.eff_list,
				     sizeof(a.eff_list), &a.has_eff);
	if (k < 0)
		return k;
	if (!a.has_smp && !a.has_eff)
		return -ENOENT;
	*ret = a;
	return 0;
}
