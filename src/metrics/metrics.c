// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iostat -x and mpstat -u/-I arithmetic over two snapshots. Pure: no I/O,
 * no clock; the interval is a parameter. A counter that went backwards
 * yields "no delta this round", never a negative or absurd rate.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "grow.h"
#include "metrics.h"
#include "metrics_blkmq.h"
#include "metrics_proc.h"
#include "metrics_turbo.h"
#include "diskstats.h"
#include "irqtab.h"
#include "stat.h"

/* sysstat's S_VALUE: a per-second rate from a delta over an interval in 1/100 s. */
static inline double rate(uint64_t delta, uint64_t itv_cs)
{
	return (double)delta / (double)itv_cs * 100.0;
}

static inline double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

uint64_t metrics_interval_cs(const struct snapshot *prev, const struct snapshot *cur)
{
	if (prev->status[SRC_UPTIME].err || cur->status[SRC_UPTIME].err)
		return 0;
	if (cur->uptime.uptime_cs <= prev->uptime.uptime_cs)
		return 0;
	return cur->uptime.uptime_cs - prev->uptime.uptime_cs;
}

int metrics_disk_compute(const struct disk_raw *prev, const struct disk_raw *cur, uint64_t itv_cs,
			 struct disk_metrics *ret)
{
	struct disk_metrics m;
	uint64_t d[DF__COUNT];
	size_t n = cur->ncounters < prev->ncounters ? cur->ncounters : prev->ncounters;

	memset(&m, 0, sizeof(m));
	memcpy(m.name, cur->name, sizeof(m.name));
	memcpy(m.dm_name, cur->dm_name, sizeof(m.dm_name));
	m.major = cur->major;
	m.minor = cur->minor;
	m.whole = cur->whole;
	m.in_flight = cur->v[DF_IN_FLIGHT];
	m.unused = true;
	for (size_t i = 0; i < cur->ncounters && m.unused; i++)
		m.unused = cur->v[i] == 0;
	m.has_discard = n > DF_DC_TICKS;
	m.has_flush = n > DF_FL_TICKS;
	memset(d, 0, sizeof(d));
	for (size_t i = 0; i < n; i++) {
		/* in_flight is a gauge, not a counter */
		if (i == DF_IN_FLIGHT)
			continue;
		if (cur->v[i] < prev->v[i]) {
			snprintf(
			    m.reason, sizeof(m.reason),
			    "counter %zu went backwards (reset, replaced device or 32-bit wrap)",
			    i + 4);
			*ret = m;
			return -ERANGE;
		}
		d[i] = cur->v[i] - prev->v[i];
	}
	if (itv_cs == 0) {
		snprintf(m.reason, sizeof(m.reason), "zero interval");
		*ret = m;
		return -EINVAL;
	}
	m.valid = true;
	m.r_s = rate(d[DF_RD_IOS], itv_cs);
	m.w_s = rate(d[DF_WR_IOS], itv_cs);
	m.rkb_s = rate(d[DF_RD_SECTORS], itv_cs) / 2.0; /* 512-byte sectors -> kB */
	m.wkb_s = rate(d[DF_WR_SECTORS], itv_cs) / 2.0;
	m.rrqm_s = rate(d[DF_RD_MERGES], itv_cs);
	m.wrqm_s = rate(d[DF_WR_MERGES], itv_cs);
	m.rrqm_pct = ratio(d[DF_RD_MERGES] * 100, d[DF_RD_MERGES] + d[DF_RD_IOS]);
	m.wrqm_pct = ratio(d[DF_WR_MERGES] * 100, d[DF_WR_MERGES] + d[DF_WR_IOS]);
	m.r_await = ratio(d[DF_RD_TICKS], d[DF_RD_IOS]);
	m.w_await = ratio(d[DF_WR_TICKS], d[DF_WR_IOS]);
	m.rareq_sz = ratio(d[DF_RD_SECTORS], d[DF_RD_IOS]) / 2.0;
	m.wareq_sz = ratio(d[DF_WR_SECTORS], d[DF_WR_IOS]) / 2.0;
	if (m.has_discard) {
		m.d_s = rate(d[DF_DC_IOS], itv_cs);
		m.dkb_s = rate(d[DF_DC_SECTORS], itv_cs) / 2.0;
		m.drqm_s = rate(d[DF_DC_MERGES], itv_cs);
		m.drqm_pct = ratio(d[DF_DC_MERGES] * 100, d[DF_DC_MERGES] + d[DF_DC_IOS]);
		m.d_await = ratio(d[DF_DC_TICKS], d[DF_DC_IOS]);
		m.dareq_sz = ratio(d[DF_DC_SECTORS], d[DF_DC_IOS]) / 2.0;
	}
	if (m.has_flush) {
		m.f_s = rate(d[DF_FL_IOS], itv_cs);
		m.f_await = ratio(d[DF_FL_TICKS], d[DF_FL_IOS]);
	}
	/* time_in_queue is in ms, the interval in 1/100 s: ms/s / 1000 = queue length */
	m.aqu_sz = rate(d[DF_RQ_TICKS], itv_cs) / 1000.0;
	/* io_ticks ms per s / 10 = percent */
	m.util = rate(d[DF_IO_TICKS], itv_cs) / 10.0;
	m.svctm = ratio(d[DF_IO_TICKS], d[DF_RD_IOS] + d[DF_WR_IOS] + d[DF_DC_IOS]);
	*ret = m;
	return 0;
}

static uint64_t cpu_sum(const struct cpu_raw *c)
{
	/* guest time is already inside user and nice */
	return c->v[CF_USER] + c->v[CF_NICE] + c->v[CF_SYSTEM] + c->v[CF_IDLE] + c->v[CF_IOWAIT] +
	       c->v[CF_IRQ] + c->v[CF_SOFTIRQ] + c->v[CF_STEAL];
}

static double pct(uint64_t p, uint64_t c, uint64_t tot)
{
	return c < p ? 0.0 : (double)(c - p) / (double)tot * 100.0;
}

static uint64_t minus_guest(uint64_t v, uint64_t guest)
{
	return v - (guest < v ? guest : v);
}

/*
 * mpstat's get_per_cpu_interval: checks one CPU's pair, writes the previous
 * counters the percentages are to be taken against (*ret_prev) and the
 * CPU's own interval in jiffies (*ret_tot). -ERANGE, with a reason in m,
 * when there is no honest delta.
 */
static int cpu_interval(const struct cpu_raw *prev, const struct cpu_raw *cur,
			struct cpu_raw *ret_prev, uint64_t *ret_tot, struct cpu_metrics *m)
{
	struct cpu_raw p = *prev;
	uint64_t ishift = 0;

	/*
	 * proc.rst: iowait "will decrease in certain conditions" (a sleep first
	 * counted as iowait is later counted as idle). While idle moved forward
	 * the CPU stayed online: that iowait moved by nothing (mpstat takes the
	 * new value as the old). With idle not advancing, the CPU went offline
	 * and came back, idle and iowait restarting from zero.
	 */
	if (cur->v[CF_IOWAIT] < p.v[CF_IOWAIT] && cur->v[CF_IDLE] > p.v[CF_IDLE])
		p.v[CF_IOWAIT] = cur->v[CF_IOWAIT];
	for (int i = 0; i < CF__COUNT; i++) {
		if (cur->v[i] >= p.v[i])
			continue;
		if (i == CF_IDLE)
			snprintf(
			    m->reason, sizeof(m->reason),
			    "idle went backwards: offline and back online during the interval");
		else if (i == CF_IOWAIT)
			snprintf(m->reason, sizeof(m->reason),
				 "iowait went backwards while idle did not advance: offline and "
				 "back online during the interval");
		else
			snprintf(m->reason, sizeof(m->reason),
				 "cpu counter %d went backwards (hotplug or reset)", i + 1);
		return -ERANGE;
	}
	/* mpstat: the guest counters can run slightly ahead of user/nice, which
	 * contain them; the shortfall is added back into the interval */
	if (minus_guest(cur->v[CF_USER], cur->v[CF_GUEST]) <
	    minus_guest(p.v[CF_USER], p.v[CF_GUEST]))
		ishift += minus_guest(p.v[CF_USER], p.v[CF_GUEST]) -
			  minus_guest(cur->v[CF_USER], cur->v[CF_GUEST]);
	if (minus_guest(cur->v[CF_NICE], cur->v[CF_GUEST_NICE]) <
	    minus_guest(p.v[CF_NICE], p.v[CF_GUEST_NICE]))
		ishift += minus_guest(p.v[CF_NICE], p.v[CF_GUEST_NICE]) -
			  minus_guest(cur->v[CF_NICE], cur->v[CF_GUEST_NICE]);
	*ret_prev = p;
	*ret_tot = cpu_sum(cur) - cpu_sum(&p) + ishift;
	return 0;
}

/* The mpstat -u percentages of (p, c) over tot jiffies, tot > 0. */
static void cpu_fill(const struct cpu_raw *p, const struct cpu_raw *c, uint64_t tot,
		     struct cpu_metrics *m)
{
	m->valid = true;
	m->usr = pct(minus_guest(p->v[CF_USER], p->v[CF_GUEST]),
		     minus_guest(c->v[CF_USER], c->v[CF_GUEST]), tot);
	m->nice = pct(minus_guest(p->v[CF_NICE], p->v[CF_GUEST_NICE]),
		      minus_guest(c->v[CF_NICE], c->v[CF_GUEST_NICE]), tot);
	m->sys = pct(p->v[CF_SYSTEM], c->v[CF_SYSTEM], tot);
	m->iowait = pct(p->v[CF_IOWAIT], c->v[CF_IOWAIT], tot);
	m->irq = pct(p->v[CF_IRQ], c->v[CF_IRQ], tot);
	m->soft = pct(p->v[CF_SOFTIRQ], c->v[CF_SOFTIRQ], tot);
	m->steal = pct(p->v[CF_STEAL], c->v[CF_STEAL], tot);
	m->guest = pct(p->v[CF_GUEST], c->v[CF_GUEST], tot);
	m->gnice = pct(p->v[CF_GUEST_NICE], c->v[CF_GUEST_NICE], tot);
	m->idle = pct(p->v[CF_IDLE], c->v[CF_IDLE], tot);
}

int metrics_cpu_compute(const struct cpu_raw *prev, const struct cpu_raw *cur,
			struct cpu_metrics *ret)
{
	struct cpu_metrics m;
	struct cpu_raw p;
	uint64_t tot;

	memset(&m, 0, sizeof(m));
	m.cpu = cur->cpu;
	if (cpu_interval(prev, cur, &p, &tot, &m) < 0) {
		*ret = m;
		return -ERANGE;
	}
	if (tot == 0) {
		/* a tickless CPU that did nothing: mpstat shows it fully idle */
		m.valid = true;
		m.idle = 100.0;
	} else {
		cpu_fill(&p, cur, tot, &m);
	}
	*ret = m;
	return 0;
}

static int compute_disks(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv,
			 struct metrics *m)
{
	size_t hint = 0, found = 0;

	m->ndisks = 0;
	m->disks_missing = 0;
	if (grow((void **)&m->disks, &m->disks_cap, cur->disks.n, sizeof(*m->disks)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->disks.n; i++) {
		const struct disk_raw *c = &cur->disks.rows[i];
		const struct disk_raw *p = disk_table_find(&prev->disks, c->major, c->minor, &hint);
		struct disk_metrics *dm = &m->disks[m->ndisks++];

		if (!p && prev->status[SRC_DISKSTATS].err) {
			/* a previous sample without diskstats had no disks at all:
			 * no honest number, and its reason (file and line) is the one
			 * that counts */
			memset(dm, 0, sizeof(*dm));
			memcpy(dm->name, c->name, sizeof(dm->name));
			memcpy(dm->dm_name, c->dm_name, sizeof(dm->dm_name));
			dm->major = c->major;
			dm->minor = c->minor;
			dm->whole = c->whole;
			dm->in_flight = c->v[DF_IN_FLIGHT];
			snprintf(dm->reason, sizeof(dm->reason), "%s",
				 prev->status[SRC_DISKSTATS].reason);
			continue;
		}
		if (!p || strcmp(p->name, c->name) != 0) {
			/*
			 * New, or re-registered under the same major:minor with a
			 * new name: its counters started at 0 inside the interval,
			 * so it is rated from zero, as iostat does.
			 */
			struct disk_raw zero;

			memset(&zero, 0, sizeof(zero));
			zero.ncounters = c->ncounters;
			metrics_disk_compute(&zero, c, itv, dm);
			dm->new_in_interval = true;
			continue;
		}
		found++;
		metrics_disk_compute(p, c, itv, dm);
	}
	m->disks_missing = (unsigned)(prev->disks.n - found);
	return 0;
}

static void cpu_add(struct cpu_raw *sum, const struct cpu_raw *c)
{
	for (int i = 0; i < CF__COUNT; i++)
		sum->v[i] += c->v[i];
}

static int compute_cpus(const struct snapshot *prev, const struct snapshot *cur, struct metrics *m)
{
	struct cpu_raw sum_p = { .cpu = IOT_CPU_ALL }, sum_c = { .cpu = IOT_CPU_ALL };
	uint64_t sum_tot = 0;
	size_t paired = 0;

	m->ncpu = 0;
	m->cpu_valid = !prev->status[SRC_STAT].err && !cur->status[SRC_STAT].err;
	memset(&m->all, 0, sizeof(m->all));
	m->all.cpu = IOT_CPU_ALL;
	if (!m->cpu_valid) {
		snprintf(m->all.reason, sizeof(m->all.reason), "/proc/stat unavailable");
		return 0;
	}
	if (grow((void **)&m->cpus, &m->cpus_cap, cur->stat.ncpu, sizeof(*m->cpus)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->stat.ncpu; i++) {
		const struct cpu_raw *c = &cur->stat.cpus[i];
		const struct cpu_raw *p = stat_find_cpu(&prev->stat, c->cpu);
		struct cpu_metrics *cm = &m->cpus[m->ncpu++];
		struct cpu_raw padj;
		uint64_t tot;

		if (!p) {
			memset(cm, 0, sizeof(*cm));
			cm->cpu = c->cpu;
			cm->offline = true;
			snprintf(cm->reason, sizeof(cm->reason), "came online during the interval");
			continue;
		}
		if (metrics_cpu_compute(p, c, cm) < 0)
			continue;
		/*
		 * mpstat's "all" is the sum of the CPUs, not the "cpu" line, taken
		 * against each CPU's corrected previous counters and over the sum
		 * of each CPU's own interval (its own guest shortfall included).
		 */
		(void)cpu_interval(p, c, &padj, &tot, cm);
		cpu_add(&sum_p, &padj);
		cpu_add(&sum_c, c);
		sum_tot += tot;
		paired++;
	}
	if (paired) {
		/* mpstat: "CPU all cannot be tickless" */
		cpu_fill(&sum_p, &sum_c, sum_tot ? sum_tot : 1, &m->all);
	} else {
		metrics_cpu_compute(&prev->stat.all, &cur->stat.all, &m->all);
	}
	m->all.cpu = IOT_CPU_ALL;
	return 0;
}

/* Per-row per-CPU rates of two irq_tables. col_sums (NULL, or one double per
 * CPU of cur, zeroed) accumulates mpstat -I SUM's per-CPU totals on the way:
 * one pass over half a million cells instead of two. */
static int compute_rates(const struct irq_table *prev, const struct irq_table *cur, uint64_t itv,
			 struct rate_table *rt, double *col_sums)
{
	bool same_cols = prev->ncpu == cur->ncpu;
	size_t hint = 0;

	rt->ncpu = 0;
	rt->n = 0;
	rt->skipped = 0;
	if (grow((void **)&rt->cpu_ids, &rt->cpu_cap, cur->ncpu, sizeof(*rt->cpu_ids)) < 0 ||
	    grow((void **)&rt->cur_col, &rt->col_cap, cur->ncpu, sizeof(*rt->cur_col)) < 0 ||
	    grow((void **)&rt->prev_col, &rt->prev_cap, cur->ncpu, sizeof(*rt->prev_col)) < 0)
		return -ENOMEM;
	/* CPUs are matched by number: one may have gone offline in between */
	for (size_t i = 0; i < cur->ncpu; i++) {
		int pc = (i < prev->ncpu && prev->cpu_ids[i] == cur->cpu_ids[i])
			     ? (int)i
			     : irq_table_cpu_col(prev, cur->cpu_ids[i]);

		if (pc != (int)i)
			same_cols = false;
		if (pc < 0)
			continue;
		rt->cpu_ids[rt->ncpu] = cur->cpu_ids[i];
		rt->cur_col[rt->ncpu] = i;
		rt->prev_col[rt->ncpu] = (size_t)pc;
		rt->ncpu++;
	}
	if (grow((void **)&rt->rows, &rt->cap, cur->n, sizeof(*rt->rows)) < 0 ||
	    grow((void **)&rt->rates, &rt->rates_cap, cur->n * rt->ncpu, sizeof(*rt->rates)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < cur->n; i++) {
		const struct irq_row *c = &cur->rows[i];
		const struct irq_row *p = irq_table_find(prev, c->label, &hint);
		struct rate_row *rr = &rt->rows[rt->n];
		double *rates = rt->rates + rt->n * rt->ncpu;
		const uint64_t *cc, *pcnt;
		bool ok = p != NULL && c->percpu_counts == (p ? p->percpu_counts : false);
		double total = 0;

		memcpy(rr->label, c->label, sizeof(rr->label));
		rr->cur_index = i;
		rr->rates_off = rt->n * rt->ncpu;
		rr->total_s = 0;
		rr->valid = false;
		rt->n++;
		if (ok && !c->percpu_counts) {
			/* ERR:/MIS: one system-wide count */
			memset(rates, 0, rt->ncpu * sizeof(*rates));
			rr->valid = c->total >= p->total;
			rr->total_s = rr->valid ? rate(c->total - p->total, itv) : 0;
			rt->skipped += !rr->valid;
			continue;
		}
		cc = irq_row_counts(cur, c);
		pcnt = ok ? irq_row_counts(prev, p) : NULL;
		if (ok && same_cols) {
			/* the common shape: same CPU columns, contiguous, vectorisable */
			uint64_t back = 0;

			for (size_t k = 0; k < rt->ncpu; k++) {
				uint64_t d = cc[k] - pcnt[k];

				back |= (uint64_t)(cc[k] < pcnt[k]);
				/* most vectors count on one CPU: skip the division
				 * for the idle columns (0 / itv is exactly 0) */
				rates[k] = d ? (double)d / (double)itv * 100.0 : 0.0;
				total += rates[k];
			}
			ok = !back;
		} else if (ok) {
			for (size_t k = 0; k < rt->ncpu && ok; k++) {
				uint64_t cv = cc[rt->cur_col[k]], pv = pcnt[rt->prev_col[k]];

				ok = cv >= pv;
				rates[k] = ok ? rate(cv - pv, itv) : 0;
			}
		}
		if (!ok) {
			memset(rates, 0, rt->ncpu * sizeof(*rates));
			rt->skipped++;
			continue;
		}
		if (!same_cols) {
			for (size_t k = 0; k < rt->ncpu; k++)
				total += rates[k];
		}
		if (col_sums) {
			for (size_t k = 0; k < rt->ncpu; k++)
				col_sums[k] += rates[k];
		}
		rr->valid = true;
		rr->total_s = total;
	}
	return 0;
}

/* mpstat -I SUM per CPU: the interrupts of every /proc/interrupts line on that CPU. */
static void sum_intr_per_cpu(struct metrics *m, const struct irq_table *cur)
{
	const struct rate_table *rt = &m->irq;
	size_t ci = 0;

	for (size_t i = 0; i < m->ncpu; i++) {
		m->cpus[i].intr_s = 0;
		m->cpus[i].has_intr_s = false;
	}
	if (!m->irq_valid)
		return;
	(void)cur;
	/* the sums were taken by compute_rates; both lists are sorted by CPU number: merge */
	for (size_t k = 0; k < rt->ncpu; k++) {
		while (ci < m->ncpu && m->cpus[ci].cpu < rt->cpu_ids[k])
			ci++;
		/* whether or not its /proc/stat row is usable: /proc/interrupts
		 * counts on through a hotplug or an iowait glitch */
		if (ci < m->ncpu && m->cpus[ci].cpu == rt->cpu_ids[k]) {
			m->cpus[ci].intr_s = m->all_intr_scratch[k];
			m->cpus[ci].has_intr_s = true;
		}
	}
}

int metrics_compute(const struct snapshot *prev, const struct snapshot *cur, uint64_t itv_cs,
		    struct metrics *m)
{
	int r;

	if (itv_cs == 0)
		return -EINVAL;
	m->itv_cs = itv_cs;
	r = compute_disks(prev, cur, itv_cs, m);
	if (r >= 0)
		r = compute_cpus(prev, cur, m);
	if (r < 0)
		return r;
	m->intr_valid = m->cpu_valid && prev->stat.has_intr && cur->stat.has_intr &&
			cur->stat.intr_total >= prev->stat.intr_total;
	m->intr_all_s =
	    m->intr_valid ? rate(cur->stat.intr_total - prev->stat.intr_total, itv_cs) : 0;
	m->irq_valid = !prev->status[SRC_INTERRUPTS].err && !cur->status[SRC_INTERRUPTS].err;
	m->softirq_valid = !prev->status[SRC_SOFTIRQS].err && !cur->status[SRC_SOFTIRQS].err;
	m->irq.n = m->irq.ncpu = 0;
	m->softirq.n = m->softirq.ncpu = 0;
	if (m->irq_valid) {
		if (grow((void **)&m->all_intr_scratch, &m->scratch_cap, cur->irqs.ncpu,
			 sizeof(*m->all_intr_scratch)) < 0)
			return -ENOMEM;
		memset(m->all_intr_scratch, 0, cur->irqs.ncpu * sizeof(*m->all_intr_scratch));
		r = compute_rates(&prev->irqs, &cur->irqs, itv_cs, &m->irq, m->all_intr_scratch);
		if (r < 0)
			return r;
	}
	if (m->softirq_valid) {
		r = compute_rates(&prev->softirqs, &cur->softirqs, itv_cs, &m->softirq, NULL);
		if (r < 0)
			return r;
	}
	sum_intr_per_cpu(m, &cur->irqs);
	r = metrics_blkmq_compute(cur, m);
	if (r < 0)
		return r;
	r = metrics_proc_compute(prev, cur, itv_cs, m->irq_valid ? &m->irq : NULL, &m->workload);
	if (r < 0)
		return r;
	/* a sample that skipped the counters keeps the last read's rates; the
	 * next read's span the two reads (turbo_raw.mono_ns) */
	if (cur->cadence[CAD_TURBO].carried && m->turbo)
		return 0;
	return turbo_metrics_update(&m->turbo, prev, cur, itv_cs);
}

static void rate_table_free(struct rate_table *rt)
{
	free(rt->cpu_ids);
	free(rt->cur_col);
	free(rt->prev_col);
	free(rt->rows);
	free(rt->rates);
	memset(rt, 0, sizeof(*rt));
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	free(m->disks);
	free(m->cpus);
	free(m->all_intr_scratch);
	free(m->mq);
	rate_table_free(&m->irq);
	rate_table_free(&m->softirq);
	turbo_metrics_destroy(m->turbo);
	metrics_proc_free(m->workload);
	memset(m, 0, sizeof(*m));
}
