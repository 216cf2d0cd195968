// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recording a host: the /proc files of snapshot.c plus the /sys/block facts
 * (whole disk or partition, dm name, slaves, iostats flag, each blk-mq
 * queue's cpu_list) and each disk's stat file, which is what sysstat's
 * iostat reads, so the same tree feeds both our compute and the real
 * iostat in the oracle test.
 */
#include <dirent.h>
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
#include "record.h"
#include "turbo.h"
#include "topology.h"

static void capture_block(const struct root *src, int dfd, struct procfile *pf,
			  struct capture_result *res)
{
	static const char *const files[] = { "stat",
					     "dm/name",
					     "queue/iostats",
					     "queue/scheduler",
					     "queue/nr_requests",
					     "queue/read_ahead_kb",
					     "queue/rotational" };
	struct dirent *de;
	DIR *d;
	int fd;

	fd = root_openat(src, "sys/block", O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		res->missing++;
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char rel[512];
		int sfd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "sys/block/%s", de->d_name);
		sfd = record_open_dir(dfd, rel, 1);
		if (sfd < 0)
			continue;
		close(sfd);
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(rel, sizeof(rel), "sys/block/%s/%s", de->d_name, files[i]);
			if (record_copy(src, dfd, rel, pf) == 0)
				res->files++;
		}
		/* blk-mq hardware queues: mq/N/cpu_list (the per-queue chain) */
		res->files += blkmq_capture_disk(src, dfd, de->d_name, pf);
		/* slaves/ holds symlinks; an empty file per member keeps the name
		 * (an empty directory would be lost by git and tar --no-recursion) */
		snprintf(rel, sizeof(rel), "sys/block/%s/slaves", de->d_name);
		sfd = root_openat(src, rel, O_RDONLY | O_DIRECTORY);
		if (sfd >= 0) {
			DIR *sd = fdopendir(sfd);
			struct dirent *se;

			while (sd && (se = readdir(sd))) {
				char srel[768];

				if (se->d_name[0] == '.')
					continue;
				snprintf(srel, sizeof(srel), "%s/%s", rel, se->d_name);
				record_write(dfd, srel, "", 0);
			}
			if (sd)
				closedir(sd);
			else
				close(sfd);
		}
	}
	closedir(d);
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
	dfd = record_open_top(dst, why, why_size);
	if (dfd < 0)
		return dfd;
	procfile_init(&pf, NULL);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		int e = record_copy(src, dfd, required[i], &pf);

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
		if (record_copy(src, dfd, optional[i], &pf) == 0)
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
