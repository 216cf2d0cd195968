// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * turbostat's output over computed turbo metrics: the JSON section
 * (doc/json.md), the sources, and the table as turbostat prints it
 * (format_counters' precision). No arithmetic beyond rounding for print:
 * the numbers are metrics/metrics_turbo.c's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "encode_turbo.h"

#define BIT(c) (1u << (c))

/* Decimals turbostat prints each column with. */
static const int col_prec[TC__COUNT] = {
	[TC_AVG_MHZ] = 0, [TC_BUSY] = 2,    [TC_BZY_MHZ] = 0, [TC_TSC_MHZ] = 0, [TC_IRQ] = 0,
	[TC_SMI] = 0,	  [TC_C1] = 2,	    [TC_C3] = 2,      [TC_C6] = 2,	[TC_C7] = 2,
	[TC_CORETMP] = 0, [TC_PKGTMP] = 0,  [TC_PC2] = 2,     [TC_PC3] = 2,	[TC_PC6] = 2,
	[TC_PC7] = 2,	  [TC_PKGWATT] = 2, [TC_CORWATT] = 2, [TC_RAMWATT] = 2, [TC_PKG_PCT] = 2,
	[TC_RAM_PCT] = 2,
};

static const char *const via_names[] = {
	[TV_NONE] = "none",   [TV_MSR] = "msr",	  [TV_PERF] = "perf",
	[TV_SYSFS] = "sysfs", [TV_PROC] = "proc",
};

static void encode_row(struct strbuf *sb, const struct turbo_row *row, const struct turbo_info *in)
{
	sb_putc(sb, '{');
	if (row->cpu < 0) {
		sb_puts(sb, "\"Package\":\"-\",\"Core\":\"-\",\"CPU\":\"-\"");
	} else {
		sb_kv_i64(sb, "\"Package\":", row->pkg);
		sb_kv_i64(sb, ",\"Core\":", row->core);
		sb_kv_i64(sb, ",\"CPU\":", row->cpu);
	}
	if (!row->valid) {
		sb_puts(sb, ",\"valid\":false,\"reason\":");
		sb_json_str(sb, row->reason);
		sb_putc(sb, '}');
		return;
	}
	sb_puts(sb, ",\"valid\":true");
	if (row->reason[0]) {
		sb_puts(sb, ",\"note\":");
		sb_json_str(sb, row->reason);
	}
	for (int c = 0; c < TC__COUNT; c++) {
		if (!(row->have & BIT(c)))
			continue;
		sb_putc(sb, ',');
		sb_json_str(sb, turbo_col_name(c));
		sb_putc(sb, ':');
		sb_fixed2(sb, row->v[c]);
	}
	if (row->suspect) {
		sb_puts(sb, ",\"suspect\":[");
		for (int c = 0, n = 0; c < TC__COUNT; c++)
			if (row->suspect & BIT(c)) {
				if (n++)
					sb_putc(sb, ',');
				sb_json_str(sb, turbo_col_name(c));
			}
		sb_putc(sb, ']');
	}
	for (unsigned k = 0; k < row->nidle; k++) {
		char key[24];

		snprintf(key, sizeof(key), "%s%%", in->idle_names[k]);
		sb_putc(sb, ',');
		sb_json_str(sb, key);
		sb_putc(sb, ':');
		sb_fixed2(sb, row->idle_pct[k]);
	}
	sb_putc(sb, '}');
}

void encode_turbo(struct strbuf *sb, const struct turbo_metrics *m)
{
	if (!m || !m->available)
		return;
	sb_puts(sb, "\"turbostat\":{\"interval_s\":");
	sb_printf(sb, "%.6f", m->interval_s);
	sb_puts(sb, ",\"joule_counter_range_s\":");
	if (isfinite(m->joule_range_s))
		sb_fixed2(sb, m->joule_range_s);
	else
		sb_puts(sb, "null");
	sb_puts(sb, ",\"columns\":");
	encode_turbo_columns(sb, m);
	sb_puts(sb, ",\"rows\":[");
	encode_row(sb, &m->summary, &m->info);
	for (size_t i = 0; i < m->nrows; i++) {
		sb_putc(sb, ',');
		encode_row(sb, &m->rows[i], &m->info);
	}
	sb_puts(sb, "]},");
}

void encode_turbo_columns(struct strbuf *sb, const struct turbo_metrics *m)
{
	sb_putc(sb, '{');
	for (int c = 0; c < TC__COUNT; c++) {
		const struct turbo_source *src = &m->info.src[c];

		if (c)
			sb_putc(sb, ',');
		sb_json_str(sb, turbo_col_name(c));
		if (src->via == TV_NONE) {
			sb_puts(sb, ":{\"available\":false,\"reason\":");
			sb_json_str(sb, src->reason);
		} else {
			sb_puts(sb, ":{\"available\":true,\"source\":");
			sb_json_str(sb, via_names[src->via]);
			sb_puts(sb, ",\"detail\":");
			sb_json_str(sb, src->detail);
			if (src->reason[0]) {
				sb_puts(sb, ",\"caveat\":");
				sb_json_str(sb, src->reason);
			}
		}
		sb_putc(sb, '}');
	}
	sb_putc(sb, '}');
}

void encode_turbo_sources(struct strbuf *sb, const struct turbo_raw *raw)
{
	if (!raw)
		return;
	for (unsigned i = 0; i < TURBO_NSOURCES; i++) {
		sb_json_key(sb, turbo_source_name(i));
		if (raw->info.sources[i].err) {
			sb_puts(sb, "{\"available\":false,\"reason\":");
			sb_json_str(sb, raw->info.sources[i].reason);
			sb_puts(sb, "},");
		} else {
			sb_puts(sb, "{\"available\":true},");
		}
	}
}

/* ---- the table, as turbostat prints it ---- */

static void cell(struct strbuf *sb, const struct turbo_row *row, enum turbo_col c)
{
	sb_putc(sb, '\t');
	if (!(row->have & BIT(c)))
		return;
	if (row->suspect & BIT(c))
		sb_printf(sb, "%6.0f**", row->v[c]);
	else
		sb_printf(sb, "%.*f", col_prec[c], row->v[c]);
}

/* Column order of the table: turbostat prints sysfs idle residencies right
 * after SMI, and a per-core CorWatt (AMD) in the core section after CoreTmp. */
static int table_order(const struct turbo_metrics *m, int *order)
{
	bool per_core_w = false;
	int n = 0;

	for (size_t i = 0; i < m->nrows && !per_core_w; i++)
		per_core_w = (m->rows[i].have & BIT(TC_CORWATT)) && !m->rows[i].first_in_pkg;
	per_core_w =
	    per_core_w || (strcmp(m->info.vendor, "GenuineIntel") != 0 &&
			   (m->cols & BIT(TC_CORWATT)) && m->info.src[TC_CORWATT].via == TV_MSR);
	for (int c = 0; c < TC__COUNT; c++) {
		if (c == TC_CORWATT && per_core_w)
			continue;
		order[n++] = c;
		if (c == TC_SMI)
			for (unsigned k = 0; k < m->info.nidle; k++)
				order[n++] = TC__COUNT + (int)k;
		if (c == TC_CORETMP && per_core_w)
			order[n++] = TC_CORWATT;
	}
	return n;
}

static bool has_cell(const struct turbo_metrics *m, const struct turbo_row *row, int c)
{
	if (c >= TC__COUNT)
		return (unsigned)(c - TC__COUNT) < row->nidle;
	return (m->cols & BIT(c)) && (row->have & BIT(c));
}

void encode_turbo_table(struct strbuf *sb, const struct turbo_metrics *m)
{
	int order[TC__COUNT + TURBO_IDLE_MAX], n;

	if (!m || !m->available) {
		if (m && m->reason[0])
			sb_printf(sb, "turbostat: unavailable: %s\n", m->reason);
		return;
	}
	n = table_order(m, order);
	if (!m->cols || (m->cols == BIT(TC_IRQ) && !m->info.nidle)) {
		sb_puts(sb, "turbostat: no frequency, C-state, power or temperature source\n");
	} else {
		sb_puts(sb, "Core\tCPU");
		for (int i = 0; i < n; i++) {
			if (order[i] >= TC__COUNT)
				sb_printf(sb, "\t%s%%", m->info.idle_names[order[i] - TC__COUNT]);
			else if (m->cols & BIT(order[i]))
				sb_printf(sb, "\t%s", turbo_col_name(order[i]));
		}
		sb_putc(sb, '\n');
		for (size_t i = 0; i <= m->nrows; i++) {
			const struct turbo_row *row = i == 0 ? &m->summary : &m->rows[i - 1];
			int last = -1;

			if (row->cpu < 0)
				sb_puts(sb, "-\t-");
			else
				sb_printf(sb, "%d\t%d", row->core, row->cpu);
			if (!row->valid) {
				sb_printf(sb, "\t(invalid: %s)\n", row->reason);
				continue;
			}
			/* turbostat ends a line after its last printed column */
			for (int k = 0; k < n; k++)
				if (has_cell(m, row, order[k]))
					last = k;
			for (int k = 0; k <= last; k++) {
				int c = order[k];

				if (c >= TC__COUNT) {
					sb_putc(sb, '\t');
					if ((unsigned)(c - TC__COUNT) < row->nidle)
						sb_printf(sb, "%.2f", row->idle_pct[c - TC__COUNT]);
				} else if (m->cols & BIT(c)) {
					cell(sb, row, (enum turbo_col)c);
				}
			}
			sb_putc(sb, '\n');
		}
	}
	encode_turbo_unavailable(sb, m);
}

/* The n bytes of the first "; "-separated cause at s, and where the next
 * starts. */
static size_t cause_len(const char *s, const char **ret_next)
{
	const char *semi = strstr(s, "; ");

	*ret_next = semi ? semi + 2 : s + strlen(s);
	return semi ? (size_t)(semi - s) : strlen(s);
}

/* Whether the cause (p, n) is the first of reason (first) or any after it. */
static bool has_cause(const char *reason, bool first, const char *p, size_t n)
{
	const char *next;

	for (const char *q = reason; *q; q = next) {
		size_t k = cause_len(q, &next);

		if (!first && q == reason)
			continue;
		if (k == n && memcmp(q, p, n) == 0)
			return true;
		if (first)
			return false;
	}
	return false;
}

void encode_turbo_unavailable(struct strbuf *sb, const struct turbo_metrics *m)
{
	bool fallbacks = false;

	/* noise once (issue 23): a line per first cause with the columns it
	 * stops (a missing MSR stops most), then the fallbacks that were
	 * missing too (cpufreq for Bzy_MHz...), each once, on one line */
	for (int c = 0; c < TC__COUNT; c++) {
		const struct turbo_source *src = &m->info.src[c];
		const char *next;
		size_t n;
		bool seen = false;

		if (src->via != TV_NONE) {
			if (src->reason[0])
				sb_printf(sb, "%s: %s\n", turbo_col_name(c), src->reason);
			continue;
		}
		if (!src->reason[0]) {
			sb_printf(sb, "unavailable: %s\n", turbo_col_name(c));
			continue;
		}
		n = cause_len(src->reason, &next);
		fallbacks |= *next != '\0';
		for (int e = 0; e < c && !seen; e++)
			seen = m->info.src[e].via == TV_NONE &&
			       has_cause(m->info.src[e].reason, true, src->reason, n);
		if (seen)
			continue;
		sb_printf(sb, "unavailable (%.*s):", (int)n, src->reason);
		for (int k = c; k < TC__COUNT; k++)
			if (m->info.src[k].via == TV_NONE &&
			    has_cause(m->info.src[k].reason, true, src->reason, n))
				sb_printf(sb, " %s", turbo_col_name(k));
		sb_putc(sb, '\n');
	}
	if (!fallbacks)
		return;
	sb_puts(sb, "fallbacks missing too:");
	for (int c = 0, any = 0; c < TC__COUNT; c++) {
		const struct turbo_source *src = &m->info.src[c];
		const char *next;

		if (src->via != TV_NONE)
			continue;
		cause_len(src->reason, &next);
		for (const char *p = next; *p; p = next) {
			size_t n = cause_len(p, &next);
			bool seen = false;

			for (int e = 0; e < c && !seen; e++)
				seen = m->info.src[e].via == TV_NONE &&
				       has_cause(m->info.src[e].reason, false, p, n);
			/* earlier in this column's own list */
			for (const char *q = src->reason; !seen && q < p;) {
				const char *qn;
				size_t k = cause_len(q, &qn);

				seen = q != src->reason && k == n && memcmp(q, p, n) == 0;
				q = qn;
			}
			if (seen)
				continue;
			sb_printf(sb, "%s %.*s", any++ ? ";" : "", (int)n, p);
		}
	}
	sb_putc(sb, '\n');
}
