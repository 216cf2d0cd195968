/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the advisor: the context every rule reads and adds to, and the
 * helpers its files share (each group says which file holds it). Included
 * by the files of src/advise/ only; the interface is advise.h.
 */
#ifndef IOTRIAGE_ADVISE_INT_H
#define IOTRIAGE_ADVISE_INT_H

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "workload.h"
#include "grow.h"
#include "metrics_cgroup.h"
#include "metrics_proc.h"
#include "netlink.h"
#include "diskstats.h"
#include "irqtab.h"
#include "kname.h"
#include "str.h"
#include "text.h"

struct ctx {
	const struct snapshot *cur;
	const struct metrics *m;
	const struct topology *t;
	struct advice *a;
	bool irq_suggested;
	bool need_irqbalance_finding;
	bool wb_throttled;		/* writers throttled by the dirty page cache this sample */
	const struct trace_metrics *tm; /* the tracing stage's interval, NULL none */
	bool timed;	  /* its hardirq and softirq probes ran: a core is judged by time */
	bool block_timed; /* its block probe ran: latency tails, completion locality */
};

#define SOFTIRQ_BLOCK 4 /* BLOCK_SOFTIRQ's vector (include/linux/interrupt.h) */

struct hot_group {
	char key[IOT_NAME_MAX + 8];
	int dev;
	char label[IOT_NAME_MAX];
	double rate; /* on the hot CPU */
	double us;   /* measured hardirq µs/s of its lines on the hot CPU (--trace) */
	unsigned nirqs;
	unsigned nmanaged_hot; /* of those, kernel-managed */
	uint32_t irq;	       /* the first IRQ added (the only one when nirqs is 1) */
	bool has_irq;
	bool managed_guessed; /* the first of those: from its driver, not debugfs */
	char managed_why[96];
};

/* The softirqs on the hot CPU: their sum, NET_RX there and everywhere. */
struct soft_shares {
	double sum, netrx, netrx_all, block; /* per second */
	bool timed;			     /* --trace: the measured time below */
	double sum_us, block_us;	     /* softirq and BLOCK µs/s on the CPU */
};

/* advise.c */
struct finding *add_finding(struct advice *a, enum finding_kind kind, enum advise_severity sev,
			    const char *subject);
struct suggestion *add_suggestion(struct advice *a, const char *id, enum advise_severity sev,
				  const char *finding);
struct advise_action *add_action(struct suggestion *s, const char *path, const char *value,
				 const char *undo);

/* rank.c */
double kind_harm(enum finding_kind k);

/* commands.c */
bool device_path(char *buf, size_t size, const char *dir, enum kname_kind kind, const char *name,
		 const char *file);

/* measure.c */
int cmp_double(const void *a, const void *b); /* qsort: ascending doubles */
double median_without(const double *sorted, size_t n, double self);
double median(double *v, size_t n);
double trace_cpu_us(const struct ctx *c, int cpu);
double trace_soft_us(const struct ctx *c, int cpu);
double trace_irq_us(const struct ctx *c, uint32_t irq, int cpu);
double cpu_load(const struct ctx *c, const struct cpu_metrics *cm);
const struct trace_disk_metrics *trace_disk(const struct ctx *c, const char *name);
int rate_col(const struct rate_table *rt, int cpu);
const struct irq_row *rate_irq_row(const struct ctx *c, const struct rate_row *rr);
const struct irq_row *cur_irq_row(const struct ctx *c, uint32_t irq);
const char *irq_actions(const struct ctx *c, const struct irq_row *row, const struct topo_irq *ti);
void irq_group_key(const struct ctx *c, const struct topo_irq *ti, const char *actions, char *buf,
		   size_t size);
double disk_await(const struct disk_metrics *d);
const struct disk_raw *raw_of(const struct ctx *c, const struct disk_metrics *d);
const struct disk_metrics *metrics_by_name(const struct metrics *m, const char *name);
double psi_some(const struct ctx *c, enum psi_res r);
bool psi_hurts(const struct ctx *c, enum psi_res r);
void psi_text(const struct ctx *c, enum psi_res r, char *buf, size_t size);

/* culprits.c */
void proc_short(const struct proc_metrics *p, char *buf, size_t size);
void io_culprits(const struct ctx *c, struct finding *f, const struct disk_metrics *d);
void cpu_culprits(const struct ctx *c, struct finding *f);
void iowait_culprits(const struct ctx *c, struct finding *f);
#define CULPRIT_PIDS_MAX 8 /* a group's members named in a command */
const struct culprit *first_cause(const struct finding *f);
bool culprit_has(const struct ctx *c, const struct culprit *u, const struct proc_metrics *p);
size_t culprit_pids(const struct ctx *c, const struct culprit *u, int32_t *pids, size_t max);
/* victims.c: who waits on a disk finding's io, a CPU finding's CPUs; the
 * cause (a culprit of f, NULL none) is never its own victim */
void io_victims(const struct ctx *c, struct finding *f, const struct disk_metrics *d,
		const struct culprit *cause);
void cpu_victims(const struct ctx *c, struct finding *f, const struct culprit *cause);
/* remedy.c: the fix that fits the culprit, as text to type */
void io_remedy(const struct ctx *c, struct finding *f, const struct disk_metrics *d,
	       const struct topo_block *b);
void cpu_remedy(const struct ctx *c, struct finding *f);

/* rules_cpu.c */
int find_hot_cpus(struct ctx *c);
int find_cpus(struct ctx *c);
int find_iowait(struct ctx *c);

/* rules_irq.c */
void device_cpus(const struct topology *t, int dev, struct cpuset *ret, char *note,
		 size_t note_size);
void irqbalance_note(const struct topology *t, const uint32_t *irqs, size_t n, char *buf,
		     size_t size);
int suggest_spread(struct ctx *c, const struct finding *hot, int cpu, double cpu_intr,
		   double cpu_load, const struct hot_group *g, char *why, size_t why_size);
int suggest_single(struct ctx *c, const struct finding *hot, const struct cpu_metrics *cm,
		   const struct hot_group *g, const struct soft_shares *ss, char *why,
		   size_t why_size);

/* rules_net.c */
int suggest_net(struct ctx *c, const struct finding *hot, int cpu, double netrx, double netrx_share,
		char *why, size_t why_size);

/* rules_disk.c */
int suggest_rq_affinity(struct ctx *c, const struct finding *hot, const struct cpu_metrics *cm,
			const struct hot_group *g, const struct soft_shares *ss, char *why,
			size_t why_size);
int find_disks(struct ctx *c);
int find_members(struct ctx *c);

/* rules_writeback.c */
bool wb_throttled(const struct ctx *c);
void wb_sentence(const struct ctx *c, struct finding *f);
int find_writeback(struct ctx *c);

#endif
