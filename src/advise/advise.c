// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisor's entry point: advise_run() runs the rule table (one rule a
 * family: rules_*.c) over one interval, then ranks (rank.c). Also what every
 * rule adds through (add_finding, add_suggestion, add_action) and the
 * advice's lookups. Pure: reads only its arguments. doc/advise.md is its
 * reference.
 */
#include "advise_int.h"

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
		[FIND_TRACE_OFF] = "trace_off",
	};

	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

struct finding *add_finding(struct advice *a, enum finding_kind kind, enum advise_severity sev,
			    const char *subject)
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

struct suggestion *add_suggestion(struct advice *a, const char *id, enum advise_severity sev,
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

struct advise_action *add_action(struct suggestion *s, const char *path, const char *value,
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

/* irqbalance rewrites what the IRQ suggestions of find_hot_cpus would write:
 * one finding says so (those suggestions carry the --banirq options). */
static int find_irqbalance(struct ctx *c)
{
	const struct topology *t = c->t;
	struct finding *f;

	if (!c->need_irqbalance_finding)
		return 0;
	f = add_finding(c->a, FIND_IRQBALANCE, ADV_WARNING, "irqbalance");
	if (!f)
		return -ENOMEM;
	snprintf(f->reason, sizeof(f->reason),
		 "irqbalance (pid %d) is running: it will rewrite the IRQ affinities "
		 "suggested here at its next pass",
		 t->irqbalance.pid);
	snprintf(f->detail, sizeof(f->detail),
		 "Each IRQ suggestion says which --banirq options keep irqbalance "
		 "away from it.%s",
		 cpuset_empty(&t->irqbalance.banned_cpus)
		     ? ""
		     : " CPUs banned from irqbalance are not used as targets.");
	return 0;
}

/* Missing topology only lowers the interrupt advice: say so there. */
static int find_topology_missing(struct ctx *c)
{
	const struct topology *t = c->t;
	struct advice *a = c->a;
	bool hot = false;
	struct finding *f;

	for (size_t i = 0; i < a->nfindings; i++)
		if (a->findings[i].kind == FIND_HOT_CPU)
			hot = true;
	if (!t->nmissing || !hot)
		return 0;
	f = add_finding(a, FIND_TOPOLOGY_MISSING, ADV_INFO, "topology");
	if (!f)
		return -ENOMEM;
	snprintf(f->reason, sizeof(f->reason),
		 "advice limited: %zu kinds of topology file are missing (container, "
		 "old kernel or no permission)",
		 t->nmissing);
	str_cat(f->detail, sizeof(f->detail), "missing:");
	for (size_t i = 0; i < t->nmissing; i++)
		str_cat(f->detail, sizeof(f->detail), "%s %s", i ? "," : "", t->missing[i]);
	str_cat(f->detail, sizeof(f->detail), ".");
	return 0;
}

/* What a probe's absence leaves to counts (doc/advise.md, "Measured time"). */
static const char *const trace_off_counts[TRACE__COUNT] = {
	[TRACE_HARDIRQ] = "cores judged by %irq and interrupt counts",
	[TRACE_SOFTIRQ] = "NET_RX and BLOCK judged by counts, cores by %soft",
	[TRACE_BLOCK] = "disks judged by await, not their tail at the device",
};

/*
 * --trace with a probe off at this read (backing off over its budget, or
 * off for good): an info finding says for how long and what is judged by
 * counts meanwhile, and each finding that would have used it says so in
 * its detail. Before, the advisor went back to counts without a word.
 */
static int find_trace_off(struct ctx *c)
{
	const struct trace_metrics *tm = c->tm;
	char off[96];

	for (int k = 0; tm && k < TRACE__COUNT; k++) {
		const char *name = trace_probe_name((enum trace_probe)k);
		struct finding *f;

		if (!tm->off[k])
			continue;
		if (tm->over_budget[k])
			str_fmt(off, sizeof(off), "off %.0f s (over its %g %% budget)",
				tm->off_s[k], tm->budget_pct);
		else
			str_fmt(off, sizeof(off), "off (trace.probes.%s.reason says why)", name);
		for (size_t i = 0; i < c->a->nfindings; i++) {
			struct finding *g = &c->a->findings[i];
			bool uses = k == TRACE_BLOCK ? g->kind == FIND_DISK_SATURATED ||
							   g->kind == FIND_DISK_SLOW
						     : g->kind == FIND_HOT_CPU;

			if (uses)
				str_cat(g->detail, sizeof(g->detail),
					" Judged by counts: the %s probe is %s.", name, off);
		}
		f = add_finding(c->a, FIND_TRACE_OFF, ADV_INFO, name);
		if (!f)
			return -ENOMEM;
		snprintf(f->reason, sizeof(f->reason), "tracing: %s probe %s: %s", name, off,
			 trace_off_counts[k]);
		snprintf(
		    f->detail, sizeof(f->detail), "%s",
		    tm->over_budget[k]
			? "A probe over --trace-budget is detached for a while (5 s, doubling "
			  "to 60 s while it stays over) and attached again (doc/trace.md, \"The "
			  "budget\"); raise the budget to keep it on."
			: "The probe could not be attached or read; the rest of the tracing "
			  "goes on.");
	}
	return 0;
}

/* The rules, in the order they run (a rule may read what those before it
 * found: irqbalance and topology-missing read the hot-CPU rule's). */
static int (*const rules[])(struct ctx *c) = {
	find_hot_cpus,	       /* rules_cpu.c, with rules_irq.c and rules_net.c */
	find_irqbalance,       /* here */
	find_disks,	       /* rules_disk.c */
	find_members,	       /* rules_disk.c */
	find_writeback,	       /* rules_writeback.c */
	find_cpus,	       /* rules_cpu.c */
	find_iowait,	       /* rules_cpu.c */
	find_topology_missing, /* here */
	find_trace_off,	       /* here: last, it annotates the findings before it */
};

int advise_run(const struct advise_input *in, struct advice *ret)
{
	const struct trace_metrics *tm = in->trace;
	struct advice a = { 0 };
	struct ctx c = { .cur = in->cur, .m = in->m, .t = in->t, .a = &a, .tm = tm };

	/* both probes or neither: half the time would judge a core by half */
	c.timed = tm && tm->on[TRACE_HARDIRQ] && tm->on[TRACE_SOFTIRQ] && tm->ncpu &&
		  tm->soft_us_s && tm->hard_us_s;
	c.block_timed = tm && tm->on[TRACE_BLOCK];
	c.wb_throttled = wb_throttled(&c);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		int r = rules[i](&c);

		if (r < 0) {
			advice_free(&a);
			return r;
		}
	}
	for (size_t i = 0; i < a.nfindings; i++)
		if (a.findings[i].harm == 0)
			a.findings[i].harm = kind_harm(a.findings[i].kind);
	advise_rank(&a);
	*ret = a;
	return 0;
}
