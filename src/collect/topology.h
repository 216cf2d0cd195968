/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology: what the advisor needs to know about where interrupts can go —
 * IRQ affinities, the PCI device behind each IRQ and its NUMA node, NIC RPS
 * settings, block queue settings, online/isolated CPUs, irqbalance. Collected
 * under --root once per advice; no rates, no judgement. Files the kernel
 * does not offer are listed in `missing`, never guessed.
 */
#ifndef IOTRIAGE_TOPOLOGY_H
#define IOTRIAGE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "iotriage/types.h"
#include "root.h"

#define TOPO_LIST_MAX 192 /* "0-3,8,10-11": a cpulist as the kernel prints it */

enum topo_dev_kind {
	TOPO_DEV_OTHER,
	TOPO_DEV_NET,
	TOPO_DEV_NVME,
	TOPO_DEV_SCSI,
};

/* One IRQ of /proc/irq/N. Absent files leave has_* false. */
struct topo_irq {
	uint32_t irq;
	bool has_smp, has_eff, has_hint, has_node;
	struct cpuset smp_affinity;   /* smp_affinity_list */
	char smp_list[TOPO_LIST_MAX]; /* as read: the undo value */
	struct cpuset effective;      /* effective_affinity_list */
	struct cpuset hint;	      /* affinity_hint (a mask; empty when unset) */
	int node;		      /* /proc/irq/N/node, -1 none */
	char actions[96];	      /* /sys/kernel/irq/N/actions: "nvme0q1", "eth0" */
	char chip_name[32];	      /* "PCI-MSI", "IR-PCI-MSIX-0000:03:00.0" */
	char hwirq[32];
	bool managed;	      /* kernel-managed affinity: writes get EIO */
	bool managed_known;   /* managed read from debugfs; else guessed from the driver */
	char managed_why[96]; /* how we know or why we guess (see doc/advise.md) */
	int dev;	      /* index in topology.devs, -1 when unknown */
};

/* One PCI function with MSI/MSI-X vectors (sys/bus/pci/devices/ADDR). */
struct topo_dev {
	char pci[16]; /* "0000:03:00.0" */
	char driver[32];
	enum topo_dev_kind kind;
	char name[IOT_NAME_MAX]; /* eth0, nvme0, host0, else the PCI address */
	int numa_node;		 /* -1: none or unknown (has_numa says which) */
	bool has_numa;
	bool has_local;
	struct cpuset local_cpus;
	uint32_t *irqs; /* msi_irqs/, ascending */
	size_t nirqs;
};

/* One network interface and its first receive queue's RPS settings. */
struct topo_net {
	char ifname[IOT_NAME_MAX];
	int dev; /* topology.devs index, -1 when not a PCI function with MSI */
	unsigned rx_queues;
	bool has_rps;
	struct cpuset rps_cpus; /* queues/rx-0/rps_cpus */
	char rps_cpus_raw[TOPO_LIST_MAX];
	bool has_flow_cnt;
	uint64_t rps_flow_cnt; /* queues/rx-0/rps_flow_cnt */
};

/* One whole block device's queue settings. */
struct topo_block {
	char name[IOT_NAME_MAX];
	int dev;	       /* topology.devs index of the controller, -1 unknown */
	char scheduler[32];    /* the bracketed one of queue/scheduler, "" unknown */
	char schedulers[96];   /* every one offered */
	long nr_requests;      /* -1 unknown */
	long read_ahead_kb;    /* -1 unknown */
	long rq_affinity;      /* queue/rq_affinity: 0, 1, 2; -1 unknown */
	int rotational;	       /* 1, 0, -1 unknown */
	unsigned nr_hw_queues; /* entries of mq/, 0 unknown or single-queue path */
};

struct topo_irqbalance {
	bool running;
	int pid;
	struct cpuset banned_cpus; /* IRQBALANCE_BANNED_CPUS / _CPULIST */
	uint32_t banned_irqs[64];  /* --banirq=N */
	size_t nbanned_irqs;
	char config[64]; /* "/etc/default/irqbalance" when one exists, "" else */
};

#define TOPO_MISSING_MAX 24

struct topology {
	bool has_online, has_isolated, has_nohz_full;
	/* isolated / nohz_full read from isolcpus= / nohz_full= of /proc/cmdline,
	 * the sysfs file being absent */
	bool isolated_from_cmdline, nohz_full_from_cmdline;
	struct cpuset online, isolated, nohz_full;
	int nr_nodes;	       /* 0 unknown */
	struct topo_irq *irqs; /* ascending irq */
	size_t nirqs, irqs_cap;
	struct topo_dev *devs;
	size_t ndevs, devs_cap;
	struct topo_net *nets;
	size_t nnets, nets_cap;
	struct topo_block *blocks;
	size_t nblocks, blocks_cap;
	bool has_irqbalance; /* /proc was scanned for it */
	struct topo_irqbalance irqbalance;
	long rps_sock_flow_entries; /* -1 unknown */
	/* What the kernel did not offer, as patterns ("/proc/irq/N/effective_affinity_list"),
	 * each once; the advice that needed them is lowered, not guessed. */
	char missing[TOPO_MISSING_MAX][96];
	size_t nmissing;
};

/*
 * Reads the whole topology under r into *t (t zeroed or freed first). Only
 * allocation failure is an error (-ENOMEM); every missing file or directory
 * is recorded in t->missing and the rest still read.
 */
int topology_collect(const struct root *r, struct topology *t);

/*
 * What a caller that reads the topology again and again keeps between
 * reads, so that finding irqbalance does not cost a read of every
 * /proc/PID/comm each time (11 ms with 2 000 processes): its PID is checked
 * first, and when it was not running all of /proc is searched only every
 * TOPO_IRQBALANCE_RESCAN-th read. Zeroed to start.
 */
struct topo_hint {
	int irqbalance_pid;    /* running at the last read, 0 none */
	unsigned rescan_wait;  /* reads left before /proc is searched again */
	unsigned rescan_every; /* reads between searches that find none, 0: not yet */
};
/* A search of /proc reads every /proc/PID/comm (11 ms with 2 000
 * processes): one that found no irqbalance waits this many reads, twice as
 * many after each such search, up to the MAX (30 reads of 10 s: 5 min). */
#define TOPO_IRQBALANCE_RESCAN	   6
#define TOPO_IRQBALANCE_RESCAN_MAX 30

/* topology_collect() with a hint (NULL: search /proc every time). */
int topology_collect_hint(const struct root *r, struct topo_hint *h, struct topology *t);
void topology_free(struct topology *t);

/* Lookups; NULL when absent. A block by its /proc/diskstats name (cciss/c0d0
 * finds /sys/block/cciss!c0d0). */
const struct topo_irq *topology_irq(const struct topology *t, uint32_t irq);
const struct topo_block *topology_block(const struct topology *t, const char *name);
bool topology_missing(const struct topology *t, const char *pattern);

/*
 * Records every file topology_collect reads from src into the tree at dfd
 * (iotriage capture), links as links with the same target text, irqbalance's
 * environment reduced to its IRQBALANCE_* variables, /proc/cmdline to its
 * isolcpus= and nohz_full= words. Absent files are
 * skipped. Returns 0 (files written in *ret_files) or -ENOMEM.
 */
int topology_capture(const struct root *src, int dfd, unsigned *ret_files);

/* Pure helpers shared with the tests and the fuzzer. */

/* Managed-IRQ verdict from the debugfs state file text (/sys/kernel/debug/irq/irqs/N):
 * 1 managed, 0 not, -ENOENT when the text carries no flags line. */
int topology_parse_debugfs_managed(const char *buf, size_t len);
/*
 * Managed-IRQ guess for an IRQ whose debugfs state cannot be read, from its
 * action name, its PCI function's driver ("" unknown), that function's
 * vector count and the online CPU count (0 unknown): true when the driver
 * allocates these vectors with PCI_IRQ_AFFINITY, with the reason in why.
 */
bool topology_guess_managed(const char *actions, const char *driver, size_t nvecs, unsigned ncpus,
			    char *why, size_t why_size);
/*
 * The CPUs of boot parameter key ("isolcpus" or "nohz_full") in the kernel
 * command line (/proc/cmdline), as the kernel parses them: isolcpus= may
 * start with flags ("nohz,", "domain,", "managed_irq,"; an unknown flag
 * makes the kernel ignore it); every occurrence is added. Returns 1 (found,
 * *ret set), 0 (absent, *ret empty) or -EINVAL (a list this parser cannot
 * read: "N", "a-b:c/d").
 */
int topology_parse_cmdline_cpus(const char *buf, size_t len, const char *key, struct cpuset *ret);
/* The scheduler in brackets of queue/scheduler ("mq-deadline kyber [none]"). */
int topology_parse_scheduler(const char *buf, char *ret, size_t size);
/* irqbalance's configuration from NUL- or newline-separated text (its
 * cmdline, environ or /etc/default/irqbalance): banned CPUs and --banirq. */
void topology_parse_irqbalance(const char *buf, size_t len, struct topo_irqbalance *ib);
/* The last PCI address ("0000:03:00.0") in a sysfs link target, or -ENOENT. */
int topology_pci_from_link(const char *link, char *ret, size_t size);

#endif
