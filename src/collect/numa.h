/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * numa: which CPUs each NUMA node holds (sys/devices/system/node/nodeN/
 * cpulist), under --root, for the live view's CPU heat map. Read when the
 * CPU count changes, never per sample; text only.
 */
#ifndef IOTRIAGE_NUMA_H
#define IOTRIAGE_NUMA_H

#include "iotriage/types.h"
#include "root.h"

#define NUMA_NODES_MAX 1024 /* the kernel's MAX_NUMNODES at most */

/* Reads every nodeN into t (emptied first), by node number. No node
 * directory is no error (t->n 0). Returns 0 or -ENOMEM. */
int numa_read(const struct root *r, struct numa_table *t);

int numa_table_copy(struct numa_table *dst, const struct numa_table *src);
void numa_table_free(struct numa_table *t);

#endif
