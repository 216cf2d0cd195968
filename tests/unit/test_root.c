// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * root.c and procfile.c against hostile recorded trees built in a temporary
 * directory: FIFOs, device nodes and directories where a file belongs,
 * symlinks leading out of the tree (with openat2 and with the fallback that
 * older kernels get), files over the size cap; msr_open on a FIFO; the
 * directory walk (root_for_each_entry).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "msr.h"
#include "procfile.h"
#include "root.h"
#include "tree_util.h"

struct tree {
	char dir[64];
	char outside[80]; /* a secret next to the tree, never to be read */
	struct root r;
};

static void fifo_in(const struct tree *t, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", t->dir, rel);
	assert_int_equal(mkfifo(p, 0600), 0);
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	tree_new(t->dir, sizeof(t->dir), "root");
	snprintf(t->outside, sizeof(t->outside), "%s-secret", t->dir);
	tree_put("/", t->outside, "secret\n");
	tree_mkdirs(t->dir, "proc");
	tree_mkdirs(t->dir, "sys/x");
	tree_mkdirs(t->dir, "dev/cpu/0");
	tree_put(t->dir, "proc/uptime", "1.00 2.00\n");
	tree_put(t->dir, "sys/x/real", "42\n");
	fifo_in(t, "proc/stat");
	assert_int_equal(root_open(t->dir, &t->r), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	root_close(&t->r);
	tree_remove(t->dir);
	tree_remove(t->outside);
	free(t);
	return 0;
}

static void link_in(const struct tree *t, const char *target, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", t->dir, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

/* A FIFO, a directory or a device where a file belongs: refused at once. */
static void test_not_regular(void **state)
{
	struct tree *t = *state;
	char p[256];
	int fd;

	assert_false(t->r.host);
	assert_int_equal(root_openat(&t->r, "proc/stat", O_RDONLY), -ROOT_ENOTREG);
	assert_int_equal(root_openat(&t->r, "/proc", O_RDONLY), -ROOT_ENOTREG);
	fd = root_openat(&t->r, "proc", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	close(fd);
	fd = root_openat(&t->r, "proc/uptime", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/proc/interrupts", t->dir);
	if (mknod(p, S_IFCHR | 0600, makedev(1, 5)) == 0) /* /dev/zero's numbers */
		assert_int_equal(root_openat(&t->r, "proc/interrupts", O_RDONLY), -ROOT_ENOTREG);
	else
		print_message("mknod refused (%s): device case not run\n", strerror(errno));
	assert_string_equal(root_strerror(-ROOT_ENOTREG),
			    "not a regular file (a FIFO, socket or device where a file belongs)");
}

/* Symlinks resolve inside the tree with openat2: "/" and ".." stop at its top. */
static void test_symlinks_in_root(void **state)
{
	struct tree *t = *state;
	char esc[128], buf[16];

	link_in(t, t->outside, "proc/abs");
	snprintf(esc, sizeof(esc), "../../../../../../..%s", t->outside);
	link_in(t, esc, "proc/rel");
	link_in(t, "../sys/x/real", "proc/inside");
	link_in(t, "/sys/x/real", "proc/inside-abs");
	assert_int_equal(root_openat(&t->r, "proc/abs", O_RDONLY), -ENOENT);
	assert_int_equal(root_openat(&t->r, "proc/rel", O_RDONLY), -ENOENT);
	assert_int_equal(root_read_small(&t->r, "proc/inside", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "42");
	/* an absolute link means the tree's own /sys, as it did on its host */
	assert_int_equal(root_read_small(&t->r, "proc/inside-abs", buf, sizeof(buf)), 2);
	/* procfs magic links lead anywhere: refused */
	link_in(t, "/proc/self/root/etc/passwd", "proc/magic");
	assert_true(root_openat(&t->r, "proc/magic", O_RDONLY) < 0);
}

/* Without openat2 (kernel < 5.6): links that leave the tree are refused. */
static void test_symlinks_fallback(void **state)
{
	struct tree *t = *state;
	struct root r = t->r;
	char esc[128], buf[16];
	int fd;

	r.no_openat2 = true;
	link_in(t, t->outside, "proc/abs");
	snprintf(esc, sizeof(esc), "../../../../../../..%s", t->outside);
	link_in(t, esc, "proc/rel");
	link_in(t, "../sys/x/real", "proc/inside");
	assert_int_equal(root_openat(&r, "proc/abs", O_RDONLY), -EXDEV);
	assert_int_equal(root_openat(&r, "proc/rel", O_RDONLY), -EXDEV);
	assert_int_equal(root_openat(&r, "../../../../..//etc/passwd", O_RDONLY), -EXDEV);
	assert_int_equal(root_read_small(&r, "proc/inside", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "42");
	assert_int_equal(root_openat(&r, "proc/stat", O_RDONLY), -ROOT_ENOTREG);
	fd = root_openat(&r, "sys", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	close(fd);
	assert_string_equal(root_strerror(-EXDEV), "a symlink leads outside the tree");
}

/*
 * A device node in a tree is refused before its open runs (a tree's
 * proc/interrupts may be /dev/watchdog's node: its open arms the
 * watchdog): a node of a major no driver holds, which would answer an
 * open with ENXIO, comes back "not a regular file", with and without
 * openat2, through every way in (root_openat, root_openat_stat, procfile).
 */
static void test_device_never_opened(void **state)
{
	struct tree *t = *state;
	unsigned major_free = tree_free_char_major();
	struct procfile pf;
	struct root r = t->r;
	struct stat st;
	char p[256];

	snprintf(p, sizeof(p), "%s/proc/interrupts", t->dir);
	if (!major_free || mknod(p, S_IFCHR | 0600, makedev(major_free, 0)) < 0) {
		print_message("no free char major or mknod refused (%s): not run\n",
			      strerror(errno));
		return;
	}
	for (int fallback = 0; fallback < 2; fallback++) {
		r.no_openat2 = fallback;
		assert_int_equal(root_openat(&r, "proc/interrupts", O_RDONLY), -ROOT_ENOTREG);
		assert_int_equal(root_openat_stat(&r, "proc/interrupts", O_RDONLY, &st),
				 -ROOT_ENOTREG);
		procfile_init(&pf, "proc/interrupts");
		assert_int_equal(procfile_read(&pf, &r), -ROOT_ENOTREG);
		procfile_free(&pf);
	}
}

/* Links are read with their directories resolved inside the tree: a
 * tree's "esc -> /somewhere" does not show the host's links there. */
static void test_readlink(void **state)
{
	struct tree *t = *state;
	char out[96], l[128], buf[64];
	struct root r = t->r;
	ssize_t n;

	snprintf(out, sizeof(out), "%s.d", t->outside);
	tree_mkdirs(out, "");
	snprintf(l, sizeof(l), "%s/l", out);
	assert_int_equal(symlink("leak", l), 0);
	link_in(t, out, "esc");
	link_in(t, "../real", "sys/x/lnk");
	link_in(t, "top-target", "toplink");
	for (int fallback = 0; fallback < 2; fallback++) {
		r.no_openat2 = fallback;
		n = root_readlink(&r, "esc/l", buf, sizeof(buf));
		assert_int_equal(n, fallback ? -EXDEV : -ENOENT);
		n = root_readlink(&r, "/sys/x/lnk", buf, sizeof(buf) - 1);
		assert_int_equal(n, 7);
		buf[n] = '\0';
		assert_string_equal(buf, "../real");
		n = root_readlink(&r, "toplink", buf, sizeof(buf) - 1);
		assert_int_equal(n, 10);
		assert_int_equal(root_readlink(&r, "sys/x/real", buf, sizeof(buf)), -EINVAL);
	}
	tree_remove(out);
}

/* The host's "/" by any name is the host: no containment, no openat2. */
static void test_host(void **state)
{
	struct root r;

	(void)state;
	assert_int_equal(root_open("//", &r), 0);
	assert_true(r.host);
	root_close(&r);
}

/* procfile refuses a recorded file over the cap before reading it, and a
 * procfs-like file (size 0 in fstat) that grows past it while read. */
static void test_procfile_cap(void **state)
{
	struct tree *t = *state;
	struct procfile pf;
	char *big;

	big = malloc(100);
	assert_non_null(big);
	memset(big, 'x', 99);
	big[99] = '\0';
	tree_put(t->dir, "proc/interrupts", big);
	procfile_init(&pf, "proc/interrupts");
	assert_int_equal(pf.max, ROOT_FILE_MAX);
	pf.max = 98;
	assert_int_equal(procfile_read(&pf, &t->r), -EFBIG);
	assert_int_equal(pf.fd, -1);
	pf.max = 99; /* exactly the cap is fine */
	assert_int_equal(procfile_read(&pf, &t->r), 99);
	assert_int_equal(pf.len, 99);
	assert_true(pf.cap <= 101);
	procfile_free(&pf);
	procfile_init(&pf, "proc/stat");
	assert_int_equal(procfile_read(&pf, &t->r), -ROOT_ENOTREG);
	procfile_free(&pf);
	free(big);
	assert_string_equal(root_strerror(-EFBIG), "larger than 64 MiB, the limit for one file");
}

/* /proc/PID/cmdline-like file that grows between fstat and EOF: /dev/zero
 * read through the host root stands in for it (size 0, endless). */
static void test_procfile_endless(void **state)
{
	struct procfile pf;
	struct root r;
	int fd;

	(void)state;
	/* only through a tree's character device would the type check stop
	 * it; read the endless stream directly to test the read loop's cap */
	assert_int_equal(root_open("/", &r), 0);
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		root_close(&r);
		skip();
	}
	procfile_init(&pf, "dev/zero");
	pf.fd = fd;
	pf.max = 1 << 20;
	assert_int_equal(procfile_read(&pf, &r), -EFBIG);
	assert_int_equal(pf.fd, -1);
	assert_true(pf.cap <= (1u << 20) + 2);
	procfile_free(&pf);
	root_close(&r);
}

/* A FIFO as a recorded msr file: refused, never waited on. */
static void test_msr_fifo(void **state)
{
	struct tree *t = *state;
	struct msr_dev d;
	char p[256];

	fifo_in(t, "dev/cpu/0/msr");
	/* refused by the root before anything opens it */
	assert_int_equal(msr_open(&t->r, 0, &d), -ROOT_ENOTREG);
	snprintf(p, sizeof(p), "%s/dev/cpu/0/msr", t->dir);
	assert_int_equal(unlink(p), 0);
	tree_put(t->dir, "dev/cpu/0/msr", "");
	assert_int_equal(msr_open(&t->r, 0, &d), 0);
	assert_true(d.is_file);
	msr_close(&d);
}

struct seen {
	char names[8][16];
	unsigned char types[8];
	int n;
	int stop_at; /* the call (1-based) that returns stop_ret; 0: none */
	int stop_ret;
};

static int note(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct seen *s = ctx;
	struct stat st;

	assert_true(s->n < 8);
	/* dfd is the walked directory: name resolves against it */
	assert_int_equal(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->types[s->n] = type;
	s->n++;
	return s->n == s->stop_at ? s->stop_ret : 0;
}

/* Index of name among what the walk saw, -1 if absent. */
static int seen_at(const struct seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return i;
	return -1;
}

/* root_for_each_entry: every entry but "." and "..", hidden ones too;
 * nothing descended into, a symlinked directory is an entry (DT_LNK) and
 * not a way in; a walk through a link that leaves the tree is refused. */
static void test_for_each_entry(void **state)
{
	struct tree *t = *state;
	struct seen s = { 0 };
	char out[96];
	struct root r = t->r;
	int i;

	snprintf(out, sizeof(out), "%s.walk", t->outside);
	tree_put(t->dir, "w/f", "");
	tree_put(t->dir, "w/.h", "");
	tree_put(t->dir, "w/d/inner", "");
	tree_put(out, "leak", "");
	link_in(t, "d", "w/ld");
	assert_int_equal(root_for_each_entry(&t->r, "w", note, &s), 0);
	assert_int_equal(s.n, 4);
	assert_true(seen_at(&s, "f") >= 0 && seen_at(&s, ".h") >= 0 && seen_at(&s, "d") >= 0);
	assert_int_equal(seen_at(&s, "."), -1);
	assert_int_equal(seen_at(&s, ".."), -1);
	assert_int_equal(seen_at(&s, "inner"), -1);
	i = seen_at(&s, "ld");
	assert_true(i >= 0);
	assert_true(s.types[i] == DT_LNK || s.types[i] == DT_UNKNOWN);

	/* an inside link to a directory is walked as the tree's own */
	link_in(t, "/w/d", "in");
	memset(&s, 0, sizeof(s));
	assert_int_equal(root_for_each_entry(&t->r, "in", note, &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.names[0], "inner");
	/* a link out of the tree is not followed, with or without openat2 */
	link_in(t, out, "out");
	for (int fallback = 0; fallback < 2; fallback++) {
		r.no_openat2 = fallback;
		memset(&s, 0, sizeof(s));
		assert_int_equal(root_for_each_entry(&r, "out", note, &s),
				 fallback ? -EXDEV : -ENOENT);
		assert_int_equal(s.n, 0);
	}
	assert_int_equal(root_for_each_entry(&t->r, "w/f", note, &s), -ENOTDIR);
	assert_int_equal(root_for_each_entry(&t->r, "none", note, &s), -ENOENT);

	/* a non-zero return stops the walk and is its return */
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	s.stop_ret = 7;
	assert_int_equal(root_for_each_entry(&t->r, "w", note, &s), 7);
	assert_int_equal(s.n, 2);
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	s.stop_ret = -EIO;
	assert_int_equal(root_for_each_entry(&t->r, "w", note, &s), -EIO);
	assert_int_equal(s.n, 1);
	tree_remove(out);
}

/* root_for_each_entry_fd consumes its fd, on success and on failure. */
static void test_for_each_entry_fd(void **state)
{
	struct tree *t = *state;
	struct seen s = { 0 };
	int fd;

	fd = root_openat(&t->r, "sys", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(root_for_each_entry_fd(fd, note, &s), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.names[0], "x");
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	fd = root_openat(&t->r, "proc/uptime", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(root_for_each_entry_fd(fd, note, &s), -ENOTDIR);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_never_opened, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_in_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readlink, setup, teardown),
		cmocka_unit_test(test_host),
		cmocka_unit_test_setup_teardown(test_procfile_cap, setup, teardown),
		cmocka_unit_test(test_procfile_endless),
		cmocka_unit_test_setup_teardown(test_msr_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_for_each_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_for_each_entry_fd, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
