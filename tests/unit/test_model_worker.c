// SPDX-License-Identifier: GPL-2.0-or-later
/* tui/model/model_worker.c: the daemon's "worker" object (doc/protocol.md) as the
 * TUI keeps it: values as sent, "idle" forgetting the job, a worker.status
 * reply about a job this client never watched ignored, the result line kept
 * MODEL_WORKER_KEEP_NS after the end, a silent running job forgotten, bad
 * objects refused with the previous job kept, and the CPUs the job device's
 * interrupts landed on (nvme by controller name, none for a loop device). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model.h"
#include "model_worker.h"

#define S 1000000000LL /* ns per second */

/* A worker object as src/daemon/worker.c writes it: %llu id, %s state, %s
 * device (with its quotes, or null). */
static const char worker_fmt[] =
    "{\"id\":%llu,\"state\":\"%s\",\"uid\":0,\"filename\":\"/dev/loop0\",\"device\":%s,"
    "\"major\":7,\"minor\":0,\"name\":\"job\",\"rw\":\"randread\",\"ioengine\":\"io_uring\","
    "\"bs\":4096,\"iodepth\":32,\"numjobs\":1,\"elapsed_s\":12.50,\"runtime_s\":12.25,"
    "\"read\":{\"ios\":500000,\"bytes\":2048000000,\"iops\":40816.33,\"bw_bytes\":167183673.47,"
    "\"iops_now\":41230.00,\"bw_bytes_now\":168878080.00,\"clat_ns\":{\"N\":499000,"
    "\"mean\":774000.50,\"percentile\":{\"50.000000\":700000,\"90.000000\":1000000,"
    "\"99.000000\":1302528,\"99.900000\":2000000,\"99.990000\":3000000}}},"
    "\"write\":{\"ios\":0,\"bytes\":0,\"iops\":0.00,\"bw_bytes\":0.00,\"iops_now\":0.00,"
    "\"bw_bytes_now\":0.00,\"clat_ns\":{\"N\":0,\"mean\":0.00,\"percentile\":{"
    "\"50.000000\":0,\"90.000000\":0,\"99.000000\":0,\"99.900000\":0,\"99.990000\":0}}}%s}";

static int apply(struct model *m, unsigned long long id, const char *state, const char *device,
		 const char *extra, int64_t now_ns, unsigned flags)
{
	char doc[sizeof(worker_fmt) + 256];

	snprintf(doc, sizeof(doc), worker_fmt, id, state, device, extra);
	return model_worker_apply_text(m, doc, strlen(doc), now_ns, flags);
}

static void test_decode(void **state)
{
	struct model m = { 0 };
	const struct model_worker *w;

	(void)state;
	assert_null(model_worker_get(&m));
	assert_int_equal(apply(&m, 3, "running", "\"loop0\"", "", 5 * S, MODEL_WORKER_EVENT), 0);
	w = model_worker_get(&m);
	assert_non_null(w);
	assert_int_equal(w->id, 3);
	assert_int_equal(w->state, MW_RUNNING);
	assert_true(model_worker_active(w));
	assert_string_equal(model_worker_state_word(w->state), "running");
	assert_string_equal(w->filename, "/dev/loop0");
	assert_string_equal(w->device, "loop0");
	assert_string_equal(w->engine, "io_uring");
	assert_string_equal(w->rw, "randread");
	assert_int_equal(w->bs, 4096);
	assert_int_equal(w->iodepth, 32);
	assert_int_equal(w->numjobs, 1);
	assert_true(w->elapsed_s == 12.5 && w->runtime_s == 12.25);
	assert_int_equal(w->dir[MW_READ].ios, 500000);
	assert_true(w->dir[MW_READ].iops == 40816.33);
	assert_true(w->dir[MW_READ].iops_now == 41230.0);
	assert_true(w->dir[MW_READ].bw_bytes_now == 168878080.0);
	assert_int_equal(w->dir[MW_READ].clat_n, 499000);
	assert_true(w->dir[MW_READ].clat_mean_ns == 774000.5);
	assert_true(w->dir[MW_READ].has_p99);
	assert_true(w->dir[MW_READ].clat_p99_ns == 1302528.0);
	assert_int_equal(w->dir[MW_WRITE].ios, 0);
	assert_int_equal(w->dir[MW_WRITE].clat_n, 0);
	assert_int_equal(w->seen_ns, 5 * S);
	assert_int_equal(w->ended_ns, 0);
	assert_string_equal(w->error, "");

	/* a file on tmpfs: no block device */
	assert_int_equal(apply(&m, 3, "starting", "null", "", 6 * S, MODEL_WORKER_EVENT), 0);
	w = model_worker_get(&m);
	assert_string_equal(w->device, "");
	assert_string_equal(model_worker_state_word(w->state), "starting");

	/* idle: nothing to show */
	assert_int_equal(
	    model_worker_apply_text(&m, "{\"state\":\"idle\"}", 16, 7 * S, MODEL_WORKER_STATUS), 0);
	assert_null(model_worker_get(&m));
	model_free(&m);
}

/* A sweep and its precondition pass, as the worker object says them. */
static void test_phases(void **state)
{
	struct model m = { 0 };
	const struct model_worker *w;

	(void)state;
	assert_int_equal(apply(&m, 4, "running", "\"loop0\"", ",\"phase\":\"precondition\"", 1 * S,
			       MODEL_WORKER_EVENT),
			 0);
	w = model_worker_get(&m);
	assert_true(w->precondition);
	assert_int_equal(w->sweep_points, 0);
	assert_int_equal(apply(&m, 4, "running", "\"loop0\"",
			       ",\"phase\":\"sweep\",\"sweep\":{\"point\":2,\"points\":6}", 2 * S,
			       MODEL_WORKER_EVENT),
			 0);
	w = model_worker_get(&m);
	assert_false(w->precondition);
	assert_int_equal(w->sweep_point, 2);
	assert_int_equal(w->sweep_points, 6);
	/* a point beyond the points is not believed */
	assert_int_equal(apply(&m, 4, "running", "\"loop0\"",
			       ",\"phase\":\"sweep\",\"sweep\":{\"point\":7,\"points\":6}", 3 * S,
			       MODEL_WORKER_EVENT),
			 0);
	w = model_worker_get(&m);
	assert_int_equal(w->sweep_points, 0);
	assert_int_equal(
	    apply(&m, 4, "running", "\"loop0\"", ",\"phase\":\"run\"", 4 * S, MODEL_WORKER_EVENT),
	    0);
	w = model_worker_get(&m);
	assert_false(w->precondition);
	assert_int_equal(w->sweep_points, 0);
	model_free(&m);
}

static void test_failed(void **state)
{
	struct model m = { 0 };
	const struct model_worker *w;

	(void)state;
	assert_int_equal(apply(&m, 1, "failed", "null",
			       ",\"error\":\"/dev/shm/x: open: Permission denied\"", S,
			       MODEL_WORKER_EVENT),
			 0);
	w = model_worker_get(&m);
	assert_int_equal(w->state, MW_FAILED);
	assert_false(model_worker_active(w));
	assert_string_equal(w->error, "/dev/shm/x: open: Permission denied");
	assert_int_equal(w->ended_ns, S);
	model_free(&m);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"[1,2]",
		"{\"state\":\"running\"}",		/* no id */
		"{\"id\":1,\"state\":\"sleeping\"}",	/* no such state */
		"{\"id\":-1,\"state\":\"running\"}",	/* not a count */
		"{\"id\":\"1\",\"state\":\"running\"}", /* not an integer */
		"{\"id\":1,\"state\":\"running\"",	/* cut */
	};
	struct model m = { 0 };

	(void)state;
	assert_int_equal(apply(&m, 2, "running", "\"loop0\"", "", S, MODEL_WORKER_EVENT), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(
		    model_worker_apply_text(&m, bad[i], strlen(bad[i]), 2 * S, MODEL_WORKER_EVENT),
		    -EBADMSG);
		assert_non_null(model_worker_get(&m));
		assert_int_equal(model_worker_get(&m)->id, 2);
		assert_int_equal(model_worker_get(&m)->seen_ns, S);
	}
	assert_int_equal(model_worker_apply(&m, NULL, 3 * S, MODEL_WORKER_EVENT), -EBADMSG);
	model_free(&m);
}

/* The result stays MODEL_WORKER_KEEP_NS from the end first seen, however
 * many events repeat it; a new job replaces it at once. */
static void test_keep_after_end(void **state)
{
	struct model m = { 0 };
	const int64_t stale = MODEL_WORKER_STALE_NS;

	(void)state;
	assert_int_equal(apply(&m, 4, "running", "\"loop0\"", "", 10 * S, MODEL_WORKER_EVENT), 0);
	assert_int_equal(apply(&m, 4, "completed", "\"loop0\"", "", 11 * S, MODEL_WORKER_EVENT), 0);
	assert_int_equal(model_worker_get(&m)->ended_ns, 11 * S);
	assert_string_equal(model_worker_state_word(model_worker_get(&m)->state), "done");
	/* a status reply repeating the end does not restart the clock */
	assert_int_equal(apply(&m, 4, "completed", "\"loop0\"", "", 20 * S, MODEL_WORKER_STATUS),
			 0);
	assert_int_equal(model_worker_get(&m)->ended_ns, 11 * S);
	assert_false(model_worker_expire(&m, 11 * S + MODEL_WORKER_KEEP_NS - 1, stale));
	assert_non_null(model_worker_get(&m));
	assert_true(model_worker_expire(&m, 11 * S + MODEL_WORKER_KEEP_NS, stale));
	assert_null(model_worker_get(&m));
	assert_false(model_worker_expire(&m, 100 * S, stale));

	/* the next job replaces a kept result */
	assert_int_equal(apply(&m, 5, "stopped", "\"loop0\"", "", 50 * S, MODEL_WORKER_EVENT), 0);
	assert_int_equal(apply(&m, 6, "starting", "\"loop0\"", "", 51 * S, MODEL_WORKER_EVENT), 0);
	assert_int_equal(model_worker_get(&m)->id, 6);
	assert_int_equal(model_worker_get(&m)->ended_ns, 0);
	model_free(&m);
}

/* worker.status on (re)connect: a running job is picked up, the end of the
 * job already shown is taken, an old job never watched is not news. */
static void test_status_reply(void **state)
{
	struct model m = { 0 };

	(void)state;
	assert_int_equal(apply(&m, 7, "completed", "\"loop0\"", "", S, MODEL_WORKER_STATUS), 0);
	assert_null(model_worker_get(&m));
	assert_int_equal(apply(&m, 8, "running", "\"loop0\"", "", 2 * S, MODEL_WORKER_STATUS), 0);
	assert_int_equal(model_worker_get(&m)->id, 8);
	assert_int_equal(apply(&m, 8, "stopped", "\"loop0\"", "", 3 * S, MODEL_WORKER_STATUS), 0);
	assert_int_equal(model_worker_get(&m)->state, MW_STOPPED);
	assert_int_equal(model_worker_get(&m)->ended_ns, 3 * S);
	/* another ended job than the one shown: the shown one is over too */
	assert_int_equal(apply(&m, 9, "completed", "\"loop0\"", "", 4 * S, MODEL_WORKER_STATUS), 0);
	assert_null(model_worker_get(&m));
	/* an event is always news, even of an end never seen running */
	assert_int_equal(apply(&m, 9, "completed", "\"loop0\"", "", 5 * S, MODEL_WORKER_EVENT), 0);
	assert_int_equal(model_worker_get(&m)->ended_ns, 5 * S);
	model_free(&m);
}

/* A running job the daemon stopped talking about (gone, or this client cut
 * off) is forgotten after stale_ns; each event keeps it. */
static void test_stale(void **state)
{
	struct model m = { 0 };

	(void)state;
	assert_int_equal(apply(&m, 1, "running", "\"loop0\"", "", 10 * S, MODEL_WORKER_EVENT), 0);
	assert_false(model_worker_expire(&m, 14 * S, 5 * S));
	assert_int_equal(apply(&m, 1, "running", "\"loop0\"", "", 14 * S, MODEL_WORKER_EVENT), 0);
	assert_false(model_worker_expire(&m, 18 * S, 5 * S));
	assert_true(model_worker_expire(&m, 19 * S, 5 * S));
	assert_null(model_worker_get(&m));
	model_free(&m);
}

/* Interrupt lines as the sample document has them: nvme0's queues on CPUs
 * 0 and 2, nvme1's on 1, nvme10's on 3, an idle nvme0 line on 3, a shared
 * line naming nvme1 second. */
static const char irq_doc[] =
    "{\"version\":1,\"sample\":1,\"timestamp_ms\":1000,\"interval_ms\":1000,"
    "\"cpu-load\":[{\"cpu\":\"all\",\"idle\":100.0},{\"cpu\":\"0\",\"idle\":100.0},"
    "{\"cpu\":\"1\",\"idle\":100.0},{\"cpu\":\"2\",\"idle\":100.0},{\"cpu\":\"3\",\"idle\":100.0},"
    "{\"cpu\":\"4\",\"idle\":100.0}],"
    "\"interrupts\":["
    "{\"name\":\"30\",\"actions\":\"nvme0q0, nvme0q1\",\"total/s\":900.0,"
    "\"cpus\":{\"0\":800.0,\"2\":100.0}},"
    "{\"name\":\"31\",\"actions\":\"nvme0q2\",\"total/s\":0.0,\"cpus\":{\"3\":0.0}},"
    "{\"name\":\"40\",\"actions\":\"i801_smbus, nvme1q1\",\"total/s\":10.0,"
    "\"cpus\":{\"1\":10.0}},"
    "{\"name\":\"50\",\"actions\":\"nvme10q1\",\"total/s\":10.0,\"cpus\":{\"3\":10.0}},"
    "{\"name\":\"LOC\",\"actions\":\"Local timer interrupts\",\"total/s\":500.0,"
    "\"cpus\":{\"4\":500.0}}]}";

static void test_irq_cpus(void **state)
{
	struct model m = { 0 };

	(void)state;
	assert_int_equal(model_apply_text(&m, irq_doc, strlen(irq_doc), MODEL_VIEW), 0);
	assert_false(model_worker_has_irq_cpus(&m)); /* no job */

	assert_int_equal(apply(&m, 1, "running", "\"nvme0n1\"", "", S, MODEL_WORKER_EVENT), 0);
	assert_true(model_worker_has_irq_cpus(&m));
	assert_true(model_worker_irq_on_cpu(&m, 0));
	assert_false(model_worker_irq_on_cpu(&m, 1));
	assert_true(model_worker_irq_on_cpu(&m, 2));
	assert_false(model_worker_irq_on_cpu(&m, 3)); /* idle line; nvme10 is not nvme1 */
	assert_false(model_worker_irq_on_cpu(&m, 4));
	assert_false(model_worker_irq_on_cpu(&m, -1)); /* "all" */

	/* a partition of nvme1's namespace, on a shared line */
	assert_int_equal(apply(&m, 1, "running", "\"nvme1n1p2\"", "", S, MODEL_WORKER_EVENT), 0);
	assert_true(model_worker_irq_on_cpu(&m, 1));
	assert_false(model_worker_irq_on_cpu(&m, 0));
	assert_false(model_worker_irq_on_cpu(&m, 3));

	/* a loop device, a file on tmpfs: no interrupts of their own */
	assert_int_equal(apply(&m, 1, "running", "\"loop0\"", "", S, MODEL_WORKER_EVENT), 0);
	assert_false(model_worker_has_irq_cpus(&m));
	assert_int_equal(apply(&m, 1, "running", "null", "", S, MODEL_WORKER_EVENT), 0);
	assert_false(model_worker_has_irq_cpus(&m));
	for (int cpu = 0; cpu < 5; cpu++)
		assert_false(model_worker_irq_on_cpu(&m, cpu));
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),	     cmocka_unit_test(test_failed),
		cmocka_unit_test(test_refused),	     cmocka_unit_test(test_keep_after_end),
		cmocka_unit_test(test_status_reply), cmocka_unit_test(test_stale),
		cmocka_unit_test(test_irq_cpus),     cmocka_unit_test(test_phases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
