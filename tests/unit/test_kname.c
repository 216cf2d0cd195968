// SPDX-License-Identifier: GPL-2.0-or-later
/* kname.c: the one rule for names the kernel gives disks and interfaces
 * before they become part of a path or a command, and the one list of
 * disks whose IO is another device's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kname.h"

static void test_disk_names(void **state)
{
	static const char *const good[] = { "sda",
					    "nvme0n1p2",
					    "cciss/c0d0",
					    "cciss!c0d0",
					    "dm-0",
					    "vda",
					    "0123456789012345678901234567890" };
	static const char *const bad[] = {
		"",	  ".",	  "..",	   "a/",     "/a",	 "a//b",
		"a/../b", "sd a", "sd\na", "sd\x7f", "\xc3\xa9", "01234567890123456789012345678901"
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(kname_ok(KNAME_DISK, good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(kname_ok(KNAME_DISK, bad[i]));
	assert_false(kname_valid(KNAME_DISK, "sd\0a", 4));

	assert_int_equal(kname_sysfs(KNAME_DISK, "cciss/c0d0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "cciss!c0d0");
	strcpy(buf, "untouched");
	assert_int_equal(kname_sysfs(KNAME_DISK, "../etc", buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "untouched");
	assert_int_equal(kname_sysfs(KNAME_DISK, "nvme0n1", buf, 4), -ENAMETOOLONG);
	assert_string_equal(buf, "untouched");
}

static void test_iface_names(void **state)
{
	(void)state;
	assert_true(kname_ok(KNAME_IFACE, "eth0"));
	assert_true(kname_ok(KNAME_IFACE, "enp0s31f6.100"));
	assert_true(kname_ok(KNAME_IFACE, "012345678901234"));
	assert_false(kname_ok(KNAME_IFACE, "0123456789012345"));
	assert_false(kname_ok(KNAME_IFACE, "a/b"));
	assert_false(kname_ok(KNAME_IFACE, "a:b"));
	assert_false(kname_ok(KNAME_IFACE, "a b"));
	assert_false(kname_ok(KNAME_IFACE, ".."));
}

static void test_virtual_disk(void **state)
{
	static const char *const virt[] = { "loop0", "loop17", "zram0", "ram3" };
	static const char *const real[] = { "sda", "vda", "nvme0n1", "dm-0", "md0", "xvda" };

	(void)state;
	for (size_t i = 0; i < sizeof(virt) / sizeof(virt[0]); i++)
		assert_true(kname_virtual_disk(virt[i]));
	for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++)
		assert_false(kname_virtual_disk(real[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disk_names),
		cmocka_unit_test(test_iface_names),
		cmocka_unit_test(test_virtual_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
