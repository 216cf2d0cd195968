/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * turbo: turbostat's CPU frequency, C-state, power and temperature columns.
 * Collect side (turbo.c): chooses a source per column once (MSR, then the
 * perf msr/power PMUs, then sysfs), keeps the fds, and reads raw counters
 * into a struct turbo_raw per snapshot. Metric side (metrics_turbo.c): pure
 * turbostat arithmetic over two raw readings and an interval, plus the JSON
 * and table forms. Formulas: tools/power/x86/turbostat/turbostat.c, see
 * doc/turbostat.md.
 */
#ifndef IOTRIAGE_TURBO_H
#define IOTRIAGE_TURBO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "root.h"
#include "strbuf.h"

/* Columns, in turbostat's print order. */
enum turbo_col {
	TC_AVG_MHZ,
	TC_BUSY,
	TC_BZY_MHZ,
	TC_TSC_MHZ,
	TC_IRQ,
	TC_SMI,
	TC_C1,
	TC_C3,
	TC_C6,
	TC_C7,
	TC_CORETMP,
	TC_PKGTMP,
	TC_PC2,
	TC_PC3,
	TC_PC6,
	TC_PC7,
	TC_PKGWATT,
	TC_CORWATT,
	TC_RAMWATT,
	TC_PKG_PCT,
	TC_RAM_PCT,
	TC__COUNT
};

/* Where a column comes from; chosen once per collector. */
enum turbo_via {
	TV_NONE, /* unavailable: see reason */
	TV_MSR,
	TV_PERF,
	TV_SYSFS,
	TV_PROC,
};

struct turbo_source {
	enum turbo_via via;
	char detail[96];	     /* "MSR 0xE8 APERF", "perf msr/aperf/" ... */
	char reason[IOT_REASON_MAX]; /* why unavailable, or a caveat of the chosen source */
};

/* Source families, each with a status: msr, perf, cpufreq, cpuidle, powercap, hwmon. */
enum turbo_family {
	TF_MSR,
	TF_PERF,
	TF_CPUFREQ,
	TF_CPUIDLE,
	TF_POWERCAP,
	TF_HWMON,
	TURBO_NSOURCES
};

#define TURBO_IDLE_MAX 8 /* cpuidle states kept per CPU (C1, C1E, C3, C6, C7s ...) */

/* Platform facts read once at probe time and carried in every reading. */
struct turbo_info {
	char vendor[16]; /* "GenuineIntel", "AuthenticAMD", "" unknown */
	unsigned family, model;
	bool intel_server;    /* fixed 15.3 uJ DRAM unit, no PP0, pc2/pc3/pc6 only */
	double base_mhz;      /* MSR_PLATFORM_INFO ratio x 100 MHz; 0 unknown */
	double energy_unit_j; /* RAPL energy status unit */
	double dram_energy_unit_j;
	double time_unit_s; /* RAPL perf status unit */
	double tdp_w;	    /* for the counter range: MSR_PKG_POWER_INFO or turbostat's default */
	int tj_max_c;	    /* MSR_IA32_TEMPERATURE_TARGET, 0 unknown */
	double perf_energy_scale_j[3]; /* power PMU .scale of pkg, cores, ram */
	uint64_t powercap_range_uj[3]; /* powercap max_energy_range_uj of pkg, core, dram */
	struct src_status sources[TURBO_NSOURCES]; /* err 0: usable */
	unsigned nidle; /* cpuidle states (sysfs fallback for C-states) */
	char idle_names[TURBO_IDLE_MAX][16];
	struct turbo_source src[TC__COUNT];
};

/* turbo_cpu_raw.have / turbo_pkg_raw.have bits: which fields were read. */
enum {
	TR_TSC = 1u << 0,
	TR_APERF = 1u << 1,
	TR_MPERF = 1u << 2,
	TR_SMI = 1u << 3,
	TR_C3 = 1u << 4,
	TR_C6 = 1u << 5,
	TR_C7 = 1u << 6,
	TR_CORETMP = 1u << 7,
	TR_CORE_ENERGY = 1u << 8,
	TR_CUR_KHZ = 1u << 9,
	TR_IDLE = 1u << 10,
};

enum {
	TP_PC2 = 1u << 0,
	TP_PC3 = 1u << 1,
	TP_PC6 = 1u << 2,
	TP_PC7 = 1u << 3,
	TP_PKGTMP = 1u << 4,
	TP_E_PKG = 1u << 5,
	TP_E_CORES = 1u << 6,
	TP_E_DRAM = 1u << 7,
	TP_PKG_PERF = 1u << 8,
	TP_DRAM_PERF = 1u << 9,
};

/* Energy counter flavours: 32-bit RAPL MSR, 64-bit perf count, powercap uJ. */
enum turbo_energy_kind {
	TE_MSR32,
	TE_PERF,
	TE_POWERCAP,
};

struct turbo_cpu_raw {
	int cpu;
	int core_id, pkg_id;
	bool first_in_core; /* lowest CPU number of its core: core counters live here */
	bool first_in_pkg;  /* lowest CPU number of its package */
	int32_t core_idx;   /* index in turbo_raw.cpus of its core's first CPU */
	int err;	    /* this CPU's reading failed: -errno, reason says which */
	char reason[160];
	uint32_t have;
	uint64_t tsc, aperf, mperf, smi;
	uint64_t c3, c6, c7;  /* core residency, TSC ticks (first_in_core only) */
	uint64_t core_energy; /* AMD per-core RAPL (first_in_core only) */
	int32_t core_temp_mc; /* millidegrees C */
	uint32_t cur_khz;     /* cpufreq scaling_cur_freq */
	uint64_t idle_us[TURBO_IDLE_MAX];
};

struct turbo_pkg_raw {
	int pkg_id;
	int cpu; /* the CPU that read it */
	int err;
	char reason[160];
	uint32_t have;
	uint64_t pc2, pc3, pc6, pc7;
	uint64_t e_pkg, e_cores, e_dram; /* raw counts in the unit of their kind */
	uint64_t pkg_perf, dram_perf;
	int32_t pkg_temp_mc;
};

/* One reading of every CPU and package: what the snapshot carries. */
struct turbo_raw {
	bool has_time;	 /* mono_ns is meaningful (live); false in a recorded tree */
	int64_t mono_ns; /* CLOCK_MONOTONIC when the counters were read */
	enum turbo_energy_kind energy_kind;
	struct turbo_info info;
	struct turbo_cpu_raw *cpus; /* sorted by cpu */
	size_t ncpu, cpu_cap;
	struct turbo_pkg_raw *pkgs; /* sorted by pkg_id */
	size_t npkg, pkg_cap;
};

/* Collector state (fds, chosen sources); opaque. */
struct turbo_collector;

/*
 * Reads one turbo_raw for the online CPUs listed in stat (the /proc/stat of
 * the same snapshot). On the first call probes the sources and allocates
 * *tc and *raw; later calls reuse both. Never fails a sample: unavailable
 * columns are described in (*raw)->info.src. Returns 0 or -ENOMEM.
 */
int turbo_collect(struct turbo_collector **tc, const struct root *r, const struct stat_raw *stat,
		  struct turbo_raw **raw);
void turbo_collector_free(struct turbo_collector *tc);

/* Source-level status for the JSON "sources" object. i < TURBO_NSOURCES: "msr", "perf", "cpufreq", "cpuidle", "powercap", "hwmon". */
const char *turbo_source_name(unsigned i);

void turbo_raw_free(struct turbo_raw *t);
/* Deep copy; *dst allocated when NULL (storage reused otherwise); src NULL frees dst. */
int turbo_raw_copy(struct turbo_raw **dst, const struct turbo_raw *src);

/*
 * Records what turbo_collect reads into the tree open at dfd (iotriage
 * capture): proc/cpuinfo, per-CPU topology, cpufreq and cpuidle files,
 * powercap zones, coretemp/k10temp hwmon, and each readable dev/cpu/N/msr as
 * a sparse file of its registers at 8 x address. Everything is optional; perf
 * counts cannot be recorded. Returns 0; *ret_files counts the files written.
 */
int turbo_capture(const struct root *src, int dfd, unsigned *ret_files);

/* /proc/cpuinfo: vendor_id, cpu family and model of the first processor. */
int turbo_cpuinfo_parse(const char *buf, size_t len, struct turbo_info *ret);

#endif
