// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Collecting turbostat's counters. At the first sample turbo_probe.c gives
 * every column a source (MSR, perf msr/power PMU, sysfs); here the fds are
 * opened from its plan and stay open, so later samples are preads only (the
 * MSRs of a sample in one batch). No arithmetic here beyond decoding
 * register fields: rates, percentages and watts are in metrics_turbo.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "grow.h"
#include "msr.h"
#include "procfile.h"
#include "rowfind.h"
#include "scan.h"
#include "turbo.h"
#include "turbo_int.h"

static const char *const family_names[TURBO_NSOURCES] = {
	[TF_MSR] = "msr",	  [TF_PERF] = "perf",	      [TF_CPUFREQ] = "cpufreq",
	[TF_CPUIDLE] = "cpuidle", [TF_POWERCAP] = "powercap", [TF_HWMON] = "hwmon",
};

const char *turbo_source_name(unsigned i)
{
	return i < TURBO_NSOURCES ? family_names[i] : "?";
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

int turbo_read_small_u64(const struct root *r, const char *rel, uint64_t *ret)
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
	if (turbo_read_small_u64(r, rel, &v) < 0 || v > 1u << 20)
		return fallback;
	return (int)v;
}

static struct cpu_state *find_cpu(struct turbo_collector *tc, int cpu)
{
	return rowfind_i32(tc->cpus, tc->ncpu, sizeof(*tc->cpus), offsetof(struct cpu_state, cpu),
			   cpu);
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

long turbo_perf_open(int type, uint64_t config, int cpu)
{
	return perf_open_group(type, config, cpu, -1, 0);
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
			fd = turbo_perf_open(tc->perf_msr_type, tc->perf_msr_cfg[i], cpu);
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
		s->temp_fd = turbo_hwmon_open(r, label, s->pkg_id, 0);
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
			long fd = turbo_perf_open(tc->perf_power_type, tc->perf_power_cfg[e], cpu);

			s->perf_fd[e] = fd < 0 ? -1 : (int)fd;
		}
		if (p->powercap[e] && turbo_powercap_zone(r, pkg, e, rel, sizeof(rel)) == 0) {
			strncat(rel, "/energy_uj", sizeof(rel) - strlen(rel) - 1);
			s->powercap_fd[e] = root_openat(r, rel, O_RDONLY);
		}
	}
	if (p->hwmon_pkg) {
		char label[32];

		snprintf(label, sizeof(label), "Package id %d", pkg);
		s->temp_fd = turbo_hwmon_open(r, turbo_is_amd_rapl(&tc->info) ? NULL : label, pkg,
					      (int)tc->npkg - 1);
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
			    turbo_is_amd_rapl(&tc->info) ? MSR_AMD_PKG_ENERGY_STATUS
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
		turbo_probe(tc, r, stat->ncpu ? stat->cpus[0].cpu : 0);
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
