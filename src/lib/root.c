// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --root resolution. Everything under the root is opened with openat() on a
 * directory fd, so a recorded tree and the live host take the same path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "root.h"

int root_open(const char *dir, struct root *ret_root)
{
	struct root r;

	if (!dir || !*dir)
		dir = "/";
	if (strlen(dir) >= sizeof(r.path))
		return -ENAMETOOLONG;
	r.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.dirfd < 0)
		return -errno;
	snprintf(r.path, sizeof(r.path), "%s", dir);
	/* "/" + "proc/stat" must not print as "//proc/stat" */
	if (strcmp(r.path, "/") == 0)
		r.path[0] = '\0';
	*ret_root = r;
	return 0;
}

void root_close(struct root *r)
{
	if (!r)
		return;
	if (r->dirfd >= 0)
		close(r->dirfd);
	r->dirfd = -1;
}

int root_openat(const struct root *r, const char *rel, int flags)
{
	int fd;

	while (*rel == '/')
		rel++;
	fd = openat(r->dirfd, rel, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int root_read_small(const struct root *r, const char *rel, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (size == 0)
		return -EINVAL;
	fd = root_openat(r, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

void root_display(const struct root *r, const char *rel, char *buf, size_t size)
{
	while (*rel == '/')
		rel++;
	snprintf(buf, size, "%s/%s", r->path, rel);
}
