/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growing byte buffer and the JSON writing primitives on top of it. The
 * buffer keeps its capacity, so encoding sample after sample allocates once.
 * Errors are sticky: after an allocation failure every append is a no-op and
 * sb->err says -ENOMEM.
 */
#ifndef IOTRIAGE_STRBUF_H
#define IOTRIAGE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	int err;
};

void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);
void sb_append_slow(struct strbuf *sb, const char *s, size_t n);

static inline void sb_append(struct strbuf *sb, const char *s, size_t n)
{
	if (sb->len + n + 1 <= sb->cap && !sb->err) {
		memcpy(sb->buf + sb->len, s, n);
		sb->len += n;
		sb->buf[sb->len] = '\0';
		return;
	}
	sb_append_slow(sb, s, n);
}
void sb_puts(struct strbuf *sb, const char *s);
void sb_putc_slow(struct strbuf *sb, char ch);

/* Inline: the encoder appends single characters a few thousand times a sample. */
static inline void sb_putc(struct strbuf *sb, char ch)
{
	if (sb->len + 2 <= sb->cap && !sb->err) {
		sb->buf[sb->len++] = ch;
		sb->buf[sb->len] = '\0';
		return;
	}
	sb_putc_slow(sb, ch);
}
void sb_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_u64(struct strbuf *sb, uint64_t v);
void sb_i64(struct strbuf *sb, int64_t v);
/* Exactly what printf("%.2f") prints; "null" for NaN/inf (JSON has neither). */
void sb_fixed2(struct strbuf *sb, double v);
/* A literal (a JSON key and its punctuation: ",\"count\":") and a number
 * after it, the encoders' most common pair. */
static inline void sb_kv_u64(struct strbuf *sb, const char *lit, uint64_t v)
{
	sb_puts(sb, lit);
	sb_u64(sb, v);
}

static inline void sb_kv_i64(struct strbuf *sb, const char *lit, int64_t v)
{
	sb_puts(sb, lit);
	sb_i64(sb, v);
}

static inline void sb_kv_fixed2(struct strbuf *sb, const char *lit, double v)
{
	sb_puts(sb, lit);
	sb_fixed2(sb, v);
}

/* A JSON string literal, escaped. */
void sb_json_str(struct strbuf *sb, const char *s);
/* "key": (the key is emitted verbatim, so it must need no escaping) */
void sb_json_key(struct strbuf *sb, const char *key);

/* Closes a JSON object or array with close ('}' or ']'), in place of the
 * ',' its last member left. */
static inline void sb_json_close(struct strbuf *sb, char close)
{
	if (sb->len && sb->buf[sb->len - 1] == ',')
		sb->len--;
	sb_putc(sb, close);
}

/* Closes a member's object or array, and leaves the ',' that the next
 * member of its parent follows. */
static inline void sb_json_end(struct strbuf *sb, char close)
{
	sb_json_close(sb, close);
	sb_putc(sb, ',');
}

/* Returns a NUL-terminated view (never NULL once anything was appended). */
const char *sb_cstr(struct strbuf *sb);

#endif
