// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * safety.c on a recorded tree (tests/fixtures/safety/host): which devices
 * are mounted or swap (partitions and holders included), which need
 * --allow-destroy, and malformed /proc input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "root.h"
#include "safety.h"

static struct root host;

static int setup(void **state)
{
	(void)state;
	return root_open(FIXTURES_DIR "/safety/host", &host);
}

static int teardown(void **state)
{
	(void)state;
	root_close(&host);
	return 0;
}

/* Runs the rules for kname; returns the verdict and leaves the reason in why. */
static int verdict(const char *kname, bool write, bool allow, const char *sig, char *why)
{
	struct safety_family f;
	int r;

	r = safety_family_load(&host, kname, &f);
	if (r < 0)
		return r;
	return safety_check_family(&host, &f, write, allow, sig, why, SAFETY_WHY_MAX);
}

static void expect(const char *kname, bool write, bool allow, const char *sig, int want,
		   const char *why_has)
{
	char why[SAFETY_WHY_MAX] = "";
	int r = verdict(kname, write, allow, sig, why);

	if (r != want)
		fail_msg("%s write=%d allow=%d sig=%s: got %d (%s), want %d", kname, write, allow,
			 sig, r, why, want);
	if (why_has && !strstr(why, why_has))
		fail_msg("%s: reason '%s' lacks '%s'", kname, why, why_has);
}

static void test_family(void **state)
{
	struct safety_family f;

	(void)state;
	assert_int_equal(safety_family_load(&host, "sda", &f), 0);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.npartitions, 2);
	assert_int_equal(f.nholders, 0);
	assert_string_equal(f.dev[0].name, "sda");
	assert_int_equal(f.dev[0].major, 8);
	assert_int_equal(safety_family_load(&host, "sdg", &f), 0);
	/* sdg -> sdg1 -> dm-1 (vg-swap): holders of partitions count */
	assert_int_equal(f.npartitions, 1);
	assert_int_equal(f.nholders, 1);
	assert_string_equal(f.dev[2].dm_name, "vg-swap");
	assert_int_equal(safety_family_load(&host, "sdz", &f), -ENOENT);
	assert_int_equal(safety_family_load(&host, "../etc", &f), -EINVAL);
}

static void test_always_refused(void **state)
{
	(void)state;
	/* mounted or swap: refused even with --allow-destroy */
	expect("sda", true, true, "", -EBUSY, "sda1");
	expect("sda1", true, true, "", -EBUSY, "mounted on /");
	expect("sda2", true, true, "", -EBUSY, "swap");
	expect("sdb", true, true, "", -EBUSY, "dm-0");
	expect("sdf", true, true, "", -EBUSY, "mounted on /srv (btrfs)");
	expect("nvme0n1", true, true, "", -EBUSY, "swap");
	expect("sdg", true, true, "", -EBUSY, "dm-1");
}

static void test_allow_destroy(void **state)
{
	(void)state;
	expect("sdc", true, false, "", -EPERM, "partitions (sdc1)");
	expect("sdc", true, true, "", 0, NULL);
	expect("sdd", true, false, "", -EPERM, "md0");
	expect("sdd", true, true, "", 0, NULL);
	expect("sde", true, false, "ext4", -EPERM, "ext4 signature");
	expect("sde", true, true, "ext4", 0, NULL);
	expect("sde", true, false, "", 0, NULL);
	expect("sde", true, false, NULL, 0, NULL);
}

static void test_reads_allowed(void **state)
{
	(void)state;
	/* reading never loses data: mounted, swap and held devices can be read */
	expect("sda", false, false, "ext4", 0, NULL);
	expect("sdb", false, false, "", 0, NULL);
	expect("nvme0n1", false, false, "", 0, NULL);
}

static void test_malformed(void **state)
{
	const char bad[] = "21 1 8:1 / / rw - ext4\n";
	const char no_sep[] = "21 1 8:1 / / rw shared:1 ext4 /dev/sda1 rw\n";
	const char swaps_bad[] = "Filename Type Size Used Priority\n/dev/sda2\n";
	const char empty_lines[] = "\n\n";
	struct safety_family f;
	char why[SAFETY_WHY_MAX];

	(void)state;
	assert_int_equal(safety_family_load(&host, "sde", &f), 0);
	assert_int_equal(safety_mountinfo_find(bad, strlen(bad), &f, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "line 1"));
	assert_int_equal(safety_mountinfo_find(no_sep, strlen(no_sep), &f, why, sizeof(why)),
			 -EBADMSG);
	assert_int_equal(safety_swaps_find(swaps_bad, strlen(swaps_bad), &f, why, sizeof(why)),
			 -EBADMSG);
	assert_int_equal(safety_mountinfo_find(empty_lines, 2, &f, why, sizeof(why)), 0);
	/* a path that only shares a prefix is another device */
	const char prefix[] = "30 1 0:50 / /x rw - ext4 /dev/sde1 rw\n";
	assert_int_equal(safety_mountinfo_find(prefix, strlen(prefix), &f, why, sizeof(why)), 0);
}

/*
 * Loops over one image file, read from sysfs (the fixture has no /dev
 * nodes for LOOP_GET_STATUS64): loop0 is its first 8 MiB, mounted; loop1
 * from 4 MiB on overlaps loop0, loop2 from 8 MiB on overlaps only loop1;
 * loop3's image was deleted (unknown), loop4 is not bound.
 */
static void test_loops(void **state)
{
	struct safety_loops ls;
	struct safety_family f;

	(void)state;
	assert_int_equal(safety_loops_load(&host, &ls), 0);
	assert_int_equal(ls.n, 4);
	for (unsigned i = 0; i < ls.n; i++) {
		const struct safety_loop *l = &ls.l[i];

		if (strcmp(l->name, "loop3") == 0) {
			assert_false(l->known);
			continue;
		}
		assert_true(l->known);
		assert_false(l->blockdev);
		if (strcmp(l->name, "loop0") == 0)
			assert_int_equal(l->sizelimit, 8 << 20);
		if (strcmp(l->name, "loop2") == 0)
			assert_int_equal(l->offset, 8 << 20);
	}
	safety_loops_free(&ls);

	assert_int_equal(safety_family_load(&host, "loop1", &f), 0);
	assert_int_equal(f.nholders, 2); /* loop0 and loop2 show bytes loop1 writes */
	expect("loop1", true, true, "", -EBUSY,
	       "its holder loop0 (/dev/loop0) is mounted on /mnt/img");
	expect("loop2", true, false, "", -EPERM, "in use by loop1");
	expect("loop2", true, true, "", 0, NULL); /* loop0's range is not touched */
	expect("loop0", true, true, "", -EBUSY, "mounted on /mnt/img");
	expect("loop3", true, false, "", 0, NULL);
	expect("loop4", true, false, "", 0, NULL);
}

/* A file is matched to the loops by inode (loop0-2 are over disk.img); one with other links
 * may be loop3's deleted image. */
static void test_file_backs_loop(void **state)
{
	const char *img = FIXTURES_DIR "/safety/host/images/disk.img";
	char tmpl[] = "/tmp/iotriage-test-safety.XXXXXX", lnk[sizeof(tmpl) + 8];
	struct safety_request req = { .write = true, .overwrite = true };
	struct safety_verdict v;
	char why[SAFETY_WHY_MAX];
	int fd;

	(void)state;
	req.target = img;
	assert_int_equal(safety_check(&host, &req, &v, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "backs /dev/loop"));
	fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	req.target = tmpl;
	assert_int_equal(safety_check(&host, &req, &v, why, sizeof(why)), 0);
	snprintf(lnk, sizeof(lnk), "%s.link", tmpl);
	assert_int_equal(link(tmpl, lnk), 0);
	assert_int_equal(safety_check(&host, &req, &v, why, sizeof(why)), -EBUSY);
	assert_non_null(strstr(why, "loop3"));
	unlink(lnk);
	unlink(tmpl);
}

/* Loops over one image: bytes shared only where their ranges meet (sizelimit 0: to the end). */
static void test_loop_overlap(void **state)
{
	struct safety_loop a = { .offset = 0, .sizelimit = 8 << 20 };
	struct safety_loop b = { .offset = 8 << 20, .sizelimit = 8 << 20 };
	struct safety_loop c = { .offset = 7 << 20, .sizelimit = 0 };
	struct safety_loop huge = { .offset = UINT64_MAX - 10, .sizelimit = 100 };

	(void)state;
	assert_false(safety_loop_overlap(&a, &b));
	assert_false(safety_loop_overlap(&b, &a));
	assert_true(safety_loop_overlap(&a, &c));
	assert_true(safety_loop_overlap(&c, &b));
	assert_true(safety_loop_overlap(&c, &huge)); /* offset + sizelimit wraps: to the end */
	assert_false(safety_loop_overlap(&a, &huge));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family),	      cmocka_unit_test(test_always_refused),
		cmocka_unit_test(test_allow_destroy), cmocka_unit_test(test_reads_allowed),
		cmocka_unit_test(test_malformed),     cmocka_unit_test(test_loop_overlap),
		cmocka_unit_test(test_loops),	      cmocka_unit_test(test_file_backs_loop),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
