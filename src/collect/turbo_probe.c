// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe of turbostat's counters, run at the first sample: each column
 * gets its source, tried in the order MSR (what turbostat reads), perf
 * msr/power PMU, sysfs (cpufreq, cpuidle, powercap, hwmon), and each family
 * and column says why when it has none. Opens nothing that stays open: the
 * fds are turbo.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msr.h"
#include "procfile.h"
#include "scan.h"
#include "src_status.h"
#include "turbo.h"
#include "turbo_int.h"

static void set_col(struct turbo_info *in, enum turbo_col c, enum turbo_via via, const char *detail)
{
	in->src[c].via = via;
	snprintf(in->src[c].detail, sizeof(in->src[c].detail), "%.95s", detail);
	in->src[c].reason[0] = '\0';
}

/* Appends "; why" to an unavailable column's reason (each source tried says why not). */
static void col_why(struct turbo_info *in, enum turbo_col c, const char *why)
{
	struct turbo_source *s = &in->src[c];
	size_t len = strlen(s->reason);

	if (s->via != TV_NONE)
		return;
	snprintf(s->reason + len, sizeof(s->reason) - len, "%s%s", len ? "; " : "", why);
}

/* ---- the probe: one source per column ---- */

static bool intel_server_model(unsigned model)
{
	/* turbostat's platforms with the fixed 15.3 uJ DRAM energy unit: HSX, BDX,
	 * SKX, ICX, SPR, EMR, GNR, KNL, KNM (the *_features tables with
	 * has_fixed_rapl_unit). They also have no PP0 (core) energy counter. */
	static const unsigned m[] = { 0x3f, 0x4f, 0x56, 0x55, 0x6a, 0x6c,
				      0x8f, 0xcf, 0xad, 0xae, 0x57, 0x85 };

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (m[i] == model)
			return true;
	return false;
}

static bool is_intel(const struct turbo_info *in)
{
	return strcmp(in->vendor, "GenuineIntel") == 0 && in->family == 6;
}

bool turbo_is_amd_rapl(const struct turbo_info *in)
{
	return (strcmp(in->vendor, "AuthenticAMD") == 0 ||
		strcmp(in->vendor, "HygonGenuine") == 0) &&
	       in->family >= 0x17;
}

/* Tries one MSR on the probe CPU: true if readable; else the column learns why. */
static bool probe_msr(struct turbo_info *in, const struct msr_dev *d, uint32_t addr,
		      const char *name, enum turbo_col col, uint64_t *ret)
{
	char why[IOT_REASON_MAX];
	uint64_t v;
	int r;

	r = msr_read(d, addr, &v);
	if (r < 0) {
		snprintf(why, sizeof(why), "MSR 0x%X %s: %s", addr, name, msr_strerror(r));
		if (col < TC__COUNT)
			col_why(in, col, why);
		return false;
	}
	if (ret)
		*ret = v;
	if (col < TC__COUNT) {
		snprintf(why, sizeof(why), "MSR 0x%X %s", addr, name);
		set_col(in, col, TV_MSR, why);
	}
	return true;
}

/* TSC, APERF and MPERF: the clock columns, all three or none. */
static void probe_msr_clocks(struct turbo_info *in, struct plan *p, const struct msr_dev *d)
{
	p->msr_tsc = probe_msr(in, d, MSR_IA32_TSC, "TSC", TC_TSC_MHZ, NULL);
	p->msr_aperf = probe_msr(in, d, MSR_IA32_APERF, "APERF", TC__COUNT, NULL);
	p->msr_mperf = probe_msr(in, d, MSR_IA32_MPERF, "MPERF", TC__COUNT, NULL);
	if (p->msr_tsc && p->msr_aperf && p->msr_mperf) {
		set_col(in, TC_AVG_MHZ, TV_MSR, "MSR 0xE8 APERF / interval");
		set_col(in, TC_BUSY, TV_MSR, "MSR 0xE7 MPERF / MSR 0x10 TSC");
		set_col(in, TC_BZY_MHZ, TV_MSR, "MSR 0xE8 APERF / MSR 0xE7 MPERF");
		set_col(in, TC_C1, TV_MSR, "TSC - MPERF - core C3/C6/C7 (derived as turbostat)");
	} else {
		p->msr_tsc = p->msr_aperf = p->msr_mperf = false;
		in->src[TC_TSC_MHZ].via = TV_NONE;
		for (int c = TC_AVG_MHZ; c <= TC_TSC_MHZ; c++)
			col_why(in, (enum turbo_col)c, "MSR TSC/APERF/MPERF not all readable");
		col_why(in, TC_C1, "MSR TSC/APERF/MPERF not all readable");
	}
}

/* Intel: the bus clock, SMIs, core and package C-states, the DTS temperatures. */
static void probe_intel_msrs(struct turbo_info *in, struct plan *p, const struct msr_dev *d)
{
	uint64_t v = 0;

	in->intel_server = intel_server_model(in->model);
	/* Nehalem/Westmere run a 133.33 MHz bus clock, later cores 100 MHz */
	if (probe_msr(in, d, MSR_PLATFORM_INFO, "PLATFORM_INFO", TC__COUNT, &v)) {
		static const unsigned nhm[] = { 0x1a, 0x1e, 0x1f, 0x25, 0x2c, 0x2e, 0x2f };
		double bclk = 100.0;

		for (size_t i = 0; i < sizeof(nhm) / sizeof(nhm[0]); i++)
			if (nhm[i] == in->model)
				bclk = 400.0 / 3;
		in->base_mhz = (double)((v >> 8) & 0xff) * bclk;
	}
	p->msr_smi = probe_msr(in, d, MSR_SMI_COUNT, "SMI_COUNT", TC_SMI, NULL);
	p->msr_c3 = probe_msr(in, d, MSR_CORE_C3_RESIDENCY, "CORE_C3_RESIDENCY", TC_C3, NULL);
	p->msr_c6 = probe_msr(in, d, MSR_CORE_C6_RESIDENCY, "CORE_C6_RESIDENCY", TC_C6, NULL);
	p->msr_c7 = probe_msr(in, d, MSR_CORE_C7_RESIDENCY, "CORE_C7_RESIDENCY", TC_C7, NULL);
	p->msr_pc2 = probe_msr(in, d, MSR_PKG_C2_RESIDENCY, "PKG_C2_RESIDENCY", TC_PC2, NULL);
	p->msr_pc3 = probe_msr(in, d, MSR_PKG_C3_RESIDENCY, "PKG_C3_RESIDENCY", TC_PC3, NULL);
	p->msr_pc6 = probe_msr(in, d, MSR_PKG_C6_RESIDENCY, "PKG_C6_RESIDENCY", TC_PC6, NULL);
	if (!in->intel_server)
		p->msr_pc7 =
		    probe_msr(in, d, MSR_PKG_C7_RESIDENCY, "PKG_C7_RESIDENCY", TC_PC7, NULL);
	else
		col_why(in, TC_PC7, "no package C7 on this server model (turbostat)");
	in->tj_max_c = 100; /* turbostat's default when the target is unreadable */
	if (probe_msr(in, d, MSR_IA32_TEMPERATURE_TARGET, "TEMPERATURE_TARGET", TC__COUNT, &v) &&
	    ((v >> 16) & 0xff))
		in->tj_max_c = (int)((v >> 16) & 0xff);
	p->msr_coretmp =
	    probe_msr(in, d, MSR_IA32_THERM_STATUS, "IA32_THERM_STATUS", TC_CORETMP, NULL);
	p->msr_pkgtmp = probe_msr(in, d, MSR_IA32_PACKAGE_THERM_STATUS, "PACKAGE_THERM_STATUS",
				  TC_PKGTMP, NULL);
}

/* Intel RAPL: the units, the TDP, the energy and throttling counters. */
static void probe_intel_rapl(struct turbo_info *in, struct plan *p, const struct msr_dev *d)
{
	uint64_t v = 0;

	if (probe_msr(in, d, MSR_RAPL_POWER_UNIT, "RAPL_POWER_UNIT", TC__COUNT, &v)) {
		double power_unit = 1.0 / (double)(1u << (v & 0xf));

		/* Silvermont counts energy in uJ units, everyone else in 1/2^ESU J */
		if (in->model == 0x37 || in->model == 0x4d)
			in->energy_unit_j = (double)(1u << ((v >> 8) & 0x1f)) / 1e6;
		else
			in->energy_unit_j = 1.0 / (double)(1ull << ((v >> 8) & 0x1f));
		in->dram_energy_unit_j = in->intel_server ? 15.3 / 1e6 : in->energy_unit_j;
		/* turbostat: a time unit field of 0 means the default 0xA */
		in->time_unit_s =
		    1.0 / (double)(1u << (((v >> 16) & 0xf) ? ((v >> 16) & 0xf) : 0xa));
		in->tdp_w = 135.0;
		if (probe_msr(in, d, MSR_PKG_POWER_INFO, "PKG_POWER_INFO", TC__COUNT, &v) &&
		    (v & 0x7fff))
			in->tdp_w = (double)(v & 0x7fff) * power_unit;
		p->msr_e_pkg =
		    probe_msr(in, d, MSR_PKG_ENERGY_STATUS, "PKG_ENERGY_STATUS", TC_PKGWATT, NULL);
		p->msr_e_dram = probe_msr(in, d, MSR_DRAM_ENERGY_STATUS, "DRAM_ENERGY_STATUS",
					  TC_RAMWATT, NULL);
		if (!in->intel_server)
			p->msr_e_cores = probe_msr(in, d, MSR_PP0_ENERGY_STATUS,
						   "PP0_ENERGY_STATUS", TC_CORWATT, NULL);
		else
			col_why(in, TC_CORWATT, "no PP0 core energy on this server model");
		if (in->intel_server) {
			p->msr_pkg_perf = probe_msr(in, d, MSR_PKG_PERF_STATUS, "PKG_PERF_STATUS",
						    TC_PKG_PCT, NULL);
			p->msr_dram_perf = probe_msr(in, d, MSR_DRAM_PERF_STATUS,
						     "DRAM_PERF_STATUS", TC_RAM_PCT, NULL);
		}
	} else {
		col_why(in, TC_PKGWATT, "no RAPL units");
	}
}

/* AMD (and Hygon): no C-state or DTS MSRs; RAPL's units and energy counters. */
static void probe_amd_msrs(struct turbo_info *in, struct plan *p, const struct msr_dev *d)
{
	uint64_t v = 0;

	const char *na = "not an Intel MSR on this CPU (turbostat reads cpuidle instead)";

	col_why(in, TC_SMI, "no SMI counter MSR on AMD");
	for (int c = TC_C3; c <= TC_C7; c++)
		col_why(in, (enum turbo_col)c, na);
	for (int c = TC_PC2; c <= TC_PC7; c++)
		col_why(in, (enum turbo_col)c, "no package C-state residency MSR on AMD");
	col_why(in, TC_CORETMP, "no DTS MSR on AMD");
	col_why(in, TC_PKGTMP, "no DTS MSR on AMD");
	if (probe_msr(in, d, MSR_AMD_RAPL_POWER_UNIT, "RAPL_PWR_UNIT", TC__COUNT, &v)) {
		in->energy_unit_j = ldexp(1.0, -(int)((v >> 8) & 0x1f));
		in->dram_energy_unit_j = in->energy_unit_j;
		in->time_unit_s = ldexp(1.0, -(int)((v >> 16) & 0xf));
		in->tdp_w = 280.0; /* turbostat: max stock TDP of Fam17h+ server parts */
		p->msr_e_pkg = probe_msr(in, d, MSR_AMD_PKG_ENERGY_STATUS, "PKG_ENERGY_STAT",
					 TC_PKGWATT, NULL);
		p->amd_core_energy = probe_msr(in, d, MSR_AMD_CORE_ENERGY_STATUS,
					       "CORE_ENERGY_STAT (per core)", TC_CORWATT, NULL);
	}
	col_why(in, TC_RAMWATT, "no DRAM energy MSR on AMD");
	col_why(in, TC_PKG_PCT, "no RAPL perf status MSR on AMD");
	col_why(in, TC_RAM_PCT, "no RAPL perf status MSR on AMD");
}

static void probe_msrs(struct turbo_collector *tc, const struct root *r, int cpu)
{
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	struct msr_dev d;
	char why[IOT_REASON_MAX];
	int e;

	e = msr_open(r, cpu, &d);
	if (e < 0) {
		char path[160];

		snprintf(why, sizeof(why), "dev/cpu/%d/msr", cpu);
		root_display(r, why, path, sizeof(path));
		/* in a recorded tree a missing file says nothing about the host's driver */
		const char *what =
		    !tc->live && e == -ENOENT ? "not recorded in this tree" : msr_strerror(e);

		src_status_set(&in->sources[TF_MSR], e, "%s: %s", path, what);
		snprintf(why, sizeof(why), "%s: %s", path, what);
		for (int c = 0; c < TC__COUNT; c++)
			if (c != TC_IRQ)
				col_why(in, (enum turbo_col)c, why);
		return;
	}
	src_status_set(&in->sources[TF_MSR], 0, NULL);
	probe_msr_clocks(in, p, &d);
	if (is_intel(in)) {
		probe_intel_msrs(in, p, &d);
		probe_intel_rapl(in, p, &d);
	} else if (turbo_is_amd_rapl(in)) {
		probe_amd_msrs(in, p, &d);
	} else {
		snprintf(why, sizeof(why), "model-specific MSRs not known for %s family %u",
			 in->vendor[0] ? in->vendor : "unknown vendor", in->family);
		for (int c = TC_SMI; c < TC__COUNT; c++)
			if (c != TC_C1 && c != TC_IRQ)
				col_why(in, (enum turbo_col)c, why);
	}
	msr_close(&d);
}

/* "event=0x02" (perf sysfs event syntax) -> config. */
static int perf_event_cfg(const struct root *r, const char *pmu, const char *ev, uint64_t *ret)
{
	char rel[160], buf[64];
	uint64_t v = 0;

	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%s/events/%s", pmu, ev);
	if (root_read_small(r, rel, buf, sizeof(buf)) < 0)
		return -ENOENT;
	if (strncmp(buf, "event=0x", 8) != 0)
		return -EINVAL;
	for (const char *p = buf + 8; *p; p++) {
		int d = *p >= '0' && *p <= '9'	 ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
						 : -1;
		if (d < 0 || v >> 60)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	*ret = v;
	return 0;
}

static int perf_type(const struct root *r, const char *pmu)
{
	char rel[96];
	uint64_t v;

	snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/%s/type", pmu);
	if (turbo_read_small_u64(r, rel, &v) < 0 || v > INT32_MAX)
		return -ENOENT;
	return (int)v;
}

/* The perf msr PMU's tsc, aperf, mperf and smi events, for the columns the
 * MSRs left without a source. */
static void probe_perf_msr(struct turbo_collector *tc, const struct root *r, int cpu)
{
	static const char *const thread_ev[PERF__THREAD] = { "tsc", "aperf", "mperf", "smi" };
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	char why[IOT_REASON_MAX];

	tc->perf_msr_type = perf_type(r, "msr");
	if (tc->perf_msr_type < 0) {
		src_status_set(&in->sources[TF_PERF], -ENOENT,
			       "no perf msr PMU (/sys/bus/event_source/devices/msr)");
	} else {
		for (int i = 0; i < PERF__THREAD; i++) {
			long fd;

			if (perf_event_cfg(r, "msr", thread_ev[i], &tc->perf_msr_cfg[i]) < 0) {
				snprintf(why, sizeof(why), "perf msr PMU has no %s event",
					 thread_ev[i]);
				if (i == PERF_TSC)
					col_why(in, TC_TSC_MHZ, why);
				else if (i == PERF_SMI)
					col_why(in, TC_SMI, why);
				else
					for (int c = TC_AVG_MHZ; c <= TC_BZY_MHZ; c++)
						col_why(in, (enum turbo_col)c, why);
				continue;
			}
			fd = turbo_perf_open(tc->perf_msr_type, tc->perf_msr_cfg[i], cpu);
			if (fd < 0) {
				snprintf(why, sizeof(why), "perf msr/%s/: %s%s", thread_ev[i],
					 strerror((int)-fd),
					 fd == -EACCES || fd == -EPERM
					     ? " (needs CAP_PERFMON or perf_event_paranoid <= 0)"
					     : "");
				src_status_set(&in->sources[TF_PERF], (int)fd, "%s", why);
				col_why(in, i == PERF_TSC ? TC_TSC_MHZ : TC_AVG_MHZ, why);
				continue;
			}
			close((int)fd);
			p->perf_thread[i] = true;
		}
	}
	/* perf only fills what the MSRs could not; unused events are not opened */
	if (in->src[TC_TSC_MHZ].via == TV_NONE && p->perf_thread[PERF_TSC])
		set_col(in, TC_TSC_MHZ, TV_PERF, "perf msr/tsc/");
	else
		p->perf_thread[PERF_TSC] = false;
	if (in->src[TC_AVG_MHZ].via == TV_NONE && in->src[TC_TSC_MHZ].via != TV_NONE &&
	    p->perf_thread[PERF_APERF] && p->perf_thread[PERF_MPERF]) {
		set_col(in, TC_AVG_MHZ, TV_PERF, "perf msr/aperf/ / interval");
		set_col(in, TC_BUSY, TV_PERF, "perf msr/mperf/ / tsc");
		set_col(in, TC_BZY_MHZ, TV_PERF, "perf msr/aperf/ / msr/mperf/");
		set_col(in, TC_C1, TV_PERF, "tsc - mperf (derived as turbostat)");
	} else {
		p->perf_thread[PERF_APERF] = p->perf_thread[PERF_MPERF] = false;
	}
	if (in->src[TC_SMI].via == TV_NONE && p->perf_thread[PERF_SMI])
		set_col(in, TC_SMI, TV_PERF, "perf msr/smi/");
	else
		p->perf_thread[PERF_SMI] = false;
}

/* The perf power PMU's energy events, for the energy columns without a
 * source: how many are usable, or -ENOENT without the PMU. */
static int probe_perf_power(struct turbo_collector *tc, const struct root *r)
{
	static const char *const energy_ev[E__COUNT] = { "energy-pkg", "energy-cores",
							 "energy-ram" };
	static const enum turbo_col energy_col[E__COUNT] = { TC_PKGWATT, TC_CORWATT, TC_RAMWATT };
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	char why[IOT_REASON_MAX], rel[160], buf[64];
	int n = 0;

	tc->perf_power_type = perf_type(r, "power");
	if (tc->perf_power_type < 0) {
		for (int i = 0; i < E__COUNT; i++)
			col_why(in, energy_col[i], "no perf power PMU");
		return -ENOENT;
	}
	for (int i = 0; i < E__COUNT; i++) {
		if (in->src[energy_col[i]].via != TV_NONE)
			continue;
		if (perf_event_cfg(r, "power", energy_ev[i], &tc->perf_power_cfg[i]) < 0) {
			snprintf(why, sizeof(why), "perf power PMU has no %s event", energy_ev[i]);
			col_why(in, energy_col[i], why);
			continue;
		}
		snprintf(rel, sizeof(rel), "sys/bus/event_source/devices/power/events/%s.scale",
			 energy_ev[i]);
		if (root_read_small(r, rel, buf, sizeof(buf)) <= 0) {
			col_why(in, energy_col[i], "perf power event without .scale");
			continue;
		}
		in->perf_energy_scale_j[i] = strtod(buf, NULL);
		p->perf_energy[i] = in->perf_energy_scale_j[i] > 0;
		if (p->perf_energy[i]) {
			snprintf(why, sizeof(why), "perf power/%s/", energy_ev[i]);
			set_col(in, energy_col[i], TV_PERF, why);
			n++;
		}
	}
	return n;
}

static void probe_perf(struct turbo_collector *tc, const struct root *r, int cpu)
{
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	bool any;
	int n;

	if (!tc->live) {
		src_status_set(&in->sources[TF_PERF], -EOPNOTSUPP,
			       "perf events count on the live host only");
		return;
	}
	probe_perf_msr(tc, r, cpu);
	any = p->perf_thread[PERF_TSC] || p->perf_thread[PERF_APERF] || p->perf_thread[PERF_SMI];
	n = probe_perf_power(tc, r);
	if (n < 0)
		return;
	if (any || n > 0)
		src_status_set(&in->sources[TF_PERF], 0, NULL);
}

/* powercap: intel-rapl:P is package P's zone, intel-rapl:P:N its "core"/"dram" subzones. */
int turbo_powercap_zone(const struct root *r, int pkg, int e, char *rel, size_t size)
{
	char name[32], path[96];

	if (e == E_PKG) {
		snprintf(rel, size, "sys/class/powercap/intel-rapl:%d", pkg);
		snprintf(path, sizeof(path), "%s/name", rel);
		if (root_read_small(r, path, name, sizeof(name)) < 0)
			return -ENOENT;
		return strncmp(name, "package-", 8) == 0 ? 0 : -ENOENT;
	}
	for (int sub = 0; sub < 8; sub++) {
		snprintf(rel, size, "sys/class/powercap/intel-rapl:%d:%d", pkg, sub);
		snprintf(path, sizeof(path), "%s/name", rel);
		if (root_read_small(r, path, name, sizeof(name)) < 0)
			break;
		if (strcmp(name, e == E_CORES ? "core" : "dram") == 0)
			return 0;
	}
	return -ENOENT;
}

struct hwmon_walk {
	const struct root *r;
	int (*fn)(const char *dev, const char *driver, void *ctx);
	void *ctx;
};

static int hwmon_entry(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct hwmon_walk *w = ctx;
	char rel[80], driver[64];

	if (strncmp(name, "hwmon", 5) != 0)
		return 0;
	snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/name", name);
	if (root_read_small(w->r, rel, driver, sizeof(driver)) <= 0 ||
	    (strcmp(driver, "coretemp") != 0 && strcmp(driver, "k10temp") != 0))
		return 0;
	return w->fn(name, driver, w->ctx);
}

/* Calls fn for each coretemp (Intel) or k10temp (AMD) hwmon device, with
 * its directory's name ("hwmon3") and its driver's; stops as the walk does. */
int turbo_hwmon_for_each(const struct root *r,
			 int (*fn)(const char *dev, const char *driver, void *ctx), void *ctx)
{
	struct hwmon_walk w = { r, fn, ctx };

	return root_for_each_entry(r, "sys/class/hwmon", hwmon_entry, &w);
}

static int hwmon_found(const char *dev, const char *driver, void *ctx)
{
	struct turbo_collector *tc = ctx;
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;

	src_status_set(&in->sources[TF_HWMON], 0, NULL);
	if (in->src[TC_PKGTMP].via == TV_NONE) {
		set_col(in, TC_PKGTMP, TV_SYSFS,
			strcmp(driver, "k10temp") == 0 ? "hwmon k10temp Tctl" : "hwmon coretemp");
		p->hwmon_pkg = true;
	}
	if (strcmp(driver, "coretemp") == 0 && in->src[TC_CORETMP].via == TV_NONE) {
		set_col(in, TC_CORETMP, TV_SYSFS, "hwmon coretemp");
		p->hwmon_core = true;
	}
	return 0;
}

static void probe_sysfs(struct turbo_collector *tc, const struct root *r, int cpu)
{
	static const enum turbo_col energy_col[E__COUNT] = { TC_PKGWATT, TC_CORWATT, TC_RAMWATT };
	static const char *const energy_name[E__COUNT] = { "package", "core", "dram" };
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	char rel[160], buf[64];
	uint64_t v;

	/* cpufreq: the governor's last request, not a measured average */
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	if (turbo_read_small_u64(r, rel, &v) == 0) {
		src_status_set(&in->sources[TF_CPUFREQ], 0, NULL);
		if (in->src[TC_BZY_MHZ].via == TV_NONE) {
			set_col(in, TC_BZY_MHZ, TV_SYSFS, "cpufreq scaling_cur_freq");
			snprintf(
			    in->src[TC_BZY_MHZ].reason, sizeof(in->src[TC_BZY_MHZ].reason),
			    "instantaneous cpufreq value, not turbostat's APERF/MPERF average");
			p->cur_khz = true;
		}
	} else {
		src_status_set(&in->sources[TF_CPUFREQ], -ENOENT,
			       "no cpufreq in sysfs (no driver, or a VM)");
		col_why(in, TC_BZY_MHZ, "no cpufreq in sysfs");
	}

	/* cpuidle: per-CPU residency per idle state, turbostat --show sysfs */
	in->nidle = 0;
	for (unsigned k = 0; k < TURBO_IDLE_MAX; k++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%u/name", cpu,
			 k);
		if (root_read_small(r, rel, buf, sizeof(buf)) <= 0)
			break;
		snprintf(in->idle_names[k], sizeof(in->idle_names[k]), "%.15s", buf);
		in->nidle = k + 1;
	}
	if (in->nidle) {
		src_status_set(&in->sources[TF_CPUIDLE], 0, NULL);
		p->idle = true;
		for (int c = TC_C3; c <= TC_C7; c++)
			col_why(in, (enum turbo_col)c,
				"cpuidle residency is reported per state instead (C1% ...)");
	} else {
		src_status_set(&in->sources[TF_CPUIDLE], -ENOENT, "no cpuidle states in sysfs");
	}

	/* powercap energy_uj: a wrapping uJ counter per zone */
	for (int e = 0; e < E__COUNT; e++) {
		if (in->src[energy_col[e]].via != TV_NONE)
			continue;
		if (turbo_powercap_zone(r, 0, e, rel, sizeof(rel)) < 0) {
			snprintf(buf, sizeof(buf), "no powercap %s zone", energy_name[e]);
			col_why(in, energy_col[e], buf);
			continue;
		}
		strncat(rel, "/max_energy_range_uj", sizeof(rel) - strlen(rel) - 1);
		if (turbo_read_small_u64(r, rel, &in->powercap_range_uj[e]) < 0 ||
		    !in->powercap_range_uj[e]) {
			col_why(in, energy_col[e], "powercap zone without max_energy_range_uj");
			continue;
		}
		p->powercap[e] = true;
		snprintf(buf, sizeof(buf), "powercap %s energy_uj", energy_name[e]);
		set_col(in, energy_col[e], TV_SYSFS, buf);
	}
	if (p->powercap[E_PKG] || p->powercap[E_CORES] || p->powercap[E_DRAM]) {
		src_status_set(&in->sources[TF_POWERCAP], 0, NULL);
		if (!in->tdp_w)
			in->tdp_w = turbo_is_amd_rapl(in) ? 280.0 : 135.0;
	} else {
		src_status_set(&in->sources[TF_POWERCAP], -ENOENT,
			       "no /sys/class/powercap/intel-rapl zones");
	}

	/* hwmon coretemp (Intel) or k10temp (AMD) */
	src_status_set(&in->sources[TF_HWMON], -ENOENT, "no coretemp or k10temp hwmon device");
	turbo_hwmon_for_each(r, hwmon_found, tc);
	if (!p->hwmon_pkg)
		col_why(in, TC_PKGTMP, "no coretemp/k10temp hwmon");
	if (!p->hwmon_core)
		col_why(in, TC_CORETMP, "no coretemp hwmon");
}

struct hwmon_find {
	const struct root *r;
	const char *label;
	char pkg_label[32];
	int k10_index, k10;
	int found;
};

static int hwmon_find_input(const char *dev, const char *driver, void *ctx)
{
	struct hwmon_find *f = ctx;
	char rel[160], buf[64];
	bool right_pkg = false;
	int hit = -1;

	if (!f->label) {
		if (strcmp(driver, "k10temp") == 0 && f->k10++ == f->k10_index) {
			snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/temp1_input", dev);
			f->found = root_openat(f->r, rel, O_RDONLY);
		}
		return f->found >= 0;
	}
	if (strcmp(driver, "coretemp") != 0)
		return 0;
	/* one coretemp device per package: find ours, then the label in it */
	for (int i = 1; i < 256; i++) {
		snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/temp%d_label", dev, i);
		if (root_read_small(f->r, rel, buf, sizeof(buf)) < 0) {
			if (i > 2)
				break;
			continue;
		}
		if (strcmp(buf, f->pkg_label) == 0)
			right_pkg = true;
		if (strcmp(buf, f->label) == 0)
			hit = i;
	}
	if (right_pkg && hit > 0) {
		snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/temp%d_input", dev, hit);
		f->found = root_openat(f->r, rel, O_RDONLY);
	}
	return f->found >= 0;
}

/* The hwmon temperature input whose label is `label` ("Package id 0",
 * "Core 3"; NULL: k10temp's Tctl of the pkg-th k10temp device). */
int turbo_hwmon_open(const struct root *r, const char *label, int pkg, int k10_index)
{
	struct hwmon_find f = { .r = r, .label = label, .k10_index = k10_index, .found = -ENOENT };
	int e;

	snprintf(f.pkg_label, sizeof(f.pkg_label), "Package id %d", pkg);
	e = turbo_hwmon_for_each(r, hwmon_find_input, &f);
	return e < 0 ? e : f.found;
}

void turbo_probe(struct turbo_collector *tc, const struct root *r, int cpu)
{
	struct turbo_info *in = &tc->info;
	struct procfile pf;

	memset(in, 0, sizeof(*in));
	for (int c = 0; c < TC__COUNT; c++)
		in->src[c].via = TV_NONE;
	procfile_init(&pf, "proc/cpuinfo");
	if (procfile_read(&pf, r) < 0 || turbo_cpuinfo_parse(pf.buf, pf.len, in) < 0)
		snprintf(in->vendor, sizeof(in->vendor), "%s", "");
	procfile_free(&pf);
	set_col(in, TC_IRQ, TV_PROC, "/proc/interrupts, all lines per CPU");
	probe_msrs(tc, r, cpu);
	probe_perf(tc, r, cpu);
	probe_sysfs(tc, r, cpu);
	for (int c = 0; c < TC__COUNT; c++)
		if (in->src[c].via == TV_NONE && !in->src[c].reason[0])
			snprintf(in->src[c].reason, sizeof(in->src[c].reason), "no source");
}
