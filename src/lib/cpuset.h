/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fixed-size set of CPU numbers (cpuset.c): the kernel's cpulist and
 * cpumask forms, for affinities, RPS masks, isolated and online CPUs.
 */
#ifndef IOTRIAGE_CPUSET_H
#define IOTRIAGE_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX   1024 /* CPUs; NR_CPUS of distribution kernels is 8192 but few hosts pass 1024 */
#define CPUSET_WORDS (CPUSET_MAX / 64)

struct cpuset {
	uint64_t w[CPUSET_WORDS];
};

static inline void cpuset_set(struct cpuset *s, unsigned cpu)
{
	if (cpu < CPUSET_MAX)
		s->w[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static inline bool cpuset_has(const struct cpuset *s, unsigned cpu)
{
	return cpu < CPUSET_MAX && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned cpuset_count(const struct cpuset *s);
bool cpuset_empty(const struct cpuset *s);
bool cpuset_equal(const struct cpuset *a, const struct cpuset *b);
/* a ⊆ b */
bool cpuset_subset(const struct cpuset *a, const struct cpuset *b);
void cpuset_and(struct cpuset *dst, const struct cpuset *a, const struct cpuset *b);
void cpuset_andnot(struct cpuset *dst, const struct cpuset *a, const struct cpuset *b);
/* Lowest CPU >= from in s, or -1. */
int cpuset_next(const struct cpuset *s, unsigned from);

/* The index of cpu in ids[0..n) (a table's CPU numbers, in column order),
 * or -1. */
int cpu_ids_col(const int *ids, size_t n, int cpu);

/* "0-3,8" (cpulist, as smp_affinity_list, online, local_cpulist); "" is the
 * empty set. Returns 0 or -EINVAL (bad syntax, range reversed, CPU >= CPUSET_MAX). */
int cpuset_parse_list(const char *buf, size_t len, struct cpuset *ret);
/* "00000000,0000ff0f" (cpumask, as smp_affinity, affinity_hint, rps_cpus,
 * IRQBALANCE_BANNED_CPUS): 32-bit hex groups, most significant first. */
int cpuset_parse_mask(const char *buf, size_t len, struct cpuset *ret);
/* Kernel forms of s; "" for the empty list. Returns the length or -ENOSPC. */
int cpuset_format_list(const struct cpuset *s, char *buf, size_t size);
int cpuset_format_mask(const struct cpuset *s, char *buf, size_t size);

#endif
