// SPDX-License-Identifier: GPL-2.0-or-later
/* tui/model/model_summary.c: the findings line under the live view's header
 * (the gravest finding in words; a hot_cpu finding said from the tables with
 * the interrupt line that delivers most of the core's interrupts), the
 * states before rates and without advice, and the hot core's busiest line;
 * tui/model/model_irqgroup.c: a device's queue vectors as one group. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "model_irqgroup.h"
#include "model_summary.h"

/* cpu 2 hot (%irq 30 + %soft 18), 1000 of its 1250 interrupts/s from IRQ 24
 * nvme0q0; %s: the findings and suggestions members, or "" */
static const char doc_fmt[] =
    "{\"version\":1,\"host\":\"db1\",\"sample\":2,\"timestamp_ms\":1000,%s"
    "\"cpu-load\":[{\"cpu\":\"all\",\"irq\":10.0,\"soft\":6.0,\"idle\":80.0},"
    "{\"cpu\":\"0\",\"irq\":0.0,\"soft\":0.0,\"idle\":95.0,\"intr/s\":100.0},"
    "{\"cpu\":\"1\",\"irq\":0.0,\"soft\":0.0,\"idle\":95.0,\"intr/s\":100.0},"
    "{\"cpu\":\"2\",\"irq\":30.0,\"soft\":18.0,\"idle\":42.0,\"intr/s\":1250.0}],"
    "\"interrupts\":[{\"name\":\"LOC\",\"actions\":\"Local timer interrupts\","
    "\"total/s\":750.0,\"cpus\":{\"0\":100.0,\"1\":100.0,\"2\":250.0}},"
    "{\"name\":\"24\",\"chip\":\"IR-PCI-MSIX\",\"actions\":\"nvme0q0\",\"total/s\":1000.0,"
    "\"cpus\":{\"2\":1000.0}}],\"softirqs\":[]}";

/* ranked by harm, as the advisor sends them: the first is the headline */
static const char advice[] =
    "\"findings\":[{\"id\":\"hot-cpu-cpu2\",\"kind\":\"hot_cpu\",\"severity\":\"critical\","
    "\"subject\":\"cpu2\",\"reason\":\"cpu2: %irq 30.00 + %soft 18.00 = 48.00%\"},"
    "{\"id\":\"advice-limited\",\"kind\":\"advice_limited\",\"severity\":\"info\","
    "\"subject\":\"host\",\"reason\":\"advice limited: files missing\"},"
    "{\"id\":\"disk-sda\",\"kind\":\"disk_saturated\",\"severity\":\"warning\","
    "\"subject\":\"sda\",\"reason\":\"%util 100\"}],\"suggestions\":[],";

/* a saturated disk first, a graver-looking one after it: the first stays
 * the headline (never re-ranked), its suggestion is the fix */
static const char advice_disk[] =
    "\"findings\":[{\"id\":\"disk-saturated-sdb\",\"kind\":\"disk_saturated\","
    "\"severity\":\"warning\",\"subject\":\"sdb\",\"reason\":\"sdb saturated: util 99.50%, "
    "aqu-sz 28.00, await 142.00 ms vs 4.97 ms of service per IO (180.00 r/s, 20.00 w/s): "
    "requests queue for the device\"},"
    "{\"id\":\"hot-cpu-cpu2\",\"kind\":\"hot_cpu\",\"severity\":\"critical\","
    "\"subject\":\"cpu2\",\"reason\":\"cpu2: %irq 30.00 + %soft 18.00 = 48.00%\"},"
    "{\"id\":\"advice-limited\",\"kind\":\"advice_limited\",\"severity\":\"info\","
    "\"subject\":\"host\",\"reason\":\"advice limited\"}],"
    "\"suggestions\":[{\"id\":\"scheduler-sdb\",\"finding\":\"disk-saturated-sdb\","
    "\"severity\":\"info\",\"reason\":\"r\",\"effect\":\"e\",\"notes\":\"\","
    "\"commands\":[\"echo mq-deadline > /sys/block/sdb/queue/scheduler\"],"
    "\"undo\":[\"echo none > /sys/block/sdb/queue/scheduler\"],\"writes\":[]}],";

/* a saturated disk whose culprit the advisor named, no suggestion */
static const char advice_who[] =
    "\"findings\":[{\"id\":\"disk-saturated-vda\",\"kind\":\"disk_saturated\","
    "\"severity\":\"critical\",\"subject\":\"vda\",\"reason\":\"vda saturated: util "
    "100.00%, aqu-sz 43.27, await 15.60 ms\",\"culprit\":\"pid 812 fio --name=x (user "
    "root, unit /) (0 kB/s read, 891653 kB/s written)\",\"who\":\"fio pid 812 871 MB/s\"},"
    "{\"id\":\"advice-limited\",\"kind\":\"advice_limited\",\"severity\":\"info\","
    "\"subject\":\"host\",\"reason\":\"advice limited\"}],\"suggestions\":[],";

/* the same with its victim */
static const char advice_victim[] =
    "\"findings\":[{\"id\":\"disk-saturated-vda\",\"kind\":\"disk_saturated\","
    "\"severity\":\"critical\",\"subject\":\"vda\",\"reason\":\"vda saturated: util "
    "100.00%, aqu-sz 43.27, await 15.60 ms\",\"who\":\"fio pid 812 871 MB/s\","
    "\"victim\":\"postgresql@15-main.service io 61%\"},"
    "{\"id\":\"advice-limited\",\"kind\":\"advice_limited\",\"severity\":\"info\","
    "\"subject\":\"host\",\"reason\":\"advice limited\"}],\"suggestions\":[],";

static void load(struct model *m, const char *members, bool rates)
{
	char doc[sizeof(doc_fmt) + sizeof(advice_disk) + 32];

	snprintf(doc, sizeof(doc), doc_fmt, rates ? members : "");
	if (rates) {
		/* interval_ms says the sample carries rates */
		char *p = strstr(doc, "\"cpu-load\"");
		char tmp[sizeof(doc)];

		snprintf(tmp, sizeof(tmp), "%.*s\"interval_ms\":1000,%s", (int)(p - doc), doc, p);
		memcpy(doc, tmp, sizeof(doc));
	}
	assert_int_equal(model_apply_text(m, doc, strlen(doc), MODEL_VIEW), 0);
}

static void test_worst_finding(void **state)
{
	struct model m = { 0 };
	struct model_summary s;

	(void)state;
	load(&m, advice, true);
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_CRITICAL);
	assert_string_equal(s.word, "CRIT");
	/* said from the tables: IRQ 24's 1000/s of cpu2's 1250/s */
	assert_string_equal(s.text, "cpu2 irq+soft 48%: IRQ 24 nvme0q0 80%");
	assert_int_equal(s.more, 2);
	assert_string_equal(s.fix, "");
	assert_true(s.details);
	model_free(&m);
}

/* The headline line at a width: the proof, the fix's key, the count; fields
 * drop whole by priority and nothing is cut mid-word (issue 23). */
static void test_headline_line(void **state)
{
	struct model m = { 0 };
	struct model_summary s;
	char buf[512];
	int w;

	(void)state;
	load(&m, advice_disk, true);
	model_summary_get(&m, &s);
	/* the first finding, although a later one is critical */
	assert_int_equal(s.level, MODEL_SUM_WARNING);
	assert_string_equal(s.fix, "scheduler-sdb");
	assert_int_equal(s.more, 2);
	w = model_summary_line(&s, false, true, 200, buf, sizeof(buf));
	assert_string_equal(buf,
			    " WARN sdb saturated: util 99.50%, aqu-sz 28.00, await 142.00 ms vs "
			    "4.97 ms of service per IO (180.00 r/s, 20.00 w/s): requests "
			    "queue for the device - a apply the fix; +2 more: f");
	assert_int_equal(w, (int)strlen(buf));
	/* 80: the clauses after the proof drop first, whole */
	w = model_summary_line(&s, false, true, 80, buf, sizeof(buf));
	assert_string_equal(buf,
			    " WARN sdb saturated: util 99.50%, aqu-sz 28.00 - a apply the fix; +2 "
			    "more: f");
	assert_true(w <= 80);
	/* narrower: the count goes, then the key; the proof stays */
	model_summary_line(&s, false, true, 50, buf, sizeof(buf));
	assert_string_equal(buf, " WARN sdb saturated: util 99.50% - a apply the fix");
	model_summary_line(&s, false, true, 36, buf, sizeof(buf));
	assert_string_equal(buf, " WARN sdb saturated: util 99.50%");
	/* narrower than the proof: whole words */
	model_summary_line(&s, false, true, 25, buf, sizeof(buf));
	assert_string_equal(buf, " WARN sdb saturated: util");
	/* a replay cannot apply: f shows the fix */
	model_summary_line(&s, false, false, 80, buf, sizeof(buf));
	assert_non_null(strstr(buf, " - f the fix; +2 more: f"));
	/* no suggestion: f says why */
	load(&m, advice, true);
	model_summary_get(&m, &s);
	model_summary_line(&s, false, true, 80, buf, sizeof(buf));
	assert_string_equal(
	    buf, " CRIT cpu2 irq+soft 48%: IRQ 24 nvme0q0 80% - f why no fix; +2 more: f");
	model_free(&m);
}

/* Who causes the headline's finding, in a few words after the proof; it
 * drops after the count and before the fix's key. */
static void test_headline_who(void **state)
{
	struct model m = { 0 };
	struct model_summary s;
	char buf[512];

	(void)state;
	load(&m, advice_who, true);
	assert_string_equal(m.advice.findings[0].who, "fio pid 812 871 MB/s");
	model_summary_get(&m, &s);
	assert_string_equal(s.who, "fio pid 812 871 MB/s");
	model_summary_line(&s, false, true, 200, buf, sizeof(buf));
	assert_string_equal(buf,
			    " CRIT vda saturated: util 100.00%, aqu-sz 43.27, await 15.60 ms - "
			    "fio pid 812 871 MB/s - f why no fix; +1 more: f");
	model_summary_line(&s, false, true, 80, buf, sizeof(buf));
	assert_string_equal(
	    buf, " CRIT vda saturated: util 100.00% - fio pid 812 871 MB/s - f why no fix");
	/* narrower: the key's words, the culprit's pid, then the key go; who
	 * causes it stays longest after the proof */
	model_summary_line(&s, false, true, 60, buf, sizeof(buf));
	assert_string_equal(buf, " CRIT vda saturated: util 100.00% - fio 871 MB/s - f why");
	model_summary_line(&s, false, true, 50, buf, sizeof(buf));
	assert_string_equal(buf, " CRIT vda saturated: util 100.00% - fio 871 MB/s");
	model_summary_line(&s, false, true, 40, buf, sizeof(buf));
	assert_string_equal(buf, " CRIT vda saturated: util 100.00%");
	model_free(&m);
	/* who suffers, after who causes it: at 80 columns cause, culprit and
	 * victim in one line (issue 29) */
	load(&m, advice_victim, true);
	model_summary_get(&m, &s);
	assert_string_equal(s.victim, "postgresql@15-main.service io 61%");
	model_summary_line(&s, false, true, 200, buf, sizeof(buf));
	assert_string_equal(buf,
			    " CRIT vda saturated: util 100.00%, aqu-sz 43.27, await 15.60 ms - "
			    "fio pid 812 871 MB/s -> postgresql@15-main.service io 61% - f why "
			    "no fix; +1 more: f");
	model_summary_line(&s, false, true, 80, buf, sizeof(buf));
	assert_string_equal(
	    buf, " CRIT vda saturated: util 100.00% - fio 871 MB/s -> postgresql@15-main io 61%");
	model_summary_line(&s, true, true, 80, buf, sizeof(buf));
	assert_string_equal(buf, " CRIT vda saturated: util 100.00% \u2014 fio 871 MB/s \u2192 "
				 "postgresql@15-main io 61%");
	/* no room for the victim: its room goes back to the proof */
	model_summary_line(&s, false, true, 64, buf, sizeof(buf));
	assert_string_equal(buf, " CRIT vda saturated: util 100.00%, aqu-sz 43.27 - fio 871 MB/s");
	model_free(&m);
	/* an older daemon's finding without "who": "" and nothing drawn for it */
	load(&m, advice_disk, true);
	assert_string_equal(m.advice.findings[0].who, "");
	model_free(&m);
}

static void test_no_advice(void **state)
{
	struct model m = { 0 };
	struct model_summary s;

	(void)state;
	load(&m, "", true);
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_UNKNOWN);
	/* HOT is the advisor's: without advice no core is marked */
	assert_string_equal(s.word, "");
	assert_non_null(strstr(s.text, "no advice in the sample"));
	assert_false(s.details);
	model_free(&m);
}

static void test_healthy_and_waiting(void **state)
{
	struct model m = { 0 };
	struct model_summary s;

	(void)state;
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_WAIT);
	load(&m, "", false);
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_WAIT);
	assert_string_equal(s.text, "waiting for a second sample...");
	load(&m, "\"findings\":[],\"suggestions\":[],", true);
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_OK);
	assert_string_equal(s.word, "OK");
	/* no finding while tasks still wait on io (a disk just calmed down):
	 * not OK, and the pressure said */
	load(&m,
	     "\"findings\":[],\"suggestions\":[],\"pressure\":{\"io\":{\"some\":{"
	     "\"avg10\":9.1,\"total\":5,\"stall%\":31.0},\"full\":{\"avg10\":8.0,\"total\":4,"
	     "\"stall%\":29.8}}},",
	     true);
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_INFO);
	assert_string_equal(s.word, "WAIT");
	assert_non_null(strstr(s.text, "PSI io full 29.8%"));
	/* a finding measured once, not shown yet: judging, not OK */
	load(&m, "\"findings\":[],\"suggestions\":[],\"findings_rising\":1,", true);
	model_summary_get(&m, &s);
	assert_int_equal(s.level, MODEL_SUM_WAIT);
	assert_non_null(strstr(s.text, "judging: 1 finding rising"));
	model_free(&m);
}

static void test_top_irq(void **state)
{
	struct model m = { 0 };
	size_t qi;
	double rate;

	(void)state;
	load(&m, advice, true);
	assert_true(model_hot_cpu(&m) >= 0);
	assert_int_equal(m.cpus[model_hot_cpu(&m)].cpu, 2);
	assert_int_equal(model_top_irq_on_cpu(&m, 2, &qi, &rate), 0);
	assert_string_equal(m.irqs[qi].name, "24");
	assert_true(rate == 1000.0);
	/* the named line when it is the only one */
	assert_int_equal(model_top_irq_on_cpu(&m, 0, &qi, &rate), 0);
	assert_string_equal(m.irqs[qi].name, "LOC");
	assert_int_equal(model_top_irq_on_cpu(&m, 7, &qi, &rate), -ENOENT);
	model_free(&m);
}

static void test_irq_device(void **state)
{
	static const char *const cases[][2] = {
		{ "nvme0q12", "nvme0" },
		{ "nvme10q0", "nvme10" },
		{ "eth0-TxRx-3", "eth0" },
		{ "ens5-rx-0", "ens5" },
		{ "mpt2sas0-msix7", "mpt2sas0" },
		{ "mlx5_comp3@pci:0000:81:00.0", "mlx5@pci:0000:81:00.0" },
		{ "virtio1-request", NULL },
		{ "nvme0q", NULL },
		{ "i8042", NULL },
		{ "virtio0-input.0", NULL },
		{ "ahci[0000:00:1f.2]", NULL },
		{ "123", NULL },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool q = model_irq_device(cases[i][0], buf, sizeof(buf));

		if (!cases[i][1]) {
			assert_false(q);
			assert_string_equal(buf, cases[i][0]);
		} else {
			assert_true(q);
			assert_string_equal(buf, cases[i][1]);
		}
	}
}

/* nvme0's three queues on two CPUs are one group; a lone line is not. */
static void test_irq_groups(void **state)
{
	static const char doc[] =
	    "{\"version\":1,\"sample\":2,\"timestamp_ms\":1000,\"interval_ms\":1000,"
	    "\"cpu-load\":[{\"cpu\":\"all\",\"idle\":90.0},{\"cpu\":\"0\",\"idle\":90.0},"
	    "{\"cpu\":\"1\",\"idle\":90.0}],"
	    "\"interrupts\":[{\"name\":\"24\",\"actions\":\"nvme0q0\",\"total/s\":10.0,"
	    "\"cpus\":{\"0\":10.0}},"
	    "{\"name\":\"25\",\"actions\":\"nvme0q1\",\"total/s\":300.0,"
	    "\"cpus\":{\"1\":300.0}},"
	    "{\"name\":\"26\",\"actions\":\"nvme0q2\",\"total/s\":200.0,"
	    "\"cpus\":{\"0\":150.0,\"1\":50.0}},"
	    "{\"name\":\"27\",\"actions\":\"nvme0q3\",\"total/s\":0.0},"
	    "{\"name\":\"40\",\"actions\":\"eth0-TxRx-0\",\"total/s\":5.0,"
	    "\"cpus\":{\"1\":5.0}},"
	    "{\"name\":\"LOC\",\"actions\":\"Local timer interrupts\",\"total/s\":9.0,"
	    "\"cpus\":{\"0\":9.0}}]}";
	struct model m = { 0 };
	struct model_irq_groups gs = { 0 };
	const struct model_irq_group *g;

	(void)state;
	assert_int_equal(model_apply_text(&m, doc, strlen(doc), MODEL_VIEW), 0);
	assert_int_equal(model_irq_groups_build(&m, &gs), 0);
	assert_int_equal(gs.ngroups, 1);
	g = &gs.groups[0];
	assert_string_equal(g->name, "nvme0");
	assert_int_equal(g->n, 3); /* nvme0q3 did not fire */
	assert_true(g->total_s == 510.0);
	assert_int_equal(g->ncpus, 2);
	assert_int_equal(g->hot_cpu, 1);
	assert_true(g->hot_s == 350.0);
	/* busiest first */
	assert_string_equal(m.irqs[gs.members[g->first]].name, "25");
	assert_string_equal(m.irqs[gs.members[g->first + 2]].name, "24");
	assert_int_equal(gs.group_of[4], -1); /* eth0 alone */
	assert_int_equal(gs.group_of[5], -1); /* LOC */
	/* built again on the same memory: the same */
	assert_int_equal(model_irq_groups_build(&m, &gs), 0);
	assert_true(gs.groups[0].total_s == 510.0 && gs.groups[0].hot_s == 350.0);
	model_irq_groups_free(&gs);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worst_finding),	    cmocka_unit_test(test_headline_line),
		cmocka_unit_test(test_headline_who),	    cmocka_unit_test(test_no_advice),
		cmocka_unit_test(test_healthy_and_waiting), cmocka_unit_test(test_top_irq),
		cmocka_unit_test(test_irq_device),	    cmocka_unit_test(test_irq_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
