/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rec_trace: one read of the tracing stage's maps (struct trace_raw) as the
 * flight recorder's trace record (doc/recording.md, "Payload", tag 17):
 * tab-separated text lines of the raw cumulative counters, never rates, so
 * replay computes the "trace" section with the same metrics and encoder as
 * live. Pure: no I/O; a recorded record is hostile input, every count is
 * bounded and every index checked. Never prints.
 */
#ifndef IOTRIAGE_REC_TRACE_H
#define IOTRIAGE_REC_TRACE_H

#include <stddef.h>

#include "strbuf.h"
#include "trace_raw.h"

/* Bounds on what a record may make us allocate: possible CPUs (the trees'
 * bound, doc/trees.md), and the IRQ table's cells (lines x CPUs: 4096 lines,
 * the map's size, on a 1024-CPU host), 64 MiB of counters at most. */
#define REC_TRACE_CPUS_MAX  8192
#define REC_TRACE_CELLS_MAX ((size_t)1 << 22)
/* (disk, op, stage) and (cgroup, disk, stage) lines: each table's largest
 * size (its slots) times its two stages */
#define REC_TRACE_LAT_MAX ((size_t)TRACE_MAX_LAT * TRACE_LAT__COUNT)
#define REC_TRACE_CG_MAX  ((size_t)TRACE_MAX_CG * TRACE_LAT__COUNT)

/* Appends r's record body (starting with an empty line) to out. Returns
 * out->err. */
int rec_trace_pack(const struct trace_raw *r, struct strbuf *out);

/*
 * Reads a record body into *r, its arrays reused (realloc'd; release with
 * trace_raw_free). Returns 0, -ENOMEM, or -EBADMSG (malformed or past a
 * bound: *r is then invalid). r->valid is the recorded read's.
 */
int rec_trace_unpack(const char *p, size_t len, struct trace_raw *r);

#endif
