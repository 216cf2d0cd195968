// SPDX-License-Identifier: GPL-2.0-or-later
/* apply/undo on a temporary tree of plain /proc/irq files: journal, verify,
 * rollback of a half-done apply, refusals; and the journal parser. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "apply.h"
#include "ethtool_nl.h"
#include "tree_util.h"

/* A recorded ETHTOOL_MSG_CHANNELS_GET answer: eth0, combined 2 of 8, other 1 of 1. */
#define CHANNELS_BIN FIXTURES_DIR "/advise/nic-few-channels/t1/netlink/ethtool/eth0/channels.bin"

struct tree {
	char dir[64];
	struct root root;
	int state_fd;
};

static void get(const struct tree *t, const char *rel, char *buf, size_t size)
{
	assert_true(root_read_small(&t->root, rel, buf, size) >= 0);
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char why[600];

	if (!t)
		return -1;
	tree_new(t->dir, sizeof(t->dir), "apply");
	for (int irq = 200; irq < 203; irq++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
		tree_put(t->dir, rel, "0-3\n");
		snprintf(rel, sizeof(rel), "proc/irq/%d/effective_affinity_list", irq);
		tree_put(t->dir, rel, "1\n");
	}
	tree_put(t->dir, "sys/block/sdb/queue/scheduler", "[none] mq-deadline\n");
	if (root_open(t->dir, &t->root) < 0)
		return -1;
	t->state_fd = apply_state_open(&t->root, NULL, why, sizeof(why));
	if (t->state_fd < 0)
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	close(t->state_fd);
	root_close(&t->root);
	tree_remove(t->dir);
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

#define BOOT_A "0d4f7c1e-2b3a-4c5d-8e9f-a0b1c2d3e4f5"
#define BOOT_B "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"

/*
 * What apply writes lasts one boot: a journal of an earlier boot is never
 * played back (its IRQ numbers and disk names may be other devices now, and
 * the values it restores were that boot's), it is removed; and it does not
 * block applying again.
 */
static void test_earlier_boot(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char buf[256], ids[4][ADV_ID_MAX];

	tree_put(t->dir, "proc/sys/kernel/random/boot_id", BOOT_A "\n");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	get(t, "var/lib/iotriage/irq-spread-test.undo", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nboot " BOOT_A "\n"));

	/* the host restarts: another boot id, the IRQs at the kernel's default */
	tree_put(t->dir, "proc/sys/kernel/random/boot_id", BOOT_B "\n");
	for (int irq = 200; irq < 203; irq++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
		tree_put(t->dir, rel, "7\n");
	}
	/* applying again is not refused by the stale journal */
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	get(t, "var/lib/iotriage/irq-spread-test.undo", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nboot " BOOT_B "\n"));
	assert_non_null(strstr(buf, "\t7\t0\n")); /* this boot's value is the undo */

	/* and restarting again, undo writes nothing and drops the journal */
	tree_put(t->dir, "proc/sys/kernel/random/boot_id", BOOT_A "\n");
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), 0);
	assert_int_equal(res.written, 0);
	assert_non_null(strstr(res.message, "earlier boot"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_int_equal(apply_list(t->state_fd, ids, 4), 0);

	/* the same boot: undone as always */
	tree_put(t->dir, "proc/irq/200/smp_affinity_list", "5\n");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), 0);
	assert_int_equal(res.written, 3);
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "5");
}

static void test_undo_records_current_value(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char buf[64];

	/* the host changed since the advice: undo restores what was there at apply */
	tree_put(t->dir, "proc/irq/201/smp_affinity_list", "3\n");
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), 0);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), 0);
	get(t, "proc/irq/201/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "3");
	tree_put(t->dir, "proc/irq/201/smp_affinity_list", "0-3\n");
}

/* Sets or clears the immutable flag (chattr +i): a file that reads fine but
 * refuses writes, even root's, as the kernel's does for a managed IRQ.
 * 0 or -errno (a file system without the flag). */
static int immutable(const char *path, bool on)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), fl, e = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) < 0) {
		e = -errno;
	} else {
		fl = on ? fl | FS_IMMUTABLE_FL : fl & ~FS_IMMUTABLE_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &fl) < 0)
			e = -errno;
	}
	close(fd);
	return e;
}

static void test_rollback(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char path[512], buf[64], ids[4][ADV_ID_MAX];
	int r;

	snprintf(path, sizeof(path), "%s/proc/irq/202/smp_affinity_list", t->dir);
	r = immutable(path, true);
	if (r < 0) {
		printf("skip: cannot make %s immutable: %s\n", path, strerror(-r));
		skip();
	}
	r = apply_suggestion(&t->root, t->state_fd, &s, &res);
	assert_int_equal(immutable(path, false), 0);
	assert_int_equal(r, -EPERM);
	assert_int_equal(res.written, 0);
	assert_non_null(strstr(res.message, "2 earlier writes rolled back"));
	assert_true(strstr(res.message, "not permitted") || strstr(res.message, "manage"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	get(t, "proc/irq/201/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(apply_list(t->state_fd, ids, 4), 0); /* no journal left */
}

/* A file outside the tree holding "0-3", for links to point at. */
static void victim(const struct tree *t, char *path, size_t size)
{
	snprintf(path, size, "%s-victim", t->dir);
	tree_put("/", path + 1, "0-3\n");
}

static void assert_victim(const char *path)
{
	char buf[64];

	tree_slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "0-3\n");
}

/* A recorded tree is someone's files: apply and undo follow no link in it
 * (issue 12: proc/irq/N/smp_affinity_list -> a victim, sys/block/X -> a
 * directory elsewhere). */
static void test_symlinks_refused(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3], a;
	struct suggestion s = spread(acts);
	struct apply_result res;
	char path[512], vpath[128], outside[160], buf[64];

	victim(t, vpath, sizeof(vpath));
	snprintf(path, sizeof(path), "%s/proc/irq/202/smp_affinity_list", t->dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(vpath, path), 0);
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -ELOOP);
	assert_non_null(strstr(res.message, "nothing written"));
	assert_victim(vpath);
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	/* a journal naming it (as a crash could leave): undo refuses, keeps it */
	tree_put(t->dir, "var/lib/iotriage/irq-spread-test.undo",
		 "iotriage-undo 1\nid irq-spread-test\n"
		 "write proc/irq/201/smp_affinity_list\t0-3\t1\n"
		 "write proc/irq/202/smp_affinity_list\t5\t2\n");
	assert_int_equal(apply_undo(&t->root, t->state_fd, "irq-spread-test", &res), -ELOOP);
	assert_non_null(strstr(res.message, "journal kept"));
	assert_non_null(strstr(res.message, "symbolic link"));
	assert_victim(vpath);
	assert_int_equal(unlinkat(t->state_fd, "irq-spread-test.undo", 0), 0);
	unlink(vpath);

	/* sys/block/sdb -> a directory outside holding queue/scheduler */
	snprintf(outside, sizeof(outside), "%s-outside", t->dir);
	snprintf(path, sizeof(path), "%s/queue/scheduler", outside + 1);
	tree_put("/", path, "[none] mq-deadline\n");
	snprintf(path, sizeof(path), "%s/sys/block/sdb", t->dir);
	tree_remove(path);
	assert_int_equal(symlink(outside, path), 0);
	memset(&s, 0, sizeof(s));
	memset(&a, 0, sizeof(a));
	snprintf(s.id, sizeof(s.id), "scheduler-sdb");
	snprintf(a.path, sizeof(a.path), "sys/block/sdb/queue/scheduler");
	snprintf(a.value, sizeof(a.value), "mq-deadline");
	s.actions = &a;
	s.nactions = 1;
	assert_int_equal(apply_suggestion(&t->root, t->state_fd, &s, &res), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/queue/scheduler", outside);
	tree_slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "[none] mq-deadline\n");
	tree_remove(outside);
}

/* Journals planted where undo looks: paths apply never writes are refused
 * whole (nothing written), and so is a journal that is a link or not root's. */
static void test_planted_journal(void **state)
{
	static const char *const planted[] = {
		"sys/bus/pci/drivers/x/unbind",
		"sys/block/sda/device/delete",
		"sys/class/net/eth0/device/remove",
		"sys/block/sda/queue/../device/delete",
		"proc/irq/../sys/kernel/core_pattern",
		"sys/block/../block/sda/queue/scheduler",
		"sys/block/sda/queue/scheduler/../../device/delete",
		"sys/class/net/eth0/queues/rx-0/../../device/remove",
	};
	struct tree *t = *state;
	struct apply_result res;
	char text[512], buf[64], path[512], vpath[128];
	struct stat st;

	tree_put(t->dir, "sys/block/sda/device/delete", "keep\n");
	for (size_t i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		snprintf(text, sizeof(text),
			 "iotriage-undo 1\nid p\n"
			 "write proc/irq/200/smp_affinity_list\t7\t0\n"
			 "write %s\t1\t0\n",
			 planted[i]);
		tree_put(t->dir, "var/lib/iotriage/p.undo", text);
		assert_int_equal(apply_undo(&t->root, t->state_fd, "p", &res), -EBADMSG);
		assert_int_equal(res.written, 0);
		get(t, "sys/block/sda/device/delete", buf, sizeof(buf));
		assert_string_equal(buf, "keep");
		get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
		assert_string_equal(buf, "0-3"); /* the good line before it was not written */
	}
	/* a journal that is a symlink to a valid one elsewhere */
	victim(t, vpath, sizeof(vpath));
	tree_put("/", vpath + 1,
		 "iotriage-undo 1\nid p\nwrite proc/irq/200/smp_affinity_list\t7\t0\n");
	snprintf(path, sizeof(path), "%s/var/lib/iotriage/p.undo", t->dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(vpath, path), 0);
	assert_int_equal(apply_undo(&t->root, t->state_fd, "p", &res), -ELOOP);
	assert_non_null(strstr(res.message, "not a regular file"));
	assert_int_equal(lstat(path, &st), 0); /* left in place */
	assert_int_equal(unlink(path), 0);
	unlink(vpath);
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	/* one owned by another user */
	if (geteuid() == 0) {
		tree_put(t->dir, "var/lib/iotriage/p.undo",
			 "iotriage-undo 1\nid p\nwrite proc/irq/200/smp_affinity_list\t7\t0\n");
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(apply_undo(&t->root, t->state_fd, "p", &res), -EPERM);
		get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
		assert_string_equal(buf, "0-3");
		assert_int_equal(unlink(path), 0);
	}
}

/* The journal directory: root's (or the caller's) and 0700, reached
 * without a symlink through directories no one else can write. */
static void test_state_dir(void **state)
{
	struct tree *t = *state;
	char dir[256], why[600], sub[300];
	int fd;

	snprintf(dir, sizeof(dir), "%s/state", t->dir);
	fd = apply_state_open(&t->root, dir, why, sizeof(why));
	assert_true(fd >= 0); /* created 0700 */
	close(fd);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(apply_state_open(&t->root, dir, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "is mode 0777"));
	snprintf(sub, sizeof(sub), "&& chmod 0700 %s", dir);
	assert_non_null(strstr(why, sub));
	assert_non_null(strstr(why, geteuid() == 0 ? "chown root:root " : "chown $(id -un) "));
	assert_int_equal(chmod(dir, 0750), 0);
	assert_int_equal(apply_state_open(&t->root, dir, why, sizeof(why)), -EPERM);
	assert_int_equal(chmod(dir, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(apply_state_open(&t->root, dir, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "owner uid 65534"));
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	/* the default under the root too: ROOT/var/lib/iotriage */
	snprintf(sub, sizeof(sub), "%s/var/lib/iotriage", t->dir);
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(apply_state_open(&t->root, NULL, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, sub));
	assert_int_equal(chmod(sub, 0700), 0);
	/* a symlink to a good directory; a symlinked step on the way */
	snprintf(sub, sizeof(sub), "%s/link", t->dir);
	assert_int_equal(symlink(dir, sub), 0);
	assert_int_equal(apply_state_open(&t->root, sub, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "symbolic link"));
	strcat(sub, "/x");
	assert_int_equal(apply_state_open(&t->root, sub, why, sizeof(why)), -ELOOP);
	/* ".." */
	snprintf(sub, sizeof(sub), "%s/state/../state", t->dir);
	assert_int_equal(apply_state_open(&t->root, sub, why, sizeof(why)), -EINVAL);
	/* "/" itself (0755), or "DIR/." and "DIR//": the last real step is the one checked */
	assert_int_equal(apply_state_open(&t->root, "/", why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "/ is mode 0755"));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(sub, sizeof(sub), "%s/./", dir);
	assert_int_equal(apply_state_open(&t->root, sub, why, sizeof(why)), -EPERM);
	snprintf(sub, sizeof(sub), "%s//.//", dir);
	assert_int_equal(apply_state_open(&t->root, sub, why, sizeof(why)), -EPERM);
	assert_int_equal(chmod(dir, 0700), 0);
	fd = apply_state_open(&t->root, sub, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	/* a step writable by others: refused unless sticky (/tmp) */
	snprintf(sub, sizeof(sub), "%s/open", t->dir);
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	strcat(sub, "/state");
	assert_int_equal(apply_state_open(&t->root, sub, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "on the way to the undo journal"));
	snprintf(sub, sizeof(sub), "%s/open", t->dir);
	assert_int_equal(chmod(sub, 01777), 0);
	strcat(sub, "/state");
	fd = apply_state_open(&t->root, sub, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
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

/*
 * apply_shown(): the daemon's suggestion as published, checked against what
 * its advice read: a file that changed since (an IRQ moved, "0-3" read, "1"
 * now) refuses the whole apply with the IRQ named, nothing written, no
 * journal; the same list in another spelling ("0,1,2,3") is the same
 * value; writes other than those shown are refused; as read, it applies.
 */
static void test_apply_shown(void **state)
{
	struct tree *t = *state;
	struct advise_action acts[3], other[3];
	struct suggestion s = spread(acts);
	struct apply_result res;
	char buf[64], ids[4][ADV_ID_MAX];

	tree_put(t->dir, "proc/irq/201/smp_affinity_list", "1\n");
	assert_int_equal(apply_shown(t->dir, NULL, &s, NULL, 0, &res), -ESTALE);
	assert_non_null(strstr(res.message, "IRQ 201's affinity changed since the suggestion "
					    "(now 1, it read 0-3)"));
	get(t, "proc/irq/200/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(apply_list(t->state_fd, ids, 4), 0);

	tree_put(t->dir, "proc/irq/201/smp_affinity_list", "0,1,2,3\n");
	memcpy(other, acts, sizeof(other));
	snprintf(other[2].value, sizeof(other[2].value), "3");
	assert_int_equal(apply_shown(t->dir, NULL, &s, other, 3, &res), -ESTALE);
	assert_non_null(strstr(res.message, "changed since it was shown"));
	assert_int_equal(apply_shown(t->dir, NULL, &s, acts, 2, &res), -ESTALE);

	assert_int_equal(apply_shown(t->dir, NULL, &s, acts, 3, &res), 0);
	assert_int_equal(res.written, 3);
	get(t, "proc/irq/202/smp_affinity_list", buf, sizeof(buf));
	assert_string_equal(buf, "2");
	assert_int_equal(apply_list(t->state_fd, ids, 4), 1);
}

static void test_corrupt_journal(void **state)
{
	struct tree *t = *state;
	struct apply_result res;
	char path[512];

	snprintf(path, sizeof(path), "%s/var/lib/iotriage/bad.undo", t->dir);
	tree_put(t->dir, "var/lib/iotriage/bad.undo",
		 "iotriage-undo 1\nid bad\nwrite /etc/x\ta\tb\n");
	assert_int_equal(apply_undo(&t->root, t->state_fd, "bad", &res), -EBADMSG);
	assert_int_equal(access(path, F_OK), 0); /* kept for a human to look at */
	unlink(path);
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

	n = tree_slurp(CHANNELS_BIN, orig, sizeof(orig));
	assert_true(n > 0);
	tree_put_bytes(t->dir, "netlink/ethtool/eth0/channels.bin", orig, n);
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
	assert_int_equal(tree_slurp(path, now, sizeof(now)), n);
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
	assert_int_equal(tree_slurp(path, now, sizeof(now)), n);
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
	assert_int_equal(tree_slurp(path, now, sizeof(now)), n);
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
		"iotriage-undo 1\nid x\nboot 0d4f7c1e\nwrite proc/irq/1/smp_affinity_list\t0\t1\n",
		"iotriage-undo 1\nid x\nboot 0D4F7C1E-2B3A-4C5D-8E9F-A0B1C2D3E4F5\n"
		"write proc/irq/1/smp_affinity_list\t0\t1\n",
		"iotriage-undo 1\nid x\nboot " BOOT_A "\nboot " BOOT_B "\n"
		"write proc/irq/1/smp_affinity_list\t0\t1\n",
	};
	struct apply_journal *j = malloc(sizeof(*j));

	(void)state;
	assert_non_null(j);
	assert_int_equal(apply_journal_parse(good, sizeof(good) - 1, j), 0);
	assert_string_equal(j->id, "rps-eth0");
	assert_int_equal(j->n, 2);
	assert_string_equal(j->writes[0].undo, "00000000");
	assert_string_equal(j->writes[1].value, "32768");
	assert_string_equal(j->boot, ""); /* written before boot ids: played back */
	{
		static const char booted[] = "iotriage-undo 1\nid x\nboot " BOOT_A "\n"
					     "write proc/irq/1/smp_affinity_list\t0\t1\n";

		assert_int_equal(apply_journal_parse(booted, sizeof(booted) - 1, j), 0);
		assert_string_equal(j->boot, BOOT_A);
	}
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
	/* whole paths of the files apply writes, not prefixes (issue 12) */
	{
		static const char *const yes[] = {
			"proc/irq/0/smp_affinity_list",
			"proc/sys/net/core/rps_sock_flow_entries",
			"sys/class/net/eth0/queues/rx-0/rps_cpus",
			"sys/class/net/enp3s0f1np1/queues/rx-15/rps_flow_cnt",
			"sys/block/nvme0n1/queue/scheduler",
			"sys/block/dm-0/queue/nr_requests",
			"sys/block/sda/queue/read_ahead_kb",
			"sys/block/cciss!c0d0/queue/iostats",
			"sys/block/md_a;b/queue/iostats", /* md's new_array takes any name */
		};
		static const char *const no[] = {
			"sys/block/sda/device/delete",
			"sys/class/net/eth0/device/remove",
			"sys/bus/pci/drivers/x/unbind",
			"sys/block/sda/queue/../device/delete",
			"sys/block/../block/sda/queue/scheduler",
			"sys/block/./queue/scheduler",
			"sys/block/../queue/scheduler",
			"sys/block/sda/queue/scheduler/",
			"sys/block/sda/queue/scheduler/x",
			"sys/block/sda/queue/rotational",
			"sys/block/sda/sda1/queue/scheduler",
			"sys/block/a:b/queue/scheduler",
			"sys/block/a b/queue/scheduler",
			"sys/block//queue/scheduler",
			"sys/block/abcdefghijabcdefghijabcdefghijab/queue/scheduler",
			"sys/class/net/abcdefghijklmnop/queues/rx-0/rps_cpus",
			"sys/class/net/eth0/queues/tx-0/rps_cpus",
			"sys/class/net/eth0/queues/rx-/rps_cpus",
			"sys/class/net/eth0/queues/rx-0x1/rps_cpus",
			"proc/irq/5/smp_affinity",
			"proc/irq/x/smp_affinity_list",
			"proc/irq/-1/smp_affinity_list",
			"proc/irq/12345678901/smp_affinity_list",
			"proc/irq/5/../../sys/kernel/core_pattern",
			"proc/sys/net/core/rps_sock_flow_entries/x",
			"proc/sys/net/core/somaxconn",
			/* a recorded "../../../../tmp/X/pwn" in sysfs's form (issue 24) */
			"sys/block/..!..!..!..!tmp!X!pwn/queue/iostats",
			"sys/block/cciss!!c0d0/queue/iostats",
			"sys/block/!c0d0/queue/iostats",
			"sys/block/sda\x1b/queue/iostats",
			"sys/block/sd\xc3\xa9/queue/iostats",
			"sys/class/net/e\x1b[2J/queues/rx-0/rps_cpus",
			"sys/class/net/e\xc2\x9b/queues/rx-0/rps_cpus",
			"",
		};

		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
			assert_true(apply_path_allowed(yes[i]));
		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
			if (apply_path_allowed(no[i]))
				fail_msg("allowed: %s", no[i]);
	}
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
		cmocka_unit_test_setup_teardown(test_earlier_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_undo_records_current_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rollback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_choice_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ethtool_channels, setup, teardown),
		cmocka_unit_test(test_journal_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
