// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recording a host: the /proc files of snapshot.c plus the /sys/block facts
 * (whole disk or partition, dm name, slaves, iostats flag) and each disk's
 * stat file, which is what sysstat's iostat reads, so the same tree feeds
 * both our compute and the real iostat in the oracle test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "extsrc.h"
#include "procfile.h"
#include "turbo.h"
#include "topology.h"

static int mkdir_p(int dfd, const char *rel)
{
	char tmp[512];
	size_t len = strlen(rel);

	if (len >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, rel, len + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdirat(dfd, tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdirat(dfd, tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_file(int dfd, const char *rel, const char *buf, size_t len)
{
	char dir[512];
	const char *slash = strrchr(rel, '/');
	int fd, r;

	if (slash) {
		if ((size_t)(slash - rel) >= sizeof(dir))
			return -ENAMETOOLONG;
		memcpy(dir, rel, (size_t)(slash - rel));
		dir[slash - rel] = '\0';
		r = mkdir_p(dfd, dir);
		if (r < 0)
			return r;
	}
	fd = openat(dfd, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return r;
		}
		buf += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0)
		return -errno;
	return 0;
}

/* Copies one file; -ENOENT etc. are returned for the caller to judge. */
static int copy_one(const struct root *src, int dfd, const char *rel, struct procfile *pf)
{
	int r;

	pf->rel = rel;
	r = procfile_read(pf, src);
	procfile_close(pf);
	if (r < 0)
		return r;
	return write_file(dfd, rel, pf->buf, pf->len);
}

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
		if (mkdir_p(dfd, rel) < 0)
			continue;
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(rel, sizeof(rel), "sys/block/%s/%s", de->d_name, files[i]);
			if (copy_one(src, dfd, rel, pf) == 0)
				res->files++;
		}
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
				write_file(dfd, srel, "", 0);
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

	/* an existing regular file passes mkdir (EEXIST) and fails the open (ENOTDIR) */
	if (mkdir(dst, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		snprintf(why, why_size, "%s", strerror(-r));
		return r;
	}
	dfd = open(dst, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		snprintf(why, why_size, "%s", strerror(-r));
		return r;
	}
	procfile_init(&pf, NULL);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		int e = copy_one(src, dfd, required[i], &pf);

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
		if (copy_one(src, dfd, optional[i], &pf) == 0)
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

		if (extsrc_capture(src, dfd, &ext_files) == 0)
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
