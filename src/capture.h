/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * capture: copy every host file the core reads into a directory tree, so
 * `iotriage compute` and the tests can replay it with --root.
 */
#ifndef IOTRIAGE_CAPTURE_H
#define IOTRIAGE_CAPTURE_H

#include <stddef.h>

#include "root.h"

struct capture_result {
	unsigned files;	       /* files written */
	unsigned missing;      /* optional files absent on the host */
	char first_error[256]; /* first required file that could not be copied */
};

/*
 * Writes the tree under dst (created if absent; must be empty or new).
 * Returns 0, or -errno for a required source (proc/stat, proc/diskstats,
 * proc/uptime) or for dst itself; *ret says which.
 */
int capture_tree(const struct root *src, const char *dst, struct capture_result *ret);

#endif
