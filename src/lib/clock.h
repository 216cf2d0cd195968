/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The clocks, read in one place: a clock in nanoseconds, the monotonic
 * clock every loop, deadline and timeout measures with (ns and ms), this
 * thread's CPU time, and a monotonic deadline for pthread_cond_timedwait
 * on a condition variable set to CLOCK_MONOTONIC. metrics/ and advise/
 * never include it: they are functions of the samples they are given, and
 * test_layering fails where they read a clock.
 */
#ifndef IOTRIAGE_CLOCK_H
#define IOTRIAGE_CLOCK_H

#include <stdint.h>
#include <time.h>

#define CLOCK_NS_PER_S 1000000000LL

/* Clock id's time in ns; 0 where the clock cannot be read. */
static inline int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (int64_t)ts.tv_sec * CLOCK_NS_PER_S + ts.tv_nsec;
}

/* CLOCK_MONOTONIC in ns: the clock of loops, deadlines and timeouts. */
static inline int64_t clock_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CLOCK_MONOTONIC in whole ms. */
static inline int64_t clock_mono_ms(void)
{
	return clock_mono_ns() / 1000000;
}

/* This thread's CPU time in ns: a cost without what the thread waits for. */
static inline int64_t clock_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* CLOCK_MONOTONIC ms from now, as pthread_cond_timedwait takes it (the
 * condition variable's clock set to CLOCK_MONOTONIC). */
static inline struct timespec clock_mono_after(int64_t ms)
{
	int64_t at = clock_mono_ns() + ms * 1000000;

	return (struct timespec){ .tv_sec = at / CLOCK_NS_PER_S, .tv_nsec = at % CLOCK_NS_PER_S };
}

#endif
