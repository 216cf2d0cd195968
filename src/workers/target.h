/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening what safety.c allowed: creating a new file exclusively and laying
 * it out, claiming a block device exclusively (O_EXCL) for the whole run
 * when it is written, working out the region [offset, offset+size), and
 * removing a created file afterwards unless asked to keep it.
 */
#ifndef IOTRIAGE_WORKERS_TARGET_H
#define IOTRIAGE_WORKERS_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "job.h"
#include "safety.h"

struct target {
	struct job_target t;
	int claim_fd; /* O_EXCL open of a written block device, held for the run; -1 */
	bool created;
	bool keep;
};

/*
 * Opens v's target for spec (write: the job or its precondition writes).
 * Returns 0 with *ret filled, or -errno with why set; nothing is left
 * behind on failure (a file created here is removed again).
 */
int target_open(const struct job_spec *spec, const struct safety_verdict *v, bool write,
		struct target *ret, char *why, size_t why_size);

/* Releases the claim and removes a created file unless keep. 0 or -errno (why set). */
int target_close(struct target *t, char *why, size_t why_size);

#endif
