/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict scanning over (buf, len): no sscanf, no locale, no reads past end.
 * A cursor is a pair of pointers; every function advances *p on success only.
 */
#ifndef IOTRIAGE_SCAN_H
#define IOTRIAGE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const char *p;
	const char *end;
	unsigned line; /* 1-based line number of p, for error messages */
};

static inline void cursor_init(struct cursor *c, const char *buf, size_t len)
{
	c->p = buf;
	c->end = buf + len;
	c->line = 1;
}

static inline bool cursor_eof(const struct cursor *c)
{
	return c->p >= c->end;
}

/* Skips spaces and tabs (not newlines). */
void scan_blanks(struct cursor *c);

/* True when only blanks remain before the end of the line (or buffer). */
bool scan_at_eol(struct cursor *c);

/* Moves past the next '\n' (or to the end). */
void scan_next_line(struct cursor *c);

/* The careful path of scan_u64: 20 digits and more, with overflow checks. */
int scan_u64_slow(struct cursor *c, uint64_t *ret);

/* Skips blanks, then reads a decimal uint64. Returns 0, -EINVAL (no digits or
 * a digit run followed by a non-blank) or -ERANGE (overflow).
 * Inline because /proc/interrupts on a big host is half a million numbers. */
static inline int scan_u64(struct cursor *c, uint64_t *ret)
{
	const char *p = c->p, *end = c->end;
	uint64_t v = 0;
	unsigned n = 0;

	/* /proc/interrupts pads every count to 10 columns: skip runs of
	 * spaces eight at a time */
	while (end - p >= 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));
		if (w != 0x2020202020202020ULL)
			break;
		p += 8;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	/* up to 19 digits cannot overflow: no check needed on the hot path */
	while (p < end && n < 19 && (unsigned)(*p - '0') < 10) {
		v = v * 10 + (unsigned)(*p - '0');
		p++;
		n++;
	}
	if (n == 0 || n == 19) {
		c->p = p - n;
		return scan_u64_slow(c, ret);
	}
	if (p < end && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\0') {
		/* leave the cursor where it was, as the slow path does */
		return -EINVAL;
	}
	c->p = p;
	*ret = v;
	return 0;
}

/* Skips blanks, then returns the next blank-delimited token on this line.
 * Returns its length (0 at end of line). */
size_t scan_token(struct cursor *c, const char **ret_tok);

/* Copies a token into a fixed buffer; false if it did not fit. */
bool scan_copy(char *dst, size_t size, const char *tok, size_t len);

/* Returns the rest of the line (blanks trimmed at both ends) and moves to its end. */
size_t scan_rest(struct cursor *c, const char **ret);

#endif
