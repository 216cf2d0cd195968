/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The JSON of the workload sources (collect/workload.h; doc/json.md
 * "processes", "cgroups", "nics", "pressure", "writeback"): their statuses
 * inside "sources" and their sections, appended by encode.c.
 */
#ifndef IOTRIAGE_ENCODE_WORKLOAD_H
#define IOTRIAGE_ENCODE_WORKLOAD_H

#include "metrics.h"
#include "strbuf.h"

/* Appends `"name":{"available":...},` for each source of s->workload (nothing
 * when the snapshot has none). */
void encode_workload_sources(struct strbuf *sb, const struct snapshot *s);

/* Appends `"processes":{...},"nics":[...],"pressure":{...},"writeback":{...},`
 * for the sources that are available; m may be NULL (no rates yet). */
void encode_workload_sections(struct strbuf *sb, const struct snapshot *cur,
			      const struct metrics *m);

struct thread_table;
struct workload_metrics;
/* The document of `iotriage threads PID --json` (doc/json.md). x may be NULL. */
void encode_workload_threads(struct strbuf *sb, const struct thread_table *cur,
			     const struct workload_metrics *x, uint64_t itv_ms);

#endif
