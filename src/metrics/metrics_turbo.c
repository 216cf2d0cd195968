// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * turbostat's arithmetic over two turbo readings: pure, no I/O, no clock.
 * Each formula is turbostat.c's (delta_thread, delta_core, delta_package,
 * compute_average); doc/turbostat.md lists them. Also the accessors the TUI
 * uses. The JSON section and the table are encode/encode_turbo.c's.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "irqtab.h"
#include "metrics_turbo.h"
#include "rowfind.h"

static const char *const col_names[TC__COUNT] = {
	[TC_AVG_MHZ] = "Avg_MHz", [TC_BUSY] = "Busy%",	    [TC_BZY_MHZ] = "Bzy_MHz",
	[TC_TSC_MHZ] = "TSC_MHz", [TC_IRQ] = "IRQ",	    [TC_SMI] = "SMI",
	[TC_C1] = "CPU%c1",	  [TC_C3] = "CPU%c3",	    [TC_C6] = "CPU%c6",
	[TC_C7] = "CPU%c7",	  [TC_CORETMP] = "CoreTmp", [TC_PKGTMP] = "PkgTmp",
	[TC_PC2] = "Pkg%pc2",	  [TC_PC3] = "Pkg%pc3",	    [TC_PC6] = "Pkg%pc6",
	[TC_PC7] = "Pkg%pc7",	  [TC_PKGWATT] = "PkgWatt", [TC_CORWATT] = "CorWatt",
	[TC_RAMWATT] = "RAMWatt", [TC_PKG_PCT] = "PKG_%",   [TC_RAM_PCT] = "RAM_%",
};

#define BIT(c) (1u << (c))

const char *turbo_col_name(enum turbo_col c)
{
	return c < TC__COUNT ? col_names[c] : "?";
}

/* The row carries nothing this round; the reason is what + detail. */
static void row_invalid(struct turbo_row *row, const char *what, const char *detail)
{
	if (!row->valid)
		return;
	row->valid = false;
	row->have = 0;
	snprintf(row->reason, sizeof(row->reason), "%s%s", what, detail);
}

/* Counter deltas that went backwards are refused, not wrapped (a 64-bit
 * counter does not wrap in the life of a host: it was reset). */
static bool delta64(uint64_t cur, uint64_t prev, double *ret)
{
	if (cur < prev)
		return false;
	*ret = (double)(cur - prev);
	return true;
}

/* turbostat DELTA_WRAP32: RAPL energy and perf status are 32-bit counters. */
static double delta_wrap32(uint64_t cur, uint64_t prev)
{
	return (double)((uint32_t)cur - (uint32_t)prev);
}

static int find_cpu_raw(const struct turbo_raw *t, int cpu, size_t *hint)
{
	size_t i = *hint;
	const struct turbo_cpu_raw *c;

	if (i < t->ncpu && t->cpus[i].cpu == cpu) {
		*hint = i + 1;
		return (int)i;
	}
	/* readings are sorted by CPU: binary search when the hint misses */
	c = rowfind_i32(t->cpus, t->ncpu, sizeof(*t->cpus), offsetof(struct turbo_cpu_raw, cpu),
			cpu);
	if (!c)
		return -1;
	*hint = (size_t)(c - t->cpus) + 1;
	return (int)(c - t->cpus);
}

static const struct turbo_pkg_raw *find_pkg_raw(const struct turbo_raw *t, int pkg)
{
	for (size_t i = 0; i < t->npkg; i++)
		if (t->pkgs[i].pkg_id == pkg)
			return &t->pkgs[i];
	return NULL;
}

/* IRQ column: every per-CPU /proc/interrupts line summed for each CPU, as
 * turbostat's snapshot_proc_interrupts; one pass over the table (rows x CPUs
 * additions), lines new in cur or reset skipped. Sums land by cur column. */
static int irq_sums(const struct irq_table *prev, const struct irq_table *cur,
		    struct turbo_metrics *m)
{
	size_t hint = 0;
	int *pcol;

	if (grow((void **)&m->irq_sum, &m->irq_cap, cur->ncpu + 1, sizeof(*m->irq_sum)) < 0 ||
	    grow((void **)&m->irq_pcol, &m->pcol_cap, cur->ncpu + 1, sizeof(*m->irq_pcol)) < 0)
		return -ENOMEM;
	memset(m->irq_sum, 0, (cur->ncpu + 1) * sizeof(*m->irq_sum));
	/* the previous column of each current CPU, or -1 (came online) */
	pcol = m->irq_pcol;
	for (size_t k = 0; k < cur->ncpu; k++)
		pcol[k] = prev->ncpu == cur->ncpu && prev->cpu_ids[k] == cur->cpu_ids[k]
			      ? (int)k
			      : irq_table_cpu_col(prev, cur->cpu_ids[k]);
	for (size_t i = 0; i < cur->n; i++) {
		const struct irq_row *c = &cur->rows[i], *p;
		const uint64_t *a, *b;

		if (!c->percpu_counts)
			continue;
		p = irq_table_find(prev, c->label, &hint);
		if (!p || !p->percpu_counts)
			continue;
		a = irq_row_counts(cur, c);
		b = irq_row_counts(prev, p);
		for (size_t k = 0; k < cur->ncpu; k++)
			if (pcol[k] >= 0 && a[k] >= b[pcol[k]])
				m->irq_sum[k] += a[k] - b[pcol[k]];
	}
	return 0;
}

/* The IRQ count of cpu from irq_sums(), false when the CPU has no column. */
static bool irq_count(const struct irq_table *prev, const struct irq_table *cur, int cpu,
		      const struct turbo_metrics *m, double *ret)
{
	int cc = irq_table_cpu_col(cur, cpu);

	if (!m->irq_ok || cc < 0 || irq_table_cpu_col(prev, cpu) < 0)
		return false;
	*ret = (double)m->irq_sum[cc];
	return true;
}

/* Energy delta in joules for one counter kind; false when it cannot be had. */
static bool energy_j(const struct turbo_raw *c, int e, uint64_t cur, uint64_t prev, double *ret)
{
	const struct turbo_info *in = &c->info;

	switch (c->energy_kind) {
	case TE_MSR32:
		*ret =
		    delta_wrap32(cur, prev) * (e == 2 ? in->dram_energy_unit_j : in->energy_unit_j);
		return true;
	case TE_PERF:
		if (cur < prev)
			return false;
		*ret = (double)(cur - prev) * in->perf_energy_scale_j[e];
		return true;
	case TE_POWERCAP:
		/* energy_uj wraps at max_energy_range_uj */
		if (cur >= prev)
			*ret = (double)(cur - prev) / 1e6;
		else if (in->powercap_range_uj[e] >= prev)
			*ret = (double)(in->powercap_range_uj[e] - prev + cur) / 1e6;
		else
			return false;
		return true;
	}
	return false;
}

struct sums {
	double tsc, aperf, mperf, c1, irq, smi;
	unsigned nthreads, nfreq, nc1, nirq, nsmi;
	double c3, c6, c7;
	unsigned ncores[3];
	double pc[4], pkg_w, cor_w, ram_w, pkg_pct, ram_pct;
	unsigned npkgs[4], n_pkg_w, n_cor_w, n_ram_w, n_pkg_pct, n_ram_pct;
	double core_tmp, pkg_tmp;
	bool have_core_tmp, have_pkg_tmp;
	uint32_t suspect;
	double idle_us[TURBO_IDLE_MAX];
	unsigned nidle_cpus;
};

static void set(struct turbo_row *row, enum turbo_col c, double v)
{
	row->v[c] = v;
	row->have |= BIT(c);
}

/* Avg_MHz, Busy% and Bzy_MHz from APERF's and MPERF's advance over itv s
 * (tsc the TSC's), as turbostat computes them */
static void set_freq(struct turbo_row *row, const struct turbo_info *in, double aperf, double mperf,
		     double tsc, double itv)
{
	set(row, TC_AVG_MHZ, aperf / 1e6 / itv);
	set(row, TC_BUSY, 100.0 * mperf / tsc);
	if (in->base_mhz > 0)
		set(row, TC_BZY_MHZ, in->base_mhz * aperf / mperf);
	else
		set(row, TC_BZY_MHZ, tsc / 1e6 * aperf / mperf / itv);
}

/* c set to v when the CPUs or packages summed had it */
static void set_if(struct turbo_row *row, enum turbo_col c, bool have, double v)
{
	if (have)
		set(row, c, v);
}

/* A RAPL domain's watts into a package's row and the packages' sum */
static void put_watts(struct turbo_row *row, enum turbo_col c, double w, double *sum, unsigned *n,
		      bool suspect)
{
	set(row, c, w);
	*sum += w;
	(*n)++;
	if (suspect)
		row->suspect |= BIT(c);
}

/* Core C3/C6/C7 residencies of c's core (counted on its first thread) into
 * cst; the row's columns and the sums on the core's first thread. */
static void row_core_cstates(const struct turbo_cpu_raw *c, const struct turbo_cpu_raw *core_p,
			     const struct turbo_cpu_raw *core_c, double tsc, bool have_tsc,
			     struct turbo_row *row, struct sums *s, double cst[3])
{
	double d;

	if (core_c && core_p && !core_c->err && !core_p->err) {
		static const uint32_t bits[3] = { TR_C3, TR_C6, TR_C7 };
		static const enum turbo_col cols[3] = { TC_C3, TC_C6, TC_C7 };
		const uint64_t cc[3] = { core_c->c3, core_c->c6, core_c->c7 };
		const uint64_t pc[3] = { core_p->c3, core_p->c6, core_p->c7 };

		for (int k = 0; k < 3; k++) {
			if (!(core_c->have & core_p->have & bits[k]) || !delta64(cc[k], pc[k], &d))
				continue;
			cst[k] = d;
			if (c->first_in_core && have_tsc) {
				set(row, cols[k], 100.0 * d / tsc);
				s->ncores[k]++;
				if (k == 0)
					s->c3 += d;
				else if (k == 1)
					s->c6 += d;
				else
					s->c7 += d;
			}
		}
	}
}

/* The counters beside the clocks: IRQs, SMIs, core temperature and energy,
 * idle states' residency. */
static void row_counters(const struct snapshot *ps, const struct snapshot *cs,
			 const struct turbo_cpu_raw *p, const struct turbo_cpu_raw *c, double itv,
			 struct turbo_metrics *m, struct turbo_row *row, struct sums *s)
{
	const struct turbo_info *in = &m->info;
	double d;

	if (in->src[TC_IRQ].via == TV_PROC && !ps->status[SRC_INTERRUPTS].err &&
	    !cs->status[SRC_INTERRUPTS].err && irq_count(&ps->irqs, &cs->irqs, c->cpu, m, &d)) {
		set(row, TC_IRQ, d);
		s->irq += d;
		s->nirq++;
	}
	if (c->have & p->have & TR_SMI) {
		/* MSR_SMI_COUNT is 32 bits wide */
		d = (double)((uint32_t)c->smi - (uint32_t)p->smi);
		set(row, TC_SMI, d);
		s->smi += d;
		s->nsmi++;
	}
	if (c->first_in_core && (c->have & TR_CORETMP)) {
		set(row, TC_CORETMP, c->core_temp_mc / 1000);
		if (!s->have_core_tmp || row->v[TC_CORETMP] > s->core_tmp)
			s->core_tmp = row->v[TC_CORETMP];
		s->have_core_tmp = true;
	}
	if (c->first_in_core && (c->have & p->have & TR_CORE_ENERGY)) {
		d = delta_wrap32(c->core_energy, p->core_energy) * in->energy_unit_j;
		set(row, TC_CORWATT, d / itv);
		if (itv >= m->joule_range_s)
			row->suspect |= BIT(TC_CORWATT);
		s->cor_w += d / itv;
		s->n_cor_w++;
	}
	if (c->have & p->have & TR_IDLE) {
		row->nidle = in->nidle;
		for (unsigned k = 0; k < in->nidle; k++) {
			if (!delta64(c->idle_us[k], p->idle_us[k], &d))
				d = 0;
			/* turbostat --show sysfs: usec / interval / 10000 */
			row->idle_pct[k] = d / itv / 10000.0;
			s->idle_us[k] += d;
		}
		s->nidle_cpus++;
	}
}

/* One CPU's row. core_p/core_c: raw of the first thread of its core, prev/cur. */
static void compute_row(const struct snapshot *ps, const struct snapshot *cs,
			const struct turbo_cpu_raw *p, const struct turbo_cpu_raw *c,
			const struct turbo_cpu_raw *core_p, const struct turbo_cpu_raw *core_c,
			double itv, struct turbo_metrics *m, struct turbo_row *row, struct sums *s)
{
	const struct turbo_info *in = &m->info;
	double tsc = 0, aperf = 0, mperf = 0;
	double cst[3] = { 0, 0, 0 };
	bool have_tsc, have_freq;
	bool core_cstates = (m->cols & (BIT(TC_C3) | BIT(TC_C6) | BIT(TC_C7))) != 0;
	char why[64];

	if (c->err) {
		row_invalid(row, "", c->reason);
		return;
	}
	if (p->err) {
		row_invalid(row, "previous reading failed: ", p->reason);
		return;
	}
	have_tsc = (c->have & p->have & TR_TSC) != 0;
	if (have_tsc) {
		if (!delta64(c->tsc, p->tsc, &tsc)) {
			row_invalid(row, "TSC went backwards", " (counter reset?)");
			return;
		}
		/* turbostat exits on this ("Insanely slow TSC rate"); we drop the row */
		if (tsc < 1000.0 * 1000.0) {
			snprintf(why, sizeof(why), "TSC advanced %.0f cycles (< 1M)", tsc);
			row_invalid(row, why, ": TSC stops in idle?");
			return;
		}
		set(row, TC_TSC_MHZ, tsc / 1e6 / itv);
		s->tsc += tsc;
		s->nthreads++;
	}
	have_freq = have_tsc && (c->have & p->have & TR_APERF) && (c->have & p->have & TR_MPERF);
	if (have_freq) {
		/* turbostat requires both to advance: APERF or MPERF went backwards */
		if (c->aperf > p->aperf && c->mperf > p->mperf) {
			aperf = (double)(c->aperf - p->aperf);
			mperf = (double)(c->mperf - p->mperf);
			set_freq(row, in, aperf, mperf, tsc, itv);
			s->aperf += aperf;
			s->mperf += mperf;
			s->nfreq++;
		} else {
			have_freq = false;
			snprintf(row->reason, sizeof(row->reason),
				 "APERF or MPERF did not advance: no frequency this round");
		}
	} else if ((c->have & TR_CUR_KHZ) && in->src[TC_BZY_MHZ].via == TV_SYSFS) {
		set(row, TC_BZY_MHZ, c->cur_khz / 1000.0);
	}
	/* core residency counters live on the first thread of the core */
	row_core_cstates(c, core_p, core_c, tsc, have_tsc, row, s, cst);
	/* CPU%c1: what is neither C0 nor a deeper core state; counter reads are
	 * not atomic, so an overshoot shows 0 rather than a negative number.
	 * Without the core's residencies (its first thread failed, or changed
	 * with hotplug) C1 would swallow C3..C7: leave it out. */
	if (have_freq && core_cstates &&
	    !(core_c && core_p && !core_c->err && !core_p->err &&
	      (core_c->have & core_p->have & (TR_C3 | TR_C6 | TR_C7)))) {
		have_freq = false;
		snprintf(row->reason, sizeof(row->reason),
			 "core residency of core %d not readable in both samples: no CPU%%c1-7",
			 c->core_id);
	}
	if (have_freq) {
		double c1 = tsc - mperf - cst[0] - cst[1] - cst[2];

		if (c1 < 0)
			c1 = 0;
		set(row, TC_C1, 100.0 * c1 / tsc);
		s->c1 += c1;
		s->nc1++;
	}
	row_counters(ps, cs, p, c, itv, m, row, s);
}

static void compute_pkg(const struct turbo_raw *prt, const struct turbo_raw *crt,
			const struct turbo_cpu_raw *c, double itv, struct turbo_metrics *m,
			struct turbo_row *row, struct sums *s)
{
	const struct turbo_pkg_raw *kc = find_pkg_raw(crt, c->pkg_id);
	const struct turbo_pkg_raw *kp = find_pkg_raw(prt, c->pkg_id);
	const struct turbo_info *in = &m->info;
	double tsc = row->v[TC_TSC_MHZ] * 1e6 * itv, d;
	bool suspect = itv >= m->joule_range_s;

	if (!kc || !kp)
		return;
	if (kc->err || kp->err) {
		snprintf(row->reason, sizeof(row->reason), "%s", kc->err ? kc->reason : kp->reason);
		return;
	}
	{
		static const uint32_t bits[4] = { TP_PC2, TP_PC3, TP_PC6, TP_PC7 };
		static const enum turbo_col cols[4] = { TC_PC2, TC_PC3, TC_PC6, TC_PC7 };
		const uint64_t cc[4] = { kc->pc2, kc->pc3, kc->pc6, kc->pc7 };
		const uint64_t pc[4] = { kp->pc2, kp->pc3, kp->pc6, kp->pc7 };

		for (int k = 0; k < 4 && (row->have & BIT(TC_TSC_MHZ)); k++) {
			if (!(kc->have & kp->have & bits[k]) || !delta64(cc[k], pc[k], &d))
				continue;
			set(row, cols[k], 100.0 * d / tsc);
			s->pc[k] += d;
			s->npkgs[k]++;
		}
	}
	if (kc->have & TP_PKGTMP) {
		set(row, TC_PKGTMP, kc->pkg_temp_mc / 1000);
		if (!s->have_pkg_tmp || row->v[TC_PKGTMP] > s->pkg_tmp)
			s->pkg_tmp = row->v[TC_PKGTMP];
		s->have_pkg_tmp = true;
	}
	if ((kc->have & kp->have & TP_E_PKG) && energy_j(crt, 0, kc->e_pkg, kp->e_pkg, &d))
		put_watts(row, TC_PKGWATT, d / itv, &s->pkg_w, &s->n_pkg_w, suspect);
	if ((kc->have & kp->have & TP_E_CORES) && energy_j(crt, 1, kc->e_cores, kp->e_cores, &d))
		put_watts(row, TC_CORWATT, d / itv, &s->cor_w, &s->n_cor_w, suspect);
	if ((kc->have & kp->have & TP_E_DRAM) && energy_j(crt, 2, kc->e_dram, kp->e_dram, &d))
		put_watts(row, TC_RAMWATT, d / itv, &s->ram_w, &s->n_ram_w, suspect);
	/* PKG_% / RAM_%: time throttled by RAPL, in RAPL time units */
	if (kc->have & kp->have & TP_PKG_PERF) {
		d = 100.0 * delta_wrap32(kc->pkg_perf, kp->pkg_perf) * in->time_unit_s / itv;
		set(row, TC_PKG_PCT, d);
		s->pkg_pct += d;
		s->n_pkg_pct++;
	}
	if (kc->have & kp->have & TP_DRAM_PERF) {
		d = 100.0 * delta_wrap32(kc->dram_perf, kp->dram_perf) * in->time_unit_s / itv;
		set(row, TC_RAM_PCT, d);
		s->ram_pct += d;
		s->n_ram_pct++;
	}
	s->suspect |= row->suspect;
}

/* turbostat compute_average: threads averaged over CPUs, core counters over
 * cores, package residency over packages; energy and IRQs summed; temperatures
 * the maximum. Percentages use the average TSC. */
static void compute_summary(const struct sums *s, double itv, const struct turbo_info *in,
			    struct turbo_row *row)
{
	double tsc = s->nthreads ? s->tsc / s->nthreads : 0;

	memset(row, 0, sizeof(*row));
	row->cpu = row->core = row->pkg = -1;
	row->valid = true;
	if (s->nthreads)
		set(row, TC_TSC_MHZ, tsc / 1e6 / itv);
	if (s->nfreq) {
		double aperf = s->aperf / s->nfreq, mperf = s->mperf / s->nfreq;

		set_freq(row, in, aperf, mperf, tsc, itv);
	}
	if (s->nc1)
		set(row, TC_C1, 100.0 * (s->c1 / s->nc1) / tsc);
	if (s->ncores[0] && tsc > 0)
		set(row, TC_C3, 100.0 * (s->c3 / s->ncores[0]) / tsc);
	if (s->ncores[1] && tsc > 0)
		set(row, TC_C6, 100.0 * (s->c6 / s->ncores[1]) / tsc);
	if (s->ncores[2] && tsc > 0)
		set(row, TC_C7, 100.0 * (s->c7 / s->ncores[2]) / tsc);
	set_if(row, TC_IRQ, s->nirq, s->irq);
	set_if(row, TC_SMI, s->nsmi, s->smi);
	set_if(row, TC_CORETMP, s->have_core_tmp, s->core_tmp);
	set_if(row, TC_PKGTMP, s->have_pkg_tmp, s->pkg_tmp);
	for (int k = 0; k < 4; k++)
		if (s->npkgs[k] && tsc > 0)
			set(row, (enum turbo_col)(TC_PC2 + k),
			    100.0 * (s->pc[k] / s->npkgs[k]) / tsc);
	set_if(row, TC_PKGWATT, s->n_pkg_w, s->pkg_w);
	set_if(row, TC_CORWATT, s->n_cor_w, s->cor_w);
	set_if(row, TC_RAMWATT, s->n_ram_w, s->ram_w);
	set_if(row, TC_PKG_PCT, s->n_pkg_pct, s->pkg_pct);
	set_if(row, TC_RAM_PCT, s->n_ram_pct, s->ram_pct);
	if (s->nidle_cpus) {
		row->nidle = in->nidle;
		for (unsigned k = 0; k < in->nidle; k++)
			row->idle_pct[k] = s->idle_us[k] / s->nidle_cpus / itv / 10000.0;
	}
	row->suspect = s->suspect;
}

/* turbostat's row order: package, then core, then thread (for_all_cpus). */
static int cmp_row(const void *a, const void *b)
{
	const struct turbo_row *x = a, *y = b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* How long a 32-bit energy counter lasts, and the columns with a source. */
static void set_ranges_and_cols(const struct turbo_raw *crt, struct turbo_metrics *m)
{
	/* turbostat: seconds until the 32-bit energy counter wraps at TDP */
	m->joule_range_s = INFINITY;
	if (crt->energy_kind == TE_MSR32 && m->info.tdp_w > 0 && m->info.energy_unit_j > 0)
		m->joule_range_s = 4294967295.0 * m->info.energy_unit_j / m->info.tdp_w;
	else if (crt->energy_kind == TE_POWERCAP && m->info.tdp_w > 0 &&
		 m->info.powercap_range_uj[0])
		m->joule_range_s = (double)m->info.powercap_range_uj[0] / 1e6 / m->info.tdp_w;
	for (int c = 0; c < TC__COUNT; c++)
		if (m->info.src[c].via != TV_NONE)
			m->cols |= BIT(c);
}

/* CPUs that went offline: a row that says so, never silently dropped.
 * Both readings are sorted by CPU, so the hint walks them in step. */
static void add_offline_rows(const struct turbo_raw *prt, const struct turbo_raw *crt,
			     struct turbo_metrics *m)
{
	size_t hint = 0;

	for (size_t i = 0; i < prt->ncpu; i++) {
		struct turbo_row *row;
		size_t h = hint;

		if (find_cpu_raw(crt, prt->cpus[i].cpu, &h) >= 0) {
			hint = h;
			continue;
		}
		row = &m->rows[m->nrows++];
		memset(row, 0, sizeof(*row));
		row->cpu = prt->cpus[i].cpu;
		row->core = prt->cpus[i].core_id;
		row->pkg = prt->cpus[i].pkg_id;
		row->valid = true;
		row_invalid(row, "went offline during the interval", "");
		m->invalid_rows++;
	}
}

int turbo_compute(const struct snapshot *ps, const struct snapshot *cs, uint64_t itv_cs,
		  struct turbo_metrics *m)
{
	const struct turbo_raw *prt = ps->turbo, *crt = cs->turbo;
	struct sums s;
	size_t hint = 0;
	double itv;

	m->available = false;
	m->nrows = 0;
	m->cols = 0;
	m->invalid_rows = 0;
	m->reason[0] = '\0';
	if (!prt || !crt) {
		snprintf(m->reason, sizeof(m->reason), "no turbostat reading in %s",
			 !prt ? "the previous sample" : "this sample");
		return 0;
	}
	/* the readings' own timestamps when live (as turbostat's gettimeofday),
	 * else the interval the caller measured (/proc/uptime of recorded trees) */
	if (prt->has_time && crt->has_time && crt->mono_ns > prt->mono_ns)
		itv = (double)(crt->mono_ns - prt->mono_ns) / 1e9;
	else
		itv = (double)itv_cs / 100.0;
	if (!(itv > 0)) {
		snprintf(m->reason, sizeof(m->reason), "no interval");
		return 0;
	}
	m->info = crt->info;
	m->interval_s = itv;
	set_ranges_and_cols(crt, m);
	if (grow((void **)&m->rows, &m->rows_cap, crt->ncpu + prt->ncpu, sizeof(*m->rows)) < 0 ||
	    grow((void **)&m->pidx, &m->pidx_cap, crt->ncpu + 1, sizeof(*m->pidx)) < 0)
		return -ENOMEM;
	memset(&s, 0, sizeof(s));
	m->irq_ok = false;
	if (m->info.src[TC_IRQ].via == TV_PROC && !ps->status[SRC_INTERRUPTS].err &&
	    !cs->status[SRC_INTERRUPTS].err) {
		if (irq_sums(&ps->irqs, &cs->irqs, m) < 0)
			return -ENOMEM;
		m->irq_ok = true;
	}
	for (size_t i = 0; i < crt->ncpu; i++) {
		const struct turbo_cpu_raw *c = &crt->cpus[i], *core_c = NULL, *core_p = NULL;
		struct turbo_row *row = &m->rows[m->nrows++];
		int pi = find_cpu_raw(prt, c->cpu, &hint);

		m->pidx[i] = -1;
		memset(row, 0, sizeof(*row));
		row->cpu = c->cpu;
		row->core = c->core_id;
		row->pkg = c->pkg_id;
		row->first_in_core = c->first_in_core;
		row->first_in_pkg = c->first_in_pkg;
		row->valid = true;
		if (pi < 0) {
			row_invalid(row, "came online during the interval", "");
			m->invalid_rows++;
			continue;
		}
		m->pidx[i] = pi;
		/* the core's counters: read by its first thread in both readings */
		if (c->core_idx >= 0 && (size_t)c->core_idx <= i &&
		    crt->cpus[c->core_idx].first_in_core) {
			int cp = m->pidx[c->core_idx];

			core_c = &crt->cpus[c->core_idx];
			if (cp >= 0 && prt->cpus[cp].first_in_core &&
			    prt->cpus[cp].cpu == core_c->cpu)
				core_p = &prt->cpus[cp];
		}
		compute_row(ps, cs, &prt->cpus[pi], c, core_p, core_c, itv, m, row, &s);
		if (row->valid && c->first_in_pkg && prt->cpus[pi].first_in_pkg)
			compute_pkg(prt, crt, c, itv, m, row, &s);
		if (!row->valid)
			m->invalid_rows++;
	}
	add_offline_rows(prt, crt, m);
	compute_summary(&s, itv, &m->info, &m->summary);
	if (m->nrows > 1)
		qsort(m->rows, m->nrows, sizeof(*m->rows), cmp_row);
	m->available = true;
	return 0;
}

void turbo_metrics_free(struct turbo_metrics *m)
{
	if (!m)
		return;
	free(m->rows);
	free(m->irq_sum);
	free(m->irq_pcol);
	free(m->pidx);
	memset(m, 0, sizeof(*m));
}

int turbo_metrics_update(struct turbo_metrics **m, const struct snapshot *prev,
			 const struct snapshot *cur, uint64_t itv_cs)
{
	if (!*m) {
		*m = calloc(1, sizeof(**m));
		if (!*m)
			return -ENOMEM;
	}
	return turbo_compute(prev, cur, itv_cs, *m);
}

void turbo_metrics_destroy(struct turbo_metrics *m)
{
	turbo_metrics_free(m);
	free(m);
}

/* ---- accessors for the TUI ---- */

int turbo_cpu_view(const struct turbo_metrics *m, int cpu, struct turbo_cpu_view *ret)
{
	struct turbo_cpu_view v = { .bzy_mhz = NAN, .busy_pct = NAN, .deepest_pct = NAN };
	const struct turbo_row *row = NULL, *core = NULL;

	if (!m || !m->available)
		return -ENODATA;
	for (size_t i = 0; i < m->nrows && !row; i++)
		if (m->rows[i].cpu == cpu)
			row = &m->rows[i];
	if (!row)
		return -ENOENT;
	v.valid = row->valid;
	if (row->have & BIT(TC_BZY_MHZ))
		v.bzy_mhz = row->v[TC_BZY_MHZ];
	if (row->have & BIT(TC_BUSY))
		v.busy_pct = row->v[TC_BUSY];
	/* core C-states are printed on the core's first thread: share them */
	for (size_t i = 0; i < m->nrows && !core; i++)
		if (m->rows[i].first_in_core && m->rows[i].pkg == row->pkg &&
		    m->rows[i].core == row->core)
			core = &m->rows[i];
	if (core) {
		for (int c = TC_C7; c >= TC_C3; c--) {
			if (!(core->have & BIT(c)))
				continue;
			v.deepest_name = col_names[c];
			v.deepest_pct = core->v[c];
			break;
		}
	}
	if (!v.deepest_name && row->nidle) {
		v.deepest_name = m->info.idle_names[row->nidle - 1];
		v.deepest_pct = row->idle_pct[row->nidle - 1];
	}
	*ret = v;
	return 0;
}

void turbo_header_view(const struct turbo_metrics *m, struct turbo_header_view *ret)
{
	struct turbo_header_view v = {
		.pkg_watt = NAN, .ram_watt = NAN, .pkg_tmp_c = NAN, .core_tmp_c = NAN
	};

	if (m && m->available) {
		const struct turbo_row *s = &m->summary;

		if (s->have & BIT(TC_PKGWATT))
			v.pkg_watt = s->v[TC_PKGWATT];
		if (s->have & BIT(TC_RAMWATT))
			v.ram_watt = s->v[TC_RAMWATT];
		if (s->have & BIT(TC_PKGTMP))
			v.pkg_tmp_c = s->v[TC_PKGTMP];
		if (s->have & BIT(TC_CORETMP))
			v.core_tmp_c = s->v[TC_CORETMP];
		v.suspect = s->suspect != 0;
		for (size_t i = 0; i < m->nrows; i++)
			v.npkg += m->rows[i].first_in_pkg;
	}
	*ret = v;
}
