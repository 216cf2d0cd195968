// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_blkmq: the document's "blk-mq" section decoded for the queue chain
 * view (view_chain.c). Every number is the document's.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "model_blkmq.h"

static int decode_queue(struct json_object *o, struct model_mq_queue *q)
{
	uint64_t hctx;
	char cpu[16];
	bool valid = true;

	memset(q, 0, sizeof(*q));
	q->cpu = -1;
	if (!json_object_is_type(o, json_type_object) || mj_uint(o, "hctx", &hctx) <= 0 ||
	    hctx > 1u << 20)
		return -EBADMSG;
	q->hctx = (unsigned)hctx;
	if (mj_str(o, "cpu_list", q->cpu_list, sizeof(q->cpu_list)) < 0 ||
	    mj_str(o, "irq", q->irq, sizeof(q->irq)) < 0 ||
	    mj_str(o, "irq_name", q->irq_name, sizeof(q->irq_name)) < 0 ||
	    mj_bool(o, "valid", &valid) < 0)
		return -EBADMSG;
	q->has_irq = q->irq[0] != '\0';
	q->valid = q->has_irq && valid && mj_num(o, "irq/s", &q->irq_s) > 0;
	if (mj_str(o, "cpu", cpu, sizeof(cpu)) > 0) {
		char *end;
		long v = strtol(cpu, &end, 10);

		if (end == cpu || *end || v < 0 || v > 1 << 20)
			return -EBADMSG;
		q->cpu = (int)v;
		mj_num(o, "cpu_irq/s", &q->cpu_irq_s);
		q->has_load = mj_num(o, "cpu_irq", &q->cpu_irq) > 0 &&
			      mj_num(o, "cpu_soft", &q->cpu_soft) > 0 &&
			      mj_num(o, "cpu_busy", &q->cpu_busy) > 0;
		q->has_block = mj_num(o, "BLOCK/s", &q->block_s) > 0;
	}
	return 0;
}

static int decode_disk(struct json_object *o, struct model_mq_disk *d)
{
	struct json_object *qs;
	uint64_t n = 0;
	size_t len;

	memset(d, 0, sizeof(*d));
	if (!json_object_is_type(o, json_type_object) ||
	    mj_str(o, "disk", d->disk, sizeof(d->disk)) <= 0 ||
	    mj_str(o, "controller", d->controller, sizeof(d->controller)) < 0 ||
	    mj_uint(o, "nr_hw_queues", &n) < 0)
		return -EBADMSG;
	d->nr_hw_queues = (size_t)n;
	qs = mj_get(o, "queues");
	if (!qs)
		return 0;
	if (!json_object_is_type(qs, json_type_array))
		return -EBADMSG;
	len = json_object_array_length(qs);
	if (len == 0)
		return 0;
	d->queues = calloc(len, sizeof(*d->queues));
	if (!d->queues)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		int r = decode_queue(json_object_array_get_idx(qs, i), &d->queues[i]);

		if (r < 0)
			return r;
		d->nqueues++;
	}
	return 0;
}

/* The listed queue hctx of disk, NULL none. */
static struct model_mq_queue *queue_of(struct model_blkmq *b, const char *disk, int64_t hctx)
{
	for (size_t d = 0; d < b->ndisks; d++) {
		struct model_mq_disk *md = &b->disks[d];

		if (strcmp(md->disk, disk) != 0)
			continue;
		for (size_t q = 0; q < md->nqueues; q++)
			if (md->queues[q].hctx == (uint64_t)hctx)
				return &md->queues[q];
	}
	return NULL;
}

/* The tracing stage's BLOCK time per disk and hardware queue onto the
 * queues the section lists (doc/json.md "blk_queues"); a row that names no
 * listed queue, or is malformed, is left out: the chain view shows "-". */
static void attach_queue_time(struct json_object *a, struct model_blkmq *b)
{
	size_t len;

	if (!a || !json_object_is_type(a, json_type_array))
		return;
	len = json_object_array_length(a);
	for (size_t i = 0; i < len; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct json_object *name = mj_get(o, "disk");
		struct model_mq_queue *q;
		double us_s, done_s;
		int64_t hctx;

		if (!name || !json_object_is_type(name, json_type_string) ||
		    mj_int(o, "hctx", &hctx) <= 0 || mj_num(o, "us_s", &us_s) <= 0 ||
		    mj_num(o, "completed_s", &done_s) <= 0 || hctx < 0 || us_s < 0 || done_s < 0)
			continue;
		q = queue_of(b, json_object_get_string(name), hctx);
		if (q) {
			q->has_qtime = true;
			q->qblock_pct = us_s / 1e4; /* µs/s: % of a CPU */
			q->qcompleted_s = done_s;
		}
	}
}

/* The tracing stage's device stage per hardware queue (doc/json.md
 * "disks[].hctx") onto the queues the section lists: reads' and writes'
 * p99 and rate; a row naming no listed queue, or malformed, is left out
 * (the chain view shows "-"). */
static void attach_queue_lat(struct json_object *disks, struct model_blkmq *b)
{
	static const char *const ops[2] = { "read", "write" };
	size_t nd;

	if (!disks || !json_object_is_type(disks, json_type_array))
		return;
	nd = json_object_array_length(disks);
	for (size_t i = 0; i < nd; i++) {
		struct json_object *d = json_object_array_get_idx(disks, i);
		struct json_object *name = mj_get(d, "disk"), *hs = mj_get(d, "hctx");
		size_t nh;

		if (!name || !json_object_is_type(name, json_type_string) || !hs ||
		    !json_object_is_type(hs, json_type_array))
			continue;
		nh = json_object_array_length(hs);
		for (size_t j = 0; j < nh; j++) {
			struct json_object *h = json_object_array_get_idx(hs, j);
			struct model_mq_queue *q;
			int64_t hctx;

			if (mj_int(h, "hctx", &hctx) <= 0 || hctx < 0)
				continue;
			q = queue_of(b, json_object_get_string(name), hctx);
			for (int op = 0; q && op < 2; op++) {
				struct json_object *o = mj_get(h, ops[op]);
				double p99, n;

				if (!o || mj_num(o, "p99_us", &p99) <= 0 ||
				    mj_num(o, "count_s", &n) <= 0 || p99 < 0 || n < 0)
					continue;
				q->has_p99[op] = true;
				q->p99_us[op] = p99;
				q->ios_s[op] = n;
			}
		}
	}
}

int model_blkmq_decode(struct json_object *doc, struct model_blkmq *ret)
{
	struct json_object *a = mj_get(doc, "blk-mq");
	struct model_blkmq b = { 0 };
	size_t len;

	if (!a) {
		*ret = b;
		return 0;
	}
	if (!json_object_is_type(a, json_type_array))
		return -EBADMSG;
	len = json_object_array_length(a);
	b.present = true;
	if (len) {
		b.disks = calloc(len, sizeof(*b.disks));
		if (!b.disks)
			return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++) {
		int r = decode_disk(json_object_array_get_idx(a, i), &b.disks[i]);

		b.ndisks++; /* counted now: freed on error with its queues */
		if (r < 0) {
			model_blkmq_free(&b);
			return r;
		}
	}
	attach_queue_time(mj_get(mj_get(doc, "trace"), "blk_queues"), &b);
	attach_queue_lat(mj_get(mj_get(doc, "trace"), "disks"), &b);
	*ret = b;
	return 0;
}

void model_blkmq_free(struct model_blkmq *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->ndisks; i++)
		free(b->disks[i].queues);
	free(b->disks);
	memset(b, 0, sizeof(*b));
}

const struct model_mq_disk *model_blkmq_disk(const struct model_blkmq *b, const char *disk)
{
	for (size_t i = 0; i < b->ndisks; i++)
		if (strcmp(b->disks[i].disk, disk) == 0)
			return &b->disks[i];
	return NULL;
}
