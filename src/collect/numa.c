// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * numa: the CPUs of each NUMA node, read from sysfs under --root when the
 * CPU count changes. The text as the kernel prints it; no judgement.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "numa.h"

static int cmp_node(const void *a, const void *b)
{
	const struct numa_node *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

struct numa_walk {
	const struct root *r;
	struct numa_table *t;
};

static int add_node(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct numa_walk *w = ctx;
	struct numa_table *t = w->t;
	char rel[80], *end;
	unsigned long v;
	struct numa_node *n;

	if (strncmp(name, "node", 4) != 0 || name[4] < '0' || name[4] > '9')
		return 0;
	v = strtoul(name + 4, &end, 10);
	if (*end || v >= NUMA_NODES_MAX)
		return 0;
	if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
		return -ENOMEM;
	n = &t->rows[t->n];
	n->node = (int)v;
	snprintf(rel, sizeof(rel), "sys/devices/system/node/node%lu/cpulist", v);
	/* a node without CPUs (memory only) prints an empty line */
	if (root_read_small(w->r, rel, n->cpu_list, sizeof(n->cpu_list)) < 0)
		return 0;
	t->n++;
	return t->n < NUMA_NODES_MAX ? 0 : 1;
}

int numa_read(const struct root *r, struct numa_table *t)
{
	struct numa_walk w = { r, t };

	t->n = 0;
	/* no node directory (a container, an old tree): no table, no error */
	if (root_for_each_entry(r, "sys/devices/system/node", add_node, &w) == -ENOMEM) {
		t->n = 0;
		return -ENOMEM;
	}
	if (t->n > 1)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_node);
	return 0;
}

int numa_table_copy(struct numa_table *dst, const struct numa_table *src)
{
	if (grow_copy((void **)&dst->rows, &dst->cap, src->rows, src->n, sizeof(*dst->rows)) < 0)
		return -ENOMEM;
	dst->n = src->n;
	return 0;
}

void numa_table_free(struct numa_table *t)
{
	if (!t)
		return;
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
