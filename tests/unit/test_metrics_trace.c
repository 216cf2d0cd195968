// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics_trace.c and encode_trace.c on hand-made reads of the tracing
 * stage's maps: rates from differences, rows paired by identity (not by
 * position), a counter that went down gives no row, percentiles inside
 * their log2 bucket, and the JSON of an unavailable stage.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "encode_trace.h"
#include "metrics_trace.h"
#include "trace_cgroup.h"

#define NCPU 2

/* a read with every probe on, at t_ns */
static void raw_init(struct trace_raw *r, int64_t t_ns)
{
	memset(r, 0, sizeof(*r));
	r->valid = true;
	r->mono_ns = t_ns;
	r->ncpu = NCPU;
	for (int k = 0; k < TRACE__COUNT; k++)
		r->probe[k].on = r->probe[k].read = true;
	r->soft_ns = calloc(NCPU * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	r->soft_count = calloc(NCPU * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	assert_non_null(r->soft_ns);
	assert_non_null(r->soft_count);
}

static void raw_irqs(struct trace_raw *r, size_t n, const uint32_t *irq, const uint64_t *ns,
		     const uint64_t *cnt)
{
	r->nirq = n;
	r->irq = malloc(n * sizeof(*r->irq));
	r->irq_ns = malloc(n * NCPU * sizeof(*r->irq_ns));
	r->irq_count = malloc(n * NCPU * sizeof(*r->irq_count));
	assert_non_null(r->irq);
	memcpy(r->irq, irq, n * sizeof(*irq));
	memcpy(r->irq_ns, ns, n * NCPU * sizeof(*ns));
	memcpy(r->irq_count, cnt, n * NCPU * sizeof(*cnt));
}

static void test_softirq_rates(void **state)
{
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };

	raw_init(&a, 1000000000);
	raw_init(&b, 3000000000);			 /* 2 s later */
	a.soft_ns[1 * TRACE_NR_SOFTIRQS + 4] = 1000000;	 /* CPU 1, BLOCK */
	b.soft_ns[1 * TRACE_NR_SOFTIRQS + 4] = 5000000;	 /* +4 ms in 2 s */
	b.soft_ns[0 * TRACE_NR_SOFTIRQS + 3] = 20000000; /* CPU 0, NET_RX: +20 ms */
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_true(m.itv_s > 1.999 && m.itv_s < 2.001);
	assert_true(m.soft_us_s[1 * TRACE_NR_SOFTIRQS + 4] > 1999.9 &&
		    m.soft_us_s[1 * TRACE_NR_SOFTIRQS + 4] < 2000.1);
	assert_true(m.soft_us_s[0 * TRACE_NR_SOFTIRQS + 3] > 9999.9 &&
		    m.soft_us_s[0 * TRACE_NR_SOFTIRQS + 3] < 10000.1);
	/* no time between the reads, or reads of different shapes: no metrics */
	assert_int_equal(metrics_trace_compute(&b, &b, NULL, &m), -EINVAL);
	b.ncpu = 1;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), -EINVAL);
	b.ncpu = NCPU;
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

static void test_irq_pairing(void **state)
{
	/* prev has lines 5, 9, 12; cur has 3 (new), 9, 12 (reset: went down) */
	const uint32_t pi[] = { 5, 9, 12 }, ci[] = { 3, 9, 12 };
	const uint64_t pn[] = { 100, 100, 1000, 2000, 9000, 9000 };
	const uint64_t pc[] = { 1, 1, 10, 20, 90, 90 };
	const uint64_t cn[] = { 0, 3000, 1000, 6000, 10, 10 };
	const uint64_t cc[] = { 0, 3, 10, 24, 1, 1 };
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };

	raw_init(&a, 0);
	raw_init(&b, 1000000000);
	raw_irqs(&a, 3, pi, pn, pc);
	raw_irqs(&b, 3, ci, cn, cc);
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_int_equal(m.nirq, 2);
	assert_int_equal(m.irq[0], 3); /* new: rated from zero */
	assert_true(m.irq_us_s[0 * NCPU + 1] > 2.99 && m.irq_us_s[0 * NCPU + 1] < 3.01);
	assert_int_equal(m.irq[1], 9); /* paired by number, not by row */
	assert_true(m.irq_us_s[1 * NCPU + 0] < 0.001);
	assert_true(m.irq_us_s[1 * NCPU + 1] > 3.99 && m.irq_us_s[1 * NCPU + 1] < 4.01);
	assert_true(m.irq_cnt_s[1 * NCPU + 1] > 3.99 && m.irq_cnt_s[1 * NCPU + 1] < 4.01);
	assert_true(m.hard_us_s[1] > 6.99 && m.hard_us_s[1] < 7.01);
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

static void test_quantiles(void **state)
{
	uint64_t slots[TRACE_HIST_SLOTS] = { 0 };

	assert_true(metrics_trace_quantile(slots, 0, 0.5) == 0);
	/* 100 IOs in [8, 16) µs: the median halfway through the bucket */
	slots[3] = 100;
	assert_true(metrics_trace_quantile(slots, 100, 0.5) > 11.99 &&
		    metrics_trace_quantile(slots, 100, 0.5) < 12.01);
	/* one slow IO in [1024, 2048) µs among 1000: p99.9 reaches it, p99 not */
	slots[3] = 999;
	slots[10] = 1;
	assert_true(metrics_trace_quantile(slots, 1000, 0.99) < 16);
	assert_true(metrics_trace_quantile(slots, 1000, 0.999) >= 15.99);
	assert_true(metrics_trace_quantile(slots, 1000, 1.0) > 2047.9);
	/* bucket 0 holds 0 and 1 µs */
	memset(slots, 0, sizeof(slots));
	slots[0] = 10;
	assert_true(metrics_trace_quantile(slots, 10, 0.5) > 0.99 &&
		    metrics_trace_quantile(slots, 10, 0.5) < 1.01);
}

static void test_latency_rows(void **state)
{
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };
	struct trace_lat_raw *l;

	raw_init(&a, 0);
	raw_init(&b, 1000000000);
	b.nlat = 3;
	b.lat = calloc(3, sizeof(*b.lat));
	a.nlat = 1;
	a.lat = calloc(1, sizeof(*a.lat));
	assert_non_null(b.lat);
	assert_non_null(a.lat);
	/* 7:0 read device: 10 IOs before, 110 now (100 in [64, 128) µs) */
	a.lat[0] = (struct trace_lat_raw){ .major = 7,
					   .op = TRACE_OP_READ,
					   .kind = TRACE_LAT_DEVICE,
					   .count = 10,
					   .sum_ns = 1000000 };
	a.lat[0].slots[6] = 10;
	l = &b.lat[0];
	*l = a.lat[0];
	l->slots[6] += 100;
	l->count += 100;
	l->sum_ns += 100 * 100000; /* 100 µs each */
	l->remote = 25;
	/* 7:0 write queued: new */
	b.lat[1] = (struct trace_lat_raw){ .major = 7,
					   .op = TRACE_OP_WRITE,
					   .kind = TRACE_LAT_QUEUED,
					   .count = 4,
					   .sum_ns = 8000 };
	b.lat[1].slots[1] = 4;
	/* 8:16 flush device */
	b.lat[2] = (struct trace_lat_raw){ .major = 8,
					   .minor = 16,
					   .op = TRACE_OP_FLUSH,
					   .kind = TRACE_LAT_DEVICE,
					   .count = 2,
					   .sum_ns = 2000000 };
	b.lat[2].slots[9] = 2;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_int_equal(m.ndisk, 2);
	assert_int_equal(m.disks[0].major, 7);
	assert_true(m.disks[0].has[TRACE_OP_READ][TRACE_LAT_DEVICE]);
	assert_false(m.disks[0].has[TRACE_OP_READ][TRACE_LAT_QUEUED]);
	assert_int_equal(m.disks[0].lat[TRACE_OP_READ][TRACE_LAT_DEVICE].count, 100);
	assert_true(m.disks[0].lat[TRACE_OP_READ][TRACE_LAT_DEVICE].mean_us > 99.99 &&
		    m.disks[0].lat[TRACE_OP_READ][TRACE_LAT_DEVICE].mean_us < 100.01);
	assert_true(m.disks[0].lat[TRACE_OP_READ][TRACE_LAT_DEVICE].max_us == 128);
	assert_int_equal(m.disks[0].completed, 100); /* queued rows are not completions */
	assert_int_equal(m.disks[0].remote, 25);
	assert_int_equal(m.disks[0].lat[TRACE_OP_WRITE][TRACE_LAT_QUEUED].count, 4);
	assert_int_equal(m.disks[1].minor, 16);
	assert_int_equal(m.disks[1].completed, 2);
	/* a histogram that went down (re-created entry) gives no row */
	b.lat[0].slots[6] = 5;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_false(m.disks[0].has[TRACE_OP_READ][TRACE_LAT_DEVICE]);
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

/* The block probe's per-CPU tables sized from the disk count and the CPUs
 * at load: 300 disks (issue 30: the fixed 512 slots held fewer than their
 * 600 (disk, op) rows) get room for three ops each at most a quarter full;
 * many CPUs shrink the tables to their minimum, never below. */
static void test_table_sizing(void **state)
{
	(void)state;
	assert_int_equal(trace_lat_bits(0, 2), TRACE_LAT_BITS);
	assert_int_equal(trace_lat_bits(40, 2), TRACE_LAT_BITS);
	assert_true((1u << trace_lat_bits(300, 2)) >= 300 * 3 * 4);
	assert_int_equal(trace_lat_bits(300, 2), 12);
	assert_int_equal(trace_lat_bits(100000, 2), TRACE_LAT_BITS_MAX);
	/* 256 CPUs: 512 rows are 74 MB already, the floor */
	assert_int_equal(trace_lat_bits(300, 256), TRACE_LAT_BITS);
	assert_true((uint64_t)(1u << trace_lat_bits(300, 16)) * sizeof(struct trace_lat_row) * 16 <=
		    TRACE_ROWS_BYTES_MAX / 2);
	assert_int_equal(trace_cg_bits(2), TRACE_CG_BITS_MAX);
	assert_true(trace_cg_bits(256) < TRACE_CG_BITS_MAX);
	assert_true((uint64_t)(1u << trace_cg_bits(256)) * sizeof(struct trace_cg_row) * 256 <=
		    TRACE_ROWS_BYTES_MAX / 2);
	assert_int_equal(trace_cg_bits(1u << 20), TRACE_CG_BITS_MIN);
}

/* The (cgroup, disk) rows as the map holds them: a key's copies on two
 * CPUs (or in two slots) merged, free slots, empty stages and buckets that
 * overflow left out, sorted; then the interval's rows and their JSON. */
static void test_cg_rows(void **state)
{
	struct trace_cg_row rows[6] = { 0 };
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };
	struct strbuf sb = { 0 };

	(void)state;
	raw_init(&a, 0);
	raw_init(&b, 2000000000);
	/* cgroup 45 on 7:0: device stage, two CPUs' copies */
	rows[0].cgid = 45;
	rows[0].dev = 7u << 20;
	rows[0].kind[TRACE_LAT_DEVICE].slots[3] = 60;
	rows[0].kind[TRACE_LAT_DEVICE].count = 59; /* a half-done add: buckets win */
	rows[0].kind[TRACE_LAT_DEVICE].sum_ns = 60 * 10000;
	rows[3] = rows[0];
	/* cgroup 31 on 259:1: both stages */
	rows[1].cgid = 31;
	rows[1].dev = 259u << 20 | 1;
	rows[1].kind[TRACE_LAT_QUEUED].slots[0] = 10;
	rows[1].kind[TRACE_LAT_DEVICE].slots[10] = 10;
	rows[1].kind[TRACE_LAT_DEVICE].sum_ns = 10 * 1500000;
	/* a free slot with counts (never kept), an overflowing row */
	rows[2].kind[TRACE_LAT_DEVICE].slots[1] = 5;
	rows[4].cgid = 99;
	rows[4].kind[TRACE_LAT_DEVICE].slots[1] = UINT64_MAX;
	rows[4].kind[TRACE_LAT_DEVICE].slots[2] = 2;
	assert_int_equal(trace_cg_take(rows, 6, &b), 3);
	assert_int_equal(b.cg[0].cgid, 31);
	assert_int_equal(b.cg[0].kind, TRACE_LAT_QUEUED);
	assert_int_equal(b.cg[1].cgid, 31);
	assert_int_equal(b.cg[1].major, 259);
	assert_int_equal(b.cg[1].minor, 1);
	assert_int_equal(b.cg[2].cgid, 45);
	assert_int_equal(b.cg[2].count, 120);
	assert_int_equal(b.cg[2].slots[3], 120);
	snprintf(b.cg[2].path, sizeof(b.cg[2].path), "/bc_b");
	b.cg_read = a.cg_read = true;
	b.cg_dropped = 9;
	b.lat_dropped = 4;
	a.lat_dropped = 1;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_true(m.has_cg);
	assert_int_equal(m.cg_dropped, 9);
	assert_true(m.has_lat_dropped);
	assert_int_equal(m.lat_dropped, 3);
	assert_int_equal(m.ncg, 2);
	assert_int_equal(m.cg[0].cgid, 31);
	assert_true(m.cg[0].has[TRACE_LAT_QUEUED] && m.cg[0].has[TRACE_LAT_DEVICE]);
	assert_true(m.cg[0].lat[TRACE_LAT_DEVICE].mean_us > 1499.9 &&
		    m.cg[0].lat[TRACE_LAT_DEVICE].mean_us < 1500.1);
	assert_true(m.cg[1].count_s > 59.99 && m.cg[1].count_s < 60.01);
	assert_string_equal(m.cg[1].path, "/bc_b");
	encode_trace(&sb, NULL, &b, &m);
	assert_non_null(strstr(sb_cstr(&sb), "\"lat_dropped\":3,"));
	assert_non_null(strstr(sb_cstr(&sb),
			       "{\"path\":\"/bc_b\",\"cgroup_id\":45,\"disk\":\"\","
			       "\"major\":7,\"minor\":0,\"count\":120,\"count_s\":60.00,"
			       "\"d_mean_us\":10.00,"));
	/* a row that went down (the slot re-taken) gives none */
	a.cg = calloc(1, sizeof(*a.cg));
	assert_non_null(a.cg);
	a.ncg = 1;
	a.cg[0] = b.cg[2];
	a.cg[0].slots[3] = 500;
	a.cg[0].count = 500;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_int_equal(m.ncg, 1);
	/* every slot free: no rows; more copies than a map holds are not read */
	memset(rows, 0, sizeof(rows));
	assert_int_equal(trace_cg_take(rows, 6, &b), 0);
	/* one row alone, its mean past its highest bucket: left out, counted
	 * (fuzz_cgrows: the check was skipped for a single row) */
	rows[0].cgid = 31;
	rows[0].kind[TRACE_LAT_DEVICE].slots[2] = 3;
	rows[0].kind[TRACE_LAT_DEVICE].sum_ns = 1000000000;
	b.rows_dropped = 0;
	assert_int_equal(trace_cg_take(rows, 1, &b), 0);
	assert_int_equal(b.rows_dropped, 1);
	sb_free(&sb);
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

/* The io controller's hierarchy from mountinfo: the v1 mount with blkio
 * in its options (hybrid: cgroup2 beside it at .../unified), else the
 * first cgroup2 mount; none: -ENOENT. */
static void test_cg_hierarchy(void **state)
{
	static const char *const cases[][2] = {
		/* this VM: hybrid, blkio on v1 */
		{ "24 1 0:21 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
		  "25 24 0:22 / /sys/fs/cgroup/unified rw,nosuid shared:5 - cgroup2 cgroup2 rw\n"
		  "27 24 0:24 / /sys/fs/cgroup/cpu,cpuacct rw shared:7 - cgroup cgroup "
		  "rw,cpu,cpuacct\n"
		  "31 24 0:28 / /sys/fs/cgroup/blkio rw shared:11 - cgroup cgroup rw,blkio\n",
		  "/sys/fs/cgroup/blkio" },
		/* unified only */
		{ "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 "
		  "rw,nsdelegate,memory_recursiveprot\n",
		  "/sys/fs/cgroup" },
		/* hybrid with io on v2: no v1 blkio mount; a v1 mount whose
		 * options merely contain the word is not one */
		{ "25 24 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
		  "26 24 0:23 / /sys/fs/cgroup/net_cls rw - cgroup cgroup rw,net_cls,blkio_x\n",
		  "/sys/fs/cgroup/unified" },
	};
	char path[] = "/tmp/iotriage-mountinfo-XXXXXX", top[TRACE_CG_TOP_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = mkstemp(path);
		FILE *f;

		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		assert_non_null(f);
		fputs(cases[i][0], f);
		fclose(f);
		assert_true(trace_cg_hierarchy(path, top, sizeof(top)) > 0);
		assert_string_equal(top, cases[i][1]);
		assert_int_equal(trace_cg_hierarchy(path, top, sizeof(top)), i == 0 ? 1 : 2);
		unlink(path);
		strcpy(path, "/tmp/iotriage-mountinfo-XXXXXX");
	}
	assert_int_equal(trace_cg_hierarchy("/nonexistent/mountinfo", top, sizeof(top)), -ENOENT);
}

static void test_encode_unavailable(void **state)
{
	struct strbuf sb = { 0 };

	encode_trace(&sb, "no BTF: /x: No such file or directory", NULL, NULL);
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "\"trace\":{\"available\":false,\"reason\":\"no BTF: /x: No "
				    "such file or directory\"},");
	sb_free(&sb);
}

static void test_encode_probe_off(void **state)
{
	struct trace_raw a;
	struct strbuf sb = { 0 };

	raw_init(&a, 0);
	a.budget_pct = 2;
	a.stats = true;
	a.probe[TRACE_BLOCK].on = false;
	strcpy(a.probe[TRACE_BLOCK].reason, "over budget: 3.000 % of a CPU > 2.000 %");
	encode_trace(&sb, NULL, &a, NULL);
	assert_non_null(strstr(sb.buf, "\"block\":{\"on\":false,\"reason\":\"over budget: "
				       "3.000 % of a CPU > 2.000 %\"}"));
	assert_non_null(strstr(sb.buf, "\"hardirq\":{\"on\":true}"));
	sb_free(&sb);
	trace_raw_free(&a);
}

/* the block probe's sampling (1 in N requests timed) is said in its entry */
static void test_encode_sampled(void **state)
{
	struct trace_raw a;
	struct strbuf sb = { 0 };

	raw_init(&a, 0);
	a.block_sample = 4;
	encode_trace(&sb, NULL, &a, NULL);
	assert_non_null(strstr(sb.buf, "\"block\":{\"on\":true,\"sampled\":4}"));
	assert_non_null(strstr(sb.buf, "\"softirq\":{\"on\":true}"));
	sb_free(&sb);
	trace_raw_free(&a);
}

/* per-queue softirq load: rows paired by identity (napi_id; disk+hctx), a
 * new row counted from 0, a re-created one (counter down) and an idle one
 * left out, named from the disk table; absent unless read in both reads */
static void test_queues(void **state)
{
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct disk_table names = { 0 };
	struct disk_raw row = { .major = 7, .minor = 0, .name = "loop0" };

	names.rows = &row;
	names.n = 1;
	raw_init(&a, 0);
	raw_init(&b, 2000000000); /* 2 s */
	a.napi_read = b.napi_read = a.blkq_read = b.blkq_read = true;
	a.host_netns = b.host_netns = 4026531833u;
	a.nnapi = 3;
	a.napi = calloc(3, sizeof(*a.napi));
	b.nnapi = 4;
	b.napi = calloc(4, sizeof(*b.napi));
	assert_non_null(a.napi);
	assert_non_null(b.napi);
	/* a: ids 0 (backlog), 8193 (eth0 rx-1, IRQ 41), 8194 (re-created in b) */
	a.napi[0] = (struct trace_napi_raw){ .napi_id = 0, .irq = -1, .index = -1, .ns = 1000 };
	a.napi[1] = (struct trace_napi_raw){ .napi_id = 8193,
					     .irq = 41,
					     .index = 1,
					     .dev = "eth0",
					     .ifindex = 2,
					     .netns = 4026531833u,
					     .ns = 2000000,
					     .polls = 10,
					     .work = 100 };
	a.napi[2] = (struct trace_napi_raw){ .napi_id = 8194, .ns = 9000000, .polls = 9 };
	/* b: the backlog idle, 8193 +4 ms, 8194 went down, 8195 new (+2 ms) */
	b.napi[0] = a.napi[0];
	b.napi[1] = a.napi[1];
	b.napi[1].ns += 4000000;
	b.napi[1].polls += 20;
	b.napi[1].work += 1000;
	b.napi[2] = (struct trace_napi_raw){ .napi_id = 8194, .ns = 10, .polls = 1 };
	/* 8195: a veth named eth0 in a namespace of its own, ifindex 2 there
	 * too: never the host's eth0 */
	b.napi[3] = (struct trace_napi_raw){ .napi_id = 8195,
					     .irq = 42,
					     .index = 2,
					     .dev = "eth0",
					     .ifindex = 2,
					     .netns = 4026532174u,
					     .ns = 2000000,
					     .polls = 2,
					     .work = 8 };
	a.nblkq = 1;
	a.blkq = calloc(1, sizeof(*a.blkq));
	b.nblkq = 2;
	b.blkq = calloc(2, sizeof(*b.blkq));
	assert_non_null(a.blkq);
	assert_non_null(b.blkq);
	a.blkq[0] = (struct trace_blkq_raw){
		.major = 7, .minor = 0, .hctx = 1, .ns = 1000000, .count = 10
	};
	b.blkq[0] =
	    (struct trace_blkq_raw){ .major = 7, .minor = 0, .hctx = 0, .ns = 600000, .count = 60 };
	b.blkq[1] = a.blkq[0];
	b.blkq[1].ns += 3000000;
	b.blkq[1].count += 200;

	assert_int_equal(metrics_trace_compute(&a, &b, &names, &m), 0);
	assert_true(m.has_napi);
	assert_int_equal(m.nnapi, 2);
	assert_int_equal(m.napi[0].napi_id, 8193);
	assert_float_equal(m.napi[0].us_s, 2000.0, 1e-9);
	assert_float_equal(m.napi[0].polls_s, 10.0, 1e-9);
	assert_float_equal(m.napi[0].packets_s, 500.0, 1e-9);
	assert_int_equal(m.napi[1].napi_id, 8195);
	assert_float_equal(m.napi[1].us_s, 1000.0, 1e-9);
	assert_false(m.napi[0].foreign);
	assert_true(m.napi[1].foreign);
	assert_true(m.has_blkq);
	assert_int_equal(m.nblkq, 2);
	assert_int_equal(m.blkq[0].hctx, 0);
	assert_float_equal(m.blkq[0].us_s, 300.0, 1e-9);
	assert_float_equal(m.blkq[0].completed_s, 30.0, 1e-9);
	assert_int_equal(m.blkq[1].hctx, 1);
	assert_float_equal(m.blkq[1].us_s, 1500.0, 1e-9);
	assert_string_equal(m.blkq[1].name, "loop0");

	encode_trace(&sb, NULL, &b, &m);
	assert_non_null(strstr(sb.buf, "\"napi\":[{\"napi_id\":8193,\"dev\":\"eth0\",\"ifindex\":2,"
				       "\"netns\":4026531833,\"host\":true,\"irq\":41,"
				       "\"queue\":1,\"us_s\":2000.00,\"polls_s\":10.00,"
				       "\"packets_s\":500.00},{\"napi_id\":8195,\"dev\":\"eth0\","
				       "\"ifindex\":2,\"netns\":4026532174,\"host\":false,"));
	assert_non_null(strstr(sb.buf, "\"blk_queues\":[{\"disk\":\"loop0\",\"major\":7,"
				       "\"minor\":0,\"hctx\":0,\"us_s\":300.00,"
				       "\"completed_s\":30.00},"));
	sb_free(&sb);

	/* not read in one of the two (the softirq probe off): no key at all */
	a.napi_read = false;
	a.blkq_read = false;
	assert_int_equal(metrics_trace_compute(&a, &b, &names, &m), 0);
	assert_false(m.has_napi);
	assert_false(m.has_blkq);
	encode_trace(&sb, NULL, &b, &m);
	assert_null(strstr(sb.buf, "\"napi\""));
	assert_null(strstr(sb.buf, "\"blk_queues\""));
	sb_free(&sb);
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

/* The probe's shared per-queue rows as the map holds them: free slots,
 * damage and a key in two slots, into sorted rows within bounds. */
static void test_hlat_take(void **state)
{
	uint32_t dev7 = 7u << 20;
	struct trace_hlat_row *rows = calloc(TRACE_MAX_HLAT + 1, sizeof(*rows));
	struct trace_raw r = { 0 };

	assert_non_null(rows);
	rows[0].slots[4] = 9; /* a free slot (key 0): whatever it holds */
	/* hctx 2 read: buckets but a count of 0 (caught between two adds) */
	rows[1].key = trace_hlat_key(dev7, 2, TRACE_OP_READ);
	rows[1].slots[6] = 50;
	/* hctx 0 write: more remote IOs than IOs */
	rows[2].key = trace_hlat_key(dev7, 0, TRACE_OP_WRITE);
	rows[2].slots[3] = 10;
	rows[2].count = 10;
	rows[2].remote = 99;
	rows[3].key = trace_hlat_key(dev7, 0, 8); /* an op past the table */
	rows[3].slots[3] = 1;
	rows[4].key = trace_hlat_key(dev7, TRACE_HCTX_MAX, TRACE_OP_READ); /* past the bound */
	rows[4].slots[3] = 1;
	/* buckets whose sum overflows a counter */
	rows[5].key = trace_hlat_key(dev7 | 1, 0, TRACE_OP_READ);
	rows[5].slots[0] = UINT64_MAX;
	rows[5].slots[1] = 1;
	/* hctx 2 read again: merged with slot 1's */
	rows[6].key = rows[1].key;
	rows[6].slots[6] = 5;
	rows[6].remote = 5;
	rows[7].key = trace_hlat_key(dev7, 5, TRACE_OP_READ); /* taken, no IO yet */
	rows[8].key = trace_hlat_key(dev7, 0, TRACE_OP_READ);
	rows[8].slots[5] = 1;
	rows[8].sum_ns = 40000;
	/* one past the map's size: not a slot */
	rows[TRACE_MAX_HLAT].key = trace_hlat_key(1u << 20, 0, TRACE_OP_READ);
	rows[TRACE_MAX_HLAT].slots[0] = 1;

	assert_int_equal(trace_hlat_take(rows, TRACE_MAX_HLAT + 1, &r), 3);
	assert_int_equal(r.nhlat, 3);
	assert_int_equal(r.hlat[0].major, 7);
	assert_int_equal(r.hlat[0].hctx, 0);
	assert_int_equal(r.hlat[0].op, TRACE_OP_READ);
	assert_int_equal(r.hlat[0].kind, TRACE_LAT_DEVICE);
	assert_int_equal(r.hlat[0].count, 1);
	assert_int_equal(r.hlat[0].sum_ns, 40000);
	assert_int_equal(r.hlat[1].hctx, 0);
	assert_int_equal(r.hlat[1].op, TRACE_OP_WRITE);
	assert_int_equal(r.hlat[1].remote, 10);
	assert_int_equal(r.hlat[2].hctx, 2);
	assert_int_equal(r.hlat[2].count, 55);
	assert_int_equal(r.hlat[2].slots[6], 55);
	assert_int_equal(r.hlat[2].remote, 5);
	/* reused: an empty map leaves no rows */
	memset(rows, 0, (TRACE_MAX_HLAT + 1) * sizeof(*rows));
	assert_int_equal(trace_hlat_take(rows, TRACE_MAX_HLAT, &r), 0);
	assert_int_equal(r.nhlat, 0);
	trace_raw_free(&r);
	free(rows);
}

/* A row of the device stage per hardware queue: (7:0, hctx, op) */
static struct trace_lat_raw hrow(uint32_t hctx, uint8_t op, int slot, uint64_t n, uint64_t remote)
{
	struct trace_lat_raw l = { .major = 7, .hctx = hctx, .op = op, .kind = TRACE_LAT_DEVICE };

	l.slots[slot] = n;
	l.count = n;
	l.sum_ns = n * 1000 * (1u << slot);
	l.remote = remote;
	return l;
}

/* Per hardware queue: rates and the disks' percentiles from the merge of
 * two reads; the queues' IOs add up to the disk's; JSON under the disk. */
static void test_hctx_rows(void **state)
{
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };
	struct strbuf sb = { 0 };
	uint64_t sum = 0;
	char want[256];

	raw_init(&a, 0);
	raw_init(&b, 2000000000); /* 2 s */
	a.hlat_read = b.hlat_read = true;
	a.hlat_dropped = 3;
	b.hlat_dropped = 7;
	a.nhlat = 3;
	a.hlat = calloc(3, sizeof(*a.hlat));
	b.nhlat = 4;
	b.hlat = calloc(4, sizeof(*b.hlat));
	b.nlat = 1;
	b.lat = calloc(1, sizeof(*b.lat));
	assert_non_null(a.hlat);
	assert_non_null(b.hlat);
	assert_non_null(b.lat);
	a.hlat[0] = hrow(0, TRACE_OP_READ, 6, 10, 0);
	a.hlat[1] = hrow(1, TRACE_OP_READ, 4, 100, 0);
	a.hlat[2] = hrow(3, TRACE_OP_READ, 4, 100, 0);
	/* hctx 0: +90 reads in [64, 128) and 10 in [1024, 2048) µs */
	b.hlat[0] = hrow(0, TRACE_OP_READ, 6, 100, 40);
	b.hlat[0].slots[10] = 10;
	b.hlat[0].count += 10;
	b.hlat[1] = hrow(1, TRACE_OP_READ, 4, 300, 0); /* +200 in [16, 32) µs */
	b.hlat[2] = hrow(1, TRACE_OP_WRITE, 2, 2, 2);  /* new */
	b.hlat[3] = a.hlat[2];			       /* idle in the interval */
	/* the disk's row: the same IOs */
	b.lat[0] = hrow(0, TRACE_OP_READ, 6, 100, 40);
	b.lat[0].slots[10] = 10;
	b.lat[0].slots[4] = 300;
	b.lat[0].count = 410;
	b.lat[0].hctx = 0;
	a.nlat = 1;
	a.lat = calloc(1, sizeof(*a.lat));
	assert_non_null(a.lat);
	a.lat[0] = hrow(0, TRACE_OP_READ, 6, 10, 0);
	a.lat[0].slots[4] = 100;

	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_true(m.has_hctx);
	assert_int_equal(m.hctx_dropped, 4);
	assert_int_equal(m.nhctx, 3);
	assert_int_equal(m.hctx[0].hctx, 0);
	assert_int_equal(m.hctx[0].lat.count, 100);
	assert_float_equal(m.hctx[0].count_s, 50.0, 1e-9);
	assert_int_equal(m.hctx[0].remote, 40);
	/* the disks' percentiles, on this queue's buckets */
	assert_float_equal(m.hctx[0].lat.p99_us,
			   metrics_trace_quantile(m.hctx[0].lat.slots, 100, 0.99), 1e-9);
	assert_true(m.hctx[0].lat.p99_us >= 1024 && m.hctx[0].lat.p99_us < 2048);
	assert_true(m.hctx[0].lat.p50_us >= 64 && m.hctx[0].lat.p50_us < 128);
	assert_float_equal(m.hctx[0].lat.max_us, 2048, 1e-9);
	assert_int_equal(m.hctx[1].hctx, 1);
	assert_int_equal(m.hctx[1].op, TRACE_OP_READ);
	assert_int_equal(m.hctx[1].lat.count, 200);
	assert_int_equal(m.hctx[2].op, TRACE_OP_WRITE);
	/* the queues' reads add up to the disk's, bucket by bucket */
	for (int s = 0; s < TRACE_HIST_SLOTS; s++) {
		uint64_t q = 0;

		for (size_t i = 0; i < m.nhctx; i++)
			q += m.hctx[i].op == TRACE_OP_READ ? m.hctx[i].lat.slots[s] : 0;
		assert_int_equal(q, m.disks[0].lat[TRACE_OP_READ][TRACE_LAT_DEVICE].slots[s]);
		sum += q;
	}
	assert_int_equal(sum, m.disks[0].lat[TRACE_OP_READ][TRACE_LAT_DEVICE].count);

	encode_trace(&sb, NULL, &b, &m);
	snprintf(want, sizeof(want),
		 "\"hctx\":[{\"hctx\":0,\"read\":{\"count_s\":50.00,\"p50_us\":%.2f,"
		 "\"p99_us\":%.2f,\"max_us\":2048.00,\"remote_pct\":40.00}},{\"hctx\":1,"
		 "\"read\":{\"count_s\":100.00,",
		 m.hctx[0].lat.p50_us, m.hctx[0].lat.p99_us);
	assert_non_null(strstr(sb.buf, want));
	assert_non_null(strstr(sb.buf,
			       "\"write\":{\"count_s\":1.00,\"p50_us\":6.00,"
			       "\"p99_us\":7.96,\"max_us\":8.00,\"remote_pct\":100.00}}]}"));
	assert_null(strstr(sb.buf, "\"hctx\":3")); /* idle: left out */
	assert_non_null(strstr(sb.buf, "\"hctx_dropped\":4"));
	sb_free(&sb);

	/* a queue's histogram that went down (re-created): no row */
	b.hlat[1].slots[4] = 1;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_int_equal(m.nhctx, 2);
	assert_int_equal(m.hctx[1].op, TRACE_OP_WRITE);
	/* not read in one of the two (a recording before them): no key */
	a.hlat_read = false;
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	assert_false(m.has_hctx);
	encode_trace(&sb, NULL, &b, &m);
	assert_null(strstr(sb.buf, "\"hctx"));
	sb_free(&sb);
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

static void test_encode_idle_cpus_left_out(void **state)
{
	struct trace_raw a, b;
	struct trace_metrics m = { 0 };
	struct strbuf sb = { 0 };

	raw_init(&a, 0);
	raw_init(&b, 1000000000);
	b.soft_ns[1 * TRACE_NR_SOFTIRQS + 1] = 5000; /* CPU 1, TIMER: 5 us/s */
	assert_int_equal(metrics_trace_compute(&a, &b, NULL, &m), 0);
	encode_trace(&sb, NULL, &b, &m);
	/* CPU 0 (a possible CPU that took no time) is left out */
	assert_non_null(strstr(sb.buf, "\"cpus\":[{\"cpu\":1,"));
	assert_null(strstr(sb.buf, "\"cpu\":0"));
	assert_non_null(strstr(sb.buf, "\"TIMER\":5.00"));
	sb_free(&sb);
	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softirq_rates),
		cmocka_unit_test(test_irq_pairing),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_latency_rows),
		cmocka_unit_test(test_encode_unavailable),
		cmocka_unit_test(test_encode_probe_off),
		cmocka_unit_test(test_encode_idle_cpus_left_out),
		cmocka_unit_test(test_encode_sampled),
		cmocka_unit_test(test_queues),
		cmocka_unit_test(test_hlat_take),
		cmocka_unit_test(test_hctx_rows),
		cmocka_unit_test(test_table_sizing),
		cmocka_unit_test(test_cg_rows),
		cmocka_unit_test(test_cg_hierarchy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
