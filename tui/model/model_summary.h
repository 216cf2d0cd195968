/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the live view says before anything is pressed: the worst finding in
 * words for the line under the header, the hot core's busiest interrupt
 * line, and which CPU order the panel uses. Reads the decoded model only:
 * no I/O, no rates computed (a share of two of the document's rates at most).
 */
#ifndef IOTRIAGE_TUI_MODEL_SUMMARY_H
#define IOTRIAGE_TUI_MODEL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

struct model;

/* How grave the line is, in rising order (the view colours by it). */
enum model_summary_level {
	MODEL_SUM_WAIT,	   /* no sample or no rates yet */
	MODEL_SUM_UNKNOWN, /* the sample carries no advice: not "healthy" */
	MODEL_SUM_OK,	   /* advice present, no finding */
	MODEL_SUM_INFO,
	MODEL_SUM_WARNING,
	MODEL_SUM_CRITICAL,
};

struct model_summary {
	enum model_summary_level level;
	char word[8];	/* "CRIT", "WARN", "INFO", "OK", "" */
	char text[256]; /* "cpu200 irq+soft 48%: IRQ 24 nvme0q0 98%" */
	bool details;	/* the findings panel (f) has more to say */
};

/*
 * The line under the header for m: the gravest finding (the first of the
 * gravest, as the advisor orders them) in words; a hot_cpu finding is said
 * from the tables ("cpu200 irq+soft 48%: IRQ 24 nvme0q0 98%": its %irq +
 * %soft, then the interrupt line delivering most of its interrupts and that
 * line's share of them). Without advice, the model's hot core the same way.
 */
void model_summary_get(const struct model *m, struct model_summary *ret);

/* The index in m->cpus of the core marked hot, -1 when none is. */
long model_hot_cpu(const struct model *m);

/*
 * The interrupt line that delivered most interrupts to cpu in the interval:
 * its index in m->irqs and its rate there (per second). Named lines (LOC,
 * RES) count too: a timer storm is an answer. Returns 0, or -ENOENT when no
 * line fired on cpu.
 */
int model_top_irq_on_cpu(const struct model *m, int cpu, size_t *ret_idx, double *ret_rate_s);

#endif
