// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IRQ suggestions for a hot core: spread a device's vectors, or for a lone
 * vector a move to the quietest CPU (and rq_affinity=2 for the disks behind
 * it, from rules_disk.c); the kernel-managed IRQs finding and the
 * irqbalance notes.
 */
#include "advise_int.h"

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
void device_cpus(const struct topology *t, int dev, struct cpuset *ret, char *note,
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

void irqbalance_note(const struct topology *t, const uint32_t *irqs, size_t n, char *buf,
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

/* Adds to s the write that moves IRQ ti to cpu: NULL on -ENOMEM. */
static struct advise_action *irq_move_action(struct suggestion *s, const struct topo_irq *ti,
					     int cpu)
{
	char path[ADV_PATH_MAX], v[16];
	struct advise_action *ac;

	snprintf(path, sizeof(path), "proc/irq/%u/smp_affinity_list", ti->irq);
	snprintf(v, sizeof(v), "%d", cpu);
	ac = add_action(s, path, v, ti->smp_list);
	if (ac) {
		ac->is_irq = true;
		ac->irq = ti->irq;
	}
	return ac;
}

/* One pass over a group's IRQs: the IRQs moved (each one irqbalance must be
 * kept from) and those left alone. */
#define SPREAD_IRQS_MAX 128
struct spread_tally {
	uint32_t moved[SPREAD_IRQS_MAX], managed[SPREAD_IRQS_MAX];
	size_t nmoved, nmanaged, nmissing, nmembers, nguessed;
	bool managed_guessed;
};

/* Adds to s a write for each movable IRQ of g that is not already where it
 * goes: one per CPU of targets in turn, or the driver's hint when it is one
 * of them. */
static int spread_actions(struct ctx *c, struct suggestion *s, const struct hot_group *g,
			  const struct cpuset *targets, struct spread_tally *tl)
{
	const struct topology *t = c->t;
	int next = cpuset_next(targets, 0);

	for (size_t i = 0; i < t->nirqs; i++) {
		const struct topo_irq *ti = &t->irqs[i];
		struct cpuset want = { 0 }, hint;
		char key[IOT_NAME_MAX + 8];
		int target;

		irq_group_key(c, ti, irq_actions(c, cur_irq_row(c, ti->irq), ti), key, sizeof(key));
		if (strcmp(key, g->key) != 0)
			continue;
		tl->nmembers++;
		if (ti->managed) {
			if (tl->nmanaged < SPREAD_IRQS_MAX)
				tl->managed[tl->nmanaged] = ti->irq;
			tl->managed_guessed = tl->managed_guessed || !ti->managed_known;
			tl->nmanaged++;
			continue;
		}
		if (!ti->has_smp) {
			tl->nmissing++;
			continue;
		}
		if (!ti->managed_known)
			tl->nguessed++;
		cpuset_and(&hint, &ti->hint, targets);
		if (ti->has_hint && !cpuset_empty(&hint)) {
			target = cpuset_next(&hint, 0); /* the driver's choice wins */
		} else {
			target = next;
			next = cpuset_next(targets, (unsigned)next + 1);
			if (next < 0)
				next = cpuset_next(targets, 0);
		}
		cpuset_set(&want, (unsigned)target);
		/* irqbalance would move an unmoved member too: ban every one */
		if (tl->nmoved < SPREAD_IRQS_MAX)
			tl->moved[tl->nmoved++] = ti->irq;
		if (cpuset_equal(&want, &ti->smp_affinity))
			continue;
		if (!irq_move_action(s, ti, target))
			return -ENOMEM;
	}
	return 0;
}

/* The IRQs of g left alone, and why, in note. */
static void spread_left_alone(const struct topology *t, const struct hot_group *g,
			      const struct spread_tally *tl, char *note, size_t size)
{
	if (tl->nmanaged) {
		str_cat(note, size, "left alone (kernel-managed%s): IRQ",
			tl->managed_guessed ? ", guessed from the driver" : "");
		for (size_t i = 0; i < tl->nmanaged && i < SPREAD_IRQS_MAX; i++)
			str_cat(note, size, " %u", tl->managed[i]);
		str_cat(note, size, ". ");
	}
	if (tl->nguessed)
		str_cat(
		    note, size,
		    "Managed or not is guessed: /sys/kernel/debug/irq/irqs/N is not readable "
		    "(debugfs not mounted, or not root) and driver %s is not known to let the "
		    "kernel manage these vectors; if a write fails with EIO, it does, and apply "
		    "restores what it wrote. ",
		    g->dev >= 0 && t->devs[g->dev].driver[0] ? t->devs[g->dev].driver
							     : "(unknown)");
	if (tl->nmissing)
		str_cat(note, size, "%zu IRQs without /proc/irq/N/smp_affinity_list left alone. ",
			tl->nmissing);
}

/* Nothing to spread (already spread, or all managed or unreadable): the
 * managed IRQs finding, or why there is no suggestion. */
static int spread_nothing(struct ctx *c, int cpu, const struct hot_group *g,
			  const struct spread_tally *tl, char *why, size_t why_size)
{
	if (g->nmanaged_hot)
		return managed_finding(c, cpu, g, g->nmanaged_hot, g->managed_why) < 0 ? -ENOMEM
										       : 0;
	if (tl->nmembers == 0 || tl->nmissing)
		str_cat(why, why_size,
			"no suggestion for %s: its IRQs' /proc/irq/N/smp_affinity_list cannot "
			"be read (container, old kernel or no permission), so no command "
			"could be applied or undone. ",
			g->label);
	else
		str_cat(why, why_size, "no suggestion for %s: already spread. ", g->label);
	return 0;
}

/* The spread's reason and effect: g's rate on cpu shared over the targets. */
static void spread_text(struct suggestion *s, const struct hot_group *g, int cpu, double cpu_intr,
			double cpu_load, const struct cpuset *targets, unsigned movable)
{
	double share = cpu_intr > 0 ? g->rate / cpu_intr : 0;
	unsigned k = cpuset_count(targets);
	unsigned spread = k < movable ? k : movable;
	char list[TOPO_LIST_MAX];

	cpuset_format_list(targets, list, sizeof(list));
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

/* g's IRQs, two or more, spread one per usable CPU of the device's node;
 * else why not in *why (or the managed IRQs finding). */
int suggest_spread(struct ctx *c, const struct finding *hot, int cpu, double cpu_intr,
		   double cpu_load, const struct hot_group *g, char *why, size_t why_size)
{
	const struct topology *t = c->t;
	struct spread_tally tl = { 0 };
	char note[2 * ADV_TEXT_MAX] = "", id[ADV_ID_MAX];
	struct cpuset targets;
	struct suggestion *s;

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
	str_fmt(id, sizeof(id), "irq-spread-%s", g->label);
	s = add_suggestion(c->a, id, hot->severity, hot->id);
	if (!s || spread_actions(c, s, g, &targets, &tl) < 0)
		return -ENOMEM;
	spread_left_alone(t, g, &tl, note, sizeof(note));
	if (s->nactions == 0 || tl.nmembers - tl.nmanaged - tl.nmissing < 2) {
		free(s->actions);
		c->a->nsuggestions--;
		return spread_nothing(c, cpu, g, &tl, why, why_size);
	}
	spread_text(s, g, cpu, cpu_intr, cpu_load, &targets,
		    (unsigned)(tl.nmembers - tl.nmanaged - tl.nmissing));
	irqbalance_note(t, tl.moved, tl.nmoved, note, sizeof(note));
	if (t->irqbalance.running)
		c->need_irqbalance_finding = true;
	str_cat(note, sizeof(note), "IRQ affinity does not survive a reboot or a driver reload.");
	str_copy(s->notes, sizeof(s->notes), note);
	c->irq_suggested = true;
	return 0;
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

/* The lone vector ti of g moved to the quietest usable CPU of its node when
 * the hot core also runs other work; else why not in *why. */
static int suggest_irq_move(struct ctx *c, const struct finding *hot, const struct cpu_metrics *cm,
			    const struct hot_group *g, const struct topo_irq *ti, char *why,
			    size_t why_size)
{
	const struct topology *t = c->t;
	double other = cm->usr + cm->nice + cm->sys;
	char id[ADV_ID_MAX];
	struct suggestion *s;
	uint32_t moved = g->irq;
	int to;

	if (!ti || !ti->has_smp || ti->managed) {
		str_cat(why, why_size, "IRQ %u of %s is not moved: %s. ", g->irq, g->label,
			!ti	      ? "its /proc/irq entry is unknown"
			: ti->managed ? "the kernel manages its affinity"
				      : "its smp_affinity_list cannot be read (no undo value)");
		return 0;
	}
	if (other < ADV_SINGLE_OTHER_PCT) {
		str_cat(why, why_size,
			"IRQ %u is not moved: cpu%d runs little else (%%usr+%%nice+%%sys %.1f%%), "
			"so moving the interrupt would only move the hot spot. ",
			g->irq, cm->cpu, other);
		return 0;
	}
	if (!t->has_online) {
		str_cat(why, why_size,
			"IRQ %u is not moved: /sys/devices/system/cpu/online is missing. ", g->irq);
		return 0;
	}
	to = quietest_cpu(c, g->dev, cm->cpu);
	if (to < 0) {
		str_cat(why, why_size, "IRQ %u is not moved: no other usable CPU on its node. ",
			g->irq);
		return 0;
	}
	str_fmt(id, sizeof(id), "irq-move-%u", g->irq);
	s = add_suggestion(c->a, id, hot->severity, hot->id);
	if (!s)
		return -ENOMEM;
	if (!irq_move_action(s, ti, to))
		return -ENOMEM;
	snprintf(s->reason, sizeof(s->reason),
		 "IRQ %u (%s) is the only vector of %s on cpu%d, which also runs "
		 "%.1f%% %%usr+%%nice+%%sys: move it to cpu%d, the quietest usable "
		 "CPU of its node",
		 g->irq, ti->actions[0] ? ti->actions : g->label, g->label, cm->cpu, other, to);
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
	return 0;
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
int suggest_single(struct ctx *c, const struct finding *hot, const struct cpu_metrics *cm,
		   const struct hot_group *g, const struct soft_shares *ss, char *why,
		   size_t why_size)
{
	const struct topology *t = c->t;
	const struct topo_irq *ti = g->has_irq ? topology_irq(t, g->irq) : NULL;
	const char *driver = g->dev >= 0 ? t->devs[g->dev].driver : "";
	char text[ADV_TEXT_MAX];

	if (suggest_rq_affinity(c, hot, cm, g, ss, why, why_size) < 0 ||
	    suggest_irq_move(c, hot, cm, g, ti, why, why_size) < 0)
		return -ENOMEM;
	more_vectors_text(driver, text, sizeof(text));
	str_cat(why, why_size, "%s", text);
	return 0;
}
