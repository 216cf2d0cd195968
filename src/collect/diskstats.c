// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/diskstats -> struct disk_table. Knows the 14/18/20-field forms and
 * records which one each line had; knows nothing of /sys or of rates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "diskstats.h"
#include "scan.h"

int diskstats_parse(const char *buf, size_t len, struct disk_table *t, struct parse_error *err)
{
	struct cursor c;
	int e;

	t->n = 0;
	t->nkeys = 0; /* the index of the previous contents is void */
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
		/* a row is ~560 bytes, and so is its copy and its blockinfo: 63 MiB
		 * of one short line were 1.5 million rows, 1.7 GB */
		if (t->n == IOT_DISKS_MAX)
			return parse_fail(err, c.line, "more than 65536 devices");
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
	e = disk_table_index(t);
	return e < 0 ? e : 0;
}

static int key_cmp(const void *a, const void *b)
{
	const struct disk_key *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	/* equal devices (a hostile file) keep their order: the first row wins,
	 * as it did with a linear search */
	return x->row < y->row ? -1 : x->row > y->row;
}

static inline uint64_t dev_key(uint32_t major, uint32_t minor)
{
	return (uint64_t)major << 32 | minor;
}

int disk_table_index(struct disk_table *t)
{
	t->nkeys = 0;
	if (grow((void **)&t->keys, &t->keys_cap, t->n, sizeof(*t->keys)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		t->keys[i].dev = dev_key(t->rows[i].major, t->rows[i].minor);
		t->keys[i].row = i;
	}
	if (t->n > 1)
		qsort(t->keys, t->n, sizeof(*t->keys), key_cmp);
	t->nkeys = t->n;
	return 0;
}

void disk_table_free(struct disk_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

int disk_table_copy(struct disk_table *dst, const struct disk_table *src)
{
	if (grow_copy((void **)&dst->rows, &dst->cap, src->rows, src->n, sizeof(*dst->rows)) < 0)
		return -ENOMEM;
	dst->n = src->n;
	dst->nkeys = 0;
	if (src->nkeys != src->n || !src->keys)
		return 0;
	if (grow_copy((void **)&dst->keys, &dst->keys_cap, src->keys, src->n, sizeof(*dst->keys)) <
	    0)
		return -ENOMEM;
	dst->nkeys = src->n;
	return 0;
}

const struct disk_raw *disk_table_find(const struct disk_table *t, uint32_t major, uint32_t minor,
				       size_t *hint)
{
	uint64_t dev = dev_key(major, minor);
	size_t lo = 0, hi;

	/* tables of two samples are nearly always in the same order: try the
	 * hinted row first so pairing is linear */
	if (hint && *hint < t->n && t->rows[*hint].major == major && t->rows[*hint].minor == minor)
		return &t->rows[(*hint)++];
	if (t->nkeys != t->n || !t->keys) {
		/* a table nobody indexed (built by hand): linear */
		for (size_t i = 0; i < t->n; i++)
			if (t->rows[i].major == major && t->rows[i].minor == minor) {
				if (hint)
					*hint = i + 1;
				return &t->rows[i];
			}
		return NULL;
	}
	/* otherwise the first key >= dev: 50000 disks in another order pair
	 * in O(n log n), not O(n^2) (doc/PERFORMANCE.md) */
	hi = t->nkeys;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->keys[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->nkeys || t->keys[lo].dev != dev)
		return NULL;
	if (hint)
		*hint = t->keys[lo].row + 1;
	return &t->rows[t->keys[lo].row];
}
