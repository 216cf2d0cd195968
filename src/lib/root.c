// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --root resolution. Everything under the root is opened with openat() on a
 * directory fd, so a recorded tree and the live host take the same path. A
 * tree is someone else's bytes: it may hold FIFOs (an open that never
 * returns), device nodes, symlinks to /etc/shadow or /dev/zero. Only what
 * resolves inside it, and only regular files, are opened from it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "root.h"

int root_open(const char *dir, struct root *ret_root)
{
	struct stat st, host;
	struct root r = { 0 };

	if (!dir || !*dir)
		dir = "/";
	if (strlen(dir) >= sizeof(r.path))
		return -ENAMETOOLONG;
	r.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r.dirfd < 0)
		return -errno;
	/* "/", "/.." or "//" alike: the host itself, by identity not by name */
	if (fstat(r.dirfd, &st) < 0 || stat("/", &host) < 0) {
		int e = -errno;

		close(r.dirfd);
		return e;
	}
	r.host = st.st_dev == host.st_dev && st.st_ino == host.st_ino;
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

/* The path of fd as the kernel names it, from /proc/self/fd. */
static int fd_path(int fd, char *buf, size_t size)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, size - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

/*
 * An O_PATH handle of rel under the tree: it opens nothing (no FIFO wait, no
 * driver's open of a device node). With openat2, "/" and ".." stop at the
 * tree's top as in a chroot and magic links (/proc/PID/fd/N, exe, root)
 * are refused. Without it (old kernel, seccomp): symlinks are followed as
 * on the host and the kernel's name for the result must lie under the
 * tree's, so one leading outside is refused rather than re-rooted.
 */
static int path_in_tree(const struct root *r, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(O_PATH | O_CLOEXEC | (flags & (O_NOFOLLOW | O_DIRECTORY))),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char top[4096], got[4096];
	size_t n;
	int pfd, e;

	if (!r->no_openat2) {
		pfd = (int)syscall(SYS_openat2, r->dirfd, rel, &how, sizeof(how));
		if (pfd >= 0)
			return pfd;
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
	}
	pfd = openat(r->dirfd, rel, (int)how.flags);
	if (pfd < 0)
		return -errno;
	e = fd_path(r->dirfd, top, sizeof(top));
	if (e >= 0)
		e = fd_path(pfd, got, sizeof(got));
	n = strlen(top);
	/* the tree "/x" holds "/x/..." only, not "/xy"; " (deleted)" is not inside */
	if (e >= 0 && (strncmp(got, top, n) != 0 || (got[n] != '/' && got[n] != '\0' && n > 1)))
		e = -EXDEV;
	if (e < 0) {
		close(pfd);
		return e;
	}
	return pfd;
}

int root_reopen(int pfd, int flags)
{
	char link[32];
	int fd;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", pfd);
	fd = open(link, (flags & ~O_NOFOLLOW) | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Under a tree: looks before it opens. Only a regular file or a directory
 * is opened (through /proc/self/fd, the very inode looked at); a FIFO,
 * socket or device node is -ROOT_ENOTREG without its open ever running: a
 * tree's "proc/interrupts" may be /dev/watchdog's node, whose open arms
 * the watchdog.
 */
static int open_in_tree(const struct root *r, const char *rel, int flags, struct stat *ret_st)
{
	int pfd, fd;

	pfd = path_in_tree(r, rel, flags);
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, ret_st) < 0) {
		fd = -errno;
	} else if (!S_ISREG(ret_st->st_mode) && !S_ISDIR(ret_st->st_mode)) {
		fd = -ROOT_ENOTREG;
	} else {
		fd = root_reopen(pfd, flags);
	}
	close(pfd);
	return fd;
}

int root_openat_stat(const struct root *r, const char *rel, int flags, struct stat *ret_st)
{
	struct stat st;
	int fd;

	while (*rel == '/')
		rel++;
	flags |= O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	if (!r->host)
		return open_in_tree(r, rel, flags, ret_st);
	fd = openat(r->dirfd, rel, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*ret_st = st;
	return fd;
}

int root_openat(const struct root *r, const char *rel, int flags)
{
	struct stat st;
	int fd;

	fd = root_openat_stat(r, rel, flags, &st);
	if (fd < 0)
		return fd;
	if (!(flags & O_DIRECTORY) && !S_ISREG(st.st_mode)) {
		close(fd);
		return -ROOT_ENOTREG;
	}
	return fd;
}

ssize_t root_readlink(const struct root *r, const char *rel, char *buf, size_t size)
{
	char dir[4096];
	const char *slash;
	ssize_t n;
	int fd;

	while (*rel == '/')
		rel++;
	slash = strrchr(rel, '/');
	if (!slash) {
		n = readlinkat(r->dirfd, rel, buf, size);
		return n < 0 ? -errno : n;
	}
	if ((size_t)(slash - rel) >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, (size_t)(slash - rel));
	dir[slash - rel] = '\0';
	fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	n = readlinkat(fd, slash + 1, buf, size);
	n = n < 0 ? -errno : n;
	close(fd);
	return n;
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

int root_for_each_entry_fd(int dfd, root_entry_fn fn, void *ctx)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = fdopendir(dfd);
	if (!d) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		ret = fn(dirfd(d), de->d_name, de->d_type, ctx);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

int root_for_each_entry(const struct root *r, const char *rel, root_entry_fn fn, void *ctx)
{
	int fd;

	fd = root_openat(r, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	return root_for_each_entry_fd(fd, fn, ctx);
}

void root_display(const struct root *r, const char *rel, char *buf, size_t size)
{
	while (*rel == '/')
		rel++;
	snprintf(buf, size, "%s/%s", r->path, rel);
}

const char *root_strerror(int err)
{
	switch (err) {
	case -ROOT_ENOTREG:
		return "not a regular file (a FIFO, socket or device where a file belongs)";
	case -EFBIG:
		return "larger than 64 MiB, the limit for one file";
	case -EXDEV:
		return "a symlink leads outside the tree";
	case -ELOOP:
		return "too many symlinks, or a procfs magic link";
	default:
		/* -errno only: a recorded number is not trusted to be one */
		return err < -4095 || err > 0 ? "unknown error" : strerror(-err);
	}
}
