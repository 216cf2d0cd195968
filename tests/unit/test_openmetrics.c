// SPDX-License-Identifier: GPL-2.0-or-later
/* The Prometheus exposition (encode_openmetrics.c) on the advise scenario
 * trees: negotiation, counters in base units equal to the recorded
 * counters, hostile label values escaped into valid UTF-8, one stable
 * counter per IRQ line, the device exclusion, the findings, both formats'
 * family naming. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "advise.h"
#include "encode_openmetrics.h"
#include "metrics.h"
#include "snapshot.h"
#include "topology.h"
#include "turbo.h"

struct scenario {
	struct snapshot s0, s1;
	struct metrics m;
	struct topology t;
	struct advice a;
};

static void load(const char *name, struct scenario *sc)
{
	char d0[512], d1[512];
	struct root r;

	memset(sc, 0, sizeof(*sc));
	snprintf(d0, sizeof(d0), "%s/advise/%s/t0", FIXTURES_DIR, name);
	snprintf(d1, sizeof(d1), "%s/advise/%s/t1", FIXTURES_DIR, name);
	assert_int_equal(snapshot_load_tree(d0, &sc->s0), 0);
	assert_int_equal(snapshot_load_tree(d1, &sc->s1), 0);
	assert_int_equal(
	    metrics_compute(&sc->s0, &sc->s1, metrics_interval_cs(&sc->s0, &sc->s1), &sc->m), 0);
	assert_int_equal(root_open(d1, &r), 0);
	assert_int_equal(topology_collect(&r, &sc->t), 0);
	root_close(&r);
	assert_int_equal(
	    advise_run(&(struct advise_input){ .cur = &sc->s1, .m = &sc->m, .t = &sc->t }, &sc->a),
	    0);
}

static void unload(struct scenario *sc)
{
	advice_free(&sc->a);
	topology_free(&sc->t);
	metrics_free(&sc->m);
	snapshot_free(&sc->s0);
	snapshot_free(&sc->s1);
}

static char *render_opts(const struct snapshot *s, const struct metrics *m, const struct advice *a,
			 const struct om_opts *o)
{
	struct strbuf sb = { 0 };

	assert_int_equal(om_render(&sb, s, m, a, o), 0);
	sb_putc(&sb, '\0');
	assert_int_equal(sb.err, 0);
	return sb.buf;
}

static char *render(const struct scenario *sc, enum om_format f)
{
	struct om_opts o = { .format = f };

	return render_opts(&sc->s1, &sc->m, &sc->a, &o);
}

static unsigned count_lines(const char *text, const char *prefix)
{
	unsigned n = 0;
	size_t pl = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, prefix, pl) == 0;
	return n;
}

static void test_negotiate(void **state)
{
	(void)state;
	assert_int_equal(om_negotiate(NULL), OM_PROMETHEUS);
	assert_int_equal(om_negotiate("text/plain"), OM_PROMETHEUS);
	assert_int_equal(om_negotiate("*/*"), OM_PROMETHEUS);
	/* what Prometheus 2.42 sends */
	assert_int_equal(om_negotiate("application/openmetrics-text;version=1.0.0,application/"
				      "openmetrics-text;version=0.0.1;q=0.75,text/"
				      "plain;version=0.0.4;q=0.5,*/*;q=0.1"),
			 OM_OPENMETRICS);
	assert_int_equal(om_negotiate("text/plain;q=0.5, application/openmetrics-text; q=0.2"),
			 OM_OPENMETRICS);
	assert_int_equal(om_negotiate("application/openmetrics-text;q=0"), OM_PROMETHEUS);
	assert_int_equal(om_negotiate("application/openmetrics-textx"), OM_PROMETHEUS);
	assert_int_equal(om_negotiate("application/openmetrics-text;q=garbage"), OM_PROMETHEUS);
	assert_int_equal(om_negotiate(",,;;=="), OM_PROMETHEUS);
}

/* Every counter is the recorded counter in base units, exactly. */
static void test_counters(void **state)
{
	struct scenario sc;
	const struct disk_raw *d;
	char want[256], *text;

	(void)state;
	load("disk-saturated", &sc);
	text = render(&sc, OM_PROMETHEUS);
	d = &sc.s1.disks.rows[0];
	snprintf(want, sizeof(want), "iotriage_disk_read_bytes_total{device=\"%s\"} %llu\n",
		 d->name, (unsigned long long)d->v[DF_RD_SECTORS] * 512);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want),
		 "iotriage_disk_io_time_seconds_total{device=\"%s\"} %llu.%03u\n", d->name,
		 (unsigned long long)d->v[DF_IO_TICKS] / 1000,
		 (unsigned)(d->v[DF_IO_TICKS] % 1000));
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want),
		 "iotriage_cpu_seconds_total{cpu=\"%d\",mode=\"idle\"} %llu.%02u\n",
		 sc.s1.stat.cpus[0].cpu, (unsigned long long)sc.s1.stat.cpus[0].v[CF_IDLE] / 100,
		 (unsigned)(sc.s1.stat.cpus[0].v[CF_IDLE] % 100));
	assert_non_null(strstr(text, want));
	/* the 0.0.4 family names carry _total; every family has HELP and TYPE */
	assert_non_null(strstr(text, "# TYPE iotriage_disk_read_bytes_total counter\n"));
	assert_int_equal(count_lines(text, "# HELP "), count_lines(text, "# TYPE "));
	/* a saturated-disk finding, exactly once */
	assert_int_equal(count_lines(text, "iotriage_finding{id=\"disk-saturated-"), 1);
	assert_null(strstr(text, "# EOF"));
	free(text);
	unload(&sc);
}

static void test_openmetrics_format(void **state)
{
	struct scenario sc;
	char *text;
	size_t len;

	(void)state;
	load("disk-saturated", &sc);
	text = render(&sc, OM_OPENMETRICS);
	len = strlen(text);
	assert_true(len > 6 && strcmp(text + len - 6, "# EOF\n") == 0);
	/* OpenMetrics names a counter family without _total, its samples with */
	assert_non_null(strstr(text, "# TYPE iotriage_disk_read_bytes counter\n"));
	assert_non_null(strstr(text, "\niotriage_disk_read_bytes_total{"));
	free(text);
	unload(&sc);
}

static bool valid_utf8(const unsigned char *s)
{
	while (*s) {
		size_t n = *s < 0x80	     ? 1
			   : (*s >> 5) == 6  ? 2
			   : (*s >> 4) == 14 ? 3
			   : (*s >> 3) == 30 ? 4
					     : 0;

		if (!n)
			return false;
		for (size_t i = 1; i < n; i++)
			if ((s[i] & 0xc0) != 0x80)
				return false;
		s += n;
	}
	return true;
}

/* A recorded tree's device name is anybody's bytes. */
static void test_hostile_labels(void **state)
{
	struct scenario sc;
	char *text;

	(void)state;
	load("disk-saturated", &sc);
	strcpy(sc.s1.disks.rows[0].name, "a\"b\\c\nd\x9b\x1b[2Je");
	text = render(&sc, OM_PROMETHEUS);
	assert_non_null(strstr(text, "{device=\"a\\\"b\\\\c\\nd\xef\xbf\xbd\xef\xbf\xbd[2Je\"}"));
	assert_null(strchr(text, '\x1b'));
	assert_true(valid_utf8((const unsigned char *)text));
	free(text);
	unload(&sc);
}

/* The series names and labels of an exposition ("name{labels}" lines,
 * without values), in order, as one string. */
static char *series_set(const char *text)
{
	struct strbuf sb = { 0 };

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *sp;

		if (!nl)
			break;
		sp = memrchr(p, ' ', (size_t)(nl - p));
		if (*p != '#' && sp)
			sb_append(&sb, p, (size_t)(sp - p + 1));
		p = nl + 1;
	}
	sb_putc(&sb, '\0');
	assert_int_equal(sb.err, 0);
	return sb.buf;
}

/* The IRQ family of an exposition, cut off at the next family. */
static char *irq_family(char *text)
{
	char *p = strstr(text, "# TYPE iotriage_irq_interrupts_total");
	char *end;

	assert_non_null(p);
	end = strstr(p, "\n# ");
	if (end)
		end[1] = '\0';
	return p;
}

/*
 * Every IRQ line is one counter keyed by its label and actions, whatever
 * the load: the same series with no rates (the first sample) as with them,
 * each equal to the line's total, none labelled with a CPU (issue 22: a
 * hot_cpu label and a top-20 ranking made 4,269 series in 33 minutes).
 * The hot core's finding and share are there.
 */
static void test_irq_lines_and_hot_core(void **state)
{
	struct scenario sc;
	struct om_opts o = { 0 };
	const struct finding *hot = NULL;
	char want[256], *text, *first, *a, *b;

	(void)state;
	load("nvme-managed", &sc);
	for (size_t i = 0; i < sc.a.nfindings; i++)
		if (sc.a.findings[i].kind == FIND_HOT_CPU)
			hot = &sc.a.findings[i];
	assert_non_null(hot);
	text = render(&sc, OM_PROMETHEUS);
	assert_int_equal(count_lines(text, "iotriage_irq_interrupts_total{"), sc.s1.irqs.n);
	assert_true(sc.s1.irqs.n > 2);
	assert_null(strstr(text, "hot_cpu="));
	assert_null(strstr(text, "_per_second{irq"));
	for (size_t i = 0; i < sc.s1.irqs.n; i++) {
		const struct irq_row *r = &sc.s1.irqs.rows[i];

		snprintf(want, sizeof(want),
			 "\niotriage_irq_interrupts_total{irq=\"%s\",devices=\"%s\"} %llu\n",
			 r->label, r->actions, (unsigned long long)r->total);
		assert_non_null(strstr(text, want));
	}
	assert_non_null(strstr(text, "# TYPE iotriage_irq_interrupts_total counter\n"));
	snprintf(want, sizeof(want), "iotriage_finding{id=\"%s\",kind=\"hot_cpu\"", hot->id);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "iotriage_hot_cpu_irq_soft_ratio{cpu=\"%s\"} ",
		 hot->subject + 3);
	assert_non_null(strstr(text, want));
	/* the IRQ series of t0 alone (no rates) are t1's: the load picks none */
	first = render_opts(&sc.s0, NULL, NULL, &o);
	a = series_set(irq_family(first));
	b = series_set(irq_family(text));
	assert_true(strlen(b) > 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(first);
	free(text);
	unload(&sc);
}

/* loop, ram, zram and fd devices are left out by the default pattern, in
 * every disk family; "" (NULL) keeps every device; a bad pattern is
 * refused. */
static void test_device_exclude(void **state)
{
	struct scenario sc;
	struct om_opts o = { 0 };
	regex_t *re = NULL;
	char *text;

	(void)state;
	load("disk-saturated", &sc);
	assert_true(sc.s1.disks.n >= 1);
	strcpy(sc.s1.disks.rows[0].name, "loop7");
	assert_int_equal(om_exclude_compile(OM_DEVICE_EXCLUDE_DEFAULT, &re), 0);
	assert_non_null(re);
	o.device_exclude = re;
	text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
	assert_null(strstr(text, "device=\"loop7\""));
	free(text);
	o.device_exclude = NULL;
	text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
	assert_non_null(strstr(text, "iotriage_disk_reads_completed_total{device=\"loop7\"}"));
	assert_non_null(strstr(text, "iotriage_disk_io_now{device=\"loop7\"}"));
	free(text);
	/* what the default keeps: a disk named like a loop device is not one */
	for (const char *keep = "sda\0nvme0n1\0loop\0xloop0\0ram0p\0vda1\0"; *keep;
	     keep += strlen(keep) + 1)
		assert_int_equal(regexec(re, keep, 0, NULL, 0), REG_NOMATCH);
	for (const char *drop = "loop0\0loop12\0ram3\0zram0\0fd0\0"; *drop;
	     drop += strlen(drop) + 1)
		assert_int_equal(regexec(re, drop, 0, NULL, 0), 0);
	om_exclude_free(re);
	assert_int_equal(om_exclude_compile("", &re), 0);
	assert_null(re);
	assert_int_equal(om_exclude_compile("(", &re), -EINVAL);
	om_exclude_free(NULL);
	unload(&sc);
}

/*
 * --trace: the stage's counters as Prometheus families. The raw read is
 * virtio-time's host with the recorded run's numbers
 * (tests/fixtures/trace/loop-fio/trace.json: loop0's 9014 reads at the
 * device, the block probe's 1.165 % of a CPU) put on its disk vda.
 */
static void trace_read_build(struct trace_raw *r)
{
	static const uint64_t hist[] = {
		0, 4, 40, 194, 2918, 2815, 1540, 763, 175, 88, 179, 246, 52
	};

	memset(r, 0, sizeof(*r));
	r->valid = true;
	r->ncpu = 4;
	for (int k = 0; k < TRACE__COUNT; k++)
		r->probe[k].on = r->probe[k].read = true;
	r->soft_ns = calloc(4 * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	r->soft_count = calloc(4 * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	r->irq = calloc(2, sizeof(*r->irq));
	r->irq_ns = calloc(2 * 4, sizeof(uint64_t));
	r->irq_count = calloc(2 * 4, sizeof(uint64_t));
	r->lat = calloc(1, sizeof(*r->lat));
	assert_true(r->soft_ns && r->soft_count && r->irq && r->irq_ns && r->irq_count && r->lat);
	r->soft_ns[1 * TRACE_NR_SOFTIRQS + 4] = 290000000;    /* cpu1 BLOCK */
	r->soft_ns[0 * TRACE_NR_SOFTIRQS + 1] = 304310123456; /* cpu0 TIMER */
	r->nirq = 2;
	r->irq[0] = 30;
	r->irq[1] = 31;
	r->irq_ns[0 * 4 + 1] = 2000000;
	r->irq_ns[1 * 4 + 1] = 110000000;
	r->irq_ns[1 * 4 + 2] = 1500;
	r->nlat = 1;
	r->lat[0].major = 254;
	r->lat[0].minor = 0;
	r->lat[0].op = TRACE_OP_READ;
	r->lat[0].kind = TRACE_LAT_DEVICE;
	for (size_t i = 0; i < sizeof(hist) / sizeof(hist[0]); i++) {
		r->lat[0].slots[i] = hist[i];
		r->lat[0].count += hist[i];
	}
	r->lat[0].sum_ns = 1963880180; /* 9014 x 217.87 µs */
}

static void test_trace_families(void **state)
{
	static const char *const buckets[] = {
		"le=\"1.6e-05\"} 238\n",   "le=\"6.4e-05\"} 5971\n",  "le=\"0.000256\"} 8274\n",
		"le=\"0.001024\"} 8537\n", "le=\"0.004096\"} 8962\n", "le=\"0.016384\"} 9014\n",
		"le=\"0.065536\"} 9014\n", "le=\"0.262144\"} 9014\n", "le=\"1.048576\"} 9014\n",
		"le=\"4.194304\"} 9014\n", "le=\"+Inf\"} 9014\n",
	};
	const char *pfx = "iotriage_trace_io_latency_seconds_bucket{device=\"vda\",op=\"read\","
			  "stage=\"device\",";
	struct trace_metrics tm = { 0 };
	struct om_opts o = { 0 };
	struct trace_raw r;
	struct scenario sc;
	regex_t *re = NULL;
	char *text, want[256];

	(void)state;
	load("virtio-time", &sc);
	/* no trace: no trace family */
	text = render(&sc, OM_PROMETHEUS);
	assert_null(strstr(text, "iotriage_trace_"));
	free(text);

	trace_read_build(&r);
	for (int k = 0; k < TRACE__COUNT; k++)
		tm.probe_cpu_pct[k] = -1;
	tm.probe_cpu_pct[TRACE_BLOCK] = 1.165;
	o.trace = &r;
	o.trace_m = &tm;
	text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
	assert_non_null(strstr(text, "\niotriage_trace_probe_on{probe=\"hardirq\"} 1\n"));
	assert_non_null(strstr(text, "\niotriage_trace_probe_on{probe=\"block\"} 1\n"));
	assert_non_null(
	    strstr(text, "\niotriage_trace_probe_cpu_ratio{probe=\"block\"} 0.01165\n"));
	assert_null(strstr(text, "iotriage_trace_probe_cpu_ratio{probe=\"softirq\"}"));
	/* counters in seconds, exact to the µs; one per online CPU and type */
	assert_non_null(strstr(text, "# TYPE iotriage_trace_softirq_seconds_total counter\n"));
	assert_non_null(strstr(
	    text, "\niotriage_trace_softirq_seconds_total{cpu=\"1\",type=\"BLOCK\"} 0.290000\n"));
	assert_non_null(strstr(
	    text, "\niotriage_trace_softirq_seconds_total{cpu=\"0\",type=\"TIMER\"} 304.310123\n"));
	assert_int_equal(count_lines(text, "iotriage_trace_softirq_seconds_total{"),
			 4 * TRACE_NR_SOFTIRQS);
	assert_non_null(strstr(text, "\niotriage_trace_hardirq_seconds_total{irq=\"31\",devices="
				     "\"virtio1-req.0\"} 0.110001\n"));
	assert_non_null(strstr(text, "\niotriage_trace_hardirq_seconds_total{irq=\"30\",devices="
				     "\"xhci_hcd\"} 0.002000\n"));
	/* the histogram: fixed, cumulative buckets, +Inf equal to _count */
	assert_non_null(strstr(text, "# TYPE iotriage_trace_io_latency_seconds histogram\n"));
	assert_int_equal(count_lines(text, pfx), 11);
	for (size_t i = 0; i < sizeof(buckets) / sizeof(buckets[0]); i++) {
		snprintf(want, sizeof(want), "\n%s%s", pfx, buckets[i]);
		if (!strstr(text, want))
			fail_msg("no %s", want);
	}
	assert_non_null(strstr(text, "\niotriage_trace_io_latency_seconds_sum{device=\"vda\",op="
				     "\"read\",stage=\"device\"} 1.963880\n"));
	assert_non_null(strstr(text, "\niotriage_trace_io_latency_seconds_count{device=\"vda\",op="
				     "\"read\",stage=\"device\"} 9014\n"));
	/* the hot core's share is mpstat's until the time is measured */
	assert_non_null(strstr(text, "\niotriage_hot_cpu_irq_soft_ratio{cpu=\"1\"} 0.42\n"));
	free(text);
	{
		double soft_us[4 * TRACE_NR_SOFTIRQS] = { 0 }, hard_us[4] = { 0, 112000, 0, 0 };

		/* measured: 112 ms/s hardirq + 688 ms/s softirq, as the advice judged */
		soft_us[1 * TRACE_NR_SOFTIRQS + 4] = 670000;
		soft_us[1 * TRACE_NR_SOFTIRQS + 1] = 18000;
		tm.ncpu = 4;
		tm.on[TRACE_HARDIRQ] = tm.on[TRACE_SOFTIRQ] = true;
		tm.soft_us_s = soft_us;
		tm.hard_us_s = hard_us;
		text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
		assert_non_null(strstr(text, "\niotriage_hot_cpu_irq_soft_ratio{cpu=\"1\"} 0.8\n"));
		free(text);
		tm.soft_us_s = tm.hard_us_s = NULL;
		tm.on[TRACE_HARDIRQ] = tm.on[TRACE_SOFTIRQ] = false;
	}

	/* OpenMetrics: the family names without _total, the histogram's as is */
	o.format = OM_OPENMETRICS;
	text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
	assert_non_null(strstr(text, "# TYPE iotriage_trace_softirq_seconds counter\n"));
	assert_non_null(strstr(text, "# TYPE iotriage_trace_io_latency_seconds histogram\n"));
	assert_non_null(strstr(text, "le=\"+Inf\"} 9014\n"));
	free(text);

	/* a probe switched off: its gauge says 0 and its counters are left out
	 * (its map is not read: zeros would be a counter reset) */
	o.format = OM_PROMETHEUS;
	r.probe[TRACE_SOFTIRQ].on = r.probe[TRACE_SOFTIRQ].read = false;
	assert_int_equal(om_exclude_compile("^vda$", &re), 0);
	o.device_exclude = re;
	text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
	assert_non_null(strstr(text, "\niotriage_trace_probe_on{probe=\"softirq\"} 0\n"));
	assert_null(strstr(text, "iotriage_trace_softirq_seconds"));
	/* the device exclusion holds for the histogram too */
	assert_null(strstr(text, "iotriage_trace_io_latency_seconds"));
	assert_non_null(strstr(text, "iotriage_trace_hardirq_seconds_total{irq=\"31\""));
	free(text);
	om_exclude_free(re);
	trace_raw_free(&r);
	unload(&sc);
}

/* turbostat's counts are counters, not per-second gauges: SMI as read
 * (32 bits), IRQ as iotriage_cpu_interrupts_total already has it. */
static void test_turbo_counters(void **state)
{
	struct scenario sc;
	struct turbo_cpu_raw cpus[2] = {
		{ .cpu = 0, .core_id = 0, .pkg_id = 0, .have = TR_SMI, .smi = 0x100000007ULL },
		{ .cpu = 1, .core_id = 0, .pkg_id = 0, .have = TR_TSC },
	};
	struct turbo_raw t = { .cpus = cpus, .ncpu = 2 }, *own;
	struct om_opts o = { 0 };
	char *text;

	(void)state;
	load("disk-saturated", &sc);
	own = sc.s1.turbo; /* the tree's, freed with the snapshot */
	sc.s1.turbo = &t;
	text = render_opts(&sc.s1, &sc.m, &sc.a, &o);
	sc.s1.turbo = own;
	assert_non_null(
	    strstr(text, "# TYPE iotriage_turbostat_smi_total counter\n"
			 "iotriage_turbostat_smi_total{cpu=\"0\",core=\"0\",package=\"0\"} 7\n"));
	assert_int_equal(count_lines(text, "iotriage_turbostat_smi_total{"), 1);
	assert_null(strstr(text, "_per_second"));
	free(text);
	unload(&sc);
}

/* The first sample: counters and no rates, no findings, no NaN. */
static void test_first_sample(void **state)
{
	struct scenario sc;
	struct strbuf sb = { 0 };
	struct om_opts o = { 0 };

	(void)state;
	load("disk-saturated", &sc);
	assert_int_equal(om_render(&sb, &sc.s1, NULL, NULL, &o), 0);
	sb_putc(&sb, '\0');
	assert_non_null(strstr(sb.buf, "iotriage_disk_reads_completed_total{"));
	assert_null(strstr(sb.buf, "iotriage_finding{"));
	assert_null(strstr(sb.buf, "iotriage_cpu_irq_soft_ratio"));
	assert_null(strstr(sb.buf, "NaN"));
	sb_free(&sb);
	unload(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_openmetrics_format),
		cmocka_unit_test(test_hostile_labels),
		cmocka_unit_test(test_irq_lines_and_hot_core),
		cmocka_unit_test(test_device_exclude),
		cmocka_unit_test(test_turbo_counters),
		cmocka_unit_test(test_first_sample),
		cmocka_unit_test(test_trace_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
