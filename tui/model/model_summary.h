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

#include "model_findings.h"

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
	size_t more;	/* findings standing besides the headline's */
	/* the suggestion answering the headline's finding, "" none */
	char fix[MODEL_ADV_ID_MAX];
	/* the headline's culprit in a few words, "" unknown: "fio pid 812 871 MB/s" */
	char who[96];
	/* who suffers, "" unknown: "postgresql@15-main.service io 61%" */
	char victim[96];
};

/*
 * The line under the header for m: the advisor's first finding (it ranks
 * them by harm: findings[0] is the headline, never re-ranked here) in
 * words; a hot_cpu finding is said from the tables ("cpu200 irq+soft 48%:
 * IRQ 24 nvme0q0 98%": its %irq + %soft, then the interrupt line
 * delivering most of its interrupts and that line's share of them), any
 * other by its reason. Without advice, the model's hot core the same way.
 */
void model_summary_get(const struct model *m, struct model_summary *ret);

/*
 * s as one line of at most width columns (buf of size bytes): " WORD "
 * then the text, who causes it ("fio pid 812 871 MB/s"), who suffers
 * ("→ postgresql@15-main.service io 61%"), the fix's key ("a apply the
 * fix" when apply is possible, else "f the fix"; "f why no fix" when the
 * finding has none), how many more findings stand ("+2 more: f"). Fields
 * drop whole, by priority: the text's clauses after its first number go
 * first (the text is cut only at ", ", "; ", ": " or " (" after the
 * number that proves it), then the count, then the key's words ("a fix"),
 * the victim's unit suffix (".service"), the key, the victim, then who;
 * never a word cut in two. Returns the columns used.
 */
int model_summary_line(const struct model_summary *s, bool utf8, bool can_apply, int width,
		       char *buf, size_t size);

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
