// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `iotriage capture`'s part for the topology: the files and links that
 * topology.c reads (/proc/irq, /sys/kernel/irq, PCI, NICs, block queues,
 * NUMA nodes, irqbalance, the kernel's command line) copied into a recorded
 * tree. Reads under the source root and writes only under the tree's fd.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "str.h"
#include "topology.h"
#include "topology_int.h"
#include "treewrite.h"

/* Paths of sysfs entries: a clipped one simply fails to open. */
static void __attribute__((format(printf, 3, 4)))
path_fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

struct cap_ctx {
	const struct root *src;
	int dfd;
	unsigned files;
	char base[300]; /* the directory being walked */
	char buf[65536];
};

/* Copies one small file (sysfs attributes, /proc/irq); absent is not an error. */
static void cap_copy(struct cap_ctx *c, const char *rel)
{
	mode_t mode;
	ssize_t n;
	int fd;

	fd = root_openat(c->src, rel, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, c->buf, sizeof(c->buf));
	mode = treewrite_copy_mode(fd);
	close(fd);
	if (n >= 0 && treewrite_write_mode(c->dfd, rel, c->buf, (size_t)n, mode) == 0)
		c->files++;
}

/* Re-creates a sysfs link with the same target text (topology reads only the text). */
static void cap_link(struct cap_ctx *c, const char *rel)
{
	char target[512];
	ssize_t n = root_readlink(c->src, rel, target, sizeof(target) - 1);

	if (n <= 0)
		return;
	target[n] = '\0';
	if (treewrite_symlink(c->dfd, rel, target) == 0)
		c->files++;
}

static void cap_files(struct cap_ctx *c, const char *dir, const char *const *names, size_t n)
{
	char rel[600];

	for (size_t i = 0; i < n; i++) {
		path_fmt(rel, sizeof(rel), "%s/%s", dir, names[i]);
		cap_copy(c, rel);
	}
}

static int cap_irq(const char *name, void *ctx)
{
	static const char *const files[] = { "smp_affinity_list", "smp_affinity",
					     "effective_affinity_list", "affinity_hint", "node" };
	struct cap_ctx *c = ctx;
	char dir[600];
	uint32_t irq;

	if (!str_u32(name, &irq))
		return 0;
	path_fmt(dir, sizeof(dir), "%s/%s", c->base, name);
	cap_files(c, dir, files, sizeof(files) / sizeof(files[0]));
	return 0;
}

static int cap_kirq(const char *name, void *ctx)
{
	static const char *const files[] = { "actions", "chip_name", "hwirq",
					     "name",	"type",	     "per_cpu_count" };
	struct cap_ctx *c = ctx;
	char dir[600];

	path_fmt(dir, sizeof(dir), "%s/%s", c->base, name);
	cap_files(c, dir, files, sizeof(files) / sizeof(files[0]));
	return 0;
}

static int cap_plain(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char rel[600];

	path_fmt(rel, sizeof(rel), "%s/%s", c->base, name);
	cap_copy(c, rel);
	return 0;
}

static int cap_uevent(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char rel[600];

	/* net/eth0, nvme/nvme0, host0: the child's presence is what counts */
	if (strncmp(c->base + strlen(c->base) - 4, "/net", 4) != 0 &&
	    strncmp(c->base + strlen(c->base) - 5, "/nvme", 5) != 0 &&
	    !(strncmp(name, "host", 4) == 0 && isdigit((unsigned char)name[4])))
		return 0;
	path_fmt(rel, sizeof(rel), "%s/%s/uevent", c->base, name);
	cap_copy(c, rel);
	return 0;
}

static int cap_pci(const char *name, void *ctx)
{
	static const char *const files[] = { "numa_node", "local_cpulist" };
	struct cap_ctx *c = ctx;
	char dir[300], saved[300];
	int fd;

	path_fmt(dir, sizeof(dir), "sys/bus/pci/devices/%s", name);
	path_fmt(saved, sizeof(saved), "%s/msi_irqs", dir);
	fd = root_openat(c->src, saved, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return 0; /* no MSI vectors: not the advisor's business */
	close(fd);
	memcpy(saved, c->base, sizeof(saved));
	cap_files(c, dir, files, sizeof(files) / sizeof(files[0]));
	path_fmt(c->base, sizeof(c->base), "%s/msi_irqs", dir);
	topology_for_each_name(c->src, c->base, cap_plain, c);
	path_fmt(c->base, sizeof(c->base), "%s/driver", dir);
	cap_link(c, c->base);
	path_fmt(c->base, sizeof(c->base), "%s/net", dir);
	topology_for_each_name(c->src, c->base, cap_uevent, c);
	path_fmt(c->base, sizeof(c->base), "%s/nvme", dir);
	topology_for_each_name(c->src, c->base, cap_uevent, c);
	path_fmt(c->base, sizeof(c->base), "%s", dir);
	topology_for_each_name(c->src, c->base, cap_uevent, c);
	memcpy(c->base, saved, sizeof(saved));
	return 0;
}

static int cap_rxq(const char *name, void *ctx)
{
	static const char *const files[] = { "rps_cpus", "rps_flow_cnt" };
	struct cap_ctx *c = ctx;
	char dir[600];

	if (strncmp(name, "rx-", 3) != 0)
		return 0;
	path_fmt(dir, sizeof(dir), "%s/%s", c->base, name);
	cap_files(c, dir, files, sizeof(files) / sizeof(files[0]));
	return 0;
}

static int cap_net(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char saved[300];

	memcpy(saved, c->base, sizeof(saved));
	path_fmt(c->base, sizeof(c->base), "sys/class/net/%s/device", name);
	cap_link(c, c->base);
	path_fmt(c->base, sizeof(c->base), "sys/class/net/%s/queues", name);
	topology_for_each_name(c->src, c->base, cap_rxq, c);
	memcpy(c->base, saved, sizeof(saved));
	return 0;
}

static int cap_devblock(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char rel[600];

	path_fmt(rel, sizeof(rel), "sys/dev/block/%s", name);
	cap_link(c, rel);
	return 0;
}

static int cap_node(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char rel[600];
	uint32_t n;

	if (strncmp(name, "node", 4) != 0 || !str_u32(name + 4, &n))
		return 0;
	path_fmt(rel, sizeof(rel), "sys/devices/system/node/%s/cpulist", name);
	cap_copy(c, rel);
	return 0;
}

static int cap_mq(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char rel[600];

	path_fmt(rel, sizeof(rel), "%s/%s/cpu_list", c->base, name);
	cap_copy(c, rel);
	return 0;
}

static int cap_block(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char saved[300];

	memcpy(saved, c->base, sizeof(saved));
	path_fmt(c->base, sizeof(c->base), "sys/block/%s/mq", name);
	topology_for_each_name(c->src, c->base, cap_mq, c);
	memcpy(c->base, saved, sizeof(saved));
	return 0;
}

/* irqbalance's comm and cmdline, and only the IRQBALANCE_* part of its
 * environment: a recording must not carry anything else a daemon inherited. */
static int cap_irqbalance(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	char rel[600];
	size_t out = 0;
	ssize_t n;
	int fd;

	if (!isdigit((unsigned char)name[0]) || !topology_comm_is_irqbalance(c->src, name))
		return 0;
	path_fmt(rel, sizeof(rel), "proc/%s/comm", name);
	cap_copy(c, rel);
	path_fmt(rel, sizeof(rel), "proc/%s/cmdline", name);
	cap_copy(c, rel);
	path_fmt(rel, sizeof(rel), "proc/%s/environ", name);
	fd = root_openat(c->src, rel, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, c->buf, sizeof(c->buf));
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n;) {
		size_t len = strnlen(c->buf + i, (size_t)(n - i));

		if (len >= 11 && strncmp(c->buf + i, "IRQBALANCE_", 11) == 0) {
			memmove(c->buf + out, c->buf + i, len);
			out += len;
			c->buf[out++] = '\0';
		}
		i += (ssize_t)len + 1;
	}
	if (treewrite_write(c->dfd, rel, c->buf, out) == 0)
		c->files++;
	return 0;
}

/* The kernel command line reduced to its isolcpus= and nohz_full= words:
 * what topology_collect reads when the sysfs lists are absent, and nothing
 * else a boot line may carry. */
static void cap_cmdline(struct cap_ctx *c)
{
	size_t out = 0;
	ssize_t n;
	int fd;

	fd = root_openat(c->src, "proc/cmdline", O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, c->buf, sizeof(c->buf) - 1);
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n;) {
		ssize_t e = i;

		while (e < n && !isspace((unsigned char)c->buf[e]))
			e++;
		if ((e - i > 9 && strncmp(c->buf + i, "isolcpus=", 9) == 0) ||
		    (e - i > 10 && strncmp(c->buf + i, "nohz_full=", 10) == 0)) {
			if (out)
				c->buf[out++] = ' ';
			memmove(c->buf + out, c->buf + i, (size_t)(e - i));
			out += (size_t)(e - i);
		}
		i = e + 1;
	}
	if (n >= 0) {
		c->buf[out++] = '\n';
		if (treewrite_write(c->dfd, "proc/cmdline", c->buf, out) == 0)
			c->files++;
	}
}

int topology_capture(const struct root *src, int dfd, unsigned *ret_files)
{
	struct cap_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->src = src;
	c->dfd = dfd;
	path_fmt(c->base, sizeof(c->base), "proc/irq");
	topology_for_each_name(src, c->base, cap_irq, c);
	path_fmt(c->base, sizeof(c->base), "sys/kernel/irq");
	topology_for_each_name(src, c->base, cap_kirq, c);
	/* root only, with debugfs mounted: the authoritative managed flag */
	path_fmt(c->base, sizeof(c->base), "sys/kernel/debug/irq/irqs");
	topology_for_each_name(src, c->base, cap_plain, c);
	topology_for_each_name(src, "sys/bus/pci/devices", cap_pci, c);
	topology_for_each_name(src, "sys/class/net", cap_net, c);
	cap_copy(c, "proc/sys/net/core/rps_sock_flow_entries");
	topology_for_each_name(src, "sys/dev/block", cap_devblock, c);
	topology_for_each_name(src, "sys/devices/system/node", cap_node, c);
	topology_for_each_name(src, "sys/block", cap_block, c);
	topology_for_each_name(src, "proc", cap_irqbalance, c);
	cap_cmdline(c);
	cap_copy(c, "etc/default/irqbalance");
	cap_copy(c, "etc/sysconfig/irqbalance");
	*ret_files = c->files;
	free(c);
	return 0;
}
