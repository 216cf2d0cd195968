/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dirty page cache and writeback: nr_dirty, nr_writeback and the dirty
 * thresholds of /proc/vmstat, and the vm.dirty_* settings of
 * /proc/sys/vm, so a writer throttled by a full dirty cache is told apart
 * from a slow disk. Collect and parse only.
 */
#ifndef IOTRIAGE_WRITEBACK_H
#define IOTRIAGE_WRITEBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "root.h"

enum wb_sysctl {
	WB_DIRTY_RATIO,
	WB_DIRTY_BACKGROUND_RATIO,
	WB_DIRTY_BYTES,
	WB_DIRTY_BACKGROUND_BYTES,
	WB_DIRTY_EXPIRE_CS,
	WB_DIRTY_WRITEBACK_CS,
	WB__COUNT
};

struct writeback_raw {
	bool has_vmstat;
	uint64_t nr_dirty;		/* pages */
	uint64_t nr_writeback;		/* pages */
	uint64_t nr_dirty_threshold;	/* pages, vm.dirty_ratio/bytes applied */
	uint64_t nr_dirty_bg_threshold; /* pages, background writeback starts */
	bool has_thresholds;		/* the two thresholds are in vmstat (>= 2.6.37) */
	uint64_t page_size;		/* of the collecting host */
	bool has_sysctl[WB__COUNT];
	uint64_t sysctl[WB__COUNT]; /* vm.dirty_* as set */
	struct src_status vmstat_status;
	struct src_status sysctl_status; /* err when none of vm.dirty_* could be read */
};

/* "dirty_ratio" ... : the sysctl's name under /proc/sys/vm. */
const char *writeback_sysctl_name(enum wb_sysctl k);

/* /proc/vmstat: nr_dirty and nr_writeback required, thresholds optional.
 * 0 or -EBADMSG. */
int writeback_vmstat_parse(const char *buf, size_t len, struct writeback_raw *ret);

/* Reads /proc/vmstat (through pf's buffer) and the six sysctls into w. */
struct procfile;
void writeback_collect(const struct root *r, struct procfile *pf, struct writeback_raw *w);
/* The same, with the vm.dirty_* settings copied from *last (a previous
 * writeback_collect()'s) instead of read: they are settings, not counters,
 * and six open/read/close a sample add up (workload.c reads them every
 * WORKLOAD_SETTINGS_EVERY samples). */
void writeback_collect_counters(const struct root *r, struct procfile *pf,
				const struct writeback_raw *last, struct writeback_raw *w);

#endif
