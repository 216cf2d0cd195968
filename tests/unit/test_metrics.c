// SPDX-License-Identifier: GPL-2.0-or-later
/* metrics.c on hand-made counters: iostat -x and mpstat -u formulas, resets, gaps. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"
#include "diskstats.h"
#include "irqtab.h"
#include "stat.h"
#include "snapshot.h"
#include "taskstats.h"

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static struct disk_raw disk(uint8_t n, const uint64_t *v)
{
	struct disk_raw d;

	memset(&d, 0, sizeof(d));
	d.major = 8;
	snprintf(d.name, sizeof(d.name), "sda");
	d.ncounters = n;
	memcpy(d.v, v, sizeof(d.v));
	return d;
}

static void test_disk_formulas(void **state)
{
	/* 2 s interval (200 cs): 200 reads of 8 sectors, 50 read merges, 4000 ms
	 * read ticks; 100 writes of 16 sectors, 1000 ms; io_ticks 1500 ms;
	 * time_in_queue 5000 ms; 10 discards of 2048 sectors; 4 flushes, 8 ms. */
	uint64_t a[DF__COUNT] = { 0 };
	uint64_t b[DF__COUNT] = { 200,	50,   1600, 4000, 100,	 0,  1600, 1000, 3,
				  1500, 5000, 10,   0,	  20480, 30, 4,	   8 };
	struct disk_raw p = disk(17, a), c = disk(17, b);
	struct disk_metrics m;

	(void)state;
	assert_int_equal(metrics_disk_compute(&p, &c, 200, &m), 0);
	assert_true(m.valid);
	assert_near(m.r_s, 100.0);
	assert_near(m.w_s, 50.0);
	assert_near(m.d_s, 5.0);
	assert_near(m.f_s, 2.0);
	assert_near(m.rkb_s, 400.0);
	assert_near(m.wkb_s, 400.0);
	assert_near(m.dkb_s, 5120.0);
	assert_near(m.rrqm_s, 25.0);
	assert_near(m.rrqm_pct, 20.0); /* 50 / (50 + 200) */
	assert_near(m.wrqm_pct, 0.0);
	assert_near(m.r_await, 20.0);
	assert_near(m.w_await, 10.0);
	assert_near(m.d_await, 3.0);
	assert_near(m.f_await, 2.0);
	assert_near(m.rareq_sz, 4.0);
	assert_near(m.wareq_sz, 8.0);
	assert_near(m.dareq_sz, 1024.0);
	assert_near(m.aqu_sz, 2.5);
	assert_near(m.util, 75.0);
	assert_near(m.svctm, 1500.0 / 310.0);
	assert_int_equal(m.in_flight, 3);
	assert_true(m.has_discard && m.has_flush);
}

static void test_disk_absent_fields(void **state)
{
	uint64_t a[DF__COUNT] = { 0 };
	uint64_t b[DF__COUNT] = { 10, 0, 80, 10, 0, 0, 0, 0, 0, 100, 10 };
	struct disk_raw p = disk(11, a), c = disk(11, b);
	struct disk_metrics m;

	(void)state;
	assert_int_equal(metrics_disk_compute(&p, &c, 100, &m), 0);
	assert_false(m.has_discard);
	assert_false(m.has_flush);
	/* an 18-field previous and a 20-field current only share 15 counters */
	c.ncounters = 17;
	p.ncounters = 15;
	assert_int_equal(metrics_disk_compute(&p, &c, 100, &m), 0);
	assert_true(m.has_discard);
	assert_false(m.has_flush);
}

static void test_disk_reset(void **state)
{
	uint64_t a[DF__COUNT] = { 1000, 0, 8000, 10, 0, 0, 0, 0, 0, 100, 10 };
	uint64_t b[DF__COUNT] = { 5, 0, 40, 1, 0, 0, 0, 0, 0, 1, 1 };
	/* a 32-bit wrap looks the same: the counter is lower than before */
	uint64_t w0[DF__COUNT] = { 4294967290ULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	uint64_t w1[DF__COUNT] = { 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct disk_raw p = disk(11, a), c = disk(11, b);
	struct disk_metrics m;

	(void)state;
	assert_int_equal(metrics_disk_compute(&p, &c, 100, &m), -ERANGE);
	assert_false(m.valid);
	assert_true(strstr(m.reason, "backwards") != NULL);
	assert_near(m.r_s, 0.0);
	p = disk(11, w0);
	c = disk(11, w1);
	assert_int_equal(metrics_disk_compute(&p, &c, 100, &m), -ERANGE);
	/* in_flight is a gauge: going down is normal */
	a[DF_IN_FLIGHT] = 5;
	b[DF_IN_FLIGHT] = 0;
	memcpy(b, a, sizeof(b));
	b[DF_IN_FLIGHT] = 0;
	p = disk(11, a);
	c = disk(11, b);
	assert_int_equal(metrics_disk_compute(&p, &c, 100, &m), 0);
}

static struct cpu_raw cpu(int id, uint64_t usr, uint64_t nice, uint64_t sys, uint64_t idle,
			  uint64_t iow, uint64_t irq, uint64_t soft, uint64_t steal, uint64_t guest,
			  uint64_t gnice)
{
	struct cpu_raw c = { .cpu = id,
			     .ncounters = 10,
			     .v = { usr, nice, sys, idle, iow, irq, soft, steal, guest, gnice } };
	return c;
}

static void test_cpu_formulas(void **state)
{
	struct cpu_raw p = cpu(0, 100, 10, 50, 1000, 5, 1, 2, 0, 20, 5);
	struct cpu_raw c = cpu(0, 160, 20, 70, 1080, 15, 6, 12, 3, 40, 7);
	struct cpu_metrics m;

	(void)state;
	/* total = 60 + 10 + 20 + 80 + 10 + 5 + 10 + 3 = 198: user and nice already
	 * contain guest time, which mpstat shows apart (usr = user - guest) */
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), 0);
	assert_near(m.usr, 40.0 / 198 * 100);
	assert_near(m.nice, 8.0 / 198 * 100);
	assert_near(m.sys, 20.0 / 198 * 100);
	assert_near(m.idle, 80.0 / 198 * 100);
	assert_near(m.iowait, 10.0 / 198 * 100);
	assert_near(m.irq, 5.0 / 198 * 100);
	assert_near(m.soft, 10.0 / 198 * 100);
	assert_near(m.steal, 3.0 / 198 * 100);
	assert_near(m.guest, 20.0 / 198 * 100);
	assert_near(m.gnice, 2.0 / 198 * 100);
}

static void test_cpu_edges(void **state)
{
	struct cpu_raw p = cpu(1, 10, 0, 10, 100, 0, 0, 0, 0, 0, 0);
	struct cpu_raw c = p;
	struct cpu_metrics m;

	(void)state;
	/* tickless CPU: nothing moved, mpstat shows it 100% idle */
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), 0);
	assert_near(m.idle, 100.0);
	assert_near(m.usr, 0.0);
	/* guest ran ahead of user: usr is 0, the shortfall widens the interval */
	p = cpu(1, 100, 0, 0, 0, 0, 0, 0, 0, 90, 0);
	c = cpu(1, 110, 0, 0, 10, 0, 0, 0, 0, 105, 0);
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), 0);
	assert_near(m.usr, 0.0);
	assert_near(m.guest, 15.0 / 25.0 * 100);
	/* hotplug: counters reset */
	c = cpu(1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0);
	p = cpu(1, 10, 0, 10, 100, 0, 0, 0, 0, 0, 0);
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), -ERANGE);
	assert_false(m.valid);
}

static int load(struct snapshot *s, const char *stat, const char *intr, uint64_t up_cs)
{
	memset(s->status, 0, sizeof(s->status));
	s->uptime.uptime_cs = up_cs;
	if (stat_parse(stat, strlen(stat), &s->stat, NULL) < 0)
		return -1;
	if (irqtab_parse(intr, strlen(intr), false, &s->irqs, NULL) < 0)
		return -1;
	s->status[SRC_SOFTIRQS].err = -ENOENT; /* absent source: no softirq rates */
	return diskstats_parse("", 0, &s->disks, NULL);
}

static void test_irq_rates_and_shape(void **state)
{
	struct snapshot a = { 0 }, b = { 0 };
	struct metrics m = { 0 };

	(void)state;
	assert_int_equal(
	    load(&a, "cpu 0 0 0 0\ncpu0 0 0 0 10\ncpu1 0 0 0 10\nintr 100\n",
		 "  CPU0 CPU1\n 24: 10 20 IO-APIC 5-edge a\n 25: 5 5 IO-APIC 6-edge b\n"
		 "LOC: 100 200 Local\nERR: 1\n",
		 1000),
	    0);
	/* IRQ 25 vanished, 26 appeared, 24 moved on CPU1 */
	assert_int_equal(
	    load(&b, "cpu 0 0 0 0\ncpu0 0 0 0 110\ncpu1 0 0 0 110\nintr 400\n",
		 "  CPU0 CPU1\n 24: 10 220 IO-APIC 5-edge a\n 26: 7 0 IO-APIC 6-edge c\n"
		 "LOC: 150 300 Local\nERR: 3\n",
		 1200),
	    0);
	assert_int_equal(metrics_interval_cs(&a, &b), 200);
	assert_int_equal(metrics_compute(&a, &b, 200, &m), 0);
	assert_true(m.irq_valid);
	assert_false(m.softirq_valid);
	assert_near(m.intr_all_s, 150.0);
	assert_int_equal(m.irq.n, 4);
	assert_string_equal(m.irq.rows[0].label, "24");
	assert_near(m.irq.rates[m.irq.rows[0].rates_off + 1], 100.0);
	assert_near(m.irq.rows[0].total_s, 100.0);
	assert_string_equal(m.irq.rows[1].label, "26");
	assert_false(m.irq.rows[1].valid);	 /* new line: no invented since-boot spike */
	assert_near(m.irq.rows[3].total_s, 1.0); /* ERR: 2 over 2 s */
	/* -I SUM per CPU: 24 + LOC on each CPU, over 2 s */
	assert_near(m.cpus[0].intr_s, 25.0);
	assert_near(m.cpus[1].intr_s, 150.0);
	assert_near(m.all.idle, 100.0);
	metrics_free(&m);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* A line whose counter went down on any CPU (reset, hotplugged-back CPU,
 * a driver's vector reused) gives no rate that round, in the common shape
 * and when the CPU columns changed; the per-CPU sums leave it out. */
static void test_irq_backwards(void **state)
{
	static const char *const after[] = {
		/* same columns */
		"  CPU0 CPU1\n 24: 5 220 IO-APIC 5-edge a\n 25: 15 15 IO-APIC 6-edge b\n"
		"LOC: 150 300 Local\nERR: 0\n",
		/* CPU2 came online: the per-column path */
		"  CPU0 CPU1 CPU2\n 24: 5 220 0 IO-APIC 5-edge a\n 25: 15 15 0 IO-APIC 6-edge b\n"
		"LOC: 150 300 9 Local\nERR: 0\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		struct snapshot a = { 0 }, b = { 0 };
		struct metrics m = { 0 };

		assert_int_equal(load(&a, "cpu 0 0 0 0\ncpu0 0 0 0 10\ncpu1 0 0 0 10\nintr 100\n",
				      "  CPU0 CPU1\n 24: 10 20 IO-APIC 5-edge a\n"
				      " 25: 5 5 IO-APIC 6-edge b\nLOC: 100 200 Local\nERR: 1\n",
				      1000),
				 0);
		assert_int_equal(load(&b, "cpu 0 0 0 0\ncpu0 0 0 0 110\ncpu1 0 0 0 110\nintr 400\n",
				      after[i], 1200),
				 0);
		assert_int_equal(metrics_compute(&a, &b, 200, &m), 0);
		assert_string_equal(m.irq.rows[0].label, "24");
		assert_false(m.irq.rows[0].valid); /* CPU0 went 10 -> 5 */
		assert_near(m.irq.rows[0].total_s, 0.0);
		for (size_t k = 0; k < m.irq.ncpu; k++)
			assert_near(m.irq.rates[m.irq.rows[0].rates_off + k], 0.0);
		assert_true(m.irq.rows[1].valid); /* 25 still counts: 5 a second each */
		assert_near(m.irq.rows[1].total_s, 10.0);
		assert_string_equal(m.irq.rows[3].label, "ERR");
		assert_false(m.irq.rows[3].valid); /* the system-wide count went 1 -> 0 */
		/* -I SUM per CPU: 25 + LOC, without the line that went backwards */
		assert_near(m.cpus[0].intr_s, 5.0 + 25.0);
		assert_near(m.cpus[1].intr_s, 5.0 + 50.0);
		metrics_free(&m);
		snapshot_free(&a);
		snapshot_free(&b);
	}
}

/* A disk new to this sample is rated from zero; when the previous sample could
 * not read diskstats at all, every disk gets that source's reason instead. */
static void test_disk_after_unavailable(void **state)
{
	static const char ds[] = "   8       0 sda 10 0 80 5 0 0 0 0 0 5 5\n";
	const char *st = "cpu 0 0 0 0\ncpu0 0 0 0 10\n";
	const char *in = "  CPU0\nLOC: 1 Local\n";
	struct snapshot a = { 0 }, b = { 0 };
	struct metrics m = { 0 };

	(void)state;
	assert_int_equal(load(&a, st, in, 100), 0);
	assert_int_equal(load(&b, st, in, 200), 0);
	disk_table_free(&b.disks);
	assert_int_equal(diskstats_parse(ds, sizeof(ds) - 1, &b.disks, NULL), 0);
	assert_int_equal(metrics_compute(&a, &b, 100, &m), 0);
	/* its counters started at 0 inside the interval: rated from zero, as iostat */
	assert_true(m.disks[0].valid);
	assert_true(m.disks[0].new_in_interval);
	assert_near(m.disks[0].r_s, 10.0);
	assert_near(m.disks[0].rkb_s, 40.0);
	assert_near(m.disks[0].util, 0.5);
	a.status[SRC_DISKSTATS].err = -EINVAL;
	snprintf(a.status[SRC_DISKSTATS].reason, sizeof(a.status[SRC_DISKSTATS].reason),
		 "proc/diskstats:3: 2 fields, need 14, 18 or 20");
	assert_int_equal(metrics_compute(&a, &b, 100, &m), 0);
	assert_false(m.disks[0].valid);
	assert_string_equal(m.disks[0].reason, "proc/diskstats:3: 2 fields, need 14, 18 or 20");
	metrics_free(&m);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* Re-registered under the same major:minor with a new name: a new device,
 * rated from zero; the old name counts as missing. */
static void test_disk_renamed(void **state)
{
	static const char d0[] = "   8       0 sdb 500 0 4000 50 0 0 0 0 0 50 50\n";
	static const char d1[] = "   8       0 sdc 20 0 160 4 0 0 0 0 0 4 4\n";
	const char *st = "cpu 0 0 0 0\ncpu0 0 0 0 10\n";
	const char *in = "  CPU0\nLOC: 1 Local\n";
	struct snapshot a = { 0 }, b = { 0 };
	struct metrics m = { 0 };

	(void)state;
	assert_int_equal(load(&a, st, in, 100), 0);
	assert_int_equal(load(&b, st, in, 300), 0);
	disk_table_free(&a.disks);
	disk_table_free(&b.disks);
	assert_int_equal(diskstats_parse(d0, sizeof(d0) - 1, &a.disks, NULL), 0);
	assert_int_equal(diskstats_parse(d1, sizeof(d1) - 1, &b.disks, NULL), 0);
	assert_int_equal(metrics_compute(&a, &b, 200, &m), 0);
	assert_true(m.disks[0].valid);
	assert_true(m.disks[0].new_in_interval);
	assert_near(m.disks[0].r_s, 10.0);
	assert_near(m.disks[0].r_await, 0.2);
	assert_int_equal(m.disks_missing, 1);
	metrics_free(&m);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* proc.rst: iowait "will decrease in certain conditions". With idle moving
 * on, the CPU stayed online: mpstat takes that iowait as unmoved and prints
 * the row. With idle not advancing too, it went offline and came back. */
static void test_cpu_iowait_backwards(void **state)
{
	struct cpu_raw p = cpu(2, 100, 0, 50, 1000, 300, 0, 0, 0, 0, 0);
	struct cpu_raw c = cpu(2, 130, 0, 60, 1060, 290, 0, 0, 0, 0, 0);
	struct cpu_metrics m;

	(void)state;
	/* interval 30 + 10 + 60 = 100: the iowait step back adds nothing */
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), 0);
	assert_true(m.valid);
	assert_near(m.iowait, 0.0);
	assert_near(m.usr, 30.0);
	assert_near(m.sys, 10.0);
	assert_near(m.idle, 60.0);
	/* idle fell as well: a real offline/online */
	c = cpu(2, 130, 0, 60, 20, 5, 0, 0, 0, 0, 0);
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), -ERANGE);
	assert_false(m.valid);
	assert_true(strstr(m.reason, "offline") != NULL);
	assert_null(strstr(m.reason, "hotplug or reset"));
	/* idle did not move: no proof the CPU stayed online */
	c = cpu(2, 130, 0, 60, 1000, 290, 0, 0, 0, 0, 0);
	assert_int_equal(metrics_cpu_compute(&p, &c, &m), -ERANGE);
	assert_true(strstr(m.reason, "iowait") != NULL);
}

/* mpstat's "all": the CPUs' corrected counters summed, over the sum of each
 * CPU's own interval. Guest-nice running ahead of nice on CPU0 widens CPU0's
 * interval by the shortfall even though the summed counters show none. */
static void test_cpu_all_interval(void **state)
{
	struct snapshot a = { 0 }, b = { 0 };
	struct metrics m = { 0 };

	(void)state;
	assert_int_equal(load(&a,
			      "cpu 0 10 0 200 0 0 0 0 0 0\n"
			      "cpu0 0 10 0 100 50 0 0 0 0 0\n"
			      "cpu1 0 0 0 100 0 0 0 0 0 0\n",
			      "  CPU0 CPU1\nLOC: 1 1 Local\n", 1000),
			 0);
	assert_int_equal(load(&b,
			      "cpu 0 32 0 370 0 0 0 0 0 8\n"
			      "cpu0 0 12 0 190 50 0 0 0 0 8\n"
			      "cpu1 0 20 0 180 0 0 0 0 0 0\n",
			      "  CPU0 CPU1\nLOC: 101 301 Local\n", 2000),
			 0);
	assert_int_equal(metrics_compute(&a, &b, 1000, &m), 0);
	/* CPU0: 2 nice + 90 idle + 6 shortfall (nice - gnice 10 -> 4) */
	assert_true(m.cpus[0].valid);
	assert_near(m.cpus[0].idle, 90.0 / 98 * 100);
	/* CPU1: 20 nice + 80 idle */
	assert_near(m.cpus[1].nice, 20.0);
	/* all: (12 + 20 - 8) - 10 = 14 nice over 98 + 100 */
	assert_true(m.all.valid);
	assert_near(m.all.nice, 14.0 / 198 * 100);
	assert_near(m.all.idle, 170.0 / 198 * 100);
	assert_near(m.all.gnice, 8.0 / 198 * 100);
	assert_near(m.all.iowait, 0.0);
	metrics_free(&m);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* A CPU whose /proc/stat row is unusable still has its /proc/interrupts
 * column: its intr/s is measured and kept. */
static void test_intr_of_invalid_cpu(void **state)
{
	struct snapshot a = { 0 }, b = { 0 };
	struct metrics m = { 0 };

	(void)state;
	assert_int_equal(load(&a, "cpu 0 0 0 0\ncpu0 0 0 0 100\ncpu1 50 0 0 100\n",
			      "  CPU0 CPU1\nLOC: 100 200 Local\n", 1000),
			 0);
	assert_int_equal(load(&b, "cpu 0 0 0 0\ncpu0 0 0 0 200\ncpu1 5 0 0 10\n",
			      "  CPU0 CPU1\nLOC: 300 600 Local\n", 1200),
			 0);
	assert_int_equal(metrics_compute(&a, &b, 200, &m), 0);
	assert_true(m.cpus[0].valid);
	assert_false(m.cpus[1].valid);
	assert_true(m.cpus[1].has_intr_s);
	assert_near(m.cpus[1].intr_s, 200.0);
	assert_near(m.cpus[0].intr_s, 100.0);
	metrics_free(&m);
	snapshot_free(&a);
	snapshot_free(&b);
}

/* pidstat's name source when /proc/PID/comm is absent: /proc/PID/stat. */
static void test_stat_comm(void **state)
{
	static const char st[] = "8407 (my prog) (x)) S 1 8407 8407 0 -1 4194560 12 0 0 0\n";
	char name[8];
	char full[32];

	(void)state;
	assert_int_equal(taskstats_stat_comm(st, sizeof(st) - 1, full, sizeof(full)), 12);
	assert_string_equal(full, "my prog) (x)");
	assert_int_equal(taskstats_stat_comm(st, sizeof(st) - 1, name, sizeof(name)), 7);
	assert_string_equal(name, "my prog");
	assert_int_equal(taskstats_stat_comm("8407 S 1", 8, full, sizeof(full)), -EBADMSG);
	assert_int_equal(taskstats_stat_comm("8407 (abc", 9, full, sizeof(full)), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_formulas),
		cmocka_unit_test(test_disk_absent_fields),
		cmocka_unit_test(test_disk_reset),
		cmocka_unit_test(test_cpu_formulas),
		cmocka_unit_test(test_cpu_edges),
		cmocka_unit_test(test_irq_rates_and_shape),
		cmocka_unit_test(test_irq_backwards),
		cmocka_unit_test(test_disk_after_unavailable),
		cmocka_unit_test(test_disk_renamed),
		cmocka_unit_test(test_cpu_iowait_backwards),
		cmocka_unit_test(test_cpu_all_interval),
		cmocka_unit_test(test_intr_of_invalid_cpu),
		cmocka_unit_test(test_stat_comm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
