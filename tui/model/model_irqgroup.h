/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interrupt lines grouped by device for big hosts: an NVMe controller's 64
 * queue vectors (nvme0q0..nvme0q63) or a NIC's (eth0-TxRx-0..) are one
 * group with its total, how many CPUs the vectors landed on and the CPU
 * taking most of them. From the decoded model only: no I/O; the totals are
 * sums of the document's per-line rates.
 */
#ifndef IOTRIAGE_TUI_MODEL_IRQGROUP_H
#define IOTRIAGE_TUI_MODEL_IRQGROUP_H

#include <stdbool.h>
#include <stddef.h>

struct model;

struct model_irq_group {
	char name[32];	/* "nvme0", "eth0", "mpt2sas0" */
	size_t first;	/* members are model_irq_groups.members[first .. first + n) */
	size_t n;	/* lines in the group (2 or more), busiest first */
	double total_s; /* their interrupts per second, summed */
	size_t ncpus;	/* distinct CPUs they landed on */
	int hot_cpu;	/* the CPU taking most of them, -1 none fired */
	double hot_s;	/* its interrupts per second from the group */
};

struct model_irq_groups {
	struct model_irq_group *groups;
	size_t ngroups, groups_cap;
	size_t *members; /* indexes into model.irqs */
	size_t nmembers, members_cap;
	long *group_of; /* per model.irqs entry: its group, -1 none */
	size_t group_of_cap;
	double *per_cpu; /* scratch: rate per CPU number */
	size_t per_cpu_cap;
};

/*
 * The device of an interrupt line from its handler name: "nvme0q12" ->
 * "nvme0", "eth0-TxRx-3" -> "eth0", "mpt2sas0-msix7" -> "mpt2sas0",
 * "mlx5_comp3@pci:0000:81:00.0" -> "mlx5_comp@pci:0000:81:00.0". Returns
 * true when it names a queue of a device (a number was taken off).
 */
bool model_irq_device(const char *actions, char *buf, size_t size);

/*
 * Groups the valid numbered lines of m that fired by device (only devices
 * with 2 or more lines form a group) into gs, reusing its memory. Returns
 * 0 or -ENOMEM (gs then holds no groups).
 */
int model_irq_groups_build(const struct model *m, struct model_irq_groups *gs);
void model_irq_groups_free(struct model_irq_groups *gs);

#endif
