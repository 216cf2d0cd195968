// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blkmq: the blk-mq hardware queues of each whole disk and the CPUs each
 * serves (/sys/block/DISK/mq/N/cpu_list), read under --root when the set of
 * disks changes. Paths and text only: which interrupt completes a queue
 * and how loaded its CPU is are the metrics' business (metrics_blkmq.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkmq.h"
#include "grow.h"
#include "procfile.h"
#include "treewrite.h"
#include "scan.h"
#include "str.h"

struct hctx_list {
	uint32_t *ids;
	size_t n, cap;
};

static int add_hctx(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct hctx_list *l = ctx;
	uint32_t v;

	if (!str_u32(name, &v))
		return 0;
	if (grow((void **)&l->ids, &l->cap, l->n + 1, sizeof(*l->ids)) < 0)
		return -ENOMEM;
	l->ids[l->n++] = v;
	return l->n < BLKMQ_QUEUES_MAX ? 0 : 1;
}

/* The hctx numbers of DISK/mq, ascending; *ret_n of them (none without mq/). */
static int list_hctx(const struct root *r, const char *sysfs_name, uint32_t **ret, size_t *ret_n)
{
	char rel[IOT_NAME_MAX + 32];
	struct hctx_list l = { 0 };
	uint32_t *ids;
	size_t n;
	int e;

	snprintf(rel, sizeof(rel), "sys/block/%s/mq", sysfs_name);
	e = root_for_each_entry(r, rel, add_hctx, &l);
	if (e == -ENOMEM) {
		free(l.ids);
		return e;
	}
	ids = l.ids;
	n = l.n;
	/* insertion sort: readdir's order is the directory's, not numeric */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			uint32_t t = ids[j];

			ids[j] = ids[j - 1];
			ids[j - 1] = t;
		}
	*ret = ids;
	*ret_n = n;
	return 0;
}

int blkmq_read_disk(const struct root *r, const char *disk, const char *sysfs_name,
		    struct blkmq_table *t)
{
	uint32_t *ids;
	size_t n;
	int e;

	e = list_hctx(r, sysfs_name, &ids, &n);
	if (e < 0)
		return e;
	if (n && grow((void **)&t->rows, &t->cap, t->n + n, sizeof(*t->rows)) < 0) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct blkmq_queue *q = &t->rows[t->n++];
		char rel[IOT_NAME_MAX + 48];
		int len;

		memset(q, 0, sizeof(*q));
		snprintf(q->disk, sizeof(q->disk), "%s", disk);
		q->hctx = ids[i];
		snprintf(rel, sizeof(rel), "sys/block/%s/mq/%u/cpu_list", sysfs_name, ids[i]);
		len = root_read_small(r, rel, q->cpu_list, sizeof(q->cpu_list));
		if (len < 0)
			q->cpu_list[0] = '\0';
	}
	free(ids);
	return (int)n;
}

int blkmq_table_copy(struct blkmq_table *dst, const struct blkmq_table *src)
{
	if (grow_copy((void **)&dst->rows, &dst->cap, src->rows, src->n, sizeof(*dst->rows)) < 0)
		return -ENOMEM;
	dst->n = src->n;
	return 0;
}

void blkmq_table_free(struct blkmq_table *t)
{
	if (!t)
		return;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

unsigned blkmq_capture_disk(const struct root *src, int dfd, const char *sysfs_name,
			    struct procfile *pf)
{
	uint32_t *ids;
	size_t n;
	unsigned files = 0;

	if (list_hctx(src, sysfs_name, &ids, &n) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char rel[IOT_NAME_MAX + 48];

		snprintf(rel, sizeof(rel), "sys/block/%s/mq/%u/cpu_list", sysfs_name, ids[i]);
		if (treewrite_copy(src, dfd, rel, pf) == 0)
			files++;
	}
	free(ids);
	return files;
}
