/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rec_text: the line format of the flight recorder's text records
 * (doc/recording.md, "Payload"): lines of tab-separated fields, numbers in
 * decimal, text with tab, newline, other control bytes and '\' as \xHH. A
 * missing trailing field reads as 0 or "". The reader trusts nothing: a
 * malformed field sets bad and reads as 0. Shared by the sections
 * (collect/rec_payload.c) and the trace record (trace/rec_trace.c).
 */
#ifndef IOTRIAGE_REC_TEXT_H
#define IOTRIAGE_REC_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Appends s escaped (no separator). */
void rec_text_put_s(struct strbuf *o, const char *s);

struct rec_text {
	const char *p, *end;  /* the record's lines left */
	const char *f, *lend; /* the current line's fields left; f NULL: none left */
	bool bad;
	size_t total; /* the caller's: rows of a sub-table bounded across the record */
};

void rec_text_init(struct rec_text *r, const char *p, size_t len);
/* The next line that is not empty: false at the end. */
bool rec_text_line(struct rec_text *r);
/* The next field (not NUL-terminated) and its length; an absent one is empty. */
size_t rec_text_field(struct rec_text *r, const char **ret);
/* The next field as a decimal uint64 (empty: 0). */
uint64_t rec_text_u(struct rec_text *r);
/* The next field unescaped into dst (cut to size - 1 bytes, NUL-terminated; size > 0). */
void rec_text_s(struct rec_text *r, char *dst, size_t size);
/* The first field of a line: its kind ('?' unless one byte). */
char rec_text_kind(struct rec_text *r);

#endif
