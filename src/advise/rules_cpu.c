// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU rules: a hot core (one CPU far above its peers in interrupt time, and
 * the IRQ lines and softirq vectors that take it, with the suggestions of
 * rules_irq.c and rules_net.c), every CPU saturated, steal, iowait.
 */
#include "advise_int.h"

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
			str_fmt(sh[nsh].label, sizeof(sh[nsh].label), "IRQ %s %s [%s %s]",
				row->label, act, t->devs[ti->dev].name, t->devs[ti->dev].pci);
		else
			str_fmt(sh[nsh].label, sizeof(sh[nsh].label), "%s%s %s",
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

		str_fmt(line, sizeof(line), "IRQ %u%s%s", tm->irq[top], act[0] ? " " : "", act);
	}
	if (soft[v] > 0)
		str_fmt(vec, sizeof(vec), "%s softirq", trace_softirq_name(v));
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

		/* another namespace's device may be called anything, eth0 too */
		if (q->napi_id == 0 || q->irq < 0 || !q->dev[0] || q->foreign ||
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
		str_fmt(queue, sizeof(queue), "rx-%d", best->index);
	else
		str_fmt(queue, sizeof(queue), "NAPI %u", best->napi_id);
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
int find_hot_cpus(struct ctx *c)
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

/* "%usr 12.0 %nice 80.5 %sys 3.0 %steal 0.0 %irq+%soft 0.5" of the whole host. */
static void cpu_split(const struct cpu_metrics *a, char *buf, size_t size)
{
	snprintf(buf, size,
		 "%%usr %.1f %%nice %.1f %%sys %.1f %%iowait %.1f %%irq+%%soft %.1f %%steal %.1f "
		 "%%idle %.1f",
		 a->usr, a->nice, a->sys, a->iowait, a->irq + a->soft, a->steal, a->idle);
}

/* A finding of the CPUs as a whole, weighed by harm: NULL on -ENOMEM. */
static struct finding *harmed_finding(struct ctx *c, enum finding_kind kind,
				      enum advise_severity sev, const char *subject, double harm)
{
	struct finding *f = add_finding(c->a, kind, sev, subject);

	if (f)
		f->harm = harm;
	return f;
}

/*
 * Every CPU busy (not idle, not waiting on IO) and tasks waiting for one:
 * cpu_saturated, critical under cpu pressure; a hypervisor taking the time:
 * steal.
 */
int find_cpus(struct ctx *c)
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
		f = harmed_finding(c, FIND_CPU_SATURATED,
				   psi_hurts(c, PSI_CPU) ? ADV_CRITICAL : ADV_WARNING, "cpus",
				   150 + (some > 0 ? some : 0));
		if (!f)
			return -ENOMEM;
		snprintf(f->reason, sizeof(f->reason),
			 "all %zu CPUs %.0f%% busy (%s), %s: runnable tasks wait for a CPU",
			 c->m->ncpu, busy, split, psi);
		cpu_culprits(c, f);
		cpu_victims(c, f, first_cause(f));
		if (f->detail[0])
			str_cat(f->detail, sizeof(f->detail), " ");
		if (a->nice >= a->usr && a->nice >= 25)
			str_cat(f->detail, sizeof(f->detail),
				"Most of it is %%nice: work started under nice(1). It yields to "
				"normal-priority tasks in the scheduler but still takes every idle "
				"cycle and its cache and memory bandwidth. ");
		if (a->steal >= ADV_STEAL_PCT)
			str_cat(f->detail, sizeof(f->detail),
				"%.0f%% of the time is stolen by the hypervisor (see steal). ",
				a->steal);
		str_cat(f->detail, sizeof(f->detail),
			"No suggestion applied: which work may have the CPUs is yours to decide.");
		cpu_remedy(c, f);
	}
	if (a->steal >= ADV_STEAL_PCT) {
		f = harmed_finding(c, FIND_STEAL,
				   a->steal >= ADV_STEAL_CRIT && psi_hurts(c, PSI_CPU)
				       ? ADV_CRITICAL
				       : ADV_WARNING,
				   "cpus", 120 + a->steal);
		if (!f)
			return -ENOMEM;
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
int find_iowait(struct ctx *c)
{
	const struct cpu_metrics *a = &c->m->all;
	double some = psi_some(c, PSI_IO);
	char psi[64];
	struct finding *f;

	if (!c->m->cpu_valid || !a->valid || a->iowait < ADV_IOWAIT_PCT)
		return 0;
	if (some >= 0 && some < ADV_IOWAIT_PSI)
		return 0;
	for (size_t i = 0; i < c->a->nfindings; i++)
		if (c->a->findings[i].kind == FIND_DISK_SATURATED ||
		    c->a->findings[i].kind == FIND_DISK_SLOW)
			return 0;
	psi_text(c, PSI_IO, psi, sizeof(psi));
	f = harmed_finding(c, FIND_IOWAIT, psi_hurts(c, PSI_IO) ? ADV_CRITICAL : ADV_WARNING, "io",
			   90 + a->iowait);
	if (!f)
		return -ENOMEM;
	snprintf(f->reason, sizeof(f->reason),
		 "%%iowait %.1f, %s, while no local disk is saturated or slow: tasks wait on IO "
		 "that the disk counters do not show",
		 a->iowait, psi);
	snprintf(f->detail, sizeof(f->detail),
		 "Where such waits come from: a network filesystem (NFS, CIFS: nfsiostat), a "
		 "cgroup's io.max or blkio throttle, the dirty page cache throttling writers "
		 "(see writeback), swap-in, or a device whose queue/iostats is 0. No "
		 "suggestion: the cause is outside the disks measured here. ");
	iowait_culprits(c, f);
	io_victims(c, f, NULL, NULL); /* its culprits are waiters */
	return 0;
}
