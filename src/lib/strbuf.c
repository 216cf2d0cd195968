// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Byte buffer and JSON primitives. Numbers are formatted by hand because the
 * encoder runs every sample; the output is byte-identical to printf's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "text.h"

static bool sb_reserve(struct strbuf *sb, size_t extra)
{
	size_t need, ncap;
	char *n;

	if (sb->err)
		return false;
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return true;
	ncap = sb->cap ? sb->cap : 256;
	while (ncap < need)
		ncap *= 2;
	n = realloc(sb->buf, ncap);
	if (!n) {
		sb->err = -ENOMEM;
		return false;
	}
	sb->buf = n;
	sb->cap = ncap;
	return true;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->err = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	if (!sb)
		return;
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->err = 0;
}

void sb_append_slow(struct strbuf *sb, const char *s, size_t n)
{
	if (!sb_reserve(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_append(sb, s, strlen(s));
}

void sb_putc_slow(struct strbuf *sb, char ch)
{
	if (!sb_reserve(sb, 1))
		return;
	sb->buf[sb->len++] = ch;
	sb->buf[sb->len] = '\0';
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !sb_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_u64(struct strbuf *sb, uint64_t v)
{
	char tmp[21]; /* 20 digits of UINT64_MAX + NUL */
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_append(sb, tmp + i, sizeof(tmp) - i);
}

void sb_i64(struct strbuf *sb, int64_t v)
{
	if (v < 0) {
		sb_putc(sb, '-');
		sb_u64(sb, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(sb, (uint64_t)v);
	}
}

void sb_fixed2(struct strbuf *sb, double v)
{
	double s, f;
	uint64_t cents;

	/* most rates of a quiet device are exactly zero */
	if (v == 0.0 && !signbit(v)) {
		sb_append(sb, "0.00", 4);
		return;
	}
	if (!isfinite(v)) {
		sb_puts(sb, "null");
		return;
	}
	s = fabs(v) * 100.0;
	f = floor(s);
	/* Near a half cent, or beyond exact integers, the scaled value may round
	 * differently from printf's exact decimal expansion: let printf decide. */
	if (s > 9.0e15 || fabs(s - f - 0.5) < 1e-6) {
		sb_printf(sb, "%.2f", v);
		return;
	}
	cents = (uint64_t)f + (s - f > 0.5 ? 1 : 0);
	{
		char tmp[24]; /* '-' + 16 integer digits + '.' + 2 decimals */
		size_t i = sizeof(tmp);
		uint64_t whole = cents / 100;

		tmp[--i] = (char)('0' + cents % 10);
		tmp[--i] = (char)('0' + (cents / 10) % 10);
		tmp[--i] = '.';
		do {
			tmp[--i] = (char)('0' + whole % 10);
			whole /= 10;
		} while (whole);
		/* printf prints "-0.00" for a negative value that rounds to zero */
		if (signbit(v))
			tmp[--i] = '-';
		sb_append(sb, tmp + i, sizeof(tmp) - i);
	}
}

/*
 * Always valid UTF-8 JSON, whatever s holds: a process name, a path or a
 * request's text may be any bytes. A byte that is not part of well-formed
 * UTF-8 becomes U+FFFD; DEL and the C1 controls are escaped as \u00XX like
 * C0, so the JSON is also safe to print on a terminal.
 */
void sb_json_str(struct strbuf *sb, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	sb_putc(sb, '"');
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		uint32_t cp = ch;
		size_t k = 1;

		if (ch != '"' && ch != '\\' && ch >= 0x20 && ch < 0x7f) {
			s++;
			continue;
		}
		if (ch >= 0x80) {
			k = text_utf8_seq(s, strnlen(s, 4), &cp);
			if (k && cp > 0x9f) {
				s += k;
				continue;
			}
		}
		/* flush the plain run before the character that needs escaping */
		sb_append(sb, run, (size_t)(s - run));
		if (ch == '"' || ch == '\\') {
			char esc[2] = { '\\', (char)ch };

			sb_append(sb, esc, sizeof(esc));
		} else if (!k) {
			sb_append(sb, "\\ufffd", 6);
			k = 1;
		} else {
			char esc[6] = { '\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15] };

			sb_append(sb, esc, sizeof(esc));
		}
		s += k;
		run = s;
	}
	sb_append(sb, run, (size_t)(s - run));
	sb_putc(sb, '"');
}

void sb_json_key(struct strbuf *sb, const char *key)
{
	sb_putc(sb, '"');
	sb_puts(sb, key);
	sb_append(sb, "\":", 2);
}

const char *sb_cstr(struct strbuf *sb)
{
	if (!sb->buf && !sb_reserve(sb, 0))
		return "";
	if (sb->buf && sb->len == 0)
		sb->buf[0] = '\0';
	return sb->buf;
}
