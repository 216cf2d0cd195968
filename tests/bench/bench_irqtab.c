// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pairing two /proc/interrupts tables by label, as metrics.c does each
 * sample (irq_table_find with a hint, in the current table's order): the
 * same order, and reordered (a driver reloaded, IRQs renumbered), on a
 * 4,000-IRQ host; and irqtab_parse of the table, which builds the index.
 * Prints microseconds per call, the best of ROUNDS (doc/PERFORMANCE.md).
 *
 *   bench_irqtab [NIRQ [NCPU]]     (defaults: 4000 64)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "irqtab.h"

#define ROUNDS 20

static double now_us(void)
{
	return (double)clock_mono_ns() / 1e3;
}

/* nirq numeric lines in perm's order on ncpu CPUs, then a few named rows */
static char *irq_text(size_t nirq, size_t ncpu, const size_t *perm, size_t *ret_len)
{
	static const char *const named[] = { "NMI", "LOC", "SPU", "PMI", "IWI", "RES",
					     "CAL", "TLB", "TRM", "THR", "MCE", "MCP" };
	size_t cap = 256 + (nirq + 12) * (ncpu * 11 + 64), len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	for (size_t c = 0; c < ncpu; c++)
		len += (size_t)snprintf(buf + len, cap - len, "%sCPU%zu", c ? "  " : "       ", c);
	buf[len++] = '\n';
	for (size_t i = 0; i < nirq + 12; i++) {
		if (i < nirq)
			len += (size_t)snprintf(buf + len, cap - len, "%5zu:", perm[i]);
		else
			len += (size_t)snprintf(buf + len, cap - len, "%s:", named[i - nirq]);
		for (size_t c = 0; c < ncpu; c++)
			len +=
			    (size_t)snprintf(buf + len, cap - len, " %10zu", (i * 7 + c) % 100000);
		len += (size_t)snprintf(buf + len, cap - len,
					"  PCI-MSIX-0000:00:01.0  %zu-edge  q\n", i);
	}
	*ret_len = len;
	return buf;
}

static double pair_us(const struct irq_table *prev, const struct irq_table *cur)
{
	double best = 1e30;

	for (int k = 0; k < ROUNDS; k++) {
		double t0 = now_us();
		size_t hint = 0, found = 0;

		for (size_t i = 0; i < cur->n; i++)
			found += irq_table_find(prev, cur->rows[i].label, &hint) != NULL;
		t0 = now_us() - t0;
		if (found != cur->n) {
			fprintf(stderr, "bench_irqtab: %zu of %zu rows paired\n", found, cur->n);
			exit(1);
		}
		if (t0 < best)
			best = t0;
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t nirq = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000;
	size_t ncpu = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
	struct irq_table a = { 0 }, b = { 0 }, s = { 0 };
	size_t *perm = malloc(nirq * sizeof(*perm)), la, ls;
	uint64_t seed = 42;
	double parse_best = 1e30;
	char *ta, *ts;

	if (!perm || !nirq || !ncpu)
		return 2;
	for (size_t i = 0; i < nirq; i++)
		perm[i] = i;
	ta = irq_text(nirq, ncpu, perm, &la);
	for (size_t i = nirq; i > 1; i--) {
		size_t j, x;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (size_t)(seed >> 33) % i;
		x = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = x;
	}
	ts = irq_text(nirq, ncpu, perm, &ls);
	if (!ta || !ts || irqtab_parse(ta, la, false, &a, NULL) < 0 ||
	    irqtab_parse(ta, la, false, &b, NULL) < 0 ||
	    irqtab_parse(ts, ls, false, &s, NULL) < 0) {
		fprintf(stderr, "bench_irqtab: cannot build the tables\n");
		return 1;
	}
	for (int k = 0; k < ROUNDS; k++) {
		double t0 = now_us();

		irqtab_parse(ta, la, false, &b, NULL);
		t0 = now_us() - t0;
		if (t0 < parse_best)
			parse_best = t0;
	}
	printf("irqtab %zu IRQs x %zu CPUs: parse %.1f us, pair same order %.1f us, "
	       "pair reordered %.1f us\n",
	       nirq, ncpu, parse_best, pair_us(&a, &b), pair_us(&a, &s));
	irq_table_free(&a);
	irq_table_free(&b);
	irq_table_free(&s);
	free(ta);
	free(ts);
	free(perm);
	return 0;
}
