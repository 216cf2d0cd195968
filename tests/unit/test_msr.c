// SPDX-License-Identifier: GPL-2.0-or-later
/* msr.c: recorded register files at 8 x address, truncation, bad file types. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "msr.h"
#include "tree_util.h"

struct tree {
	char dir[64];
	struct root root;
};

static void put_reg(int fd, uint32_t addr, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	assert_int_equal(pwrite(fd, b, 8, (off_t)addr * 8), 8);
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char path[128];
	int fd;

	assert_non_null(t);
	tree_new(t->dir, sizeof(t->dir), "msr");
	tree_mkdirs(t->dir, "dev/cpu/0");
	tree_mkdirs(t->dir, "dev/cpu/1");
	snprintf(path, sizeof(path), "%s/dev/cpu/0/msr", t->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	/* MPERF and APERF are adjacent: at offset = address they would overlap */
	put_reg(fd, MSR_IA32_MPERF, 0x1122334455667788ULL);
	put_reg(fd, MSR_IA32_APERF, 0x8877665544332211ULL);
	put_reg(fd, MSR_IA32_TSC, 12345678901ULL);
	put_reg(fd, MSR_PKG_ENERGY_STATUS, 0xfffffff0ULL);
	close(fd);
	/* cpu1: the file ends in the middle of MPERF */
	snprintf(path, sizeof(path), "%s/dev/cpu/1/msr", t->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	put_reg(fd, MSR_IA32_TSC, 7);
	assert_int_equal(ftruncate(fd, MSR_IA32_MPERF * 8 + 4), 0);
	close(fd);
	/* cpu2: msr is a directory */
	tree_mkdirs(t->dir, "dev/cpu/2/msr");
	assert_int_equal(root_open(t->dir, &t->root), 0);
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;

	root_close(&t->root);
	tree_remove(t->dir);
	free(t);
	return 0;
}

static void test_file_offsets(void **state)
{
	struct tree *t = *state;
	struct msr_dev d;
	uint64_t v = 0;

	assert_int_equal(msr_open(&t->root, 0, &d), 0);
	assert_true(d.is_file);
	assert_int_equal(msr_read(&d, MSR_IA32_MPERF, &v), 0);
	assert_true(v == 0x1122334455667788ULL);
	assert_int_equal(msr_read(&d, MSR_IA32_APERF, &v), 0);
	assert_true(v == 0x8877665544332211ULL);
	assert_int_equal(msr_read(&d, MSR_IA32_TSC, &v), 0);
	assert_true(v == 12345678901ULL);
	assert_int_equal(msr_read(&d, MSR_PKG_ENERGY_STATUS, &v), 0);
	assert_true(v == 0xfffffff0ULL);
	/* a hole inside the file is a register that reads as zero */
	assert_int_equal(msr_read(&d, MSR_SMI_COUNT, &v), 0);
	assert_true(v == 0);
	/* past the end: truncated, and the out-parameter is untouched */
	v = 42;
	assert_int_equal(msr_read(&d, MSR_AMD_PKG_ENERGY_STATUS, &v), -ENODATA);
	assert_true(v == 42);
	msr_close(&d);
	assert_int_equal(d.fd, -1);
	msr_close(&d); /* twice is harmless */
	assert_int_equal(msr_read(&d, MSR_IA32_TSC, &v), -EBADF);
}

static void test_bad_files(void **state)
{
	struct tree *t = *state;
	struct msr_dev d = { .fd = -1 };
	uint64_t v = 42;

	assert_int_equal(msr_open(&t->root, 1, &d), 0);
	assert_int_equal(msr_read(&d, MSR_IA32_TSC, &v), 0);
	assert_true(v == 7);
	v = 42;
	assert_int_equal(msr_read(&d, MSR_IA32_MPERF, &v), -ENODATA);
	assert_true(v == 42);
	msr_close(&d);
	assert_int_equal(msr_open(&t->root, 2, &d), -EINVAL);
	assert_int_equal(msr_open(&t->root, 3, &d), -ENOENT);
	assert_int_equal(msr_open(&t->root, -1, &d), -EINVAL);
	assert_non_null(strstr(msr_strerror(-EACCES), "CAP_SYS_RAWIO"));
	assert_non_null(strstr(msr_strerror(-ENOENT), "msr module not loaded"));
	assert_non_null(strstr(msr_strerror(-ENODATA), "truncated"));
}

static void test_offset_rule(void **state)
{
	(void)state;
	/* the character device: offset = address; a file: 8 x address */
	assert_true(msr_offset(false, MSR_IA32_APERF) == 0xe8);
	assert_true(msr_offset(true, MSR_IA32_APERF) == 0xe8 * 8);
	/* AMD addresses above 2^31 must not wrap through a 32-bit multiply */
	assert_true(msr_offset(true, MSR_AMD_PKG_ENERGY_STATUS) == 0xc001029bULL * 8);
}

/* A batch gives every op what msr_read() gives, with io_uring or without. */
static void check_batch(struct tree *t, struct msr_batch *b)
{
	struct msr_dev d0, d1, closed = { .fd = -1 };
	int i0, i1, i2, i3;

	assert_int_equal(msr_open(&t->root, 0, &d0), 0);
	assert_int_equal(msr_open(&t->root, 1, &d1), 0);
	for (int round = 0; round < 2; round++) {
		i0 = msr_batch_add(b, &d0, MSR_IA32_APERF);
		i1 = msr_batch_add(b, &d0, MSR_IA32_MPERF);
		i2 = msr_batch_add(b, &d1, MSR_IA32_MPERF); /* truncated there */
		i3 = msr_batch_add(b, &closed, MSR_IA32_TSC);
		/* more ops than one submission holds */
		for (int k = 0; k < 300; k++)
			assert_true(msr_batch_add(b, &d0, MSR_IA32_TSC) >= 0);
		assert_int_equal(msr_batch_run(b), 0);
		assert_int_equal(b->ops[i0].err, 0);
		assert_true(b->ops[i0].val == 0x8877665544332211ULL);
		assert_true(b->ops[i1].val == 0x1122334455667788ULL);
		assert_int_equal(b->ops[i2].err, -ENODATA);
		assert_int_equal(b->ops[i3].err, -EBADF);
		assert_int_equal(b->ops[b->n - 1].err, 0);
		assert_true(b->ops[b->n - 1].val == 12345678901ULL);
		msr_batch_reset(b);
	}
	msr_close(&d0);
	msr_close(&d1);
}

static void test_batch(void **state)
{
	struct msr_batch b;

	assert_int_equal(msr_batch_init(&b), 0);
	check_batch(*state, &b);
	msr_batch_free(&b);
	/* the pread fallback, as without io_uring */
	memset(&b, 0, sizeof(b));
	check_batch(*state, &b);
	msr_batch_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_offsets, tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, tree_setup, tree_teardown),
		cmocka_unit_test(test_offset_rule),
		cmocka_unit_test_setup_teardown(test_batch, tree_setup, tree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
