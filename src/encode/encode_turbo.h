/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * turbostat's section of the JSON document and its table (encode_turbo.c).
 */
#ifndef IOTRIAGE_ENCODE_TURBO_H
#define IOTRIAGE_ENCODE_TURBO_H

#include "metrics_turbo.h"
#include "strbuf.h"

/* Appends `"turbostat":{...},` (doc/json.md) when m is available. */
void encode_turbo(struct strbuf *sb, const struct turbo_metrics *m);
/* The "columns" object alone: each column's source and detail, or why it is
 * unavailable (the daemon's status request). m must be available. */
void encode_turbo_columns(struct strbuf *sb, const struct turbo_metrics *m);
/* Appends the probe's source entries to an open "sources" object: `"msr":{...},` ... */
void encode_turbo_sources(struct strbuf *sb, const struct turbo_raw *raw);

/* The turbostat table as turbostat prints it (tab-separated, its precision),
 * then encode_turbo_unavailable's lines. */
void encode_turbo_table(struct strbuf *sb, const struct turbo_metrics *m);

/* One line per cause of unavailable columns, naming the columns it stops
 * ("unavailable (/dev/cpu/0/msr: ...): Avg_MHz Busy% ..."; a reason of
 * several "; "-separated causes counts under each), then "COL: note" for a
 * column shown with a caveat. */
void encode_turbo_unavailable(struct strbuf *sb, const struct turbo_metrics *m);

#endif
