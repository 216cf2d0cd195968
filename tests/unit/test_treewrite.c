// SPDX-License-Identifier: GPL-2.0-or-later
/* treewrite.c on a temporary tree holding what a hostile user would plant: a
 * file symlink, a directory symlink, a hard link, ".." in a name; nothing
 * may be written outside the tree, and the top must be new or empty and
 * the caller's. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "procfile.h"
#include "treewrite.h"
#include "root.h"
#include "tree_util.h"

struct tree {
	char dir[64];	  /* the top: holds out/ (the recording) and the victims */
	char out[96];	  /* the recording */
	char victim[128]; /* a file outside the recording */
	char hidden[128]; /* a directory outside the recording */
	int dfd;
};

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char why[256];

	if (!t)
		return -1;
	tree_new(t->dir, sizeof(t->dir), "record");
	snprintf(t->out, sizeof(t->out), "%s/out", t->dir);
	snprintf(t->victim, sizeof(t->victim), "%s/victim", t->dir);
	snprintf(t->hidden, sizeof(t->hidden), "%s/hidden", t->dir);
	tree_put(t->dir, "victim", "precious\n");
	if (mkdir(t->hidden, 0700) < 0)
		return -1;
	t->dfd = treewrite_open_top(t->out, why, sizeof(why));
	if (t->dfd < 0)
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	close(t->dfd);
	tree_remove(t->dir);
	free(t);
	return 0;
}

static void assert_untouched(const struct tree *t)
{
	char buf[64];
	struct stat st;

	tree_slurp(t->victim, buf, sizeof(buf));
	assert_string_equal(buf, "precious\n");
	assert_int_equal(stat(t->victim, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(stat(t->hidden, &st), 0);
	assert_int_equal(st.st_nlink, 2); /* still empty: no subdirectory made */
	assert_int_equal(rmdir(t->hidden), 0);
	assert_int_equal(mkdir(t->hidden, 0700), 0);
}

/* out/proc/stat -> victim: the link is replaced, the victim unchanged */
static void test_file_symlink(void **state)
{
	struct tree *t = *state;
	char path[256], buf[160];
	struct stat st;

	snprintf(path, sizeof(path), "%s/proc", t->out);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/stat", t->out);
	assert_int_equal(symlink(t->victim, path), 0);
	assert_int_equal(treewrite_write(t->dfd, "proc/stat", "cpu 1\n", 6), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	tree_slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "cpu 1\n");
	assert_untouched(t);
	/* a dangling one, a hard link: the same */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(link(t->victim, path), 0);
	assert_int_equal(treewrite_write(t->dfd, "proc/stat", "cpu 2\n", 6), 0);
	assert_untouched(t);
	snprintf(buf, sizeof(buf), "%s/nowhere", t->hidden);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(buf, path), 0);
	assert_int_equal(treewrite_write(t->dfd, "proc/stat", "cpu 3\n", 6), 0);
	assert_untouched(t);
	/* written twice in one run: the second write wins */
	assert_int_equal(treewrite_write(t->dfd, "proc/stat", "cpu 4\n", 6), 0);
	tree_slurp(path, buf, sizeof(buf));
	assert_string_equal(buf, "cpu 4\n");
}

/* out/sys -> a root-only directory elsewhere: nothing written through it */
static void test_dir_symlink(void **state)
{
	struct tree *t = *state;
	char path[256];
	int fd, e;

	snprintf(path, sizeof(path), "%s/sys", t->out);
	assert_int_equal(symlink(t->hidden, path), 0);
	e = treewrite_write(t->dfd, "sys/block/sda/stat", "1\n", 2);
	assert_true(e == -ELOOP || e == -ENOTDIR);
	e = treewrite_write(t->dfd, "sys/x", "1\n", 2);
	assert_true(e == -ELOOP || e == -ENOTDIR);
	e = treewrite_symlink(t->dfd, "sys/dev/block/8:0", "../x");
	assert_true(e == -ELOOP || e == -ENOTDIR);
	fd = treewrite_create(t->dfd, "sys/cpu/msr", 0600);
	assert_true(fd == -ELOOP || fd == -ENOTDIR);
	e = treewrite_open_dir(t->dfd, "sys/block", 1);
	assert_true(e == -ELOOP || e == -ENOTDIR);
	/* reading through it is refused too */
	tree_put(t->dir, "victim", "precious\n");
	e = treewrite_openat(t->dfd, "sys/victim", O_RDONLY);
	assert_true(e == -ELOOP || e == -ENOTDIR);
	assert_untouched(t);
	/* a link the recording made itself is never followed either */
	assert_int_equal(treewrite_symlink(t->dfd, "net/eth0/device", t->hidden), 0);
	e = treewrite_write(t->dfd, "net/eth0/device/msi_irqs/5", "", 0);
	assert_true(e == -ELOOP || e == -ENOTDIR);
	assert_untouched(t);
}

/* What apply opens under a tree: a FIFO (whose open would wait for a
 * writer) and a device node (whose open is its driver's: a free major's
 * answers ENXIO) where a file belongs are refused before any open runs. */
static void test_openat_not_regular(void **state)
{
	struct tree *t = *state;
	unsigned major_free = tree_free_char_major();
	char p[256];
	int fd;

	tree_put(t->out, "proc/irq/24/smp_affinity", "3\n");
	fd = treewrite_openat(t->dfd, "proc/irq/24/smp_affinity", O_WRONLY);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/proc/irq/25", t->out);
	tree_mkdirs(p, "");
	snprintf(p, sizeof(p), "%s/proc/irq/25/smp_affinity", t->out);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(treewrite_openat(t->dfd, "proc/irq/25/smp_affinity", O_RDONLY), -EXDEV);
	assert_int_equal(treewrite_openat(t->dfd, "proc/irq/25/smp_affinity", O_WRONLY), -EXDEV);
	snprintf(p, sizeof(p), "%s/proc/irq/26/smp_affinity", t->out);
	tree_mkdirs(t->out, "proc/irq/26");
	if (major_free && mknod(p, S_IFCHR | 0600, makedev(major_free, 0)) == 0)
		assert_int_equal(treewrite_openat(t->dfd, "proc/irq/26/smp_affinity", O_WRONLY),
				 -EXDEV);
	else
		print_message("no free char major or mknod refused: device case not run\n");
}

static void test_bad_names(void **state)
{
	struct tree *t = *state;

	assert_int_equal(treewrite_write(t->dfd, "../victim", "x", 1), -EINVAL);
	assert_int_equal(treewrite_write(t->dfd, "proc/../../victim", "x", 1), -EINVAL);
	assert_int_equal(treewrite_write(t->dfd, t->victim, "x", 1), -EINVAL);
	assert_int_equal(treewrite_write(t->dfd, "proc/.", "x", 1), -EINVAL);
	assert_int_equal(treewrite_write(t->dfd, "proc//stat", "x", 1), -EINVAL);
	assert_int_equal(treewrite_write(t->dfd, "", "x", 1), -EINVAL);
	assert_int_equal(treewrite_openat(t->dfd, "../victim", O_RDONLY), -EINVAL);
	assert_untouched(t);
}

static void test_open_top(void **state)
{
	struct tree *t = *state;
	char path[256], why[256];
	int fd;

	/* out/ holds files now: not empty */
	assert_int_equal(treewrite_write(t->dfd, "proc/uptime", "1 1\n", 4), 0);
	assert_int_equal(treewrite_open_top(t->out, why, sizeof(why)), -ENOTEMPTY);
	assert_non_null(strstr(why, "not empty (holds 'proc')"));
	/* a symlink to an empty directory, with or without a trailing slash */
	snprintf(path, sizeof(path), "%s/link", t->dir);
	assert_int_equal(symlink(t->hidden, path), 0);
	assert_int_equal(treewrite_open_top(path, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "a symbolic link"));
	strcat(path, "/");
	assert_int_equal(treewrite_open_top(path, why, sizeof(why)), -ELOOP);
	/* a regular file; a missing parent */
	assert_int_equal(treewrite_open_top(t->victim, why, sizeof(why)), -ENOTDIR);
	assert_string_equal(why, "Not a directory");
	snprintf(path, sizeof(path), "%s/no/such", t->dir);
	assert_int_equal(treewrite_open_top(path, why, sizeof(why)), -ENOENT);
	/* someone else's empty directory */
	if (geteuid() == 0) {
		assert_int_equal(chown(t->hidden, 65534, 65534), 0);
		assert_int_equal(treewrite_open_top(t->hidden, why, sizeof(why)), -EPERM);
		assert_non_null(strstr(why, "owned by uid 65534, not by you (uid 0)"));
		assert_int_equal(chown(t->hidden, 0, 0), 0);
	}
	/* an empty one of ours, and a new one */
	fd = treewrite_open_top(t->hidden, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/new", t->dir);
	fd = treewrite_open_top(path, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
}

/* treewrite_write_all: every byte, or the write's -errno. */
static void test_write_all(void **state)
{
	struct tree *t = *state;
	size_t len = 1 << 20;
	char *buf = malloc(len), *back = malloc(len), path[128];
	int fd, p[2];

	assert_non_null(buf);
	assert_non_null(back);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 7);
	snprintf(path, sizeof(path), "%s/big", t->dir);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(treewrite_write_all(fd, buf, len), 0);
	assert_int_equal(pread(fd, back, len, 0), (ssize_t)len);
	assert_memory_equal(buf, back, len);
	close(fd);
	assert_int_equal(treewrite_write_all(-1, buf, 1), -EBADF);
	assert_int_equal(treewrite_write_all(-1, buf, 0), 0);
	/* nobody reading: EPIPE, not a signal (the caller ignores SIGPIPE) */
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	assert_int_equal(treewrite_write_all(p[1], buf, 16), -EPIPE);
	close(p[1]);
	signal(SIGPIPE, SIG_DFL);
	free(buf);
	free(back);
}

/* A copy keeps others out of what others could not read where it was read
 * (a process's io is 0400 on the host): written 0600; the rest 0644. */
static void test_copy_mode(void **state)
{
	struct tree *t = *state;
	char src[128];
	struct procfile pf;
	struct root r;
	struct stat st;

	snprintf(src, sizeof(src), "%s/src", t->dir);
	tree_put(src, "proc/10/io", "rchar: 1\n");
	tree_put(src, "proc/stat", "cpu 1\n");
	snprintf(src, sizeof(src), "%s/src/proc/10/io", t->dir);
	assert_int_equal(chmod(src, 0400), 0);
	snprintf(src, sizeof(src), "%s/src/proc/stat", t->dir);
	assert_int_equal(chmod(src, 0444), 0);
	snprintf(src, sizeof(src), "%s/src", t->dir);
	assert_int_equal(root_open(src, &r), 0);
	procfile_init(&pf, NULL);
	assert_int_equal(treewrite_copy(&r, t->dfd, "proc/10/io", &pf), 0);
	assert_int_equal(treewrite_copy(&r, t->dfd, "proc/stat", &pf), 0);
	procfile_free(&pf);
	root_close(&r);
	assert_int_equal(fstatat(t->dfd, "proc/10/io", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(fstatat(t->dfd, "proc/stat", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_openat_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_top, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_mode, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
