// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/interrupts and /proc/softirqs -> struct irq_table. The CPU columns
 * come from the header line (CPUs may be missing when offline), rows are
 * keyed by their label, never by position: lines come and go.
 */
#include <errno.h>
#include <string.h>

#include "grow.h"
#include "irqtab.h"
#include "scan.h"

static int parse_header(struct cursor *c, struct irq_table *t, struct parse_error *err)
{
	t->ncpu = 0;
	while (!scan_at_eol(c)) {
		const char *tok;
		size_t tlen = scan_token(c, &tok);
		struct cursor idc;
		uint64_t id;

		if (tlen < 4 || memcmp(tok, "CPU", 3) != 0)
			return parse_fail(err, c->line, "header: expected CPUn columns");
		cursor_init(&idc, tok + 3, tlen - 3);
		if (scan_u64(&idc, &id) < 0 || !cursor_eof(&idc) || id > 65535)
			return parse_fail(err, c->line, "header: bad CPU number");
		if (grow((void **)&t->cpu_ids, &t->cpu_cap, t->ncpu + 1, sizeof(*t->cpu_ids)) < 0)
			return -ENOMEM;
		t->cpu_ids[t->ncpu++] = (int)id;
	}
	if (t->ncpu == 0)
		return parse_fail(err, c->line,
				  "header: no CPU columns (empty or truncated file?)");
	scan_next_line(c);
	return 0;
}

/* "IO-APIC   5-edge      ACPI:Ged" -> chip, hwirq, actions. Old kernels print
 * "IO-APIC-edge  timer" (no hwirq); named rows carry a free description. */
static void parse_desc(struct cursor *c, struct irq_row *row)
{
	const char *tok, *rest;
	size_t tlen, rlen;

	if (!row->numeric) {
		rlen = scan_rest(c, &rest);
		scan_copy(row->actions, sizeof(row->actions), rest, rlen);
		return;
	}
	tlen = scan_token(c, &tok);
	scan_copy(row->chip, sizeof(row->chip), tok, tlen);
	scan_blanks(c);
	if (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		tlen = scan_token(c, &tok);
		scan_copy(row->hwirq, sizeof(row->hwirq), tok, tlen);
	}
	rlen = scan_rest(c, &rest);
	scan_copy(row->actions, sizeof(row->actions), rest, rlen);
}

static int parse_row(struct cursor *c, bool softirqs, struct irq_table *t, struct parse_error *err)
{
	struct irq_row *row;
	const char *tok;
	size_t tlen, ncounts = 0;
	uint64_t *counts;
	struct cursor lc;
	uint64_t v;

	tlen = scan_token(c, &tok);
	if (tlen < 2 || tok[tlen - 1] != ':')
		return parse_fail(err, c->line, "expected \"LABEL:\"");
	tlen--;
	if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
		return -ENOMEM;
	if (grow((void **)&t->counts, &t->counts_cap, (t->n + 1) * t->ncpu, sizeof(*t->counts)) < 0)
		return -ENOMEM;
	row = &t->rows[t->n];
	/* no memset of the 224-byte row: every field is set below (the strings
	 * through scan_copy, which terminates them) */
	row->numeric = false;
	row->irq = 0;
	row->chip[0] = row->hwirq[0] = row->actions[0] = '\0';
	if (!scan_copy(row->label, sizeof(row->label), tok, tlen))
		return parse_fail(err, c->line, "label too long");
	cursor_init(&lc, tok, tlen);
	if (!softirqs && scan_u64(&lc, &v) == 0 && cursor_eof(&lc) && v <= UINT32_MAX) {
		row->numeric = true;
		row->irq = (uint32_t)v;
	}
	row->counts_off = t->n * t->ncpu;
	counts = t->counts + row->counts_off;
	{
		/* the hot loop of a big host: a local cursor and sum stay in
		 * registers instead of being stored back on every counter */
		struct cursor lcur = *c;
		uint64_t total = 0;

		while (ncounts < t->ncpu) {
			int r;

			if (scan_count_fast(&lcur, &v)) {
				counts[ncounts++] = v;
				total += v;
				continue;
			}
			r = scan_u64(&lcur, &v);

			if (r == -ERANGE)
				return parse_fail(err, c->line, "counter out of range");
			if (r < 0)
				break;
			counts[ncounts++] = v;
			total += v;
		}
		*c = lcur;
		row->total = total;
	}
	if (ncounts == t->ncpu) {
		row->percpu_counts = true;
	} else if (ncounts == 1 && !row->numeric && !softirqs && scan_at_eol(c)) {
		/* ERR: and MIS: carry one system-wide count */
		memset(counts, 0, t->ncpu * sizeof(*counts));
		row->percpu_counts = false;
	} else {
		return parse_fail(err, c->line,
				  "fewer counters than CPU columns (truncated line?)");
	}
	if (!softirqs)
		parse_desc(c, row);
	else if (!scan_at_eol(c))
		return parse_fail(err, c->line, "unexpected text after softirq counters");
	t->n++;
	return 0;
}

int irqtab_parse(const char *buf, size_t len, bool softirqs, struct irq_table *t,
		 struct parse_error *err)
{
	struct cursor c;
	int r;

	t->n = 0;
	t->ncpu = 0;
	r = parse_check_complete(buf, len, err);
	if (r < 0)
		return r;
	cursor_init(&c, buf, len);
	while (!cursor_eof(&c) && scan_at_eol(&c))
		scan_next_line(&c);
	r = parse_header(&c, t, err);
	if (r < 0)
		return r;
	while (!cursor_eof(&c)) {
		if (scan_at_eol(&c)) {
			scan_next_line(&c);
			continue;
		}
		r = parse_row(&c, softirqs, t, err);
		if (r < 0)
			return r;
		scan_next_line(&c);
	}
	return 0;
}

void irq_table_free(struct irq_table *t)
{
	if (!t)
		return;
	free(t->cpu_ids);
	free(t->rows);
	free(t->counts);
	memset(t, 0, sizeof(*t));
}

int irq_table_copy(struct irq_table *dst, const struct irq_table *src)
{
	if (grow((void **)&dst->cpu_ids, &dst->cpu_cap, src->ncpu, sizeof(*dst->cpu_ids)) < 0 ||
	    grow((void **)&dst->rows, &dst->cap, src->n, sizeof(*dst->rows)) < 0 ||
	    grow((void **)&dst->counts, &dst->counts_cap, src->n * src->ncpu,
		 sizeof(*dst->counts)) < 0)
		return -ENOMEM;
	if (src->ncpu)
		memcpy(dst->cpu_ids, src->cpu_ids, src->ncpu * sizeof(*src->cpu_ids));
	if (src->n)
		memcpy(dst->rows, src->rows, src->n * sizeof(*src->rows));
	if (src->n && src->ncpu)
		memcpy(dst->counts, src->counts, src->n * src->ncpu * sizeof(*src->counts));
	dst->ncpu = src->ncpu;
	dst->n = src->n;
	return 0;
}

const struct irq_row *irq_table_find(const struct irq_table *t, const char *label, size_t *hint)
{
	/* same-order tables pair in one pass; a row that came or went costs
	 * one linear search */
	if (hint && *hint < t->n && strcmp(t->rows[*hint].label, label) == 0)
		return &t->rows[(*hint)++];
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->rows[i].label, label) == 0) {
			if (hint)
				*hint = i + 1;
			return &t->rows[i];
		}
	}
	return NULL;
}

int irq_table_cpu_col(const struct irq_table *t, int cpu)
{
	for (size_t i = 0; i < t->ncpu; i++)
		if (t->cpu_ids[i] == cpu)
			return (int)i;
	return -1;
}
