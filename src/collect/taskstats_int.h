/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside who does the IO: what taskstats.c (the netlink questions, the
 * ranking, the sample) asks of taskstats_procfs.c (the /proc reading).
 * Not for other files.
 */
#ifndef IOTRIAGE_TASKSTATS_INT_H
#define IOTRIAGE_TASKSTATS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "root.h"
#include "taskstats.h"

/* Processes whose descriptors are kept open between samples (two each:
 * io and stat): a quarter of the soft RLIMIT_NOFILE, less a margin for
 * everything else the process opens, at most 4096; 0: none kept. */
size_t taskstats_iofd_budget(void);

/* True when s names a pid (1 to INT32_MAX, digits only); *ret set then. */
bool taskstats_parse_pid(const char *s, int32_t *ret);

/* Every process under r/proc into t (io, stat, schedstat), the kept
 * descriptors reused and swapped for the next sample; the path that failed
 * into path_for_msg. 0, or -ENOENT when no process could be read. */
int taskstats_scan_procfs(struct taskstats_collector *tc, const struct root *r,
			  struct proc_table *t, char *path_for_msg, size_t msg_size);

/* p's command name from /proc/PID/comm, else from /proc/PID/stat ("" when neither). */
void taskstats_read_comm(const struct root *r, struct proc_raw *p);

#endif
