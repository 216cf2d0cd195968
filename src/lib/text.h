/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text that leaves the program: strict UTF-8 checks (for JSON replies, which
 * must be valid UTF-8) and the one escaping function for text shown on a
 * terminal, so that a process name, a device name or a server's message
 * cannot steer the terminal of whoever reads it (often root).
 */
#ifndef IOTRIAGE_TEXT_H
#define IOTRIAGE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/*
 * Length (1 to 4) of the well-formed UTF-8 sequence at s[0..n), 0 when the
 * bytes there are not one (a stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, a sequence cut by n). Stores the
 * code point in *ret_cp when it returns non-zero.
 */
size_t text_utf8_seq(const char *s, size_t n, uint32_t *ret_cp);

/* Whether s[0..n) is entirely well-formed UTF-8 (NUL bytes allowed). */
bool text_utf8_valid(const char *s, size_t n);

/*
 * The largest length <= n that does not end inside a UTF-8 sequence which
 * s[0..n) starts but does not finish: where to cut a message that was
 * truncated to a byte count, so the cut leaves no half character.
 */
size_t text_utf8_cut(const char *s, size_t n);

/* text_escape flags */
enum {
	TEXT_KEEP_NL = 1 << 0, /* leave '\n' and '\t' as they are (whole reports) */
};

/*
 * Appends s[0..n) to sb for a terminal: every byte of a C0 control (but '\n'
 * and '\t' with TEXT_KEEP_NL), DEL, a C1 control (U+0080..U+009F, which
 * terminals take for ESC [ and the like) and every byte that is not part of
 * well-formed UTF-8 becomes "\xHH"; everything else is copied. What the live
 * view shows through ncurses (^[ and the like) is the same defence.
 */
void text_escape(struct strbuf *sb, const char *s, size_t n, unsigned flags);

/*
 * s, escaped as text_escape(.., 0) does, into buf (NUL-terminated, cut on a
 * whole escape or character when it does not fit). Returns buf, for use as
 * a printf argument: printf("%s", text_safe(comm, buf, sizeof(buf))).
 */
const char *text_safe(const char *s, char *buf, size_t size);

/*
 * Appends s to sb as one word of a POSIX shell command line: as it is when
 * it is not empty and every byte is one no shell treats specially (letters,
 * digits and _ . / , : + @ -, and = or % after the first byte), else between
 * single quotes (a quote inside as '\''). For the commands printed to be
 * pasted: a name from a recorded tree ("sdb;reboot") stays a name.
 */
void text_shell_word(struct strbuf *sb, const char *s);

#endif
