/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "blk-mq" section of the sample document (doc/json.md) as the queue
 * chain view draws it: per disk, its hardware queues, each queue's
 * interrupt, the CPU it lands on and that CPU's BLOCK softirq and load.
 * Decodes only: no I/O, no rates.
 */
#ifndef IOTRIAGE_TUI_MODEL_BLKMQ_H
#define IOTRIAGE_TUI_MODEL_BLKMQ_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

struct model_mq_queue {
	unsigned hctx;
	char cpu_list[192];
	bool has_irq;
	char irq[32], irq_name[32];
	bool valid; /* the interrupt was rated this interval */
	double irq_s;
	int cpu; /* where it landed most, -1 none */
	double cpu_irq_s;
	bool has_load; /* cpu_irq, cpu_soft, cpu_busy present */
	double cpu_irq, cpu_soft, cpu_busy;
	bool has_block;
	double block_s;
	/* --trace: this queue's own BLOCK softirq time ("trace"."blk_queues"),
	 * percent of one CPU, and its completions a second */
	bool has_qtime;
	double qblock_pct, qcompleted_s;
	/* --trace: the device stage (issue -> complete) of this queue's reads
	 * [0] and writes [1] ("trace"."disks"[]."hctx"): p99 µs, IOs a second */
	bool has_p99[2];
	double p99_us[2], ios_s[2];
};

struct model_mq_disk {
	char disk[64];
	char controller[32]; /* "" not NVMe */
	size_t nr_hw_queues;
	struct model_mq_queue *queues; /* those the document lists */
	size_t nqueues;
};

struct model_blkmq {
	bool present; /* the document has the section */
	struct model_mq_disk *disks;
	size_t ndisks;
};

/* Decodes doc's "blk-mq" into *ret (overwritten, not freed): absent means
 * present false. Returns 0, -EBADMSG (malformed: *ret untouched) or -ENOMEM. */
int model_blkmq_decode(struct json_object *doc, struct model_blkmq *ret);
void model_blkmq_free(struct model_blkmq *b);
/* The disk's entry, NULL none. */
const struct model_mq_disk *model_blkmq_disk(const struct model_blkmq *b, const char *disk);

#endif
