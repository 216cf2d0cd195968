/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing stage (doc/trace.md): loads the BPF programs of trace.bpf.c
 * (libbpf CO-RE, the skeleton built at build time), attaches them, and reads
 * their per-CPU maps once a sample into a struct trace_raw. It keeps each
 * probe within a CPU budget measured from the programs' own run time, and
 * says why when tracing or a probe is unavailable. It never prints (libbpf's
 * messages are kept, not printed) and pins nothing: closing detaches all.
 */
#ifndef IOTRIAGE_TRACE_H
#define IOTRIAGE_TRACE_H

#include <stddef.h>

#include "trace_raw.h"

#define TRACE_BTF_DEFAULT "/sys/kernel/btf/vmlinux"
/* environment variable naming another kernel BTF (tests: one that is absent) */
#define TRACE_BTF_ENV "IOTRIAGE_TRACE_BTF"
/* default budget per probe: percent of one CPU (doc/trace.md) */
#define TRACE_BUDGET_DEFAULT_PCT 2.0

struct trace_opts {
	const char *btf_path; /* NULL: $IOTRIAGE_TRACE_BTF, else TRACE_BTF_DEFAULT */
	double budget_pct;    /* per probe, percent of one CPU; <= 0: none */
	/* the block probe times 1 in block_sample requests from the start (a
	 * power of two <= TRACE_SAMPLE_MAX; 0 or 1: every one); the budget
	 * changes it (trace_budget.h). Benchmarks and tests set it. */
	uint32_t block_sample;
};

struct trace;

/*
 * Loads and attaches every probe. Returns 0 with *ret_t, or -errno with a
 * one-line reason in why: no BTF, no CAP_BPF/CAP_PERFMON, kernel lockdown,
 * a verifier refusal, built without tracing (-EOPNOTSUPP). A probe that
 * loads but cannot attach is only marked off (trace_read says why).
 */
int trace_open(const struct trace_opts *o, struct trace **ret_t, char *why, size_t why_size);

/* Detaches and unloads everything; accepts NULL. */
void trace_close(struct trace *t);

/*
 * Reads every map of the probes that are on into r (its storage reused)
 * and the probes' states. A probe whose programs used more than the budget
 * of one CPU since the previous read is detached, with the reason. Returns
 * 0 or -errno (-ENOMEM; a map that cannot be read marks its probe off).
 */
int trace_read(struct trace *t, struct trace_raw *r);

#endif
