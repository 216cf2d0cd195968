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

/* Skips blanks, then reads a decimal uint64. Returns 0, -EINVAL (no digits or
 * a digit run followed by a non-blank) or -ERANGE (overflow). */
int scan_u64(struct cursor *c, uint64_t *ret);

/* Skips blanks, then returns the next blank-delimited token on this line.
 * Returns its length (0 at end of line). */
size_t scan_token(struct cursor *c, const char **ret_tok);

/* Copies a token into a fixed buffer; false if it did not fit. */
bool scan_copy(char *dst, size_t size, const char *tok, size_t len);

/* Returns the rest of the line (blanks trimmed at both ends) and moves to its end. */
size_t scan_rest(struct cursor *c, const char **ret);

#endif
