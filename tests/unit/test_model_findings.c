// SPDX-License-Identifier: GPL-2.0-or-later
/* tui/model/model_findings.c: the findings and suggestions of a sample document as
 * the real encoder writes them (the advisor run on the recorded mpt2sas and
 * healthy trees, encoded by encode.c, decoded by model.c): ids, severities,
 * reasons, exact commands and undo lines, writes; a document without advice
 * is "not known", not "healthy"; malformed advice is reported while the
 * tables still decode; a copy outlives its sample. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "advise.h"
#include "encode.h"
#include "metrics.h"
#include "model.h"
#include "root.h"
#include "snapshot.h"
#include "strbuf.h"
#include "topology.h"

/* The document `iotriage compute T0 T1 --json` prints for a scenario. */
static void encode_scenario(const char *scenario, bool with_advice, struct strbuf *sb)
{
	char t0[512], t1[512];
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	struct advice adv = { 0 };
	struct topology t;
	struct root r;
	struct encode_opts o = { .host = "db1", .mode = "live", .whole_only = true };

	snprintf(t0, sizeof(t0), "%s/advise/%s/t0", FIXTURES_DIR, scenario);
	snprintf(t1, sizeof(t1), "%s/advise/%s/t1", FIXTURES_DIR, scenario);
	assert_int_equal(snapshot_load_tree(t0, &s0), 0);
	assert_int_equal(snapshot_load_tree(t1, &s1), 0);
	assert_int_equal(metrics_compute(&s0, &s1, metrics_interval_cs(&s0, &s1), &m), 0);
	if (with_advice) {
		assert_int_equal(root_open(t1, &r), 0);
		assert_int_equal(topology_collect(&r, &t), 0);
		root_close(&r);
		assert_int_equal(
		    advise_run(&(struct advise_input){ .cur = &s1, .m = &m, .t = &t }, &adv), 0);
		topology_free(&t);
		o.advice = &adv;
	}
	encode_sample(sb, &s1, &m, &o);
	assert_int_equal(sb->err, 0);
	advice_free(&adv);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
}

static void test_mpt2sas(void **state)
{
	struct strbuf sb = { 0 };
	struct model m = { 0 };
	const struct model_advice *a = &m.advice;
	const struct model_finding *f;
	const struct model_suggestion *s;

	(void)state;
	encode_scenario("mpt2sas", true, &sb);
	assert_int_equal(model_apply_text(&m, sb.buf, sb.len, MODEL_VIEW | MODEL_HISTORY), 0);
	assert_true(a->present);
	assert_string_equal(a->bad, "");
	assert_int_equal(a->nfindings, 1);
	f = &a->findings[0];
	assert_string_equal(f->id, "hot-cpu-cpu1");
	assert_string_equal(f->kind, "hot_cpu");
	assert_string_equal(f->severity_name, "warning");
	assert_int_equal(f->severity, MODEL_SEV_WARNING);
	assert_string_equal(f->subject, "cpu1");
	assert_non_null(strstr(f->reason, "%irq 35.00 + %soft 30.00 = 65.00%"));
	assert_non_null(strstr(f->detail, "IRQ 107 mpt2sas0-msix0 [host0 0000:03:00.0]"));
	assert_ptr_equal(model_findings_finding(a, "hot-cpu-cpu1"), f);
	assert_null(model_findings_finding(a, "hot-cpu-cpu2"));

	assert_int_equal(a->nsuggestions, 1);
	s = model_findings_suggestion(a, "irq-spread-host0");
	assert_non_null(s);
	assert_string_equal(s->severity_name, "warning");
	assert_string_equal(s->finding, "hot-cpu-cpu1");
	assert_non_null(strstr(s->reason, "16 IRQs of host0"));
	assert_non_null(strstr(s->effect, "interrupts/s per CPU"));
	assert_int_equal(s->ncommands, 16);
	assert_int_equal(s->nundo, 16);
	assert_int_equal(s->nwrites, 16);
	/* in IRQ order, one CPU each; the undo in reverse, with the values read */
	assert_string_equal(s->commands[0], "echo 0 > /proc/irq/107/smp_affinity_list");
	assert_string_equal(s->commands[15], "echo 7 > /proc/irq/122/smp_affinity_list");
	assert_string_equal(s->undo[0], "echo 0-7 > /proc/irq/122/smp_affinity_list");
	assert_string_equal(s->undo[15], "echo 0-7 > /proc/irq/107/smp_affinity_list");
	assert_string_equal(s->writes[1].path, "/proc/irq/108/smp_affinity_list");
	assert_string_equal(s->writes[1].value, "1");
	assert_string_equal(s->writes[1].current, "0-7");
	assert_null(model_findings_suggestion(a, "irq-spread-host1"));
	/* the tables of the same document are there as always */
	assert_true(m.ncpus > 1);
	model_free(&m);
	assert_false(m.advice.present);
	assert_int_equal(m.advice.nfindings, 0);
	sb_free(&sb);
}

static void test_healthy_and_absent(void **state)
{
	struct strbuf sb = { 0 };
	struct model m = { 0 };

	(void)state;
	/* the advisor ran and found nothing: healthy */
	encode_scenario("healthy", true, &sb);
	assert_int_equal(model_apply_text(&m, sb.buf, sb.len, MODEL_VIEW), 0);
	assert_true(m.advice.present);
	assert_int_equal(m.advice.nfindings, 0);
	assert_int_equal(m.advice.nsuggestions, 0);

	/* no advisor behind the document (--core-only, an older daemon):
	 * nothing known, and the previous sample's advice is gone */
	sb_reset(&sb);
	encode_scenario("mpt2sas", false, &sb);
	assert_null(strstr(sb_cstr(&sb), "\"findings\""));
	assert_int_equal(model_apply_text(&m, sb.buf, sb.len, MODEL_VIEW), 0);
	assert_false(m.advice.present);
	assert_string_equal(m.advice.bad, "");
	assert_true(m.ncpus > 1);
	model_free(&m);
	sb_free(&sb);
}

static void test_history_only_keeps_advice(void **state)
{
	struct strbuf sb = { 0 }, healthy = { 0 };
	struct model m = { 0 };

	(void)state;
	encode_scenario("mpt2sas", true, &sb);
	encode_scenario("healthy", true, &healthy);
	assert_int_equal(model_apply_text(&m, sb.buf, sb.len, MODEL_VIEW | MODEL_HISTORY), 0);
	/* paused: samples go to the history only, the panel keeps what it shows */
	assert_int_equal(model_apply_text(&m, healthy.buf, healthy.len, MODEL_HISTORY), 0);
	assert_int_equal(m.advice.nfindings, 1);
	assert_non_null(model_findings_suggestion(&m.advice, "irq-spread-host0"));
	model_free(&m);
	sb_free(&sb);
	sb_free(&healthy);
}

/* A minimal sample with the given advice text spliced in. */
static int apply_with(struct model *m, const char *advice)
{
	char doc[4096];

	snprintf(doc, sizeof(doc),
		 "{\"version\":1,\"sample\":2,\"timestamp_ms\":1000,\"interval_ms\":1000,"
		 "\"disks\":[{\"disk_device\":\"sda\",\"valid\":true,\"util\":5.0}]%s%s}",
		 advice[0] ? "," : "", advice);
	return model_apply_text(m, doc, strlen(doc), MODEL_VIEW);
}

static void test_malformed(void **state)
{
	static const struct {
		const char *advice, *bad;
	} cases[] = {
		{ "\"findings\":[]", "findings and suggestions are not both arrays" },
		{ "\"findings\":{},\"suggestions\":[]",
		  "findings and suggestions are not both arrays" },
		{ "\"findings\":[1],\"suggestions\":[]", "findings[0]: not an object" },
		{ "\"findings\":[{\"id\":\"a\"},{\"kind\":\"hot_cpu\"}],\"suggestions\":[]",
		  "findings[1]: id" },
		{ "\"findings\":[{\"id\":\"a\",\"reason\":7}],\"suggestions\":[]",
		  "findings[0]: reason, detail, culprit, who or victim" },
		{ "\"findings\":[],\"suggestions\":[{\"id\":\"s\",\"commands\":[\"echo 1\",2]}]",
		  "suggestions[0]: commands" },
		{ "\"findings\":[],\"suggestions\":[{\"id\":\"s\",\"undo\":\"echo 1\"}]",
		  "suggestions[0]: undo" },
		{ "\"findings\":[],\"suggestions\":[{\"id\":\"s\",\"writes\":[{\"path\":\"proc/"
		  "x\"}]}]",
		  "suggestions[0]: writes" },
		/* an id cut short would name another suggestion: refused whole */
		{ "\"findings\":[],\"suggestions\":[{\"id\":\"irq-spread-"
		  "0123456789012345678901234567"
		  "89012345678901234567890123456789\"}]",
		  "suggestions[0]: id" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model m = { 0 };

		assert_int_equal(apply_with(&m, cases[i].advice), 0);
		assert_false(m.advice.present);
		assert_string_equal(m.advice.bad, cases[i].bad);
		assert_int_equal(m.advice.nfindings, 0);
		assert_int_equal(m.advice.nsuggestions, 0);
		/* the sample itself is fine: its tables show */
		assert_int_equal(m.ndisks, 1);
		model_free(&m);
	}
}

static void test_lenient(void **state)
{
	struct model m = { 0 };
	const struct model_finding *f;
	const struct model_suggestion *s;

	(void)state;
	/* a severity this client does not know sorts as info but keeps its name;
	 * optional texts may be absent; writes may be absent */
	assert_int_equal(apply_with(&m,
				    "\"findings\":[{\"id\":\"x-1\",\"severity\":\"emergency\","
				    "\"kind\":\"new_kind\"}],"
				    "\"suggestions\":[{\"id\":\"y-1\",\"severity\":\"critical\","
				    "\"finding\":\"x-1\",\"commands\":[\"echo 1 > /sys/x\"],"
				    "\"undo\":[\"echo 0 > /sys/x\"]}]"),
			 0);
	assert_true(m.advice.present);
	f = model_findings_finding(&m.advice, "x-1");
	assert_non_null(f);
	assert_string_equal(f->severity_name, "emergency");
	assert_int_equal(f->severity, MODEL_SEV_INFO);
	assert_string_equal(f->kind, "new_kind");
	assert_string_equal(f->reason, "");
	assert_string_equal(f->detail, "");
	s = model_findings_suggestion(&m.advice, "y-1");
	assert_non_null(s);
	assert_int_equal(s->severity, MODEL_SEV_CRITICAL);
	assert_int_equal(s->ncommands, 1);
	assert_int_equal(s->nundo, 1);
	assert_int_equal(s->nwrites, 0);
	assert_string_equal(s->notes, "");
	model_free(&m);
}

static void test_copy_outlives_sample(void **state)
{
	struct strbuf sb = { 0 };
	struct model m = { 0 };
	struct model_suggestion c = { 0 };

	(void)state;
	encode_scenario("mpt2sas", true, &sb);
	assert_int_equal(model_apply_text(&m, sb.buf, sb.len, MODEL_VIEW), 0);
	assert_int_equal(model_findings_copy_suggestion(
			     model_findings_suggestion(&m.advice, "irq-spread-host0"), &c),
			 0);
	model_free(&m);
	sb_free(&sb);
	assert_string_equal(c.id, "irq-spread-host0");
	assert_int_equal(c.ncommands, 16);
	assert_string_equal(c.undo[0], "echo 0-7 > /proc/irq/122/smp_affinity_list");
	assert_string_equal(c.writes[15].path, "/proc/irq/122/smp_affinity_list");
	assert_non_null(strstr(c.reason, "16 IRQs of host0"));
	model_findings_free_suggestion(&c);
	assert_int_equal(c.ncommands, 0);
	model_findings_free_suggestion(NULL);
	model_findings_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpt2sas),
		cmocka_unit_test(test_healthy_and_absent),
		cmocka_unit_test(test_history_only_keeps_advice),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_copy_outlives_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
