/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening what safety.c allowed, once, into the fd every job thread reopens
 * (never the path again): creating a new file exclusively in a directory
 * held open and laying it out, claiming a block device exclusively (O_EXCL)
 * for the whole run when it is written, and with it every device the
 * writes land in or that shows them (safety_claim), checking that what is opened is what
 * was checked, and working out the region [offset, offset+size).
 *
 * A created file is unlinked right after it is made unless it is to be kept:
 * the run works on an inode without a name, so no end of the process (kill
 * -9, a crash, the daemon's OOM kill) can leave it behind, there is no
 * record to trust at the next start, and nothing is ever removed by a path
 * that may lead elsewhere by then. A kept file keeps its name; a kept file
 * whose setup failed is removed through its directory's fd, and only while
 * the name is still the inode that was made.
 */
#ifndef IOTRIAGE_WORKERS_TARGET_H
#define IOTRIAGE_WORKERS_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"
#include "safety.h"

struct target {
	struct job_target t; /* t.fd: the target, held for the run (O_EXCL for a written device) */
	struct safety_claims claims; /* a written device's backings and holders, O_EXCL */
	int dirfd;		     /* the directory of a created file; -1 */
	char name[256];		     /* its name there */
	uint64_t dev, ino;	     /* the created file */
	bool created;
	bool linked; /* a created file still has its name (kept) */
	bool keep;
};

/*
 * Opens v's target for spec (write: the job or its precondition writes).
 * Returns 0 with *ret filled, or -errno with why set; nothing is left
 * behind on failure (a file created here is removed again).
 */
int target_open(const struct job_spec *spec, const struct safety_verdict *v, bool write,
		struct target *ret, char *why, size_t why_size);

/* Closes the target (and the claim). A created file already has no name
 * unless kept; a kept one is removed here only when keep was unset since.
 * 0 or -errno (why set). */
int target_close(struct target *t, char *why, size_t why_size);

#endif
