/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The only module that knows host paths start at "/": every read of /proc,
 * /sys or /dev goes through a root directory fd (--root DIR, default "/").
 * A recorded tree is untrusted input: its symlinks resolve inside it and
 * only regular files (or directories) are opened from it (doc/trees.md).
 */
#ifndef IOTRIAGE_ROOT_H
#define IOTRIAGE_ROOT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What root_openat() returns for a FIFO, socket or device where a file is
 * expected; an errno no open() of a regular file gives, so it can be named. */
#define ROOT_ENOTREG EMEDIUMTYPE

/*
 * The most one /proc, /sys or recorded file may hold (procfile_read):
 * /proc/interrupts is the biggest. On a 1024-CPU host each line is a label,
 * 1024 counters of "%10u " (11 bytes) and ~70 bytes of chip and action
 * names: 11.3 kB; 4000 lines (NVMe and NIC queues per CPU) are 45 MB. 64 MiB
 * leaves room for ~5900 such lines and keeps a hostile tree's cost bounded.
 */
#define ROOT_FILE_MAX ((size_t)64 << 20)

struct root {
	int dirfd;
	bool host;	 /* the host's own "/" (same st_dev, st_ino): trusted */
	bool no_openat2; /* resolve a tree without openat2 (kernel < 5.6, or tests) */
	char path[4096];
};

/* Opens DIR (NULL or "" means "/"). Returns 0 or -errno; *ret_root untouched on failure. */
int root_open(const char *dir, struct root *ret_root);
void root_close(struct root *r);

/*
 * Opens rel (leading '/' ignored) relative to the root, with O_CLOEXEC,
 * O_NONBLOCK (a FIFO never blocks the open) and O_NOCTTY added. Returns an
 * fd or -errno. With O_DIRECTORY in flags the result is a directory;
 * without, it must be a regular file (procfs and sysfs files are) or the
 * result is -ROOT_ENOTREG. Under a tree (not the host's "/") every symlink,
 * absolute or with "..", resolves inside the tree (openat2 RESOLVE_IN_ROOT)
 * and procfs magic links are refused; without openat2 a path that leads
 * outside the tree is refused with -EXDEV.
 */
int root_openat(const struct root *r, const char *rel, int flags);

/* Opens the inode an O_PATH handle holds (pfd, left open), through
 * /proc/self/fd, with flags (O_NOFOLLOW dropped: the link there is the
 * kernel's). The way to open a file only after looking at it: the handle
 * opens nothing (no FIFO wait, no device driver's open), its fstat says
 * what it is, and this opens that very inode. An fd or -errno. */
int root_reopen(int pfd, int flags);

/* As root_openat() but of any type on the host (/dev/cpu/N/msr, /dev/NAME
 * are devices there); under a tree only a regular file or a directory is
 * opened: anything else is -ROOT_ENOTREG before its open runs (a device
 * node's open is its driver's). *ret_st (written on success) tells which. */
int root_openat_stat(const struct root *r, const char *rel, int flags, struct stat *ret_st);

/* readlinkat() of rel under the root, its directories resolved as
 * root_openat() resolves them (a tree's "sys -> /sys" does not lead to the
 * host's links). Returns the length (buf not NUL-terminated) or -errno. */
ssize_t root_readlink(const struct root *r, const char *rel, char *buf, size_t size);

/* Reads a small sysfs/proc file into buf (NUL-terminated, trailing newline
 * stripped). Returns the length or -errno. */
int root_read_small(const struct root *r, const char *rel, char *buf, size_t size);

/*
 * What root_for_each_entry() calls for each entry of a directory but "." and
 * "..": dfd is the directory (for *at calls on name), type readdir's d_type
 * (DT_UNKNOWN where the file system does not fill it in; a symlink is DT_LNK,
 * never the type of what it points to). A non-zero return stops the walk and
 * becomes its return: < 0 an error, > 0 "enough" (a table is full).
 */
typedef int (*root_entry_fn)(int dfd, const char *name, unsigned char type, void *ctx);

/*
 * Calls fn for each entry of the directory rel under the root, opened as
 * root_openat(rel, O_RDONLY | O_DIRECTORY) opens it (a tree's symlinks
 * resolve inside the tree), in readdir's order. Nothing is descended into.
 * Returns 0, fn's first non-zero return, or -errno of the open.
 */
int root_for_each_entry(const struct root *r, const char *rel, root_entry_fn fn, void *ctx);

/* The same over the directory fd dfd, which it consumes (closed in every
 * case): for a directory already opened, as by a walk down a tree. */
int root_for_each_entry_fd(int dfd, root_entry_fn fn, void *ctx);

/* Host-visible form of rel for messages: "/proc/stat" or "ROOT/proc/stat". */
void root_display(const struct root *r, const char *rel, char *buf, size_t size);

/* strerror() that names this module's refusals ("not a regular file",
 * the ROOT_FILE_MAX cap, a symlink leading out of the tree); never NULL. */
const char *root_strerror(int err);

#endif
