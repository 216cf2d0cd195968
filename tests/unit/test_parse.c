// SPDX-License-Identifier: GPL-2.0-or-later
/* Parsers over bytes: every diskstats form, /proc/stat, interrupts, softirqs, uptime. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diskstats.h"
#include "irqtab.h"
#include "stat.h"
#include "strbuf.h"
#include "uptime.h"

static void test_diskstats_forms(void **state)
{
	const char buf[] =
	    /* 14 fields (kernel < 4.18) */
	    "   8       0 sda 33167 3812 1124805 428735 28338 77604 850432 3304811 0 384521 "
	    "3733854\n"
	    /* 18 fields (4.18 .. 5.4): discards */
	    "   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"
	    /* 20 fields (>= 5.5): discards and flushes */
	    " 254       0 vda 29319 6964 2084626 7133 4860 5754 517280 1536 0 4476 9241 3970 53 "
	    "102320 432 824 138\n"
	    "\n";
	struct disk_table t = { 0 };
	struct parse_error pe = { 0 };
	const struct disk_raw *d;

	(void)state;
	assert_int_equal(diskstats_parse(buf, strlen(buf), &t, &pe), 0);
	assert_int_equal(t.n, 3);
	d = disk_table_find(&t, 8, 0, NULL);
	assert_non_null(d);
	assert_string_equal(d->name, "sda");
	assert_int_equal(d->ncounters, 11);
	assert_int_equal(d->v[DF_RQ_TICKS], 3733854);
	d = disk_table_find(&t, 8, 16, NULL);
	assert_int_equal(d->ncounters, 15);
	assert_int_equal(d->v[DF_DC_TICKS], 15);
	d = disk_table_find(&t, 254, 0, NULL);
	assert_int_equal(d->ncounters, 17);
	assert_int_equal(d->v[DF_FL_TICKS], 138);
	assert_int_equal(d->v[DF_DC_SECTORS], 102320);
	assert_null(disk_table_find(&t, 8, 1, NULL));
	disk_table_free(&t);
}

static void test_diskstats_bad(void **state)
{
	const char *bad[] = {
		"8 0 sda 1 2 3\n",		     /* truncated line */
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 x1\n", /* garbage counter */
		"8 0\n",			     /* no name */
		"x 0 sda 1 2 3 4 5 6 7 8 9 10 11\n", /* bad major */
		"8 0 sda 1 2 3 4 5 6 7 8 9 10 99999999999999999999999\n",
	};
	struct disk_table t = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct parse_error pe = { 0 };

		assert_int_equal(diskstats_parse(bad[i], strlen(bad[i]), &t, &pe), -EBADMSG);
		assert_int_equal(pe.line, 1);
		assert_true(pe.what[0] != '\0');
	}
	/* the line number points at the broken line */
	{
		const char two[] = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2\n";
		struct parse_error pe = { 0 };

		assert_int_equal(diskstats_parse(two, strlen(two), &t, &pe), -EBADMSG);
		assert_int_equal(pe.line, 2);
	}
	disk_table_free(&t);
}

static void test_stat(void **state)
{
	const char buf[] = "cpu  1886 0 1596 38468 267 0 96 0 0 0\n"
			   "cpu0 529 0 554 20021 8 0 36 0 0 0\n"
			   "cpu2 1356 1 1042 18447 259 3 59 7 5 1\n"
			   "intr 108281 0 0 1\n"
			   "ctxt 220624\n"
			   "btime 1795330000\n"
			   "procs_running 3\n"
			   "procs_blocked 1\n"
			   "softirq 73511 0 6200 4 1970\n";
	struct stat_raw t = { 0 };
	struct parse_error pe = { 0 };
	const struct cpu_raw *c;

	(void)state;
	assert_int_equal(stat_parse(buf, strlen(buf), &t, &pe), 0);
	assert_int_equal(t.ncpu, 2);
	assert_int_equal(t.all.v[CF_IDLE], 38468);
	c = stat_find_cpu(&t, 2);
	assert_non_null(c);
	assert_int_equal(c->v[CF_GUEST], 5);
	assert_int_equal(c->v[CF_GUEST_NICE], 1);
	assert_null(stat_find_cpu(&t, 1)); /* offline CPU: no line, no zeros */
	assert_true(t.has_intr);
	assert_int_equal(t.intr_total, 108281);
	assert_int_equal(t.softirq_total, 73511);
	assert_int_equal(t.procs_blocked, 1);
	/* old kernels: 4 fields */
	{
		const char old[] = "cpu 1 2 3 4\ncpu0 1 2 3 4\n";

		assert_int_equal(stat_parse(old, strlen(old), &t, &pe), 0);
		assert_int_equal(t.cpus[0].ncounters, 4);
	}
	/* truncated: no cpu line */
	assert_int_equal(stat_parse("intr 5\n", 7, &t, &pe), -EBADMSG);
	assert_int_equal(stat_parse("cpu 1 2\n", 8, &t, &pe), -EBADMSG);
	stat_raw_free(&t);
}

static void test_interrupts(void **state)
{
	const char buf[] =
	    "           CPU0       CPU1       CPU3\n"
	    "  0:         44          0          0   IO-APIC   2-edge      timer\n"
	    " 24:          1          0          5  IO-APIC   5-edge      ACPI:Ged\n"
	    " 28:          0          0          0 PCI-MSIX-0000:00:01.0   0-edge      "
	    "virtio0-config\n"
	    " 30:          7          0          0  IR-PCI-MSI 524288-edge      nvme0q0, nvme1q0\n"
	    "  9:          0          0          0  IO-APIC-fasteoi   acpi\n"
	    " 40:          0          0          0  IO-APIC   7-fasteoi\n"
	    "NMI:          0          0          0   Non-maskable interrupts\n"
	    "LOC:      12345       6789         10   Local timer interrupts\n"
	    "ERR:          3\n"
	    "MIS:          0\n";
	struct irq_table t = { 0 };
	struct parse_error pe = { 0 };
	const struct irq_row *r;

	(void)state;
	assert_int_equal(irqtab_parse(buf, strlen(buf), false, &t, &pe), 0);
	assert_int_equal(t.ncpu, 3);
	assert_int_equal(t.cpu_ids[2], 3);
	assert_int_equal(irq_table_cpu_col(&t, 3), 2);
	assert_int_equal(irq_table_cpu_col(&t, 2), -1);
	r = irq_table_find(&t, "24", NULL);
	assert_non_null(r);
	assert_true(r->numeric);
	assert_int_equal(r->irq, 24);
	assert_string_equal(r->chip, "IO-APIC");
	assert_string_equal(r->hwirq, "5-edge");
	assert_string_equal(r->actions, "ACPI:Ged");
	assert_int_equal(irq_row_counts(&t, r)[2], 5);
	assert_int_equal(r->total, 6);
	r = irq_table_find(&t, "30", NULL);
	assert_string_equal(r->chip, "IR-PCI-MSI");
	assert_string_equal(r->hwirq, "524288-edge");
	assert_string_equal(r->actions, "nvme0q0, nvme1q0");
	r = irq_table_find(&t, "9", NULL);
	assert_string_equal(r->chip, "IO-APIC-fasteoi");
	assert_string_equal(r->hwirq, "");
	assert_string_equal(r->actions, "acpi");
	r = irq_table_find(&t, "40", NULL);
	assert_string_equal(r->actions, "");
	r = irq_table_find(&t, "LOC", NULL);
	assert_false(r->numeric);
	assert_true(r->percpu_counts);
	assert_string_equal(r->actions, "Local timer interrupts");
	assert_int_equal(irq_row_counts(&t, r)[1], 6789);
	r = irq_table_find(&t, "ERR", NULL);
	assert_false(r->percpu_counts);
	assert_int_equal(r->total, 3);
	irq_table_free(&t);
}

static void test_interrupts_bad(void **state)
{
	struct irq_table t = { 0 };
	struct parse_error pe = { 0 };
	const char trunc[] = "   CPU0  CPU1\n  0:   44   0  IO-APIC 2-edge timer\n  1:   5";
	const char nohdr[] = "  0:   44   0  IO-APIC 2-edge timer\n";

	(void)state;
	assert_int_equal(irqtab_parse(trunc, strlen(trunc), false, &t, &pe), -EBADMSG);
	assert_int_equal(pe.line, 3);
	assert_int_equal(irqtab_parse(nohdr, strlen(nohdr), false, &t, &pe), -EBADMSG);
	assert_int_equal(irqtab_parse("", 0, false, &t, &pe), -EBADMSG);
	irq_table_free(&t);
}

/*
 * A recorded /proc/interrupts (a tree, a recording handed over) whose
 * header repeats CPU0 and whose rows carry one count each (as ERR: does):
 * each such row took a counter a column, so 240 KB of text took 3.2 GB.
 * The kernel prints its CPUs ascending and two such rows (ERR, MIS).
 */
static void test_interrupts_amplify(void **state)
{
	const size_t n = 4000;
	struct irq_table t = { 0 };
	struct parse_error pe = { 0 };
	struct strbuf same = { 0 }, asc = { 0 };

	(void)state;
	for (size_t i = 0; i < n; i++) {
		sb_puts(&same, " CPU0");
		sb_printf(&asc, " CPU%zu", i);
	}
	sb_putc(&same, '\n');
	sb_putc(&asc, '\n');
	for (size_t i = 0; i < n; i++) {
		sb_puts(&same, "ERR: 0\n");
		sb_puts(&asc, "ERR: 0\n");
	}
	assert_false(same.err || asc.err);
	assert_int_equal(irqtab_parse(same.buf, same.len, false, &t, &pe), -EBADMSG);
	assert_int_equal(pe.line, 1);
	assert_int_equal(irqtab_parse(asc.buf, asc.len, false, &t, &pe), -EBADMSG);
	/* a few rows' worth, not 4000 x 4000 counters (128 MB) */
	assert_true(t.counts_cap * sizeof(*t.counts) < ((size_t)4 << 20));
	irq_table_free(&t);
	sb_free(&same);
	sb_free(&asc);
}

/* What a host can have bounds what a file makes us allocate (issue 24, R3):
 * 63 MiB of one short diskstats line were 1.5 million rows, 1.7 GB. Each
 * bound is taken exactly and refused one past it. */
static void test_host_bounds(void **state)
{
	struct disk_table d = { 0 };
	struct irq_table t = { 0 };
	struct stat_raw st = { 0 };
	struct parse_error pe = { 0 };
	struct strbuf sb = { 0 };

	(void)state;
	for (size_t i = 0; i < IOT_DISKS_MAX; i++)
		sb_printf(&sb, "8 %zu sda 1 2 3 4 5 6 7 8 9 10 11\n", i);
	assert_false(sb.err);
	assert_int_equal(diskstats_parse(sb.buf, sb.len, &d, &pe), 0);
	assert_int_equal(d.n, IOT_DISKS_MAX);
	sb_puts(&sb, "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
	assert_int_equal(diskstats_parse(sb.buf, sb.len, &d, &pe), -EBADMSG);
	assert_int_equal(pe.line, IOT_DISKS_MAX + 1);
	assert_non_null(strstr(pe.what, "more than 65536 devices"));

	/* IRQ lines: a row each, one CPU column */
	sb_reset(&sb);
	sb_puts(&sb, "CPU0\n");
	for (size_t i = 0; i < IOT_IRQ_LINES_MAX; i++)
		sb_printf(&sb, "%zu: 0\n", i);
	assert_int_equal(irqtab_parse(sb.buf, sb.len, false, &t, &pe), 0);
	sb_puts(&sb, "65536: 0\n");
	assert_int_equal(irqtab_parse(sb.buf, sb.len, false, &t, &pe), -EBADMSG);
	assert_non_null(strstr(pe.what, "more than 65536 IRQ lines"));
	/* softirqs: the kernel has 10 */
	sb_reset(&sb);
	sb_puts(&sb, "CPU0\n");
	for (size_t i = 0; i <= IOT_SOFTIRQS_MAX; i++)
		sb_printf(&sb, "S%zu: 0\n", i);
	assert_int_equal(irqtab_parse(sb.buf, sb.len, true, &t, &pe), -EBADMSG);
	assert_non_null(strstr(pe.what, "more than 64 softirq rows"));
	/* counters: 8192 CPU columns x 2049 lines is past 2^24 */
	sb_reset(&sb);
	for (size_t i = 0; i < IOT_CPUS_MAX; i++)
		sb_printf(&sb, " CPU%zu", i);
	sb_putc(&sb, '\n');
	for (size_t l = 0; l <= IOT_IRQ_CELLS_MAX / IOT_CPUS_MAX; l++) {
		sb_printf(&sb, "%zu:", l);
		for (size_t i = 0; i < IOT_CPUS_MAX; i++)
			sb_puts(&sb, " 0");
		sb_putc(&sb, '\n');
	}
	assert_false(sb.err);
	assert_int_equal(irqtab_parse(sb.buf, sb.len, false, &t, &pe), -EBADMSG);
	assert_int_equal(pe.line, IOT_IRQ_CELLS_MAX / IOT_CPUS_MAX + 2);
	assert_non_null(strstr(pe.what, "more than 2^24 counters"));
	/* CPU numbers: NR_CPUS is at most 8192 */
	sb_reset(&sb);
	sb_puts(&sb, " CPU0 CPU8192\n0: 1 2\n");
	assert_int_equal(irqtab_parse(sb.buf, sb.len, false, &t, &pe), -EBADMSG);
	assert_non_null(strstr(pe.what, "past 8191"));
	sb_reset(&sb);
	sb_puts(&sb, "cpu  1 2 3 4\ncpu8191 1 2 3 4\n");
	assert_int_equal(stat_parse(sb.buf, sb.len, &st, &pe), 0);
	sb_reset(&sb);
	sb_puts(&sb, "cpu  1 2 3 4\ncpu8192 1 2 3 4\n");
	assert_int_equal(stat_parse(sb.buf, sb.len, &st, &pe), -EBADMSG);
	assert_non_null(strstr(pe.what, "past 8191"));
	stat_raw_free(&st);
	irq_table_free(&t);
	disk_table_free(&d);
	sb_free(&sb);
}

static void test_softirqs(void **state)
{
	const char buf[] = "                    CPU0       CPU1       \n"
			   "          HI:          0          0\n"
			   "       TIMER:       3686       2513\n"
			   "      NET_RX:        955       1015\n";
	struct irq_table t = { 0 };
	struct parse_error pe = { 0 };
	const struct irq_row *r;

	(void)state;
	assert_int_equal(irqtab_parse(buf, strlen(buf), true, &t, &pe), 0);
	assert_int_equal(t.n, 3);
	r = irq_table_find(&t, "NET_RX", NULL);
	assert_non_null(r);
	assert_int_equal(irq_row_counts(&t, r)[1], 1015);
	irq_table_free(&t);
}

static void test_uptime(void **state)
{
	struct uptime_raw u;
	struct parse_error pe;

	(void)state;
	assert_int_equal(uptime_parse("742.81 1402.55\n", 15, &u, &pe), 0);
	assert_int_equal(u.uptime_cs, 74281);
	assert_int_equal(u.idle_cs, 140255);
	assert_int_equal(uptime_parse("10 5\n", 5, &u, &pe), 0);
	assert_int_equal(u.uptime_cs, 1000);
	assert_int_equal(uptime_parse("abc\n", 4, &u, &pe), -EBADMSG);
	assert_int_equal(uptime_parse("", 0, &u, &pe), -EBADMSG);
}

/* The same table reused for a smaller file keeps no stale rows. */
static void test_reuse(void **state)
{
	const char big[] = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n";
	const char small[] = "8 16 sdb 1 2 3 4 5 6 7 8 9 10 12\n";
	struct disk_table t = { 0 };

	(void)state;
	assert_int_equal(diskstats_parse(big, strlen(big), &t, NULL), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(diskstats_parse(small, strlen(small), &t, NULL), 0);
	assert_int_equal(t.n, 1);
	assert_null(disk_table_find(&t, 8, 0, NULL));
	disk_table_free(&t);
}

/* Tables in different orders pair by binary search; the first of two rows
 * with one major:minor is found, as a linear search would; a table parsed
 * again, copied or emptied never answers from a stale index. */
static void test_disk_index(void **state)
{
	const char fwd[] = "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
			   "8 16 sdb 1 2 3 4 5 6 7 8 9 10 11\n"
			   "259 0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11\n"
			   "8 16 dup 1 2 3 4 5 6 7 8 9 10 11\n"
			   "7 0 loop0 1 2 3 4 5 6 7 8 9 10 11\n";
	const char other[] = "9 0 md0 1 2 3 4 5 6 7 8 9 10 11\n";
	struct disk_table t = { 0 }, c = { 0 };
	const struct disk_raw *d;
	size_t hint = 0;

	(void)state;
	assert_int_equal(diskstats_parse(fwd, strlen(fwd), &t, NULL), 0);
	assert_int_equal(t.nkeys, 5);
	d = disk_table_find(&t, 7, 0, &hint);
	assert_string_equal(d->name, "loop0");
	assert_int_equal(hint, 5);
	d = disk_table_find(&t, 8, 16, &hint);
	assert_string_equal(d->name, "sdb");
	assert_int_equal(hint, 2);
	assert_string_equal(disk_table_find(&t, 259, 0, &hint)->name, "nvme0n1");
	assert_null(disk_table_find(&t, 8, 1, &hint));
	assert_null(disk_table_find(&t, 0, 0, NULL));
	assert_null(disk_table_find(&t, UINT32_MAX, UINT32_MAX, NULL));
	assert_int_equal(disk_table_copy(&c, &t), 0);
	assert_int_equal(c.nkeys, 5);
	assert_string_equal(disk_table_find(&c, 7, 0, NULL)->name, "loop0");
	assert_int_equal(diskstats_parse(other, strlen(other), &t, NULL), 0);
	assert_null(disk_table_find(&t, 7, 0, NULL));
	assert_string_equal(disk_table_find(&t, 9, 0, NULL)->name, "md0");
	/* a failed parse leaves no usable index over its half table */
	assert_int_equal(diskstats_parse("9 0 md0 1 2\n", 12, &t, NULL), -EBADMSG);
	assert_int_equal(t.nkeys, 0);
	/* the collector empties a failed source with n = 0 */
	t.n = 0;
	assert_null(disk_table_find(&t, 9, 0, NULL));
	disk_table_free(&c);
	disk_table_free(&t);
}

/* n numeric IRQ lines on 2 CPUs in the order perm gives (perm NULL: 0..n-1),
 * then the named rows; counters are a function of the IRQ. */
static char *irq_text(size_t n, const size_t *perm, size_t *ret_len)
{
	static const char *const named[] = { "NMI", "LOC", "SPU", "PMI", "IWI", "RES",
					     "CAL", "TLB", "TRM", "THR", "MCE", "MCP" };
	size_t cap = 64 + (n + 12) * 128, len;
	char *buf = malloc(cap);

	assert_non_null(buf);
	len = (size_t)snprintf(buf, cap, "           CPU0       CPU1\n");
	for (size_t i = 0; i < n; i++) {
		size_t irq = perm ? perm[i] : i;

		len +=
		    (size_t)snprintf(buf + len, cap - len,
				     "%5zu: %10zu %10zu  PCI-MSIX-0000:00:01.0  %zu-edge  q%zu\n",
				     irq, irq * 3, irq + 1, irq, irq);
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s: %10zu %10zu  named\n", named[i],
					i, i);
	*ret_len = len;
	return buf;
}

/* Pairs every row of cur with prev's as metrics.c does (in cur's order,
 * one hint); each must be found, with its own counters. */
static void irq_pair_all(const struct irq_table *prev, const struct irq_table *cur)
{
	size_t hint = 0;

	for (size_t i = 0; i < cur->n; i++) {
		const struct irq_row *r = irq_table_find(prev, cur->rows[i].label, &hint);

		assert_non_null(r);
		assert_string_equal(r->label, cur->rows[i].label);
		assert_int_equal(r->total, cur->rows[i].total);
	}
}

/*
 * /proc/interrupts of two samples in another order (a driver reloaded,
 * IRQs renumbered): a reordered 4,000-line table pairs row for row by
 * label, and so does a 200,000-line one reversed, which a linear search
 * per row (2 * 10^10 label compares) does not finish within this test's
 * 30 s timeout; the index makes it n log n.
 */
static void test_irq_index(void **state)
{
	struct irq_table prev = { 0 }, cur = { 0 }, copy = { 0 }, hand = { 0 };
	/* big: near IOT_IRQ_LINES_MAX (irq_text adds 12 named rows) */
	size_t n = 4000, big = 60000, len, hint = 0;
	size_t *perm = malloc(big * sizeof(*perm));
	const char *sevens = "CPU0\n007: 1\n7: 2\nX: 3\n";
	char *buf;

	(void)state;
	assert_non_null(perm);
	buf = irq_text(n, NULL, &len);
	assert_int_equal(irqtab_parse(buf, len, false, &prev, NULL), 0);
	free(buf);
	for (size_t i = 0; i < n; i++) /* 7 and 4000 are coprime: a permutation */
		perm[i] = (i * 7 + 3) % n;
	buf = irq_text(n, perm, &len);
	assert_int_equal(irqtab_parse(buf, len, false, &cur, NULL), 0);
	free(buf);
	assert_int_equal(cur.n, n + 12);
	irq_pair_all(&prev, &cur);
	irq_pair_all(&cur, &prev);
	assert_null(irq_table_find(&prev, "4000", NULL));
	assert_null(irq_table_find(&prev, "", NULL));
	assert_string_equal(irq_table_find(&prev, "MCP", NULL)->label, "MCP");
	/* a hit sets the hint past the row found, as the linear search did */
	assert_string_equal(irq_table_find(&cur, "17", &hint)->label, "17");
	assert_string_equal(cur.rows[hint - 1].label, "17");
	/* a copy finds as its source does */
	assert_int_equal(irq_table_copy(&copy, &cur), 0);
	irq_pair_all(&copy, &prev);
	/* a table built by hand, with no index, is searched linearly */
	assert_int_equal(irq_table_copy(&hand, &prev), 0);
	hand.n = 2;
	snprintf(hand.rows[1].label, sizeof(hand.rows[1].label), "renamed");
	assert_string_equal(irq_table_find(&hand, "renamed", NULL)->label, "renamed");
	assert_null(irq_table_find(&hand, "2", NULL));
	/* equal keys ("7" and "007" both IRQ 7): told apart by the label */
	assert_int_equal(irqtab_parse(sevens, strlen(sevens), false, &hand, NULL), 0);
	assert_int_equal(irq_table_find(&hand, "7", NULL)->total, 2);
	assert_int_equal(irq_table_find(&hand, "007", NULL)->total, 1);
	assert_null(irq_table_find(&hand, "07", NULL));
	/* a failed parse leaves nothing found */
	assert_int_equal(irqtab_parse("CPU0\n 1: x\n", 11, false, &cur, NULL), -EBADMSG);
	cur.n = 0;
	assert_null(irq_table_find(&cur, "1", NULL));

	for (size_t i = 0; i < big; i++)
		perm[i] = big - 1 - i;
	buf = irq_text(big, NULL, &len);
	assert_int_equal(irqtab_parse(buf, len, false, &prev, NULL), 0);
	free(buf);
	buf = irq_text(big, perm, &len);
	assert_int_equal(irqtab_parse(buf, len, false, &cur, NULL), 0);
	free(buf);
	irq_pair_all(&prev, &cur);
	free(perm);
	irq_table_free(&prev);
	irq_table_free(&cur);
	irq_table_free(&copy);
	irq_table_free(&hand);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diskstats_forms),
		cmocka_unit_test(test_diskstats_bad),
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_interrupts),
		cmocka_unit_test(test_interrupts_bad),
		cmocka_unit_test(test_interrupts_amplify),
		cmocka_unit_test(test_host_bounds),
		cmocka_unit_test(test_softirqs),
		cmocka_unit_test(test_uptime),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_disk_index),
		cmocka_unit_test(test_irq_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
