// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * UTF-8 checks and terminal escaping (text.h). Strict UTF-8 as RFC 3629 and
 * Unicode's table 3-7 define it, so that what we call valid every JSON
 * parser and terminal agrees is valid.
 */
#include <string.h>

#include "text.h"

size_t text_utf8_seq(const char *s, size_t n, uint32_t *ret_cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;
	uint32_t cp;

	if (!n)
		return 0;
	if (p[0] < 0x80) {
		*ret_cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
		if (p[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (p[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
		if (p[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (p[0] == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
	}
	if (n < len)
		return 0;
	/* only the second byte has the narrowed range */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (i > 1 && (p[i] < 0x80 || p[i] > 0xbf))
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	*ret_cp = cp;
	return len;
}

bool text_utf8_valid(const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0; i < n;) {
		size_t k;

		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		k = text_utf8_seq(s + i, n - i, &cp);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

size_t text_utf8_cut(const char *s, size_t n)
{
	/* a lead byte among the last three whose sequence runs past n */
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = (unsigned char)s[n - back];
		size_t need;

		if (c < 0x80)
			return n; /* ASCII: nothing open */
		if (c < 0xc0)
			continue; /* a continuation byte: look further back */
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return need > back ? n - back : n;
	}
	return n;
}

/*
 * The next unit of s[0..n): its length, and whether it is shown escaped (a
 * C0 control, DEL, a C1 control with all its bytes, one bad byte) or copied.
 */
static size_t text_unit(const char *s, size_t n, unsigned flags, bool *ret_escape)
{
	unsigned char c = (unsigned char)s[0];
	uint32_t cp;
	size_t k;

	if (c >= 0x20 && c < 0x7f) {
		*ret_escape = false;
		return 1;
	}
	if (c < 0x80) {
		*ret_escape = !((flags & TEXT_KEEP_NL) && (c == '\n' || c == '\t'));
		return 1;
	}
	k = text_utf8_seq(s, n, &cp);
	if (!k) {
		*ret_escape = true;
		return 1;
	}
	*ret_escape = cp <= 0x9f;
	return k;
}

static void put_hex(char *out, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
}

void text_escape(struct strbuf *sb, const char *s, size_t n, unsigned flags)
{
	size_t run = 0, i = 0;

	while (i < n) {
		bool esc;
		size_t k = text_unit(s + i, n - i, flags, &esc);

		if (!esc) {
			i += k;
			continue;
		}
		sb_append(sb, s + run, i - run);
		for (size_t j = 0; j < k; j++) {
			char e[4];

			put_hex(e, (unsigned char)s[i + j]);
			sb_append(sb, e, sizeof(e));
		}
		i += k;
		run = i;
	}
	sb_append(sb, s + run, n - run);
}

const char *text_safe(const char *s, char *buf, size_t size)
{
	size_t n = strlen(s), i = 0, o = 0;

	if (!size)
		return buf;
	while (i < n) {
		bool esc;
		size_t k = text_unit(s + i, n - i, 0, &esc);
		size_t w = esc ? 4 * k : k;

		if (o + w >= size)
			break; /* whole units only */
		for (size_t j = 0; j < k; j++) {
			if (esc)
				put_hex(buf + o + 4 * j, (unsigned char)s[i + j]);
			else
				buf[o + j] = s[i + j];
		}
		o += w;
		i += k;
	}
	buf[o] = '\0';
	return buf;
}

static bool shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("_./,:+@-", ch))
			continue;
		/* '=' first is zsh's command path expansion, '%' first a job */
		if ((ch == '=' || ch == '%') && p != s)
			continue;
		return false;
	}
	return true;
}

void text_shell_word(struct strbuf *sb, const char *s)
{
	if (shell_plain(s)) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_putc(sb, *s);
	}
	sb_putc(sb, '\'');
}
