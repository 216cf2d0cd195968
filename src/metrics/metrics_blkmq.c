// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics_blkmq: each hardware queue of a disk joined to the interrupt that
 * completes it, the CPU where that interrupt lands and that CPU's BLOCK
 * softirq and load: "this disk is slow because its completions land on
 * the drowning core" in one row. Joins rates computed in metrics.c; adds
 * no arithmetic beyond picking the busiest CPU. No I/O, no clock.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "metrics.h"
#include "metrics_blkmq.h"
#include "rowfind.h"

bool metrics_blkmq_controller(const char *disk, char *buf, size_t size)
{
	unsigned ctrl, ns;
	int end = 0;

	if (sscanf(disk, "nvme%un%u%n", &ctrl, &ns, &end) != 2 || disk[end] != '\0')
		return false;
	snprintf(buf, size, "nvme%u", ctrl);
	return true;
}

/* A queue interrupt of an NVMe controller: (controller, queue id, rate row). */
struct qkey {
	unsigned ctrl, qid;
	size_t row;
};

static int cmp_qkey(const void *a, const void *b)
{
	const struct qkey *x = a, *y = b;

	if (x->ctrl != y->ctrl)
		return x->ctrl < y->ctrl ? -1 : 1;
	return x->qid < y->qid ? -1 : x->qid > y->qid;
}

/* Every "nvmeCqQ" handler of the IRQ rate rows: a shared vector lists
 * several ("nvme0q0, nvme0q1"). */
static int index_queues(const struct snapshot *cur, const struct rate_table *rt, struct qkey **keys,
			size_t *nkeys, size_t *cap)
{
	*nkeys = 0;
	for (size_t i = 0; i < rt->n; i++) {
		const char *a = cur->irqs.rows[rt->rows[i].cur_index].actions;

		while ((a = strstr(a, "nvme"))) {
			unsigned c, q;
			int end = 0;

			if (sscanf(a, "nvme%uq%u%n", &c, &q, &end) == 2 &&
			    (a[end] == '\0' || a[end] == ',' || a[end] == ' ')) {
				if (grow((void **)keys, cap, *nkeys + 1, sizeof(**keys)) < 0)
					return -ENOMEM;
				(*keys)[(*nkeys)++] = (struct qkey){ c, q, i };
			}
			a += 4;
		}
	}
	if (*nkeys) /* qsort(NULL, 0, ...) is undefined: no NVMe queue line here */
		qsort(*keys, *nkeys, sizeof(**keys), cmp_qkey);
	return 0;
}

/* Column of cpu in a rate table (ascending CPU ids), -1 none. */
static long column_of(const struct rate_table *rt, int cpu)
{
	const int *id = rowfind_i32(rt->cpu_ids, rt->ncpu, sizeof(*rt->cpu_ids), 0, cpu);

	return id ? id - rt->cpu_ids : -1;
}

static long find_disk(const struct metrics *m, const char *name, long hint)
{
	if (hint >= 0 && (size_t)hint < m->ndisks && strcmp(m->disks[hint].name, name) == 0)
		return hint;
	for (size_t i = 0; i < m->ndisks; i++)
		if (strcmp(m->disks[i].name, name) == 0)
			return (long)i;
	return -1;
}

int metrics_blkmq_compute(const struct snapshot *cur, struct metrics *m)
{
	const struct rate_table *irq = &m->irq, *soft = &m->softirq;
	const struct rate_row *block = NULL;
	struct qkey *keys = NULL;
	size_t nkeys = 0, keys_cap = 0;
	long disk = -1;
	int r;

	m->nmq = 0;
	if (cur->mq.n == 0)
		return 0;
	if (grow((void **)&m->mq, &m->mq_cap, cur->mq.n, sizeof(*m->mq)) < 0)
		return -ENOMEM;
	if (m->irq_valid) {
		r = index_queues(cur, irq, &keys, &nkeys, &keys_cap);
		if (r < 0) {
			free(keys);
			return r;
		}
	}
	for (size_t i = 0; m->softirq_valid && i < soft->n; i++)
		if (strcmp(soft->rows[i].label, "BLOCK") == 0 && soft->rows[i].valid)
			block = &soft->rows[i];
	for (size_t i = 0; i < cur->mq.n; i++) {
		const struct blkmq_queue *q = &cur->mq.rows[i];
		struct blkmq_metrics *b = &m->mq[m->nmq++];
		char ctrl[IOT_NAME_MAX];
		unsigned c;
		const struct qkey *k = NULL;

		memset(b, 0, sizeof(*b));
		b->row = i;
		b->cpu = -1;
		disk = find_disk(m, q->disk, disk);
		b->disk = disk;
		if (!nkeys || !metrics_blkmq_controller(q->disk, ctrl, sizeof(ctrl)) ||
		    sscanf(ctrl, "nvme%u", &c) != 1)
			continue;
		/* hctx N is I/O queue N + 1: queue 0 is the admin queue */
		{
			struct qkey want = { c, q->hctx + 1, 0 };

			k = bsearch(&want, keys, nkeys, sizeof(*keys), cmp_qkey);
		}
		if (!k)
			continue;
		{
			const struct rate_row *rr = &irq->rows[k->row];
			const double *rates = irq->rates + rr->rates_off;

			b->has_irq = true;
			snprintf(b->irq, sizeof(b->irq), "%s", rr->label);
			snprintf(b->irq_name, sizeof(b->irq_name), "nvme%uq%u", c, q->hctx + 1);
			b->irq_valid = rr->valid;
			if (!rr->valid)
				continue;
			b->irq_s = rr->total_s;
			for (size_t col = 0; col < irq->ncpu; col++)
				if (rates[col] > b->cpu_irq_s) {
					b->cpu_irq_s = rates[col];
					b->cpu = irq->cpu_ids[col];
				}
		}
		if (b->cpu >= 0) {
			const struct cpu_metrics *cm =
			    rowfind_i32(m->cpus, m->ncpu, sizeof(*m->cpus),
					offsetof(struct cpu_metrics, cpu), b->cpu);
			long col = block ? column_of(soft, b->cpu) : -1;

			if (cm && cm->valid) {
				b->cpu_valid = true;
				b->cpu_irq = cm->irq;
				b->cpu_soft = cm->soft;
				b->cpu_busy = 100.0 - cm->idle;
			}
			if (col >= 0) {
				b->has_block = true;
				b->block_s = soft->rates[block->rates_off + (size_t)col];
			}
		}
	}
	free(keys);
	return 0;
}
