// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/stat -> struct stat_raw: the cpu lines (USER_HZ ticks), the totals
 * of the intr and softirq lines, context switches and run-queue counts.
 */
#include <errno.h>
#include <string.h>

#include "grow.h"
#include "stat.h"
#include "scan.h"
#include "rowfind.h"

static int parse_cpu_line(struct cursor *c, struct cpu_raw *cr, struct parse_error *err)
{
	size_t n = 0;
	uint64_t v;

	memset(cr->v, 0, sizeof(cr->v));
	while (!scan_at_eol(c)) {
		int r = scan_u64(c, &v);

		if (r < 0)
			return parse_fail(err, c->line,
					  r == -ERANGE ? "cpu counter out of range"
						       : "cpu counter is not a number");
		if (n < CF__COUNT)
			cr->v[n] = v;
		n++;
	}
	/* user nice system idle have been there since 2.4 */
	if (n < 4)
		return parse_fail(err, c->line, "cpu line has fewer than 4 fields");
	cr->ncounters = (uint8_t)(n < CF__COUNT ? n : CF__COUNT);
	return 0;
}

static bool word_is(const char *tok, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(tok, word, len) == 0;
}

int stat_parse(const char *buf, size_t len, struct stat_raw *t, struct parse_error *err)
{
	struct cursor c;
	bool seen_all = false;
	int r;

	t->ncpu = 0;
	t->has_intr = t->has_softirq = false;
	t->intr_total = t->softirq_total = t->ctxt = 0;
	t->procs_running = t->procs_blocked = 0;
	memset(&t->all, 0, sizeof(t->all));
	r = parse_check_complete(buf, len, err);
	if (r < 0)
		return r;
	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		const char *tok;
		size_t tlen = scan_token(&c, &tok);

		if (tlen == 0) {
			scan_next_line(&c);
			continue;
		}
		if (tlen >= 3 && memcmp(tok, "cpu", 3) == 0) {
			if (tlen == 3) {
				t->all.cpu = IOT_CPU_ALL;
				r = parse_cpu_line(&c, &t->all, err);
				seen_all = true;
			} else {
				struct cursor idc;
				uint64_t id;
				struct cpu_raw *cr;

				cursor_init(&idc, tok + 3, tlen - 3);
				if (scan_u64(&idc, &id) < 0 || !cursor_eof(&idc))
					return parse_fail(err, c.line, "bad cpu number");
				if (id >= IOT_CPUS_MAX)
					return parse_fail(
					    err, c.line,
					    "cpu number past 8191 (NR_CPUS's largest)");
				if (t->ncpu && (int)id <= t->cpus[t->ncpu - 1].cpu)
					return parse_fail(err, c.line, "cpu lines out of order");
				r = grow((void **)&t->cpus, &t->cap, t->ncpu + 1, sizeof(*t->cpus));
				if (r < 0)
					return r;
				cr = &t->cpus[t->ncpu];
				cr->cpu = (int)id;
				r = parse_cpu_line(&c, cr, err);
				if (r == 0)
					t->ncpu++;
			}
			if (r < 0)
				return r;
		} else if (word_is(tok, tlen, "intr") || word_is(tok, tlen, "softirq")) {
			bool intr = tlen == 4;
			uint64_t *dst = intr ? &t->intr_total : &t->softirq_total;

			/* only the total is kept: the per-IRQ columns of "intr" have no
			 * CPU split, /proc/interrupts is read for that */
			if (scan_u64(&c, dst) < 0)
				return parse_fail(err, c.line,
						  intr ? "bad intr total" : "bad softirq total");
			if (intr)
				t->has_intr = true;
			else
				t->has_softirq = true;
		} else if (word_is(tok, tlen, "ctxt")) {
			if (scan_u64(&c, &t->ctxt) < 0)
				return parse_fail(err, c.line, "bad ctxt");
		} else if (word_is(tok, tlen, "procs_running")) {
			if (scan_u64(&c, &t->procs_running) < 0)
				return parse_fail(err, c.line, "bad procs_running");
		} else if (word_is(tok, tlen, "procs_blocked")) {
			if (scan_u64(&c, &t->procs_blocked) < 0)
				return parse_fail(err, c.line, "bad procs_blocked");
		}
		scan_next_line(&c);
	}
	if (!seen_all)
		return parse_fail(err, c.line, "no \"cpu\" line (truncated file?)");
	return 0;
}

void stat_raw_free(struct stat_raw *t)
{
	if (!t)
		return;
	grow_free((void **)&t->cpus, &t->ncpu, &t->cap);
}

int stat_raw_copy(struct stat_raw *dst, const struct stat_raw *src)
{
	struct stat_raw t = *src;

	/* src's fields, dst's storage */
	t.cpus = dst->cpus;
	t.cap = dst->cap;
	if (grow_copy((void **)&t.cpus, &t.cap, src->cpus, src->ncpu, sizeof(*t.cpus)) < 0)
		return -ENOMEM;
	*dst = t;
	return 0;
}

const struct cpu_raw *stat_find_cpu(const struct stat_raw *t, int cpu)
{
	if (cpu == IOT_CPU_ALL)
		return &t->all;
	/* cpus are sorted (checked by the parser) */
	return rowfind_i32(t->cpus, t->ncpu, sizeof(*t->cpus), offsetof(struct cpu_raw, cpu), cpu);
}
