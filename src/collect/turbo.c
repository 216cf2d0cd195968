// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Collecting turbostat's counters. At the first sample every column gets a
 * source, tried in the order MSR (what turbostat reads), perf msr/power PMU,
 * sysfs (cpufreq, cpuidle, powercap, hwmon); the fds stay open so later
 * samples are preads only. No arithmetic here beyond decoding register
 * fields: rates, percentages and watts are in metrics_turbo.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "grow.h"
#include "msr.h"
#include "procfile.h"
#include "treewrite.h"
#include "scan.h"
#include "turbo.h"

enum { PERF_TSC, PERF_APERF, PERF_MPERF, PERF_SMI, PERF__THREAD };
enum { E_PKG, E_CORES, E_DRAM, E__COUNT };

struct cpu_state {
	int cpu;
	int core_id, pkg_id;
	struct msr_dev msr;
	int perf_fd[PERF__THREAD];
	/* the events in one group led by perf_fd[perf_lead] (-1: none), read
	 * by one read() (PERF_FORMAT_GROUP): a read of another CPU's counters
	 * is a cross-CPU call (a VM exit here), once per group instead of once
	 * per counter; perf_slot: the value's place in it, -1 read alone */
	int perf_lead;
	int perf_slot[PERF__THREAD];
	int khz_fd;
	int idle_fd[TURBO_IDLE_MAX];
	int temp_fd; /* hwmon coretemp "Core N" of this CPU's core */
};

struct pkg_state {
	int pkg_id;
	int perf_fd[E__COUNT];
	int powercap_fd[E__COUNT];
	int temp_fd; /* hwmon "Package id N" or k10temp Tctl */
};

/* What each reading does, decided by the probe. */
struct plan {
	bool msr_tsc, msr_aperf, msr_mperf, msr_smi, msr_c3, msr_c6, msr_c7, msr_coretmp;
	bool msr_pc2, msr_pc3, msr_pc6, msr_pc7, msr_pkgtmp;
	bool msr_e_pkg, msr_e_cores, msr_e_dram, msr_pkg_perf, msr_dram_perf;
	bool amd_core_energy;
	bool perf_thread[PERF__THREAD];
	bool perf_energy[E__COUNT];
	bool powercap[E__COUNT];
	bool cur_khz, idle, hwmon_core, hwmon_pkg;
};

/* Where a batched MSR value lands once read. */
enum sink_kind {
	SK_U64,
	SK_U32,	  /* a 32-bit counter in a 64-bit register (SMI, RAPL) */
	SK_THERM, /* a DTS readout: degrees below TjMax in bits 22:16 */
};

struct sink {
	enum sink_kind kind;
	uint32_t addr;
	uint64_t *dst;
	int32_t *temp_mc;
	uint32_t *have;
	uint32_t bit;
	struct turbo_cpu_raw *c; /* whose row fails on error; NULL: package k */
	struct turbo_pkg_raw *k;
};

struct turbo_collector {
	bool live; /* the root is "/": perf events and timestamps mean something */
	struct turbo_info info;
	struct plan plan;
	int perf_msr_type, perf_power_type;
	uint64_t perf_msr_cfg[PERF__THREAD], perf_power_cfg[E__COUNT];
	struct cpu_state *cpus; /* sorted by cpu */
	size_t ncpu, cpu_cap;
	struct pkg_state *pkgs;
	size_t npkg, pkg_cap;
	struct msr_batch batch; /* every MSR read of a sample, one submission */
	struct sink *sinks;	/* where each batch op's value goes, same index */
	int *core_map;		/* open addressing (pkg, core) -> 1 + index of its first CPU */
	size_t core_map_cap;
	size_t nsinks, sink_cap;
	bool oom;
	int *online; /* the online set of the last sample, to notice hotplug */
	size_t nonline, online_cap;
};

static const char *const family_names[TURBO_NSOURCES] = {
	[TF_MSR] = "msr",	  [TF_PERF] = "perf",	      [TF_CPUFREQ] = "cpufreq",
	[TF_CPUIDLE] = "cpuidle", [TF_POWERCAP] = "powercap", [TF_HWMON] = "hwmon",
};

const char *turbo_source_name(unsigned i)
{
	return i < TURBO_NSOURCES ? family_names[i] : "?";
}

static void set_family(struct turbo_info *in, enum turbo_family f, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_family(struct turbo_info *in, enum turbo_family f, int err, const char *fmt, ...)
{
	va_list ap;

	in->sources[f].err = err;
	in->sources[f].reason[0] = '\0';
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(in->sources[f].reason, sizeof(in->sources[f].reason), fmt, ap);
	va_end(ap);
}

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

/* ---- /proc/cpuinfo ---- */

static bool key_is(const char *tok, size_t len, const char *key)
{
	return strlen(key) == len && memcmp(tok, key, len) == 0;
}

int turbo_cpuinfo_parse(const char *buf, size_t len, struct turbo_info *ret)
{
	bool have_vendor = false, have_family = false, have_model = false;
	char vendor[sizeof(ret->vendor)] = "";
	unsigned long family = 0, model = 0;
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(eol - p));

		/* the first processor block ends at its blank line */
		if (eol == p && (have_vendor || have_family))
			break;
		if (colon) {
			const char *k = p, *ke = colon, *v = colon + 1, *ve = eol;

			while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\r'))
				ve--;
			if (key_is(k, (size_t)(ke - k), "vendor_id") && !have_vendor) {
				if ((size_t)(ve - v) >= sizeof(vendor))
					return -EBADMSG;
				memcpy(vendor, v, (size_t)(ve - v));
				vendor[ve - v] = '\0';
				have_vendor = true;
			} else if ((key_is(k, (size_t)(ke - k), "cpu family") && !have_family) ||
				   (key_is(k, (size_t)(ke - k), "model") && !have_model)) {
				struct cursor c;
				uint64_t n;

				cursor_init(&c, v, (size_t)(ve - v));
				if (scan_u64(&c, &n) < 0 || n > 0xffff || !scan_at_eol(&c))
					return -EBADMSG;
				if (k[0] == 'c') {
					family = (unsigned long)n;
					have_family = true;
				} else {
					model = (unsigned long)n;
					have_model = true;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	if (!have_vendor || !have_family || !have_model)
		return -ENOENT;
	memcpy(ret->vendor, vendor, sizeof(vendor));
	ret->family = (unsigned)family;
	ret->model = (unsigned)model;
	return 0;
}

/* ---- small sysfs helpers ---- */

static int read_u64_fd(int fd, uint64_t *ret)
{
	char buf[32];
	struct cursor c;
	ssize_t n;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	cursor_init(&c, buf, (size_t)n);
	return scan_u64(&c, ret);
}

static int read_i64_fd(int fd, int64_t *ret)
{
	char buf[32];
	struct cursor c;
	uint64_t v;
	bool neg;
	ssize_t n;
	int r;

	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0)
		return -errno;
	neg = n > 0 && buf[0] == '-';
	cursor_init(&c, buf + neg, (size_t)n - neg);
	r = scan_u64(&c, &v);
	if (r < 0)
		return r;
	if (v > INT64_MAX)
		return -ERANGE;
	*ret = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int read_small_u64(const struct root *r, const char *rel, uint64_t *ret)
{
	int fd = root_openat(r, rel, O_RDONLY), e;

	if (fd < 0)
		return fd;
	e = read_u64_fd(fd, ret);
	close(fd);
	return e;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- topology and per-CPU state ---- */

static int topo_id(const struct root *r, int cpu, const char *what, int fallback)
{
	char rel[96];
	uint64_t v;

	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	if (read_small_u64(r, rel, &v) < 0 || v > 1u << 20)
		return fallback;
	return (int)v;
}

static struct cpu_state *find_cpu(struct turbo_collector *tc, int cpu)
{
	size_t lo = 0, hi = tc->ncpu;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tc->cpus[mid].cpu == cpu)
			return &tc->cpus[mid];
		if (tc->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct pkg_state *find_pkg(struct turbo_collector *tc, int pkg)
{
	for (size_t i = 0; i < tc->npkg; i++)
		if (tc->pkgs[i].pkg_id == pkg)
			return &tc->pkgs[i];
	return NULL;
}

static void cpu_state_init(struct cpu_state *s, int cpu)
{
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	s->msr.fd = -1;
	s->khz_fd = -1;
	s->temp_fd = -1;
	s->perf_lead = -1;
	for (int i = 0; i < PERF__THREAD; i++)
		s->perf_fd[i] = s->perf_slot[i] = -1;
	for (int i = 0; i < TURBO_IDLE_MAX; i++)
		s->idle_fd[i] = -1;
}

static void cpu_state_close(struct cpu_state *s)
{
	msr_close(&s->msr);
	close_fd(&s->khz_fd);
	close_fd(&s->temp_fd);
	for (int i = 0; i < PERF__THREAD; i++)
		close_fd(&s->perf_fd[i]);
	for (int i = 0; i < TURBO_IDLE_MAX; i++)
		close_fd(&s->idle_fd[i]);
}

static void pkg_state_close(struct pkg_state *p)
{
	close_fd(&p->temp_fd);
	for (int i = 0; i < E__COUNT; i++) {
		close_fd(&p->perf_fd[i]);
		close_fd(&p->powercap_fd[i]);
	}
}

/* group_fd -1: alone, or the leader of a group when format is
 * PERF_FORMAT_GROUP; else a member of group_fd's group. */
static long perf_open_group(int type, uint64_t config, int cpu, int group_fd, uint64_t format)
{
	struct perf_event_attr a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = (uint32_t)type;
	a.config = config;
	a.read_format = format;
	fd = syscall(SYS_perf_event_open, &a, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static long perf_open(int type, uint64_t config, int cpu)
{
	return perf_open_group(type, config, cpu, -1, 0);
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

static bool is_amd_rapl(const struct turbo_info *in)
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

static void probe_msrs(struct turbo_collector *tc, const struct root *r, int cpu)
{
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	struct msr_dev d;
	uint64_t v = 0;
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

		set_family(in, TF_MSR, e, "%s: %s", path, what);
		snprintf(why, sizeof(why), "%s: %s", path, what);
		for (int c = 0; c < TC__COUNT; c++)
			if (c != TC_IRQ)
				col_why(in, (enum turbo_col)c, why);
		return;
	}
	set_family(in, TF_MSR, 0, NULL);
	p->msr_tsc = probe_msr(in, &d, MSR_IA32_TSC, "TSC", TC_TSC_MHZ, NULL);
	p->msr_aperf = probe_msr(in, &d, MSR_IA32_APERF, "APERF", TC__COUNT, NULL);
	p->msr_mperf = probe_msr(in, &d, MSR_IA32_MPERF, "MPERF", TC__COUNT, NULL);
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
	if (is_intel(in)) {
		in->intel_server = intel_server_model(in->model);
		/* Nehalem/Westmere run a 133.33 MHz bus clock, later cores 100 MHz */
		if (probe_msr(in, &d, MSR_PLATFORM_INFO, "PLATFORM_INFO", TC__COUNT, &v)) {
			static const unsigned nhm[] = { 0x1a, 0x1e, 0x1f, 0x25, 0x2c, 0x2e, 0x2f };
			double bclk = 100.0;

			for (size_t i = 0; i < sizeof(nhm) / sizeof(nhm[0]); i++)
				if (nhm[i] == in->model)
					bclk = 400.0 / 3;
			in->base_mhz = (double)((v >> 8) & 0xff) * bclk;
		}
		p->msr_smi = probe_msr(in, &d, MSR_SMI_COUNT, "SMI_COUNT", TC_SMI, NULL);
		p->msr_c3 =
		    probe_msr(in, &d, MSR_CORE_C3_RESIDENCY, "CORE_C3_RESIDENCY", TC_C3, NULL);
		p->msr_c6 =
		    probe_msr(in, &d, MSR_CORE_C6_RESIDENCY, "CORE_C6_RESIDENCY", TC_C6, NULL);
		p->msr_c7 =
		    probe_msr(in, &d, MSR_CORE_C7_RESIDENCY, "CORE_C7_RESIDENCY", TC_C7, NULL);
		p->msr_pc2 =
		    probe_msr(in, &d, MSR_PKG_C2_RESIDENCY, "PKG_C2_RESIDENCY", TC_PC2, NULL);
		p->msr_pc3 =
		    probe_msr(in, &d, MSR_PKG_C3_RESIDENCY, "PKG_C3_RESIDENCY", TC_PC3, NULL);
		p->msr_pc6 =
		    probe_msr(in, &d, MSR_PKG_C6_RESIDENCY, "PKG_C6_RESIDENCY", TC_PC6, NULL);
		if (!in->intel_server)
			p->msr_pc7 = probe_msr(in, &d, MSR_PKG_C7_RESIDENCY, "PKG_C7_RESIDENCY",
					       TC_PC7, NULL);
		else
			col_why(in, TC_PC7, "no package C7 on this server model (turbostat)");
		in->tj_max_c = 100; /* turbostat's default when the target is unreadable */
		if (probe_msr(in, &d, MSR_IA32_TEMPERATURE_TARGET, "TEMPERATURE_TARGET", TC__COUNT,
			      &v) &&
		    ((v >> 16) & 0xff))
			in->tj_max_c = (int)((v >> 16) & 0xff);
		p->msr_coretmp =
		    probe_msr(in, &d, MSR_IA32_THERM_STATUS, "IA32_THERM_STATUS", TC_CORETMP, NULL);
		p->msr_pkgtmp = probe_msr(in, &d, MSR_IA32_PACKAGE_THERM_STATUS,
					  "PACKAGE_THERM_STATUS", TC_PKGTMP, NULL);
		if (probe_msr(in, &d, MSR_RAPL_POWER_UNIT, "RAPL_POWER_UNIT", TC__COUNT, &v)) {
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
			if (probe_msr(in, &d, MSR_PKG_POWER_INFO, "PKG_POWER_INFO", TC__COUNT,
				      &v) &&
			    (v & 0x7fff))
				in->tdp_w = (double)(v & 0x7fff) * power_unit;
			p->msr_e_pkg = probe_msr(in, &d, MSR_PKG_ENERGY_STATUS, "PKG_ENERGY_STATUS",
						 TC_PKGWATT, NULL);
			p->msr_e_dram = probe_msr(in, &d, MSR_DRAM_ENERGY_STATUS,
						  "DRAM_ENERGY_STATUS", TC_RAMWATT, NULL);
			if (!in->intel_server)
				p->msr_e_cores = probe_msr(in, &d, MSR_PP0_ENERGY_STATUS,
							   "PP0_ENERGY_STATUS", TC_CORWATT, NULL);
			else
				col_why(in, TC_CORWATT, "no PP0 core energy on this server model");
			if (in->intel_server) {
				p->msr_pkg_perf = probe_msr(in, &d, MSR_PKG_PERF_STATUS,
							    "PKG_PERF_STATUS", TC_PKG_PCT, NULL);
				p->msr_dram_perf = probe_msr(in, &d, MSR_DRAM_PERF_STATUS,
							     "DRAM_PERF_STATUS", TC_RAM_PCT, NULL);
			}
		} else {
			col_why(in, TC_PKGWATT, "no RAPL units");
		}
	} else if (is_amd_rapl(in)) {
		const char *na = "not an Intel MSR on this CPU (turbostat reads cpuidle instead)";

		col_why(in, TC_SMI, "no SMI counter MSR on AMD");
		for (int c = TC_C3; c <= TC_C7; c++)
			col_why(in, (enum turbo_col)c, na);
		for (int c = TC_PC2; c <= TC_PC7; c++)
			col_why(in, (enum turbo_col)c, "no package C-state residency MSR on AMD");
		col_why(in, TC_CORETMP, "no DTS MSR on AMD");
		col_why(in, TC_PKGTMP, "no DTS MSR on AMD");
		if (probe_msr(in, &d, MSR_AMD_RAPL_POWER_UNIT, "RAPL_PWR_UNIT", TC__COUNT, &v)) {
			in->energy_unit_j = ldexp(1.0, -(int)((v >> 8) & 0x1f));
			in->dram_energy_unit_j = in->energy_unit_j;
			in->time_unit_s = ldexp(1.0, -(int)((v >> 16) & 0xf));
			in->tdp_w = 280.0; /* turbostat: max stock TDP of Fam17h+ server parts */
			p->msr_e_pkg = probe_msr(in, &d, MSR_AMD_PKG_ENERGY_STATUS,
						 "PKG_ENERGY_STAT", TC_PKGWATT, NULL);
			p->amd_core_energy =
			    probe_msr(in, &d, MSR_AMD_CORE_ENERGY_STATUS,
				      "CORE_ENERGY_STAT (per core)", TC_CORWATT, NULL);
		}
		col_why(in, TC_RAMWATT, "no DRAM energy MSR on AMD");
		col_why(in, TC_PKG_PCT, "no RAPL perf status MSR on AMD");
		col_why(in, TC_RAM_PCT, "no RAPL perf status MSR on AMD");
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
	if (read_small_u64(r, rel, &v) < 0 || v > INT32_MAX)
		return -ENOENT;
	return (int)v;
}

static void probe_perf(struct turbo_collector *tc, const struct root *r, int cpu)
{
	static const char *const thread_ev[PERF__THREAD] = { "tsc", "aperf", "mperf", "smi" };
	static const char *const energy_ev[E__COUNT] = { "energy-pkg", "energy-cores",
							 "energy-ram" };
	static const enum turbo_col energy_col[E__COUNT] = { TC_PKGWATT, TC_CORWATT, TC_RAMWATT };
	struct turbo_info *in = &tc->info;
	struct plan *p = &tc->plan;
	char why[IOT_REASON_MAX], rel[160], buf[64];
	bool any = false;

	if (!tc->live) {
		set_family(in, TF_PERF, -EOPNOTSUPP, "perf events count on the live host only");
		return;
	}
	tc->perf_msr_type = perf_type(r, "msr");
	if (tc->perf_msr_type < 0) {
		set_family(in, TF_PERF, -ENOENT,
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
			fd = perf_open(tc->perf_msr_type, tc->perf_msr_cfg[i], cpu);
			if (fd < 0) {
				snprintf(why, sizeof(why), "perf msr/%s/: %s%s", thread_ev[i],
					 strerror((int)-fd),
					 fd == -EACCES || fd == -EPERM
					     ? " (needs CAP_PERFMON or perf_event_paranoid <= 0)"
					     : "");
				set_family(in, TF_PERF, (int)fd, "%s", why);
				col_why(in, i == PERF_TSC ? TC_TSC_MHZ : TC_AVG_MHZ, why);
				continue;
			}
			close((int)fd);
			p->perf_thread[i] = true;
			any = true;
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
	any = p->perf_thread[PERF_TSC] || p->perf_thread[PERF_APERF] || p->perf_thread[PERF_SMI];
	tc->perf_power_type = perf_type(r, "power");
	if (tc->perf_power_type < 0) {
		for (int i = 0; i < E__COUNT; i++)
			col_why(in, energy_col[i], "no perf power PMU");
		return;
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
			any = true;
		}
	}
	if (any)
		set_family(in, TF_PERF, 0, NULL);
}

/* powercap: intel-rapl:P is package P's zone, intel-rapl:P:N its "core"/"dram" subzones. */
static int powercap_zone(const struct root *r, int pkg, int e, char *rel, size_t size)
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
static int hwmon_for_each(const struct root *r,
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

	set_family(in, TF_HWMON, 0, NULL);
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
	if (read_small_u64(r, rel, &v) == 0) {
		set_family(in, TF_CPUFREQ, 0, NULL);
		if (in->src[TC_BZY_MHZ].via == TV_NONE) {
			set_col(in, TC_BZY_MHZ, TV_SYSFS, "cpufreq scaling_cur_freq");
			snprintf(
			    in->src[TC_BZY_MHZ].reason, sizeof(in->src[TC_BZY_MHZ].reason),
			    "instantaneous cpufreq value, not turbostat's APERF/MPERF average");
			p->cur_khz = true;
		}
	} else {
		set_family(in, TF_CPUFREQ, -ENOENT, "no cpufreq in sysfs (no driver, or a VM)");
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
		set_family(in, TF_CPUIDLE, 0, NULL);
		p->idle = true;
		for (int c = TC_C3; c <= TC_C7; c++)
			col_why(in, (enum turbo_col)c,
				"cpuidle residency is reported per state instead (C1% ...)");
	} else {
		set_family(in, TF_CPUIDLE, -ENOENT, "no cpuidle states in sysfs");
	}

	/* powercap energy_uj: a wrapping uJ counter per zone */
	for (int e = 0; e < E__COUNT; e++) {
		if (in->src[energy_col[e]].via != TV_NONE)
			continue;
		if (powercap_zone(r, 0, e, rel, sizeof(rel)) < 0) {
			snprintf(buf, sizeof(buf), "no powercap %s zone", energy_name[e]);
			col_why(in, energy_col[e], buf);
			continue;
		}
		strncat(rel, "/max_energy_range_uj", sizeof(rel) - strlen(rel) - 1);
		if (read_small_u64(r, rel, &in->powercap_range_uj[e]) < 0 ||
		    !in->powercap_range_uj[e]) {
			col_why(in, energy_col[e], "powercap zone without max_energy_range_uj");
			continue;
		}
		p->powercap[e] = true;
		snprintf(buf, sizeof(buf), "powercap %s energy_uj", energy_name[e]);
		set_col(in, energy_col[e], TV_SYSFS, buf);
	}
	if (p->powercap[E_PKG] || p->powercap[E_CORES] || p->powercap[E_DRAM]) {
		set_family(in, TF_POWERCAP, 0, NULL);
		if (!in->tdp_w)
			in->tdp_w = is_amd_rapl(in) ? 280.0 : 135.0;
	} else {
		set_family(in, TF_POWERCAP, -ENOENT, "no /sys/class/powercap/intel-rapl zones");
	}

	/* hwmon coretemp (Intel) or k10temp (AMD) */
	set_family(in, TF_HWMON, -ENOENT, "no coretemp or k10temp hwmon device");
	hwmon_for_each(r, hwmon_found, tc);
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
static int hwmon_open(const struct root *r, const char *label, int pkg, int k10_index)
{
	struct hwmon_find f = { .r = r, .label = label, .k10_index = k10_index, .found = -ENOENT };
	int e;

	snprintf(f.pkg_label, sizeof(f.pkg_label), "Package id %d", pkg);
	e = hwmon_for_each(r, hwmon_find_input, &f);
	return e < 0 ? e : f.found;
}

static void probe(struct turbo_collector *tc, const struct root *r, int cpu)
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

/* ---- per-CPU and per-package fds ---- */

static int add_cpu(struct turbo_collector *tc, const struct root *r, int cpu,
		   struct cpu_state **ret)
{
	const struct plan *p = &tc->plan;
	struct cpu_state *s;
	size_t at = 0;
	char rel[128];

	if (grow((void **)&tc->cpus, &tc->cpu_cap, tc->ncpu + 1, sizeof(*tc->cpus)) < 0)
		return -ENOMEM;
	while (at < tc->ncpu && tc->cpus[at].cpu < cpu)
		at++;
	memmove(&tc->cpus[at + 1], &tc->cpus[at], (tc->ncpu - at) * sizeof(*tc->cpus));
	tc->ncpu++;
	s = &tc->cpus[at];
	cpu_state_init(s, cpu);
	s->core_id = topo_id(r, cpu, "core_id", cpu);
	s->pkg_id = topo_id(r, cpu, "physical_package_id", 0);
	/* errors here surface per sample as this CPU's reason */
	if (tc->info.sources[TF_MSR].err == 0)
		msr_open(r, cpu, &s->msr);
	for (int i = 0, n = 0; i < PERF__THREAD; i++) {
		int lead = s->perf_lead >= 0 ? s->perf_fd[s->perf_lead] : -1;
		long fd;

		if (!p->perf_thread[i])
			continue;
		fd = perf_open_group(tc->perf_msr_type, tc->perf_msr_cfg[i], cpu, lead,
				     lead < 0 ? PERF_FORMAT_GROUP : 0);
		if (fd >= 0) {
			if (lead < 0)
				s->perf_lead = i;
			s->perf_slot[i] = n++;
		} else {
			/* a PMU that refuses groups: the event alone */
			fd = perf_open(tc->perf_msr_type, tc->perf_msr_cfg[i], cpu);
		}
		s->perf_fd[i] = fd < 0 ? -1 : (int)fd;
	}
	if (p->cur_khz) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
			 cpu);
		s->khz_fd = root_openat(r, rel, O_RDONLY);
	}
	for (unsigned k = 0; p->idle && k < tc->info.nidle; k++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%d/cpuidle/state%u/time", cpu,
			 k);
		s->idle_fd[k] = root_openat(r, rel, O_RDONLY);
	}
	if (p->hwmon_core) {
		char label[32];

		snprintf(label, sizeof(label), "Core %d", s->core_id);
		s->temp_fd = hwmon_open(r, label, s->pkg_id, 0);
	}
	*ret = s;
	return 0;
}

static int add_pkg(struct turbo_collector *tc, const struct root *r, int pkg, int cpu)
{
	const struct plan *p = &tc->plan;
	struct pkg_state *s;
	char rel[160];

	if (grow((void **)&tc->pkgs, &tc->pkg_cap, tc->npkg + 1, sizeof(*tc->pkgs)) < 0)
		return -ENOMEM;
	s = &tc->pkgs[tc->npkg++];
	memset(s, 0, sizeof(*s));
	s->pkg_id = pkg;
	s->temp_fd = -1;
	for (int e = 0; e < E__COUNT; e++) {
		s->perf_fd[e] = s->powercap_fd[e] = -1;
		if (p->perf_energy[e]) {
			long fd = perf_open(tc->perf_power_type, tc->perf_power_cfg[e], cpu);

			s->perf_fd[e] = fd < 0 ? -1 : (int)fd;
		}
		if (p->powercap[e] && powercap_zone(r, pkg, e, rel, sizeof(rel)) == 0) {
			strncat(rel, "/energy_uj", sizeof(rel) - strlen(rel) - 1);
			s->powercap_fd[e] = root_openat(r, rel, O_RDONLY);
		}
	}
	if (p->hwmon_pkg) {
		char label[32];

		snprintf(label, sizeof(label), "Package id %d", pkg);
		s->temp_fd =
		    hwmon_open(r, is_amd_rapl(&tc->info) ? NULL : label, pkg, (int)tc->npkg - 1);
	}
	return 0;
}

void turbo_collector_free(struct turbo_collector *tc)
{
	if (!tc)
		return;
	for (size_t i = 0; i < tc->ncpu; i++)
		cpu_state_close(&tc->cpus[i]);
	for (size_t i = 0; i < tc->npkg; i++)
		pkg_state_close(&tc->pkgs[i]);
	free(tc->cpus);
	free(tc->pkgs);
	free(tc->online);
	free(tc->sinks);
	free(tc->core_map);
	msr_batch_free(&tc->batch);
	free(tc);
}

/* ---- one reading ---- */

static void cpu_fail(struct turbo_cpu_raw *c, int err, const char *what, uint32_t addr)
{
	if (c->err)
		return;
	c->err = err;
	if (addr)
		snprintf(c->reason, sizeof(c->reason), "cpu%d: %s 0x%X: %s", c->cpu, what, addr,
			 msr_strerror(err));
	else
		snprintf(c->reason, sizeof(c->reason), "cpu%d: %s: %s", c->cpu, what,
			 strerror(-err));
}

static void pkg_fail(struct turbo_pkg_raw *k, int err, uint32_t addr);

/* Queues one MSR read; its value and error are applied by finish_batch(). */
static void queue(struct turbo_collector *tc, const struct msr_dev *d, struct sink sk)
{
	int i;

	if (tc->oom)
		return;
	if (grow((void **)&tc->sinks, &tc->sink_cap, tc->nsinks + 1, sizeof(*tc->sinks)) < 0 ||
	    (i = msr_batch_add(&tc->batch, d, sk.addr)) < 0) {
		tc->oom = true;
		return;
	}
	tc->sinks[i] = sk;
	tc->nsinks = (size_t)i + 1;
}

static void rd(struct turbo_collector *tc, const struct msr_dev *d, uint32_t addr, uint64_t *v,
	       uint32_t bit, struct turbo_cpu_raw *c, bool wrap32)
{
	queue(tc, d,
	      (struct sink){ .kind = wrap32 ? SK_U32 : SK_U64,
			     .addr = addr,
			     .dst = v,
			     .have = &c->have,
			     .bit = bit,
			     .c = c });
}

/* Runs the batch and files each value (or the first error of a row). */
static int finish_batch(struct turbo_collector *tc)
{
	int r = 0;

	if (tc->oom)
		r = -ENOMEM;
	else
		msr_batch_run(&tc->batch);
	for (size_t i = 0; !r && i < tc->nsinks; i++) {
		const struct msr_op *op = &tc->batch.ops[i];
		const struct sink *sk = &tc->sinks[i];

		if (op->err) {
			/* a missing thermal register only loses its temperature */
			if (sk->kind == SK_THERM)
				continue;
			if (sk->c)
				cpu_fail(sk->c, op->err, "MSR", sk->addr);
			else
				pkg_fail(sk->k, op->err, sk->addr);
			continue;
		}
		switch (sk->kind) {
		case SK_U64:
			*sk->dst = op->val;
			break;
		case SK_U32:
			*sk->dst = op->val & 0xffffffff;
			break;
		case SK_THERM:
			*sk->temp_mc =
			    (tc->info.tj_max_c - (int32_t)((op->val >> 16) & 0x7f)) * 1000;
			break;
		}
		*sk->have |= sk->bit;
	}
	msr_batch_reset(&tc->batch);
	tc->nsinks = 0;
	tc->oom = false;
	return r;
}

static void rd_perf(int fd, uint64_t *v, uint32_t bit, struct turbo_cpu_raw *c)
{
	ssize_t n;

	if (fd < 0) {
		cpu_fail(c, -EBADF, "perf event", 0);
		return;
	}
	n = read(fd, v, sizeof(*v));
	if (n != (ssize_t)sizeof(*v))
		cpu_fail(c, n < 0 ? -errno : -EIO, "perf event", 0);
	else
		c->have |= bit;
}

/* The perf msr events of one CPU: the group in one read(), the others
 * (refused by the group) one by one. */
static void read_perf(const struct plan *p, const struct cpu_state *s, struct turbo_cpu_raw *c)
{
	static const uint32_t bit[PERF__THREAD] = { TR_TSC, TR_APERF, TR_MPERF, TR_SMI };
	uint64_t *v[PERF__THREAD] = { &c->tsc, &c->aperf, &c->mperf, &c->smi };
	uint64_t g[1 + PERF__THREAD]; /* nr, then the values in the order opened */
	ssize_t n = -1;

	if (s->perf_lead >= 0) {
		n = read(s->perf_fd[s->perf_lead], g, sizeof(g));
		if (n < (ssize_t)sizeof(g[0]))
			cpu_fail(c, n < 0 ? -errno : -EIO, "perf event group", 0);
	}
	for (int i = 0; i < PERF__THREAD; i++) {
		int k = s->perf_slot[i];

		if (!p->perf_thread[i])
			continue;
		if (k < 0) {
			rd_perf(s->perf_fd[i], v[i], bit[i], c);
			continue;
		}
		if (n >= (ssize_t)sizeof(g[0]) && (uint64_t)k < g[0] &&
		    (size_t)n >= (size_t)(k + 2) * sizeof(g[0])) {
			*v[i] = g[1 + k];
			c->have |= bit[i];
		}
	}
}

static void read_cpu(struct turbo_collector *tc, const struct cpu_state *s, struct turbo_cpu_raw *c)
{
	const struct plan *p = &tc->plan;
	const struct msr_dev *d = &s->msr;
	bool msr_any =
	    p->msr_tsc || p->msr_smi || p->msr_c3 || p->msr_coretmp || p->amd_core_energy;

	if (msr_any && d->fd < 0) {
		cpu_fail(c, -ENOENT, "dev/cpu/N/msr", 0);
		return;
	}
	if (p->msr_tsc) {
		/* TSC first and APERF/MPERF back to back, as turbostat orders them */
		rd(tc, d, MSR_IA32_TSC, &c->tsc, TR_TSC, c, false);
		rd(tc, d, MSR_IA32_APERF, &c->aperf, TR_APERF, c, false);
		rd(tc, d, MSR_IA32_MPERF, &c->mperf, TR_MPERF, c, false);
	}
	read_perf(p, s, c);
	if (p->msr_smi)
		rd(tc, d, MSR_SMI_COUNT, &c->smi, TR_SMI, c, true);
	if (c->first_in_core) {
		if (p->msr_c3)
			rd(tc, d, MSR_CORE_C3_RESIDENCY, &c->c3, TR_C3, c, false);
		if (p->msr_c6)
			rd(tc, d, MSR_CORE_C6_RESIDENCY, &c->c6, TR_C6, c, false);
		if (p->msr_c7)
			rd(tc, d, MSR_CORE_C7_RESIDENCY, &c->c7, TR_C7, c, false);
		if (p->msr_coretmp)
			queue(tc, d,
			      (struct sink){ .kind = SK_THERM,
					     .addr = MSR_IA32_THERM_STATUS,
					     .temp_mc = &c->core_temp_mc,
					     .have = &c->have,
					     .bit = TR_CORETMP,
					     .c = c });
		if (p->amd_core_energy)
			rd(tc, d, MSR_AMD_CORE_ENERGY_STATUS, &c->core_energy, TR_CORE_ENERGY, c,
			   true);
		if (p->hwmon_core && s->temp_fd >= 0) {
			int64_t t;

			if (read_i64_fd(s->temp_fd, &t) == 0 && t > INT32_MIN && t < INT32_MAX) {
				c->core_temp_mc = (int32_t)t;
				c->have |= TR_CORETMP;
			}
		}
	}
	if (p->cur_khz && s->khz_fd >= 0) {
		uint64_t v;

		if (read_u64_fd(s->khz_fd, &v) == 0 && v <= UINT32_MAX) {
			c->cur_khz = (uint32_t)v;
			c->have |= TR_CUR_KHZ;
		}
	}
	if (p->idle) {
		bool ok = true;

		for (unsigned k = 0; k < tc->info.nidle; k++)
			ok = ok && s->idle_fd[k] >= 0 &&
			     read_u64_fd(s->idle_fd[k], &c->idle_us[k]) == 0;
		if (ok)
			c->have |= TR_IDLE;
	}
}

static void pkg_fail(struct turbo_pkg_raw *k, int err, uint32_t addr)
{
	if (k->err)
		return;
	k->err = err;
	snprintf(k->reason, sizeof(k->reason), "package %d (cpu%d): MSR 0x%X: %s", k->pkg_id,
		 k->cpu, addr, msr_strerror(err));
}

static void rdp(struct turbo_collector *tc, const struct msr_dev *d, uint32_t addr, uint64_t *v,
		uint32_t bit, bool wrap32, struct turbo_pkg_raw *k)
{
	/* RAPL energy and perf status are 32-bit counters in a 64-bit register */
	queue(tc, d,
	      (struct sink){ .kind = wrap32 ? SK_U32 : SK_U64,
			     .addr = addr,
			     .dst = v,
			     .have = &k->have,
			     .bit = bit,
			     .k = k });
}

static void read_pkg(struct turbo_collector *tc, const struct pkg_state *ps,
		     const struct cpu_state *cs, struct turbo_pkg_raw *k)
{
	const struct plan *p = &tc->plan;
	const struct msr_dev *d = &cs->msr;
	uint64_t *e[E__COUNT] = { &k->e_pkg, &k->e_cores, &k->e_dram };
	static const uint32_t ebit[E__COUNT] = { TP_E_PKG, TP_E_CORES, TP_E_DRAM };

	if (d->fd >= 0) {
		if (p->msr_pc2)
			rdp(tc, d, MSR_PKG_C2_RESIDENCY, &k->pc2, TP_PC2, false, k);
		if (p->msr_pc3)
			rdp(tc, d, MSR_PKG_C3_RESIDENCY, &k->pc3, TP_PC3, false, k);
		if (p->msr_pc6)
			rdp(tc, d, MSR_PKG_C6_RESIDENCY, &k->pc6, TP_PC6, false, k);
		if (p->msr_pc7)
			rdp(tc, d, MSR_PKG_C7_RESIDENCY, &k->pc7, TP_PC7, false, k);
		if (p->msr_pkgtmp)
			queue(tc, d,
			      (struct sink){ .kind = SK_THERM,
					     .addr = MSR_IA32_PACKAGE_THERM_STATUS,
					     .temp_mc = &k->pkg_temp_mc,
					     .have = &k->have,
					     .bit = TP_PKGTMP,
					     .k = k });
		if (p->msr_e_pkg)
			rdp(tc, d,
			    is_amd_rapl(&tc->info) ? MSR_AMD_PKG_ENERGY_STATUS
						   : MSR_PKG_ENERGY_STATUS,
			    &k->e_pkg, TP_E_PKG, true, k);
		if (p->msr_e_cores)
			rdp(tc, d, MSR_PP0_ENERGY_STATUS, &k->e_cores, TP_E_CORES, true, k);
		if (p->msr_e_dram)
			rdp(tc, d, MSR_DRAM_ENERGY_STATUS, &k->e_dram, TP_E_DRAM, true, k);
		if (p->msr_pkg_perf)
			rdp(tc, d, MSR_PKG_PERF_STATUS, &k->pkg_perf, TP_PKG_PERF, true, k);
		if (p->msr_dram_perf)
			rdp(tc, d, MSR_DRAM_PERF_STATUS, &k->dram_perf, TP_DRAM_PERF, true, k);
	}
	for (int i = 0; i < E__COUNT; i++) {
		if (p->perf_energy[i] && ps->perf_fd[i] >= 0 &&
		    read(ps->perf_fd[i], e[i], sizeof(*e[i])) == (ssize_t)sizeof(*e[i]))
			k->have |= ebit[i];
		if (p->powercap[i] && ps->powercap_fd[i] >= 0 &&
		    read_u64_fd(ps->powercap_fd[i], e[i]) == 0)
			k->have |= ebit[i];
	}
	if (p->hwmon_pkg && ps->temp_fd >= 0) {
		int64_t t;

		if (read_i64_fd(ps->temp_fd, &t) == 0 && t > INT32_MIN && t < INT32_MAX) {
			k->pkg_temp_mc = (int32_t)t;
			k->have |= TP_PKGTMP;
		}
	}
}

/* True when cpus[idx] is the first CPU of its core this sample; sets its
 * core_idx. The map holds at least twice the CPUs, so probing ends. */
static bool core_first(struct turbo_collector *tc, struct turbo_cpu_raw *cpus, size_t idx)
{
	struct turbo_cpu_raw *c = &cpus[idx];
	uint64_t key = (uint64_t)(uint32_t)c->pkg_id << 32 | (uint32_t)c->core_id;
	size_t mask = tc->core_map_cap - 1;
	size_t h = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 40) & mask;

	for (;; h = (h + 1) & mask) {
		int v = tc->core_map[h];
		const struct turbo_cpu_raw *f;

		if (!v) {
			tc->core_map[h] = (int)idx + 1;
			c->core_idx = (int32_t)idx;
			return true;
		}
		f = &cpus[v - 1];
		if (f->pkg_id == c->pkg_id && f->core_id == c->core_id) {
			c->core_idx = v - 1;
			return false;
		}
	}
}

static bool same_online(const struct turbo_collector *tc, const struct stat_raw *stat)
{
	if (tc->nonline != stat->ncpu)
		return false;
	for (size_t i = 0; i < stat->ncpu; i++)
		if (tc->online[i] != stat->cpus[i].cpu)
			return false;
	return true;
}

static int energy_kind(const struct plan *p)
{
	if (p->msr_e_pkg || p->msr_e_cores || p->msr_e_dram || p->amd_core_energy)
		return TE_MSR32;
	if (p->perf_energy[E_PKG] || p->perf_energy[E_CORES] || p->perf_energy[E_DRAM])
		return TE_PERF;
	return TE_POWERCAP;
}

int turbo_collect(struct turbo_collector **tcp, const struct root *r, const struct stat_raw *stat,
		  struct turbo_raw **rawp)
{
	struct turbo_collector *tc = *tcp;
	struct turbo_raw *raw = *rawp;

	if (!tc) {
		tc = calloc(1, sizeof(*tc));
		if (!tc)
			return -ENOMEM;
		if (msr_batch_init(&tc->batch) < 0) {
			free(tc);
			return -ENOMEM;
		}
		tc->live = r->path[0] == '\0';
		probe(tc, r, stat->ncpu ? stat->cpus[0].cpu : 0);
		*tcp = tc;
	}
	if (!raw) {
		raw = calloc(1, sizeof(*raw));
		if (!raw)
			return -ENOMEM;
		*rawp = raw;
	}
	raw->info = tc->info;
	raw->energy_kind = (enum turbo_energy_kind)energy_kind(&tc->plan);
	raw->ncpu = raw->npkg = 0;
	/* the batch keeps pointers into both arrays: size them before queueing */
	if (grow((void **)&raw->cpus, &raw->cpu_cap, stat->ncpu, sizeof(*raw->cpus)) < 0 ||
	    grow((void **)&raw->pkgs, &raw->pkg_cap, stat->ncpu, sizeof(*raw->pkgs)) < 0)
		return -ENOMEM;
	/* new CPUs (first sample, hotplug) get their fds; gone ones keep theirs */
	if (!same_online(tc, stat)) {
		if (grow((void **)&tc->online, &tc->online_cap, stat->ncpu, sizeof(int)) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < stat->ncpu; i++) {
			struct cpu_state *s = find_cpu(tc, stat->cpus[i].cpu);

			if (!s && add_cpu(tc, r, stat->cpus[i].cpu, &s) < 0)
				return -ENOMEM;
			tc->online[i] = stat->cpus[i].cpu;
		}
		tc->nonline = stat->ncpu;
	}
	{
		size_t want = 16;

		while (want < 2 * stat->ncpu)
			want *= 2;
		if (grow((void **)&tc->core_map, &tc->core_map_cap, want, sizeof(int)) < 0)
			return -ENOMEM;
		tc->core_map_cap = want; /* the probe mask needs a power of two */
		memset(tc->core_map, 0, want * sizeof(int));
	}
	raw->has_time = tc->live;
	raw->mono_ns = clock_mono_ns();
	for (size_t i = 0; i < stat->ncpu; i++) {
		struct cpu_state *s = find_cpu(tc, stat->cpus[i].cpu);
		struct turbo_cpu_raw *c;

		if (!s)
			continue; /* not reached: every online CPU was added above */
		c = &raw->cpus[raw->ncpu++];
		memset(c, 0, sizeof(*c));
		c->cpu = s->cpu;
		c->core_id = s->core_id;
		c->pkg_id = s->pkg_id;
		/* the lowest online CPU of a core (package) reads the core (package)
		 * counters; a hash of (package, core) keeps this linear on big hosts */
		c->first_in_core = core_first(tc, raw->cpus, raw->ncpu - 1);
		c->first_in_pkg = true;
		for (size_t k = 0; k < raw->npkg && c->first_in_pkg; k++)
			c->first_in_pkg = raw->pkgs[k].pkg_id != c->pkg_id;
		read_cpu(tc, s, c);
		if (c->first_in_pkg) {
			struct pkg_state *ps = find_pkg(tc, c->pkg_id);
			struct turbo_pkg_raw *k;

			if (!ps) {
				if (add_pkg(tc, r, c->pkg_id, c->cpu) < 0)
					return -ENOMEM;
				ps = find_pkg(tc, c->pkg_id);
			}
			k = &raw->pkgs[raw->npkg++];
			memset(k, 0, sizeof(*k));
			k->pkg_id = c->pkg_id;
			k->cpu = c->cpu;
			read_pkg(tc, ps, s, k);
		}
	}
	return finish_batch(tc);
}

void turbo_raw_free(struct turbo_raw *t)
{
	if (!t)
		return;
	free(t->cpus);
	free(t->pkgs);
	free(t);
}

int turbo_raw_copy(struct turbo_raw **dst, const struct turbo_raw *src)
{
	struct turbo_raw *d = *dst;
	struct turbo_cpu_raw *cpus;
	struct turbo_pkg_raw *pkgs;
	size_t ccap, pcap;

	if (!src) {
		turbo_raw_free(d);
		*dst = NULL;
		return 0;
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		*dst = d;
	}
	if (grow((void **)&d->cpus, &d->cpu_cap, src->ncpu, sizeof(*d->cpus)) < 0 ||
	    grow((void **)&d->pkgs, &d->pkg_cap, src->npkg, sizeof(*d->pkgs)) < 0)
		return -ENOMEM;
	cpus = d->cpus;
	pkgs = d->pkgs;
	ccap = d->cpu_cap;
	pcap = d->pkg_cap;
	*d = *src;
	d->cpus = cpus;
	d->pkgs = pkgs;
	d->cpu_cap = ccap;
	d->pkg_cap = pcap;
	if (src->ncpu)
		memcpy(d->cpus, src->cpus, src->ncpu * sizeof(*d->cpus));
	if (src->npkg)
		memcpy(d->pkgs, src->pkgs, src->npkg * sizeof(*d->pkgs));
	return 0;
}

/* ---- capture: the files and registers above, into a recorded tree ---- */

/* Copies one small file (sysfs values are a page at most). */
static int cap_copy(const struct root *src, int dfd, const char *rel, unsigned *files)
{
	char buf[4096];
	mode_t mode;
	ssize_t n;
	int in, e = 0;

	in = root_openat(src, rel, O_RDONLY);
	if (in < 0)
		return in;
	n = read(in, buf, sizeof(buf));
	e = n < 0 ? -errno : 0;
	mode = treewrite_copy_mode(in);
	close(in);
	if (e < 0)
		return e;
	e = treewrite_write_mode(dfd, rel, buf, (size_t)n, mode);
	if (!e)
		(*files)++;
	return e;
}

/* Registers a recording keeps: every one turbo reads on any vendor. */
static const uint32_t cap_regs[] = {
	MSR_IA32_TSC,
	MSR_SMI_COUNT,
	MSR_PLATFORM_INFO,
	MSR_IA32_MPERF,
	MSR_IA32_APERF,
	MSR_IA32_THERM_STATUS,
	MSR_IA32_TEMPERATURE_TARGET,
	MSR_IA32_PACKAGE_THERM_STATUS,
	MSR_PKG_C3_RESIDENCY,
	MSR_PKG_C6_RESIDENCY,
	MSR_PKG_C7_RESIDENCY,
	MSR_CORE_C3_RESIDENCY,
	MSR_CORE_C6_RESIDENCY,
	MSR_CORE_C7_RESIDENCY,
	MSR_PKG_C2_RESIDENCY,
	MSR_RAPL_POWER_UNIT,
	MSR_PKG_ENERGY_STATUS,
	MSR_PKG_PERF_STATUS,
	MSR_PKG_POWER_INFO,
	MSR_DRAM_ENERGY_STATUS,
	MSR_DRAM_PERF_STATUS,
	MSR_PP0_ENERGY_STATUS,
	MSR_AMD_RAPL_POWER_UNIT,
	MSR_AMD_CORE_ENERGY_STATUS,
	MSR_AMD_PKG_ENERGY_STATUS,
};

/* dev/cpu/N/msr -> a sparse file, each readable register at 8 x address. */
static void cap_msr(const struct root *src, int dfd, int cpu, unsigned *files)
{
	char rel[48];
	struct msr_dev d;
	bool any = false;
	int out;

	if (msr_open(src, cpu, &d) < 0)
		return;
	snprintf(rel, sizeof(rel), "dev/cpu/%d/msr", cpu);
	out = treewrite_create(dfd, rel, 0600);
	if (out < 0) {
		msr_close(&d);
		return;
	}
	for (size_t i = 0; i < sizeof(cap_regs) / sizeof(cap_regs[0]); i++) {
		uint64_t v;
		unsigned char le[8];

		/* unimplemented registers stay holes: they read back as zero */
		if (msr_read(&d, cap_regs[i], &v) < 0)
			continue;
		for (int b = 0; b < 8; b++)
			le[b] = (unsigned char)(v >> (8 * b));
		if (pwrite(out, le, 8, (off_t)msr_offset(true, cap_regs[i])) == 8)
			any = true;
	}
	close(out);
	msr_close(&d);
	if (any)
		(*files)++;
}

struct turbo_cap {
	const struct root *src;
	int dfd;
	unsigned files;
};

static int cap_hwmon(const char *dev, const char *driver, void *ctx)
{
	struct turbo_cap *c = ctx;
	char rel[160];

	snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/name", dev);
	cap_copy(c->src, c->dfd, rel, &c->files);
	for (int i = 1; i < 256; i++) {
		snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/temp%d_input", dev, i);
		if (cap_copy(c->src, c->dfd, rel, &c->files) < 0 && i > 2)
			break;
		snprintf(rel, sizeof(rel), "sys/class/hwmon/%.32s/temp%d_label", dev, i);
		cap_copy(c->src, c->dfd, rel, &c->files);
	}
	return 0;
}

static int cap_cpu(int dfd, const char *name, unsigned char type, void *ctx)
{
	static const char *const per_cpu[] = { "topology/core_id", "topology/physical_package_id",
					       "cpufreq/scaling_cur_freq" };
	struct turbo_cap *c = ctx;
	char rel[160], *end;
	long cpu;

	if (strncmp(name, "cpu", 3) != 0)
		return 0;
	cpu = strtol(name + 3, &end, 10);
	if (end == name + 3 || *end || cpu < 0 || cpu > 1 << 20)
		return 0;
	for (size_t i = 0; i < sizeof(per_cpu) / sizeof(per_cpu[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%ld/%s", cpu, per_cpu[i]);
		cap_copy(c->src, c->dfd, rel, &c->files);
	}
	for (unsigned k = 0; k < TURBO_IDLE_MAX; k++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%ld/cpuidle/state%u/name",
			 cpu, k);
		if (cap_copy(c->src, c->dfd, rel, &c->files) < 0)
			break;
		snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpu%ld/cpuidle/state%u/time",
			 cpu, k);
		cap_copy(c->src, c->dfd, rel, &c->files);
	}
	cap_msr(c->src, c->dfd, (int)cpu, &c->files);
	return 0;
}

int turbo_capture(const struct root *src, int dfd, unsigned *ret_files)
{
	static const char *const zone_files[] = { "name", "energy_uj", "max_energy_range_uj" };
	struct turbo_cap c = { src, dfd, 0 };
	char rel[160];

	cap_copy(src, dfd, "proc/cpuinfo", &c.files);
	root_for_each_entry(src, "sys/devices/system/cpu", cap_cpu, &c);
	for (int pkg = 0; pkg < 64; pkg++) {
		bool any = false;

		for (int sub = -1; sub < 8; sub++) {
			bool zone = false;

			for (size_t i = 0; i < sizeof(zone_files) / sizeof(zone_files[0]); i++) {
				if (sub < 0)
					snprintf(rel, sizeof(rel),
						 "sys/class/powercap/intel-rapl:%d/%s", pkg,
						 zone_files[i]);
				else
					snprintf(rel, sizeof(rel),
						 "sys/class/powercap/intel-rapl:%d:%d/%s", pkg, sub,
						 zone_files[i]);
				zone = cap_copy(src, dfd, rel, &c.files) == 0 || zone;
			}
			any = any || zone;
			if (!zone && sub >= 0)
				break;
		}
		if (!any)
			break;
	}
	hwmon_for_each(src, cap_hwmon, &c);
	*ret_files = c.files;
	return 0;
}
