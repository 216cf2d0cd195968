/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict scanning over (buf, len): no sscanf, no locale, no reads past end.
 * A cursor is a pair of pointers; every function advances *p on success only.
 */
#ifndef IOTRIAGE_SCAN_H
#define IOTRIAGE_SCAN_H

#include <errno.h>
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

/*
 * The kernel prints each /proc/interrupts and /proc/softirqs counter as
 * " %10u": a space, then the number right-aligned in ten columns. When the
 * next 11 bytes have exactly that shape with a value below 10^8 (two leading
 * spaces at least) and a blank or the end follows, reads it eight digits at
 * once and returns true; else returns false with the cursor untouched, and
 * scan_u64() must read it. Same value and cursor as scan_u64() would give.
 */
static inline bool scan_count_fast(struct cursor *c, uint64_t *ret)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL;
	const char *p = c->p;
	uint64_t w, x, sp, fill, d;

	if (c->end - p < 11 || p[0] != ' ' || p[1] != ' ' || p[2] != ' ')
		return false;
	if (c->end - p > 11 && p[11] != ' ' && p[11] != '\n' && p[11] != '\t' && p[11] != '\0')
		return false;
	memcpy(&w, p + 3, sizeof(w));	  /* p[3] is the lowest byte */
	if (w == 0x3020202020202020ULL) { /* "       0": most counters of a big host */
		c->p = p + 11;
		*ret = 0;
		return true;
	}
	/* 0x80 in every byte that is a space, exactly */
	x = w ^ (0x20 * ones);
	sp = ~(((x & (0x7f * ones)) + 0x7f * ones) | x | (0x7f * ones));
	fill = (sp >> 7) * 0xff; /* 0xff per space byte */
	/* spaces only as a prefix (low bytes), and the last byte a digit */
	if ((fill & (fill + 1)) != 0 || fill == ~0ULL)
		return false;
	w += (sp >> 7) * 0x10; /* ' ' -> '0' */
	/* every byte '0'..'9' */
	if ((((w & (0xf0 * ones)) - 0x30 * ones) |
	     (((w + 0x06 * ones) & (0xf0 * ones)) - 0x30 * ones)) != 0)
		return false;
	d = w - 0x30 * ones;
	d = d * 10 + (d >> 8);
	d = (((d & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
	     (((d >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >>
	    32;
	c->p = p + 11;
	*ret = d;
	return true;
#else
	(void)c;
	(void)ret;
	return false;
#endif
}

/* Skips blanks, then returns the next blank-delimited token on this line.
 * Returns its length (0 at end of line). */
size_t scan_token(struct cursor *c, const char **ret_tok);

/* Copies a token into a fixed buffer; false if it did not fit. */
bool scan_copy(char *dst, size_t size, const char *tok, size_t len);

/* Returns the rest of the line (blanks trimmed at both ends) and moves to its end. */
size_t scan_rest(struct cursor *c, const char **ret);

/* Where a parse failed: 1-based line and what was wrong there. */
struct parse_error {
	unsigned line;
	char what[96];
};

/* Records a parse failure (err may be NULL) and returns -EBADMSG. */
int parse_fail(struct parse_error *err, unsigned line, const char *what);

/* -EBADMSG unless buf is empty or ends with a newline, as every /proc file does. */
int parse_check_complete(const char *buf, size_t len, struct parse_error *err);

#endif
