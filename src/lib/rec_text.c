// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_text: the flight recorder's text records, written and read: the one
 * line format of the sections (collect/rec_payload.c) and of the trace
 * record (trace/rec_trace.c). Pure; the reader trusts nothing.
 */
#include <string.h>

#include "rec_text.h"

void rec_text_put_s(struct strbuf *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	for (const char *p = s, *run = s;; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch && ch >= 0x20 && ch != 0x7f && ch != '\\')
			continue;
		if (p > run)
			sb_append(o, run, (size_t)(p - run));
		if (!ch)
			break;
		sb_putc(o, '\\');
		sb_putc(o, 'x');
		sb_putc(o, hex[ch >> 4]);
		sb_putc(o, hex[ch & 15]);
		run = p + 1;
	}
}

void rec_text_init(struct rec_text *r, const char *p, size_t len)
{
	r->p = p;
	r->end = p + len;
	r->f = r->lend = NULL;
	r->bad = false;
	r->total = 0;
}

bool rec_text_line(struct rec_text *r)
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

size_t rec_text_field(struct rec_text *r, const char **ret)
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

uint64_t rec_text_u(struct rec_text *r)
{
	const char *s;
	size_t n = rec_text_field(r, &s);
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

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void rec_text_s(struct rec_text *r, char *dst, size_t size)
{
	const char *s;
	size_t n = rec_text_field(r, &s), k = 0;

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
	if (size)
		dst[k] = '\0';
}

char rec_text_kind(struct rec_text *r)
{
	const char *s;
	size_t n = rec_text_field(r, &s);

	return n == 1 ? s[0] : '?';
}
