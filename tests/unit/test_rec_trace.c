// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage's read in the flight recording (trace/rec_trace.c): a
 * read round-trips through its record to the same "trace" section (metrics
 * and encoder over the unpacked reads equal those over the originals), a
 * replayed payload gives that section, the unavailable reason, or none; a
 * hostile record is refused without reading outside its bytes or
 * allocating past a bound (random mutations under ASan).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "encode_trace.h"
#include "metrics_trace.h"
#include "rec_payload.h"
#include "rec_trace.h"
#include "sampler.h"
#include "strbuf.h"

#define NCPU 4

/* A read at t seconds: counters growing with t, sparse IRQ rows, two
 * disks' histograms, a probe off with a reason that needs escaping. */
static void make_read(struct trace_raw *r, uint64_t t)
{
	static const uint32_t irqs[] = { 9, 24, 130 };

	memset(r, 0, sizeof(*r));
	r->valid = true;
	r->mono_ns = (int64_t)(1000 + t) * 1000000000;
	r->stats = false;
	snprintf(r->stats_reason, sizeof(r->stats_reason), "kernel.bpf_stats_enabled\tis 0\\off");
	r->budget_pct = 2.5;
	r->ncpu = NCPU;
	for (int k = 0; k < TRACE__COUNT; k++) {
		r->probe[k].on = k != TRACE_BLOCK || t < 2;
		r->probe[k].read = true;
		r->probe[k].has_run = true;
		r->probe[k].run_ns = 1000 * t * (uint64_t)(k + 1);
		r->probe[k].run_cnt = 10 * t;
	}
	snprintf(r->probe[TRACE_BLOCK].reason, sizeof(r->probe[0].reason),
		 "over budget: 3.1 %%\nof a CPU");
	r->soft_ns = calloc(NCPU * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	r->soft_count = calloc(NCPU * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	assert_non_null(r->soft_ns);
	assert_non_null(r->soft_count);
	for (int c = 0; c < NCPU - 1; c++) /* CPU 3 never ran one: left out */
		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++) {
			r->soft_ns[c * TRACE_NR_SOFTIRQS + v] = (uint64_t)(c + v + 1) * 1000000 * t;
			r->soft_count[c * TRACE_NR_SOFTIRQS + v] = (uint64_t)(v + 1) * 100 * t;
		}
	r->nirq = 3;
	r->irq = calloc(3, sizeof(*r->irq));
	r->irq_ns = calloc(3 * NCPU, sizeof(uint64_t));
	r->irq_count = calloc(3 * NCPU, sizeof(uint64_t));
	assert_non_null(r->irq_count);
	for (int i = 0; i < 3; i++) {
		r->irq[i] = irqs[i];
		r->irq_ns[i * NCPU + (i % NCPU)] = 5000000 * t * (uint64_t)(i + 1);
		r->irq_count[i * NCPU + (i % NCPU)] = 700 * t;
		r->irq_ns[i * NCPU + 2] += 1234 * t;
		r->irq_count[i * NCPU + 2] += t;
	}
	r->nlat = 3;
	r->lat = calloc(3, sizeof(*r->lat));
	assert_non_null(r->lat);
	r->lat[0] = (struct trace_lat_raw){
		.major = 7, .minor = 0, .op = TRACE_OP_READ, .kind = TRACE_LAT_QUEUED
	};
	r->lat[1] = (struct trace_lat_raw){
		.major = 7, .minor = 0, .op = TRACE_OP_READ, .kind = TRACE_LAT_DEVICE
	};
	r->lat[2] = (struct trace_lat_raw){
		.major = 259, .minor = 3, .op = TRACE_OP_FLUSH, .kind = TRACE_LAT_DEVICE
	};
	for (int i = 0; i < 3; i++) {
		struct trace_lat_raw *l = &r->lat[i];

		for (int s = 0; s < 12 + i; s++)
			l->slots[s] = (uint64_t)(s + 1) * t * 3;
		l->slots[TRACE_HIST_SLOTS - 1] = i == 2 ? t : 0; /* the top bucket too */
		for (int s = 0; s < TRACE_HIST_SLOTS; s++)
			l->count += l->slots[s];
		l->sum_ns = l->count * 40000;
		l->remote = l->kind == TRACE_LAT_DEVICE ? l->count / 3 : 0;
	}
	/* per hardware queue: 7:0's reads on hctx 0 and 5, a write on 5 */
	r->hlat_read = true;
	r->hlat_dropped = 2 * t;
	r->nhlat = 3;
	r->hlat = calloc(3, sizeof(*r->hlat));
	assert_non_null(r->hlat);
	for (int i = 0; i < 3; i++) {
		struct trace_lat_raw *l = &r->hlat[i];

		l->major = 7;
		l->hctx = i ? 5 : 0;
		l->op = i == 2 ? TRACE_OP_WRITE : TRACE_OP_READ;
		l->kind = TRACE_LAT_DEVICE;
		l->slots[3 + i] = 10 * t * (uint64_t)(i + 1);
		l->slots[20] = t;
		l->count = l->slots[3 + i] + t;
		l->sum_ns = l->count * 9000;
		l->remote = t;
	}
	/* per cgroup: two cgroups on 7:0 (one queued and device, one device
	 * only), a path that needs escaping; the tables' sizing and drops */
	r->lat_dropped = 5 * t;
	r->lat_slots = 4096;
	r->cg_read = true;
	r->cg_dropped = 7 * t;
	snprintf(r->cg_top, sizeof(r->cg_top), "/sys/fs/cgroup/blkio");
	r->ncg = 3;
	r->cg = calloc(3, sizeof(*r->cg));
	assert_non_null(r->cg);
	for (int i = 0; i < 3; i++) {
		struct trace_cg_raw *g = &r->cg[i];

		g->cgid = i < 2 ? 31 : 45;
		g->major = 7;
		g->kind = i == 0 ? TRACE_LAT_QUEUED : TRACE_LAT_DEVICE;
		snprintf(g->path, sizeof(g->path), i < 2 ? "/a b\tc" : "/system.slice/x.service");
		g->slots[2 + i] = 100 * t * (uint64_t)(i + 1);
		g->slots[9] = t;
		g->count = g->slots[2 + i] + t;
		g->sum_ns = g->count * 7000;
	}
}

static void pack(const struct trace_raw *r, struct strbuf *o)
{
	sb_reset(o);
	assert_int_equal(rec_trace_pack(r, o), 0);
}

/* The "trace" section of (prev, cur) as the sampler encodes it. */
static void section(const struct trace_raw *prev, const struct trace_raw *cur, struct strbuf *o)
{
	struct trace_metrics m = { 0 };
	int r = metrics_trace_compute(prev, cur, NULL, &m);

	sb_reset(o);
	encode_trace(o, NULL, cur, r >= 0 ? &m : NULL);
	assert_int_equal(o->err, 0);
	metrics_trace_free(&m);
}

static void test_roundtrip(void **state)
{
	struct trace_raw a, b, ua = { 0 }, ub = { 0 };
	struct strbuf pa = { 0 }, pb = { 0 }, want = { 0 }, got = { 0 };

	(void)state;
	make_read(&a, 1);
	make_read(&b, 3);
	pack(&a, &pa);
	pack(&b, &pb);
	assert_int_equal(rec_trace_unpack(pa.buf, pa.len, &ua), 0);
	assert_int_equal(rec_trace_unpack(pb.buf, pb.len, &ub), 0);
	/* every field the metrics and the encoder read */
	assert_true(ub.valid);
	assert_int_equal(ub.mono_ns, b.mono_ns);
	assert_int_equal(ub.ncpu, NCPU);
	assert_true(ub.budget_pct == 2.5);
	assert_string_equal(ub.stats_reason, b.stats_reason);
	assert_memory_equal(ub.probe, b.probe, sizeof(b.probe));
	assert_memory_equal(ub.soft_ns, b.soft_ns, NCPU * TRACE_NR_SOFTIRQS * sizeof(uint64_t));
	assert_memory_equal(ub.soft_count, b.soft_count,
			    NCPU * TRACE_NR_SOFTIRQS * sizeof(uint64_t));
	assert_int_equal(ub.nirq, 3);
	assert_memory_equal(ub.irq, b.irq, 3 * sizeof(*b.irq));
	assert_memory_equal(ub.irq_ns, b.irq_ns, 3 * NCPU * sizeof(uint64_t));
	assert_memory_equal(ub.irq_count, b.irq_count, 3 * NCPU * sizeof(uint64_t));
	assert_int_equal(ub.nlat, 3);
	assert_memory_equal(ub.lat, b.lat, 3 * sizeof(*b.lat));
	assert_true(ub.hlat_read);
	assert_int_equal(ub.hlat_dropped, 6);
	assert_int_equal(ub.nhlat, 3);
	assert_memory_equal(ub.hlat, b.hlat, 3 * sizeof(*b.hlat));
	assert_int_equal(ub.lat_dropped, 15);
	assert_int_equal(ub.lat_slots, 4096);
	assert_true(ub.cg_read);
	assert_int_equal(ub.cg_dropped, 21);
	assert_string_equal(ub.cg_top, "/sys/fs/cgroup/blkio");
	assert_int_equal(ub.ncg, 3);
	assert_memory_equal(ub.cg, b.cg, 3 * sizeof(*b.cg));
	/* so the document's section is the same bytes */
	section(&a, &b, &want);
	section(&ua, &ub, &got);
	assert_non_null(strstr(sb_cstr(&want), "\"irqs\":[{\"irq\":9,"));
	assert_non_null(strstr(sb_cstr(&want), "\"lat_dropped\":10,\"lat_slots\":4096,"
					       "\"cg_dropped\":14"));
	assert_non_null(strstr(sb_cstr(&want),
			       "\"cgroup_hierarchy\":\"/sys/fs/cgroup/blkio\","
			       "\"cgroups\":[{\"path\":\"/a b\\u0009c\",\"cgroup_id\""
			       ":31,\"disk\":\"\",\"major\":7,\"minor\":0,\"count\":"
			       "402,"));
	assert_non_null(strstr(sb_cstr(&want), "\"hctx\":[{\"hctx\":0,\"read\":{"));
	assert_string_equal(sb_cstr(&got), sb_cstr(&want));
	/* storage reused: the bigger read into the smaller one's arrays */
	assert_int_equal(rec_trace_unpack(pb.buf, pb.len, &ua), 0);
	assert_memory_equal(ua.lat, b.lat, 3 * sizeof(*b.lat));
	trace_raw_free(&a);
	trace_raw_free(&b);
	trace_raw_free(&ua);
	trace_raw_free(&ub);
	sb_free(&pa);
	sb_free(&pb);
	sb_free(&want);
	sb_free(&got);
}

/* Impossible numbers in a recording (issue 30): each the live reader's
 * checks would not have kept (trace_lat_check) or the interval cannot hold
 * (trace_time_ok, trace_ios_ok) is left out and counted in rows_dropped,
 * never shown. Before, replay --json printed them all. */
static void test_impossible(void **state)
{
	struct trace_raw a, b, c, ua = { 0 }, ub = { 0 }, uc = { 0 };
	struct strbuf pa = { 0 }, pb = { 0 }, pc = { 0 }, o = { 0 };
	struct trace_metrics m = { 0 };

	(void)state;
	make_read(&a, 1);
	make_read(&b, 3); /* 2 s later */
	/* remote_pct 5000 %: 7:0's reads at the device */
	b.lat[1].remote = b.lat[1].count * 50;
	/* a bucket that wraps 2^64: 259:3's flushes */
	b.lat[2].slots[0] = 1ull << 63;
	b.lat[2].slots[1] = 1ull << 63;
	/* a mean of 1.8e13 us: 7:0's reads on hardware queue 5 */
	b.hlat[1].sum_ns = b.hlat[1].count * 18000000000000000ull;
	/* 10^10 us/s of NET_RX on CPU 0 */
	b.soft_ns[0 * TRACE_NR_SOFTIRQS + TRACE_SOFTIRQ_NET_RX] += 20000000000000000ull;
	pack(&a, &pa);
	pack(&b, &pb);
	assert_int_equal(rec_trace_unpack(pa.buf, pa.len, &ua), 0);
	assert_int_equal(ua.rows_dropped, 0);
	assert_int_equal(rec_trace_unpack(pb.buf, pb.len, &ub), 0);
	assert_int_equal(ub.rows_dropped, 3);
	assert_int_equal(ub.nlat, 1); /* 7:0's queued reads kept */
	assert_int_equal(ub.nhlat, 2);
	assert_int_equal(metrics_trace_compute(&ua, &ub, NULL, &m), 0);
	assert_int_equal(m.rows_dropped, 4); /* and the softirq cell */
	assert_true(m.soft_us_s[TRACE_SOFTIRQ_NET_RX] == 0);
	assert_true(m.soft_us_s[TRACE_NR_SOFTIRQS + TRACE_SOFTIRQ_NET_RX] > 0); /* CPU 1's */
	for (size_t i = 0; i < m.ndisk; i++)
		assert_true(m.disks[i].remote <= m.disks[i].completed);
	for (size_t i = 0; i < m.nhctx; i++)
		assert_true(m.hctx[i].lat.mean_us < 1e7);
	sb_reset(&o);
	encode_trace(&o, NULL, &ub, &m);
	assert_non_null(strstr(sb_cstr(&o), "\"rows_dropped\":4,"));
	assert_null(strstr(sb_cstr(&o), "\"remote_pct\":5000"));
	assert_null(strstr(sb_cstr(&o), "\"disk\":\"\",\"major\":259"));

	/* 10^9 IOs a second on one hardware queue: reads 1 us apart */
	make_read(&c, 1);
	c.mono_ns = a.mono_ns + 1000;
	c.hlat[0].slots[3] += 1000;
	c.hlat[0].count += 1000;
	pack(&c, &pc);
	assert_int_equal(rec_trace_unpack(pc.buf, pc.len, &uc), 0);
	assert_int_equal(uc.rows_dropped, 0); /* each read alone is possible */
	assert_int_equal(metrics_trace_compute(&ua, &uc, NULL, &m), 0);
	assert_int_equal(m.rows_dropped, 1);
	assert_int_equal(m.nhctx, 0);
	/* the same at 10^8 a second: 100 IOs in that microsecond, kept */
	c.hlat[0].slots[3] -= 900;
	c.hlat[0].count -= 900;
	pack(&c, &pc);
	assert_int_equal(rec_trace_unpack(pc.buf, pc.len, &uc), 0);
	assert_int_equal(metrics_trace_compute(&ua, &uc, NULL, &m), 0);
	assert_int_equal(m.rows_dropped, 0);
	assert_int_equal(m.nhctx, 1);
	assert_int_equal(m.hctx[0].lat.count, 100);

	metrics_trace_free(&m);
	trace_raw_free(&a);
	trace_raw_free(&b);
	trace_raw_free(&c);
	trace_raw_free(&ua);
	trace_raw_free(&ub);
	trace_raw_free(&uc);
	sb_free(&pa);
	sb_free(&pb);
	sb_free(&pc);
	sb_free(&o);
}

static void test_invalid_read(void **state)
{
	struct trace_raw a, u = { 0 };
	struct strbuf p = { 0 };

	(void)state;
	make_read(&a, 2);
	a.valid = false; /* a read that failed (-ENOMEM): "not read yet" */
	pack(&a, &p);
	assert_null(strstr(sb_cstr(&p), "\ni\t"));
	assert_int_equal(rec_trace_unpack(p.buf, p.len, &u), 0);
	assert_false(u.valid);
	assert_string_equal(u.probe[TRACE_BLOCK].reason, a.probe[TRACE_BLOCK].reason);
	trace_raw_free(&a);
	trace_raw_free(&u);
	sb_free(&p);
}

/* A later version's additions: a field at a line's end, a new kind, a
 * probe it knows; and trailing fields left out read as 0. */
static void test_later_version(void **state)
{
	static const char rec[] = "\nh\t1\t5000\t1\t0\t2\t99\n"
				  "z\tnew\tkind\n"
				  "p\t7\t1\t1\t1\t5\t5\t\n"
				  "p\t0\t1\t1\n"
				  "s\t1\t10\n"
				  "i\t3\t1\t100\t4\n"
				  "l\t8\t16\t1\t1\t5\t900\t0\t0\t5\n";
	struct trace_raw u = { 0 };

	(void)state;
	assert_int_equal(rec_trace_unpack(rec, sizeof(rec) - 1, &u), 0);
	assert_true(u.valid);
	assert_int_equal(u.ncpu, 2);
	assert_true(u.probe[0].on && u.probe[0].read && !u.probe[0].has_run);
	assert_int_equal(u.soft_ns[TRACE_NR_SOFTIRQS], 10);
	assert_int_equal(u.soft_count[TRACE_NR_SOFTIRQS], 0);
	assert_int_equal(u.nirq, 1);
	assert_int_equal(u.irq[0], 3);
	assert_int_equal(u.irq_ns[1], 100);
	assert_int_equal(u.irq_count[1], 4);
	assert_int_equal(u.nlat, 1);
	assert_int_equal(u.lat[0].slots[1], 5);
	/* a record before the per-queue histograms: none read */
	assert_false(u.hlat_read);
	assert_int_equal(u.nhlat, 0);
	/* ... and before the per-cgroup ones */
	assert_false(u.cg_read);
	assert_int_equal(u.ncg, 0);
	assert_int_equal(u.lat_slots, 0);
	trace_raw_free(&u);
}

/* 'g' lines checked as the live rows are: one whose mean is past its
 * highest bucket is left out and counted, a count that is not its
 * buckets' sum is set to it; out of order is malformed. */
static void test_cg_lines(void **state)
{
	static const char rec[] = "\nh\t1\t5000\t1\t0\t2\t1\t0\t0\t1\t0\t0\t0\t512\t1\t0\n"
				  "G\t/sys/fs/cgroup/blkio\n"
				  "g\t31\t7\t0\t1\t3\t900000000\t/a\t0\t3\n"
				  "g\t45\t7\t0\t1\t9\t5000\t/b\t0\t2\n";
	static const char unordered[] = "\nh\t1\t5000\t1\t0\t2\n"
					"g\t45\t7\t0\t1\t2\t5000\t/b\t0\t2\n"
					"g\t31\t7\t0\t1\t2\t5000\t/a\t0\t2\n";
	struct trace_raw u = { 0 };

	(void)state;
	assert_int_equal(rec_trace_unpack(rec, sizeof(rec) - 1, &u), 0);
	assert_true(u.cg_read);
	assert_int_equal(u.lat_slots, 512);
	assert_string_equal(u.cg_top, "/sys/fs/cgroup/blkio");
	assert_int_equal(u.ncg, 1);
	assert_int_equal(u.cg[0].cgid, 45);
	assert_int_equal(u.cg[0].count, 2);
	assert_string_equal(u.cg[0].path, "/b");
	assert_int_equal(u.rows_dropped, 1);
	assert_int_equal(rec_trace_unpack(unordered, sizeof(unordered) - 1, &u), -EBADMSG);
	trace_raw_free(&u);
}

static void test_hostile(void **state)
{
	static const char *const bad[] = {
		"",					  /* no header line */
		"\ns\t0\t1\n",				  /* a row before the CPU count */
		"\nh\t1\t1\t0\t0\t0\n",			  /* a valid read of no CPU */
		"\nh\t1\t1\t0\t0\t8193\n",		  /* past the CPU bound */
		"\nh\t1\t1\t0\t0\t2\nh\t1\t1\t0\t0\t2\n", /* two headers */
		"\nh\t1\t1\t0\t0\t2\ns\t2\t1\n",	  /* a CPU past the count */
		"\nh\t1\t1\t0\t0\t2\ni\t5\t2\t1\t1\n",	  /* an IRQ's CPU past it */
		"\nh\t1\t1\t0\t0\t2\ni\t5\ni\t5\n",	  /* IRQ lines not ascending */
		"\nh\t1\t1\t0\t0\t2\ni\t4294967296\n",	  /* an IRQ number past u32 */
		"\nh\t1\t1\t0\t0\t2\nl\t1\t1\t4\t0\n",	  /* an op past the table */
		"\nh\t1\t1\t0\t0\t2\nl\t1\t1\t0\t2\n",	  /* a stage past it */
		"\nh\t1\t1\t0\t0\t2\nl\t1\t2\t0\t0\nl\t1\t1\t0\t0\n", /* unsorted */
		"\nh\t1\t1\t0\t0\t2\nl\t4096\t0\t0\t0\n",    /* a major past dev_t's 12 bits */
		"\nh\t1\t1\t0\t0\t2\nl\t1\t1048576\t0\t0\n", /* a minor past its 20 */
		"\nh\t1\t1\t0\t0\t2\ns\t0\t1x\n",	     /* not a number */
		"\nh\t1\t1\t0\t0\t2\ns\t0\t99999999999999999999\n",   /* past u64 */
		"\nh\t1\t1\t0\t0\t2\nw\tbad\\x4\n",		      /* a torn escape */
		"\nh\t1\t9223372036854775808\t0\t0\t2\n",	      /* mono_ns past i64 */
		"\nh\t1\t1\t0\t0\t2\nx\t1\t1\t65536\t0\n",	      /* a queue past the bound */
		"\nh\t1\t1\t0\t0\t2\nx\t1\t1\t0\t4\n",		      /* an op past the table */
		"\nh\t1\t1\t0\t0\t2\nx\t1\t1\t2\t0\nx\t1\t1\t1\t1\n", /* unsorted */
		"\nh\t1\t1\t0\t0\t2\nx\t1\t1\t2\t0\nx\t1\t1\t2\t0\n", /* twice */
		"\nh\t1\t1\t0\t0\t2\nx\t4096\t0\t0\t0\n",	      /* a major past 12 bits */
	};
	struct trace_raw u = { 0 };
	struct strbuf many = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(rec_trace_unpack(bad[i], strlen(bad[i]), &u), -EBADMSG);
		assert_false(u.valid);
	}
	/* more IRQ lines than the map holds */
	sb_puts(&many, "\nh\t1\t1\t0\t0\t1\n");
	for (unsigned i = 0; i <= TRACE_MAX_IRQS; i++)
		sb_printf(&many, "i\t%u\n", i);
	assert_int_equal(rec_trace_unpack(many.buf, many.len, &u), -EBADMSG);
	/* more hardware queue rows than the probe's array holds */
	sb_reset(&many);
	sb_puts(&many, "\nh\t1\t1\t0\t0\t1\n");
	for (unsigned i = 0; i <= TRACE_MAX_HLAT; i++)
		sb_printf(&many, "x\t1\t1\t%u\t0\n", i);
	assert_int_equal(rec_trace_unpack(many.buf, many.len, &u), -EBADMSG);
	/* a table of more cells than the bound: refused before allocating */
	sb_reset(&many);
	sb_printf(&many, "\nh\t1\t1\t0\t0\t%d\n", REC_TRACE_CPUS_MAX);
	for (unsigned i = 0; i <= REC_TRACE_CELLS_MAX / REC_TRACE_CPUS_MAX; i++)
		sb_printf(&many, "i\t%u\n", i);
	assert_int_equal(rec_trace_unpack(many.buf, many.len, &u), -EBADMSG);
	trace_raw_free(&u);
	sb_free(&many);
}

/* Random damage to a real record: refused or read within its bounds, and
 * the metrics and encoder over what was read stay within theirs. */
static void test_mutations(void **state)
{
	struct trace_raw a, u = { 0 };
	struct strbuf p = { 0 }, out = { 0 };
	unsigned seed = 1;

	(void)state;
	make_read(&a, 2);
	pack(&a, &p);
	for (int n = 0; n < 20000; n++) {
		char *m = malloc(p.len);
		size_t len = p.len;
		int r;

		assert_non_null(m);
		memcpy(m, p.buf, p.len);
		for (int k = 0; k < 1 + n % 4; k++) {
			size_t at = (size_t)rand_r(&seed) % len;
			static const char pick[] = "0123456789\t\n\\xhpsilwx-";

			m[at] =
			    n % 3 ? pick[rand_r(&seed) % (sizeof(pick) - 1)] : (char)rand_r(&seed);
		}
		if (n % 5 == 0)
			len = (size_t)rand_r(&seed) % len; /* torn */
		r = rec_trace_unpack(m, len, &u);
		assert_true(r == 0 || r == -EBADMSG);
		if (r == 0 && u.valid) {
			struct trace_metrics tm = { 0 };

			assert_true(u.nirq <= TRACE_MAX_IRQS && u.nlat <= TRACE_MAX_LAT &&
				    u.nhlat <= TRACE_MAX_HLAT);
			for (size_t i = 0; i < u.nlat; i++)
				assert_true(u.lat[i].op < TRACE_OP__COUNT &&
					    u.lat[i].kind < TRACE_LAT__COUNT);
			for (size_t i = 0; i < u.nhlat; i++)
				assert_true(u.hlat[i].op < TRACE_OP__COUNT &&
					    u.hlat[i].hctx < TRACE_HCTX_MAX);
			if (metrics_trace_compute(&a, &u, NULL, &tm) >= 0) {
				sb_reset(&out);
				encode_trace(&out, NULL, &u, &tm);
			}
			metrics_trace_free(&tm);
		}
		free(m);
	}
	trace_raw_free(&a);
	trace_raw_free(&u);
	sb_free(&p);
	sb_free(&out);
}

/* A payload's trace record through the replay's sampler: its section as
 * the live one, the recorded reason, or none at all. */
static void tick(struct sampler *s, uint64_t id, int32_t err, const struct trace_raw *r,
		 const char *why, struct strbuf *payload)
{
	sb_reset(payload);
	if (why) {
		rec_payload_put(payload, REC_TAG_TRACE, err, why, strlen(why));
	} else if (r) {
		struct strbuf body = { 0 };

		pack(r, &body);
		rec_payload_put(payload, REC_TAG_TRACE, 0, body.buf, body.len);
		sb_free(&body);
	}
	assert_int_equal(sampler_tick_recorded(s, id, (int64_t)id * 1000000000,
					       (int64_t)id * 1000000000,
					       payload->buf ? payload->buf : "", payload->len),
			 0);
}

static void test_replay(void **state)
{
	struct sampler_opts so = { .skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT };
	struct trace_raw a, b;
	struct strbuf payload = { 0 }, want = { 0 };
	struct sampler *s;
	const char *json;

	(void)state;
	assert_int_equal(sampler_open(&so, &s), 0);
	make_read(&a, 1);
	make_read(&b, 4);
	/* a frame without a record (before format 6, no --trace): no section */
	tick(s, 1, 0, NULL, NULL, &payload);
	json = sampler_json(s, NULL);
	assert_non_null(json);
	assert_null(strstr(json, "\"trace\""));
	/* the daemon's reason */
	tick(s, 2, -ENODEV, NULL, "no BTF: /sys/kernel/btf/vmlinux: No such file", &payload);
	assert_non_null(strstr(sampler_json(s, NULL), "\"trace\":{\"available\":false,\"reason\":"
						      "\"no BTF: /sys/kernel/btf/vmlinux: No such "
						      "file\"}}"));
	/* two reads: the interval's section, never paired across the frame
	 * that had none */
	tick(s, 3, 0, &a, NULL, &payload);
	json = strstr(sampler_json(s, NULL), "\"trace\":{\"available\":true");
	assert_non_null(json);
	assert_null(strstr(json, "\"interval_ms\""));
	tick(s, 4, 0, &b, NULL, &payload);
	section(&a, &b, &want);
	want.buf[--want.len] = '\0'; /* its comma: the section is the document's last */
	json = sampler_json(s, NULL);
	assert_non_null(strstr(json, sb_cstr(&want)));
	/* a malformed record: unavailable, not in the recording */
	sb_reset(&payload);
	rec_payload_put(&payload, REC_TAG_TRACE, 0, "\nh\t1\t1\t0\t0\t0\n", 13);
	assert_int_equal(
	    sampler_tick_recorded(s, 5, 5000000000, 5000000000, payload.buf, payload.len), 0);
	assert_non_null(strstr(sampler_json(s, NULL), "\"trace\":{\"available\":false,\"reason\":"
						      "\"not in the recording\"}"));
	sampler_close(s);
	trace_raw_free(&a);
	trace_raw_free(&b);
	sb_free(&payload);
	sb_free(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),  cmocka_unit_test(test_invalid_read),
		cmocka_unit_test(test_impossible), cmocka_unit_test(test_later_version),
		cmocka_unit_test(test_hostile),	   cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_replay),	   cmocka_unit_test(test_cg_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
