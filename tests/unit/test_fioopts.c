// SPDX-License-Identifier: GPL-2.0-or-later
/* fioopts.c: fio's value syntax, pasted fio command lines, refusals by name. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fioopts.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a[0])))

static void test_sizes(void **state)
{
	uint64_t v;

	(void)state;
	/* fio HOWTO, kb_base=1024 examples */
	assert_int_equal(fioopts_parse_size("4096", &v), 0);
	assert_true(v == 4096);
	const char *k4[] = { "4k", "4kb", "4kB", "4K", "4KB", "4096b", "4096B" };
	for (size_t i = 0; i < sizeof(k4) / sizeof(k4[0]); i++) {
		assert_int_equal(fioopts_parse_size(k4[i], &v), 0);
		assert_true(v == 4096);
	}
	assert_int_equal(fioopts_parse_size("1m", &v), 0);
	assert_true(v == 1048576);
	assert_int_equal(fioopts_parse_size("1024k", &v), 0);
	assert_true(v == 1048576);
	assert_int_equal(fioopts_parse_size("1mi", &v), 0);
	assert_true(v == 1000000);
	assert_int_equal(fioopts_parse_size("1000ki", &v), 0);
	assert_true(v == 1000000);
	assert_int_equal(fioopts_parse_size("1t", &v), 0);
	assert_true(v == 1099511627776ULL);
	assert_int_equal(fioopts_parse_size("10G", &v), 0);
	assert_true(v == 10737418240ULL);
	assert_int_equal(fioopts_parse_size("", &v), -EINVAL);
	assert_int_equal(fioopts_parse_size("k", &v), -EINVAL);
	assert_int_equal(fioopts_parse_size("4x", &v), -EINVAL);
	assert_int_equal(fioopts_parse_size("4kx", &v), -EINVAL);
	assert_int_equal(fioopts_parse_size("-4k", &v), -EINVAL);
	assert_int_equal(fioopts_parse_size("99999999999999999999", &v), -ERANGE);
	assert_int_equal(fioopts_parse_size("20000000p", &v), -ERANGE);
}

static void test_times(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(fioopts_parse_time("600", &v), 0);
	assert_true(v == 600000000000ULL);
	assert_int_equal(fioopts_parse_time("500ms", &v), 0);
	assert_true(v == 500000000ULL);
	assert_int_equal(fioopts_parse_time("250us", &v), 0);
	assert_true(v == 250000ULL);
	assert_int_equal(fioopts_parse_time("2m", &v), 0);
	assert_true(v == 120000000000ULL);
	assert_int_equal(fioopts_parse_time("1H", &v), 0);
	assert_true(v == 3600000000000ULL);
	assert_int_equal(fioopts_parse_time("10sec", &v), 0);
	assert_true(v == 10000000000ULL);
	assert_int_equal(fioopts_parse_time("10y", &v), -EINVAL);
	assert_int_equal(fioopts_parse_time("s", &v), -EINVAL);
}

static void test_seed001_command(void **state)
{
	/* seed 001 §2.3, as pasted: single dashes, fio's own spelling */
	const char *argv[] = { "bench",
			       "-direct=1",
			       "-iodepth=128",
			       "-rw=randwrite",
			       "-ioengine=libaio",
			       "-bs=4k",
			       "-size=10G",
			       "-numjobs=1",
			       "-runtime=600",
			       "-group_reporting",
			       "-filename=/dev/vdc",
			       "-name=Rand_Write_IOPS_Test" };
	struct job_spec s;
	struct fioopts_error e;

	(void)state;
	assert_int_equal(fioopts_parse(ARGC(argv), argv, 1, &s, &e), 0);
	assert_true(s.direct);
	assert_int_equal(s.iodepth, 128);
	assert_int_equal(s.rw, RW_RANDWRITE);
	assert_int_equal(s.engine, ENGINE_LIBAIO);
	assert_true(s.bs == 4096);
	assert_true(s.size == 10737418240ULL);
	assert_int_equal(s.numjobs, 1);
	assert_true(s.runtime_ns == 600000000000ULL);
	assert_true(s.group_reporting);
	assert_string_equal(s.filename, "/dev/vdc");
	assert_string_equal(s.name, "Rand_Write_IOPS_Test");
	assert_false(s.time_based);
}

static void test_forms(void **state)
{
	const char *argv[] = { "bench",
			       "--filename",
			       "/dev/disk/by-path/pci-0000\\:00\\:1f.2",
			       "--rw",
			       "randrw",
			       "--rwmixwrite=30",
			       "--size=100%",
			       "--offset=20%",
			       "--time_based=1",
			       "--runtime=5s",
			       "--ioengine=io_uring",
			       "--sqthread_poll",
			       "--fixedbufs=0",
			       "--buffered=0",
			       "--output-format=json",
			       "--sweep-iodepth=1,2,4,8",
			       "--cloud-disk=high,500",
			       "--precondition",
			       "--allow-destroy=/dev/sdz",
			       "--keep",
			       "--ramp_time=500ms",
			       "--rate_iops=2000",
			       "--fsync=32",
			       "--numjobs",
			       "4" };
	struct job_spec s;
	struct fioopts_error e;

	(void)state;
	assert_int_equal(fioopts_parse(ARGC(argv), argv, 1, &s, &e), 0);
	assert_string_equal(s.filename, "/dev/disk/by-path/pci-0000:00:1f.2");
	assert_int_equal(s.rw, RW_RANDRW);
	assert_int_equal(s.rwmixread, 70);
	assert_int_equal(s.size_pct, 100);
	assert_int_equal(s.offset_pct, 20);
	assert_true(s.time_based);
	assert_true(s.runtime_ns == 5000000000ULL);
	assert_true(s.sqpoll);
	assert_false(s.fixedbufs);
	assert_true(s.registerfiles);
	assert_true(s.direct);
	assert_int_equal(s.output, OUTPUT_JSON);
	assert_int_equal(s.nsweep, 4);
	assert_int_equal(s.sweep[3], 8);
	assert_int_equal(s.cloud, CLOUD_HIGH);
	assert_true(s.cloud_gb == 500);
	assert_true(s.precondition);
	assert_string_equal(s.allow_destroy, "/dev/sdz");
	assert_true(s.keep);
	assert_true(s.ramp_ns == 500000000ULL);
	assert_true(s.rate_iops == 2000);
	assert_int_equal(s.fsync_every, 32);
	assert_int_equal(s.numjobs, 4);
}

/* Parses argv and expects a refusal naming opt, with msg in the message. */
static void refused(int argc, const char **argv, const char *opt, const char *msg)
{
	struct job_spec s;
	struct fioopts_error e;

	memset(&e, 0, sizeof(e));
	assert_int_equal(fioopts_parse(argc, argv, 1, &s, &e), -EINVAL);
	assert_string_equal(e.option, opt);
	if (!strstr(e.message, msg))
		fail_msg("%s: message '%s' lacks '%s'", opt, e.message, msg);
}

static void test_refusals(void **state)
{
	const char *unsup[] = { "bench", "--filename=/x", "--log_avg_msec=50" };
	const char *unknown[] = { "bench", "--filename=/x", "--frobnicate=1" };
	const char *engine[] = { "bench", "--filename=/x", "--ioengine=sync" };
	const char *rw[] = { "bench", "--filename=/x", "--rw=trim" };
	const char *range[] = { "bench", "--filename=/x", "--bs=4k-16k" };
	const char *split[] = { "bench", "--filename=/x", "--bs=4k,8k" };
	const char *nofile[] = { "bench", "--rw=read" };
	const char *multi[] = { "bench", "--filename=/a:/b" };
	const char *jobfile[] = { "bench", "job.fio" };
	const char *novalue[] = { "bench", "--filename=/x", "--iodepth" };
	const char *depth[] = { "bench", "--filename=/x", "--iodepth=0" };
	const char *sweep_psync[] = { "bench", "--filename=/x", "--sweep-iodepth=1,2" };
	const char *sweep_order[] = { "bench", "--filename=/x", "--ioengine=libaio",
				      "--sweep-iodepth=4,2" };
	const char *sqpoll_aio[] = { "bench", "--filename=/x", "--ioengine=libaio",
				     "--sqthread_poll" };
	const char *hipri_buf[] = { "bench", "--filename=/x", "--ioengine=io_uring", "--hipri" };
	const char *tier[] = { "bench", "--filename=/x", "--cloud-disk=gold,100" };
	const char *both[] = { "bench", "--filename=/x", "--cloud-disk=high,100",
			       "--expect-iops=5" };
	const char *tb[] = { "bench", "--filename=/x", "--time_based" };
	const char *flagval[] = { "bench", "--filename=/x", "--time_based=yes" };
	const char *align[] = { "bench", "--filename=/x", "--direct=1", "--bs=1000" };
	const char *fmt[] = { "bench", "--filename=/x", "--output-format=terse" };
	const char *mix[] = { "bench", "--filename=/x", "--rwmixread=101" };
	const char *rate[] = { "bench", "--filename=/x", "--rate_iops=100,200" };

	(void)state;
	refused(ARGC(unsup), unsup, "--log_avg_msec", "does not implement");
	refused(ARGC(unknown), unknown, "--frobnicate", "unknown option");
	refused(ARGC(engine), engine, "--ioengine", "io_uring, libaio or psync");
	refused(ARGC(rw), rw, "--rw", "not supported");
	refused(ARGC(range), range, "--bs", "ranges");
	refused(ARGC(split), split, "--bs", "separate read/write");
	refused(ARGC(nofile), nofile, "--filename", "required");
	refused(ARGC(multi), multi, "--filename", "several files");
	refused(ARGC(jobfile), jobfile, "--job.fio", "job files");
	refused(ARGC(novalue), novalue, "--iodepth", "needs a value");
	refused(ARGC(depth), depth, "--iodepth", "queue depth");
	refused(ARGC(sweep_psync), sweep_psync, "--sweep-iodepth", "psync");
	refused(ARGC(sweep_order), sweep_order, "--sweep-iodepth", "increasing");
	refused(ARGC(sqpoll_aio), sqpoll_aio, "--sqthread_poll", "io_uring option");
	refused(ARGC(hipri_buf), hipri_buf, "--hipri", "--direct=1");
	refused(ARGC(tier), tier, "--cloud-disk", "unknown tier");
	refused(ARGC(both), both, "--cloud-disk", "drop");
	refused(ARGC(tb), tb, "--time_based", "--runtime");
	refused(ARGC(flagval), flagval, "--time_based", "0 or 1");
	refused(ARGC(align), align, "--bs", "512");
	refused(ARGC(fmt), fmt, "--output-format", "normal or json");
	refused(ARGC(mix), mix, "--rwmixread", "percentage");
	refused(ARGC(rate), rate, "--rate_iops", "per-direction");
}

static void test_help_defaults(void **state)
{
	const char *help[] = { "bench", "--help" };
	const char *min[] = { "bench", "--filename=/tmp/f" };
	struct job_spec s;
	struct fioopts_error e;

	(void)state;
	assert_int_equal(fioopts_parse(ARGC(help), help, 1, &s, &e), 1);
	assert_int_equal(fioopts_parse(ARGC(min), min, 1, &s, &e), 0);
	/* fio's defaults */
	assert_int_equal(s.engine, ENGINE_PSYNC);
	assert_int_equal(s.rw, RW_READ);
	assert_true(s.bs == 4096);
	assert_int_equal(s.iodepth, 1);
	assert_int_equal(s.numjobs, 1);
	assert_int_equal(s.rwmixread, 50);
	assert_false(s.direct);
	assert_int_equal(s.output, OUTPUT_NORMAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),		cmocka_unit_test(test_times),
		cmocka_unit_test(test_seed001_command), cmocka_unit_test(test_forms),
		cmocka_unit_test(test_refusals),	cmocka_unit_test(test_help_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
