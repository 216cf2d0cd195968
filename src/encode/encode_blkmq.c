// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The "blk-mq" section: per whole disk with blk-mq hardware queues, the
 * queue count and the queues whose completion interrupt fired in the
 * interval (a 64-queue controller mostly idle in a second writes a few),
 * each with its cpu_list, interrupt, the CPU it landed on and that CPU's
 * BLOCK softirq and load. A disk whose queues match no interrupt line (not
 * NVMe) lists every queue with its cpu_list only.
 */
#include <string.h>

#include "encode_blkmq.h"
#include "metrics_blkmq.h"

static void encode_queue(struct strbuf *sb, const struct blkmq_queue *q,
			 const struct blkmq_metrics *b)
{
	sb_kv_u64(sb, "{\"hctx\":", q->hctx);
	sb_puts(sb, ",\"cpu_list\":");
	sb_json_str(sb, q->cpu_list);
	if (b->has_irq) {
		sb_puts(sb, ",\"irq\":");
		sb_json_str(sb, b->irq);
		sb_puts(sb, ",\"irq_name\":");
		sb_json_str(sb, b->irq_name);
		if (!b->irq_valid)
			sb_puts(sb, ",\"valid\":false");
		else
			sb_kv_fixed2(sb, ",\"irq/s\":", b->irq_s);
	}
	if (b->cpu >= 0) {
		sb_kv_i64(sb, ",\"cpu\":\"", b->cpu);
		sb_kv_fixed2(sb, "\",\"cpu_irq/s\":", b->cpu_irq_s);
		if (b->cpu_valid) {
			sb_kv_fixed2(sb, ",\"cpu_irq\":", b->cpu_irq);
			sb_kv_fixed2(sb, ",\"cpu_soft\":", b->cpu_soft);
			sb_kv_fixed2(sb, ",\"cpu_busy\":", b->cpu_busy);
		}
		if (b->has_block)
			sb_kv_fixed2(sb, ",\"BLOCK/s\":", b->block_s);
	}
	sb_puts(sb, "},");
}

void encode_blkmq(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m)
{
	size_t i = 0;

	if (m->nmq == 0)
		return;
	sb_json_key(sb, "blk-mq");
	sb_putc(sb, '[');
	while (i < m->nmq) {
		const char *disk = cur->mq.rows[m->mq[i].row].disk;
		size_t end = i, matched = 0;
		char ctrl[IOT_NAME_MAX];

		while (end < m->nmq && strcmp(cur->mq.rows[m->mq[end].row].disk, disk) == 0) {
			matched += m->mq[end].has_irq;
			end++;
		}
		sb_puts(sb, "{\"disk\":");
		sb_json_str(sb, disk);
		if (metrics_blkmq_controller(disk, ctrl, sizeof(ctrl))) {
			sb_puts(sb, ",\"controller\":");
			sb_json_str(sb, ctrl);
		}
		sb_kv_u64(sb, ",\"nr_hw_queues\":", end - i);
		sb_puts(sb, ",\"queues\":[");
		for (size_t k = i; k < end; k++) {
			const struct blkmq_metrics *b = &m->mq[k];

			/* idle queues of a matched disk are left out, as idle IRQ lines */
			if (matched && !(b->has_irq && (!b->irq_valid || b->irq_s > 0)))
				continue;
			encode_queue(sb, &cur->mq.rows[b->row], b);
		}
		sb_json_close(sb, ']');
		sb_puts(sb, "},");
		i = end;
	}
	sb_json_end(sb, ']');
}
