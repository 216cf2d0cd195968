/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blkmq: each whole disk's blk-mq hardware queues and the CPUs they serve
 * (/sys/block/DISK/mq/N/cpu_list), under --root. Read when the set of
 * disks changes, never per sample; no judgement, no rates.
 */
#ifndef IOTRIAGE_BLKMQ_H
#define IOTRIAGE_BLKMQ_H

#include "iotriage/types.h"
#include "procfile.h"
#include "root.h"

/* The most hardware queues read per disk (a controller has at most one per
 * CPU; more would only be kernel bugs or a hostile tree). */
#define BLKMQ_QUEUES_MAX 4096

/*
 * Appends disk's hardware queues (sysfs name, "cciss!c0d0"; recorded under
 * the device name) to t, in hctx order. A disk without mq/ (a partition, a
 * bio-based device) adds nothing. Returns the queues added, or -ENOMEM.
 */
int blkmq_read_disk(const struct root *r, const char *disk, const char *sysfs_name,
		    struct blkmq_table *t);

int blkmq_table_copy(struct blkmq_table *dst, const struct blkmq_table *src);
void blkmq_table_free(struct blkmq_table *t);

/* The cpu_list files of disk (sysfs name) copied into the tree at dfd
 * (iotriage capture); returns how many. */
unsigned blkmq_capture_disk(const struct root *src, int dfd, const char *sysfs_name,
			    struct procfile *pf);

#endif
