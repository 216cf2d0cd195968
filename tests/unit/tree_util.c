// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Temporary trees for the unit tests (tree_util.h): the mkdir -p, write,
 * read-back and rm -rf that each test file had written for itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tree_util.h"

void tree_new(char *buf, size_t size, const char *name)
{
	assert_true((size_t)snprintf(buf, size, "/tmp/iotr-%s-XXXXXX", name) < size);
	assert_non_null(mkdtemp(buf));
}

/* mkdir of path's first len bytes; one already there is fine. */
static void mkdir_prefix(const char *path, size_t len)
{
	char dir[4096];

	assert_true(len < sizeof(dir));
	memcpy(dir, path, len);
	dir[len] = '\0';
	assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
}

/* Path DIR/REL into buf. */
static void join(char *buf, size_t size, const char *dir, const char *rel)
{
	assert_true((size_t)snprintf(buf, size, "%s/%s", dir, rel) < size);
}

/* mkdir -p of every directory before path's last '/'. */
static void mkdir_parents(const char *path)
{
	for (const char *p = path + 1; *p; p++)
		if (*p == '/')
			mkdir_prefix(path, (size_t)(p - path));
}

void tree_mkdirs(const char *dir, const char *rel)
{
	char path[4096];

	join(path, sizeof(path), dir, rel);
	mkdir_parents(path);
	mkdir_prefix(path, strlen(path));
}

void tree_put_bytes(const char *dir, const char *rel, const void *buf, size_t len)
{
	char path[4096];
	int fd;

	join(path, sizeof(path), dir, rel);
	mkdir_parents(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

void tree_put(const char *dir, const char *rel, const char *text)
{
	tree_put_bytes(dir, rel, text, strlen(text));
}

size_t tree_slurp(const char *path, void *buf, size_t size)
{
	char *p = buf, extra;
	size_t len = 0;
	ssize_t n;
	int fd;

	assert_true(size > 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	while (len < size - 1 && (n = read(fd, p + len, size - 1 - len)) > 0)
		len += (size_t)n;
	assert_int_equal(read(fd, &extra, 1), 0); /* all of it fitted */
	close(fd);
	p[len] = '\0';
	return len;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void tree_remove(const char *dir)
{
	assert_int_equal(nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

unsigned tree_free_char_major(void)
{
	static const unsigned cand[] = { 60, 61, 62, 63, 120, 121, 122, 123, 124, 125, 126, 127 };
	char line[128];

	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		FILE *f = fopen("/proc/devices", "r");
		bool taken = false, chr = false;

		if (!f)
			return 0;
		while (fgets(line, sizeof(line), f)) {
			unsigned m;

			if (strncmp(line, "Character", 9) == 0)
				chr = true;
			else if (strncmp(line, "Block", 5) == 0)
				chr = false;
			else if (chr && sscanf(line, "%u", &m) == 1 && m == cand[i])
				taken = true;
		}
		fclose(f);
		if (!taken)
			return cand[i];
	}
	return 0;
}
