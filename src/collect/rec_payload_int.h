/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the payload records: the fields of a text line written and read
 * (numbers, exact doubles, PSI averages, text, statuses, CPU sets), a
 * record opened and closed, and each family's codec, shared by
 * rec_payload.c (framing, sections) and rec_payload_{turbo,workload,
 * topology}.c. Not for other files.
 */
#ifndef IOTRIAGE_REC_PAYLOAD_INT_H
#define IOTRIAGE_REC_PAYLOAD_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cpuset.h"
#include "grow.h"
#include "rec_payload.h"
#include "rec_text.h"
#include "strbuf.h"
#include "turbo.h"
#include "workload.h"

/* ---- writing ---- */

static inline void w_u(struct strbuf *o, uint64_t v)
{
	sb_u64(o, v);
	sb_putc(o, '\t');
}

static inline void w_i(struct strbuf *o, int64_t v)
{
	sb_i64(o, v);
	sb_putc(o, '\t');
}

/* A double exactly: its bits (turbo's units: set once, never diffed). */
static inline void w_d(struct strbuf *o, double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	w_u(o, b);
}

/* A PSI average: centi-percent when that reads back exactly as pressure.c
 * parses the kernel's "%lu.%02lu" (always, for the kernel's text), else
 * 'x' and the bits. */
static inline void w_pct(struct strbuf *o, double v)
{
	if (v >= 0 && v < 1e9) {
		uint64_t c = (uint64_t)(v * 100.0 + 0.5);

		if ((double)(c / 100) + (double)(c % 100) / 100.0 == v) {
			w_u(o, c);
			return;
		}
	}
	sb_putc(o, 'x');
	w_d(o, v);
}

/* Text with tab, newline, other control bytes and '\' as \xHH. */
static inline void w_s(struct strbuf *o, const char *s)
{
	rec_text_put_s(o, s);
	sb_putc(o, '\t');
}

static inline void w_st(struct strbuf *o, const struct src_status *st)
{
	w_i(o, st->err);
	w_s(o, st->reason);
}

static inline void w_set(struct strbuf *o, const struct cpuset *c)
{
	size_t n = CPUSET_WORDS;

	while (n && !c->w[n - 1])
		n--;
	w_u(o, n);
	for (size_t i = 0; i < n; i++)
		w_u(o, c->w[i]);
}

/* Ends a line. keep > 0: the fields from that offset on are numbers, and
 * the trailing zeros among them go (they read back as 0). */
static inline void w_end(struct strbuf *o, size_t keep)
{
	if (o->err)
		return;
	while (keep && o->len >= keep + 2 && o->buf[o->len - 1] == '\t' &&
	       o->buf[o->len - 2] == '0' && (o->len - 2 == keep || o->buf[o->len - 3] == '\t'))
		o->len -= 2;
	if (o->len && o->buf[o->len - 1] == '\t')
		o->buf[o->len - 1] = '\n';
	else
		sb_putc(o, '\n');
}

/*
 * A record whose body is written after its header: returns where it
 * starts. The body begins with an empty line: the header's length changes
 * whenever a number gains a digit, and the frame codec compares lines, so
 * the header is a line of its own rather than part of the first row.
 */
static inline size_t rec_open(struct strbuf *o, uint16_t tag)
{
	size_t at = rec_payload_begin(o, tag);

	sb_putc(o, '\n');
	return at;
}

/* ---- reading ---- */

/* A new row, zeroed, at the end of an array of at most max (*n rows of
 * *cap): NULL when out of memory, or when the record holds more than max
 * (then r->bad). */
static inline void *rec_row(struct rec_text *r, void **arr, size_t *n, size_t *cap, size_t size,
			    size_t max)
{
	void *row;

	if (*n >= max) {
		r->bad = true;
		return NULL;
	}
	if (grow(arr, cap, *n + 1, size) < 0)
		return NULL;
	row = (char *)*arr + *n * size;
	memset(row, 0, size);
	(*n)++;
	return row;
}
static inline int64_t r_i(struct rec_text *r)
{
	const char *s;
	size_t n;
	uint64_t v = 0;
	bool neg;

	if (r->f && r->f < r->lend && *r->f == '-') {
		r->f++;
		neg = true;
	} else {
		neg = false;
	}
	n = rec_text_field(r, &s);
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (uint64_t)INT64_MAX / 10) {
			r->bad = true;
			return 0;
		}
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX) {
		r->bad = true;
		return 0;
	}
	return neg ? -(int64_t)v : (int64_t)v;
}

/* Integers of a narrower type: out of its range is a malformed record. */
static inline int r_int(struct rec_text *r)
{
	int64_t v = r_i(r);

	if (v < INT32_MIN || v > INT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (int)v;
}

static inline uint32_t r_u32(struct rec_text *r)
{
	uint64_t v = rec_text_u(r);

	if (v > UINT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (uint32_t)v;
}

static inline bool r_b(struct rec_text *r)
{
	return rec_text_u(r) != 0;
}

static inline double r_d(struct rec_text *r)
{
	uint64_t b = rec_text_u(r);
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

static inline double r_pct(struct rec_text *r)
{
	uint64_t c;

	if (r->f && r->f < r->lend && *r->f == 'x') {
		r->f++;
		return r_d(r);
	}
	c = rec_text_u(r);
	return (double)(c / 100) + (double)(c % 100) / 100.0;
}

/* A text written after numbers ('=' first): r_s without the '='. */
static inline void r_text(struct rec_text *r, char *dst, size_t size)
{
	if (r->f && r->f < r->lend && *r->f == '=')
		r->f++;
	else
		r->bad = r->bad || (r->f && r->f < r->lend);
	rec_text_s(r, dst, size);
}

static inline void r_st(struct rec_text *r, struct src_status *st)
{
	st->err = r_int(r);
	if (st->err > 0)
		st->err = -st->err;
	rec_text_s(r, st->reason, sizeof(st->reason));
}

static inline void r_set(struct rec_text *r, struct cpuset *c)
{
	uint64_t n = rec_text_u(r);

	memset(c, 0, sizeof(*c));
	if (n > CPUSET_WORDS) {
		r->bad = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		c->w[i] = rec_text_u(r);
}

/* ---- the families' codecs: pack appends a record, unpack reads one (0 or -EBADMSG, -ENOMEM) ---- */

void rec_payload_turbo_pack(const struct turbo_raw *t, struct strbuf *o);
int rec_payload_turbo_unpack(struct rec_text *r, struct turbo_raw **pt);
void rec_payload_procs_pack(const struct proc_table *t, struct strbuf *o);
int rec_payload_procs_unpack(struct rec_text *r, struct proc_table *t);
void rec_payload_pressure_pack(const struct pressure_raw *p, struct strbuf *o);
int rec_payload_pressure_unpack(struct rec_text *r, struct pressure_raw *p);
void rec_payload_writeback_pack(const struct writeback_raw *w, struct strbuf *o);
int rec_payload_writeback_unpack(struct rec_text *r, struct writeback_raw *w);
void rec_payload_cgroups_pack(const struct cgroup_table *t, struct strbuf *o);
int rec_payload_cgroups_unpack(struct rec_text *r, struct cgroup_table *t);
void rec_payload_nics_pack(const struct nic_table *t, struct strbuf *o);
int rec_payload_nics_unpack(struct rec_text *r, struct nic_table *t);
void rec_payload_blkmq_pack(const struct blkmq_table *t, struct strbuf *o);
int rec_payload_blkmq_unpack(struct rec_text *r, struct blkmq_table *t);
void rec_payload_numa_pack(const struct numa_table *t, struct strbuf *o);
int rec_payload_numa_unpack(struct rec_text *r, struct numa_table *t);

#endif
