// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_trace: the tracing stage's read as the flight recorder's trace
 * record: lines of tab-separated fields, numbers in decimal, text escaped
 * as \xHH, the same line format as collect/rec_payload.c's sections (this
 * stage may not include collect), so the frame codec (lib/rec_diff.c)
 * stores a counter that moved as its difference. A CPU that took no time,
 * a histogram's empty top buckets are left out. A missing trailing field
 * reads as 0, a line of an unknown kind is skipped (a later version may
 * add both). Never trusts a count: the tables are the lines present, each
 * bounded by what the maps can hold.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload.c packs a
 * sample's sections, trace/rec_trace.c its trace read, lib/rec_diff.c
 * makes a frame the difference from the last, lib/rec_file.c writes and
 * reads the segments, daemon/rec.c drives them from iotriaged's loop
 * (doc/recording.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rec_trace.h"

/* ---- writing ---- */

static void w_u(struct strbuf *o, uint64_t v)
{
	sb_putc(o, '\t');
	sb_u64(o, v);
}

/* Text with tab, newline, other control bytes and '\' as \xHH. */
static void w_s(struct strbuf *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	sb_putc(o, '\t');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x20 && ch != 0x7f && ch != '\\') {
			sb_putc(o, (char)ch);
			continue;
		}
		sb_putc(o, '\\');
		sb_putc(o, 'x');
		sb_putc(o, hex[ch >> 4]);
		sb_putc(o, hex[ch & 15]);
	}
}

int rec_trace_pack(const struct trace_raw *r, struct strbuf *o)
{
	size_t nc = r->ncpu;
	uint64_t budget;

	memcpy(&budget, &r->budget_pct, sizeof(budget)); /* a double exactly: its bits */
	/* the record's header is a line of its own for the frame codec */
	sb_puts(o, "\nh");
	w_u(o, r->valid);
	w_u(o, (uint64_t)(r->mono_ns < 0 ? 0 : r->mono_ns));
	w_u(o, r->stats);
	w_u(o, budget);
	w_u(o, nc);
	sb_putc(o, '\n');
	if (r->stats_reason[0]) {
		sb_putc(o, 'w');
		w_s(o, r->stats_reason);
		sb_putc(o, '\n');
	}
	for (int k = 0; k < TRACE__COUNT; k++) {
		const struct trace_probe_status *p = &r->probe[k];

		sb_putc(o, 'p');
		w_u(o, (uint64_t)k);
		w_u(o, p->on);
		w_u(o, p->read);
		w_u(o, p->has_run);
		w_u(o, p->run_ns);
		w_u(o, p->run_cnt);
		w_s(o, p->reason);
		sb_putc(o, '\n');
	}
	if (!r->valid)
		return o->err; /* the arrays of a failed read mean nothing */
	for (size_t c = 0; c < nc && r->soft_ns && r->soft_count; c++) {
		const uint64_t *ns = &r->soft_ns[c * TRACE_NR_SOFTIRQS];
		const uint64_t *cnt = &r->soft_count[c * TRACE_NR_SOFTIRQS];
		bool any = false;

		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
			any |= ns[v] || cnt[v];
		if (!any)
			continue; /* a possible CPU that never ran a softirq */
		sb_putc(o, 's');
		w_u(o, c);
		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
			w_u(o, ns[v]);
		for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
			w_u(o, cnt[v]);
		sb_putc(o, '\n');
	}
	for (size_t i = 0; i < r->nirq; i++) {
		sb_putc(o, 'i');
		w_u(o, r->irq[i]);
		/* (cpu, ns, runs) of the CPUs the line ran on */
		for (size_t c = 0; c < nc; c++) {
			uint64_t ns = r->irq_ns[i * nc + c], cnt = r->irq_count[i * nc + c];

			if (!ns && !cnt)
				continue;
			w_u(o, c);
			w_u(o, ns);
			w_u(o, cnt);
		}
		sb_putc(o, '\n');
	}
	for (size_t i = 0; i < r->nlat; i++) {
		const struct trace_lat_raw *l = &r->lat[i];
		int top = TRACE_HIST_SLOTS;

		while (top && !l->slots[top - 1])
			top--;
		sb_putc(o, 'l');
		w_u(o, l->major);
		w_u(o, l->minor);
		w_u(o, l->op);
		w_u(o, l->kind);
		w_u(o, l->count);
		w_u(o, l->sum_ns);
		w_u(o, l->remote);
		for (int s = 0; s < top; s++)
			w_u(o, l->slots[s]);
		sb_putc(o, '\n');
	}
	return o->err;
}

/* ---- reading ---- */

struct rd {
	const char *p, *end;  /* the record's lines left */
	const char *f, *lend; /* the current line's fields left; f NULL: none left */
	bool bad;
};

/* The next line that is not empty: false at the end. */
static bool rd_line(struct rd *r)
{
	const char *nl;

	while (r->p < r->end && *r->p == '\n')
		r->p++;
	if (r->p >= r->end)
		return false;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	r->f = r->p;
	r->lend = nl ? nl : r->end;
	r->p = nl ? nl + 1 : r->end;
	return true;
}

/* The next field (not NUL-terminated); an absent one is empty. */
static size_t rd_field(struct rd *r, const char **ret)
{
	const char *s = r->f, *t;

	if (!s) {
		*ret = "";
		return 0;
	}
	t = memchr(s, '\t', (size_t)(r->lend - s));
	if (t) {
		r->f = t + 1;
	} else {
		t = r->lend;
		r->f = NULL;
	}
	*ret = s;
	return (size_t)(t - s);
}

static uint64_t r_u(struct rd *r)
{
	const char *s;
	size_t n = rd_field(r, &s);
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10) {
			r->bad = true;
			return 0;
		}
		v = v * 10 + d;
	}
	return v;
}

/* A number below max (exclusive), else the record is malformed. */
static uint64_t r_below(struct rd *r, uint64_t max)
{
	uint64_t v = r_u(r);

	if (v >= max) {
		r->bad = true;
		return 0;
	}
	return v;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Unescapes the next field into dst (cut to size - 1 bytes, NUL-terminated). */
static void r_s(struct rd *r, char *dst, size_t size)
{
	const char *s;
	size_t n = rd_field(r, &s), k = 0;

	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (ch == '\\') {
			int hi = i + 3 < n && s[i + 1] == 'x' ? hexval(s[i + 2]) : -1;
			int lo = hi >= 0 ? hexval(s[i + 3]) : -1;

			if (lo < 0) {
				r->bad = true;
				break;
			}
			ch = (char)(hi << 4 | lo);
			i += 3;
		}
		if (k + 1 < size)
			dst[k++] = ch;
	}
	dst[k] = '\0';
}

/* The first field of a line: its kind. */
static char r_kind(struct rd *r)
{
	const char *s;
	size_t n = rd_field(r, &s);

	return n == 1 ? s[0] : '?';
}

static int grow_zero(void **p, size_t n, size_t size)
{
	void *a = realloc(*p, (n ? n : 1) * size);

	if (!a)
		return -ENOMEM;
	memset(a, 0, (n ? n : 1) * size);
	*p = a;
	return 0;
}

/* The arrays for ncpu CPUs, nirq lines and nlat histograms, zeroed. */
static int alloc_tables(struct trace_raw *t, size_t nirq, size_t nlat)
{
	size_t ns = (size_t)t->ncpu * TRACE_NR_SOFTIRQS, cells = nirq * t->ncpu;

	if (grow_zero((void **)&t->soft_ns, ns, sizeof(*t->soft_ns)) < 0 ||
	    grow_zero((void **)&t->soft_count, ns, sizeof(*t->soft_count)) < 0 ||
	    grow_zero((void **)&t->irq, nirq, sizeof(*t->irq)) < 0 ||
	    grow_zero((void **)&t->irq_ns, cells, sizeof(*t->irq_ns)) < 0 ||
	    grow_zero((void **)&t->irq_count, cells, sizeof(*t->irq_count)) < 0 ||
	    grow_zero((void **)&t->lat, nlat, sizeof(*t->lat)) < 0)
		return -ENOMEM;
	return 0;
}

/* Lines of kind k (its first field exactly "k") in the record. */
static size_t count_kind(const char *p, size_t len, char k)
{
	struct rd r = { .p = p, .end = p + len };
	size_t n = 0;

	while (rd_line(&r))
		n += r.lend - r.f >= 1 && r.f[0] == k && (r.lend - r.f == 1 || r.f[1] == '\t');
	return n;
}

static void r_irq(struct rd *r, struct trace_raw *t)
{
	size_t nc = t->ncpu, row = t->nirq;
	uint32_t irq = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);

	/* ascending, as trace.c sorts them: the metrics pair rows by a merge */
	if (row && irq <= t->irq[row - 1])
		r->bad = true;
	t->irq[row] = irq;
	while (r->f && !r->bad) {
		size_t c = (size_t)r_below(r, nc);

		t->irq_ns[row * nc + c] = r_u(r);
		t->irq_count[row * nc + c] = r_u(r);
	}
	t->nirq++;
}

static int cmp_lat_key(const struct trace_lat_raw *x, const struct trace_lat_raw *y)
{
	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static void r_lat(struct rd *r, struct trace_raw *t)
{
	struct trace_lat_raw *l = &t->lat[t->nlat];

	memset(l, 0, sizeof(*l));
	l->major = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	l->minor = (uint32_t)r_below(r, (uint64_t)UINT32_MAX + 1);
	/* indices of the metrics' [op][kind] tables */
	l->op = (uint8_t)r_below(r, TRACE_OP__COUNT);
	l->kind = (uint8_t)r_below(r, TRACE_LAT__COUNT);
	l->count = r_u(r);
	l->sum_ns = r_u(r);
	l->remote = r_u(r);
	for (int s = 0; s < TRACE_HIST_SLOTS; s++)
		l->slots[s] = r_u(r);
	/* sorted and unique: the metrics merge two reads by this key */
	if (t->nlat && cmp_lat_key(&t->lat[t->nlat - 1], l) >= 0)
		r->bad = true;
	t->nlat++;
}

static void r_soft(struct rd *r, struct trace_raw *t)
{
	size_t c = (size_t)r_below(r, t->ncpu);

	for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
		t->soft_ns[c * TRACE_NR_SOFTIRQS + v] = r_u(r);
	for (int v = 0; v < TRACE_NR_SOFTIRQS; v++)
		t->soft_count[c * TRACE_NR_SOFTIRQS + v] = r_u(r);
}

int rec_trace_unpack(const char *p, size_t len, struct trace_raw *t)
{
	size_t nirq = count_kind(p, len, 'i'), nlat = count_kind(p, len, 'l');
	struct rd r = { .p = p, .end = p + len };
	bool valid = false, head = false;
	uint64_t budget;

	t->valid = false;
	t->nirq = t->nlat = 0;
	t->stats = false;
	t->stats_reason[0] = '\0';
	memset(t->probe, 0, sizeof(t->probe));
	if (nirq > TRACE_MAX_IRQS || nlat > TRACE_MAX_LAT)
		return -EBADMSG;
	while (!r.bad && rd_line(&r)) {
		char k = r_kind(&r);
		struct trace_probe_status *pr;

		if (!head && k != 'h')
			return -EBADMSG; /* the CPU count comes first */
		switch (k) {
		case 'h':
			if (head)
				return -EBADMSG;
			head = true;
			valid = r_u(&r) != 0;
			t->mono_ns = (int64_t)r_below(&r, (uint64_t)INT64_MAX + 1);
			t->stats = r_u(&r) != 0;
			budget = r_u(&r);
			memcpy(&t->budget_pct, &budget, sizeof(budget));
			t->ncpu = (uint32_t)r_below(&r, REC_TRACE_CPUS_MAX + 1);
			if (r.bad || (valid && !t->ncpu) || nirq * t->ncpu > REC_TRACE_CELLS_MAX)
				return -EBADMSG;
			if (valid && alloc_tables(t, nirq, nlat) < 0)
				return -ENOMEM;
			break;
		case 'w':
			r_s(&r, t->stats_reason, sizeof(t->stats_reason));
			break;
		case 'p': {
			uint64_t i = r_u(&r);

			if (i >= TRACE__COUNT)
				break; /* a probe of a later version */
			pr = &t->probe[i];
			pr->on = r_u(&r) != 0;
			pr->read = r_u(&r) != 0;
			pr->has_run = r_u(&r) != 0;
			pr->run_ns = r_u(&r);
			pr->run_cnt = r_u(&r);
			r_s(&r, pr->reason, sizeof(pr->reason));
			break;
		}
		case 's':
			if (valid)
				r_soft(&r, t);
			break;
		case 'i':
			if (valid)
				r_irq(&r, t);
			break;
		case 'l':
			if (valid)
				r_lat(&r, t);
			break;
		default:
			break; /* a kind of a later version */
		}
	}
	if (r.bad || !head) {
		t->nirq = t->nlat = 0;
		return -EBADMSG;
	}
	t->valid = valid;
	return 0;
}
