/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside turbostat's counters: the collector's state (per-CPU and
 * per-package fds, the plan the probe made, the batched MSR reads) and the
 * helpers turbo.c (reading), turbo_probe.c (choosing the sources) and
 * turbo_capture.c share. Not for other files.
 */
#ifndef IOTRIAGE_TURBO_INT_H
#define IOTRIAGE_TURBO_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "msr.h"
#include "root.h"
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

/* turbo.c: a small decimal sysfs value under r (0 or -errno). */
int turbo_read_small_u64(const struct root *r, const char *rel, uint64_t *ret);
/* turbo.c: one perf event counting on cpu, read alone: its fd or -errno. */
long turbo_perf_open(int type, uint64_t config, int cpu);

/* turbo_probe.c: chooses every column's source at the first sample from
 * what cpu (the first online one) shows; fills tc->info and tc->plan. */
void turbo_probe(struct turbo_collector *tc, const struct root *r, int cpu);
/* turbo_probe.c: AMD's (or Hygon's) RAPL MSRs, not Intel's. */
bool turbo_is_amd_rapl(const struct turbo_info *in);
/* turbo_probe.c: powercap: intel-rapl:P is package P's zone, intel-rapl:P:N
 * its "core"/"dram" subzones; the energy file of energy kind e into rel. */
int turbo_powercap_zone(const struct root *r, int pkg, int e, char *rel, size_t size);
/* turbo_probe.c: calls fn for each coretemp (Intel) or k10temp (AMD) hwmon
 * device, with its directory's name ("hwmon3") and its driver's; stops as
 * the walk does. */
int turbo_hwmon_for_each(const struct root *r,
			 int (*fn)(const char *dev, const char *driver, void *ctx), void *ctx);
/* turbo_probe.c: the hwmon temperature input whose label is `label`
 * ("Package id 0", "Core 3"; NULL: k10temp's Tctl of the pkg-th k10temp
 * device), opened: its fd or -errno. */
int turbo_hwmon_open(const struct root *r, const char *label, int pkg, int k10_index);

#endif
