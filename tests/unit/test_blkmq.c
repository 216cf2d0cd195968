// SPDX-License-Identifier: GPL-2.0-or-later
/* The per-queue chain (issue 17) from recorded bytes to what the TUI draws:
 * src/collect/blkmq.c reads each disk's mq/N/cpu_list, metrics_blkmq.c
 * joins hctx N to nvmeCq(N+1), the CPU it landed on and that CPU's load and
 * BLOCK softirqs, encode_blkmq.c writes "blk-mq", tui/model/model_blkmq.c
 * reads it back; and the NUMA nodes (collect/numa.c, "numa", each model
 * CPU's node). On tests/fixtures/nvme-chain (make-trees.py). */
#include <errno.h>
#include <json-c/json.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "encode.h"
#include "metrics.h"
#include "metrics_blkmq.h"
#include "model.h"
#include "snapshot.h"
#include "strbuf.h"

struct chain {
	struct snapshot s0, s1;
	struct metrics m;
};

static int setup(void **state)
{
	static struct chain c;

	memset(&c, 0, sizeof(c));
	assert_int_equal(snapshot_load_tree(FIXTURES_DIR "/nvme-chain/t0", &c.s0), 0);
	assert_int_equal(snapshot_load_tree(FIXTURES_DIR "/nvme-chain/t1", &c.s1), 0);
	assert_int_equal(metrics_compute(&c.s0, &c.s1, metrics_interval_cs(&c.s0, &c.s1), &c.m), 0);
	*state = &c;
	return 0;
}

static int teardown(void **state)
{
	struct chain *c = *state;

	metrics_free(&c->m);
	snapshot_free(&c->s0);
	snapshot_free(&c->s1);
	return 0;
}

static void test_collect(void **state)
{
	struct chain *c = *state;
	const struct blkmq_table *t = &c->s1.mq;
	struct snapshot copy = { 0 };

	assert_int_equal(t->n, 4);
	assert_string_equal(t->rows[0].disk, "nvme0n1");
	assert_int_equal(t->rows[0].hctx, 0);
	assert_string_equal(t->rows[0].cpu_list, "0-1");
	assert_int_equal(t->rows[2].hctx, 2);
	assert_string_equal(t->rows[2].cpu_list, "3");
	assert_string_equal(t->rows[3].disk, "vda");
	assert_string_equal(t->rows[3].cpu_list, "0-3");
	/* the daemon's history keeps copies */
	assert_int_equal(snapshot_copy(&copy, &c->s1), 0);
	assert_int_equal(copy.mq.n, 4);
	assert_string_equal(copy.mq.rows[1].cpu_list, "2");
	snapshot_free(&copy);
}

static void test_metrics(void **state)
{
	struct chain *c = *state;
	const struct blkmq_metrics *b = c->m.mq;

	assert_int_equal(c->m.nmq, 4);
	/* hctx 0 -> nvme0q1 (IRQ 25), landing on CPU 1 at 40000/s */
	assert_true(b[0].has_irq && b[0].irq_valid);
	assert_string_equal(b[0].irq, "25");
	assert_string_equal(b[0].irq_name, "nvme0q1");
	assert_true(b[0].irq_s == 40000.0);
	assert_int_equal(b[0].cpu, 1);
	assert_true(b[0].cpu_valid && b[0].cpu_irq == 25.0 && b[0].cpu_soft == 15.0);
	assert_true(b[0].cpu_busy == 50.0);
	assert_true(b[0].has_block && b[0].block_s == 30000.0);
	assert_string_equal(c->m.disks[b[0].disk].name, "nvme0n1");
	/* hctx 2 -> nvme0q3: found, idle */
	assert_true(b[2].has_irq && b[2].irq_valid && b[2].irq_s == 0);
	assert_int_equal(b[2].cpu, -1);
	/* vda: no per-queue interrupt name */
	assert_false(b[3].has_irq);
	assert_int_equal(b[3].cpu, -1);
}

static void test_controller(void **state)
{
	char buf[32];

	(void)state;
	assert_true(metrics_blkmq_controller("nvme0n1", buf, sizeof(buf)));
	assert_string_equal(buf, "nvme0");
	assert_true(metrics_blkmq_controller("nvme12n3", buf, sizeof(buf)));
	assert_string_equal(buf, "nvme12");
	assert_false(metrics_blkmq_controller("nvme0n1p1", buf, sizeof(buf)));
	assert_false(metrics_blkmq_controller("nvme0c1n1", buf, sizeof(buf)));
	assert_false(metrics_blkmq_controller("sda", buf, sizeof(buf)));
}

/* encoded, then decoded as the TUI does */
static void test_roundtrip(void **state)
{
	struct chain *c = *state;
	struct encode_opts o = { .host = "db1", .mode = "compute", .whole_only = true };
	struct strbuf sb = { 0 };
	struct model mdl = { 0 };
	const struct model_mq_disk *d;

	encode_sample(&sb, &c->s1, &c->m, &o);
	assert_int_equal(sb.err, 0);
	assert_int_equal(model_apply_text(&mdl, sb.buf, sb.len, MODEL_VIEW), 0);
	assert_true(mdl.blkmq.present);
	assert_int_equal(mdl.blkmq.ndisks, 2);
	d = model_blkmq_disk(&mdl.blkmq, "nvme0n1");
	assert_non_null(d);
	assert_string_equal(d->controller, "nvme0");
	assert_int_equal(d->nr_hw_queues, 3);
	/* the idle queue is left out */
	assert_int_equal(d->nqueues, 2);
	assert_int_equal(d->queues[0].hctx, 0);
	assert_true(d->queues[0].valid && d->queues[0].irq_s == 40000.0);
	assert_int_equal(d->queues[0].cpu, 1);
	assert_true(d->queues[0].has_load && d->queues[0].cpu_irq == 25.0);
	assert_true(d->queues[0].has_block && d->queues[0].block_s == 30000.0);
	assert_int_equal(d->queues[1].cpu, 2);
	d = model_blkmq_disk(&mdl.blkmq, "vda");
	assert_non_null(d);
	assert_string_equal(d->controller, "");
	assert_int_equal(d->nqueues, 1);
	assert_false(d->queues[0].has_irq);
	assert_string_equal(d->queues[0].cpu_list, "0-3");
	model_free(&mdl);
	sb_free(&sb);
}

/* the NUMA nodes: read, copied, encoded, each CPU's node in the model */
static void test_numa(void **state)
{
	struct chain *c = *state;
	struct encode_opts o = { .host = "db1", .mode = "compute", .whole_only = true };
	struct strbuf sb = { 0 };
	struct model mdl = { 0 };

	assert_int_equal(c->s1.numa.n, 2);
	assert_int_equal(c->s1.numa.rows[1].node, 1);
	assert_string_equal(c->s1.numa.rows[1].cpu_list, "2-3");
	encode_sample(&sb, &c->s1, &c->m, &o);
	assert_non_null(strstr(sb.buf, "\"numa\":[{\"node\":0,\"cpus\":\"0-1\"},"
				       "{\"node\":1,\"cpus\":\"2-3\"}]"));
	assert_int_equal(model_apply_text(&mdl, sb.buf, sb.len, MODEL_VIEW), 0);
	assert_int_equal(mdl.ncpus, 5);
	assert_int_equal(mdl.cpus[0].node, -1); /* all */
	assert_int_equal(mdl.cpus[1].node, 0);
	assert_int_equal(mdl.cpus[2].node, 0);
	assert_int_equal(mdl.cpus[3].node, 1);
	assert_int_equal(mdl.cpus[4].node, 1);
	model_free(&mdl);
	sb_free(&sb);
}

/* a malformed section is named and costs only itself */
static void test_malformed(void **state)
{
	static const char doc[] =
	    "{\"version\":1,\"sample\":2,\"timestamp_ms\":1000,\"interval_ms\":1000,"
	    "\"cpu-load\":[{\"cpu\":\"all\",\"idle\":90.0}],"
	    "\"blk-mq\":[{\"disk\":\"nvme0n1\",\"queues\":[{\"hctx\":\"x\"}]}]}";
	struct model m = { 0 };

	(void)state;
	assert_int_equal(model_apply_text(&m, doc, strlen(doc), MODEL_VIEW), 0);
	assert_false(m.blkmq.present);
	assert_string_equal(m.blkmq_bad, "the blk-mq section is malformed");
	assert_int_equal(m.ncpus, 1);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect),	   cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_controller), cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_malformed),  cmocka_unit_test(test_numa),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
