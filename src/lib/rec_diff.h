/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rec_diff: a frame of the flight recorder as the difference from the one
 * before (doc/recording.md, "Delta frames"). Lines equal to the previous
 * payload's are counted, not stored; a changed line whose text around the
 * numbers is the same is stored as the differences of its numbers (zigzag
 * varints, mostly zeros); any other line as its bytes. What the kernel
 * prints is counters in fixed text, so a second of a 256-CPU host's
 * /proc/interrupts becomes a few kilobytes before compression. Pure: no
 * I/O, no allocation beyond the output buffer; the decoder trusts nothing.
 */
#ifndef IOTRIAGE_REC_DIFF_H
#define IOTRIAGE_REC_DIFF_H

#include <stddef.h>

struct strbuf;

/* Appends to out the difference turning prev into cur. Returns out->err. */
int rec_diff_encode(const char *prev, size_t prev_len, const char *cur, size_t cur_len,
		    struct strbuf *out);

/* Rebuilds cur from prev and a difference into out (reset first), at most
 * max bytes. 0, -EBADMSG (malformed, or not a difference of prev), -EFBIG
 * or -ENOMEM. */
int rec_diff_decode(const char *prev, size_t prev_len, const char *diff, size_t diff_len,
		    size_t max, struct strbuf *out);

#endif
