/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "blk-mq" section of a sample (doc/json.md): each disk's hardware
 * queues joined to their interrupt, the CPU it lands on and that CPU's
 * BLOCK softirq and load (src/metrics/metrics_blkmq.h).
 */
#ifndef IOTRIAGE_ENCODE_BLKMQ_H
#define IOTRIAGE_ENCODE_BLKMQ_H

#include "metrics.h"
#include "strbuf.h"

/* "blk-mq":[...], with its trailing comma; nothing when no disk has queues. */
void encode_blkmq(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m);

#endif
