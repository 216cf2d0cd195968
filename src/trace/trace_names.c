// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage's names: its probes, the softirq vectors as
 * /proc/softirqs prints them, the block ops. Built with or without BPF.
 */
#include "trace_raw.h"

const char *trace_probe_name(enum trace_probe p)
{
	static const char *const names[TRACE__COUNT] = { "hardirq", "softirq", "block" };

	return (unsigned)p < TRACE__COUNT ? names[p] : "?";
}

const char *trace_softirq_name(unsigned vec)
{
	/* include/linux/interrupt.h softirq_to_name, as /proc/softirqs prints */
	static const char *const names[TRACE_NR_SOFTIRQS] = {
		"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
		"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
	};

	return vec < TRACE_NR_SOFTIRQS ? names[vec] : "?";
}

const char *trace_op_name(unsigned op)
{
	static const char *const names[TRACE_OP__COUNT] = { "read", "write", "flush", "discard" };

	return op < TRACE_OP__COUNT ? names[op] : "?";
}
