/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-queue chain of a disk: each blk-mq hardware queue, the NVMe
 * queue interrupt that completes it (nvme0q(N+1) for hctx N), the CPU that
 * interrupt landed on most in the interval, and that CPU's BLOCK softirq
 * rate and load, beside the disk's await. Pure: from the snapshot's queue
 * table and the rates metrics_compute() already made. No I/O, no clock.
 */
#ifndef IOTRIAGE_METRICS_BLKMQ_H
#define IOTRIAGE_METRICS_BLKMQ_H

#include <stdbool.h>
#include <stddef.h>

#include "iotriage/types.h"

struct metrics;

/* One hardware queue of cur->mq.rows[row]. */
struct blkmq_metrics {
	size_t row;			    /* in cur->mq.rows: disk, hctx, cpu_list */
	long disk;			    /* in metrics.disks, -1 when the disk has no row */
	bool has_irq;			    /* its interrupt line was found in /proc/interrupts */
	char irq[32];			    /* the line's label, "25" */
	char irq_name[32];		    /* the queue's handler name, "nvme0q1" */
	bool irq_valid;			    /* rated this interval (both samples) */
	double irq_s;			    /* its interrupts per second, all CPUs */
	int cpu;			    /* the CPU it landed on most, -1 none (did not fire) */
	double cpu_irq_s;		    /* its interrupts per second on that CPU */
	bool cpu_valid;			    /* that CPU's mpstat row is valid */
	double cpu_irq, cpu_soft, cpu_busy; /* %irq, %soft, 100 - %idle of that CPU */
	bool has_block;			    /* BLOCK softirq rated on that CPU */
	double block_s;			    /* its BLOCK softirqs per second */
};

/* The NVMe controller of a namespace's disk name: "nvme0n1" -> "nvme0";
 * false for any other name (SCSI, virtio, multipath "nvme0c1n1"). */
bool metrics_blkmq_controller(const char *disk, char *buf, size_t size);

/*
 * Fills m->mq / m->nmq, one per cur->mq row, from m's disks, CPUs and IRQ
 * and softirq rate tables (metrics_compute() has run on the same cur).
 * Returns 0 or -ENOMEM.
 */
int metrics_blkmq_compute(const struct snapshot *cur, struct metrics *m);

#endif
