// SPDX-License-Identifier: GPL-2.0-or-later
/* tui/model/model.c: the TUI's one decoder of the sample document (doc/json.md):
 * values as written, absent keys absent, the hot core and hottest softirq,
 * bad documents refused with the previous tables kept, history recorded once
 * per sample (a history reply overlapping the live stream adds nothing), the
 * ring wrapping, a paused view, affinities kept across samples. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"

/* A sample as encode.c writes it, cut to what the model reads. %lld is the
 * timestamp, %d the sample id; cpu 0 carries %irq + %soft = 80. */
static const char doc_fmt[] =
    "{\"version\":1,\"host\":\"db1\",\"mode\":\"daemon\",\"sample\":%d,\"timestamp_ms\":%lld,"
    "\"uptime_cs\":100,\"sources\":{\"stat\":{\"available\":true},"
    "\"interrupts\":{\"available\":false,\"reason\":\"no /proc/interrupts\"}},"
    "\"interval_ms\":1000,"
    "\"disks\":[{\"disk_device\":\"sda\",\"major\":8,\"minor\":0,\"whole\":true,\"in_flight\":0,"
    "\"valid\":true,\"r/s\":50.0,\"w/s\":0.0,\"rkB/s\":200.0,\"wkB/s\":0.0,\"rrqm/s\":0.0,"
    "\"wrqm/s\":0.0,\"rrqm\":0.0,\"wrqm\":0.0,\"r_await\":0.5,\"w_await\":0.0,\"aqu-sz\":0.03,"
    "\"rareq-sz\":4.0,\"wareq-sz\":0.0,\"util\":%s,\"svctm\":0.6},"
    "{\"disk_device\":\"sdb\",\"major\":8,\"minor\":16,\"whole\":true,\"in_flight\":12,"
    "\"valid\":false,\"reason\":\"counters went backwards\"}],"
    "\"cpu-load\":[{\"cpu\":\"all\",\"usr\":15.0,\"nice\":0.0,\"sys\":10.0,\"iowait\":0.0,"
    "\"irq\":17.5,\"soft\":22.5,\"steal\":0.0,\"guest\":0.0,\"gnice\":0.0,\"idle\":35.0},"
    "{\"cpu\":\"0\",\"usr\":10.0,\"nice\":0.0,\"sys\":10.0,\"iowait\":0.0,\"irq\":35.0,"
    "\"soft\":45.0,\"steal\":0.0,\"guest\":0.0,\"gnice\":0.0,\"idle\":0.0,\"intr/s\":25250.0},"
    "{\"cpu\":\"1\",\"usr\":20.0,\"nice\":0.0,\"sys\":10.0,\"iowait\":0.0,\"irq\":0.0,"
    "\"soft\":0.0,\"steal\":0.0,\"guest\":0.0,\"gnice\":0.0,\"idle\":70.0,\"intr/s\":350.0}],"
    "\"intr/s\":25600.0,"
    "\"interrupts\":[{\"name\":\"30\",\"chip\":\"IR-PCI-MSIX\",\"hwirq\":\"0-edge\","
    "\"actions\":\"nvme0q1\",\"total/s\":20000.0,\"cpus\":{\"0\":20000.0}},"
    "{\"name\":\"LOC\",\"actions\":\"Local timer interrupts\",\"total/s\":500.0,"
    "\"cpus\":{\"0\":250.0,\"1\":250.0}},"
    "{\"name\":\"31\",\"valid\":false}],"
    "\"softirqs\":[{\"name\":\"TIMER\",\"total/s\":500.0,\"cpus\":{\"0\":250.0,\"1\":250.0}},"
    "{\"name\":\"NET_RX\",\"total/s\":9000.0,\"cpus\":{\"0\":9000.0}}]}";

static int apply(struct model *m, int sample, long long ts, const char *util, unsigned flags)
{
	char doc[sizeof(doc_fmt) + 64];

	snprintf(doc, sizeof(doc), doc_fmt, sample, ts, util);
	return model_apply_text(m, doc, strlen(doc), flags);
}

static void test_decode(void **state)
{
	struct model m = { 0 };
	const struct model_disk *d;
	const struct model_irq *q;

	(void)state;
	assert_int_equal(apply(&m, 7, 1000, "100.0", MODEL_VIEW | MODEL_HISTORY), 0);
	assert_true(m.have_sample);
	assert_true(m.has_rates);
	assert_string_equal(m.host, "db1");
	assert_int_equal(m.sample, 7);
	assert_int_equal(m.interval_ms, 1000);
	assert_int_equal(m.nunavailable, 1);
	assert_string_equal(m.unavailable[0], "interrupts: no /proc/interrupts");

	assert_int_equal(m.ndisks, 2);
	d = &m.disks[0];
	assert_string_equal(d->name, "sda");
	assert_true(d->valid);
	assert_true(d->has[MD_UTIL] && d->has[MD_SVCTM] && d->has[MD_RAWAIT]);
	assert_false(d->has[MD_DS]); /* a kernel without discard counters */
	assert_true(d->v[MD_UTIL] == 100.0 && d->v[MD_RKBS] == 200.0 && d->v[MD_AQU] == 0.03);
	d = &m.disks[1];
	assert_false(d->valid);
	assert_string_equal(d->reason, "counters went backwards");
	assert_int_equal(d->in_flight, 12);

	assert_int_equal(m.ncpus, 3);
	assert_int_equal(m.cpus[0].cpu, -1);
	assert_string_equal(m.cpus[0].name, "all");
	/* cpu 0 runs 80% irq+soft, but HOT is the advisor's judgement and this
	 * document carries no advice: no mark (test_hot_from_findings) */
	assert_false(m.cpus[0].hot);
	assert_false(m.cpus[1].hot);
	assert_false(m.cpus[2].hot);
	assert_string_equal(m.cpus[1].hot_soft, "NET_RX");
	assert_true(m.cpus[1].hot_soft_s == 9000.0);
	assert_string_equal(m.cpus[2].hot_soft, "TIMER");
	assert_true(m.has_intr_all && m.intr_all_s == 25600.0);

	assert_int_equal(m.nirqs, 3);
	q = &m.irqs[0];
	assert_true(q->numeric && q->irq == 30 && q->valid);
	assert_string_equal(q->actions, "nvme0q1");
	assert_int_equal(q->ncpus, 1);
	assert_true(q->cpus[0].cpu == 0 && q->cpus[0].rate_s == 20000.0);
	assert_false(m.irqs[1].numeric);
	assert_int_equal(m.irqs[1].ncpus, 2);
	assert_false(m.irqs[2].valid);
	model_free(&m);
}

/* HOT marks the cores of the document's hot_cpu findings, and only them:
 * a core with many interrupts or much irq time but no finding is not
 * marked (one judgement: doc/advise.md), nor is a malformed subject. */
static void test_hot_from_findings(void **state)
{
	static const char fmt[] =
	    "{\"version\":1,\"sample\":1,\"timestamp_ms\":1,\"interval_ms\":1000,\"cpu-load\":["
	    "{\"cpu\":\"0\",\"irq\":1.0,\"soft\":1.0,\"idle\":90.0,\"intr/s\":15000.0},"
	    "{\"cpu\":\"1\",\"irq\":40.0,\"soft\":1.0,\"idle\":50.0,\"intr/s\":200.0},"
	    "{\"cpu\":\"2\",\"irq\":1.0,\"soft\":1.0,\"idle\":90.0,\"intr/s\":200.0}],"
	    "\"findings\":[%s],\"suggestions\":[]}";
	static const char *const cases[][2] = {
		{ "", "000" },
		{ "{\"kind\":\"hot_cpu\",\"subject\":\"cpu2\"}", "001" },
		{ "{\"kind\":\"hot_cpu\",\"subject\":\"cpu1\"},"
		  "{\"kind\":\"hot_cpu\",\"subject\":\"cpu0\"}",
		  "110" },
		{ "{\"kind\":\"disk_saturated\",\"subject\":\"cpu1\"}", "000" },
		{ "{\"kind\":\"hot_cpu\",\"subject\":\"cpu1x\"},"
		  "{\"kind\":\"hot_cpu\",\"subject\":\"cpu-1\"},{\"kind\":\"hot_cpu\"}",
		  "000" },
	};
	struct model m = { 0 };
	char doc[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(doc, sizeof(doc), fmt, cases[i][0]);
		assert_int_equal(model_apply_text(&m, doc, strlen(doc), MODEL_VIEW), 0);
		assert_int_equal(m.ncpus, 3);
		for (size_t c = 0; c < 3; c++)
			assert_int_equal(m.cpus[c].hot, cases[i][1][c] == '1');
	}
	model_free(&m);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"not json",
		"[1,2]",
		"{\"version\":2,\"sample\":1,\"timestamp_ms\":1}",
		"{\"sample\":1,\"timestamp_ms\":1}",
		"{\"version\":1,\"sample\":1,\"timestamp_ms\":1,\"disks\":[{\"r/s\":1.0}]}",
		"{\"version\":1,\"sample\":1,\"timestamp_ms\":1,\"disks\":[7]}",
		"{\"version\":1,\"sample\":1,\"timestamp_ms\":1,\"cpu-load\":[{\"cpu\":\"x\"}]}",
		"{\"version\":1,\"sample\":1,\"timestamp_ms\":1,\"interrupts\":[{\"name\":\"1\","
		"\"cpus\":{\"zero\":1.0}}]}",
		"{\"version\":1,\"sample\":1,\"timestamp_ms\":1,\"interrupts\":[{\"name\":\"1\","
		"\"cpus\":{\"0\":\"many\"}}]}",
	};
	struct model m = { 0 };

	(void)state;
	assert_int_equal(apply(&m, 3, 1000, "42.0", MODEL_VIEW | MODEL_HISTORY), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    model_apply_text(&m, bad[i], strlen(bad[i]), MODEL_VIEW | MODEL_HISTORY),
		    -EBADMSG);
		/* the previous tables stay */
		assert_int_equal(m.sample, 3);
		assert_int_equal(m.ndisks, 2);
		assert_true(m.disks[0].v[MD_UTIL] == 42.0);
		assert_int_equal(m.hist.n, 1);
	}
	model_free(&m);
}

static void test_history(void **state)
{
	struct model m = { 0 };
	const struct model_series *s;

	(void)state;
	assert_int_equal(apply(&m, 1, 1000, "10.0", MODEL_HISTORY), 0);
	assert_false(m.have_sample); /* history only: the tables are untouched */
	assert_int_equal(apply(&m, 2, 2000, "20.0", MODEL_HISTORY | MODEL_VIEW), 0);
	/* a history reply that overlaps what was already recorded */
	assert_int_equal(apply(&m, 1, 1000, "10.0", MODEL_HISTORY), 0);
	assert_int_equal(apply(&m, 2, 2000, "20.0", MODEL_HISTORY), 0);
	assert_int_equal(m.hist.n, 2);
	s = model_series_find(&m, "d:sda");
	assert_non_null(s);
	assert_true(model_series_at(&m, s, 0) == 10.0f && model_series_at(&m, s, 1) == 20.0f);
	/* sdb had no rates: no series; a core's series is its busy % */
	assert_null(model_series_find(&m, "d:sdb"));
	s = model_series_find(&m, "c:1");
	assert_non_null(s);
	assert_true(model_series_at(&m, s, 1) == 30.0f);
	assert_non_null(model_series_find(&m, "i:30"));
	assert_null(model_series_find(&m, "i:31"));

	/* paused: the view keeps sample 2, the history goes on */
	assert_int_equal(apply(&m, 3, 3000, "30.0", MODEL_HISTORY), 0);
	assert_int_equal(m.sample, 2);
	assert_int_equal(m.hist.n, 3);

	/* the ring wraps: the newest MODEL_HIST_MAX stay, oldest first */
	for (int i = 0; i < MODEL_HIST_MAX + 5; i++) {
		char util[16];

		snprintf(util, sizeof(util), "%d.0", i % 100);
		assert_int_equal(apply(&m, 10 + i, 10000 + 1000LL * i, util, MODEL_HISTORY), 0);
	}
	assert_int_equal(m.hist.n, MODEL_HIST_MAX);
	s = model_series_find(&m, "d:sda");
	assert_true(model_series_at(&m, s, 0) == (float)(5 % 100));
	assert_true(model_series_at(&m, s, MODEL_HIST_MAX - 1) ==
		    (float)((MODEL_HIST_MAX + 4) % 100));
	model_free(&m);
}

/* Affinities come from the document (doc/json.md interrupts[] "affinity",
 * "effective"), whichever source sent it: the client reads no /proc/irq.
 * A sample without them has none; nothing is carried from the one before. */
static void test_affinity_decoded(void **state)
{
	static const char at[] = "\"actions\":\"nvme0q1\"";
	static const char aff[] = ",\"affinity\":\"0-3\",\"effective\":\"0\"";
	char doc[sizeof(doc_fmt) + 128], with[sizeof(doc) + sizeof(aff)];
	struct model m = { 0 };
	const char *p;
	size_t k;

	(void)state;
	snprintf(doc, sizeof(doc), doc_fmt, 1, 1000LL, "1.0");
	p = strstr(doc, at);
	assert_non_null(p);
	k = (size_t)(p - doc) + strlen(at);
	snprintf(with, sizeof(with), "%.*s%s%s", (int)k, doc, aff, doc + k);
	assert_int_equal(model_apply_text(&m, with, strlen(with), MODEL_VIEW), 0);
	assert_string_equal(m.irqs[0].name, "30");
	assert_true(m.irqs[0].has_smp && m.irqs[0].has_eff);
	assert_string_equal(m.irqs[0].smp_list, "0-3");
	assert_string_equal(m.irqs[0].eff_list, "0");
	assert_false(m.irqs[1].has_smp || m.irqs[1].has_eff);
	assert_int_equal(apply(&m, 2, 2000, "2.0", MODEL_VIEW), 0);
	assert_false(m.irqs[0].has_smp || m.irqs[0].has_eff);
	model_free(&m);
}

/* Noise once: turbostat's sources one line with what is shown instead,
 * PSI's one line, the others one line per reason (issue 23). */
static void test_unavailable_group(void **state)
{
	static const char *const names[] = {
		"stat",	    "msr",	 "perf",	"cpufreq",	"cpuidle",
		"powercap", "hwmon",	 "pressure_io", "pressure_cpu", "pressure_irq",
		"vmstat",   "rtnetlink", "taskstats",
	};
	static const char *const reasons[] = {
		"",
		"/dev/cpu/0/msr: no such device: msr module not loaded, or a VM without MSR access",
		"",
		"no cpufreq in sysfs (no driver, or a VM)",
		"",
		"no /sys/class/powercap/intel-rapl zones",
		"no coretemp or k10temp hwmon device",
		"t1/proc/pressure/io: No such file or directory",
		"t1/proc/pressure/cpu: No such file or directory",
		"t1/proc/pressure/irq: No such file or directory (needs kernel >= 6.1)",
		"t1/proc/vmstat: No such file or directory",
		"t1/netlink/rtnl/links.bin: No such file or directory",
		"t1/netlink/taskstats: no recorded answers (No such file or directory)",
	};
	static const bool avail[] = { true,  false, true,  false, true,	 false, false,
				      false, false, false, false, false, false };
	char causes[MODEL_CAUSES_MAX][MODEL_CAUSE_MAX];
	size_t n;

	(void)state;
	n = model_unavailable_group(names, reasons, avail, 13, causes);
	assert_int_equal(n, 4);
	assert_string_equal(causes[0], "turbostat: no msr cpufreq powercap hwmon (msr module not "
				       "loaded, or a VM without MSR access); perf cpuidle shown");
	assert_string_equal(causes[1], "PSI: no source (No such file or directory)");
	assert_string_equal(causes[2], "vmstat rtnetlink: No such file or directory");
	assert_string_equal(causes[3],
			    "taskstats: no recorded answers (No such file or directory)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_unavailable_group),
		cmocka_unit_test(test_hot_from_findings),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_affinity_decoded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
