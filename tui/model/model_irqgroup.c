// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_irqgroup: interrupt lines grouped by the device their handler name
 * says (nvme0q12 is nvme0's), with the group's total, spread and hottest
 * CPU. Reads the decoded model; sums the document's rates, computes none.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "model.h"
#include "model_irqgroup.h"

bool model_irq_device(const char *actions, char *buf, size_t size)
{
	static const char *const queue_words[] = { "TxRx", "txrx",  "rx", "tx",	  "fp", "msix",
						   "msi",  "queue", "q",  "comp", "ce", NULL };
	const char *at = strchr(actions, '@');
	size_t len = at ? (size_t)(at - actions) : strlen(actions);
	size_t end = len;
	char name[96];

	if (len >= sizeof(name) || size == 0)
		goto none;
	/* the queue's number */
	while (end > 0 && isdigit((unsigned char)actions[end - 1]))
		end--;
	if (end == len || end == 0)
		goto none;
	memcpy(name, actions, end);
	name[end] = '\0';
	/* nvme0q12: the letter q after the controller's number */
	if (end >= 2 && name[end - 1] == 'q' && isdigit((unsigned char)name[end - 2])) {
		name[end - 1] = '\0';
	} else {
		/* eth0-TxRx-3, mpt2sas0-msix7, mlx5_comp3: a separator and a
		 * queue word before the number go too; a number glued to a
		 * name (i8042, 8250) is no queue */
		bool sep = name[end - 1] == '-' || name[end - 1] == '_';

		if (sep)
			name[--end] = '\0';
		for (size_t w = 0; queue_words[w]; w++) {
			size_t wl = strlen(queue_words[w]);

			if (end > wl && strcmp(name + end - wl, queue_words[w]) == 0 &&
			    (name[end - wl - 1] == '-' || name[end - wl - 1] == '_')) {
				end -= wl + 1;
				name[end] = '\0';
				sep = true;
				break;
			}
		}
		if (end == 0 || !sep)
			goto none;
	}
	snprintf(buf, size, "%s%s", name, at ? at : "");
	return true;
none:
	snprintf(buf, size, "%s", actions);
	return false;
}

static int cmp_member(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	const struct model_irq *x = &m->irqs[*(const size_t *)a];
	const struct model_irq *y = &m->irqs[*(const size_t *)b];

	if (x->total_s != y->total_s)
		return x->total_s < y->total_s ? 1 : -1;
	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

/* First pass: a group per device name with its count of lines, each
 * line's group in group_of (-1: none), and the highest CPU seen in
 * *maxcpu. Returns 0 or -ENOMEM. */
static int groups_name(const struct model *m, struct model_irq_groups *gs, int *maxcpu)
{
	for (size_t i = 0; i < m->nirqs; i++) {
		const struct model_irq *q = &m->irqs[i];
		char dev[32];
		size_t g;

		gs->group_of[i] = -1;
		if (!q->numeric || !q->valid || q->total_s <= 0 || !q->actions[0] ||
		    !model_irq_device(q->actions, dev, sizeof(dev)))
			continue;
		/* lines of a device are usually adjacent: look at the last group first */
		for (g = gs->ngroups; g > 0; g--)
			if (strcmp(gs->groups[g - 1].name, dev) == 0)
				break;
		if (g == 0) {
			int r = grow((void **)&gs->groups, &gs->groups_cap, gs->ngroups + 1,
				     sizeof(*gs->groups));

			if (r < 0)
				return r;
			memset(&gs->groups[gs->ngroups], 0, sizeof(gs->groups[0]));
			memcpy(gs->groups[gs->ngroups].name, dev, sizeof(dev));
			g = ++gs->ngroups;
		}
		gs->groups[g - 1].n++;
		gs->group_of[i] = (long)(g - 1);
		for (size_t k = 0; k < q->ncpus; k++)
			if (q->cpus[k].cpu > *maxcpu)
				*maxcpu = q->cpus[k].cpu;
	}
	/* a single line is no group */
	for (size_t i = 0; i < m->nirqs; i++)
		if (gs->group_of[i] >= 0 && gs->groups[gs->group_of[i]].n < 2)
			gs->group_of[i] = -1;
	return 0;
}

/* Second pass: each group's members placed from its first, in the
 * order of the lines. */
static void groups_place(const struct model *m, struct model_irq_groups *gs)
{
	size_t at = 0;

	for (size_t g = 0; g < gs->ngroups; g++) {
		gs->groups[g].first = at;
		if (gs->groups[g].n >= 2)
			at += gs->groups[g].n;
		gs->groups[g].n = 0;
	}
	gs->nmembers = at;
	for (size_t i = 0; i < m->nirqs; i++) {
		long g = gs->group_of[i];

		if (g >= 0)
			gs->members[gs->groups[g].first + gs->groups[g].n++] = i;
	}
}

/* One group's members sorted, its total, spread and hottest CPU; per_cpu
 * is all zeros before and after. */
static void group_sum(const struct model *m, struct model_irq_groups *gs,
		      struct model_irq_group *grp)
{
	grp->hot_cpu = -1;
	if (grp->n < 2)
		return;
	qsort_r(gs->members + grp->first, grp->n, sizeof(size_t), cmp_member, (void *)m);
	/* per-CPU sums over the members, then cleared where touched */
	for (size_t k = 0; k < grp->n; k++) {
		const struct model_irq *q = &m->irqs[gs->members[grp->first + k]];

		grp->total_s += q->total_s;
		for (size_t c = 0; c < q->ncpus; c++) {
			double *v = &gs->per_cpu[q->cpus[c].cpu];

			if (*v == 0 && q->cpus[c].rate_s > 0)
				grp->ncpus++;
			*v += q->cpus[c].rate_s;
			if (*v > grp->hot_s ||
			    (*v == grp->hot_s && q->cpus[c].cpu < grp->hot_cpu)) {
				grp->hot_s = *v;
				grp->hot_cpu = q->cpus[c].cpu;
			}
		}
	}
	for (size_t k = 0; k < grp->n; k++) {
		const struct model_irq *q = &m->irqs[gs->members[grp->first + k]];

		for (size_t c = 0; c < q->ncpus; c++)
			gs->per_cpu[q->cpus[c].cpu] = 0;
	}
}

/* drop the single lines' entries: groups are those with n >= 2 */
static void groups_compact(struct model_irq_groups *gs)
{
	size_t out = 0;

	for (size_t g = 0; g < gs->ngroups; g++) {
		if (gs->groups[g].n < 2)
			continue;
		gs->groups[out] = gs->groups[g];
		for (size_t k = 0; k < gs->groups[out].n; k++)
			gs->group_of[gs->members[gs->groups[out].first + k]] = (long)out;
		out++;
	}
	gs->ngroups = out;
}

/* A group per device name: names and counts first (first pass), members
 * placed after (second), like a counting sort. */
int model_irq_groups_build(const struct model *m, struct model_irq_groups *gs)
{
	int maxcpu = -1;
	int r;

	gs->ngroups = 0;
	gs->nmembers = 0;
	if (m->nirqs == 0)
		return 0;
	r = grow((void **)&gs->group_of, &gs->group_of_cap, m->nirqs, sizeof(*gs->group_of));
	if (r < 0)
		return r;
	r = groups_name(m, gs, &maxcpu);
	if (r >= 0)
		r = grow((void **)&gs->members, &gs->members_cap, m->nirqs, sizeof(*gs->members));
	if (r >= 0 && maxcpu >= 0)
		r = grow((void **)&gs->per_cpu, &gs->per_cpu_cap, (size_t)maxcpu + 1,
			 sizeof(*gs->per_cpu));
	if (r < 0)
		goto fail;
	if (maxcpu >= 0) /* grow() leaves new memory as it is */
		memset(gs->per_cpu, 0, ((size_t)maxcpu + 1) * sizeof(*gs->per_cpu));
	groups_place(m, gs);
	for (size_t g = 0; g < gs->ngroups; g++)
		group_sum(m, gs, &gs->groups[g]);
	groups_compact(gs);
	return 0;
fail:
	gs->ngroups = 0;
	gs->nmembers = 0;
	for (size_t i = 0; i < m->nirqs; i++)
		gs->group_of[i] = -1;
	return r;
}

void model_irq_groups_free(struct model_irq_groups *gs)
{
	if (!gs)
		return;
	free(gs->groups);
	free(gs->members);
	free(gs->group_of);
	free(gs->per_cpu);
	memset(gs, 0, sizeof(*gs));
}
