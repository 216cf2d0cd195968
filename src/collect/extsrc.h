/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sources of "who does the IO and what the NIC is set to": processes
 * (taskstats.c), NICs (ethtool_nl.c, rtnl.c), pressure (pressure.c) and
 * writeback (writeback.c), cgroup v2 IO (cgroup.c), collected together into one struct hung off the
 * snapshot, so the core gains one pointer and one call per hook.
 */
#ifndef IOTRIAGE_EXTSRC_H
#define IOTRIAGE_EXTSRC_H

#include "cgroup.h"
#include "ethtool_nl.h"
#include "pressure.h"
#include "procfile.h"
#include "taskstats.h"
#include "writeback.h"

struct extsrc_raw {
	struct proc_table procs;
	struct nic_table nics;
	struct pressure_raw pressure;
	struct writeback_raw writeback;
	struct cgroup_table cgroups;
};

struct extsrc_collector {
	struct taskstats_collector ts;
	struct ethtool_nl_collector en;
	struct procfile vmstat;
	struct procfile psi[PSI__COUNT]; /* /proc/pressure/{io,cpu,irq}, kept open */
	unsigned samples;		 /* taken: settings are re-read every N */
	struct writeback_raw wb_last;	 /* the vm.dirty_* settings last read */
	struct cgroup_collector cg;	 /* the cgroup hierarchy's top, kept open */
};

/* Settings (vm.dirty_*) are re-read every this many samples, counters
 * every sample. */
#define EXTSRC_SETTINGS_EVERY 10

/*
 * Samples every source into *ps, allocating the collector (*pc) and the raw
 * struct on first use; unavailable sources are statuses inside *ps.
 * Returns 0 or -ENOMEM (then *ps keeps whatever it held).
 */
int extsrc_sample(struct extsrc_collector **pc, const struct root *r, struct extsrc_raw **ps);
/* As extsrc_sample, without the per-process scan: s->procs is left as it
 * is, marked carried (the caller puts the last scan's table there), and
 * only the exit notices are drained. */
int extsrc_sample_noscan(struct extsrc_collector **pc, const struct root *r,
			 struct extsrc_raw **ps);

/* Capture: like extsrc_sample on the live host, and every netlink answer is
 * also written under dfd (netlink/...). 0 or -errno. */
int extsrc_capture(const struct root *r, int dfd, unsigned *ret_files);

void extsrc_collector_free(struct extsrc_collector *c);
void extsrc_raw_free(struct extsrc_raw *s);
/* Deep copy; *dst allocated when NULL, freed when src is NULL. 0 or -ENOMEM. */
int extsrc_raw_copy(struct extsrc_raw **dst, const struct extsrc_raw *src);

#endif
