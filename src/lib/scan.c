// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Number and token scanning over bounded buffers. /proc files are trusted to
 * be text but not to be well formed: every function stops at `end`.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scan.h"

static inline bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

void scan_blanks(struct cursor *c)
{
	while (c->p < c->end && is_blank(*c->p))
		c->p++;
}

bool scan_at_eol(struct cursor *c)
{
	scan_blanks(c);
	return c->p >= c->end || *c->p == '\n' || *c->p == '\0';
}

void scan_next_line(struct cursor *c)
{
	const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));

	c->p = nl ? nl + 1 : c->end;
	if (nl)
		c->line++;
}

int scan_u64_slow(struct cursor *c, uint64_t *ret)
{
	const char *p;
	uint64_t v = 0;

	scan_blanks(c);
	p = c->p;
	if (p >= c->end || *p < '0' || *p > '9')
		return -EINVAL;
	while (p < c->end && *p >= '0' && *p <= '9') {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		p++;
	}
	if (p < c->end && !is_blank(*p) && *p != '\n' && *p != '\0')
		return -EINVAL;
	c->p = p;
	*ret = v;
	return 0;
}

size_t scan_token(struct cursor *c, const char **ret_tok)
{
	const char *s;

	scan_blanks(c);
	s = c->p;
	while (c->p < c->end && !is_blank(*c->p) && *c->p != '\n' && *c->p != '\0')
		c->p++;
	*ret_tok = s;
	return (size_t)(c->p - s);
}

bool scan_copy(char *dst, size_t size, const char *tok, size_t len)
{
	if (size == 0)
		return false;
	if (len >= size) {
		memcpy(dst, tok, size - 1);
		dst[size - 1] = '\0';
		return false;
	}
	memcpy(dst, tok, len);
	dst[len] = '\0';
	return true;
}

size_t scan_rest(struct cursor *c, const char **ret)
{
	const char *s, *e;

	scan_blanks(c);
	s = c->p;
	e = memchr(s, '\n', (size_t)(c->end - s));
	if (!e)
		e = c->end;
	c->p = e;
	while (e > s && (is_blank(e[-1]) || e[-1] == '\0'))
		e--;
	*ret = s;
	return (size_t)(e - s);
}

int parse_fail(struct parse_error *err, unsigned line, const char *what)
{
	if (err) {
		err->line = line;
		snprintf(err->what, sizeof(err->what), "%s", what);
	}
	return -EBADMSG;
}

int parse_check_complete(const char *buf, size_t len, struct parse_error *err)
{
	unsigned lines = 1;

	/* the kernel ends every /proc line with '\n': a file that does not was
	 * cut short (a copy interrupted, a short write into a recorded tree) */
	if (len == 0 || buf[len - 1] == '\n')
		return 0;
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	return parse_fail(err, lines, "truncated: last line has no newline");
}
