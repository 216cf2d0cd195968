// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Collects the topology under the root: /proc/irq, /sys/kernel/irq, PCI
 * functions with MSI vectors, NICs, block queues, CPU sets, irqbalance.
 * Reads only; a file that is absent is recorded as missing, never zeroed.
 * topology_capture.c copies the same files into a recorded tree.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "topology.h"
#include "topology_int.h"
#include "str.h"

/* ---- pure helpers ---- */

int topology_parse_debugfs_managed(const char *buf, size_t len)
{
	/* kernel/irq/debugfs.c prints "dstate: 0x..." followed by one line per
	 * set IRQD_* state; IRQD_AFFINITY_MANAGED is the managed bit. */
	static const char key[] = "IRQD_AFFINITY_MANAGED";
	bool flags = false;

	for (size_t i = 0; i < len; i++) {
		if (len - i >= sizeof(key) - 1 && memcmp(buf + i, key, sizeof(key) - 1) == 0)
			return 1;
		if (len - i >= 6 && memcmp(buf + i, "dstate", 6) == 0)
			flags = true;
	}
	return flags ? 0 : -ENOENT;
}

int topology_parse_scheduler(const char *buf, char *ret, size_t size)
{
	const char *o = strchr(buf, '['), *c;

	if (!o)
		return -ENOENT;
	c = strchr(o, ']');
	if (!c || (size_t)(c - o - 1) >= size || c == o + 1)
		return -EINVAL;
	memcpy(ret, o + 1, (size_t)(c - o - 1));
	ret[c - o - 1] = '\0';
	return 0;
}

int topology_parse_cmdline_cpus(const char *buf, size_t len, const char *key, struct cpuset *ret)
{
	static const char *const flags[] = { "nohz,", "domain,", "managed_irq," };
	struct cpuset all = { 0 };
	size_t k = strlen(key), i = 0;
	bool found = false;

	while (i < len) {
		const char *w, *v;
		size_t n = 0, vn;
		struct cpuset s;

		while (i < len && isspace((unsigned char)buf[i]))
			i++;
		w = buf + i;
		while (i + n < len && buf[i + n] != '\0' && !isspace((unsigned char)buf[i + n]))
			n++;
		i += n;
		if (n == 0) {
			i++;
			continue;
		}
		if (n <= k || memcmp(w, key, k) != 0 || w[k] != '=')
			continue;
		v = w + k + 1;
		vn = n - k - 1;
		/* param="value" quoting of the boot loader */
		if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
			v++;
			vn -= 2;
		}
		/* housekeeping_isolcpus_setup(): flags while a letter leads */
		while (strcmp(key, "isolcpus") == 0 && vn && isalpha((unsigned char)*v)) {
			size_t f;

			for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
				size_t fl = strlen(flags[f]);

				if (vn >= fl && memcmp(v, flags[f], fl) == 0) {
					v += fl;
					vn -= fl;
					break;
				}
			}
			if (f == sizeof(flags) / sizeof(flags[0]))
				break;
		}
		if (vn && isalpha((unsigned char)*v))
			continue; /* unknown flag: the kernel ignores the parameter */
		if (cpuset_parse_list(v, vn, &s) < 0)
			return -EINVAL;
		for (size_t j = 0; j < CPUSET_WORDS; j++)
			all.w[j] |= s.w[j];
		found = true;
	}
	*ret = all;
	return found;
}

static bool word_value(const char *w, size_t n, const char *key, const char **ret, size_t *ret_n)
{
	size_t k = strlen(key);

	if (n < k || memcmp(w, key, k) != 0)
		return false;
	w += k;
	n -= k;
	/* shell quoting in /etc/default/irqbalance */
	while (n && (*w == '"' || *w == '\'')) {
		w++;
		n--;
	}
	while (n && (w[n - 1] == '"' || w[n - 1] == '\''))
		n--;
	*ret = w;
	*ret_n = n;
	return true;
}

static void add_banned_irq(struct topo_irqbalance *ib, const char *v, size_t vn)
{
	unsigned long irq = 0;
	size_t k;

	for (k = 0; k < vn && isdigit((unsigned char)v[k]) && irq < 1u << 24; k++)
		irq = irq * 10 + (unsigned long)(v[k] - '0');
	if (k == vn && vn > 0 && irq < 1u << 24 &&
	    ib->nbanned_irqs < sizeof(ib->banned_irqs) / sizeof(ib->banned_irqs[0]))
		ib->banned_irqs[ib->nbanned_irqs++] = (uint32_t)irq;
}

void topology_parse_irqbalance(const char *buf, size_t len, struct topo_irqbalance *ib)
{
	bool want_irq = false; /* "--banirq N", "-i N": the value is the next word */
	size_t i = 0;

	while (i < len) {
		const char *w, *v;
		size_t n = 0, vn;

		while (i < len && (buf[i] == '\0' || buf[i] == '\n' || buf[i] == ' ' ||
				   buf[i] == '\t' || buf[i] == '"' || buf[i] == '\''))
			i++;
		w = buf + i;
		while (i + n < len && buf[i + n] != '\0' && buf[i + n] != '\n' &&
		       buf[i + n] != ' ' && buf[i + n] != '\t')
			n++;
		i += n;
		if (n == 0)
			continue;
		if (w[0] == '#') {
			while (i < len && buf[i] != '\n')
				i++;
			continue;
		}
		/* IRQBALANCE_ARGS="--banirq=5 ...": its first option follows the '=' */
		if (word_value(w, n, "IRQBALANCE_ARGS=", &v, &vn)) {
			w = v;
			n = vn;
		}
		while (n && (w[n - 1] == '"' || w[n - 1] == '\''))
			n--;
		if (want_irq) {
			want_irq = false;
			add_banned_irq(ib, w, n);
		} else if (word_value(w, n, "IRQBALANCE_BANNED_CPUS=", &v, &vn)) {
			struct cpuset s;

			if (cpuset_parse_mask(v, vn, &s) == 0)
				for (size_t k = 0; k < CPUSET_WORDS; k++)
					ib->banned_cpus.w[k] |= s.w[k];
		} else if (word_value(w, n, "IRQBALANCE_BANNED_CPULIST=", &v, &vn)) {
			struct cpuset s;

			if (cpuset_parse_list(v, vn, &s) == 0)
				for (size_t k = 0; k < CPUSET_WORDS; k++)
					ib->banned_cpus.w[k] |= s.w[k];
		} else if (word_value(w, n, "--banirq=", &v, &vn)) {
			add_banned_irq(ib, v, vn);
		} else if ((n == 8 && memcmp(w, "--banirq", 8) == 0) ||
			   (n == 2 && memcmp(w, "-i", 2) == 0)) {
			want_irq = true;
		}
	}
}

static bool is_pci_addr(const char *s, size_t n)
{
	/* DDDD:BB:DD.F */
	static const char pat[] = "xxxx:xx:xx.x";

	if (n != sizeof(pat) - 1)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (pat[i] == 'x' ? !isxdigit((unsigned char)s[i]) : s[i] != pat[i])
			return false;
	}
	return true;
}

int topology_pci_from_link(const char *link, char *ret, size_t size)
{
	const char *p = link, *best = NULL;

	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (is_pci_addr(p, n))
			best = p;
		p += n;
		if (*p == '/')
			p++;
	}
	if (!best || size < 13)
		return -ENOENT;
	memcpy(ret, best, 12);
	ret[12] = '\0';
	return 0;
}

/* ---- collection ---- */

static void add_missing(struct topology *t, const char *pattern)
{
	if (topology_missing(t, pattern) || t->nmissing >= TOPO_MISSING_MAX)
		return;
	str_copy(t->missing[t->nmissing++], sizeof(t->missing[0]), pattern);
}

bool topology_missing(const struct topology *t, const char *pattern)
{
	for (size_t i = 0; i < t->nmissing; i++)
		if (strcmp(t->missing[i], pattern) == 0)
			return true;
	return false;
}

static int read_list(const struct root *r, const char *rel, struct cpuset *ret)
{
	char buf[4096];
	int n = root_read_small(r, rel, buf, sizeof(buf));

	if (n < 0)
		return n;
	return cpuset_parse_list(buf, (size_t)n, ret);
}

static long read_long(const struct root *r, const char *rel)
{
	char buf[32], *end;
	long v;

	if (root_read_small(r, rel, buf, sizeof(buf)) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	return *end ? -1 : v;
}

struct named_walk {
	int (*fn)(const char *name, void *ctx);
	void *ctx;
};

/* sysfs and procfs hold no hidden names: one in a recorded tree is not theirs */
static int named_entry(int dfd, const char *name, unsigned char type, void *ctx)
{
	const struct named_walk *w = ctx;

	return name[0] == '.' ? 0 : w->fn(name, w->ctx);
}

int topology_for_each_name(const struct root *r, const char *rel,
			   int (*fn)(const char *name, void *ctx), void *ctx)
{
	struct named_walk w = { fn, ctx };

	return root_for_each_entry(r, rel, named_entry, &w);
}

struct collect_ctx {
	const struct root *r;
	struct topology *t;
	struct topo_dev *dev; /* msi_irqs: the device being filled */
	unsigned count;
	const char *prefix; /* count_entry: the names counted begin so */
	char first[IOT_NAME_MAX];
};

static int add_irq(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topology *t = c->t;
	uint32_t irq;

	if (!str_u32(name, &irq))
		return 0;
	if (grow((void **)&t->irqs, &t->irqs_cap, t->nirqs + 1, sizeof(*t->irqs)) < 0)
		return -ENOMEM;
	memset(&t->irqs[t->nirqs], 0, sizeof(t->irqs[0]));
	t->irqs[t->nirqs].irq = irq;
	t->irqs[t->nirqs].dev = -1;
	t->irqs[t->nirqs].node = -1;
	t->nirqs++;
	return 0;
}

static int cmp_irq(const void *a, const void *b)
{
	const struct topo_irq *x = a, *y = b;

	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Drivers that allocate their queue vectors with PCI_IRQ_AFFINITY (the kernel
 * spreads them and refuses user writes), for when the debugfs state is not
 * readable. Only drivers whose allocation was read in the kernel sources;
 * seed 002's old standalone mpt2sas driver is not one of them.
 */
bool topology_guess_managed(const char *actions, const char *driver, size_t nvecs, unsigned ncpus,
			    char *why, size_t why_size)
{
	const char *q;

	/* nvme: vector 0 (admin, "nvme0q0") is a pre_vector and movable;
	 * "nvme0q1".. are spread by the kernel (drivers/nvme/host/pci.c) */
	if (strncmp(actions, "nvme", 4) == 0 && (q = strchr(actions, 'q')) && q[1] &&
	    !(q[1] == '0' && (q[2] == '\0' || q[2] == ','))) {
		snprintf(why, why_size, "%.40s: an NVMe I/O queue vector", actions);
		return true;
	}
	/* virtio-blk request queues ("virtio1-req.0") */
	if (strncmp(actions, "virtio", 6) == 0 && strstr(actions, "-req.")) {
		snprintf(why, why_size, "%.40s: a virtio-blk request queue vector", actions);
		return true;
	}
	/* smartpqi: pci_alloc_irq_vectors(PCI_IRQ_MSIX | PCI_IRQ_AFFINITY), always;
	 * megaraid_sas: with smp_affinity_enable=1, the module's default (the
	 * first vectors may be pre_vectors left movable: not told apart here) */
	if (strcmp(driver, "smartpqi") == 0 || strcmp(driver, "megaraid_sas") == 0) {
		snprintf(why, why_size, "driver %s allocates its vectors with PCI_IRQ_AFFINITY",
			 driver);
		return true;
	}
	/* mpt3sas (which also drives SAS2 HBAs, named "mpt2sasN-msixM"): with
	 * smp_affinity_enable=1 (the default), unless the HBA has fewer vectors
	 * than online CPUs, when _base_enable_msix() turns it off for that HBA */
	if (strcmp(driver, "mpt3sas") == 0 && ncpus > 0 && nvecs >= ncpus) {
		snprintf(why, why_size,
			 "driver mpt3sas with %zu vectors for %u CPUs uses PCI_IRQ_AFFINITY", nvecs,
			 ncpus);
		return true;
	}
	return false;
}

static void fill_irq(const struct root *r, struct topology *t, struct topo_irq *q)
{
	char rel[96], buf[4096];
	int n, e;

	snprintf(rel, sizeof(rel), "proc/irq/%u/smp_affinity_list", q->irq);
	n = root_read_small(r, rel, q->smp_list, sizeof(q->smp_list));
	q->has_smp = n >= 0 && cpuset_parse_list(q->smp_list, (size_t)n, &q->smp_affinity) == 0;
	if (!q->has_smp) {
		q->smp_list[0] = '\0';
		add_missing(t, "/proc/irq/N/smp_affinity_list");
	}
	snprintf(rel, sizeof(rel), "proc/irq/%u/effective_affinity_list", q->irq);
	q->has_eff = read_list(r, rel, &q->effective) == 0;
	if (!q->has_eff)
		add_missing(t, "/proc/irq/N/effective_affinity_list");
	snprintf(rel, sizeof(rel), "proc/irq/%u/affinity_hint", q->irq);
	n = root_read_small(r, rel, buf, sizeof(buf));
	q->has_hint = n >= 0 && cpuset_parse_mask(buf, (size_t)n, &q->hint) == 0;
	snprintf(rel, sizeof(rel), "proc/irq/%u/node", q->irq);
	n = root_read_small(r, rel, buf, sizeof(buf));
	if (n > 0) {
		q->has_node = true;
		q->node = (int)strtol(buf, NULL, 10);
	}
	/* /sys/kernel/irq/N exists since 4.17; /proc/interrupts has the same
	 * words and advise falls back to it */
	snprintf(rel, sizeof(rel), "sys/kernel/irq/%u/actions", q->irq);
	if (root_read_small(r, rel, q->actions, sizeof(q->actions)) < 0) {
		q->actions[0] = '\0';
		add_missing(t, "/sys/kernel/irq/N");
	}
	snprintf(rel, sizeof(rel), "sys/kernel/irq/%u/chip_name", q->irq);
	if (root_read_small(r, rel, q->chip_name, sizeof(q->chip_name)) < 0)
		q->chip_name[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/kernel/irq/%u/hwirq", q->irq);
	if (root_read_small(r, rel, q->hwirq, sizeof(q->hwirq)) < 0)
		q->hwirq[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/kernel/debug/irq/irqs/%u", q->irq);
	n = root_read_small(r, rel, buf, sizeof(buf));
	/* the guess from the driver waits for the PCI functions: guess_managed() */
	e = n >= 0 ? topology_parse_debugfs_managed(buf, (size_t)n) : -ENOENT;
	if (e >= 0) {
		q->managed_known = true;
		q->managed = e == 1;
		if (q->managed)
			snprintf(q->managed_why, sizeof(q->managed_why),
				 "IRQD_AFFINITY_MANAGED in /sys/kernel/debug/irq/irqs/%u", q->irq);
	}
}

/* Managed or not, for IRQs whose debugfs state was not readable. */
static void guess_managed(struct topology *t)
{
	unsigned ncpus = t->has_online ? cpuset_count(&t->online) : 0;

	for (size_t i = 0; i < t->nirqs; i++) {
		struct topo_irq *q = &t->irqs[i];
		const struct topo_dev *d = q->dev >= 0 ? &t->devs[q->dev] : NULL;

		if (q->managed_known)
			continue;
		q->managed =
		    topology_guess_managed(q->actions, d ? d->driver : "", d ? d->nirqs : 0, ncpus,
					   q->managed_why, sizeof(q->managed_why));
		if (!q->managed)
			q->managed_why[0] = '\0';
	}
}

static int add_msi(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topo_dev *d = c->dev;
	uint32_t irq, *n;

	if (!str_u32(name, &irq))
		return 0;
	n = realloc(d->irqs, (d->nirqs + 1) * sizeof(*d->irqs));
	if (!n)
		return -ENOMEM;
	d->irqs = n;
	d->irqs[d->nirqs++] = irq;
	return 0;
}

static int first_name(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;

	/* readdir order is arbitrary: keep the smallest for a stable name */
	if (c->count == 0 || strcmp(name, c->first) < 0)
		str_copy(c->first, sizeof(c->first), name);
	c->count++;
	return 0;
}

static int scsi_host(const char *name, void *ctx)
{
	if (strncmp(name, "host", 4) != 0 || !isdigit((unsigned char)name[4]))
		return 0;
	return first_name(name, ctx);
}

static bool subdir_name(const struct root *r, const char *rel, int (*fn)(const char *, void *),
			struct collect_ctx *c)
{
	c->count = 0;
	c->first[0] = '\0';
	return topology_for_each_name(r, rel, fn, c) >= 0 && c->count > 0;
}

static int add_dev(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topology *t = c->t;
	const struct root *r = c->r;
	struct topo_dev d = { 0 };
	char rel[600], link[512];
	ssize_t n;
	int e;

	if (!is_pci_addr(name, strlen(name)))
		return 0;
	str_copy(d.pci, sizeof(d.pci), name);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/msi_irqs", name);
	c->dev = &d;
	e = topology_for_each_name(r, rel, add_msi, c);
	if (e == -ENOMEM) {
		free(d.irqs);
		return e;
	}
	if (d.nirqs == 0) /* legacy INTx devices are matched through actions */
		return 0;
	if (d.nirqs > 1)
		qsort(d.irqs, d.nirqs, sizeof(*d.irqs), cmp_u32);
	d.numa_node = -1;
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/numa_node", name);
	{
		char buf[16];

		if (root_read_small(r, rel, buf, sizeof(buf)) > 0) {
			d.has_numa = true;
			d.numa_node = (int)strtol(buf, NULL, 10);
		} else {
			add_missing(t, "/sys/bus/pci/devices/ADDR/numa_node");
		}
	}
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/local_cpulist", name);
	d.has_local = read_list(r, rel, &d.local_cpus) == 0 && !cpuset_empty(&d.local_cpus);
	if (!d.has_local)
		add_missing(t, "/sys/bus/pci/devices/ADDR/local_cpulist");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", name);
	n = root_readlink(r, rel, link, sizeof(link) - 1);
	if (n > 0) {
		const char *b;

		link[n] = '\0';
		b = strrchr(link, '/');
		str_copy(d.driver, sizeof(d.driver), b ? b + 1 : link);
	}
	str_copy(d.name, sizeof(d.name), name);
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/net", name);
	if (subdir_name(r, rel, first_name, c)) {
		d.kind = TOPO_DEV_NET;
		str_copy(d.name, sizeof(d.name), c->first);
	} else {
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/nvme", name);
		if (subdir_name(r, rel, first_name, c)) {
			d.kind = TOPO_DEV_NVME;
			str_copy(d.name, sizeof(d.name), c->first);
		} else {
			snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", name);
			if (subdir_name(r, rel, scsi_host, c)) {
				d.kind = TOPO_DEV_SCSI;
				str_copy(d.name, sizeof(d.name), c->first);
			}
		}
	}
	if (grow((void **)&t->devs, &t->devs_cap, t->ndevs + 1, sizeof(*t->devs)) < 0) {
		free(d.irqs);
		return -ENOMEM;
	}
	t->devs[t->ndevs++] = d;
	return 0;
}

static int dev_by_pci(const struct topology *t, const char *pci)
{
	for (size_t i = 0; i < t->ndevs; i++)
		if (strcmp(t->devs[i].pci, pci) == 0)
			return (int)i;
	return -1;
}

static int count_entry(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;

	if (strncmp(name, c->prefix, strlen(c->prefix)) == 0)
		c->count++;
	return 0;
}

static int add_net(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topology *t = c->t;
	const struct root *r = c->r;
	struct topo_net n = { 0 };
	char rel[600], link[512], pci[16], buf[TOPO_LIST_MAX];
	ssize_t len;
	long v;

	str_copy(n.ifname, sizeof(n.ifname), name);
	n.dev = -1;
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device", name);
	len = root_readlink(r, rel, link, sizeof(link) - 1);
	if (len <= 0)
		return 0; /* lo, bridges, tunnels: no hardware queue to steer */
	link[len] = '\0';
	if (topology_pci_from_link(link, pci, sizeof(pci)) == 0)
		n.dev = dev_by_pci(t, pci);
	snprintf(rel, sizeof(rel), "sys/class/net/%s/queues", name);
	c->count = 0;
	c->prefix = "rx-";
	if (topology_for_each_name(r, rel, count_entry, c) < 0)
		add_missing(t, "/sys/class/net/IF/queues");
	n.rx_queues = c->count;
	snprintf(rel, sizeof(rel), "sys/class/net/%s/queues/rx-0/rps_cpus", name);
	len = root_read_small(r, rel, buf, sizeof(buf));
	if (len >= 0 && cpuset_parse_mask(buf, (size_t)len, &n.rps_cpus) == 0) {
		n.has_rps = true;
		str_copy(n.rps_cpus_raw, sizeof(n.rps_cpus_raw), buf);
	} else {
		/* CONFIG_RPS off, or a container without /sys/class/net */
		add_missing(t, "/sys/class/net/IF/queues/rx-0/rps_cpus");
	}
	snprintf(rel, sizeof(rel), "sys/class/net/%s/queues/rx-0/rps_flow_cnt", name);
	v = read_long(r, rel);
	if (v >= 0) {
		n.has_flow_cnt = true;
		n.rps_flow_cnt = (uint64_t)v;
	}
	if (grow((void **)&t->nets, &t->nets_cap, t->nnets + 1, sizeof(*t->nets)) < 0)
		return -ENOMEM;
	t->nets[t->nnets++] = n;
	return 0;
}

static int add_block(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topology *t = c->t;
	const struct root *r = c->r;
	struct topo_block b = { 0 };
	char rel[600], buf[128];

	str_copy(b.name, sizeof(b.name), name);
	b.dev = -1;
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/scheduler", name);
	if (root_read_small(r, rel, buf, sizeof(buf)) > 0) {
		str_copy(b.schedulers, sizeof(b.schedulers), buf);
		if (topology_parse_scheduler(buf, b.scheduler, sizeof(b.scheduler)) < 0)
			b.scheduler[0] = '\0';
	}
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/nr_requests", name);
	b.nr_requests = read_long(r, rel);
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/read_ahead_kb", name);
	b.read_ahead_kb = read_long(r, rel);
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/rotational", name);
	b.rotational = (int)read_long(r, rel);
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/rq_affinity", name);
	b.rq_affinity = read_long(r, rel);
	snprintf(rel, sizeof(rel), "sys/block/%s/mq", name);
	c->count = 0;
	c->prefix = "";
	if (topology_for_each_name(r, rel, count_entry, c) >= 0)
		b.nr_hw_queues = c->count;
	if (grow((void **)&t->blocks, &t->blocks_cap, t->nblocks + 1, sizeof(*t->blocks)) < 0)
		return -ENOMEM;
	t->blocks[t->nblocks++] = b;
	return 0;
}

/* sys/dev/block/MAJ:MIN links to the device under its controller:
 * "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/.../block/sda". */
static int link_block(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topology *t = c->t;
	char rel[600], link[512], pci[16];
	const char *b;
	ssize_t n;

	snprintf(rel, sizeof(rel), "sys/dev/block/%s", name);
	n = root_readlink(c->r, rel, link, sizeof(link) - 1);
	if (n <= 0)
		return 0;
	link[n] = '\0';
	b = strrchr(link, '/');
	if (!b || topology_pci_from_link(link, pci, sizeof(pci)) < 0)
		return 0;
	for (size_t i = 0; i < t->nblocks; i++)
		if (strcmp(t->blocks[i].name, b + 1) == 0)
			t->blocks[i].dev = dev_by_pci(t, pci);
	return 0;
}

bool topology_comm_is_irqbalance(const struct root *r, const char *pid)
{
	char rel[600], comm[32];

	snprintf(rel, sizeof(rel), "proc/%s/comm", pid);
	return root_read_small(r, rel, comm, sizeof(comm)) > 0 && strcmp(comm, "irqbalance") == 0;
}

static int find_irqbalance(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	struct topo_irqbalance *ib = &c->t->irqbalance;
	uint32_t pid;

	if (ib->running || !str_u32(name, &pid) || !topology_comm_is_irqbalance(c->r, name))
		return 0;
	ib->running = true;
	ib->pid = (int)pid;
	return 0;
}

static void read_whole(const struct root *r, const char *rel, struct topo_irqbalance *ib)
{
	char buf[8192];
	ssize_t n;
	int fd;

	fd = root_openat(r, rel, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0)
		topology_parse_irqbalance(buf, (size_t)n, ib);
}

static void collect_irqbalance(const struct root *r, struct topo_hint *h, struct topology *t)
{
	static const char *const configs[] = { "etc/default/irqbalance",
					       "etc/sysconfig/irqbalance" };
	struct collect_ctx c = { .r = r, .t = t };
	struct topo_irqbalance *ib = &t->irqbalance;
	char pid[16];

	if (h && h->irqbalance_pid > 0) {
		snprintf(pid, sizeof(pid), "%d", h->irqbalance_pid);
		if (topology_comm_is_irqbalance(r, pid)) {
			ib->running = true;
			ib->pid = h->irqbalance_pid;
			t->has_irqbalance = true;
		}
	}
	if (!ib->running && h && h->rescan_wait > 0) {
		/* not running at the last search: searched again in a while */
		h->rescan_wait--;
		t->has_irqbalance = true;
	} else if (!ib->running) {
		t->has_irqbalance = topology_for_each_name(r, "proc", find_irqbalance, &c) >= 0;
		if (h && ib->running) {
			h->rescan_every = h->rescan_wait = 0;
		} else if (h) {
			h->rescan_every = !h->rescan_every ? TOPO_IRQBALANCE_RESCAN
					  : 2 * h->rescan_every > TOPO_IRQBALANCE_RESCAN_MAX
					      ? TOPO_IRQBALANCE_RESCAN_MAX
					      : 2 * h->rescan_every;
			h->rescan_wait = h->rescan_every - 1;
		}
	}
	if (h)
		h->irqbalance_pid = ib->running ? ib->pid : 0;
	if (ib->running) {
		char rel[600];

		snprintf(rel, sizeof(rel), "proc/%d/cmdline", ib->pid);
		read_whole(r, rel, ib);
		snprintf(rel, sizeof(rel), "proc/%d/environ", ib->pid);
		read_whole(r, rel, ib);
	}
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		int fd = root_openat(r, configs[i], O_RDONLY);

		if (fd < 0)
			continue;
		close(fd);
		if (!ib->config[0])
			snprintf(ib->config, sizeof(ib->config), "/%s", configs[i]);
		/* the running daemon's environ already holds what systemd read
		 * from this file; parse it anyway for a stopped daemon */
		read_whole(r, configs[i], ib);
	}
}

static int count_node(const char *name, void *ctx)
{
	struct collect_ctx *c = ctx;
	uint32_t n;

	if (strncmp(name, "node", 4) == 0 && str_u32(name + 4, &n))
		c->count++;
	return 0;
}

/*
 * Without the sysfs lists, the boot parameters they come from: the kernel
 * command line is what the kernel parsed, so with it readable, no isolcpus=
 * means no isolated CPU.
 */
static void cmdline_cpus(const struct root *r, struct topology *t)
{
	char *buf = malloc(4096);
	struct cpuset s;
	int n;

	if (!buf)
		return; /* as if unreadable: isolated stays missing */
	n = root_read_small(r, "proc/cmdline", buf, 4096);
	if (n >= 0 && !t->has_isolated &&
	    topology_parse_cmdline_cpus(buf, (size_t)n, "isolcpus", &s) >= 0) {
		t->has_isolated = true;
		t->isolated_from_cmdline = true;
		t->isolated = s;
	}
	if (n >= 0 && !t->has_nohz_full &&
	    topology_parse_cmdline_cpus(buf, (size_t)n, "nohz_full", &s) == 1) {
		t->nohz_full_from_cmdline = true;
		t->nohz_full = s;
	}
	free(buf);
}

int topology_collect(const struct root *r, struct topology *t)
{
	return topology_collect_hint(r, NULL, t);
}

int topology_collect_hint(const struct root *r, struct topo_hint *h, struct topology *t)
{
	struct collect_ctx c = { .r = r, .t = t };
	long v;
	int e;

	memset(t, 0, sizeof(*t));
	t->rps_sock_flow_entries = -1;
	t->has_online = read_list(r, "sys/devices/system/cpu/online", &t->online) == 0;
	if (!t->has_online)
		add_missing(t, "/sys/devices/system/cpu/online");
	t->has_isolated = read_list(r, "sys/devices/system/cpu/isolated", &t->isolated) == 0;
	/* nohz_full exists only with CONFIG_NO_HZ_FULL; its absence means none */
	t->has_nohz_full = read_list(r, "sys/devices/system/cpu/nohz_full", &t->nohz_full) == 0;
	if (!t->has_nohz_full)
		memset(&t->nohz_full, 0, sizeof(t->nohz_full));
	if (!t->has_isolated || !t->has_nohz_full)
		cmdline_cpus(r, t);
	if (!t->has_isolated)
		add_missing(t, "/sys/devices/system/cpu/isolated");
	if (topology_for_each_name(r, "sys/devices/system/node", count_node, &c) >= 0)
		t->nr_nodes = (int)c.count;

	e = topology_for_each_name(r, "proc/irq", add_irq, &c);
	if (e == -ENOMEM)
		goto nomem;
	if (e < 0)
		add_missing(t, "/proc/irq");
	if (t->nirqs > 1)
		qsort(t->irqs, t->nirqs, sizeof(*t->irqs), cmp_irq);
	for (size_t i = 0; i < t->nirqs; i++)
		fill_irq(r, t, &t->irqs[i]);

	e = topology_for_each_name(r, "sys/bus/pci/devices", add_dev, &c);
	if (e == -ENOMEM)
		goto nomem;
	if (e < 0)
		add_missing(t, "/sys/bus/pci/devices");
	for (size_t d = 0; d < t->ndevs; d++)
		for (size_t k = 0; k < t->devs[d].nirqs; k++)
			for (size_t i = 0; i < t->nirqs; i++)
				if (t->irqs[i].irq == t->devs[d].irqs[k])
					t->irqs[i].dev = (int)d;
	guess_managed(t);

	e = topology_for_each_name(r, "sys/class/net", add_net, &c);
	if (e == -ENOMEM)
		goto nomem;
	v = read_long(r, "proc/sys/net/core/rps_sock_flow_entries");
	t->rps_sock_flow_entries = v;

	e = topology_for_each_name(r, "sys/block", add_block, &c);
	if (e == -ENOMEM)
		goto nomem;
	if (topology_for_each_name(r, "sys/dev/block", link_block, &c) < 0 && t->nblocks)
		add_missing(t, "/sys/dev/block");

	collect_irqbalance(r, h, t);
	return 0;
nomem:
	topology_free(t);
	return -ENOMEM;
}

void topology_free(struct topology *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ndevs; i++)
		free(t->devs[i].irqs);
	free(t->irqs);
	free(t->devs);
	free(t->nets);
	free(t->blocks);
	memset(t, 0, sizeof(*t));
	t->rps_sock_flow_entries = -1;
}

const struct topo_irq *topology_irq(const struct topology *t, uint32_t irq)
{
	size_t lo = 0, hi = t->nirqs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->irqs[mid].irq == irq)
			return &t->irqs[mid];
		if (t->irqs[mid].irq < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Whether a /sys/block entry's name is a disk's name from /proc/diskstats:
 * sysfs has '!' where the disk's name has '/' (cciss!c0d0, cciss/c0d0). */
static bool sysfs_name_is(const char *sysfs, const char *name)
{
	for (; *sysfs && *name; sysfs++, name++)
		if (*sysfs != (*name == '/' ? '!' : *name))
			return false;
	return *sysfs == *name;
}

const struct topo_block *topology_block(const struct topology *t, const char *name)
{
	for (size_t i = 0; i < t->nblocks; i++)
		if (sysfs_name_is(t->blocks[i].name, name))
			return &t->blocks[i];
	return NULL;
}
