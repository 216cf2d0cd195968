// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `iotriage capture`'s part for turbostat's counters: the sysfs files and
 * the MSRs that turbo.c and turbo_probe.c read, copied into a recorded tree
 * (an MSR as a file of 8-byte registers at their offsets). Reads under the
 * source root, writes only under the tree's fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msr.h"
#include "treewrite.h"
#include "turbo.h"
#include "turbo_int.h"

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

		/* a register the host lacks (EIO) is left a hole, and a hole
		 * reads back as zero, not as absent: a column live says is
		 * unavailable replays as 0 (doc/turbostat.md, "Deliberate
		 * differences"; make-trees.py writes every register instead) */
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
	turbo_hwmon_for_each(src, cap_hwmon, &c);
	*ret_files = c.files;
	return 0;
}
