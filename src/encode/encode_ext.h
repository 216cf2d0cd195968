/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The JSON of the issue-8 sources (doc/json.md, "processes", "nics",
 * "pressure", "writeback"): their statuses inside "sources" and their
 * sections, appended by encode.c.
 */
#ifndef IOTRIAGE_ENCODE_EXT_H
#define IOTRIAGE_ENCODE_EXT_H

#include "metrics.h"
#include "strbuf.h"

/* Appends `"name":{"available":...},` for each source of s->ext (nothing
 * when the snapshot has none). */
void encode_ext_sources(struct strbuf *sb, const struct snapshot *s);

/* Appends `"processes":{...},"nics":[...],"pressure":{...},"writeback":{...},`
 * for the sources that are available; m may be NULL (no rates yet). */
void encode_ext_sections(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m);

struct thread_table;
struct ext_metrics;
/* The document of `iotriage threads PID --json` (doc/json.md). x may be NULL. */
void encode_ext_threads(struct strbuf *sb, const struct thread_table *cur,
			const struct ext_metrics *x, uint64_t itv_ms);

#endif
