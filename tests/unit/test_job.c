// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * job.c and the engines on IO that never completes: a read of an empty FIFO
 * that has a writer, which the kernel keeps pending like a device that does
 * not answer, but can cancel. The engines' reap must come back within its
 * bound, their cancel must end what they hold, and a job asked to stop must
 * end without an error. Skipped (77) where io_uring is unavailable.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <liburing.h>

#include "clock.h"
#include "engine.h"
#include "job.h"

struct fifo {
	char dir[64];
	char path[80];
	int wfd; /* a writer that never writes: reads wait, opens do not block */
};

static int fifo_setup(void **state)
{
	struct fifo *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/iotr-test-job.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/fifo", f->dir);
	assert_int_equal(mkfifo(f->path, 0600), 0);
	/* O_RDWR: a FIFO opened so does not wait for the other end */
	f->wfd = open(f->path, O_RDWR | O_CLOEXEC);
	assert_true(f->wfd >= 0);
	*state = f;
	return 0;
}

static int fifo_teardown(void **state)
{
	struct fifo *f = *state;

	close(f->wfd);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void spec_init(struct job_spec *s, enum job_engine e, const char *path)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "stop");
	snprintf(s->filename, sizeof(s->filename), "%s", path);
	s->engine = e;
	s->rw = RW_READ;
	s->bs = 4096;
	s->iodepth = 1;
	s->numjobs = 1;
	s->time_based = true; /* no runtime: only a stop ends it */
}

/* io_uring: a pending read; reap returns empty-handed within its bound, and
 * after cancel hands the unit back as cancelled. */
static void test_uring_reap_bounded_cancel(void **state)
{
	struct fifo *f = *state;
	const struct engine_ops *ops = &engine_uring_ops;
	struct job_spec spec;
	struct engine_ctx ctx = { 0 };
	struct io_unit unit = { 0 }, *done[1];
	char buf[4096];
	int64_t t0, dt;
	int n;

	spec_init(&spec, ENGINE_IO_URING, f->path);
	ctx.fd = open(f->path, O_RDONLY | O_CLOEXEC);
	assert_true(ctx.fd >= 0);
	ctx.depth = 1;
	ctx.spec = &spec;
	ctx.units = &unit;
	unit.buf = buf;
	unit.len = sizeof(buf);
	assert_int_equal(ops->init(&ctx), 0);
	assert_int_equal(ops->stage(&ctx, &unit), 0);
	assert_int_equal(ops->submit(&ctx), 0);

	t0 = clock_mono_ns();
	n = ops->reap(&ctx, 1, done, 1);
	dt = clock_mono_ns() - t0;
	assert_int_equal(n, 0);
	assert_true(dt >= ENGINE_REAP_WAIT_NS / 2 && dt < 10 * ENGINE_REAP_WAIT_NS);

	assert_non_null(ops->cancel);
	assert_int_equal(ops->cancel(&ctx), 0);
	t0 = clock_mono_ns();
	do
		n = ops->reap(&ctx, 1, done, 1);
	while (n == 0 && clock_mono_ns() - t0 < 5000000000LL);
	assert_int_equal(n, 1);
	assert_ptr_equal(done[0], &unit);
	assert_int_equal(unit.result, -ECANCELED);
	ops->exit(&ctx);
	close(ctx.fd);
}

/* libaio: with nothing that completes, reap comes back within its bound. */
static void test_aio_reap_bounded(void **state)
{
	struct fifo *f = *state;
	const struct engine_ops *ops = &engine_aio_ops;
	struct job_spec spec;
	struct engine_ctx ctx = { 0 };
	struct io_unit unit = { 0 }, *done[1];
	char buf[4096];
	int64_t t0, dt;

	spec_init(&spec, ENGINE_LIBAIO, f->path);
	ctx.fd = f->wfd;
	ctx.depth = 1;
	ctx.spec = &spec;
	ctx.units = &unit;
	unit.buf = buf;
	assert_int_equal(ops->init(&ctx), 0);
	t0 = clock_mono_ns();
	assert_int_equal(ops->reap(&ctx, 1, done, 1), 0);
	dt = clock_mono_ns() - t0;
	assert_true(dt >= ENGINE_REAP_WAIT_NS / 2 && dt < 10 * ENGINE_REAP_WAIT_NS);
	assert_int_equal(ops->cancel(&ctx), 0); /* nothing in flight: nothing to do */
	ops->exit(&ctx);
	assert_null(engine_psync_ops.cancel); /* psync: the call itself blocks */
}

struct stopper {
	struct job_control *ctl;
	int64_t delay_ns;
};

static void *stop_later(void *arg)
{
	struct stopper *s = arg;
	struct timespec ts = { .tv_sec = s->delay_ns / 1000000000,
			       .tv_nsec = s->delay_ns % 1000000000 };

	nanosleep(&ts, NULL);
	atomic_store(&s->ctl->stop, true);
	return NULL;
}

/* A job whose every IO is pending ends at a stop: the IO is cancelled, it
 * is no error, and nothing is left counted in flight. */
static void test_job_stop_pending(void **state)
{
	struct fifo *f = *state;
	struct job_spec spec;
	struct job_target t = { .region_len = 1 << 20 };
	struct job_control ctl;
	struct job_result *rs = NULL;
	struct stopper st = { .ctl = &ctl, .delay_ns = 300000000 };
	pthread_t th;
	int64_t t0, dt;

	spec_init(&spec, ENGINE_IO_URING, f->path);
	spec.iodepth = 4;
	snprintf(t.path, sizeof(t.path), "%s", f->path);
	/* the target is opened once (target_open); threads reopen the fd */
	t.fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(t.fd >= 0);
	t.size_bytes = t.region_len;
	memset(&ctl, 0, sizeof(ctl));
	assert_int_equal(pthread_create(&th, NULL, stop_later, &st), 0);
	t0 = clock_mono_ns();
	assert_int_equal(job_run(&spec, &t, &ctl, &rs), 0);
	dt = clock_mono_ns() - t0;
	pthread_join(th, NULL);
	close(t.fd);
	assert_true(dt < 3000000000LL);
	assert_non_null(rs);
	assert_int_equal(rs[0].error, 0);
	assert_int_equal(rs[0].dir[DDIR_READ].ios, 0);
	assert_int_equal(atomic_load(&ctl.inflight), 0);
	job_results_free(rs, 1);
}

/* Every IO of a batch fails at once (a read of a directory: EISDIR): the
 * job ends with that error, after taking back every unit of the batch. */
static void test_job_batch_errors(void **state)
{
	struct fifo *f = *state;
	struct job_spec spec;
	struct job_target t = { .region_len = 1 << 20 };
	struct job_control ctl;
	struct job_result *rs = NULL;
	int64_t t0, dt;

	spec_init(&spec, ENGINE_IO_URING, f->dir);
	spec.iodepth = 8;
	snprintf(t.path, sizeof(t.path), "%s", f->dir);
	t.fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(t.fd >= 0);
	t.size_bytes = t.region_len;
	memset(&ctl, 0, sizeof(ctl));
	t0 = clock_mono_ns();
	assert_int_equal(job_run(&spec, &t, &ctl, &rs), 0);
	dt = clock_mono_ns() - t0;
	close(t.fd);
	assert_true(dt < 3000000000LL);
	assert_non_null(rs);
	assert_int_equal(rs[0].error, -EISDIR);
	assert_int_equal(atomic_load(&ctl.inflight), 0);
	job_results_free(rs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_uring_reap_bounded_cancel, fifo_setup,
						fifo_teardown),
		cmocka_unit_test_setup_teardown(test_aio_reap_bounded, fifo_setup, fifo_teardown),
		cmocka_unit_test_setup_teardown(test_job_stop_pending, fifo_setup, fifo_teardown),
		cmocka_unit_test_setup_teardown(test_job_batch_errors, fifo_setup, fifo_teardown),
	};
	struct io_uring ring;
	int r;

	r = io_uring_queue_init(1, &ring, 0);
	if (r < 0) {
		printf("SKIP: io_uring unavailable: %s\n", strerror(-r));
		return 77;
	}
	io_uring_queue_exit(&ring);
	/* a job that hangs must fail the test, not wait for meson's timeout */
	alarm(30);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
