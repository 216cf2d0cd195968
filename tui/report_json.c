// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sample document's text walked in place for the incident report:
 * members and elements visited without a tree, a few values read from
 * their spans, a few members copied out for json-c. Bounded by the span it
 * is given; a malformed text is -EBADMSG. No I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_json.h"
#include "strbuf.h"

/* The end of the string whose opening quote is at p, after its closing
 * quote; NULL when it has none. A byte loop: most strings are keys of a
 * few bytes, shorter than a memchr call's overhead. */
static const char *skip_str(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++; /* the escaped byte, whatever it is */
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* The end of the value at p (an object, array, string or scalar), NULL
 * when it does not end */
static const char *skip_value(const char *p, const char *end)
{
	/* the bytes that matter to nesting; the rest skipped a table lookup each */
	static const unsigned char special[256] = {
		['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, [','] = 1,
	};
	int depth = 0;

	while (p < end) {
		char c;

		while (p < end && !special[(unsigned char)*p])
			p++;
		if (p >= end)
			break;
		c = *p;
		if (c == '"') {
			p = skip_str(p, end);
			if (!p)
				return NULL;
			if (!depth)
				return p;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				return depth ? p : p + 1;
		} else if (!depth && c == ',') {
			return p;
		}
		p++;
	}
	return depth ? NULL : p;
}

int rj_open(const char *p, const char *end, struct rj_it *ret)
{
	p = skip_ws(p, end);
	if (p >= end || (*p != '{' && *p != '['))
		return -EBADMSG;
	ret->close = *p == '{' ? '}' : ']';
	ret->p = p + 1;
	ret->end = end;
	return 0;
}

int rj_next(struct rj_it *it, const char **ret_k, size_t *ret_kn, const char **ret_v,
	    const char **ret_ve)
{
	const char *p = skip_ws(it->p, it->end), *k = NULL, *ke = NULL, *ve;

	if (p < it->end && *p == ',')
		p = skip_ws(p + 1, it->end);
	if (p >= it->end)
		return -EBADMSG;
	if (*p == it->close) {
		it->p = p;
		return 0;
	}
	if (it->close == '}') {
		k = p;
		ke = *p == '"' ? skip_str(p, it->end) : NULL;
		if (!ke)
			return -EBADMSG;
		p = skip_ws(ke, it->end);
		if (p >= it->end || *p != ':')
			return -EBADMSG;
		p = skip_ws(p + 1, it->end);
	}
	ve = skip_value(p, it->end);
	if (!ve || ve == p)
		return -EBADMSG;
	*ret_k = k ? k + 1 : NULL;
	*ret_kn = k ? (size_t)(ke - k - 2) : 0;
	*ret_v = p;
	*ret_ve = ve;
	it->p = ve;
	return 1;
}

bool rj_key(const char *k, size_t kn, const char *want)
{
	return k && strlen(want) == kn && memcmp(k, want, kn) == 0;
}

bool rj_num(const char *v, const char *ve, double *ret)
{
	char buf[64], *e;
	size_t n = (size_t)(ve - v);

	while (n && (v[n - 1] == ' ' || v[n - 1] == '\n' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		n--;
	if (!n || n >= sizeof(buf) || !(*v == '-' || (*v >= '0' && *v <= '9')))
		return false;
	memcpy(buf, v, n);
	buf[n] = '\0';
	*ret = strtod(buf, &e);
	return *e == '\0';
}

bool rj_bool(const char *v, const char *ve, bool *ret)
{
	size_t n = (size_t)(ve - v);

	if (n >= 4 && memcmp(v, "true", 4) == 0)
		*ret = true;
	else if (n >= 5 && memcmp(v, "false", 5) == 0)
		*ret = false;
	else
		return false;
	return true;
}

static int hex4(const char *p, const char *end)
{
	int x = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;

		if (d < 0)
			return -1;
		x = x * 16 + d;
	}
	return x;
}

/* cp as UTF-8 into buf[*n..size-1), whole or not at all */
static void put_utf8(char *buf, size_t size, size_t *n, unsigned cp)
{
	char u[4];
	size_t k;

	if (cp < 0x80) {
		u[0] = (char)cp;
		k = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (*n + k < size) {
		memcpy(buf + *n, u, k);
		*n += k;
	}
}

/* The escape at p (after its backslash) into buf; the bytes it took, 0 bad */
static size_t unescape(const char *p, const char *end, char *buf, size_t size, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *c = p < end ? strchr(from, *p) : NULL;
	int hi, lo;

	if (c && *c) {
		put_utf8(buf, size, n, (unsigned char)to[c - from]);
		return 1;
	}
	if (p >= end || *p != 'u' || (hi = hex4(p + 1, end)) < 0)
		return 0;
	if (hi >= 0xd800 && hi < 0xdc00 && end - p >= 11 && p[5] == '\\' && p[6] == 'u' &&
	    (lo = hex4(p + 7, end)) >= 0xdc00 && lo < 0xe000) {
		put_utf8(buf, size, n,
			 0x10000 + ((unsigned)(hi - 0xd800) << 10) + (unsigned)(lo - 0xdc00));
		return 11;
	}
	put_utf8(buf, size, n, hi >= 0xd800 && hi < 0xe000 ? 0xfffd : (unsigned)hi);
	return 5;
}

bool rj_str(const char *v, const char *ve, char *buf, size_t size)
{
	const char *end = ve;
	size_t n = 0;

	if (!size || v >= ve || *v != '"')
		return false;
	while (end > v + 1 && end[-1] != '"')
		end--;
	end--; /* the closing quote */
	for (const char *p = v + 1; p < end; p++) {
		if (*p == '\\') {
			size_t k = unescape(p + 1, end, buf, size, &n);

			if (!k)
				return false;
			p += k;
		} else if (n + 1 < size) {
			buf[n++] = *p;
		}
	}
	buf[n] = '\0';
	return true;
}

int rj_pick(const char *s, const char *end, const struct rj_pick *keys, struct strbuf *out)
{
	struct rj_it it;
	const char *k, *v, *ve;
	size_t kn;
	bool first = true;
	int r;

	if (rj_open(s, end, &it) < 0)
		return -EBADMSG;
	sb_putc(out, it.close == '}' ? '{' : '[');
	while ((r = rj_next(&it, &k, &kn, &v, &ve)) > 0) {
		const struct rj_pick *w = keys;

		if (!k) { /* an array: pick within each element */
			if (!first)
				sb_putc(out, ',');
			first = false;
			if (rj_pick(v, ve, keys, out) < 0)
				return -EBADMSG;
			continue;
		}
		while (w->key && !rj_key(k, kn, w->key))
			w++;
		if (!w->key)
			continue;
		if (!first)
			sb_putc(out, ',');
		first = false;
		sb_putc(out, '"');
		sb_append(out, k, kn);
		sb_puts(out, "\":");
		if (!w->sub)
			sb_append(out, v, (size_t)(ve - v));
		else if (rj_pick(v, ve, w->sub, out) < 0)
			return -EBADMSG;
	}
	if (r < 0)
		return r;
	sb_putc(out, it.close);
	return out->err;
}
