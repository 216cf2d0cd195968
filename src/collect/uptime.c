// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/uptime -> centiseconds. sysstat reads "SEC.CC" as SEC * 100 + CC
 * and takes its intervals from it, so we keep exactly that resolution.
 */
#include <errno.h>

#include "uptime.h"
#include "scan.h"

static int parse_cs(struct cursor *c, uint64_t *ret, struct parse_error *err)
{
	uint64_t sec, frac = 0;
	unsigned digits = 0;

	if (scan_u64(c, &sec) < 0) {
		/* scan_u64 refuses "12.34" as a whole: read the integer part by hand */
		const char *p;

		scan_blanks(c);
		p = c->p;
		sec = 0;
		if (p >= c->end || *p < '0' || *p > '9')
			return parse_fail(err, c->line, "expected seconds");
		while (p < c->end && *p >= '0' && *p <= '9') {
			if (sec > UINT64_MAX / 1000)
				return parse_fail(err, c->line, "uptime out of range");
			sec = sec * 10 + (uint64_t)(*p++ - '0');
		}
		if (p < c->end && *p == '.') {
			p++;
			while (p < c->end && *p >= '0' && *p <= '9') {
				/* centiseconds: digits past the second are dropped, as sysstat does */
				if (digits < 2)
					frac = frac * 10 + (uint64_t)(*p - '0');
				digits++;
				p++;
			}
		}
		if (p < c->end && *p != ' ' && *p != '\t' && *p != '\n')
			return parse_fail(err, c->line, "malformed seconds");
		c->p = p;
	}
	if (digits == 1)
		frac *= 10;
	*ret = sec * 100 + frac;
	return 0;
}

int uptime_parse(const char *buf, size_t len, struct uptime_raw *ret, struct parse_error *err)
{
	struct uptime_raw u = { 0 };
	struct cursor c;
	int r;

	r = parse_check_complete(buf, len, err);
	if (r < 0)
		return r;
	cursor_init(&c, buf, len);
	r = parse_cs(&c, &u.uptime_cs, err);
	if (r < 0)
		return r;
	/* the idle field is optional for our purposes */
	if (!scan_at_eol(&c) && parse_cs(&c, &u.idle_cs, NULL) < 0)
		u.idle_cs = 0;
	*ret = u;
	return 0;
}
