// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/diskstats -> struct disk_table. Knows the 14/18/20-field forms and
 * records which one each line had; knows nothing of /sys or of rates.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "grow.h"
#include "parse.h"
#include "scan.h"

int diskstats_parse(const char *buf, size_t len, struct disk_table *t, struct parse_error *err)
{
	struct cursor c;

	t->n = 0;
	if (parse_check_complete(buf, len, err) < 0)
		return -EBADMSG;
	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		struct disk_raw *d;
		uint64_t major, minor, v;
		const char *tok;
		size_t tlen, n = 0;

		if (scan_at_eol(&c)) {
			scan_next_line(&c);
			continue;
		}
		if (scan_u64(&c, &major) < 0 || scan_u64(&c, &minor) < 0 || major > UINT32_MAX ||
		    minor > UINT32_MAX)
			return parse_fail(err, c.line, "expected major and minor numbers");
		tlen = scan_token(&c, &tok);
		if (tlen == 0)
			return parse_fail(err, c.line, "missing device name");
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		d = &t->rows[t->n];
		memset(d, 0, sizeof(*d));
		d->major = (uint32_t)major;
		d->minor = (uint32_t)minor;
		d->iostats = -1;
		if (!scan_copy(d->name, sizeof(d->name), tok, tlen))
			return parse_fail(err, c.line, "device name too long");
		for (;;) {
			int r = scan_u64(&c, &v);

			if (r == -EINVAL && scan_at_eol(&c))
				break; /* the end of the line: no more counters */
			if (r < 0)
				return parse_fail(err, c.line,
						  r == -ERANGE ? "counter out of range"
							       : "counter is not a number");
			/* a future kernel's extra fields are ignored, not an error */
			if (n < DF__COUNT)
				d->v[n] = v;
			n++;
		}
		/* 11, 15 and 17 counters are the kernel's forms; anything below 11
		 * (the pre-2.6.25 partition form, or a cut line) cannot be used. */
		if (n < DF_RQ_TICKS + 1)
			return parse_fail(err, c.line, "too few fields (truncated line?)");
		if (n >= DF__COUNT)
			d->ncounters = DF__COUNT;
		else if (n >= DF_DC_TICKS + 1)
			d->ncounters = DF_DC_TICKS + 1;
		else
			d->ncounters = DF_RQ_TICKS + 1;
		t->n++;
		scan_next_line(&c);
	}
	return 0;
}

void disk_table_free(struct disk_table *t)
{
	if (!t)
		return;
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}

int disk_table_copy(struct disk_table *dst, const struct disk_table *src)
{
	if (grow((void **)&dst->rows, &dst->cap, src->n, sizeof(*dst->rows)) < 0)
		return -ENOMEM;
	if (src->n)
		memcpy(dst->rows, src->rows, src->n * sizeof(*src->rows));
	dst->n = src->n;
	return 0;
}

const struct disk_raw *disk_table_find(const struct disk_table *t, uint32_t major, uint32_t minor,
				       size_t *hint)
{
	/* tables of two samples are nearly always in the same order: try the
	 * hinted row first so pairing is linear, not quadratic */
	if (hint && *hint < t->n && t->rows[*hint].major == major && t->rows[*hint].minor == minor)
		return &t->rows[(*hint)++];
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].major == major && t->rows[i].minor == minor) {
			if (hint)
				*hint = i + 1;
			return &t->rows[i];
		}
	return NULL;
}
