// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU sets as the kernel prints them: cpulists ("0-3,8") and 32-bit-group
 * masks ("0000ff0f"), parsed strictly and formatted back. Pure: no I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpuset.h"

unsigned cpuset_count(const struct cpuset *s)
{
	unsigned n = 0;

	for (size_t i = 0; i < CPUSET_WORDS; i++)
		n += (unsigned)__builtin_popcountll(s->w[i]);
	return n;
}

bool cpuset_empty(const struct cpuset *s)
{
	for (size_t i = 0; i < CPUSET_WORDS; i++)
		if (s->w[i])
			return false;
	return true;
}

bool cpuset_equal(const struct cpuset *a, const struct cpuset *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

bool cpuset_subset(const struct cpuset *a, const struct cpuset *b)
{
	for (size_t i = 0; i < CPUSET_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

void cpuset_and(struct cpuset *dst, const struct cpuset *a, const struct cpuset *b)
{
	for (size_t i = 0; i < CPUSET_WORDS; i++)
		dst->w[i] = a->w[i] & b->w[i];
}

void cpuset_andnot(struct cpuset *dst, const struct cpuset *a, const struct cpuset *b)
{
	for (size_t i = 0; i < CPUSET_WORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

int cpu_ids_col(const int *ids, size_t n, int cpu)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == cpu)
			return (int)i;
	return -1;
}

int cpuset_next(const struct cpuset *s, unsigned from)
{
	for (unsigned c = from; c < CPUSET_MAX; c++)
		if (cpuset_has(s, c))
			return (int)c;
	return -1;
}

static int parse_cpu(const char **p, const char *end, unsigned *ret)
{
	unsigned v = 0;
	const char *q = *p;

	if (q >= end || !isdigit((unsigned char)*q))
		return -EINVAL;
	while (q < end && isdigit((unsigned char)*q)) {
		v = v * 10 + (unsigned)(*q - '0');
		if (v >= CPUSET_MAX)
			return -EINVAL;
		q++;
	}
	*p = q;
	*ret = v;
	return 0;
}

static size_t trim_len(const char *buf, size_t len)
{
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\0'))
		len--;
	return len;
}

int cpuset_parse_list(const char *buf, size_t len, struct cpuset *ret)
{
	struct cpuset s = { 0 };
	const char *p = buf, *end = buf + trim_len(buf, len);

	while (p < end) {
		unsigned a, b, stride = 1;

		if (parse_cpu(&p, end, &a) < 0)
			return -EINVAL;
		b = a;
		if (p < end && *p == '-') {
			p++;
			if (parse_cpu(&p, end, &b) < 0 || b < a)
				return -EINVAL;
			/* "0-15:2/4" group syntax is accepted by the kernel on input only */
		}
		for (unsigned c = a; c <= b; c += stride)
			cpuset_set(&s, c);
		if (p < end) {
			if (*p != ',')
				return -EINVAL;
			p++;
			if (p == end)
				return -EINVAL;
		}
	}
	*ret = s;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int cpuset_parse_mask(const char *buf, size_t len, struct cpuset *ret)
{
	struct cpuset s = { 0 };
	size_t n = trim_len(buf, len);
	unsigned bit = 0;
	bool any = false;

	if (n >= 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		buf += 2;
		n -= 2;
	}
	/* least significant digit last: walk backwards */
	for (size_t i = n; i-- > 0;) {
		int v;

		if (buf[i] == ',')
			continue;
		v = hexval(buf[i]);
		if (v < 0)
			return -EINVAL;
		any = true;
		for (int k = 0; k < 4; k++, bit++)
			if (v & (1 << k)) {
				if (bit >= CPUSET_MAX)
					return -EINVAL;
				cpuset_set(&s, bit);
			}
	}
	if (!any && n)
		return -EINVAL;
	*ret = s;
	return 0;
}

int cpuset_format_list(const struct cpuset *s, char *buf, size_t size)
{
	size_t len = 0;
	int c = cpuset_next(s, 0);

	if (size == 0)
		return -ENOSPC;
	buf[0] = '\0';
	while (c >= 0) {
		int e = c, n;

		while (e + 1 < CPUSET_MAX && cpuset_has(s, (unsigned)e + 1))
			e++;
		if (e == c)
			n = snprintf(buf + len, size - len, "%s%d", len ? "," : "", c);
		else
			n = snprintf(buf + len, size - len, "%s%d-%d", len ? "," : "", c, e);
		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += (size_t)n;
		c = e + 1 < CPUSET_MAX ? cpuset_next(s, (unsigned)e + 1) : -1;
	}
	return (int)len;
}

int cpuset_format_mask(const struct cpuset *s, char *buf, size_t size)
{
	int top = -1;
	size_t len = 0;

	for (int c = CPUSET_MAX - 1; c >= 0; c--)
		if (cpuset_has(s, (unsigned)c)) {
			top = c;
			break;
		}
	/* the kernel prints at least one 32-bit group; so do we */
	for (int g = top < 0 ? 0 : top / 32; g >= 0; g--) {
		uint32_t v = (uint32_t)(s->w[g / 2] >> ((g % 2) * 32));
		int n = snprintf(buf + len, size - len, "%s%08x", len ? "," : "", v);

		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += (size_t)n;
	}
	return (int)len;
}
