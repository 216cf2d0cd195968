/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Human output of processes, NICs, pressure and writeback (snapshot/compute). */
#ifndef IOTRIAGE_REPORT_WORKLOAD_H
#define IOTRIAGE_REPORT_WORKLOAD_H

#include <stdio.h>

#include "metrics.h"

/* Prints the sections that have data; nothing when cur has none. */
void report_workload_print(FILE *f, const struct snapshot *cur, const struct metrics *m);

#endif
