// SPDX-License-Identifier: GPL-2.0-or-later
/* apply/undo on a temporary tree of plain /proc/irq files: journal, verify,
 * rollback of a half-done apply, refusals; and the journal parser. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "apply.h"
#include "ethtool_nl.h"

/* A recorded ETHTOOL_MSG_CHANNELS_GET answer: eth0, combined 2 of 8, other 1 of 1. */
#define CHANNELS_BIN FIXTURES_DIR "/advise/nic-few-channels/t1/netlink/ethtool/eth0/channels.bin"

struct tree {
	char dir[64];
	struct root root;
	int state_fd;
};

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], tmp[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p != '/')
			continue;
		memcpy(tmp, path, (size_t)(p - path));
		tmp[p - path] = '\0';
		mkdir(tmp, 0755);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void get(const struct tree *t, const char *rel, char *buf, size_t size)
{
	assert_true(root_read_small(&t->root, rel, buf, size) >= 0);
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/iotriage-apply-XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	for (int irq = 200; irq < 203; irq++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
		put(t->dir, rel, "0-3\n");
		snprintf(rel, sizeof(rel), "proc/irq/%d/effective_affinity_list", irq);
		put(t->dir, rel, "1\n");
	}
	put(t->dir, "sys/block/sdb/queue/scheduler", "[none] mq-deadline\n");
	if (root_open(t->dir, &t->root) < 0)
		return -1;
	t->state_fd = apply_state_open(&t->root, NULL);
	if (t->state_fd < 0)
		return -1;
	*state = t;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct tree *t = *state;

	close(t->state_fd);
	root_close(&t->root);
	nftw(t->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
	return 0;
}

static struct suggestion spread(struct advise_action *acts)
{
	struct suggestion s;

	memset(&s, 0, sizeof(s));
	snprintf(s.id, sizeof(s.id), "irq-spread-test");
	memset(acts, 0, 3 * sizeof(*acts));
	for (int i = 0; i < 3; i++) {
		snprintf(acts[i].path, sizeof(acts[i].path), "proc/irq/%d/smp_affinity_list",
			 200 + i);
		snprintf(acts[i].value, sizeof(acts[i].value), "%d", i);
		snprintf(acts[i].undo, sizeof(acts[i].undo), "0-3");
		acts[i].is_irq = true;
		acts[i].irq = 200 + (uint32_t)i;
	}
	s.actions = acts;
	s.nactions = 3;
	return s;
}

static void test_apply_undo(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char buf[64], ids[4][ADV_ID_MAX];

	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	assert_int_equal(res.written, 3);
	/* effective affinity 1 is inside "1" only for IRQ 201 */
	assert_int_equal(res.pending, 2);
	assert_non_null(strstr(res.message, "undo with: iotriage undo irq-spread-test"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(t, "proc/irq/202/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "2");
	get(t, "var/lib/iotriage/irq-spread-test.undo", buf, sizeof(buf));
	assert_int_equal(apply_list(t->state_fd, ids, 4), 1);
	assert_string_equal(ids[0], "irq-spread-test");

	/* twice is refused: the journal would lose the original values */
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -EEXIST);
	assert_non_null(strstr(res.message, "already applied"));

	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), 0);
	assert_int_equal(res.written, 3);
	for (int i = 0; i < 3; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", 200 + i);
		get(t, rel, buf, sizeof(buf));
		assert_string_equal(buf, "0-3");
	}
	assert_int_equal(apply_list(t->state_fd, ids, 4), 0);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), -ENOENT);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "../../etc/passwd", &res), -ENOENT);
}

static void test_undo_records_current_value(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char buf[64];

	/* the host changed since the advice: undo restores what was there at apply */
	put(t->dir, "proc/irq/201/smp_affinity_list", "3\n");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), 0);
	get(t, "proc/irq/201/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "3");
	put(t->dir, "proc/irq/201/smp_affinity_list", "0-3\n");
}

static void test_rollback(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char path[512], buf[64], ids[4][ADV_ID_MAX];
	int r;

	/* a file that reads as a cpulist but refuses writes, like the kernel's
	 * for a managed IRQ: the live CPU online list (read-only even to root) */
	r = open("/sys/devices/system/cpu/online", O_WRONLY | O_CLOEXEC);
	if (r >= 0)
		close(r);
	if (r >= 0 || access("/sys/devices/system/cpu/online", R_OK) < 0) {
		printf("skip: /sys/devices/system/cpu/online is not a read-only file here\n");
		skip();
	}
	/* bound over the tree's file: a symlink to it would resolve inside the
	 * tree (doc/trees.md), a mount is crossed like on the host */
	snprintf(path, sizeof(path), "%s/proc/irq/202/smp_affinity_list", t->dir);
	if (mount("/sys/devices/system/cpu/online", path, NULL, MS_BIND, NULL) < 0) {
		printf("skip: cannot bind-mount over %s: %s\n", path, strerror(errno));
		skip();
	}
	r = apply_suggestion(&t->root, t->state_fd, &s, &res);
	umount2(path, MNT_DETACH);
	assert_true(r == -EACCES || r == -EPERM || r == -EIO);
	assert_int_equal(res.written, 0);
	assert_non_null(strstr(res.message, "2 earlier writes rolled back"));
	assert_true(strstr(res.message, "not permitted") || strstr(res.message, "manage"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	get(t, "proc/irq/201/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(apply_list(t->state_fd, ids, 4), 0); /* no journal left */
}

static void test_refusals(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char buf[64];

	snprintf(acts[1].path, sizeof(acts[1].path), "etc/passwd");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -EINVAL);
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3"); /* checked before anything is written */
	s = spread(acts);
	snprintf(acts[2].path, sizeof(acts[2].path), "proc/irq/999/smp_affinity_list");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -ENOENT);
	assert_non_null(strstr(res.message, "nothing written"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
}

static void test_choice_file(void **state)
{
	struct tree *t = *state;
	struct advise_action a;
	struct suggestion s;
	struct apply_result res;
	char buf[64];

	memset(&s, 0, sizeof(s));
	memset(&a, 0, sizeof(a));
	snprintf(s.id, sizeof(s.id), "scheduler-sdb");
	snprintf(a.path, sizeof(a.path), "sys/block/sdb/queue/scheduler");
	snprintf(a.value, sizeof(a.value), "mq-deadline");
	snprintf(a.undo, sizeof(a.undo), "none");
	s.actions = &a;
	s.nactions = 1;
	/* a plain file does not bracket the value back as the kernel does:
	 * the read-back sees "mq-deadline" without brackets and accepts it */
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "scheduler-sdb", &res), 0);
	get(t, "sys/block/sdb/queue/scheduler", buf, sizeof(buf));
	assert_string_equal(buf, "none"); /* the bracketed value recorded at apply */
}

static void test_corrupt_journal(void **state)
{
	struct tree *t = *state;
	struct apply_result res;
	char path[512];

	snprintf(path, sizeof(path), "%s/var/lib/iotriage/bad.undo", t->dir);
	put(t->dir, "var/lib/iotriage/bad.undo", "iotriage-undo 1\nid bad\nwrite /etc/x\ta\tb\n");
	assert_int_equal(apply_undo(&t->root, t->state_fd, "bad", &res), -EBADMSG);
	assert_int_equal(access(path, F_OK), 0); /* kept for a human to look at */
	unlink(path);
}

static size_t slurp(const char *path, unsigned char *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size, f);
	fclose(f);
	assert_true(n > 0 && n < size);
	return n;
}

static void put_bytes(const char *dir, const char *rel, const unsigned char *b, size_t n)
{
	char path[512];
	FILE *f;

	put(dir, rel, ""); /* creates the directories */
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
}

/* `ethtool -L eth0 combined N` in a recorded tree: the recorded answer is
 * what apply reads, sets and reads back, as the kernel's would be live. */
static void test_ethtool_channels(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3], ch;
	struct suggestion s;
	struct apply_result res;
	struct nic_channels c;
	unsigned char orig[4096], now[4096];
	char path[512], buf[64];
	size_t n;

	n = slurp(CHANNELS_BIN, orig, sizeof(orig));
	put_bytes(t->dir, "netlink/ethtool/eth0/channels.bin", orig, n);
	snprintf(path, sizeof(path), "%s/netlink/ethtool/eth0/channels.bin", t->dir);

	memset(&ch, 0, sizeof(ch));
	snprintf(ch.path, sizeof(ch.path), "netlink/ethtool/eth0/channels/combined");
	snprintf(ch.value, sizeof(ch.value), "8");
	snprintf(ch.undo, sizeof(ch.undo), "2");
	memset(&s, 0, sizeof(s));
	snprintf(s.id, sizeof(s.id), "channels-eth0");
	s.actions = &ch;
	s.nactions = 1;
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	assert_int_equal(res.written, 1);
	assert_int_equal(ethtool_nl_channels_get(&t->root, "eth0", &c), 0);
	assert_int_equal(c.combined, 8);
	assert_int_equal(c.combined_max, 8);
	assert_int_equal(c.other, 1); /* only the combined count moved */
	{
		struct apply_journal *j = malloc(sizeof(*j));
		char text[256];
		int fd = openat(t->state_fd, "channels-eth0.undo", O_RDONLY | O_CLOEXEC);
		ssize_t len;

		assert_non_null(j);
		assert_true(fd >= 0);
		len = read(fd, text, sizeof(text) - 1);
		close(fd);
		assert_true(len > 0);
		text[len] = '\0';
		assert_non_null(
		    strstr(text, "write netlink/ethtool/eth0/channels/combined\t2\t8\n"));
		assert_int_equal(apply_journal_parse(text, (size_t)len, j), 0);
		free(j);
	}
	assert_int_equal(apply_undo(&t->root, t->state_fd, "channels-eth0", &res), 0);
	assert_non_null(strstr(res.message, "1 values restored"));
	assert_int_equal(slurp(path, now, sizeof(now)), n);
	assert_memory_equal(now, orig, n); /* byte for byte the recorded answer */

	/* above the maximum: the kernel's EINVAL; the IRQ written before is
	 * rolled back and no journal stays */
	s = spread(acts);
	snprintf(s.id, sizeof(s.id), "channels-eth0");
	acts[1] = ch;
	snprintf(acts[1].value, sizeof(acts[1].value), "9");
	s.nactions = 2;
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -EINVAL);
	assert_non_null(strstr(res.message, "ethtool -L eth0 combined 9: Invalid argument: the "
					    "driver refused the count"));
	assert_non_null(strstr(res.message, "1 earlier writes rolled back"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(slurp(path, now, sizeof(now)), n);
	assert_memory_equal(now, orig, n);
	assert_int_equal(faccessat(t->state_fd, "channels-eth0.undo", F_OK, 0), -1);

	/* nothing recorded for eth7: no undo value, nothing written */
	snprintf(ch.path, sizeof(ch.path), "netlink/ethtool/eth7/channels/combined");
	s.actions = &ch;
	s.nactions = 1;
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -ENOENT);
	assert_non_null(strstr(res.message, "cannot read the channels of eth7 (ethtool -l eth7)"));
	assert_non_null(strstr(res.message, "nothing written"));

	/* not a count */
	snprintf(ch.path, sizeof(ch.path), "netlink/ethtool/eth0/channels/combined");
	snprintf(ch.value, sizeof(ch.value), "8 rx 2");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -EINVAL);
	assert_int_equal(slurp(path, now, sizeof(now)), n);
	assert_memory_equal(now, orig, n);
}

static void test_journal_parse(void **state)
{
	static const char good[] =
	    "iotriage-undo 1\nid rps-eth0\n"
	    "write sys/class/net/eth0/queues/rx-0/rps_cpus\t00000000\t0000000f\n"
	    "write proc/sys/net/core/rps_sock_flow_entries\t0\t32768\n";
	static const char *const bad[] = {
		"",
		"iotriage-undo 2\nid x\nwrite proc/irq/1/smp_affinity_list\t0\t1\n",
		"iotriage-undo 1\nwrite proc/irq/1/smp_affinity_list\t0\t1\n",
		"iotriage-undo 1\nid x\n",
		"iotriage-undo 1\nid x\nwrite proc/irq/../../etc/shadow\t0\t1\n",
		"iotriage-undo 1\nid x\nwrite proc/irq/1/smp_affinity_list\t0\n",
		"iotriage-undo 1\nid x\nwrite proc/irq/1/smp_affinity_list\t0\t1\t2\n",
		"iotriage-undo 1\nid ../x\nwrite proc/irq/1/smp_affinity_list\t0\t1\n",
		"iotriage-undo 1\nid x\nbogus\n",
	};
	struct apply_journal *j = malloc(sizeof(*j));

	(void)state;
	assert_non_null(j);
	assert_int_equal(apply_journal_parse(good, sizeof(good) - 1, j), 0);
	assert_string_equal(j->id, "rps-eth0");
	assert_int_equal(j->n, 2);
	assert_string_equal(j->writes[0].undo, "00000000");
	assert_string_equal(j->writes[1].value, "32768");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(apply_journal_parse(bad[i], strlen(bad[i]), j), -EBADMSG);
	free(j);
	assert_true(apply_path_allowed("proc/irq/5/smp_affinity_list"));
	assert_false(apply_path_allowed("/proc/irq/5/smp_affinity_list"));
	assert_false(apply_path_allowed("proc/irq/../../etc/passwd"));
	assert_false(apply_path_allowed("proc/sys/kernel/core_pattern"));
	assert_true(apply_path_allowed("netlink/ethtool/eth0/channels/combined"));
	assert_false(apply_path_allowed("netlink/ethtool/eth0/channels.bin"));
	assert_false(apply_path_allowed("netlink/ethtool/../channels/combined"));
	assert_false(apply_path_allowed("netlink/rtnl/links.bin"));
	assert_non_null(strstr(apply_errno_meaning(-EIO, true), "manage"));
	/* root and still refused: the IRQ may be managed (issue 5: "EIO or EPERM") */
	assert_non_null(strstr(apply_errno_meaning(-EPERM, true), "kernel-managed"));
	assert_null(strstr(apply_errno_meaning(-EPERM, false), "managed"));
	assert_non_null(strstr(apply_errno_meaning(-ENOSPC, true), "vector"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_apply_undo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_records_current_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choice_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ethtool_channels, setup, teardown),
		cmocka_unit_test(test_journal_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
