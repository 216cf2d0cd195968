// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * treewrite: writing captured trees (not the flight recorder's recordings:
 * those are rec_*.c). capture runs as root to read root-only files, and
 * DIR, or a tree under --root that apply rewrites, may hold what another
 * user planted: so a path is walked one component at a time with
 * O_NOFOLLOW under a directory fd opened once, "." and ".." are refused,
 * and a file is created with O_EXCL after unlinking whatever name was
 * there, never opened through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "treewrite.h"
#include "root.h"

static bool name_ok(const char *c)
{
	return *c && strcmp(c, ".") != 0 && strcmp(c, "..") != 0;
}

/* Opens the directory path (modified in place; "" is dfd itself) under dfd,
 * one O_NOFOLLOW step at a time. Returns an fd or -errno. */
static int walk(int dfd, char *path, bool create)
{
	char *p = path;
	int cur, e;

	cur = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	if (cur < 0)
		return -errno;
	if (!*p)
		return cur;
	for (;;) {
		char *slash = strchr(p, '/');
		int next;

		if (slash)
			*slash = '\0';
		if (!name_ok(p)) {
			close(cur);
			return -EINVAL;
		}
		if (create && mkdirat(cur, p, 0755) < 0 && errno != EEXIST) {
			e = -errno;
			close(cur);
			return e;
		}
		next = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = -errno;
		close(cur);
		if (next < 0)
			return e;
		cur = next;
		if (!slash)
			break;
		p = slash + 1;
	}
	return cur;
}

/* Splits rel into its directory (in buf) and last name; -errno on a bad rel. */
static int split(const char *rel, char *buf, size_t size, const char **ret_base)
{
	size_t len = strlen(rel);
	char *slash;

	if (len >= size)
		return -ENAMETOOLONG;
	if (rel[0] == '/')
		return -EINVAL;
	memcpy(buf, rel, len + 1);
	slash = strrchr(buf, '/');
	if (!slash) {
		*ret_base = rel;
		buf[0] = '\0';
	} else {
		*slash = '\0';
		*ret_base = rel + (slash - buf) + 1;
	}
	return name_ok(*ret_base) ? 0 : -EINVAL;
}

int treewrite_open_dir(int dfd, const char *rel, int create)
{
	char path[PATH_MAX];
	size_t len = strlen(rel);

	if (len >= sizeof(path))
		return -ENAMETOOLONG;
	if (rel[0] == '/')
		return -EINVAL;
	memcpy(path, rel, len + 1);
	return walk(dfd, path, create != 0);
}

int treewrite_open_regular(int dfd, const char *name, int flags, struct stat *ret_st)
{
	struct stat st;
	int pfd, fd, e;

	pfd = openat(dfd, name, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW));
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0) {
		e = -errno;
		close(pfd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		return S_ISLNK(st.st_mode) ? -ELOOP : -EXDEV;
	}
	fd = root_reopen(pfd, (flags & ~(O_CREAT | O_EXCL)) | O_NONBLOCK);
	close(pfd);
	if (fd >= 0 && ret_st)
		*ret_st = st;
	return fd;
}

/* The directory rel's last name is in, below dfd (made when create), its
 * path in dir (PATH_MAX bytes) and *ret_base that name: its fd or -errno */
static int parent(int dfd, const char *rel, bool create, char *dir, const char **ret_base)
{
	int e = split(rel, dir, PATH_MAX, ret_base);

	return e < 0 ? e : walk(dfd, dir, create);
}

int treewrite_openat(int dfd, const char *rel, int flags)
{
	char dir[PATH_MAX];
	const char *base;
	int d, fd;

	d = parent(dfd, rel, false, dir, &base);
	if (d < 0)
		return d;
	/* looked at before it is opened: a FIFO's open would wait, a device
	 * node's is its driver's (a planted /dev/watchdog node arms it) */
	fd = treewrite_open_regular(d, base, flags | O_NOFOLLOW, NULL);
	close(d);
	return fd;
}

int treewrite_create(int dfd, const char *rel, mode_t mode)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	char dir[PATH_MAX];
	const char *base;
	int d, fd, e;

	d = parent(dfd, rel, true, dir, &base);
	if (d < 0)
		return d;
	fd = openat(d, base, flags, mode);
	/* written earlier in this run, or planted: the name goes, not its target */
	if (fd < 0 && errno == EEXIST) {
		if (unlinkat(d, base, 0) == 0 || errno == ENOENT)
			fd = openat(d, base, flags, mode);
		else
			errno = EEXIST;
	}
	e = -errno;
	close(d);
	return fd < 0 ? e : fd;
}

int treewrite_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int treewrite_write(int dfd, const char *rel, const void *buf, size_t len)
{
	return treewrite_write_mode(dfd, rel, buf, len, 0644);
}

int treewrite_write_mode(int dfd, const char *rel, const void *buf, size_t len, mode_t mode)
{
	int fd, e;

	fd = treewrite_create(dfd, rel, mode);
	if (fd < 0)
		return fd;
	e = treewrite_write_all(fd, buf, len);
	if (close(fd) < 0 && !e)
		e = -errno;
	return e;
}

mode_t treewrite_copy_mode(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && (st.st_mode & S_IROTH) ? 0644 : 0600;
}

int treewrite_copy(const struct root *src, int dfd, const char *rel, struct procfile *pf)
{
	mode_t mode;
	int e;

	pf->rel = rel;
	e = procfile_read(pf, src);
	mode = e >= 0 ? treewrite_copy_mode(pf->fd) : 0600;
	procfile_close(pf);
	if (e < 0)
		return e;
	return treewrite_write_mode(dfd, rel, pf->buf, pf->len, mode);
}

int treewrite_symlink(int dfd, const char *rel, const char *target)
{
	char dir[PATH_MAX];
	const char *base;
	int d, e;

	d = parent(dfd, rel, true, dir, &base);
	if (d < 0)
		return d;
	e = symlinkat(target, d, base) < 0 ? -errno : 0;
	close(d);
	return e;
}

struct first_name {
	char *buf;
	size_t size;
};

static int copy_first(int dfd, const char *name, unsigned char type, void *ctx)
{
	const struct first_name *f = ctx;

	snprintf(f->buf, f->size, "%s", name);
	return 1;
}

/* 1 when the directory fd holds nothing but "." and "..", 0, or -errno;
 * the first entry found is copied to ret_name. */
static int dir_empty(int fd, char *ret_name, size_t size)
{
	struct first_name f = { ret_name, size };
	int own, r;

	own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (own < 0)
		return -errno;
	r = root_for_each_entry_fd(own, copy_first, &f);
	return r < 0 ? r : r == 0;
}

int treewrite_open_top(const char *dir, char *why, size_t why_size)
{
	char path[PATH_MAX], first[256]; /* a d_name: 255 bytes + NUL */
	size_t len = strlen(dir);
	struct stat st;
	int fd, e;

	if (len == 0 || len >= sizeof(path)) {
		e = len ? -ENAMETOOLONG : -ENOENT;
		snprintf(why, why_size, "%s", strerror(-e));
		return e;
	}
	/* "DIR/" would resolve a symlink DIR despite O_NOFOLLOW */
	memcpy(path, dir, len + 1);
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	/* an existing regular file passes mkdir (EEXIST) and fails the open (ENOTDIR) */
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		e = -errno;
		snprintf(why, why_size, "%s", strerror(-e));
		return e;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = -errno;
		/* O_DIRECTORY wins over O_NOFOLLOW: a symlink is -ENOTDIR here */
		if ((e == -ELOOP || e == -ENOTDIR) && lstat(path, &st) == 0 &&
		    S_ISLNK(st.st_mode)) {
			e = -ELOOP;
			snprintf(why, why_size,
				 "a symbolic link: capture writes only into a directory itself; "
				 "name a new directory (or the link's target)");
			return e;
		}
		snprintf(why, why_size, "%s", strerror(-e));
		return e;
	}
	if (fstat(fd, &st) < 0) {
		e = -errno;
		snprintf(why, why_size, "%s", strerror(-e));
		close(fd);
		return e;
	}
	/* someone else's directory: its owner could plant links while we write */
	if (st.st_uid != geteuid()) {
		snprintf(why, why_size,
			 "owned by uid %u, not by you (uid %u): capture writes only into a new "
			 "directory or an empty one of yours; name a new directory",
			 (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	e = dir_empty(fd, first, sizeof(first));
	if (e <= 0) {
		if (e == 0) {
			e = -ENOTEMPTY;
			snprintf(why, why_size,
				 "not empty (holds '%.64s'): capture writes only into a new or "
				 "empty directory; name a new directory or empty this one",
				 first);
		} else {
			snprintf(why, why_size, "%s", strerror(-e));
		}
		close(fd);
		return e;
	}
	return fd;
}

/*
 * Whether the directory fd (shown as shown) may hold or lead to the
 * private directory: owned by root or the caller; the directory itself
 * (final) 0700, one on the way writable by no one else unless sticky
 * (/tmp). Anyone else who can write there could plant files that we read
 * back as root, or swap the directory. 0 or -EPERM with why.
 */
static int private_dir_check(int fd, const char *shown, bool final,
			     const struct treewrite_dir_words *w, char *why, size_t size)
{
	const char *me = geteuid() == 0 ? "root:root" : "$(id -un)";
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int e = -errno;

		snprintf(why, size, "%s: %s", shown, strerror(-e));
		return e;
	}
	if (final && ((st.st_mode & 077) || (st.st_uid != 0 && st.st_uid != geteuid()))) {
		snprintf(why, size,
			 "%s is mode %04o, owner uid %u: %s directory must be "
			 "0700 and owned by root (or you), %s: chown %s %s && chmod 0700 %s",
			 shown, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, w->what,
			 w->risk, me, shown, shown);
		return -EPERM;
	}
	if (!final && ((st.st_uid != 0 && st.st_uid != geteuid()) ||
		       ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))) {
		snprintf(why, size,
			 "%s (on the way to %s) is mode %04o, owner uid %u: "
			 "whoever else owns or can write it can swap %s directory; "
			 "fix: chown %s %s && chmod go-w %s, or use %s elsewhere",
			 shown, w->what, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
			 w->what, me, shown, shown, w->option);
		return -EPERM;
	}
	return 0;
}

/* True when s (the rest of a path) names a step other than "" or ".". */
static bool more_steps(const char *s)
{
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n && !(n == 1 && s[0] == '.'))
			return true;
		s += n;
		while (*s == '/')
			s++;
	}
	return false;
}

int treewrite_private_dir(int start_fd, const char *start_shown, const char *rel_in,
			  const struct treewrite_dir_words *w, char *why, size_t why_size)
{
	char rel[4096], shown[4096];
	bool final_done = false;
	char *p, *next;
	size_t slen;
	int cur, e;

	if (strlen(rel_in) >= sizeof(rel)) {
		snprintf(why, why_size, "%.64s...: %s", rel_in, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(rel, sizeof(rel), "%s", rel_in);
	snprintf(shown, sizeof(shown), "%s", start_shown);
	cur = fcntl(start_fd, F_DUPFD_CLOEXEC, 3);
	if (cur < 0) {
		e = -errno;
		snprintf(why, why_size, "%s: %s", shown, strerror(-e));
		return e;
	}
	e = private_dir_check(cur, shown, false, w, why, why_size);
	if (e < 0)
		goto fail;
	if (strcmp(shown, ".") == 0)
		shown[0] = '\0'; /* "state", not "./state" */
	/* one step at a time, no symlink followed: mkdir -p, the last one 0700 */
	for (p = rel; *p; p = next) {
		bool last;
		int fd;

		while (*p == '/')
			p++;
		next = strchr(p, '/');
		next = next ? next : p + strlen(p);
		if (*next)
			*next++ = '\0';
		while (*next == '/')
			next++;
		if (!*p || strcmp(p, ".") == 0)
			continue;
		last = !more_steps(next);
		slen = strlen(shown);
		snprintf(shown + slen, sizeof(shown) - slen, "%s%s",
			 slen && shown[slen - 1] != '/' ? "/" : "", p);
		if (strcmp(p, "..") == 0) {
			snprintf(why, why_size, "%s: no \"..\" in %s's path: name it directly",
				 shown, w->what);
			e = -EINVAL;
			goto fail;
		}
		if (mkdirat(cur, p, last ? 0700 : 0755) < 0 && errno != EEXIST) {
			e = -errno;
			snprintf(why, why_size, "%s: %s", shown, strerror(-e));
			goto fail;
		}
		fd = openat(cur, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			struct stat st;

			e = -errno;
			if (fstatat(cur, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
				snprintf(why, why_size,
					 "%s is a symbolic link: %s's path follows "
					 "none; name the real directory (realpath)",
					 shown, w->what);
				e = -ELOOP;
			} else {
				snprintf(why, why_size, "%s: %s", shown, strerror(-e));
			}
			goto fail;
		}
		close(cur);
		cur = fd;
		e = private_dir_check(cur, shown, last, w, why, why_size);
		if (e < 0)
			goto fail;
		final_done = last;
	}
	/* "/" or "." named as the directory itself */
	if (!final_done) {
		e = private_dir_check(cur, shown[0] ? shown : ".", true, w, why, why_size);
		if (e < 0)
			goto fail;
	}
	return cur;
fail:
	close(cur);
	return e;
}
