/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * treewrite: writing a captured tree (iotriage capture, and the recorded
 * answers apply rewrites under --root). Every path is resolved one
 * component at a time under a directory fd without following a symbolic
 * link, and every file is created anew, so a tree prepared by someone else
 * cannot redirect a write outside it. Never prints.
 */
#ifndef IOTRIAGE_TREEWRITE_H
#define IOTRIAGE_TREEWRITE_H

#include <stddef.h>
#include <sys/types.h>

#include "procfile.h"
#include "root.h"

/*
 * Opens dir as the top of a new recording: created (0755) when absent; an
 * existing one must be a directory itself (not a symbolic link), owned by
 * the caller's effective uid and empty. Returns an fd (O_DIRECTORY,
 * O_CLOEXEC) or -errno with why set: the errno's text ("Not a directory"),
 * or what is wrong and the fix (-ELOOP a symlink, -EPERM another owner,
 * -ENOTEMPTY not empty).
 */
int treewrite_open_top(const char *dir, char *why, size_t why_size);

/*
 * Opens the directory rel under dfd (rel relative, no "." or ".."
 * component), creating each missing component with mode 0755 when create
 * is set. A symbolic link on the way is -ELOOP (or -ENOTDIR), never
 * followed. Returns an fd (O_DIRECTORY, O_CLOEXEC) or -errno.
 */
int treewrite_open_dir(int dfd, const char *rel, int create);

/*
 * Opens name under dfd (AT_FDCWD: a path) with flags (O_RDONLY or O_WRONLY;
 * O_NOFOLLOW: not through a link at its end) only if it is a regular file,
 * looked at first through an O_PATH handle (which opens nothing: no FIFO is
 * waited on, no device driver's open runs), then reopened through
 * /proc/self/fd, the very inode looked at, with O_NONBLOCK. -EXDEV for
 * another type, -ELOOP for a link with O_NOFOLLOW, or -errno; *ret_st (may
 * be NULL) gets its stat.
 */
struct stat;
int treewrite_open_regular(int dfd, const char *name, int flags, struct stat *ret_st);

/*
 * Opens rel under dfd with flags (O_RDONLY or O_WRONLY, no O_CREAT),
 * following no symbolic link on the way or at the end, and only if it is
 * a regular file, looked at before it is opened (no FIFO waited on, no
 * device driver's open run): -EXDEV otherwise, -ELOOP for a link. Returns
 * an fd (O_NONBLOCK) or -errno.
 */
int treewrite_openat(int dfd, const char *rel, int flags);

/*
 * Creates the file rel under dfd (its directories as treewrite_open_dir()
 * does) with mode, write-only. One already there (an earlier write of the
 * same run, or anything planted: a symlink, a hard link) is unlinked first,
 * never opened. Returns an fd (O_CLOEXEC) or -errno.
 */
int treewrite_create(int dfd, const char *rel, mode_t mode);

/* All len bytes of buf to fd, through short writes and EINTR. 0 or -errno
 * (-ENOSPC for a write that takes nothing). */
int treewrite_write_all(int fd, const void *buf, size_t len);

/* treewrite_create() with mode 0644, then len bytes of buf. 0 or -errno. */
int treewrite_write(int dfd, const char *rel, const void *buf, size_t len);
/* The same with mode (treewrite_copy_mode()'s, or 0600 for what only root may ask). */
int treewrite_write_mode(int dfd, const char *rel, const void *buf, size_t len, mode_t mode);
/*
 * The mode a copy of the file open at fd is written with: 0644 when others
 * may read it where it was read, else 0600. A process's /proc/PID/io
 * (0400: its byte counts can time someone's typing), a powercap energy
 * counter (root's since PLATYPUS) or a debugfs file stay root's in a
 * capture, not every local user's.
 */
mode_t treewrite_copy_mode(int fd);

/* Copies the host file rel under src to rel under dfd, read whole through pf
 * (left closed, its buffer kept for the next copy). 0 or -errno (the
 * source's -ENOENT etc. for the caller to judge). */
int treewrite_copy(const struct root *src, int dfd, const char *rel, struct procfile *pf);

/* Creates rel under dfd as a symbolic link holding target (its text only:
 * it is never followed while recording). 0 or -errno. */
int treewrite_symlink(int dfd, const char *rel, const char *target);

/* How treewrite_private_dir() names the directory in its refusals. */
struct treewrite_dir_words {
	const char *what;   /* "the undo journal" */
	const char *risk;   /* what another writer could do, ending before the fix */
	const char *option; /* the option that names another directory */
};

/*
 * Opens (creating it, mode 0700, and its missing parents 0755) a directory
 * that root reads back and must trust (the undo journal, the flight
 * recording): rel walked from start_fd (shown as start_shown in messages;
 * the fd is not consumed), one step at a time with O_NOFOLLOW (a symlink
 * is -ELOOP, ".." -EINVAL); each directory on the way owned by root or the
 * caller and writable by no one else unless sticky, the directory itself
 * owned by root or the caller with mode 0700 (-EPERM). Returns an fd
 * (O_DIRECTORY, O_CLOEXEC) or -errno with why set: the directory at fault,
 * what is wrong and the fix ("chown root:root DIR && chmod 0700 DIR").
 */
int treewrite_private_dir(int start_fd, const char *start_shown, const char *rel,
			  const struct treewrite_dir_words *w, char *why, size_t why_size);

#endif
