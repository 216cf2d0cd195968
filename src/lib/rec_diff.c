// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_diff: the flight recorder's delta frames: lines of the previous
 * payload kept, numbers of a changed line stored as differences. Ops (one byte, then
 * their operands):
 *   1 SAME n       the next n lines are the previous payload's
 *   2 NUMS d...    the next line is the previous one's with each number
 *                  changed by d (one zigzag varint per digit run)
 *   3 RAW len b... the next line is these bytes
 *   4 SPARSE k (z d)...  as NUMS, for a line whose numbers mostly did not
 *                  change: k pairs of (numbers unchanged before, change)
 *   5 COPY n       the next n bytes (whole lines) are the previous payload's
 * (this encoder writes COPY, not SAME: finding the first differing byte is
 * a word compare, counting lines a pass over every byte)
 * NUMS, SPARSE and RAW replace one line of the previous payload (when any
 * is left).
 * A changed digit run takes part only when it reads back as printed: at
 * most 19 digits, no leading zero (so a changed "%010u" or "0.05" makes
 * its line RAW); an unchanged one is copied as text.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload.c packs a
 * sample's sections, trace/rec_trace.c its trace read, lib/rec_diff.c
 * makes a frame the difference from the last, lib/recwriter*.c and recreader.c
 * write and read the segments, daemon/rec.c drives them from iotriaged's loop
 * (doc/recording.md).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rec_diff.h"
#include "strbuf.h"

enum { OP_SAME = 1, OP_NUMS = 2, OP_RAW = 3, OP_SPARSE = 4, OP_COPY = 5 };

static void put_varint(struct strbuf *out, uint64_t v)
{
	char b[10];
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (char)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (char)v;
	sb_append(out, b, n);
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *ret)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -EBADMSG;
		v |= (uint64_t)(**p & 0x7f) << shift;
		if (!(*(*p)++ & 0x80)) {
			*ret = v;
			return 0;
		}
	}
	return -EBADMSG;
}

static bool is_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* How many bytes a and b have equal from their start: 32 at a time (four
 * independent 8-byte compares the CPU overlaps; a 256-CPU host's payload
 * is 5.8 MB, mostly equal, so this loop is most of the recorder's time),
 * then 8, then 1. */
static size_t first_diff(const char *a, size_t an, const char *b, size_t bn)
{
	size_t n = an < bn ? an : bn, i = 0;

	/* libc's memcmp is the widest compare the CPU has (AVX2, AVX-512) */
	while (i + 256 <= n && memcmp(a + i, b + i, 256) == 0)
		i += 256;
	while (i + 32 <= n) {
		uint64_t x[4], y[4];

		memcpy(x, a + i, 32);
		memcpy(y, b + i, 32);
		if ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]))
			break;
		i += 32;
	}
	while (i + 8 <= n) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

#define ONES UINT64_C(0x0101010101010101)
/* the word as if loaded little-endian: byte 0 of memory in bits 0..7 */
static inline uint64_t le64_host(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}

#define HIGHS UINT64_C(0x8080808080808080)

/* The high bit of each byte of x that is an ASCII digit, eight at a time:
 * a digit is 0x30..0x39, high nibble 3 and low nibble + 6 under 16. */
static uint64_t digit_mask(uint64_t x)
{
	uint64_t bad =
	    ((x & 0xF0 * ONES) ^ 0x30 * ONES) | (((x & 0x0F * ONES) + 0x06 * ONES) & 0x10 * ONES);

	/* exact zero-byte test (no carries between bytes): high bit set where bad is 0 */
	return ~(((bad & 0x7F * ONES) + 0x7F * ONES) | bad | 0x7F * ONES);
}

/* Digit runs starting in p[0..n) (p[-1] a digit when prev_digit). Eight
 * bytes a step: a run starts at a digit whose byte before is not one.
 * Byte at a time it was half of the recorder's time on a 256-CPU host
 * (every /proc/interrupts line changes somewhere each second). */
static size_t run_starts(const char *p, size_t n, bool prev_digit)
{
	uint64_t carry = prev_digit ? HIGHS : 0;
	size_t c = 0, k = 0;

	for (; k + 8 <= n; k += 8) {
		uint64_t x, d;

		memcpy(&x, p + k, 8);
		d = digit_mask(le64_host(x));
		/* each byte's predecessor: shifted up one byte, the last byte
		 * of the previous word coming in at the bottom */
		/* the starts are high bits only: summing the bytes' bit 7 by a
		 * multiply (no popcnt instruction in the baseline x86-64) */
		c += (size_t)((((d & ~((d << 8) | (carry >> 56))) >> 7) * ONES) >> 56);
		carry = d;
	}
	for (bool prev = carry & (UINT64_C(0x80) << 56); k < n; k++) {
		bool dig = is_digit(p[k]);

		c += dig && !prev;
		prev = dig;
	}
	return c;
}

/* Where the digit run after k others starts in p[0..n) (p[-1] a digit when
 * prev_digit), or n when there are not that many: the decoder skips a
 * sparse line's unchanged numbers eight bytes a step, as run_starts()
 * counts them, instead of number by number. */
static size_t run_start_after(const char *p, size_t n, bool prev_digit, uint64_t k)
{
	uint64_t carry = prev_digit ? HIGHS : 0;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, d, st, c;

		memcpy(&x, p + i, 8);
		d = digit_mask(le64_host(x));
		st = d & ~((d << 8) | (carry >> 56));
		c = ((st >> 7) * ONES) >> 56;
		if (c > k) {
			/* in this word: past its k lowest starts */
			for (; k; k--)
				st &= st - 1;
			return i + (size_t)__builtin_ctzll(st) / 8;
		}
		k -= c;
		carry = d;
	}
	for (bool prev = carry & (UINT64_C(0x80) << 56); i < n; i++) {
		bool dig = is_digit(p[i]);

		if (dig && !prev && !k--)
			return i;
		prev = dig;
	}
	return n;
}

/* The digit run at p (of n bytes) as a number, when it reads back as printed. */
static bool run_value(const char *p, size_t n, uint64_t *ret)
{
	uint64_t v = 0;

	if (n > 19 || (n > 1 && p[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (uint64_t)(p[i] - '0');
	*ret = v;
	return true;
}

static size_t digits_at(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && is_digit(*q))
		q++;
	return (size_t)(q - p);
}

static uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

/* NUMS or SPARSE for new line (b, bn) against old line (a, an), the
 * smaller; false (nothing appended) when their text around the numbers
 * differs. Equal bytes are skipped at memcmp's pace, counting the digit
 * runs passed (unchanged numbers); only where they differ are numbers read.
 * pairs is scratch: (unchanged before, change) of each changed number. */
static bool encode_nums(const char *a, size_t an, const char *b, size_t bn, struct strbuf *out,
			struct strbuf *pairs)
{
	size_t i = 0, j = 0, count = 0, zeros = 0, nonzero = 0;
	bool in_run = false;

	sb_reset(pairs);
	for (;;) {
		size_t na, nb, si, k, st;
		uint64_t va, vb, pr[2];

		/* the equal stretch: count the digit runs that start in it */
		k = first_diff(a + i, an - i, b + j, bn - j);
		st = run_starts(a + i, k, in_run);
		count += st;
		zeros += st;
		if (k)
			in_run = is_digit(a[i + k - 1]);
		i += k;
		j += k;
		if (i == an && j == bn)
			break;
		/* a difference: it must be in a digit run of one of them (which
		 * may have started in the equal bytes), else the text differs */
		if (!(i < an && is_digit(a[i])) && !(j < bn && is_digit(b[j])))
			return false;
		/* back to the run's start, which the equal bytes share */
		si = i;
		while (si > 0 && is_digit(a[si - 1]))
			si--;
		if (si < i) { /* that run was counted as unchanged */
			count--;
			zeros--;
		}
		j -= i - si;
		i = si;
		na = digits_at(a + i, a + an);
		nb = digits_at(b + j, b + bn);
		if (!na || !nb || !run_value(a + i, na, &va) || !run_value(b + j, nb, &vb))
			return false;
		pr[0] = zeros;
		pr[1] = vb - va;
		sb_append(pairs, (const char *)pr, sizeof(pr));
		count++;
		nonzero++;
		zeros = 0;
		i += na;
		j += nb;
		in_run = false;
	}
	if (pairs->err)
		return false;
	/* a pair costs ~3 bytes, a zero 1: sparse when under a third changed */
	if (nonzero * 3 < count) {
		sb_putc(out, OP_SPARSE);
		put_varint(out, nonzero);
		for (size_t k = 0; k < nonzero; k++) {
			uint64_t pr[2];

			memcpy(pr, pairs->buf + k * sizeof(pr), sizeof(pr));
			put_varint(out, pr[0]);
			put_varint(out, zigzag(pr[1]));
		}
	} else {
		size_t done = 0;

		sb_putc(out, OP_NUMS);
		for (size_t k = 0; k < nonzero; k++) {
			uint64_t pr[2];

			memcpy(pr, pairs->buf + k * sizeof(pr), sizeof(pr));
			for (uint64_t z = 0; z < pr[0]; z++)
				sb_putc(out, 0);
			put_varint(out, zigzag(pr[1]));
			done += (size_t)pr[0] + 1;
		}
		for (; done < count; done++)
			sb_putc(out, 0);
	}
	return true;
}

static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
}

int rec_diff_encode(const char *prev, size_t prev_len, const char *cur, size_t cur_len,
		    struct strbuf *out)
{
	const char *a = prev, *ae = prev + prev_len, *b = cur, *be = cur + cur_len;
	struct strbuf pairs = { 0 };

	while (b < be) {
		size_t k = first_diff(a, (size_t)(ae - a), b, (size_t)(be - b)), n, an, bn;
		const char *nl;

		/* the whole lines of the equal stretch: one COPY */
		if (k == (size_t)(be - b) && k == (size_t)(ae - a))
			n = k;
		else
			n = (nl = memrchr(b, '\n', k)) ? (size_t)(nl - b) + 1 : 0;
		if (n) {
			sb_putc(out, OP_COPY);
			put_varint(out, n);
			a += n;
			b += n;
			continue;
		}
		/* the line that differs */
		bn = line_len(b, be);
		an = a < ae ? line_len(a, ae) : 0;
		if (a >= ae || !encode_nums(a, an, b, bn, out, &pairs)) {
			sb_putc(out, OP_RAW);
			put_varint(out, bn);
			sb_append(out, b, bn);
		}
		a += an;
		b += bn;
	}
	sb_free(&pairs);
	return out->err;
}

/* Appends v in decimal. */
static void put_dec(struct strbuf *out, uint64_t v)
{
	char b[20];
	size_t n = sizeof(b);

	do {
		b[--n] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sb_append(out, b + n, sizeof(b) - n);
}

/* One line of OP_NUMS or OP_SPARSE (op): the previous payload's line at
 * *pa with its numbers changed by the differences at *pp, into out; both
 * cursors advanced. 0, -EBADMSG or -EFBIG. */
static int decode_nums(int op, const unsigned char **pp, const unsigned char *pe, const char **pa,
		       const char *ae, size_t max, struct strbuf *out)
{
	const unsigned char *p = *pp;
	const char *a = *pa;
	uint64_t pairs = 0, zeros = 0;
	const char *ls, *le;
	int e;

	if (a >= ae)
		return -EBADMSG;
	if (op == OP_SPARSE && ((e = get_varint(&p, pe, &pairs)) < 0 ||
				(pairs && (e = get_varint(&p, pe, &zeros)) < 0)))
		return -EBADMSG;
	ls = a;
	le = a + line_len(a, ae);
	while (a < le) {
		size_t na;
		uint64_t v, d = 0;

		/* a changed number may print longer than it was
		 * ("0" - 1 is 20 digits): the bound holds within
		 * the line, not only after it */
		if (out->len > max)
			return -EFBIG;

		if (op == OP_SPARSE) {
			/* the unchanged text up to the next changed
			 * number (the whole rest of the line after the
			 * last), in one piece */
			size_t off = (size_t)(le - a);

			if (pairs)
				off = run_start_after(a, off, a > ls && is_digit(a[-1]), zeros);
			sb_append(out, a, off);
			a += off;
			if (a >= le)
				break;
			zeros = 0;
		}
		na = digits_at(a, le);
		if (!na) {
			const char *q = a;

			while (q < le && !is_digit(*q))
				q++;
			sb_append(out, a, (size_t)(q - a));
			a = q;
			continue;
		}
		if (op == OP_NUMS) {
			if (get_varint(&p, pe, &d) < 0)
				return -EBADMSG;
		} else if (pairs && !zeros) {
			/* this number is the next pair's change */
			if (get_varint(&p, pe, &d) < 0 || !d)
				return -EBADMSG;
			if (--pairs && get_varint(&p, pe, &zeros) < 0)
				return -EBADMSG;
		} else if (pairs) {
			zeros--;
		}
		if (!d) {
			/* unchanged: its text, whatever it is */
			sb_append(out, a, na);
			a += na;
			continue;
		}
		/* a changed number reads back as printed */
		if (!run_value(a, na, &v))
			return -EBADMSG;
		d = (d >> 1) ^ (uint64_t) - (int64_t)(d & 1);
		put_dec(out, v + d);
		a += na;
	}
	if (pairs)
		return -EBADMSG; /* changes for numbers the line does not have */
	*pp = p;
	*pa = a;
	return 0;
}

int rec_diff_decode(const char *prev, size_t prev_len, const char *diff, size_t diff_len,
		    size_t max, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)diff, *pe = p + diff_len;
	const char *a = prev, *ae = prev + prev_len;
	int e;

	sb_reset(out);
	while (p < pe) {
		uint64_t n;
		int op = *p++;

		if (op == OP_SAME) {
			if ((e = get_varint(&p, pe, &n)) < 0)
				return e;
			for (; n; n--) {
				size_t an;

				if (a >= ae)
					return -EBADMSG;
				an = line_len(a, ae);
				if (an > max - out->len)
					return -EFBIG;
				sb_append(out, a, an);
				a += an;
			}
		} else if (op == OP_COPY) {
			if ((e = get_varint(&p, pe, &n)) < 0)
				return e;
			if (n > (uint64_t)(ae - a))
				return -EBADMSG;
			if (n > max - out->len)
				return -EFBIG;
			sb_append(out, a, (size_t)n);
			a += n;
		} else if (op == OP_NUMS || op == OP_SPARSE) {
			if ((e = decode_nums(op, &p, pe, &a, ae, max, out)) < 0)
				return e;
		} else if (op == OP_RAW) {
			if ((e = get_varint(&p, pe, &n)) < 0)
				return e;
			if (n > (uint64_t)(pe - p))
				return -EBADMSG;
			if (n > max - out->len)
				return -EFBIG;
			sb_append(out, (const char *)p, (size_t)n);
			p += n;
			if (a < ae)
				a += line_len(a, ae);
		} else {
			return -EBADMSG;
		}
		if (out->err)
			return out->err;
		if (out->len > max)
			return -EFBIG;
	}
	return out->err;
}
