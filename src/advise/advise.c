// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisor: findings (hot CPU, saturated/slow disk, md/dm member
 * imbalance, frozen counters) and the suggestions that answer them (spread a
 * device's queue IRQs, RPS for a single-queue NIC, queue settings with
 * evidence). Pure: reads only its arguments. doc/advise.md is its reference.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "workload.h"
#include "grow.h"
#include "metrics_proc.h"
#include "netlink.h"
#include "diskstats.h"
#include "irqtab.h"
#include "kname.h"
#include "str.h"
#include "text.h"

/* Appends to a fixed text buffer; truncates quietly (the text is a message). */
/* snprintf into a fixed label; clipping a long device name is acceptable. */
static void __attribute__((format(printf, 3, 4))) fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

const char *advise_severity_name(enum advise_severity s)
{
	switch (s) {
	case ADV_INFO:
		return "info";
	case ADV_WARNING:
		return "warning";
	case ADV_CRITICAL:
		return "critical";
	}
	return "?";
}

const char *advise_kind_name(enum finding_kind k)
{
	static const char *const names[] = {
		[FIND_HOT_CPU] = "hot_cpu",
		[FIND_DISK_SATURATED] = "disk_saturated",
		[FIND_DISK_SLOW] = "disk_slow",
		[FIND_MEMBER_IMBALANCE] = "member_imbalance",
		[FIND_IOSTATS_OFF] = "iostats_off",
		[FIND_MANAGED_IRQS] = "managed_irqs",
		[FIND_IRQBALANCE] = "irqbalance",
		[FIND_TOPOLOGY_MISSING] = "topology_missing",
		[FIND_WRITEBACK_THROTTLED] = "writeback_throttled",
		[FIND_CPU_SATURATED] = "cpu_saturated",
		[FIND_STEAL] = "steal",
		[FIND_IOWAIT] = "iowait",
	};

	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

static struct finding *add_finding(struct advice *a, enum finding_kind kind,
				   enum advise_severity sev, const char *subject)
{
	struct finding *f;

	if (grow((void **)&a->findings, &a->findings_cap, a->nfindings + 1, sizeof(*f)) < 0)
		return NULL;
	f = &a->findings[a->nfindings++];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->severity = sev;
	str_copy(f->subject, sizeof(f->subject), subject);
	snprintf(f->id, sizeof(f->id), "%s-%s", advise_kind_name(kind), subject);
	for (char *p = f->id; *p; p++)
		if (*p == '_')
			*p = '-';
	return f;
}

static struct suggestion *add_suggestion(struct advice *a, const char *id, enum advise_severity sev,
					 const char *finding)
{
	struct suggestion *s;

	if (grow((void **)&a->suggestions, &a->suggestions_cap, a->nsuggestions + 1, sizeof(*s)) <
	    0)
		return NULL;
	s = &a->suggestions[a->nsuggestions++];
	memset(s, 0, sizeof(*s));
	str_copy(s->id, sizeof(s->id), id);
	s->severity = sev;
	str_copy(s->finding, sizeof(s->finding), finding);
	return s;
}

static struct advise_action *add_action(struct suggestion *s, const char *path, const char *value,
					const char *undo)
{
	struct advise_action *n;

	n = realloc(s->actions, (s->nactions + 1) * sizeof(*n));
	if (!n)
		return NULL;
	s->actions = n;
	n = &s->actions[s->nactions++];
	memset(n, 0, sizeof(*n));
	str_copy(n->path, sizeof(n->path), path);
	str_copy(n->value, sizeof(n->value), value);
	str_copy(n->undo, sizeof(n->undo), undo);
	return n;
}

void advice_free(struct advice *a)
{
	if (!a)
		return;
	for (size_t i = 0; !a->actions_held && i < a->nsuggestions; i++)
		free(a->suggestions[i].actions);
	free(a->findings);
	free(a->suggestions);
	memset(a, 0, sizeof(*a));
}

const struct suggestion *advice_suggestion(const struct advice *a, const char *id)
{
	for (size_t i = 0; i < a->nsuggestions; i++)
		if (strcmp(a->suggestions[i].id, id) == 0)
			return &a->suggestions[i];
	return NULL;
}

const struct finding *advice_finding(const struct advice *a, const char *id)
{
	for (size_t i = 0; i < a->nfindings; i++)
		if (strcmp(a->findings[i].id, id) == 0)
			return &a->findings[i];
	return NULL;
}

bool advise_ethtool_path(const char *path, char *ret_ifname, size_t size)
{
	size_t lp = strlen(ADV_ETHTOOL_PREFIX), ls = strlen(ADV_ETHTOOL_COMBINED), len, n;
	const char *name;

	if (strncmp(path, ADV_ETHTOOL_PREFIX, lp) != 0)
		return false;
	name = path + lp;
	len = strlen(name);
	if (len <= ls || strcmp(name + len - ls, ADV_ETHTOOL_COMBINED) != 0)
		return false;
	n = len - ls;
	if (n >= IOT_NAME_MAX || !kname_valid(KNAME_IFACE, name, n))
		return false;
	if (ret_ifname) {
		if (size <= n)
			return false;
		memcpy(ret_ifname, name, n);
		ret_ifname[n] = '\0';
	}
	return true;
}

/*
 * The files a suggestion may write, whole paths (a prefix such as
 * "sys/block/" would admit sys/block/sda/device/delete, "sys/class/net/"
 * .../device/remove): '#' is 1 to 10 digits, '@' an interface name, '%' a
 * block device's name under /sys/block ('!' for '/'), each as kname_valid()
 * takes it.
 */
static const char *const writable[] = {
	"proc/irq/#/smp_affinity_list",		"proc/sys/net/core/rps_sock_flow_entries",
	"sys/class/net/@/queues/rx-#/rps_cpus", "sys/class/net/@/queues/rx-#/rps_flow_cnt",
	"sys/block/%/queue/scheduler",		"sys/block/%/queue/nr_requests",
	"sys/block/%/queue/read_ahead_kb",	"sys/block/%/queue/iostats",
	"sys/block/%/queue/rq_affinity",
};

static bool path_match(const char *pat, const char *p)
{
	for (; *pat; pat++) {
		size_t n = 0;

		if (*pat == '#') {
			while (p[n] >= '0' && p[n] <= '9')
				n++;
			if (n == 0 || n > 10)
				return false;
		} else if (*pat == '@' || *pat == '%') {
			n = strcspn(p, "/");
			if (!kname_valid(*pat == '@' ? KNAME_IFACE : KNAME_DISK, p, n))
				return false;
		} else if (*p == *pat) {
			n = 1;
		} else {
			return false;
		}
		p += n;
	}
	return *p == '\0';
}

bool advise_path_allowed(const char *p)
{
	/* not a file: a NIC's combined channel count, set through netlink */
	if (strncmp(p, ADV_ETHTOOL_PREFIX, strlen(ADV_ETHTOOL_PREFIX)) == 0)
		return advise_ethtool_path(p, NULL, 0);
	for (size_t i = 0; i < sizeof(writable) / sizeof(writable[0]); i++)
		if (path_match(writable[i], p))
			return true;
	return false;
}

/*
 * The path of a file under a device's /sys directory into buf[size]:
 * dir + the name's sysfs form (kname_sysfs(): cciss/c0d0 is cciss!c0d0) +
 * file. False, buf unusable, when the name is not one the kernel gives (a
 * recorded "../../../../tmp/X/pwn") or the path is not one
 * advise_path_allowed() takes: such a name gets no command.
 */
static bool device_path(char *buf, size_t size, const char *dir, enum kname_kind kind,
			const char *name, const char *file)
{
	char sname[IOT_NAME_MAX];
	int n;

	if (kname_sysfs(kind, name, sname, sizeof(sname)) < 0)
		return false;
	n = snprintf(buf, size, "%s%s%s", dir, sname, file);
	return n > 0 && (size_t)n < size && n < ADV_PATH_MAX && advise_path_allowed(buf);
}

void advise_command_text(const char *path, const char *v, struct strbuf *sb)
{
	char ifname[IOT_NAME_MAX], host_path[ADV_PATH_MAX + 1];

	if (advise_ethtool_path(path, ifname, sizeof(ifname))) {
		sb_puts(sb, "ethtool -L ");
		text_shell_word(sb, ifname);
		sb_puts(sb, " combined ");
		text_shell_word(sb, v);
		return;
	}

	/* the one builder of commands refuses what apply refuses: a path is
	 * never printed for pasting unless it is a setting iotriage writes */
	if (!advise_path_allowed(path)) {
		sb_puts(sb, "# refused: not a file iotriage writes");
		return;
	}
	/* an empty cpulist cannot be written back: the kernel rejects it; a
	 * recorded empty value is only possible for masks, printed as 0 */
	sb_puts(sb, "echo ");
	text_shell_word(sb, *v ? v : "0");
	sb_puts(sb, " > ");
	snprintf(host_path, sizeof(host_path), "/%s", path);
	text_shell_word(sb, host_path);
}

void advise_command(const struct advise_action *a, bool undo, struct strbuf *sb)
{
	advise_command_text(a->path, undo ? a->undo : a->value, sb);
}

void advise_commands(const struct suggestion *s, bool undo, struct strbuf *sb)
{
	for (size_t i = 0; i < s->nactions; i++) {
		size_t k = undo ? s->nactions - 1 - i : i;

		advise_command(&s->actions[k], undo, sb);
		sb_putc(sb, '\n');
	}
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of sorted[0..n) with one instance of `self` removed. */
static double median_without(const double *sorted, size_t n, double self)
{
	size_t pos = 0, k = n - 1, i1, i2;

	while (pos < n && sorted[pos] != self)
		pos++;
	if (k == 0)
		return 0;
	i1 = (k - 1) / 2;
	i2 = k / 2;
	i1 = i1 < pos ? i1 : i1 + 1;
	i2 = i2 < pos ? i2 : i2 + 1;
	return (sorted[i1] + sorted[i2]) / 2;
}

static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return (v[(n - 1) / 2] + v[n / 2]) / 2;
}

/* ---- CPUs and interrupts ---- */

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

/* ---- measured time (--trace, doc/advise.md "Measured time") ---- */

#define SOFTIRQ_BLOCK 4 /* BLOCK_SOFTIRQ's vector (include/linux/interrupt.h) */

/* The measured irq+soft time of cpu in µs/s (hardirq of every line plus
 * every softirq vector); -1 when not traced. */
static double trace_cpu_us(const struct ctx *c, int cpu)
{
	const struct trace_metrics *tm = c->tm;
	double us;

	if (!c->timed || cpu < 0 || (uint32_t)cpu >= tm->ncpu)
		return -1;
	us = tm->hard_us_s[cpu];
	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		us += tm->soft_us_s[(size_t)cpu * TRACE_NR_SOFTIRQS + v];
	return us;
}

static double trace_soft_us(const struct ctx *c, int cpu)
{
	double us = 0;

	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		us += c->tm->soft_us_s[(size_t)cpu * TRACE_NR_SOFTIRQS + v];
	return us;
}

/* Hardirq µs/s of IRQ line irq on cpu; 0 when it did not run there. */
static double trace_irq_us(const struct ctx *c, uint32_t irq, int cpu)
{
	const struct trace_metrics *tm = c->tm;

	if (!c->timed || cpu < 0 || (uint32_t)cpu >= tm->ncpu)
		return 0;
	for (size_t i = 0; i < tm->nirq; i++)
		if (tm->irq[i] == irq)
			return tm->irq_us_s[i * tm->ncpu + (size_t)cpu];
	return 0;
}

/* A core's irq+soft load in % of the interval: measured time when traced,
 * else mpstat's %irq + %soft. */
static double cpu_load(const struct ctx *c, const struct cpu_metrics *cm)
{
	double us = trace_cpu_us(c, cm->cpu);

	return us >= 0 ? us / 1e4 : cm->irq + cm->soft;
}

/* The block probe's numbers of the disk called name; NULL none. */
static const struct trace_disk_metrics *trace_disk(const struct ctx *c, const char *name)
{
	if (!c->block_timed)
		return NULL;
	for (size_t i = 0; i < c->tm->ndisk; i++)
		if (c->tm->disks[i].name[0] && strcmp(c->tm->disks[i].name, name) == 0)
			return &c->tm->disks[i];
	return NULL;
}

static int rate_col(const struct rate_table *rt, int cpu)
{
	for (size_t k = 0; k < rt->ncpu; k++)
		if (rt->cpu_ids[k] == cpu)
			return (int)k;
	return -1;
}

static const struct irq_row *rate_irq_row(const struct ctx *c, const struct rate_row *rr)
{
	if (rr->cur_index >= c->cur->irqs.n)
		return NULL;
	return &c->cur->irqs.rows[rr->cur_index];
}

/* The /proc/interrupts row of irq: its actions stand in for /sys/kernel/irq
 * on kernels before 4.17. */
static const struct irq_row *cur_irq_row(const struct ctx *c, uint32_t irq)
{
	char label[16];

	snprintf(label, sizeof(label), "%u", irq);
	return irq_table_find(&c->cur->irqs, label, NULL);
}

static const char *irq_actions(const struct ctx *c, const struct irq_row *row,
			       const struct topo_irq *ti)
{
	if (ti && ti->actions[0])
		return ti->actions;
	return row ? row->actions : "";
}

/* Grouping key of an IRQ: its PCI device, else its action name without the
 * trailing queue number ("mpt2sas0-msix12" -> "mpt2sas0-msix"). */
static void irq_group_key(const struct ctx *c, const struct topo_irq *ti, const char *actions,
			  char *buf, size_t size)
{
	size_t n;

	if (ti && ti->dev >= 0) {
		snprintf(buf, size, "dev:%s", c->t->devs[ti->dev].pci);
		return;
	}
	snprintf(buf, size, "act:%s", actions);
	n = strlen(buf);
	while (n > 4 && buf[n - 1] >= '0' && buf[n - 1] <= '9')
		buf[--n] = '\0';
}

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

static bool irq_banned(const struct topology *t, uint32_t irq)
{
	for (size_t i = 0; i < t->irqbalance.nbanned_irqs; i++)
		if (t->irqbalance.banned_irqs[i] == irq)
			return true;
	return false;
}

/* Where IRQs and packet steering may go: online, not isolated, not nohz_full,
 * not banned from irqbalance (the operator reserved them). */
static void usable_cpus(const struct topology *t, struct cpuset *ret)
{
	struct cpuset s = t->online;

	cpuset_andnot(&s, &s, &t->isolated);
	cpuset_andnot(&s, &s, &t->nohz_full);
	cpuset_andnot(&s, &s, &t->irqbalance.banned_cpus);
	*ret = s;
}

/* Target CPUs for a device: usable CPUs of its NUMA node (local_cpulist);
 * all usable CPUs when the node has fewer than two or is unknown. */
static void device_cpus(const struct topology *t, int dev, struct cpuset *ret, char *note,
			size_t note_size)
{
	struct cpuset all, local;

	usable_cpus(t, &all);
	if (dev >= 0 && t->devs[dev].has_local) {
		cpuset_and(&local, &all, &t->devs[dev].local_cpus);
		if (cpuset_count(&local) >= 2) {
			*ret = local;
			return;
		}
		str_cat(
		    note, note_size,
		    "NUMA node %d of %s has fewer than 2 usable CPUs: spreading over all usable "
		    "CPUs (cross-node). ",
		    t->devs[dev].numa_node, t->devs[dev].name);
	}
	*ret = all;
}

static void irqbalance_note(const struct topology *t, const uint32_t *irqs, size_t n, char *buf,
			    size_t size)
{
	bool any = false;

	if (!t->irqbalance.running)
		return;
	str_cat(buf, size, "irqbalance (pid %d) is running and rewrites IRQ affinity every 10 s: ",
		t->irqbalance.pid);
	str_cat(buf, size, "add IRQBALANCE_ARGS=\"");
	for (size_t i = 0; i < n; i++) {
		if (irq_banned(t, irqs[i]))
			continue;
		str_cat(buf, size, "%s--banirq=%u", any ? " " : "", irqs[i]);
		any = true;
	}
	str_cat(buf, size,
		"\" to %s and run `systemctl restart irqbalance`, or stop it with "
		"`systemctl stop irqbalance`. ",
		t->irqbalance.config[0] ? t->irqbalance.config : "/etc/default/irqbalance");
}

static int managed_finding(struct ctx *c, int cpu, const struct hot_group *g, unsigned n,
			   const char *why)
{
	struct finding *f = add_finding(c->a, FIND_MANAGED_IRQS, ADV_INFO, g->label);

	if (!f)
		return -ENOMEM;
	snprintf(f->reason, sizeof(f->reason),
		 "%s: %u of its IRQs load cpu%d but are %skernel-managed: their affinity cannot "
		 "be changed (writes fail with EIO)",
		 g->label, n, cpu, g->managed_guessed ? "most likely " : "");
	if (g->managed_guessed)
		snprintf(f->detail, sizeof(f->detail),
			 "Guessed, not read: /sys/kernel/debug/irq/irqs/N is not readable "
			 "(debugfs not mounted, or not root), and %s. ",
			 why);
	else
		snprintf(f->detail, sizeof(f->detail), "Known from %s. ", why);
	str_cat(f->detail, sizeof(f->detail),
		"Managed IRQs follow blk-mq's CPU-to-queue map: a queue's interrupt fires on the "
		"CPUs that submit to it. Look at which processes submit IO on cpu%d (ps -eo "
		"pid,psr,comm), spread them, or boot with isolcpus=managed_irq,CPUS to keep "
		"managed IRQs off isolated CPUs.",
		cpu);
	if (g->managed_guessed)
		str_cat(f->detail, sizeof(f->detail),
			" To confirm: mount -t debugfs none /sys/kernel/debug and look for "
			"IRQD_AFFINITY_MANAGED in /sys/kernel/debug/irq/irqs/N.");
	return 0;
}

static int suggest_spread(struct ctx *c, const struct finding *hot, int cpu, double cpu_intr,
			  double cpu_load, const struct hot_group *g, char *why, size_t why_size)
{
	const struct topology *t = c->t;
	struct cpuset targets;
	uint32_t moved[128], managed[128];
	size_t nmoved = 0, nmanaged = 0, nmissing = 0, nmembers = 0, nguessed = 0;
	bool managed_guessed = false;
	char note[2 * ADV_TEXT_MAX] = "", id[ADV_ID_MAX], buf[64], managed_why[96] = "";
	struct suggestion *s;
	int next;

	if (g->nirqs < 2)
		return g->nmanaged_hot ? managed_finding(c, cpu, g, g->nmanaged_hot, g->managed_why)
				       : 0;
	if (!t->has_online) {
		str_cat(
		    why, why_size,
		    "no suggestion for %s: /sys/devices/system/cpu/online is missing, so offline "
		    "CPUs cannot be excluded. ",
		    g->label);
		return 0;
	}
	device_cpus(t, g->dev, &targets, note, sizeof(note));
	if (cpuset_count(&targets) < 2) {
		str_cat(why, why_size, "no suggestion for %s: fewer than 2 usable CPUs. ",
			g->label);
		return 0;
	}
	fmt(id, sizeof(id), "irq-spread-%s", g->label);
	s = add_suggestion(c->a, id, hot->severity, hot->id);
	if (!s)
		return -ENOMEM;
	next = cpuset_next(&targets, 0);
	for (size_t i = 0; i < t->nirqs; i++) {
		const struct topo_irq *ti = &t->irqs[i];
		struct cpuset want = { 0 }, hint;
		char key[IOT_NAME_MAX + 8], path[64];
		int target;

		irq_group_key(c, ti, irq_actions(c, cur_irq_row(c, ti->irq), ti), key, sizeof(key));
		if (strcmp(key, g->key) != 0)
			continue;
		nmembers++;
		if (ti->managed) {
			if (nmanaged < 128)
				managed[nmanaged] = ti->irq;
			if (!nmanaged)
				str_copy(managed_why, sizeof(managed_why), ti->managed_why);
			managed_guessed = managed_guessed || !ti->managed_known;
			nmanaged++;
			continue;
		}
		if (!ti->has_smp) {
			nmissing++;
			continue;
		}
		if (!ti->managed_known)
			nguessed++;
		cpuset_and(&hint, &ti->hint, &targets);
		if (ti->has_hint && !cpuset_empty(&hint)) {
			target = cpuset_next(&hint, 0); /* the driver's choice wins */
		} else {
			target = next;
			next = cpuset_next(&targets, (unsigned)next + 1);
			if (next < 0)
				next = cpuset_next(&targets, 0);
		}
		cpuset_set(&want, (unsigned)target);
		/* irqbalance would move an unmoved member too: ban every one */
		if (nmoved < 128)
			moved[nmoved++] = ti->irq;
		if (cpuset_equal(&want, &ti->smp_affinity))
			continue;
		snprintf(path, sizeof(path), "proc/irq/%u/smp_affinity_list", ti->irq);
		snprintf(buf, sizeof(buf), "%d", target);
		{
			struct advise_action *ac = add_action(s, path, buf, ti->smp_list);

			if (!ac)
				return -ENOMEM;
			ac->is_irq = true;
			ac->irq = ti->irq;
		}
	}
	if (nmanaged) {
		str_cat(note, sizeof(note), "left alone (kernel-managed%s): IRQ",
			managed_guessed ? ", guessed from the driver" : "");
		for (size_t i = 0; i < nmanaged && i < 128; i++)
			str_cat(note, sizeof(note), " %u", managed[i]);
		str_cat(note, sizeof(note), ". ");
	}
	if (nguessed)
		str_cat(
		    note, sizeof(note),
		    "Managed or not is guessed: /sys/kernel/debug/irq/irqs/N is not readable "
		    "(debugfs not mounted, or not root) and driver %s is not known to let the "
		    "kernel manage these vectors; if a write fails with EIO, it does, and apply "
		    "restores what it wrote. ",
		    g->dev >= 0 && t->devs[g->dev].driver[0] ? t->devs[g->dev].driver
							     : "(unknown)");
	if (nmissing)
		str_cat(note, sizeof(note),
			"%zu IRQs without /proc/irq/N/smp_affinity_list left alone. ", nmissing);
	if (s->nactions == 0 || nmembers - nmanaged - nmissing < 2) {
		/* nothing to spread: already spread, or all managed / unreadable */
		free(s->actions);
		c->a->nsuggestions--;
		if (g->nmanaged_hot) {
			if (managed_finding(c, cpu, g, g->nmanaged_hot, g->managed_why) < 0)
				return -ENOMEM;
		} else if (nmembers == 0 || nmissing) {
			str_cat(
			    why, why_size,
			    "no suggestion for %s: its IRQs' /proc/irq/N/smp_affinity_list cannot "
			    "be read (container, old kernel or no permission), so no command "
			    "could be applied or undone. ",
			    g->label);
		} else {
			str_cat(why, why_size, "no suggestion for %s: already spread. ", g->label);
		}
		return 0;
	}
	{
		double share = cpu_intr > 0 ? g->rate / cpu_intr : 0;
		unsigned k = cpuset_count(&targets),
			 movable = (unsigned)(nmembers - nmanaged - nmissing);
		unsigned spread = k < movable ? k : movable;
		char list[TOPO_LIST_MAX];

		cpuset_format_list(&targets, list, sizeof(list));
		snprintf(s->reason, sizeof(s->reason),
			 "%u IRQs of %s put %.0f interrupts/s (%.1f%% of %.0f/s) on cpu%d "
			 "(%%irq+%%soft %.1f%%); spread them one per CPU over %s",
			 g->nirqs, g->label, g->rate, share * 100, cpu_intr, cpu, cpu_load, list);
		snprintf(s->effect, sizeof(s->effect),
			 "about %.0f interrupts/s per CPU on %u CPUs instead of %.0f/s on cpu%d; "
			 "%%irq+%%soft of cpu%d should fall from %.1f%% toward %.1f%%",
			 g->rate / spread, spread, g->rate, cpu, cpu, cpu_load,
			 cpu_load * (1 - share) + cpu_load * share / spread);
	}
	irqbalance_note(t, moved, nmoved, note, sizeof(note));
	if (t->irqbalance.running)
		c->need_irqbalance_finding = true;
	str_cat(note, sizeof(note), "IRQ affinity does not survive a reboot or a driver reload.");
	str_copy(s->notes, sizeof(s->notes), note);
	c->irq_suggested = true;
	return 0;
}

/* ---- NICs: NET_RX on one CPU ---- */

/* The interrupts/s that NIC n's IRQs put on column col of the IRQ rate
 * table: its PCI function's vectors, else IRQs whose actions start with its
 * name. Their numbers go to irqs[0..*ret_n), at most max. */
static double nic_irq_rate(const struct ctx *c, const struct topo_net *n, int col, uint32_t *irqs,
			   size_t max, size_t *ret_n)
{
	const struct rate_table *rt = &c->m->irq;
	double rate = 0;
	size_t nn = 0;

	for (size_t k = 0; k < rt->n; k++) {
		const struct rate_row *rr = &rt->rows[k];
		const struct irq_row *row = rate_irq_row(c, rr);
		const struct topo_irq *ti;
		const char *act;
		bool mine;

		if (!row || !row->numeric || !rr->valid)
			continue;
		ti = topology_irq(c->t, row->irq);
		act = irq_actions(c, row, ti);
		mine = (ti && n->dev >= 0 && ti->dev == n->dev) ||
		       (strncmp(act, n->ifname, strlen(n->ifname)) == 0);
		if (!mine)
			continue;
		rate += rt->rates[rr->rates_off + (size_t)col];
		if (nn < max)
			irqs[nn++] = row->irq;
	}
	*ret_n = nn;
	return rate;
}

/* Why the channel counts of ifname are not known: the status that refused.
 * No host path in it: the same tree captured elsewhere advises the same. */
static void channels_missing(const struct snapshot *cur, const char *ifname, char *buf, size_t size)
{
	const struct nic_table *nt = cur->workload ? &cur->workload->nics : NULL;
	const struct nic_raw *nr;

	if (!nt) {
		fmt(buf, size, "NIC settings not sampled");
	} else if (nt->rtnl.err) {
		fmt(buf, size, "no link list: %s",
		    nt->rtnl.err == -ENOENT ? "netlink/rtnl/links.bin not recorded"
					    : netlink_hint(nt->rtnl.err));
	} else if (!(nr = nic_table_find(nt, ifname))) {
		fmt(buf, size, "%s is not in the link list", ifname);
	} else if (nt->ethtool.err) {
		fmt(buf, size, "ethtool netlink: %s",
		    nt->ethtool.err == -ENOENT
			? "family not offered (kernel < 5.6), or netlink/ethtool/ not recorded"
			: netlink_hint(nt->ethtool.err));
	} else {
		fmt(buf, size, "%s",
		    nr->channels_status.reason[0] ? nr->channels_status.reason
						  : "channels: no answer");
	}
}

/* True when an irq-spread suggestion already made moves one of irqs. */
static const struct suggestion *spread_of(const struct ctx *c, const uint32_t *irqs, size_t n)
{
	for (size_t i = 0; i < c->a->nsuggestions; i++) {
		const struct suggestion *s = &c->a->suggestions[i];

		if (strncmp(s->id, "irq-spread-", 11) != 0)
			continue;
		for (size_t k = 0; k < s->nactions; k++)
			for (size_t j = 0; j < n; j++)
				if (s->actions[k].is_irq && s->actions[k].irq == irqs[j])
					return s;
	}
	return NULL;
}

/*
 * `ethtool -L IF combined N` for NIC n, whose interrupts and most NET_RX work
 * land on the hot CPU, when it has fewer combined channels than min(its
 * maximum, usable CPUs of its node) = N. Only from the channels the sample
 * recorded: without them, why says what was missing. Returns 1 when
 * suggested, 0 when not, -ENOMEM.
 */
static int suggest_channels(struct ctx *c, const struct finding *hot, int cpu,
			    const struct topo_net *n, double netrx, double netrx_share,
			    double nic_rate, const uint32_t *irqs, size_t nirqs, char *why,
			    size_t why_size)
{
	const struct topology *t = c->t;
	char note[2 * ADV_TEXT_MAX] = "", id[ADV_ID_MAX], path[128], v[16], u[16];
	char list[TOPO_LIST_MAX], miss[IOT_REASON_MAX + 96];
	const struct suggestion *spread;
	struct nic_channels ch;
	struct cpuset targets;
	struct suggestion *s;
	unsigned k, want;
	bool local;

	if (!c->cur->workload || nic_table_channels(&c->cur->workload->nics, n->ifname, &ch) < 0) {
		channels_missing(c->cur, n->ifname, miss, sizeof(miss));
		str_cat(why, why_size,
			"no ethtool -L suggestion for %s: its channel counts are unknown (%s). ",
			n->ifname, miss);
		return 0;
	}
	if (ch.combined_max <= 1 && ch.rx_max <= 1) {
		str_cat(why, why_size, "%s cannot have more than one channel (ethtool -l). ",
			n->ifname);
		return 0;
	}
	if (ch.combined_max == 0 || ch.combined == 0 || ch.rx || ch.tx) {
		/* separate rx/tx channels: `combined N` alone would be refused or
		 * change the wrong kind */
		str_cat(why, why_size,
			"no ethtool -L suggestion for %s: it uses separate channels (rx %u of %u, "
			"tx %u of %u, combined %u of %u). ",
			n->ifname, ch.rx, ch.rx_max, ch.tx, ch.tx_max, ch.combined,
			ch.combined_max);
		return 0;
	}
	if (!t->has_online) {
		str_cat(
		    why, why_size,
		    "no ethtool -L suggestion for %s: CPU online list missing, so the usable CPUs "
		    "are unknown. ",
		    n->ifname);
		return 0;
	}
	device_cpus(t, n->dev, &targets, note, sizeof(note));
	/* device_cpus() notes a fallback to all CPUs; no note: the node's own */
	local = n->dev >= 0 && t->devs[n->dev].has_local && !note[0];
	k = cpuset_count(&targets);
	want = ch.combined_max < k ? ch.combined_max : k;
	cpuset_format_list(&targets, list, sizeof(list));
	if (ch.combined >= want) {
		str_cat(why, why_size,
			"%s already has %u combined channels (at most %u) for %u usable %sCPUs. ",
			n->ifname, ch.combined, ch.combined_max, k, local ? "local " : "");
		return 0;
	}
	if (!device_path(path, sizeof(path), ADV_ETHTOOL_PREFIX, KNAME_IFACE, n->ifname,
			 ADV_ETHTOOL_COMBINED)) {
		str_cat(why, why_size,
			"no ethtool -L suggestion for %s: not a name the kernel gives an "
			"interface. ",
			n->ifname);
		return 0;
	}
	fmt(id, sizeof(id), "channels-%s", n->ifname);
	s = add_suggestion(c->a, id, ADV_WARNING, hot->id);
	if (!s)
		return -ENOMEM;
	fmt(v, sizeof(v), "%u", want);
	fmt(u, sizeof(u), "%u", ch.combined);
	if (!add_action(s, path, v, u))
		return -ENOMEM;
	snprintf(s->reason, sizeof(s->reason),
		 "%s has %u of at most %u combined channels for %u usable %sCPUs (%s); its "
		 "interrupts (%.0f/s) and %.1f%% of all NET_RX softirq work (%.0f/s) land on "
		 "cpu%d: raise its channels to %u",
		 n->ifname, ch.combined, ch.combined_max, k, local ? "local " : "", list, nic_rate,
		 netrx_share, netrx, cpu, want);
	snprintf(s->effect, sizeof(s->effect),
		 "RSS hashes %s's flows over %u receive queues instead of %u, each with its own "
		 "interrupt: NET_RX work (%.0f/s on cpu%d) can spread over up to %u CPUs; one "
		 "flow still stays on one queue",
		 n->ifname, want, ch.combined, netrx, cpu, want);
	str_cat(note, sizeof(note),
		"Most drivers rebuild their rings to change channels: a short traffic interruption "
		"(a link flap on some). The new queues get new IRQs: run iotriage suggest again "
		"afterwards to see where they landed. ");
	spread = spread_of(c, irqs, nirqs);
	if (spread)
		str_cat(
		    note, sizeof(note),
		    "Apply this before %s, or undo that first: affinity written to %s's old IRQs "
		    "does not survive the change. ",
		    spread->id, n->ifname);
	if (t->irqbalance.running)
		str_cat(note, sizeof(note),
			"irqbalance (pid %d) is running: it places the new IRQs. ",
			t->irqbalance.pid);
	str_cat(note, sizeof(note),
		"Not persistent: the driver's default returns at reboot or driver reload; "
		"systemd.link's CombinedChannels= (or a udev rule running ethtool) keeps it.");
	str_copy(s->notes, sizeof(s->notes), note);
	return 1;
}

/* RPS for NIC n, which has one receive queue, its interrupt (nic_rate/s) and
 * netrx_share % of all NET_RX on the hot CPU. 0 or -ENOMEM. */
static int suggest_rps(struct ctx *c, const struct finding *hot, int cpu, const struct topo_net *n,
		       double netrx_share, double nic_rate, char *why, size_t why_size)
{
	const struct topology *t = c->t;
	struct cpuset targets;
	char note[2 * ADV_TEXT_MAX] = "", id[ADV_ID_MAX], path[160], mask[TOPO_LIST_MAX];
	char list[TOPO_LIST_MAX];
	struct suggestion *s;

	if (!n->has_rps) {
		str_cat(why, why_size,
			"no RPS suggestion for %s: queues/rx-0/rps_cpus missing (kernel "
			"without CONFIG_RPS, or no /sys). ",
			n->ifname);
		return 0;
	}
	if (!cpuset_empty(&n->rps_cpus)) {
		str_cat(why, why_size, "%s already steers packets (rps_cpus %s). ", n->ifname,
			n->rps_cpus_raw);
		return 0;
	}
	if (!t->has_online) {
		str_cat(why, why_size, "no RPS suggestion for %s: CPU online list missing. ",
			n->ifname);
		return 0;
	}
	if (!device_path(path, sizeof(path), "sys/class/net/", KNAME_IFACE, n->ifname,
			 "/queues/rx-0/rps_cpus")) {
		str_cat(why, why_size,
			"no RPS suggestion for %s: not a name the kernel gives an interface. ",
			n->ifname);
		return 0;
	}
	device_cpus(t, n->dev, &targets, note, sizeof(note));
	if (cpuset_count(&targets) < 2)
		return 0;
	fmt(id, sizeof(id), "rps-%s", n->ifname);
	s = add_suggestion(c->a, id, ADV_WARNING, hot->id);
	if (!s)
		return -ENOMEM;
	cpuset_format_mask(&targets, mask, sizeof(mask));
	cpuset_format_list(&targets, list, sizeof(list));
	{
		struct advise_action *ac = add_action(s, path, mask, n->rps_cpus_raw);

		if (!ac)
			return -ENOMEM;
		ac->value_is_mask = true;
	}
	if (n->has_flow_cnt && n->rps_flow_cnt < ADV_RPS_FLOWS) {
		char v[24], u[24];

		if (!device_path(path, sizeof(path), "sys/class/net/", KNAME_IFACE, n->ifname,
				 "/queues/rx-0/rps_flow_cnt"))
			return -EINVAL; /* the same name passed for rps_cpus */
		snprintf(v, sizeof(v), "%d", ADV_RPS_FLOWS);
		snprintf(u, sizeof(u), "%llu", (unsigned long long)n->rps_flow_cnt);
		if (!add_action(s, path, v, u))
			return -ENOMEM;
	}
	if (t->rps_sock_flow_entries >= 0 && t->rps_sock_flow_entries < ADV_RPS_FLOWS) {
		char v[24], u[24];

		snprintf(v, sizeof(v), "%d", ADV_RPS_FLOWS);
		snprintf(u, sizeof(u), "%ld", t->rps_sock_flow_entries);
		if (!add_action(s, "proc/sys/net/core/rps_sock_flow_entries", v, u))
			return -ENOMEM;
	} else if (t->rps_sock_flow_entries < 0) {
		str_cat(note, sizeof(note),
			"RFS left off: /proc/sys/net/core/rps_sock_flow_entries missing. ");
	}
	snprintf(s->reason, sizeof(s->reason),
		 "%s has one receive queue; its interrupt (%.0f/s) and %.1f%% of all "
		 "NET_RX softirq work land on cpu%d: steer packets to CPUs %s (RPS, RFS)",
		 n->ifname, nic_rate, netrx_share, cpu, list);
	snprintf(s->effect, sizeof(s->effect),
		 "protocol processing of %s spread over %u CPUs (Documentation/networking/"
		 "scaling.rst); NET_RX on cpu%d should drop, the interrupt itself stays",
		 n->ifname, cpuset_count(&targets), cpu);
	irqbalance_note(t, NULL, 0, note, sizeof(note));
	str_cat(note, sizeof(note), "Not persistent: a udev rule or sysctl.d makes it permanent.");
	str_copy(s->notes, sizeof(s->notes), note);
	return 0;
}

/*
 * The hot CPU runs most NET_RX work: for each NIC whose interrupts land on
 * it, more hardware channels when the NIC can have them (they spread the
 * interrupt too), else RPS when it has a single receive queue.
 */
static int suggest_net(struct ctx *c, const struct finding *hot, int cpu, double netrx,
		       double netrx_share, char *why, size_t why_size)
{
	int col = rate_col(&c->m->irq, cpu);

	if (col < 0)
		return 0;
	for (size_t i = 0; i < c->t->nnets; i++) {
		const struct topo_net *n = &c->t->nets[i];
		uint32_t irqs[NIC_IRQ_MAX];
		size_t nirqs = 0;
		double nic_rate = nic_irq_rate(c, n, col, irqs, NIC_IRQ_MAX, &nirqs);
		int r;

		if (nic_rate <= 0)
			continue;
		r = suggest_channels(c, hot, cpu, n, netrx, netrx_share, nic_rate, irqs, nirqs, why,
				     why_size);
		if (r < 0)
			return r;
		if (r > 0) {
			if (n->rx_queues == 1)
				str_cat(why, why_size,
					"no RPS suggestion for %s: channels-%s gives it hardware "
					"receive queues, which spread the interrupt as well as the "
					"protocol work. ",
					n->ifname, n->ifname);
			continue;
		}
		if (n->rx_queues == 1 &&
		    suggest_rps(c, hot, cpu, n, netrx_share, nic_rate, why, why_size) < 0)
			return -ENOMEM;
	}
	return 0;
}

struct share {
	const char *name;
	char label[160];
	double rate;
};

static int cmp_share(const void *a, const void *b)
{
	const struct share *x = a, *y = b;

	return x->rate > y->rate ? -1 : x->rate < y->rate;
}

#define HOT_GROUPS_MAX 32

/* Adds one IRQ's rate on the hot CPU to its device's group; a device beyond
 * the HOT_GROUPS_MAX first is left out of the grouping (its share is still
 * listed). */
static void hot_group_add(struct ctx *c, const struct topo_irq *ti, const char *act, double rate,
			  double us, struct hot_group *groups, size_t *ngroups)
{
	const struct topology *t = c->t;
	char key[IOT_NAME_MAX + 8];
	size_t gi;

	irq_group_key(c, ti, act, key, sizeof(key));
	for (gi = 0; gi < *ngroups; gi++)
		if (strcmp(groups[gi].key, key) == 0)
			break;
	if (gi == *ngroups) {
		if (*ngroups == HOT_GROUPS_MAX)
			return;
		memset(&groups[gi], 0, sizeof(groups[gi]));
		str_copy(groups[gi].key, sizeof(groups[gi].key), key);
		groups[gi].dev = ti ? ti->dev : -1;
		str_copy(groups[gi].label, sizeof(groups[gi].label),
			 groups[gi].dev >= 0 ? t->devs[groups[gi].dev].name : key + 4);
		(*ngroups)++;
	}
	groups[gi].rate += rate;
	groups[gi].us += us;
	if (!groups[gi].nirqs && ti) {
		groups[gi].irq = ti->irq;
		groups[gi].has_irq = true;
	}
	groups[gi].nirqs++;
	if (ti && ti->managed) {
		if (!groups[gi].nmanaged_hot) {
			str_copy(groups[gi].managed_why, sizeof(groups[gi].managed_why),
				 ti->managed_why);
			groups[gi].managed_guessed = !ti->managed_known;
		}
		groups[gi].nmanaged_hot++;
	}
}

/*
 * The interrupts on cm's CPU, biggest shares first, appended to f->detail;
 * the numeric IRQs of 1% or more gathered by device into groups[] (the
 * spread suggestions' input). 0 or -ENOMEM.
 */
static int hot_irq_shares(struct ctx *c, const struct cpu_metrics *cm, struct finding *f,
			  struct hot_group *groups, size_t *ngroups)
{
	const struct metrics *m = c->m;
	const struct topology *t = c->t;
	double load_us = trace_cpu_us(c, cm->cpu);
	struct share *sh;
	size_t nsh = 0;
	int col;

	col = m->irq_valid ? rate_col(&m->irq, cm->cpu) : -1;
	if (col < 0 || cm->intr_s <= 0)
		return 0;
	sh = calloc(m->irq.n ? m->irq.n : 1, sizeof(*sh));
	if (!sh)
		return -ENOMEM;
	for (size_t k = 0; k < m->irq.n; k++) {
		const struct rate_row *rr = &m->irq.rows[k];
		const struct irq_row *row = rate_irq_row(c, rr);
		const struct topo_irq *ti;
		double rate, us;
		const char *act;

		if (!row || !rr->valid || !row->percpu_counts)
			continue;
		rate = m->irq.rates[rr->rates_off + (size_t)col];
		if (rate <= 0)
			continue;
		ti = row->numeric ? topology_irq(t, row->irq) : NULL;
		act = irq_actions(c, row, ti);
		sh[nsh].rate = rate;
		if (row->numeric && ti && ti->dev >= 0)
			fmt(sh[nsh].label, sizeof(sh[nsh].label), "IRQ %s %s [%s %s]", row->label,
			    act, t->devs[ti->dev].name, t->devs[ti->dev].pci);
		else
			fmt(sh[nsh].label, sizeof(sh[nsh].label), "%s%s %s",
			    row->numeric ? "IRQ " : "", row->label, act);
		nsh++;
		/* measured: the lines that take 1% of the core's irq+soft time, not
		 * those with the most interrupts */
		us = row->numeric ? trace_irq_us(c, row->irq, cm->cpu) : 0;
		if (row->numeric && (c->timed ? load_us > 0 && us / load_us * 100 >= 1
					      : rate / cm->intr_s * 100 >= 1))
			hot_group_add(c, ti, act, rate, us, groups, ngroups);
	}
	qsort(sh, nsh, sizeof(*sh), cmp_share);
	str_cat(f->detail, sizeof(f->detail), "interrupts on cpu%d (%.0f/s):", cm->cpu, cm->intr_s);
	for (size_t k = 0, shown = 0; k < nsh && shown < 8; k++) {
		double pct = sh[k].rate / cm->intr_s * 100;

		if (pct < ADV_SHARE_MIN)
			break;
		str_cat(f->detail, sizeof(f->detail), "%s %s %.1f%%", shown ? ";" : "", sh[k].label,
			pct);
		shown++;
	}
	for (size_t gi = 0; gi < *ngroups; gi++)
		if (groups[gi].nirqs > 1)
			str_cat(f->detail, sizeof(f->detail), "; device %s: %u IRQs, %.1f%%",
				groups[gi].label, groups[gi].nirqs,
				groups[gi].rate / cm->intr_s * 100);
	str_cat(f->detail, sizeof(f->detail), ". ");
	free(sh);
	return 0;
}

/* The softirqs on the hot CPU: their sum, NET_RX there and everywhere. */
struct soft_shares {
	double sum, netrx, netrx_all, block; /* per second */
	bool timed;			     /* --trace: the measured time below */
	double sum_us, block_us;	     /* softirq and BLOCK µs/s on the CPU */
};

/* Appends the softirq shares on cm's CPU to f->detail; *ret gets the sums. */
static void hot_softirq_shares(struct ctx *c, const struct cpu_metrics *cm, struct finding *f,
			       struct soft_shares *ret)
{
	const struct metrics *m = c->m;
	struct soft_shares ss = { 0 };
	bool first = true;
	int col;

	col = m->softirq_valid ? rate_col(&m->softirq, cm->cpu) : -1;
	if (col < 0) {
		*ret = ss;
		return;
	}
	for (size_t k = 0; k < m->softirq.n; k++) {
		const struct rate_row *rr = &m->softirq.rows[k];

		if (!rr->valid)
			continue;
		ss.sum += m->softirq.rates[rr->rates_off + (size_t)col];
		if (strcmp(rr->label, "NET_RX") == 0) {
			ss.netrx = m->softirq.rates[rr->rates_off + (size_t)col];
			ss.netrx_all = rr->total_s;
		}
		if (strcmp(rr->label, "BLOCK") == 0)
			ss.block = m->softirq.rates[rr->rates_off + (size_t)col];
	}
	*ret = ss;
	if (ss.sum <= 0)
		return;
	str_cat(f->detail, sizeof(f->detail), "softirqs on cpu%d (%.0f/s):", cm->cpu, ss.sum);
	for (size_t k = 0; k < m->softirq.n; k++) {
		const struct rate_row *rr = &m->softirq.rows[k];
		double pct;

		if (!rr->valid)
			continue;
		pct = m->softirq.rates[rr->rates_off + (size_t)col] / ss.sum * 100;
		if (pct < ADV_SHARE_MIN)
			continue;
		str_cat(f->detail, sizeof(f->detail), "%s %s %.1f%%", first ? "" : ",", rr->label,
			pct);
		first = false;
	}
	str_cat(f->detail, sizeof(f->detail), ". ");
}

/* The usable CPUs of device dev's node (as device_cpus) other than cpu, the
 * one with the least busy time (%usr+%nice+%sys+%irq+%soft); -1 none. */
static int quietest_cpu(const struct ctx *c, int dev, int cpu)
{
	struct cpuset targets;
	char note[ADV_TEXT_MAX];
	double best_load = 0;
	int best = -1;

	device_cpus(c->t, dev, &targets, note, sizeof(note));
	for (size_t i = 0; i < c->m->ncpu; i++) {
		const struct cpu_metrics *cm = &c->m->cpus[i];
		double l;

		if (!cm->valid || cm->cpu == cpu || cm->cpu < 0 ||
		    !cpuset_has(&targets, (unsigned)cm->cpu))
			continue;
		l = cm->usr + cm->nice + cm->sys + cm->irq + cm->soft;
		if (best < 0 || l < best_load) {
			best = cm->cpu;
			best_load = l;
		}
	}
	return best;
}

/* The driver's own setting for more vectors, as advice text (never applied). */
static void more_vectors_text(const char *driver, char *buf, size_t size)
{
	if (strcmp(driver, "mpt3sas") == 0 || strcmp(driver, "mpt2sas") == 0)
		snprintf(buf, size,
			 "More vectors come from the driver: %s's module parameter "
			 "max_msix_vectors (-1, the default, asks for one per CPU up to the HBA's "
			 "limit; check it with cat /sys/module/%s/parameters/max_msix_vectors) "
			 "and msix_disable=0; a reload or reboot applies it. ",
			 driver, driver);
	else if (strcmp(driver, "megaraid_sas") == 0)
		snprintf(buf, size,
			 "More vectors come from the driver: megaraid_sas's module parameter "
			 "msix_vectors (and smp_affinity_enable=1); a reload or reboot applies "
			 "it. ");
	else
		snprintf(buf, size,
			 "More vectors, if the hardware has them, come from the driver's own "
			 "settings (modinfo %s | grep -iE 'msix|vector|queue'); a reload or reboot "
			 "applies them. ",
			 driver[0] ? driver : "DRIVER");
}

/*
 * One movable vector of a device loads the hot core: nothing to spread, so
 * (doc/advise.md "irq-single"): rq_affinity=2 for the disks behind the
 * device when BLOCK softirqs are a real share of the core's (completions go
 * back to the CPUs that submitted, taking that share with them); the vector
 * moved to the quietest usable CPU of its node when the hot core also carries
 * other work; the driver's setting for more vectors as text. Whatever is not
 * suggested says why in *why.
 */
static int suggest_single(struct ctx *c, const struct finding *hot, const struct cpu_metrics *cm,
			  const struct hot_group *g, const struct soft_shares *ss, char *why,
			  size_t why_size)
{
	const struct topology *t = c->t;
	const struct topo_irq *ti = g->has_irq ? topology_irq(t, g->irq) : NULL;
	const char *driver = g->dev >= 0 ? t->devs[g->dev].driver : "";
	double other = cm->usr + cm->nice + cm->sys;
	char id[ADV_ID_MAX], path[ADV_PATH_MAX], v[16], text[ADV_TEXT_MAX];
	char remote[ADV_TEXT_MAX] = "", local[ADV_TEXT_MAX] = "";
	struct suggestion *s = NULL;
	size_t nblocks = 0, nset = 0;
	/* measured: BLOCK's share of the core's softirq time, else of its softirqs */
	double block_pct = 0;

	if (ss->timed && ss->sum_us > 0)
		block_pct = ss->block_us / ss->sum_us * 100;
	else if (!ss->timed && ss->sum > 0)
		block_pct = ss->block / ss->sum * 100;

	/* completions of the disks behind it */
	for (size_t i = 0; g->dev >= 0 && i < t->nblocks; i++) {
		const struct topo_block *b = &t->blocks[i];

		if (b->dev != g->dev)
			continue;
		nblocks++;
		if (b->rq_affinity < 0 || b->rq_affinity >= 2 ||
		    !device_path(path, sizeof(path), "sys/block/", KNAME_DISK, b->name,
				 "/queue/rq_affinity"))
			continue; /* a name the kernel does not give gets no command */
		if (block_pct < ADV_SINGLE_BLOCK_PCT)
			continue;
		/* measured locality: rq_affinity=2 moves only completions that run
		 * away from their submitter (here, on the hot core) */
		if (c->block_timed) {
			const struct trace_disk_metrics *td = trace_disk(c, b->name);
			double pct = td && td->completed
					 ? (double)td->remote / (double)td->completed * 100
					 : 0;

			if (!td || !td->completed) {
				str_cat(local, sizeof(local), "%s%s (no completion measured)",
					local[0] ? ", " : "", b->name);
				continue;
			}
			if (pct < ADV_RQ_REMOTE_PCT) {
				str_cat(local, sizeof(local), "%s%s %.0f%% remote",
					local[0] ? ", " : "", b->name, pct);
				continue;
			}
			str_cat(remote, sizeof(remote), "%s%s %.0f%% of %" PRIu64,
				remote[0] ? ", " : "", b->name, pct, td->completed);
		}
		if (!s) {
			fmt(id, sizeof(id), "rq-affinity-%s", g->label);
			s = add_suggestion(c->a, id, hot->severity, hot->id);
			if (!s)
				return -ENOMEM;
		}
		snprintf(v, sizeof(v), "%ld", b->rq_affinity);
		if (!add_action(s, path, "2", v))
			return -ENOMEM;
		nset++;
	}
	if (s && ss->timed) {
		snprintf(s->reason, sizeof(s->reason),
			 "one vector of %s (IRQ %u) takes its completions to cpu%d: BLOCK is "
			 "%.0f%% of cpu%d's softirq time (%.1f ms/s, measured) and completions "
			 "run away from the submitting CPU (%s completions, measured); "
			 "rq_affinity=2 completes each request on the CPU that submitted it",
			 g->label, g->irq, cm->cpu, block_pct, cm->cpu, ss->block_us / 1000,
			 remote[0] ? remote : "not traced");
	} else if (s) {
		snprintf(s->reason, sizeof(s->reason),
			 "one vector of %s (IRQ %u) takes its completions to cpu%d: BLOCK softirqs "
			 "are %.0f%% of cpu%d's (%.0f/s); rq_affinity=2 completes each request "
			 "on the CPU that submitted it",
			 g->label, g->irq, cm->cpu, ss->block / ss->sum * 100, cm->cpu, ss->block);
	}
	if (s) {
		snprintf(s->effect, sizeof(s->effect),
			 "the BLOCK softirq work (%.1f%% of cpu%d in %%soft) moves to the "
			 "submitting CPUs; the hard interrupt stays on cpu%d",
			 cm->soft, cm->cpu, cm->cpu);
		snprintf(s->notes, sizeof(s->notes),
			 "%zu disk(s) behind %s. Not persistent: use a udev rule "
			 "(ATTR{queue/rq_affinity}=\"2\").",
			 nset, g->label);
	}
	if (local[0])
		str_cat(why, why_size,
			"no rq_affinity=2 for %s: measured, under %.0f%% of the completions ran "
			"away from the submitting CPU, so it would move nothing. ",
			local, ADV_RQ_REMOTE_PCT);
	if (s || local[0]) {
		/* suggested, or said why above */
	} else if (nblocks == 0) {
		str_cat(why, why_size,
			"no rq_affinity suggestion for %s: no disk is known behind it. ", g->label);
	} else {
		str_cat(why, why_size,
			"no rq_affinity suggestion for %s: its disks already complete on the "
			"submitting CPU (rq_affinity 2), or BLOCK is under %.0f%% of cpu%d's "
			"softirqs, or rq_affinity was not read. ",
			g->label, ADV_SINGLE_BLOCK_PCT, cm->cpu);
	}

	/* the vector itself, when the core also runs other work */
	if (!ti || !ti->has_smp || ti->managed) {
		str_cat(why, why_size, "IRQ %u of %s is not moved: %s. ", g->irq, g->label,
			!ti	      ? "its /proc/irq entry is unknown"
			: ti->managed ? "the kernel manages its affinity"
				      : "its smp_affinity_list cannot be read (no undo value)");
	} else if (other < ADV_SINGLE_OTHER_PCT) {
		str_cat(why, why_size,
			"IRQ %u is not moved: cpu%d runs little else (%%usr+%%nice+%%sys %.1f%%), "
			"so moving the interrupt would only move the hot spot. ",
			g->irq, cm->cpu, other);
	} else if (!t->has_online) {
		str_cat(why, why_size,
			"IRQ %u is not moved: /sys/devices/system/cpu/online is missing. ", g->irq);
	} else {
		int to = quietest_cpu(c, g->dev, cm->cpu);

		if (to < 0) {
			str_cat(why, why_size,
				"IRQ %u is not moved: no other usable CPU on its node. ", g->irq);
		} else {
			struct advise_action *ac;
			uint32_t moved = g->irq;

			fmt(id, sizeof(id), "irq-move-%u", g->irq);
			s = add_suggestion(c->a, id, hot->severity, hot->id);
			if (!s)
				return -ENOMEM;
			fmt(path, sizeof(path), "proc/irq/%u/smp_affinity_list", g->irq);
			snprintf(v, sizeof(v), "%d", to);
			ac = add_action(s, path, v, ti->smp_list);
			if (!ac)
				return -ENOMEM;
			ac->is_irq = true;
			ac->irq = g->irq;
			snprintf(s->reason, sizeof(s->reason),
				 "IRQ %u (%s) is the only vector of %s on cpu%d, which also runs "
				 "%.1f%% %%usr+%%nice+%%sys: move it to cpu%d, the quietest usable "
				 "CPU of its node",
				 g->irq, ti->actions[0] ? ti->actions : g->label, g->label, cm->cpu,
				 other, to);
			snprintf(s->effect, sizeof(s->effect),
				 "cpu%d keeps its %.1f%% of application work without the %.1f%% of "
				 "%%irq+%%soft; cpu%d takes the interrupt",
				 cm->cpu, other, cm->irq + cm->soft, to);
			s->notes[0] = '\0';
			irqbalance_note(t, &moved, 1, s->notes, sizeof(s->notes));
			if (t->irqbalance.running)
				c->need_irqbalance_finding = true;
			str_cat(s->notes, sizeof(s->notes),
				"IRQ affinity does not survive a reboot or a driver reload.");
			c->irq_suggested = true;
		}
	}
	more_vectors_text(driver, text, sizeof(text));
	str_cat(why, why_size, "%s", text);
	return 0;
}

/*
 * --trace: the proof of a hot core in its reason (the IRQ line and the
 * softirq vector that take the most of its measured time) and, in its
 * detail, each line and vector with ADV_SHARE_MIN % or more of that time.
 */
static void hot_time_text(const struct ctx *c, const struct cpu_metrics *cm, double med_load,
			  struct finding *f)
{
	const struct trace_metrics *tm = c->tm;
	size_t nc = tm->ncpu, cpu = (size_t)cm->cpu, top = SIZE_MAX;
	const double *soft = &tm->soft_us_s[cpu * TRACE_NR_SOFTIRQS];
	double total = trace_cpu_us(c, cm->cpu), soft_us = trace_soft_us(c, cm->cpu), top_us = 0;
	char line[IOT_NAME_MAX + 32] = "", vec[32] = "";
	unsigned v = 0, shown = 0;

	for (size_t i = 0; i < tm->nirq; i++)
		if (tm->irq_us_s[i * nc + cpu] > top_us) {
			top_us = tm->irq_us_s[i * nc + cpu];
			top = i;
		}
	for (unsigned k = 1; k < TRACE_NR_SOFTIRQS; k++)
		if (soft[k] > soft[v])
			v = k;
	if (top != SIZE_MAX) {
		const struct irq_row *row = cur_irq_row(c, tm->irq[top]);
		const char *act = row ? irq_actions(c, row, topology_irq(c->t, tm->irq[top])) : "";

		fmt(line, sizeof(line), "IRQ %u%s%s", tm->irq[top], act[0] ? " " : "", act);
	}
	if (soft[v] > 0)
		fmt(vec, sizeof(vec), "%s softirq", trace_softirq_name(v));
	snprintf(f->reason, sizeof(f->reason),
		 "cpu%d %.0f%% in %s%s%s (measured): hardirq %.2f%% + softirq %.2f%% (peers' "
		 "median %.2f%%); mpstat %%irq %.2f + %%soft %.2f",
		 cm->cpu, total / 1e4, line, line[0] && vec[0] ? " + " : "", vec,
		 tm->hard_us_s[cpu] / 1e4, soft_us / 1e4, med_load, cm->irq, cm->soft);
	if (total <= 0)
		return;
	str_cat(f->detail, sizeof(f->detail), "measured time on cpu%d (%.1f ms/s):", cm->cpu,
		total / 1000);
	for (size_t i = 0; i < tm->nirq; i++) {
		double us = tm->irq_us_s[i * nc + cpu];
		const struct irq_row *row;

		if (us / total * 100 < ADV_SHARE_MIN)
			continue;
		row = cur_irq_row(c, tm->irq[i]);
		str_cat(f->detail, sizeof(f->detail), "%s IRQ %u %s %.1f%%", shown++ ? "," : "",
			tm->irq[i], row ? irq_actions(c, row, topology_irq(c->t, tm->irq[i])) : "",
			us / total * 100);
	}
	for (unsigned k = 0; k < TRACE_NR_SOFTIRQS; k++)
		if (soft[k] / total * 100 >= ADV_SHARE_MIN)
			str_cat(f->detail, sizeof(f->detail), "%s %s softirq %.1f%%",
				shown++ ? "," : "", trace_softirq_name(k), soft[k] / total * 100);
	str_cat(f->detail, sizeof(f->detail), ". ");
}

/* Of an IRQ line's interrupts this interval, the share (0..1) on cpu; -1
 * when the line has no rates. */
static double irq_share_on(const struct ctx *c, uint32_t irq, int cpu)
{
	const struct metrics *m = c->m;
	int col = m->irq_valid ? rate_col(&m->irq, cpu) : -1;

	if (col < 0)
		return -1;
	for (size_t k = 0; k < m->irq.n; k++) {
		const struct rate_row *rr = &m->irq.rows[k];
		const struct irq_row *row = rate_irq_row(c, rr);

		if (!row || !row->numeric || row->irq != irq || !rr->valid || !row->percpu_counts)
			continue;
		return rr->total_s > 0 ? m->irq.rates[rr->rates_off + (size_t)col] / rr->total_s
				       : -1;
	}
	return -1;
}

/*
 * --trace: when one NAPI (a NIC queue) takes most (>= ADV_NAPI_SHARE_PCT %)
 * of a hot core's NET_RX time, its IRQ line landing there (most of its
 * interrupts: a NAPI polls on the CPU its interrupt scheduled it on) and
 * movable (not kernel-managed), the detail names the queue and the headline's
 * who says it: "eth0 rx-3 NET_RX 41 %". The NAPI's time is summed over the
 * CPUs (doc/trace.md), so at most the core's NET_RX is counted as its.
 */
static void hot_napi_text(const struct ctx *c, const struct cpu_metrics *cm, struct finding *f)
{
	const struct trace_metrics *tm = c->tm;
	const struct trace_napi_metrics *best = NULL;
	const struct topo_irq *ti;
	double netrx, own;
	char queue[24];

	if (!tm->has_napi || cm->cpu < 0 || (uint32_t)cm->cpu >= tm->ncpu)
		return;
	netrx = tm->soft_us_s[(size_t)cm->cpu * TRACE_NR_SOFTIRQS + TRACE_SOFTIRQ_NET_RX];
	if (netrx <= 0)
		return;
	for (size_t i = 0; i < tm->nnapi; i++) {
		const struct trace_napi_metrics *q = &tm->napi[i];

		if (q->napi_id == 0 || q->irq < 0 || !q->dev[0] ||
		    irq_share_on(c, (uint32_t)q->irq, cm->cpu) < 0.5)
			continue;
		if (!best || q->us_s > best->us_s)
			best = q;
	}
	if (!best)
		return;
	own = best->us_s < netrx ? best->us_s : netrx;
	ti = topology_irq(c->t, (uint32_t)best->irq);
	if (own / netrx * 100 < ADV_NAPI_SHARE_PCT || (ti && ti->managed))
		return;
	if (best->index >= 0)
		fmt(queue, sizeof(queue), "rx-%d", best->index);
	else
		fmt(queue, sizeof(queue), "NAPI %u", best->napi_id);
	str_cat(f->detail, sizeof(f->detail),
		"NET_RX on cpu%d is mostly one queue: %s %s NET_RX %.1f%% of a CPU (NAPI %u, IRQ "
		"%d, %.0f%% of the core's NET_RX time); moving IRQ %d moves its polls. ",
		cm->cpu, best->dev, queue, best->us_s / 1e4, best->napi_id, best->irq,
		own / netrx * 100, best->irq);
	if (!f->who[0])
		snprintf(f->who, sizeof(f->who), "%s %s NET_RX %.0f %%", best->dev, queue,
			 best->us_s / 1e4);
}

/* One hot core: its finding with the IRQ and softirq shares that make it
 * hot, then the suggestions (multi-vector devices first, a single vector,
 * then RPS). Critical only when the core is hurt by its time in irq+soft. */
static int hot_cpu(struct ctx *c, const struct cpu_metrics *cm, double med_load, double dev_intr,
		   double med_dev_intr)
{
	const struct metrics *m = c->m;
	double load = cpu_load(c, cm), load_us = trace_cpu_us(c, cm->cpu);
	char subject[16], why[2 * ADV_TEXT_MAX] = "";
	struct hot_group groups[HOT_GROUPS_MAX];
	size_t ngroups = 0;
	struct soft_shares ss;
	struct finding *f;
	size_t fidx, nsugg = c->a->nsuggestions;
	int r;

	snprintf(subject, sizeof(subject), "cpu%d", cm->cpu);
	fidx = c->a->nfindings;
	f = add_finding(c->a, FIND_HOT_CPU, load >= ADV_HOT_CRIT_PCT ? ADV_CRITICAL : ADV_WARNING,
			subject);
	if (!f)
		return -ENOMEM;
	f->harm = 100 + load;
	if (c->timed) {
		hot_time_text(c, cm, med_load, f);
		hot_napi_text(c, cm, f);
	} else
		snprintf(f->reason, sizeof(f->reason),
			 "cpu%d: %%irq %.2f + %%soft %.2f = %.2f%% (peers' median %.2f%%)", cm->cpu,
			 cm->irq, cm->soft, load, med_load);
	if (m->irq_valid)
		str_cat(f->reason, sizeof(f->reason),
			", %.0f interrupts/s, %.0f/s from devices (peers' median %.0f/s)",
			cm->intr_s, dev_intr, med_dev_intr);
	r = hot_irq_shares(c, cm, f, groups, &ngroups);
	if (r < 0)
		return r;
	hot_softirq_shares(c, cm, f, &ss);
	if (c->timed) {
		ss.timed = true;
		ss.sum_us = trace_soft_us(c, cm->cpu);
		ss.block_us = c->tm->soft_us_s[(size_t)cm->cpu * TRACE_NR_SOFTIRQS + SOFTIRQ_BLOCK];
	}

	/* the suggestions may add findings: f is re-read by index after them */
	for (size_t gi = 0; gi < ngroups && r >= 0; gi++) {
		/* measured: a line's share of the core's time, not of its interrupts */
		if (c->timed
			? load_us <= 0 || groups[gi].us / load_us * 100 < ADV_SHARE_MIN
			: cm->intr_s <= 0 || groups[gi].rate / cm->intr_s * 100 < ADV_SHARE_MIN)
			continue;
		/* a NIC's lone queue vector is answered by RPS and channels below */
		if (groups[gi].nirqs == 1 && !groups[gi].nmanaged_hot &&
		    (groups[gi].dev < 0 || c->t->devs[groups[gi].dev].kind != TOPO_DEV_NET))
			r = suggest_single(c, &c->a->findings[fidx], cm, &groups[gi], &ss, why,
					   sizeof(why));
		else if (groups[gi].nirqs > 1 || groups[gi].nmanaged_hot)
			r = suggest_spread(c, &c->a->findings[fidx], cm->cpu, cm->intr_s, load,
					   &groups[gi], why, sizeof(why));
	}
	if (r >= 0 && ss.netrx_all > 0 && ss.netrx / ss.netrx_all >= 0.8 && ss.sum > 0 &&
	    ss.netrx / ss.sum >= 0.3)
		r = suggest_net(c, &c->a->findings[fidx], cm->cpu, ss.netrx,
				ss.netrx / ss.netrx_all * 100, why, sizeof(why));
	if (r < 0)
		return r;
	f = &c->a->findings[fidx];
	if (c->a->nsuggestions == nsugg && !why[0] && c->timed)
		str_copy(why, sizeof(why),
			 "No suggestion: no movable device interrupt line takes 5% or more of this "
			 "core's measured irq+soft time; the measured shares above say which "
			 "kernel work it is. ");
	else if (c->a->nsuggestions == nsugg && !why[0])
		str_copy(why, sizeof(why),
			 "No suggestion: no device interrupt line carries 5% or more of this "
			 "core's interrupts, so its irq+soft time is not one device's to move; "
			 "the softirq shares above say which kernel work it is. ");
	if (why[0])
		str_cat(f->detail, sizeof(f->detail), "%s", why);
	return 0;
}

/* Interrupts per second from device lines (numbered IRQs) on column col of
 * the IRQ table; the per-CPU system lines (LOC, RES, CAL, TLB, ...) never
 * make a core hot. */
static double device_intr(const struct ctx *c, int col)
{
	const struct metrics *m = c->m;
	double sum = 0;

	if (col < 0)
		return 0;
	for (size_t k = 0; k < m->irq.n; k++) {
		const struct rate_row *rr = &m->irq.rows[k];
		const struct irq_row *row = rate_irq_row(c, rr);

		if (row && rr->valid && row->numeric)
			sum += m->irq.rates[rr->rates_off + (size_t)col];
	}
	return sum;
}

/*
 * A core is hot by time: %irq+%soft >= ADV_HOT_PCT_MIN and well above its
 * peers; or by device interrupts (numbered lines only) far above its peers'
 * while its irq+soft time is there too (>= ADV_HOT_INTR_PCT).
 */
static int find_hot_cpus(struct ctx *c)
{
	const struct metrics *m = c->m;
	double *load = NULL, *intr = NULL, *dev = NULL;
	size_t n = 0;
	int r = 0;

	if (!m->cpu_valid || m->ncpu < 2)
		return 0;
	load = calloc(m->ncpu, sizeof(*load));
	intr = calloc(m->ncpu, sizeof(*intr));
	dev = calloc(m->ncpu, sizeof(*dev));
	if (!load || !intr || !dev) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->ncpu; i++) {
		const struct cpu_metrics *cm = &m->cpus[i];

		dev[i] = m->irq_valid ? device_intr(c, rate_col(&m->irq, cm->cpu)) : 0;
		if (!cm->valid)
			continue;
		load[n] = cpu_load(c, cm);
		intr[n] = dev[i];
		n++;
	}
	if (n < 2)
		goto out;
	qsort(load, n, sizeof(*load), cmp_double);
	qsort(intr, n, sizeof(*intr), cmp_double);
	for (size_t i = 0; i < m->ncpu && r >= 0; i++) {
		const struct cpu_metrics *cm = &m->cpus[i];
		double l, ml, mi;
		bool hot;

		if (!cm->valid)
			continue;
		l = cpu_load(c, cm);
		ml = median_without(load, n, l);
		mi = m->irq_valid ? median_without(intr, n, dev[i]) : 0;
		hot = l >= ADV_HOT_PCT_MIN && l >= 2 * ml + ADV_HOT_PCT_ABOVE;
		hot = hot || (m->irq_valid && dev[i] >= ADV_HOT_INTR_MIN &&
			      dev[i] >= ADV_HOT_INTR_FACTOR * mi && l >= ADV_HOT_INTR_PCT);
		if (hot)
			r = hot_cpu(c, cm, ml, dev[i], mi);
	}
out:
	free(load);
	free(intr);
	free(dev);
	return r;
}

/* ---- disks ---- */

static double disk_await(const struct disk_metrics *d)
{
	double ios = d->r_s + d->w_s;

	return ios > 0 ? (d->r_await * d->r_s + d->w_await * d->w_s) / ios : 0;
}

static const struct disk_raw *raw_of(const struct ctx *c, const struct disk_metrics *d)
{
	return disk_table_find(&c->cur->disks, d->major, d->minor, NULL);
}

static const struct disk_metrics *metrics_by_name(const struct metrics *m, const char *name)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (strcmp(m->disks[i].name, name) == 0)
			return &m->disks[i];
	return NULL;
}

/* ---- writeback ---- */

/* Writers are throttled by the dirty page cache: metrics_proc's state of the
 * current sample (dirty + writeback past the freerun midpoint, or blocked). */
static bool wb_throttled(const struct ctx *c)
{
	const struct workload_metrics *x = c->m->workload;

	return x && c->cur->workload && c->cur->workload->writeback.has_vmstat &&
	       (x->wb_state == WB_THROTTLED || x->wb_state == WB_BLOCKED);
}

/* A slow or saturated disk in a sample where writers are throttled: its
 * latency is not the whole story of a write stall. */
static void wb_sentence(const struct ctx *c, struct finding *f)
{
	if (!c->wb_throttled)
		return;
	str_cat(f->detail, sizeof(f->detail),
		"%sWriters are also being throttled by the dirty page cache (writeback-throttled): "
		"a write() stall is the kernel pacing writers to what writeback achieves, so this "
		"disk's latency is not the whole story.",
		f->detail[0] ? " " : "");
}

static int find_writeback(struct ctx *c)
{
	const struct writeback_raw *w;
	uint64_t kb, dirty;
	struct finding *f;
	bool any = false;

	if (!c->wb_throttled)
		return 0;
	w = &c->cur->workload->writeback;
	kb = w->page_size >= 1024 ? w->page_size / 1024 : 4;
	dirty = w->nr_dirty + w->nr_writeback;
	f = add_finding(c->a, FIND_WRITEBACK_THROTTLED, ADV_WARNING, "writeback");
	if (!f)
		return -ENOMEM;
	fmt(f->id, sizeof(f->id), "writeback-throttled");
	snprintf(f->reason, sizeof(f->reason),
		 "dirty page cache %s: nr_dirty %llu kB + nr_writeback %llu kB = %llu kB, past "
		 "%llu kB where writers are throttled (nr_dirty_background_threshold %llu kB, "
		 "nr_dirty_threshold %llu kB): writers sleep in balance_dirty_pages()",
		 c->m->workload->wb_state == WB_BLOCKED ? "at its hard limit" : "full",
		 (unsigned long long)(w->nr_dirty * kb), (unsigned long long)(w->nr_writeback * kb),
		 (unsigned long long)(dirty * kb),
		 (unsigned long long)((w->nr_dirty_threshold + w->nr_dirty_bg_threshold) / 2 * kb),
		 (unsigned long long)(w->nr_dirty_bg_threshold * kb),
		 (unsigned long long)(w->nr_dirty_threshold * kb));
	for (int i = 0; i < WB__COUNT; i++) {
		if (!w->has_sysctl[i])
			continue;
		str_cat(f->detail, sizeof(f->detail), "%svm.%s=%llu",
			any ? ", " : "settings: ", writeback_sysctl_name((enum wb_sysctl)i),
			(unsigned long long)w->sysctl[i]);
		any = true;
	}
	str_cat(f->detail, sizeof(f->detail), "%s",
		any ? ". " : "settings: vm.dirty_* not readable. ");
	str_cat(f->detail, sizeof(f->detail),
		"A write stall now is the page cache making writers wait for writeback, not only a "
		"slow disk: the disks' await shows what writeback costs. No suggestion: vm.dirty_* "
		"is workload-specific. Seed 002's database profile (vm.dirty_background_ratio=5, "
		"vm.dirty_ratio=10, vm.dirty_writeback_centisecs=50, "
		"vm.dirty_expire_centisecs=100) starts writeback sooner and keeps each stall "
		"short; larger ratios absorb bursts but stall longer when full.");
	return 0;
}

static int suggest_queue(struct ctx *c, const struct finding *f, const struct disk_metrics *d)
{
	const struct topo_block *b = topology_block(c->t, d->name);
	char id[ADV_ID_MAX], path[160], v[32], u[32];
	struct suggestion *s;

	/* a name that is not one the kernel gives (a recorded tree's
	 * "../../x") is never put in a path: no queue suggestion for it */
	if (!b || !kname_ok(KNAME_DISK, d->name))
		return 0;
	/* the queue is full: requests wait for a tag before the device sees them */
	if (b->nr_requests > 0 && b->rotational == 0 && d->aqu_sz >= 0.9 * (double)b->nr_requests &&
	    b->nr_requests < 2048) {
		fmt(id, sizeof(id), "nr-requests-%s", d->name);
		s = add_suggestion(c->a, id, ADV_INFO, f->id);
		if (!s)
			return -ENOMEM;
		if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name,
				 "/queue/nr_requests"))
			return -EINVAL; /* kname_ok() above */
		snprintf(v, sizeof(v), "%ld", b->nr_requests * 2);
		snprintf(u, sizeof(u), "%ld", b->nr_requests);
		if (!add_action(s, path, v, u))
			return -ENOMEM;
		snprintf(
		    s->reason, sizeof(s->reason),
		    "%s: aqu-sz %.1f is at its queue limit nr_requests=%ld on a non-rotational "
		    "device: requests wait for a tag",
		    d->name, d->aqu_sz, b->nr_requests);
		snprintf(s->effect, sizeof(s->effect),
			 "a deeper queue lets the SSD work on more requests at once: more IO/s "
			 "if the device has spare parallelism, else longer await");
		snprintf(s->notes, sizeof(s->notes),
			 "The kernel refuses values above the hardware queue depth (EINVAL) "
			 "without a scheduler. Not persistent: use a udev rule.");
	}
	/* a saturated spinning disk without a scheduler: no merging or deadline */
	if (b->rotational == 1 && strcmp(b->scheduler, "none") == 0 &&
	    strstr(b->schedulers, "mq-deadline")) {
		fmt(id, sizeof(id), "scheduler-%s", d->name);
		s = add_suggestion(c->a, id, ADV_INFO, f->id);
		if (!s)
			return -ENOMEM;
		if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name,
				 "/queue/scheduler"))
			return -EINVAL; /* kname_ok() above */
		if (!add_action(s, path, "mq-deadline", "none"))
			return -ENOMEM;
		snprintf(s->reason, sizeof(s->reason),
			 "%s: rotational disk saturated (util %.1f%%, aqu-sz %.1f) with scheduler "
			 "none: requests are neither sorted nor merged",
			 d->name, d->util, d->aqu_sz);
		snprintf(s->effect, sizeof(s->effect),
			 "mq-deadline sorts and merges requests for the disk head and bounds "
			 "read latency; expect more merges (rrqm/s, wrqm/s) and fewer seeks");
		snprintf(s->notes, sizeof(s->notes), "Not persistent: use a udev rule.");
	}
	return 0;
}

/* ---- harm: pressure and culprits ---- */

/* The some-stall share of resource r this interval, -1 when unknown. */
static double psi_some(const struct ctx *c, enum psi_res r)
{
	const struct workload_metrics *x = c->m->workload;

	return x && x->psi[r].some_valid ? x->psi[r].some_pct : -1;
}

static double psi_full(const struct ctx *c, enum psi_res r)
{
	const struct workload_metrics *x = c->m->workload;

	return x && x->psi[r].full_valid ? x->psi[r].full_pct : -1;
}

/* Pressure says the workload waits on r now. */
static bool psi_hurts(const struct ctx *c, enum psi_res r)
{
	return psi_some(c, r) >= ADV_PSI_CRIT || psi_full(c, r) >= ADV_PSI_FULL_CRIT;
}

static void psi_text(const struct ctx *c, enum psi_res r, char *buf, size_t size)
{
	double some = psi_some(c, r), full = psi_full(c, r);

	if (some < 0)
		snprintf(buf, size, "%s pressure unknown", pressure_name(r));
	else if (full < 0)
		snprintf(buf, size, "%s pressure some %.0f%%", pressure_name(r), some);
	else
		snprintf(buf, size, "%s pressure some %.0f%% full %.0f%%", pressure_name(r), some,
			 full);
}

/* "pid 812 postgres: 15/main: checkpointer (user postgres, unit
 * system.slice/postgresql@15-main.service)", or "pid 812 postgres" when who
 * runs it was not read. cmdline is escaped by the collector already. */
static void proc_label(const struct proc_metrics *p, char *buf, size_t size)
{
	char comm[PROC_COMM_MAX * 4 + 1];

	if (!p->has_who || !p->cmdline[0]) {
		snprintf(buf, size, "pid %d %s", p->pid, text_safe(p->comm, comm, sizeof(comm)));
		return;
	}
	snprintf(buf, size, "pid %d %.120s (user %s%s%s)", p->pid, p->cmdline, p->user,
		 p->unit[0] ? ", unit " : "", p->unit);
}

/* A process in a word, or in the title it set: "fio" (the command's base
 * name), "postgres: 15/main: checkpointer" (a first word ending in ':' is
 * a title, as PostgreSQL and sshd set), the comm when the command line was
 * not read. */
static void proc_short(const struct proc_metrics *p, char *buf, size_t size)
{
	const char *cl = p->cmdline, *sp, *base;
	char comm[PROC_COMM_MAX * 4 + 1];
	size_t n;

	if (!p->has_who || !cl[0] || cl[0] == '[') {
		snprintf(buf, size, "%s", text_safe(p->comm, comm, sizeof(comm)));
		return;
	}
	sp = strchr(cl, ' ');
	if (sp && sp > cl && sp[-1] == ':') {
		n = strlen(cl);
		if (n > 40) { /* the title's words that fit, whole */
			n = 40;
			while (n > 0 && cl[n] != ' ')
				n--;
		}
		snprintf(buf, size, "%.*s", (int)n, cl);
		return;
	}
	n = sp ? (size_t)(sp - cl) : strlen(cl);
	base = cl;
	for (size_t i = 0; i + 1 < n; i++)
		if (cl[i] == '/')
			base = cl + i + 1;
	snprintf(buf, size, "%.*s", (int)(n - (size_t)(base - cl)), base);
}

/* The processes doing the most IO (all disks: per-process counters do not
 * say which) and the cgroups doing the most on disk d, into f->culprit. */
static void io_culprits(const struct ctx *c, struct finding *f, const struct disk_metrics *d)
{
	const struct workload_metrics *x = c->m->workload;
	char label[ADV_TEXT_MAX];
	unsigned shown = 0;

	if (!x || !x->procs_valid)
		return; /* unknown: the culprit stays "" */
	for (size_t k = 0; k < x->nby_io && shown < 3; k++) {
		const struct proc_metrics *p = &x->procs[x->by_io[k]];

		if (p->rkb_s + p->wkb_s < 1)
			continue;
		if (!shown) {
			double kbs = p->rkb_s + p->wkb_s;

			proc_short(p, label, sizeof(label));
			str_cat(f->who, sizeof(f->who), "%s pid %d %.0f %s", label, p->pid,
				kbs >= 1024 ? kbs / 1024 : kbs, kbs >= 1024 ? "MB/s" : "kB/s");
		}
		proc_label(p, label, sizeof(label));
		str_cat(f->culprit, sizeof(f->culprit), "%s%s (%.0f kB/s read, %.0f kB/s written)",
			shown ? "; " : "", label, p->rkb_s, p->wkb_s);
		shown++;
	}
	if (!d || !x->cgroups_valid || !c->cur->workload)
		return;
	shown = 0;
	for (size_t k = 0; k < x->cgroups.ntop && shown < 2; k++) {
		const struct cgroup_metrics *cg = &x->cgroups.rows[x->cgroups.top[k]];
		const struct cgroup_table *ct = &c->cur->workload->cgroups;

		if (!cg->valid || cg->cur_index >= ct->n)
			continue;
		for (size_t j = 0; j < cg->ndev; j++) {
			const struct cgroup_dev_metrics *dm = &x->cgroups.devs[cg->dev_off + j];

			if (dm->major != d->major || dm->minor != d->minor ||
			    dm->rkb_s + dm->wkb_s < 1)
				continue;
			text_safe(ct->rows[cg->cur_index].path, label, sizeof(label));
			str_cat(f->culprit, sizeof(f->culprit), "%scgroup %s: %.0f kB/s on %s",
				f->culprit[0] ? "; " : "", label[0] ? label : "/",
				dm->rkb_s + dm->wkb_s, d->name);
			shown++;
		}
	}
}

/* A saturated disk without a queue setting to change: why, and what helps. */
static void no_queue_fix(struct finding *f, const struct disk_metrics *d)
{
	str_cat(f->detail, sizeof(f->detail),
		"%sNo suggestion: %s already does all it can (util %.0f%%) and no queue setting "
		"of %s is known to be wrong (nr_requests and the scheduler are suggested only "
		"with evidence). What helps is less IO from the processes named in the culprit "
		"(throttle or move a neighbour: systemctl set-property UNIT IOWriteBandwidthMax=), "
		"or a faster device.",
		f->detail[0] ? " " : "", d->name, d->util, d->name);
}

/* --trace: the op whose time at the device (issue to completion) has the
 * highest p99 over ADV_TAIL_MIN_IOS IOs or more in the interval. */
struct disk_tail {
	unsigned op;
	uint64_t n;
	double p99_us, mean_us;
};

static bool disk_tail(const struct ctx *c, const char *name, struct disk_tail *ret)
{
	const struct trace_disk_metrics *td = trace_disk(c, name);
	bool found = false;

	for (unsigned op = 0; td && op < TRACE_OP__COUNT; op++) {
		const struct trace_lat_metrics *l = &td->lat[op][TRACE_LAT_DEVICE];

		if (!td->has[op][TRACE_LAT_DEVICE] || l->count < ADV_TAIL_MIN_IOS)
			continue;
		if (!found || l->p99_us > ret->p99_us) {
			ret->op = op;
			ret->n = l->count;
			ret->p99_us = l->p99_us;
			ret->mean_us = l->mean_us;
			found = true;
		}
	}
	return found;
}

static void tail_sentence(const struct disk_tail *tl, struct finding *f)
{
	str_cat(f->detail, sizeof(f->detail),
		"%sMeasured at the device: %s p99 %.2f ms, mean %.2f ms over %" PRIu64 " IOs.",
		f->detail[0] ? " " : "", trace_op_name(tl->op), tl->p99_us / 1000,
		tl->mean_us / 1000, tl->n);
}

static int find_disks(struct ctx *c)
{
	const struct metrics *m = c->m;

	for (size_t i = 0; i < m->ndisks; i++) {
		const struct disk_metrics *d = &m->disks[i];
		const struct disk_raw *raw = raw_of(c, d);
		const struct topo_block *b = topology_block(c->t, d->name);
		double ios, aw, slow_ms;
		struct disk_tail tl = { 0 };
		bool has_tail, by_tail;
		struct finding *f;

		if (!d->whole)
			continue;
		/* zram, brd and loop turn accounting off by design (zram keeps its own
		 * io_stat): frozen counters there are not news */
		if (raw && raw->iostats == 0 && !kname_virtual_disk(d->name)) {
			struct suggestion *s;
			char path[160];

			f = add_finding(c->a, FIND_IOSTATS_OFF, ADV_INFO, d->name);
			if (!f)
				return -ENOMEM;
			snprintf(f->reason, sizeof(f->reason),
				 "%s: queue/iostats is 0: its counters are frozen, so no metric of "
				 "%s can be trusted (zeros here mean nothing)",
				 d->name, d->name);
			if (!device_path(path, sizeof(path), "sys/block/", KNAME_DISK, d->name,
					 "/queue/iostats")) {
				snprintf(f->detail, sizeof(f->detail),
					 "no suggestion: %s is not a name the kernel gives a disk, "
					 "so it is put in no path or command",
					 d->name);
				continue;
			}
			s = add_suggestion(c->a, "", ADV_INFO, f->id);
			if (!s)
				return -ENOMEM;
			fmt(s->id, sizeof(s->id), "iostats-%s", d->name);
			if (!add_action(s, path, "1", "0"))
				return -ENOMEM;
			snprintf(s->reason, sizeof(s->reason),
				 "%s does not account IO (queue/iostats = 0)", d->name);
			snprintf(
			    s->effect, sizeof(s->effect),
			    "iostat, iotriage and every monitor see %s's IO again; the cost is "
			    "a few counters per request",
			    d->name);
			continue;
		}
		if (!d->valid)
			continue;
		ios = d->r_s + d->w_s + d->d_s;
		if (ios < ADV_MIN_IOPS)
			continue;
		aw = disk_await(d);
		has_tail = disk_tail(c, d->name, &tl);
		/* an SSD/NVMe at 100% util with microsecond awaits is busy, not
		 * saturated: it serves many requests at once, so its queueing must
		 * also cost the application real time */
		if (d->util >= ADV_SAT_UTIL && d->aqu_sz >= ADV_SAT_AQU &&
		    aw >= ADV_SAT_WAIT_FACTOR * d->svctm &&
		    (!b || b->rotational != 0 || aw >= ADV_SAT_SSD_AWAIT)) {
			bool queueing =
			    d->util >= ADV_SAT_CRIT_UTIL && aw >= ADV_SAT_CRIT_FACTOR * d->svctm;
			char psi[64];

			f = add_finding(
			    c->a, FIND_DISK_SATURATED,
			    queueing || psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, d->name);
			if (!f)
				return -ENOMEM;
			psi_text(c, PSI_IO, psi, sizeof(psi));
			f->harm =
			    200 + (psi_some(c, PSI_IO) > 0 ? psi_some(c, PSI_IO) : 0) + d->util;
			snprintf(f->reason, sizeof(f->reason),
				 "%s saturated: util %.2f%%, aqu-sz %.2f, await %.2f ms vs %.2f ms "
				 "of service per IO (%.2f r/s, %.2f w/s), %s: requests queue for "
				 "the device",
				 d->name, d->util, d->aqu_sz, aw, d->svctm, d->r_s, d->w_s, psi);
			io_culprits(c, f, d);
			if (b && b->rotational == 0)
				snprintf(
				    f->detail, sizeof(f->detail),
				    "util counts time with at least one IO in flight; an SSD/NVMe "
				    "serves many at once, so judge it by await and aqu-sz.");
			if (has_tail)
				tail_sentence(&tl, f);
			wb_sentence(c, f);
			{
				size_t fidx = c->a->nfindings - 1, nsugg = c->a->nsuggestions;

				if (suggest_queue(c, &c->a->findings[fidx], d) < 0)
					return -ENOMEM;
				if (c->a->nsuggestions == nsugg)
					no_queue_fix(&c->a->findings[fidx], d);
			}
			continue;
		}
		slow_ms = !b || b->rotational < 0 ? ADV_SLOW_AWAIT_UNKNOWN
			  : b->rotational	  ? ADV_SLOW_AWAIT_HDD
						  : ADV_SLOW_AWAIT_SSD;
		/* measured: a mean that looks fine over a tail that is not */
		by_tail = has_tail && aw < slow_ms && tl.mean_us > 0 &&
			  tl.p99_us / 1000 >= slow_ms && tl.p99_us >= ADV_TAIL_FACTOR * tl.mean_us;
		if (d->util < ADV_SLOW_UTIL && (aw >= slow_ms || by_tail)) {
			double ms = by_tail ? tl.p99_us / 1000 : aw;

			f = add_finding(c->a, FIND_DISK_SLOW,
					psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, d->name);
			if (!f)
				return -ENOMEM;
			f->harm = 100 + (psi_some(c, PSI_IO) > 0 ? psi_some(c, PSI_IO) : 0) +
				  (ms < 100 ? ms : 100);
			io_culprits(c, f, d);
			if (by_tail)
				snprintf(
				    f->reason, sizeof(f->reason),
				    "%s slow by its tail: %s p99 %.2f ms at the device, %.1fx its "
				    "mean %.2f ms (measured, %" PRIu64 " IOs), while await is "
				    "%.2f ms at util %.2f%% (%.2f IO/s): one IO in a hundred is "
				    "very slow while the device is mostly idle",
				    d->name, trace_op_name(tl.op), tl.p99_us / 1000,
				    tl.p99_us / tl.mean_us, tl.mean_us / 1000, tl.n, aw, d->util,
				    ios);
			else
				snprintf(f->reason, sizeof(f->reason),
					 "%s slow: await %.2f ms at util %.2f%% (%.2f IO/s, aqu-sz "
					 "%.2f): each IO is slow while the device is mostly idle",
					 d->name, aw, d->util, ios, d->aqu_sz);
			snprintf(f->detail, sizeof(f->detail),
				 "Not a load problem: the device or what is behind it is slow "
				 "(%s threshold %.0f ms). Check a cloud volume's IOPS/throughput "
				 "limits and burst credits, a RAID controller's cache/battery, or "
				 "the disk's health (smartctl -a /dev/%s). No suggestion: no "
				 "setting of this host makes the device faster.",
				 !b || b->rotational < 0 ? "unknown media"
				 : b->rotational	 ? "rotational"
							 : "non-rotational",
				 slow_ms, d->name);
			if (has_tail)
				tail_sentence(&tl, f);
			wb_sentence(c, f);
		}
	}
	return 0;
}

/* md/dm: one member much slower (await) or busier (util) than the others. */
static int find_members(struct ctx *c)
{
	const struct metrics *m = c->m;

	for (size_t i = 0; i < c->cur->disks.n; i++) {
		const struct disk_raw *raw = &c->cur->disks.rows[i];
		const struct disk_metrics *mem[32];
		double aw[32], ut[32], tmp[32];
		size_t n = 0, worst = 0;
		char list[256], *save = NULL, *tok;
		struct finding *f;
		double med_aw, med_ut;

		if (!raw->slaves[0] || !strchr(raw->slaves, ','))
			continue;
		str_copy(list, sizeof(list), raw->slaves);
		for (tok = strtok_r(list, ",", &save); tok && n < 32;
		     tok = strtok_r(NULL, ",", &save)) {
			const struct disk_metrics *d = metrics_by_name(m, tok);

			if (!d || !d->valid || d->r_s + d->w_s < ADV_MIN_IOPS)
				continue;
			mem[n] = d;
			aw[n] = disk_await(d);
			ut[n] = d->util;
			if (aw[n] > aw[worst] || n == 0)
				worst = n;
			n++;
		}
		if (n < 2)
			continue;
		for (size_t k = 0, j = 0; k < n; k++)
			if (k != worst)
				tmp[j++] = aw[k];
		med_aw = median(tmp, n - 1);
		for (size_t k = 0, j = 0; k < n; k++)
			if (k != worst)
				tmp[j++] = ut[k];
		med_ut = median(tmp, n - 1);
		if (!((aw[worst] >= ADV_MEMBER_FACTOR * med_aw &&
		       aw[worst] - med_aw >= ADV_MEMBER_MIN_MS) ||
		      (ut[worst] >= med_ut + ADV_MEMBER_UTIL_GAP && ut[worst] >= 50)))
			continue;
		f = add_finding(c->a, FIND_MEMBER_IMBALANCE, ADV_WARNING, raw->name);
		if (!f)
			return -ENOMEM;
		fmt(f->id, sizeof(f->id), "member-imbalance-%s-%s", raw->name, mem[worst]->name);
		snprintf(f->reason, sizeof(f->reason),
			 "%s%s%s%s member %s: await %.2f ms vs %.2f ms median of the other %zu "
			 "members, util %.2f%% vs %.2f%%: one member holds back every stripe",
			 raw->name, raw->dm_name[0] ? " (" : "", raw->dm_name,
			 raw->dm_name[0] ? ")" : "", mem[worst]->name, aw[worst], med_aw, n - 1,
			 ut[worst], med_ut);
		str_cat(f->detail, sizeof(f->detail), "members:");
		for (size_t k = 0; k < n; k++)
			str_cat(f->detail, sizeof(f->detail), "%s %s await %.2f ms util %.2f%%",
				k ? "," : "", mem[k]->name, aw[k], ut[k]);
		str_cat(
		    f->detail, sizeof(f->detail),
		    ". Check %s's health (smartctl -a /dev/%s), its path (cable, HBA port) and, "
		    "on a cloud VM, that volume's own limits.",
		    mem[worst]->name, mem[worst]->name);
	}
	return 0;
}

/* ---- CPUs as a whole ---- */

/* The processes using the most CPU, into f->culprit. */
static void cpu_culprits(const struct ctx *c, struct finding *f)
{
	const struct workload_metrics *x = c->m->workload;
	char label[ADV_TEXT_MAX];
	unsigned shown = 0;

	if (!x || !x->procs_valid)
		return;
	for (size_t k = 0; k < x->nby_cpu && shown < 3; k++) {
		const struct proc_metrics *p = &x->procs[x->by_cpu[k]];

		if (p->cpu_pct < 1)
			continue;
		if (!shown) {
			proc_short(p, label, sizeof(label));
			str_cat(f->who, sizeof(f->who), "%s pid %d %%CPU %.0f", label, p->pid,
				p->cpu_pct);
		}
		proc_label(p, label, sizeof(label));
		str_cat(f->culprit, sizeof(f->culprit), "%s%s %%CPU %.0f (usr %.0f sys %.0f)",
			shown ? "; " : "", label, p->cpu_pct, p->usr_pct, p->sys_pct);
		shown++;
	}
}

/* "%usr 12.0 %nice 80.5 %sys 3.0 %steal 0.0 %irq+%soft 0.5" of the whole host. */
static void cpu_split(const struct cpu_metrics *a, char *buf, size_t size)
{
	snprintf(buf, size,
		 "%%usr %.1f %%nice %.1f %%sys %.1f %%iowait %.1f %%irq+%%soft %.1f %%steal %.1f "
		 "%%idle %.1f",
		 a->usr, a->nice, a->sys, a->iowait, a->irq + a->soft, a->steal, a->idle);
}

/*
 * Every CPU busy (not idle, not waiting on IO) and tasks waiting for one:
 * cpu_saturated, critical under cpu pressure; a hypervisor taking the time:
 * steal.
 */
static int find_cpus(struct ctx *c)
{
	const struct cpu_metrics *a = &c->m->all;
	double busy, some = psi_some(c, PSI_CPU);
	char split[256], psi[64];
	struct finding *f;

	/* an interval without a tick (a tree that did not advance) says nothing */
	if (!c->m->cpu_valid || !a->valid ||
	    a->usr + a->nice + a->sys + a->iowait + a->irq + a->soft + a->steal + a->idle < 99)
		return 0;
	busy = 100 - a->idle - a->iowait;
	cpu_split(a, split, sizeof(split));
	psi_text(c, PSI_CPU, psi, sizeof(psi));
	if (busy >= ADV_CPU_BUSY && (some < 0 || some >= ADV_CPU_PSI)) {
		f = add_finding(c->a, FIND_CPU_SATURATED,
				psi_hurts(c, PSI_CPU) ? ADV_CRITICAL : ADV_WARNING, "cpus");
		if (!f)
			return -ENOMEM;
		f->harm = 150 + (some > 0 ? some : 0);
		snprintf(f->reason, sizeof(f->reason),
			 "all %zu CPUs %.0f%% busy (%s), %s: runnable tasks wait for a CPU",
			 c->m->ncpu, busy, split, psi);
		cpu_culprits(c, f);
		if (a->nice >= a->usr && a->nice >= 25)
			str_cat(f->detail, sizeof(f->detail),
				"Most of it is %%nice: work started under nice(1). It yields to "
				"normal-priority tasks in the scheduler but still takes every idle "
				"cycle and its cache and memory bandwidth. ");
		if (a->steal >= ADV_STEAL_PCT)
			str_cat(f->detail, sizeof(f->detail),
				"%.0f%% of the time is stolen by the hypervisor (see steal). ",
				a->steal);
		str_cat(
		    f->detail, sizeof(f->detail),
		    "No suggestion: which work may have the CPUs is yours to decide: renice the "
		    "processes in the culprit (renice -n 19 -p PID), cap a unit "
		    "(systemctl set-property UNIT CPUQuota=50%%), or add CPUs.");
	}
	if (a->steal >= ADV_STEAL_PCT) {
		f = add_finding(c->a, FIND_STEAL,
				a->steal >= ADV_STEAL_CRIT && psi_hurts(c, PSI_CPU) ? ADV_CRITICAL
										    : ADV_WARNING,
				"cpus");
		if (!f)
			return -ENOMEM;
		f->harm = 120 + a->steal;
		snprintf(f->reason, sizeof(f->reason),
			 "%%steal %.1f: the hypervisor ran other guests on this VM's CPUs for "
			 "%.0f%% of the time (%s)",
			 a->steal, a->steal, psi);
		snprintf(f->detail, sizeof(f->detail),
			 "A noisy neighbour on the same host, or CPU credits used up (burstable "
			 "instances). No suggestion: nothing inside the guest fixes it; ask the "
			 "provider, move to dedicated or larger instances, or migrate the VM.");
	}
	return 0;
}

/* Tasks wait on IO (iowait, io pressure) while no disk is saturated or slow. */
static int find_iowait(struct ctx *c)
{
	const struct cpu_metrics *a = &c->m->all;
	const struct workload_metrics *x = c->m->workload;
	double some = psi_some(c, PSI_IO);
	char psi[64], label[ADV_TEXT_MAX];
	struct finding *f;
	unsigned shown = 0;

	if (!c->m->cpu_valid || !a->valid || a->iowait < ADV_IOWAIT_PCT)
		return 0;
	if (some >= 0 && some < ADV_IOWAIT_PSI)
		return 0;
	for (size_t i = 0; i < c->a->nfindings; i++)
		if (c->a->findings[i].kind == FIND_DISK_SATURATED ||
		    c->a->findings[i].kind == FIND_DISK_SLOW)
			return 0;
	psi_text(c, PSI_IO, psi, sizeof(psi));
	f = add_finding(c->a, FIND_IOWAIT, psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, "io");
	if (!f)
		return -ENOMEM;
	f->harm = 90 + a->iowait;
	snprintf(f->reason, sizeof(f->reason),
		 "%%iowait %.1f, %s, while no local disk is saturated or slow: tasks wait on IO "
		 "that the disk counters do not show",
		 a->iowait, psi);
	snprintf(f->detail, sizeof(f->detail),
		 "Where such waits come from: a network filesystem (NFS, CIFS: nfsiostat), a "
		 "cgroup's io.max or blkio throttle, the dirty page cache throttling writers "
		 "(see writeback), swap-in, or a device whose queue/iostats is 0. No "
		 "suggestion: the cause is outside the disks measured here. ");
	if (!x || !x->procs_valid)
		return 0;
	for (size_t k = 0; k < x->nby_delay && shown < 3; k++) {
		const struct proc_metrics *p = &x->procs[x->by_delay[k]];

		if (p->io_delay < 1)
			continue;
		if (!shown) {
			proc_short(p, label, sizeof(label));
			str_cat(f->who, sizeof(f->who), "%s pid %d waits %.0f%% on IO", label,
				p->pid, p->io_delay);
		}
		proc_label(p, label, sizeof(label));
		str_cat(f->culprit, sizeof(f->culprit), "%s%s waits %.0f%% of the time on IO",
			shown ? "; " : "", label, p->io_delay);
		shown++;
	}
	return 0;
}

/* ---- rank ---- */

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->harm != y->harm)
		return x->harm > y->harm ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank; /* as found */
}

void advise_rank(struct advice *a)
{
	for (size_t i = 0; i < a->nfindings; i++)
		a->findings[i].rank = (unsigned)i; /* keeps the order of equals */
	if (a->nfindings > 1) /* none: findings may be NULL, which qsort may not take */
		qsort(a->findings, a->nfindings, sizeof(*a->findings), cmp_finding);
	for (size_t i = 0; i < a->nfindings; i++)
		a->findings[i].rank = (unsigned)i + 1;
}

/* What a finding kind weighs when nothing measured sets it: the side
 * findings (managed IRQs, irqbalance, topology, frozen counters) come after
 * what hurts. */
static double kind_harm(enum finding_kind k)
{
	switch (k) {
	case FIND_MEMBER_IMBALANCE:
		return 110;
	case FIND_WRITEBACK_THROTTLED:
		return 80;
	case FIND_MANAGED_IRQS:
		return 30;
	case FIND_IRQBALANCE:
		return 20;
	case FIND_IOSTATS_OFF:
		return 15;
	case FIND_TOPOLOGY_MISSING:
		return 10;
	default:
		return 0;
	}
}

int advise_run(const struct advise_input *in, struct advice *ret)
{
	const struct snapshot *cur = in->cur;
	const struct metrics *m = in->m;
	const struct trace_metrics *tm = in->trace;
	const struct topology *t = in->t;
	struct advice a = { 0 };
	struct ctx c = { .cur = cur, .m = m, .t = t, .a = &a, .tm = tm };
	bool hot = false;
	int r;

	/* both probes or neither: half the time would judge a core by half */
	c.timed = tm && tm->on[TRACE_HARDIRQ] && tm->on[TRACE_SOFTIRQ] && tm->ncpu &&
		  tm->soft_us_s && tm->hard_us_s;
	c.block_timed = tm && tm->on[TRACE_BLOCK];

	r = find_hot_cpus(&c);
	if (r >= 0 && c.need_irqbalance_finding) {
		struct finding *f = add_finding(&a, FIND_IRQBALANCE, ADV_WARNING, "irqbalance");

		if (!f) {
			r = -ENOMEM;
		} else {
			snprintf(
			    f->reason, sizeof(f->reason),
			    "irqbalance (pid %d) is running: it will rewrite the IRQ affinities "
			    "suggested here at its next pass",
			    t->irqbalance.pid);
			snprintf(f->detail, sizeof(f->detail),
				 "Each IRQ suggestion says which --banirq options keep irqbalance "
				 "away from it.%s",
				 cpuset_empty(&t->irqbalance.banned_cpus)
				     ? ""
				     : " CPUs banned from irqbalance are not used as targets.");
		}
	}
	c.wb_throttled = wb_throttled(&c);
	if (r >= 0)
		r = find_disks(&c);
	if (r >= 0)
		r = find_members(&c);
	if (r >= 0)
		r = find_writeback(&c);
	if (r >= 0)
		r = find_cpus(&c);
	if (r >= 0)
		r = find_iowait(&c);
	/* missing topology only lowers the interrupt advice: say so there */
	for (size_t i = 0; i < a.nfindings && r >= 0; i++)
		if (a.findings[i].kind == FIND_HOT_CPU)
			hot = true;
	if (r >= 0 && t->nmissing && hot) {
		struct finding *f = add_finding(&a, FIND_TOPOLOGY_MISSING, ADV_INFO, "topology");

		if (!f) {
			r = -ENOMEM;
		} else {
			snprintf(
			    f->reason, sizeof(f->reason),
			    "advice limited: %zu kinds of topology file are missing (container, "
			    "old kernel or no permission)",
			    t->nmissing);
			str_cat(f->detail, sizeof(f->detail), "missing:");
			for (size_t i = 0; i < t->nmissing; i++)
				str_cat(f->detail, sizeof(f->detail), "%s %s", i ? "," : "",
					t->missing[i]);
			str_cat(f->detail, sizeof(f->detail), ".");
		}
	}
	if (r < 0) {
		advice_free(&a);
		return r;
	}
	for (size_t i = 0; i < a.nfindings; i++)
		if (a.findings[i].harm == 0)
			a.findings[i].harm = kind_harm(a.findings[i].kind);
	advise_rank(&a);
	*ret = a;
	return 0;
}
