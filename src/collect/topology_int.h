/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the topology: what topology.c (collecting) and topology_capture.c
 * (recording the same files) share. Not for other files.
 */
#ifndef IOTRIAGE_TOPOLOGY_INT_H
#define IOTRIAGE_TOPOLOGY_INT_H

#include <stdbool.h>

#include "root.h"

/* Calls fn with the name of every entry of the directory rel under r but
 * hidden ones (sysfs and procfs have none: one in a recorded tree is not
 * theirs); returns what root_for_each_entry() returns. */
int topology_for_each_name(const struct root *r, const char *rel,
			   int (*fn)(const char *name, void *ctx), void *ctx);

/* True when /proc/PID/comm under r says irqbalance. */
bool topology_comm_is_irqbalance(const struct root *r, const char *pid);

#endif
