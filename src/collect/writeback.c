// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/vmstat dirty counters and vm.dirty_* sysctls. The kernel throttles
 * writers in balance_dirty_pages() once dirty + writeback pages pass the
 * midpoint of the background and the hard threshold; both are in vmstat, so
 * no memory arithmetic is needed here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfile.h"
#include "scan.h"
#include "writeback.h"

static const char *const sysctl_names[WB__COUNT] = {
	[WB_DIRTY_RATIO] = "dirty_ratio",
	[WB_DIRTY_BACKGROUND_RATIO] = "dirty_background_ratio",
	[WB_DIRTY_BYTES] = "dirty_bytes",
	[WB_DIRTY_BACKGROUND_BYTES] = "dirty_background_bytes",
	[WB_DIRTY_EXPIRE_CS] = "dirty_expire_centisecs",
	[WB_DIRTY_WRITEBACK_CS] = "dirty_writeback_centisecs",
};

const char *writeback_sysctl_name(enum wb_sysctl k)
{
	return k < WB__COUNT ? sysctl_names[k] : "?";
}

int writeback_vmstat_parse(const char *buf, size_t len, struct writeback_raw *ret)
{
#define KEY(s)                   \
	{                        \
		s, sizeof(s) - 1 \
	}
	static const struct {
		const char *name;
		size_t len;
	} keys[] = { KEY("nr_dirty"), KEY("nr_writeback"), KEY("nr_dirty_threshold"),
		     KEY("nr_dirty_background_threshold") };
#undef KEY
	uint64_t v[4] = { 0 };
	unsigned seen = 0;
	struct cursor c;

	if (len && buf[len - 1] != '\n')
		return -EBADMSG;
	cursor_init(&c, buf, len);
	/* the four come before the ~120 event counters: done once all are seen */
	while (!cursor_eof(&c) && seen != 15) {
		const char *tok;
		size_t n = scan_token(&c, &tok);

		for (unsigned i = 0; n > 2 && tok[0] == 'n' && i < 4; i++) {
			if (keys[i].len != n || memcmp(tok, keys[i].name, n) != 0)
				continue;
			if (seen & (1u << i))
				return -EBADMSG;
			if (scan_u64(&c, &v[i]) < 0 || !scan_at_eol(&c))
				return -EBADMSG;
			seen |= 1u << i;
		}
		scan_next_line(&c);
	}
	if ((seen & 3) != 3)
		return -EBADMSG;
	ret->has_vmstat = true;
	ret->nr_dirty = v[0];
	ret->nr_writeback = v[1];
	ret->has_thresholds = (seen & 12) == 12;
	ret->nr_dirty_threshold = v[2];
	ret->nr_dirty_bg_threshold = v[3];
	return 0;
}

static void collect(const struct root *r, struct procfile *pf, const struct writeback_raw *last,
		    struct writeback_raw *w)
{
	char disp[256];
	unsigned got = 0;
	int e, first = 0;

	memset(w, 0, sizeof(*w));
	/* the page size of a recorded host is not in its /proc: ours is assumed */
	w->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	e = procfile_read(pf, r);
	if (e >= 0)
		e = writeback_vmstat_parse(pf->buf, pf->len, w);
	if (e < 0) {
		root_display(r, "proc/vmstat", disp, sizeof(disp));
		w->vmstat_status.err = e;
		snprintf(w->vmstat_status.reason, sizeof(w->vmstat_status.reason), "%s: %s", disp,
			 e == -EBADMSG ? "no nr_dirty/nr_writeback, or malformed" : strerror(-e));
		w->has_vmstat = false;
	}
	if (last) {
		memcpy(w->has_sysctl, last->has_sysctl, sizeof(w->has_sysctl));
		memcpy(w->sysctl, last->sysctl, sizeof(w->sysctl));
		w->sysctl_status = last->sysctl_status;
		return;
	}
	for (int i = 0; i < WB__COUNT; i++) {
		char rel[64], val[32];
		struct cursor c;
		uint64_t v;
		int n;

		snprintf(rel, sizeof(rel), "proc/sys/vm/%s", sysctl_names[i]);
		n = root_read_small(r, rel, val, sizeof(val));
		if (n < 0) {
			if (!first)
				first = n;
			continue;
		}
		cursor_init(&c, val, (size_t)n);
		if (scan_u64(&c, &v) < 0 || !cursor_eof(&c)) {
			if (!first)
				first = -EBADMSG;
			continue;
		}
		w->has_sysctl[i] = true;
		w->sysctl[i] = v;
		got++;
	}
	if (!got) {
		root_display(r, "proc/sys/vm/dirty_*", disp, sizeof(disp));
		w->sysctl_status.err = first ? first : -ENOENT;
		snprintf(w->sysctl_status.reason, sizeof(w->sysctl_status.reason), "%s: %s", disp,
			 strerror(-w->sysctl_status.err));
	}
}

void writeback_collect(const struct root *r, struct procfile *pf, struct writeback_raw *w)
{
	collect(r, pf, NULL, w);
}

void writeback_collect_counters(const struct root *r, struct procfile *pf,
				const struct writeback_raw *last, struct writeback_raw *w)
{
	collect(r, pf, last, w);
}
