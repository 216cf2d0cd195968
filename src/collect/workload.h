/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The workload sources, "who does the IO and under what pressure":
 * processes (taskstats.c), cgroup v2 IO (cgroup.c), NICs (ethtool_nl.c,
 * rtnl.c), pressure (pressure.c) and writeback (writeback.c), collected
 * together into one struct hung off the snapshot, so the core gains one
 * pointer and one call per hook.
 */
#ifndef IOTRIAGE_WORKLOAD_H
#define IOTRIAGE_WORKLOAD_H

#include "cgroup.h"
#include "ethtool_nl.h"
#include "pressure.h"
#include "procfile.h"
#include "taskstats.h"
#include "writeback.h"

struct workload_raw {
	struct proc_table procs;
	struct nic_table nics;
	struct pressure_raw pressure;
	struct writeback_raw writeback;
	struct cgroup_table cgroups;
};

struct workload_collector {
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
#define WORKLOAD_SETTINGS_EVERY 10

/*
 * Samples every source into *ps, allocating the collector (*pc) and the raw
 * struct on first use; unavailable sources are statuses inside *ps.
 * Returns 0 or -ENOMEM (then *ps keeps whatever it held).
 */
int workload_sample(struct workload_collector **pc, const struct root *r, struct workload_raw **ps);
/* As workload_sample, reading only the sources whose cad[CAD_*].carried
 * is false (cad NULL: all) and putting each read's CPU time in its cpu_ns.
 * A source not read keeps what *ps held (the sampler puts the last read's
 * rows there); processes are marked carried and only the exit notices are
 * drained. */
int workload_sample_some(struct workload_collector **pc, const struct root *r,
			 struct src_cadence *cad, struct workload_raw **ps);

/* Capture: like workload_sample on the live host, and every netlink answer is
 * also written under dfd (netlink/...). 0 or -errno. */
int workload_capture(const struct root *r, int dfd, unsigned *ret_files);

void workload_collector_free(struct workload_collector *c);
void workload_raw_free(struct workload_raw *s);
/* Deep copy; *dst allocated when NULL, freed when src is NULL. 0 or -ENOMEM. */
int workload_raw_copy(struct workload_raw **dst, const struct workload_raw *src);

#endif
