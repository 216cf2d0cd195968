/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The only module that knows host paths start at "/": every read of /proc,
 * /sys or /dev goes through a root directory fd (--root DIR, default "/").
 */
#ifndef IOTRIAGE_ROOT_H
#define IOTRIAGE_ROOT_H

#include <stddef.h>

struct root {
	int dirfd;
	char path[4096];
};

/* Opens DIR (NULL or "" means "/"). Returns 0 or -errno; *ret_root untouched on failure. */
int root_open(const char *dir, struct root *ret_root);
void root_close(struct root *r);

/* openat() relative to the root; rel has no leading '/'. Returns an fd or -errno. */
int root_openat(const struct root *r, const char *rel, int flags);

/* Reads a small sysfs/proc file into buf (NUL-terminated, trailing newline
 * stripped). Returns the length or -errno. */
int root_read_small(const struct root *r, const char *rel, char *buf, size_t size);

/* Host-visible form of rel for messages: "/proc/stat" or "ROOT/proc/stat". */
void root_display(const struct root *r, const char *rel, char *buf, size_t size);

#endif
