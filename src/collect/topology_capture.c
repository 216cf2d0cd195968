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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "str.h"
#include "topology.h"
#include "topology_int.h"
#include "treewrite.h"

/* Which entries of a directory to copy, and what of each. */
struct cap_spec {
	const char *prefix;		 /* the entry's name starts so, */
	bool numbered;			 /* and goes on with a number only */
	bool copy;			 /* the entry is a file: copy it */
	bool link;			 /* the entry is a link: re-create it */
	const char *const *files;	 /* files in it to copy, to a NULL */
	const char *link_in;		 /* a link in it to re-create */
	const char *sub;		 /* a directory in it to walk, */
	const struct cap_spec *sub_spec; /* by this spec */
};

struct cap_ctx {
	const struct root *src;
	int dfd;
	unsigned files;
	const struct cap_spec *spec; /* of the directory being walked */
	char base[300];		     /* the directory being walked */
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

static void cap_files(struct cap_ctx *c, const char *dir, const char *const *names)
{
	char rel[600];

	for (size_t i = 0; names[i]; i++) {
		str_fmt(rel, sizeof(rel), "%s/%s", dir, names[i]);
		cap_copy(c, rel);
	}
}

static void cap_walk(struct cap_ctx *c, const char *dir, int (*cb)(const char *, void *),
		     const struct cap_spec *spec);

/* One entry of the directory being walked, as its spec says. */
static int cap_entry(const char *name, void *ctx)
{
	struct cap_ctx *c = ctx;
	const struct cap_spec *s = c->spec;
	size_t plen = strlen(s->prefix);
	char rel[600], in[600];
	uint32_t n;

	if (strncmp(name, s->prefix, plen) != 0 || (s->numbered && !str_u32(name + plen, &n)))
		return 0;
	str_fmt(rel, sizeof(rel), "%s/%s", c->base, name);
	if (s->copy)
		cap_copy(c, rel);
	if (s->link)
		cap_link(c, rel);
	if (s->files)
		cap_files(c, rel, s->files);
	if (s->link_in) {
		str_fmt(in, sizeof(in), "%s/%s", rel, s->link_in);
		cap_link(c, in);
	}
	if (s->sub) {
		str_fmt(in, sizeof(in), "%s/%s", rel, s->sub);
		cap_walk(c, in, cap_entry, s->sub_spec);
	}
	return 0;
}

/* Walks dir with an entry callback (cap_entry: by spec), the caller's walk kept. */
static void cap_walk(struct cap_ctx *c, const char *dir, int (*cb)(const char *, void *),
		     const struct cap_spec *spec)
{
	const struct cap_spec *saved_spec = c->spec;
	char saved[sizeof(c->base)];

	memcpy(saved, c->base, sizeof(saved));
	str_fmt(c->base, sizeof(c->base), "%s", dir);
	c->spec = spec;
	topology_for_each_name(c->src, c->base, cb, c);
	c->spec = saved_spec;
	memcpy(c->base, saved, sizeof(saved));
}

static const struct cap_spec cap_any = { .prefix = "", .copy = true };
static const struct cap_spec cap_irq = {
	.prefix = "",
	.numbered = true,
	.files = (const char *const[]){ "smp_affinity_list", "smp_affinity",
					"effective_affinity_list", "affinity_hint", "node", NULL }
};
static const struct cap_spec cap_kirq = { .prefix = "",
					  .files = (const char *const[]){ "actions", "chip_name",
									  "hwirq", "name", "type",
									  "per_cpu_count", NULL } };
/* net/eth0, nvme/nvme0, host0: the child's presence is what counts */
static const struct cap_spec cap_uevent = { .prefix = "",
					    .files = (const char *const[]){ "uevent", NULL } };
static const struct cap_spec cap_host = { .prefix = "host",
					  .numbered = true,
					  .files = (const char *const[]){ "uevent", NULL } };
static const struct cap_spec cap_rxq = {
	.prefix = "rx-", .files = (const char *const[]){ "rps_cpus", "rps_flow_cnt", NULL }
};
static const struct cap_spec cap_devblock = { .prefix = "", .link = true };
static const struct cap_spec cap_node = { .prefix = "node",
					  .numbered = true,
					  .files = (const char *const[]){ "cpulist", NULL } };
static const struct cap_spec cap_net = {
	.prefix = "", .link_in = "device", .sub = "queues", .sub_spec = &cap_rxq
};
static const struct cap_spec cap_mq = { .prefix = "",
					.files = (const char *const[]){ "cpu_list", NULL } };
static const struct cap_spec cap_block = { .prefix = "", .sub = "mq", .sub_spec = &cap_mq };

static int cap_pci(const char *name, void *ctx)
{
	static const char *const files[] = { "numa_node", "local_cpulist", NULL };
	struct cap_ctx *c = ctx;
	char dir[300], rel[600];
	int fd;

	str_fmt(dir, sizeof(dir), "sys/bus/pci/devices/%s", name);
	str_fmt(rel, sizeof(rel), "%s/msi_irqs", dir);
	fd = root_openat(c->src, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return 0; /* no MSI vectors: not the advisor's business */
	close(fd);
	cap_files(c, dir, files);
	cap_walk(c, rel, cap_entry, &cap_any);
	str_fmt(rel, sizeof(rel), "%s/driver", dir);
	cap_link(c, rel);
	str_fmt(rel, sizeof(rel), "%s/net", dir);
	cap_walk(c, rel, cap_entry, &cap_uevent);
	str_fmt(rel, sizeof(rel), "%s/nvme", dir);
	cap_walk(c, rel, cap_entry, &cap_uevent);
	cap_walk(c, dir, cap_entry, &cap_host);
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
	str_fmt(rel, sizeof(rel), "proc/%s/comm", name);
	cap_copy(c, rel);
	str_fmt(rel, sizeof(rel), "proc/%s/cmdline", name);
	cap_copy(c, rel);
	str_fmt(rel, sizeof(rel), "proc/%s/environ", name);
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
	cap_walk(c, "proc/irq", cap_entry, &cap_irq);
	cap_walk(c, "sys/kernel/irq", cap_entry, &cap_kirq);
	/* root only, with debugfs mounted: the authoritative managed flag */
	cap_walk(c, "sys/kernel/debug/irq/irqs", cap_entry, &cap_any);
	cap_walk(c, "sys/bus/pci/devices", cap_pci, NULL);
	cap_walk(c, "sys/class/net", cap_entry, &cap_net);
	cap_copy(c, "proc/sys/net/core/rps_sock_flow_entries");
	cap_walk(c, "sys/dev/block", cap_entry, &cap_devblock);
	cap_walk(c, "sys/devices/system/node", cap_entry, &cap_node);
	cap_walk(c, "sys/block", cap_entry, &cap_block);
	cap_walk(c, "proc", cap_irqbalance, NULL);
	cap_cmdline(c);
	cap_copy(c, "etc/default/irqbalance");
	cap_copy(c, "etc/sysconfig/irqbalance");
	*ret_files = c->files;
	free(c);
	return 0;
}
