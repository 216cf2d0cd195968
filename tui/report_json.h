/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sample document's text walked without building a tree: the incident
 * report reads a few numbers of each of thousands of documents, and
 * json-c's parse of a whole document was most of its time
 * (doc/PERFORMANCE.md, "The incident report"). Members and elements are
 * visited in place; a number, a bool or a string is read from its span.
 * Every byte is treated as hostile: a malformed text is an error, never a
 * read past its end. No I/O.
 */
#ifndef IOTRIAGE_TUI_REPORT_JSON_H
#define IOTRIAGE_TUI_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* An object's members or an array's elements, one at a time */
struct rj_it {
	const char *p, *end;
	char close; /* '}' or ']' */
};

/* Opens the object or array whose first byte (after white space) is at
 * p: 0, or -EBADMSG when it is neither. */
int rj_open(const char *p, const char *end, struct rj_it *ret);
/* The next member (its key without the quotes in *ret_k, *ret_kn; NULL
 * for an array's element) and its value's span [*ret_v, *ret_ve): 1, 0 at
 * the end, -EBADMSG. */
int rj_next(struct rj_it *it, const char **ret_k, size_t *ret_kn, const char **ret_v,
	    const char **ret_ve);
/* Whether a member's key is want */
bool rj_key(const char *k, size_t kn, const char *want);

/* A value read from its span: false when it is not one (null, another type) */
bool rj_num(const char *v, const char *ve, double *ret);
bool rj_bool(const char *v, const char *ve, bool *ret);
/* A string into buf (NUL-terminated, cut to fit): its escapes decoded
 * (\uXXXX as UTF-8, a lone surrogate as U+FFFD) */
bool rj_str(const char *v, const char *ve, char *buf, size_t size);

/* The members of the object at s..end named in keys (NULL-terminated; a
 * key's sub, when not NULL, picks within its value, an array's each
 * object), copied as an object's text into out: 0, -EBADMSG, -ENOMEM. */
struct rj_pick {
	const char *key;
	const struct rj_pick *sub;
};
int rj_pick(const char *s, const char *end, const struct rj_pick *keys, struct strbuf *out);

#endif
