// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recording a host: the /proc files of snapshot.c plus the /sys/block facts
 * (whole disk or partition, dm name, slaves, iostats flag, each blk-mq
 * queue's cpu_list) and each disk's stat file, which is what sysstat's
 * iostat reads, so the same tree feeds both our compute and the real
 * iostat in the oracle test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkmq.h"
#include "capture.h"
#include "workload.h"
#include "procfile.h"
#include "treewrite.h"
#include "turbo.h"
#include "topology.h"

struct block_cap {
	const struct root *src;
	int dfd;
	struct procfile *pf;
	struct capture_result *res;
	const char *slaves; /* sys/block/DISK/slaves, while its entries are walked */
};

/* slaves/ holds symlinks; an empty file per member keeps the name (an
 * empty directory would be lost by git and tar --no-recursion) */
static int cap_slave(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct block_cap *c = ctx;
	char srel[768];

	if (name[0] == '.')
		return 0;
	snprintf(srel, sizeof(srel), "%s/%s", c->slaves, name);
	treewrite_write(c->dfd, srel, "", 0);
	return 0;
}

static int cap_disk(int dfd, const char *name, unsigned char type, void *ctx)
{
	static const char *const files[] = { "stat",
					     "dm/name",
					     "queue/iostats",
					     "queue/scheduler",
					     "queue/nr_requests",
					     "queue/read_ahead_kb",
					     "queue/rotational",
					     "queue/rq_affinity" };
	struct block_cap *c = ctx;
	char rel[512];
	int sfd;

	if (name[0] == '.')
		return 0;
	snprintf(rel, sizeof(rel), "sys/block/%s", name);
	sfd = treewrite_open_dir(c->dfd, rel, 1);
	if (sfd < 0)
		return 0;
	close(sfd);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/block/%s/%s", name, files[i]);
		if (treewrite_copy(c->src, c->dfd, rel, c->pf) == 0)
			c->res->files++;
	}
	/* blk-mq hardware queues: mq/N/cpu_list (the per-queue chain) */
	c->res->files += blkmq_capture_disk(c->src, c->dfd, name, c->pf);
	snprintf(rel, sizeof(rel), "sys/block/%s/slaves", name);
	c->slaves = rel;
	root_for_each_entry(c->src, rel, cap_slave, c);
	return 0;
}

static void capture_block(const struct root *src, int dfd, struct procfile *pf,
			  struct capture_result *res)
{
	struct block_cap c = { src, dfd, pf, res, NULL };

	if (root_for_each_entry(src, "sys/block", cap_disk, &c) < 0)
		res->missing++;
}

int capture_tree(const struct root *src, const char *dst, struct capture_result *ret_res, char *why,
		 size_t why_size)
{
	static const char *const required[] = { "proc/uptime", "proc/stat", "proc/diskstats" };
	static const char *const optional[] = {
		"proc/interrupts",
		"proc/softirqs",
		"sys/devices/system/cpu/online",
		"sys/devices/system/cpu/possible",
		"sys/devices/system/cpu/isolated",
		"sys/devices/system/cpu/nohz_full",
	};
	struct capture_result res = { 0 };
	struct procfile pf;
	int dfd, r = 0;

	/* capture runs as root: DIR must not hold links planted by someone else */
	dfd = treewrite_open_top(dst, why, why_size);
	if (dfd < 0)
		return dfd;
	procfile_init(&pf, NULL);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		int e = treewrite_copy(src, dfd, required[i], &pf);

		if (e < 0) {
			/* the first one is the reason; the rest is still recorded */
			if (!r) {
				snprintf(why, why_size, "/%s: %s", required[i], strerror(-e));
				r = e;
			}
		} else {
			res.files++;
		}
	}
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
		if (treewrite_copy(src, dfd, optional[i], &pf) == 0)
			res.files++;
		else
			res.missing++;
	}
	capture_block(src, dfd, &pf, &res);
	/* IRQ affinities, PCI devices, NIC queues, irqbalance: what advise needs
	 * to advise a captured host offline (src/collect/topology.c) */
	{
		unsigned topo_files = 0;

		if (topology_capture(src, dfd, &topo_files) == 0)
			res.files += topo_files;
	}
	/* processes, NICs, pressure, writeback: /proc files and netlink answers
	 * (doc/netlink.md); all optional */
	{
		unsigned ext_files = 0;

		if (workload_capture(src, dfd, &ext_files) == 0)
			res.files += ext_files;
	}
	/* turbostat: cpuinfo, topology, cpufreq, cpuidle, powercap, hwmon, MSRs (src/collect/turbo.c) */
	{
		unsigned turbo_files = 0;

		if (turbo_capture(src, dfd, &turbo_files) == 0)
			res.files += turbo_files;
	}
	procfile_free(&pf);
	close(dfd);
	if (r < 0)
		return r;
	*ret_res = res;
	return 0;
}
