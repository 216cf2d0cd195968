/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pressure stall information: /proc/pressure/{io,cpu,irq}
 * (Documentation/accounting/psi.rst). Collect and parse only; the stall
 * share of an interval is computed in metrics_proc.c from the totals.
 */
#ifndef IOTRIAGE_PRESSURE_H
#define IOTRIAGE_PRESSURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "procfile.h"
#include "root.h"

enum psi_res { PSI_IO, PSI_CPU, PSI_IRQ, PSI__COUNT };

/* One line: "some" or "full". */
struct psi_line {
	bool present;
	double avg10, avg60, avg300; /* percent, as the kernel prints them */
	uint64_t total_us;	     /* cumulative stall time */
};

struct psi_raw {
	struct psi_line some, full;
	struct src_status status; /* err != 0: file absent or PSI disabled */
};

struct pressure_raw {
	struct psi_raw res[PSI__COUNT];
};

/* "io", "cpu", "irq" */
const char *pressure_name(enum psi_res r);

/*
 * Parses one /proc/pressure file. "some" and/or "full" lines (irq has only
 * "full", cpu's "full" appeared in 5.13); unknown keys are skipped. 0 or
 * -EBADMSG (no line, malformed number, missing total=).
 */
int pressure_parse(const char *buf, size_t len, struct psi_raw *ret);

/* Reads the three files under r into p (statuses included) through pf[]
 * (procfile_init()ed to NULL paths: this sets them), whose descriptors stay
 * open from one sample to the next. */
void pressure_collect_pf(const struct root *r, struct procfile pf[PSI__COUNT],
			 struct pressure_raw *p);

#endif
