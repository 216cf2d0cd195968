// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage's numbers as the live view draws them (issue 25, "Where
 * it shows"), from a real daemon sample with a "trace" section
 * (tests/fixtures/trace-live/sample.json, its README says how it was
 * recorded): the document is decoded into the TUI's model and the screen is
 * drawn into an ncurses terminal whose output goes to /dev/null; the lines
 * are read back from the screen. No BPF, no tty, no clock.
 */
#include <errno.h>
#include <json-c/json.h>
#include <ncurses.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "source.h"
#include "ui.h"

#define SAMPLE FIXTURES_DIR "/trace-live/sample.json"

static struct json_object *load_sample(void)
{
	struct json_object *o = json_object_from_file(SAMPLE);

	assert_non_null(o);
	return o;
}

struct term {
	struct ui *ui;
	SCREEN *scr;
	FILE *out;
	char lines[64][512];
	int rows, cols;
};

static void term_open(struct term *t, int cols, int rows)
{
	struct source_opts so = { .embedded = true, .root = FIXTURES_DIR "/nvme-chain/t0" };
	char err[256];

	memset(t, 0, sizeof(*t));
	t->ui = calloc(1, sizeof(*t->ui));
	assert_non_null(t->ui);
	assert_int_equal(source_open(&so, &t->ui->src, err, sizeof(err)), 0);
	t->ui->utf8 = false;
	t->ui->await_ms = 20;
	t->out = fopen("/dev/null", "w");
	assert_non_null(t->out);
	setenv("TERM", "xterm", 1);
	t->scr = newterm(NULL, t->out, stdin);
	assert_non_null(t->scr);
	resizeterm(rows, cols);
	t->rows = rows;
	t->cols = cols;
}

static void dump(const struct term *t)
{
	for (int y = 0; y < t->rows; y++)
		fprintf(stderr, "|%s\n", t->lines[y]);
}

/* Draws doc (a sample document; consumed) and reads the screen back. */
static void term_draw(struct term *t, struct json_object *doc)
{
	assert_int_equal(model_apply(&t->ui->model, doc, MODEL_VIEW), 0);
	json_object_put(doc);
	/* twice: the first frame orders the panels, the second lays them out
	 * with their row counts, as the live loop's next frame does */
	ui_draw(t->ui);
	ui_draw(t->ui);
	for (int y = 0; y < t->rows && y < 64; y++) {
		mvinnstr(y, 0, t->lines[y], t->cols);
		/* trailing blanks off */
		for (size_t n = strlen(t->lines[y]); n && t->lines[y][n - 1] == ' ';)
			t->lines[y][--n] = '\0';
	}
	if (getenv("TUI_TRACE_DUMP")) /* to see the screens */
		dump(t);
}

static void term_close(struct term *t)
{
	endwin();
	delscreen(t->scr);
	fclose(t->out);
	source_close(t->ui->src);
	/* as the live view's exit does */
	for (size_t i = 0; ui_views[i]; i++)
		if (ui_views[i]->free)
			ui_views[i]->free(t->ui);
	model_free(&t->ui->model);
	for (int i = 0; i < PANEL__COUNT; i++)
		free(t->ui->panels[i].order);
	free(t->ui);
}

/* The screen's first line containing s, -1 none. */
static int line_with(const struct term *t, const char *s)
{
	for (int y = 0; y < t->rows; y++)
		if (strstr(t->lines[y], s))
			return y;
	return -1;
}

static void expect(const struct term *t, const char *s)
{
	if (line_with(t, s) < 0) {
		dump(t);
		fail_msg("not on the screen: \"%s\"", s);
	}
}

static void expect_not(const struct term *t, const char *s)
{
	if (line_with(t, s) >= 0) {
		dump(t);
		fail_msg("on the screen: \"%s\"", s);
	}
}

/* The row starting with prefix under the line containing after has s. */
static void expect_row(const struct term *t, const char *after, const char *prefix, const char *s)
{
	for (int y = line_with(t, after); y >= 0 && y < t->rows; y++)
		if (strncmp(t->lines[y], prefix, strlen(prefix)) == 0 && strstr(t->lines[y], s))
			return;
	dump(t);
	fail_msg("no row \"%s\" with \"%s\" under \"%s\"", prefix, s, after);
}

/* The numbers the model takes from the section: unit changes only. */
static void test_model(void **state)
{
	struct model m = { 0 };
	struct json_object *doc = load_sample();
	const struct model_cpu *c1 = NULL, *all = NULL;
	const struct model_disk *loop0 = NULL, *loop1 = NULL;
	const struct model_irq *q36 = NULL, *loc = NULL;
	char buf[128];

	(void)state;
	assert_int_equal(model_apply(&m, doc, MODEL_VIEW), 0);
	json_object_put(doc);
	assert_true(m.trace.present && m.trace.available && m.trace.soft && m.trace.hard &&
		    m.trace.block);
	assert_string_equal(m.trace.off, "");
	for (size_t i = 0; i < m.ncpus; i++) {
		if (m.cpus[i].cpu == 1)
			c1 = &m.cpus[i];
		if (m.cpus[i].cpu == -1)
			all = &m.cpus[i];
	}
	if (!c1 || !all) {
		fail_msg("no CPU 1 or all");
		return;
	}
	/* "BLOCK": 37883.86 µs/s on CPU 1: 3.79 % of it; "all": over 2 CPUs */
	assert_float_equal(c1->trace.soft_pct[MODEL_SOFT_BLOCK], 3.788386, 1e-6);
	assert_float_equal(all->trace.soft_pct[MODEL_SOFT_BLOCK], (726.17 + 37883.86) / 2e4, 1e-6);
	assert_float_equal(c1->trace.hard_pct, 160.9 / 1e4, 1e-9);
	model_trace_soft_split(&c1->trace, 1, 40, buf, sizeof(buf));
	assert_string_equal(buf, "BLOCK 3.8 RCU 0.3");
	model_trace_soft_split(&c1->trace, 1, 12, buf, sizeof(buf));
	assert_string_equal(buf, "BLOCK 3.8");
	for (size_t i = 0; i < m.ndisks; i++) {
		if (strcmp(m.disks[i].name, "loop0") == 0)
			loop0 = &m.disks[i];
		if (strcmp(m.disks[i].name, "loop1") == 0)
			loop1 = &m.disks[i];
	}
	if (!loop0 || !loop1) {
		fail_msg("no loop0 or loop1");
		return;
	}
	assert_true(loop0->has[MD_RP99] && loop0->has[MD_WP99]);
	assert_float_equal(loop0->v[MD_RP99], 5.9758, 1e-9);
	assert_float_equal(loop0->v[MD_WP99], 6.16763, 1e-9);
	assert_true(loop0->trace.has_remote);
	assert_float_equal(loop0->trace.remote_pct, 95.11, 1e-9);
	/* no IO: no latency, "-", never 0 */
	assert_false(loop1->has[MD_RP99] || loop1->trace.has_lat);
	for (size_t i = 0; i < m.nirqs; i++) {
		if (strcmp(m.irqs[i].name, "36") == 0)
			q36 = &m.irqs[i];
		if (strcmp(m.irqs[i].name, "LOC") == 0)
			loc = &m.irqs[i];
	}
	if (!q36) {
		fail_msg("no IRQ 36");
		return;
	}
	assert_true(q36->has_time);
	assert_float_equal(q36->time_us_s, 144.17, 1e-9);
	assert_true(!loc || !loc->has_time);
	model_free(&m);
}

/* 100x30: p99 beside the mean awaits, %soft by vector in the CPU rows and
 * the selected CPU's in full, hardirq time per IRQ line. */
static void test_draw_100(void **state)
{
	struct term t;

	(void)state;
	term_open(&t, 100, 30);
	term_draw(&t, load_sample());
	expect(&t, "r_await   r_p99 w_await   w_p99 aqu-sz");
	/* r_await 0.45, r_p99 5.98, w_await 0.45, w_p99 6.17 */
	expect_row(&t, "Device ", "loop0 ", "0.45    5.98    0.45    6.17");
	expect(&t, "%soft by vector");
	expect(&t,
	       " all CPUs by time: %soft BLOCK 1.93 RCU 0.26 TIMER 0.04 SCHED 0.03 | hardirq 0.01");
	/* CPU 1's row: its vectors, the busiest first */
	expect_row(&t, "%soft by vector", "1 ", "BLOCK 3.8 RCU 0.3");
	expect_row(&t, "IRQ     total/s   %cpu device", "36 ", " 0.014 ");
	/* all probes on: nothing said about tracing */
	expect_not(&t, "tracing");
	term_close(&t);
}

/* 80x24: the eight saturated-or-slow columns stay; the split on its line. */
static void test_draw_80(void **state)
{
	struct term t;

	(void)state;
	term_open(&t, 80, 24);
	term_draw(&t, load_sample());
	expect(&t, "Device          r/s      w/s    rkB/s    wkB/s r_await w_await aqu-sz  %util");
	expect_not(&t, "p99");
	expect(&t, " all CPUs by time: %soft BLOCK 1.93 RCU 0.26");
	expect(&t, "IRQ     total/s   %cpu device");
	term_close(&t);
}

/* A hot core: the split line is its own while another panel has the focus
 * (the disks panel's, the default), the selected row's in the CPUs panel. */
static void test_hot(void **state)
{
	struct term t;
	struct json_object *doc, *f, *f0;

	(void)state;
	term_open(&t, 80, 24);
	doc = load_sample();
	json_object_object_get_ex(doc, "findings", &f);
	f0 = json_object_array_get_idx(f, 0);
	json_object_object_add(f0, "kind", json_object_new_string("hot_cpu"));
	json_object_object_add(f0, "subject", json_object_new_string("cpu1"));
	term_draw(&t, json_object_get(doc)); /* kept for the second frame */
	/* 80 columns: the vectors that fit whole beside the hardirq time, no
	 * number cut (SCHED 0.02 left out) */
	expect(&t, " cpu 1 HOT by time: %soft BLOCK 3.79 RCU 0.28 TIMER 0.03 | hardirq 0.02");
	t.ui->focus = PANEL_CPUS;
	term_draw(&t, doc);
	expect(&t, " all CPUs by time: %soft BLOCK 1.93");
	term_close(&t);
}

/* The queue chain of loop0: its latency by op and where it completed. */
static void test_chain(void **state)
{
	struct term t;

	(void)state;
	term_open(&t, 120, 30);
	t.ui->chain.open = true;
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "loop0");
	term_draw(&t, load_sample());
	expect(&t, "> loop0 r_await 0.45 w_await 0.45 ms");
	expect(&t, "  trace: read p50 0.047 p99 5.98 max 8.19 ms, write p50 0.048 p99 6.17 max "
		   "8.19 ms; 95.1% completed on another CPU");
	/* no per-queue rows in this sample: no qBLOCK% column */
	expect_not(&t, "qBLOCK%");
	/* vda: the time queued before issue too */
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "vda");
	term_draw(&t, load_sample());
	expect(&t, "read p50 0.192 p99 0.255 max 0.256 ms (queued p99 0.008)");
	term_close(&t);
}

/* With the per-queue rows ("blk_queues"), each hardware queue's own BLOCK
 * time in the chain view: µs/s as % of a CPU; a row naming no listed queue,
 * or malformed, is left out. */
static void test_chain_queue_time(void **state)
{
	struct term t;
	struct json_object *doc, *tr, *rows;
	static const char *const row_json[] = {
		"{\"disk\":\"loop0\",\"major\":7,\"minor\":0,\"hctx\":0,\"us_s\":12345.67,"
		"\"completed_s\":5400}",
		"{\"disk\":\"loop0\",\"major\":7,\"minor\":0,\"hctx\":9,\"us_s\":99999,"
		"\"completed_s\":1}",
		"{\"disk\":\"vda\",\"major\":254,\"minor\":0,\"hctx\":-1,\"us_s\":5,"
		"\"completed_s\":1}",
	};

	(void)state;
	term_open(&t, 120, 30);
	t.ui->chain.open = true;
	doc = load_sample();
	json_object_object_get_ex(doc, "trace", &tr);
	rows = json_object_new_array();
	for (size_t i = 0; i < sizeof(row_json) / sizeof(row_json[0]); i++)
		json_object_array_add(rows, json_tokener_parse(row_json[i]));
	json_object_object_add(tr, "blk_queues", rows);
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "loop0");
	term_draw(&t, json_object_get(doc)); /* kept for the second frame */
	expect(&t, " BLOCK% qBLOCK%");
	expect(&t, "    1.23");
	expect_not(&t, "999.99");
	/* vda's only row is malformed (hctx -1): no column for it */
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "vda");
	term_draw(&t, doc);
	expect(&t, "> vda ");
	expect_not(&t, "qBLOCK%");
	term_close(&t);
}

/* The sample with a second queue listed for loop0 (hctx 1) and the
 * device stage per hardware queue ("disks[].hctx") injected: loop0's
 * hctx 0 (reads and writes), 1 (reads) and 7 (not listed: left out). */
static struct json_object *sample_with_hctx(void)
{
	struct json_object *doc = load_sample(), *mq, *tr, *disks;

	assert_true(json_object_object_get_ex(doc, "blk-mq", &mq));
	for (size_t i = 0; i < json_object_array_length(mq); i++) {
		struct json_object *d = json_object_array_get_idx(mq, i), *qs, *name;

		json_object_object_get_ex(d, "disk", &name);
		if (strcmp(json_object_get_string(name), "loop0") != 0)
			continue;
		json_object_object_get_ex(d, "queues", &qs);
		json_object_array_add(qs, json_tokener_parse("{\"hctx\":1,\"cpu_list\":\"1\"}"));
		json_object_object_add(d, "nr_hw_queues", json_object_new_int(2));
	}
	assert_true(json_object_object_get_ex(doc, "trace", &tr));
	assert_true(json_object_object_get_ex(tr, "disks", &disks));
	for (size_t i = 0; i < json_object_array_length(disks); i++) {
		struct json_object *d = json_object_array_get_idx(disks, i), *name;

		json_object_object_get_ex(d, "disk", &name);
		if (!strcmp(json_object_get_string(name), "loop0"))
			json_object_object_add(
			    d, "hctx",
			    json_tokener_parse(
				"[{\"hctx\":0,\"read\":{\"count_s\":100,\"p50_us\":40,"
				"\"p99_us\":5980,\"max_us\":8192,\"remote_pct\":0},"
				"\"write\":{\"count_s\":400,\"p50_us\":40,\"p99_us\":250,"
				"\"max_us\":256,\"remote_pct\":0}},"
				"{\"hctx\":1,\"read\":{\"count_s\":9,\"p50_us\":40,"
				"\"p99_us\":12340,\"max_us\":16384,\"remote_pct\":0}},"
				"{\"hctx\":7,\"read\":{\"count_s\":9,\"p50_us\":40,"
				"\"p99_us\":777000,\"max_us\":1048576,\"remote_pct\":0}}]"));
		else /* vda: malformed (a negative p99): left out */
			json_object_object_add(
			    d, "hctx",
			    json_tokener_parse("[{\"hctx\":0,\"read\":{\"count_s\":1,"
					       "\"p99_us\":-5}}]"));
	}
	return doc;
}

/* Each queue's device p99 (ms) in the chain view: reads' and writes' when
 * the width has room, else the busier op's; "-" where a queue has none. */
static void test_chain_queue_p99(void **state)
{
	struct term t;

	(void)state;
	term_open(&t, 120, 30);
	t.ui->chain.open = true;
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "loop0");
	term_draw(&t, sample_with_hctx());
	expect(&t, " BLOCK%  r_p99  w_p99");
	expect_row(&t, "r_p99", "   0 ", "   5.98  0.250");
	expect_row(&t, "r_p99", "   1 ", "  12.34      -");
	expect_not(&t, "777");
	/* narrower: one column, the busier op's (hctx 0: the writes) */
	term_close(&t);
	term_open(&t, 92, 30);
	t.ui->chain.open = true;
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "loop0");
	term_draw(&t, sample_with_hctx());
	expect(&t, " BLOCK%    p99");
	expect_not(&t, "r_p99");
	expect_row(&t, "p99", "   0 ", "  0.250");
	expect_row(&t, "p99", "   1 ", "  12.34");
	/* vda's only row is malformed: no column */
	snprintf(t.ui->chain.disk, sizeof(t.ui->chain.disk), "vda");
	term_draw(&t, sample_with_hctx());
	expect(&t, "> vda ");
	expect_not(&t, "p99  ");
	expect_not(&t, " BLOCK%    p99");
	term_close(&t);
}

/* Without "trace" nothing changes: no empty column, no line. */
static void test_absent(void **state)
{
	struct term t;
	struct json_object *doc;

	(void)state;
	term_open(&t, 100, 30);
	doc = load_sample();
	json_object_object_del(doc, "trace");
	term_draw(&t, doc);
	expect(&t, "r_await w_await aqu-sz");
	expect_not(&t, "p99");
	expect_not(&t, "by vector");
	expect_not(&t, "by time");
	expect_not(&t, "%cpu");
	expect_not(&t, "tracing");
	expect(&t, "IRQ     total/s device");
	term_close(&t);
}

/* Unavailable, or a probe off over budget: said once, in the header. */
static void test_unavailable(void **state)
{
	struct term t;
	struct json_object *doc, *tr, *probes, *block;

	(void)state;
	term_open(&t, 100, 30);
	doc = load_sample();
	tr = json_object_new_object();
	json_object_object_add(tr, "available", json_object_new_boolean(0));
	json_object_object_add(tr, "reason", json_object_new_string("no BTF: /x: No such file"));
	json_object_object_add(doc, "trace", tr);
	term_draw(&t, doc);
	expect(&t, "tracing: unavailable (no BTF: /x: No such file)");
	expect_not(&t, "p99");
	expect_not(&t, "by time");
	term_close(&t);

	/* 80x24: the one line under the header says it; its reason from 30 rows */
	term_open(&t, 80, 24);
	doc = load_sample();
	tr = json_object_new_object();
	json_object_object_add(tr, "available", json_object_new_boolean(0));
	json_object_object_add(tr, "reason", json_object_new_string("no BTF"));
	json_object_object_add(doc, "trace", tr);
	term_draw(&t, doc);
	expect(&t, "tracing n/a");
	term_close(&t);

	term_open(&t, 100, 30);
	doc = load_sample();
	json_object_object_get_ex(doc, "trace", &tr);
	json_object_object_get_ex(tr, "probes", &probes);
	block = json_object_new_object();
	json_object_object_add(block, "on", json_object_new_boolean(0));
	json_object_object_add(block, "reason",
			       json_object_new_string("over budget: 3.10 % of a CPU > 2.00 %"));
	json_object_object_add(probes, "block", block);
	term_draw(&t, doc);
	expect(&t, "tracing: block off (over budget: 3.10 % of a CPU > 2.00 %)");
	expect_not(&t, "p99");
	/* the other probes go on */
	expect(&t, "%soft by vector");
	expect(&t, "%cpu");
	term_close(&t);

	/* every probe on, IOs in no latency row (issue 30): said, counted */
	term_open(&t, 100, 30);
	doc = load_sample();
	json_object_object_get_ex(doc, "trace", &tr);
	json_object_object_get_ex(tr, "probes", &probes);
	json_object_object_get_ex(probes, "block", &block);
	json_object_object_add(block, "lat_dropped", json_object_new_int64(37));
	term_draw(&t, doc);
	expect(&t, "tracing: 37 IOs without a latency row");
	expect(&t, "p99");
	term_close(&t);
	term_open(&t, 80, 24);
	doc = load_sample();
	json_object_object_get_ex(doc, "trace", &tr);
	json_object_object_get_ex(tr, "probes", &probes);
	json_object_object_get_ex(probes, "block", &block);
	json_object_object_add(block, "lat_dropped", json_object_new_int64(37));
	term_draw(&t, doc);
	expect(&t, "tracing: 37 IOs untimed");
	term_close(&t);
}

/* The sample with eth0 busy (9000 pk/s on IRQ 38, virtio2-input.0, landing
 * on CPU 1, the hot core) and, unless untimed, the trace's NAPI rows: eth0's
 * queue 0 at 412345.67 µs/s of NET_RX and the per-CPU backlog. */
static struct json_object *nic_sample(bool timed)
{
	struct json_object *doc = load_sample(), *a, *tr, *f, *f0;
	static const char *const napi_json[] = {
		"{\"napi_id\":0,\"dev\":\"\",\"us_s\":2345.6,\"polls_s\":120,\"packets_s\":480}",
		"{\"napi_id\":8193,\"dev\":\"eth0\",\"ifindex\":2,\"irq\":38,\"queue\":0,\"us_s\":"
		"412345.67,"
		"\"polls_s\":8800,\"packets_s\":9000}",
		/* another NIC's, and a malformed row: neither is eth0's */
		"{\"napi_id\":8194,\"dev\":\"eth1\",\"irq\":40,\"queue\":0,\"us_s\":99999}",
		"{\"napi_id\":-1,\"dev\":\"eth0\",\"us_s\":77777}",
		/* a user's veth named eth0 in a network namespace of its own
		 * (issue 30): listed as such, never on the host's eth0 line */
		"{\"napi_id\":8200,\"dev\":\"eth0\",\"ifindex\":2,\"netns\":4026532174,"
		"\"host\":false,\"queue\":0,\"us_s\":463500,\"polls_s\":9,\"packets_s\":9}",
		/* a host device that was called eth0 when its row was made
		 * (ifindex 9, renamed since): the NIC is matched by ifindex */
		"{\"napi_id\":8201,\"dev\":\"eth0\",\"ifindex\":9,\"host\":true,\"us_s\":100000}",
	};

	json_object_object_get_ex(doc, "nics", &a);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *n = json_object_array_get_idx(a, i), *irqs, *v, *name;

		json_object_object_get_ex(n, "name", &name);
		if (strcmp(json_object_get_string(name), "eth0") != 0)
			continue;
		json_object_object_add(n, "ifindex", json_object_new_int(2));
		json_object_object_add(n, "rxpck/s", json_object_new_double(9000));
		json_object_object_add(n, "rxkB/s", json_object_new_double(812.4));
		json_object_object_get_ex(n, "irqs", &irqs);
		v = json_object_array_get_idx(irqs, 1); /* 38 virtio2-input.0 */
		json_object_object_add(v, "total/s", json_object_new_double(9000));
		json_object_object_add(v, "busiest_cpu", json_object_new_int(1));
		json_object_object_add(v, "busiest_cpu/s", json_object_new_double(9000));
	}
	json_object_object_get_ex(doc, "interrupts", &a);
	json_object_array_add(
	    a, json_tokener_parse("{\"name\":\"38\",\"chip\":\"PCI-MSIX-0000:00:03.0\","
				  "\"hwirq\":\"1-edge\",\"actions\":\"virtio2-"
				  "input.0\",\"total/s\":9000,\"cpus\":{\"1\":9000}}"));
	json_object_object_get_ex(doc, "findings", &f);
	f0 = json_object_array_get_idx(f, 0);
	json_object_object_add(f0, "kind", json_object_new_string("hot_cpu"));
	json_object_object_add(f0, "subject", json_object_new_string("cpu1"));
	if (!timed) {
		json_object_object_del(doc, "trace");
		return doc;
	}
	json_object_object_get_ex(doc, "trace", &tr);
	a = json_object_new_array();
	for (size_t i = 0; i < sizeof(napi_json) / sizeof(napi_json[0]); i++)
		json_object_array_add(a, json_tokener_parse(napi_json[i]));
	json_object_object_add(tr, "napi", a);
	return doc;
}

/* The NIC line: its NET_RX time (its NAPIs', % of one CPU) and each
 * queue's beside its IRQ; at 80 columns the lowest fields go whole. */
static void test_nic_line(void **state)
{
	struct term t;
	struct model m = { 0 };
	double pct = 0;
	struct json_object *doc;
	int y;

	(void)state;
	doc = nic_sample(true);
	assert_int_equal(model_apply(&m, doc, MODEL_VIEW), 0);
	json_object_put(doc);
	assert_true(m.napi.present);
	assert_int_equal(m.napi.n, 5); /* the malformed row left out */
	assert_true(model_trace_napi_dev(&m.napi, "eth0", 2, -1, &pct));
	assert_float_equal(pct, 41.234567, 1e-9); /* not the veth's 46.35 %, nor ifindex 9's */
	assert_string_equal(m.napi.v[3].dev, "netns 4026532174 eth0");
	assert_false(model_trace_napi_dev(&m.napi, "ifb0", 3, -1, &pct));
	model_free(&m);

	term_open(&t, 200, 40);
	term_draw(&t, nic_sample(true));
	expect(&t,
	       "nic eth0       up         NET_RX 41.23%  rx 812.40 kB/s 9000 pk/s  tx 0.00 kB/s "
	       "0 pk/s  combined 1/1  IRQs 38:cpu1(41.23%), 37 39 idle  coalesce rx-usecs 0 "
	       "adaptive-rx off");
	term_close(&t);

	/* 80: the time and where it runs before the rates, channels and coalescing */
	term_open(&t, 80, 24);
	term_draw(&t, nic_sample(true));
	y = line_with(&t, "nic eth0 ");
	if (y < 0) {
		dump(&t);
		fail_msg("no NIC line at 80 columns");
		return;
	}
	assert_string_equal(t.lines[y], "nic eth0       up         NET_RX 41.23%  IRQs "
					"38:cpu1(41.23%), 37 39 idle");
	term_close(&t);

	/* 60: the IRQs list does not fit even cut at a queue: it goes whole */
	term_open(&t, 60, 30);
	term_draw(&t, nic_sample(true));
	y = line_with(&t, "nic eth0 ");
	assert_true(y >= 0);
	assert_string_equal(t.lines[y], "nic eth0       up         NET_RX 41.23%");
	term_close(&t);

	/* without the trace: as before it, no NET_RX */
	term_open(&t, 200, 40);
	term_draw(&t, nic_sample(false));
	expect(&t, "nic eth0       up         rx 812.40 kB/s 9000 pk/s  tx 0.00 kB/s 0 pk/s  "
		   "combined 1/1  IRQs 38:cpu1, 37 39 idle  coalesce");
	expect_not(&t, "NET_RX");
	term_close(&t);
}

/* Enter on the NIC line (the IRQs panel's first row): its queues, the
 * busiest first, NAPI and IRQ, the CPU it landed on (HOT), that CPU's load
 * and NET_RX share, the queue's own NET_RX time, polls and packets; the
 * backlog its own row. */
static void test_nic_chain(void **state)
{
	struct term t;
	struct json_object *doc;
	int y;

	(void)state;
	term_open(&t, 120, 30);
	doc = nic_sample(true);
	term_draw(&t, json_object_get(doc));
	t.ui->focus = PANEL_IRQS;
	term_draw(&t, json_object_get(doc));
	expect(&t, "nic eth0 ");
	assert_string_equal(view_selected(t.ui, PANEL_IRQS), "nic eth0");
	/* the NIC line leads the order; the title counts the IRQ lines only */
	expect(&t, "> IRQs (8)");
	expect(&t, "History: none kept for a NIC line (Enter: its queues)");
	assert_int_equal(view_irqs.on_key(t.ui, '\n'), UI_REDRAW);
	assert_true(t.ui->chain.open);
	assert_string_equal(t.ui->chain.nic, "eth0");
	term_draw(&t, json_object_get(doc));
	expect(&t, "> nic eth0 NET_RX 41.23% of a CPU; rx 812.40 kB/s 9000 pk/s, tx 0.00 kB/s 0 "
		   "pk/s; 1 rx 1 tx queues, combined 1/1");
	expect(&t, "queue     NAPI IRQ   handler             irq/s on CPU   %irq+%soft NET_RX% "
		   "qNET_RX%  polls/s     pk/s");
	y = line_with(&t, "queue     NAPI");
	assert_true(y >= 0);
	/* busiest first: eth0's queue 0 on the hot core, then the backlog */
	assert_true(strncmp(t.lines[y + 1], "0         8193 38    virtio2-input.0   9000.00 1 HOT",
			    52) == 0);
	expect_row(&t, "queue     NAPI", "0 ", "   41.23     8800     9000");
	assert_true(strncmp(t.lines[y + 2], "backlog      - -     lo netif_rx RPS ", 37) == 0);
	expect_row(&t, "queue     NAPI", "backlog ", "   0.235      120      480");
	/* the vectors no NAPI names, after */
	expect_row(&t, "queue     NAPI", "-            - 37    virtio2-config ", "-");
	expect_not(&t, "eth1");
	expect_not(&t, "77777");
	term_close(&t);

	/* 80 columns: no handler, no polls/s; every row within the width */
	term_open(&t, 80, 24);
	t.ui->chain.open = true;
	snprintf(t.ui->chain.nic, sizeof(t.ui->chain.nic), "eth0");
	term_draw(&t, json_object_get(doc));
	expect(&t, "queue     NAPI IRQ      irq/s on CPU   %irq+%soft NET_RX% qNET_RX%     pk/s");
	expect_row(&t, "queue     NAPI", "0 ", "9000.00 1 HOT");
	expect_row(&t, "queue     NAPI", "0 ", "   41.23     9000");
	expect_not(&t, "handler");
	term_close(&t);
	json_object_put(doc);

	/* without --trace: the queues, IRQs and CPUs, and what the time needs */
	term_open(&t, 120, 30);
	t.ui->chain.open = true;
	snprintf(t.ui->chain.nic, sizeof(t.ui->chain.nic), "eth0");
	term_draw(&t, nic_sample(false));
	expect(&t, "  NET_RX time per queue: needs --trace (iotriage --trace as root, or iotriaged "
		   "--trace)");
	expect(&t, "queue     NAPI IRQ   handler             irq/s on CPU   %irq+%soft");
	expect_not(&t, "NET_RX%");
	expect_row(&t, "queue     NAPI", "-            - 38    virtio2-input.0 ", "1 HOT");
	expect_not(&t, "backlog");
	term_close(&t);

	/* the softirq probe off over its budget: no napi rows, and why */
	term_open(&t, 120, 30);
	t.ui->chain.open = true;
	snprintf(t.ui->chain.nic, sizeof(t.ui->chain.nic), "eth0");
	doc = nic_sample(true);
	{
		struct json_object *tr, *probes, *soft;

		json_object_object_get_ex(doc, "trace", &tr);
		json_object_object_del(tr, "napi");
		json_object_object_get_ex(tr, "probes", &probes);
		soft = json_object_new_object();
		json_object_object_add(soft, "on", json_object_new_boolean(0));
		json_object_object_add(soft, "reason",
				       json_object_new_string("over budget: 6.54 % "
							      "of a CPU > 2.00 %"));
		json_object_object_add(probes, "softirq", soft);
	}
	term_draw(&t, doc);
	expect(&t, "  NET_RX time per queue: tracing: softirq off (over budget: 6.54 % of a CPU > "
		   "2.00 %)");
	expect_not(&t, "NET_RX%");
	term_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_draw_100),
		cmocka_unit_test(test_draw_80),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_hot),
		cmocka_unit_test(test_chain_queue_time),
		cmocka_unit_test(test_chain_queue_p99),
		cmocka_unit_test(test_nic_line),
		cmocka_unit_test(test_nic_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
