// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/interrupts and /proc/softirqs -> struct irq_table. The CPU columns
 * come from the header line (CPUs may be missing when offline), rows are
 * keyed by their label, never by position: lines come and go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
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
		if (scan_u64(&idc, &id) < 0 || !cursor_eof(&idc))
			return parse_fail(err, c->line, "header: bad CPU number");
		if (id >= IOT_CPUS_MAX)
			return parse_fail(err, c->line,
					  "header: CPU number past 8191 (NR_CPUS's largest)");
		/* the kernel prints the online CPUs ascending: a column a CPU,
		 * at most IOT_CPUS_MAX of them, whatever a recorded file repeats */
		if (t->ncpu && id <= (uint64_t)t->cpu_ids[t->ncpu - 1])
			return parse_fail(err, c->line, "header: CPU numbers not ascending");
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

/*
 * A label's index key: an IRQ number is its own key, so the usual file
 * (numbers ascending, then a few dozen names) is nearly sorted already; a
 * name is its FNV-1a hash with the top bit set, above every number. Equal
 * keys ("7" and "007", a hash collision) are told apart by the label.
 */
static uint64_t label_key(const char *s)
{
	uint64_t v = 0, h = 0xcbf29ce484222325ULL;
	const char *p = s;

	for (; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (p != s && !*p && v <= UINT32_MAX)
		return v;
	for (p = s; *p; p++) {
		h ^= (unsigned char)*p;
		h *= 0x100000001b3ULL;
	}
	return h | 1ULL << 63;
}

static int key_only_cmp(const void *a, const void *b)
{
	const struct irq_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static int key_cmp(const void *a, const void *b)
{
	const struct irq_key *x = a, *y = b;

	if (x->key != y->key)
		return key_only_cmp(a, b);
	/* equal keys keep their row order: the first row with a label wins,
	 * as it did with a linear search */
	return x->row < y->row ? -1 : x->row > y->row;
}

/*
 * Insertion sort while the keys are nearly in order (a parse of the usual
 * file costs a few hundred moves, where qsort costs ~0.2 ms at 4,000 rows),
 * qsort once more than a few moves a row show they are not.
 */
static void keys_sort(struct irq_key *k, size_t n)
{
	size_t moves = 0, budget = 4 * n + 256;

	for (size_t i = 1; i < n; i++) {
		struct irq_key x = k[i];
		size_t j = i;

		while (j > 0 && key_cmp(&k[j - 1], &x) > 0) {
			k[j] = k[j - 1];
			j--;
			if (++moves > budget) {
				k[j] = x; /* a permutation again */
				qsort(k, n, sizeof(*k), key_cmp);
				return;
			}
		}
		k[j] = x;
	}
}

/*
 * Rows with one system-wide count (ERR:, MIS:) still take a counter a
 * column: more than a few would let a recorded file of short lines cost
 * columns x rows counters.
 */
#define IRQTAB_SHARED_MAX 16

static int parse_row(struct cursor *c, bool softirqs, struct irq_table *t, size_t *shared,
		     struct parse_error *err)
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
	/* a row is 224 bytes and its counters 8 a CPU: a file of short lines
	 * ("1: 0") would otherwise cost 40 times its size */
	if (t->n == (softirqs ? IOT_SOFTIRQS_MAX : IOT_IRQ_LINES_MAX))
		return parse_fail(err, c->line,
				  softirqs ? "more than 64 softirq rows"
					   : "more than 65536 IRQ lines");
	if ((t->n + 1) * t->ncpu > IOT_IRQ_CELLS_MAX)
		return parse_fail(err, c->line, "more than 2^24 counters (IRQ lines x CPUs)");
	if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
		return -ENOMEM;
	if (grow((void **)&t->counts, &t->counts_cap, (t->n + 1) * t->ncpu, sizeof(*t->counts)) <
		0 ||
	    grow((void **)&t->keys, &t->keys_cap, t->n + 1, sizeof(*t->keys)) < 0)
		return -ENOMEM;
	row = &t->rows[t->n];
	/* no memset of the 224-byte row: every field is set below (the strings
	 * through scan_copy, which terminates them) */
	row->numeric = false;
	row->irq = 0;
	row->chip[0] = row->hwirq[0] = row->actions[0] = '\0';
	if (!scan_copy(row->label, sizeof(row->label), tok, tlen))
		return parse_fail(err, c->line, "label too long");
	/* while the label is in cache; sorted by irq_table_index() */
	t->keys[t->n].key = label_key(row->label);
	t->keys[t->n].row = t->n;
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
		if (++*shared > IRQTAB_SHARED_MAX)
			return parse_fail(err, c->line,
					  "more than 16 rows without per-CPU counters");
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
	size_t shared = 0;
	int r;

	t->n = 0;
	t->ncpu = 0;
	t->nkeys = 0; /* the index of the previous contents is void */
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
		r = parse_row(&c, softirqs, t, &shared, err);
		if (r < 0)
			return r;
		scan_next_line(&c);
	}
	/* parse_row() filled a key a row */
	keys_sort(t->keys, t->n);
	t->nkeys = t->n;
	return 0;
}

void irq_table_free(struct irq_table *t)
{
	if (!t)
		return;
	free(t->cpu_ids);
	free(t->rows);
	free(t->counts);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

int irq_table_copy(struct irq_table *dst, const struct irq_table *src)
{
	bool indexed = src->keys && src->nkeys == src->n;

	dst->nkeys = 0;
	if (grow((void **)&dst->cpu_ids, &dst->cpu_cap, src->ncpu, sizeof(*dst->cpu_ids)) < 0 ||
	    grow((void **)&dst->rows, &dst->cap, src->n, sizeof(*dst->rows)) < 0 ||
	    grow((void **)&dst->counts, &dst->counts_cap, src->n * src->ncpu,
		 sizeof(*dst->counts)) < 0 ||
	    (indexed && grow((void **)&dst->keys, &dst->keys_cap, src->n, sizeof(*dst->keys)) < 0))
		return -ENOMEM;
	if (src->ncpu)
		memcpy(dst->cpu_ids, src->cpu_ids, src->ncpu * sizeof(*src->cpu_ids));
	if (src->n)
		memcpy(dst->rows, src->rows, src->n * sizeof(*src->rows));
	if (src->n && src->ncpu)
		memcpy(dst->counts, src->counts, src->n * src->ncpu * sizeof(*src->counts));
	if (indexed && src->n)
		memcpy(dst->keys, src->keys, src->n * sizeof(*src->keys));
	dst->ncpu = src->ncpu;
	dst->n = src->n;
	dst->nkeys = indexed ? src->n : 0;
	return 0;
}

const struct irq_row *irq_table_find(const struct irq_table *t, const char *label, size_t *hint)
{
	struct irq_key probe = { 0 };
	const struct irq_key *k;

	/* same-order tables pair in one pass */
	if (hint && *hint < t->n && strcmp(t->rows[*hint].label, label) == 0)
		return &t->rows[(*hint)++];
	if (t->nkeys != t->n || !t->keys) {
		/* a table nobody indexed (built by hand): linear */
		for (size_t i = 0; i < t->n; i++) {
			if (strcmp(t->rows[i].label, label) == 0) {
				if (hint)
					*hint = i + 1;
				return &t->rows[i];
			}
		}
		return NULL;
	}
	/* otherwise a binary search of the index: a reordered table (4,000
	 * IRQs after a driver reload) pairs in O(n log n), not O(n^2)
	 * (doc/PERFORMANCE.md); equal keys are a run, searched from its start */
	probe.key = label_key(label);
	k = bsearch(&probe, t->keys, t->nkeys, sizeof(*k), key_only_cmp);
	if (!k)
		return NULL;
	while (k > t->keys && k[-1].key == probe.key)
		k--;
	for (; k < t->keys + t->nkeys && k->key == probe.key; k++)
		if (strcmp(t->rows[k->row].label, label) == 0) {
			if (hint)
				*hint = k->row + 1;
			return &t->rows[k->row];
		}
	return NULL;
}

int irq_table_cpu_col(const struct irq_table *t, int cpu)
{
	return cpu_ids_col(t->cpu_ids, t->ncpu, cpu);
}
