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
	unsigned files;	  /* files written */
	unsigned missing; /* optional files absent on the host */
};

/*
 * Writes the tree under dst (created if absent, its parent is not; an
 * existing one must be a directory, not a symlink, owned by the caller and
 * empty: treewrite_open_top()). Nothing is written through a symlink inside
 * dst (treewrite.h). Returns 0 with *ret_res filled, or -errno with why set
 * and *ret_res untouched: for dst itself why is the errno's text ("Not a
 * directory") or what is wrong and the fix, for the first required source that could not be copied
 * (proc/stat, proc/diskstats, proc/uptime) it names the file
 * ("/proc/stat: Permission denied"); the other files are still written.
 */
int capture_tree(const struct root *src, const char *dst, struct capture_result *ret_res, char *why,
		 size_t why_size);

#endif
