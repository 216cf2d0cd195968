// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /proc/pressure readers. A kernel booted without PSI (CONFIG_PSI_DEFAULT_
 * DISABLED without psi=1) answers EOPNOTSUPP on read: that is a reason, not
 * zeros.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pressure.h"
#include "scan.h"
#include "src_status.h"

static const char *const names[PSI__COUNT] = { "io", "cpu", "irq" };

const char *pressure_name(enum psi_res r)
{
	return r < PSI__COUNT ? names[r] : "?";
}

/* "12.34" -> 12.34 without locale or strtod's acceptance of "inf" */
static int scan_percent(const char *p, size_t n, double *ret)
{
	uint64_t ip = 0, fp = 0, div = 1;
	size_t i = 0;

	if (!n)
		return -EBADMSG;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		if (ip > 1000000)
			return -EBADMSG;
		ip = ip * 10 + (uint64_t)(p[i] - '0');
	}
	if (i == 0)
		return -EBADMSG;
	if (i < n && p[i] == '.') {
		for (i++; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
			if (div >= 1000000)
				return -EBADMSG;
			fp = fp * 10 + (uint64_t)(p[i] - '0');
			div *= 10;
		}
	}
	if (i != n)
		return -EBADMSG;
	*ret = (double)ip + (double)fp / (double)div;
	return 0;
}

static int parse_line(struct cursor *c, struct psi_line *ret)
{
	struct psi_line l = { .present = true };
	bool have_total = false;
	const char *tok;
	size_t n;

	while ((n = scan_token(c, &tok)) > 0) {
		const char *eq = memchr(tok, '=', n);
		size_t klen, vlen;
		const char *v;

		if (!eq)
			return -EBADMSG;
		klen = (size_t)(eq - tok);
		v = eq + 1;
		vlen = n - klen - 1;
		if (klen == 5 && memcmp(tok, "total", 5) == 0) {
			struct cursor vc;

			cursor_init(&vc, v, vlen);
			if (scan_u64(&vc, &l.total_us) < 0 || !cursor_eof(&vc))
				return -EBADMSG;
			have_total = true;
		} else if (klen == 5 && memcmp(tok, "avg10", 5) == 0) {
			if (scan_percent(v, vlen, &l.avg10) < 0)
				return -EBADMSG;
		} else if (klen == 5 && memcmp(tok, "avg60", 5) == 0) {
			if (scan_percent(v, vlen, &l.avg60) < 0)
				return -EBADMSG;
		} else if (klen == 6 && memcmp(tok, "avg300", 6) == 0) {
			if (scan_percent(v, vlen, &l.avg300) < 0)
				return -EBADMSG;
		}
	}
	if (!have_total)
		return -EBADMSG;
	*ret = l;
	return 0;
}

int pressure_parse(const char *buf, size_t len, struct psi_raw *ret)
{
	struct psi_line some = { 0 }, full = { 0 };
	struct cursor c;

	if (len && buf[len - 1] != '\n')
		return -EBADMSG; /* a cut-off read */
	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		const char *tok;
		size_t n = scan_token(&c, &tok);

		if (n == 4 && memcmp(tok, "some", 4) == 0) {
			if (some.present || parse_line(&c, &some) < 0)
				return -EBADMSG;
		} else if (n == 4 && memcmp(tok, "full", 4) == 0) {
			if (full.present || parse_line(&c, &full) < 0)
				return -EBADMSG;
		} else if (n) {
			return -EBADMSG;
		}
		scan_next_line(&c);
	}
	if (!some.present && !full.present)
		return -EBADMSG;
	ret->some = some;
	ret->full = full;
	return 0;
}

static const char *const paths[PSI__COUNT] = { "proc/pressure/io", "proc/pressure/cpu",
					       "proc/pressure/irq" };

void pressure_collect_pf(const struct root *r, struct procfile pf[PSI__COUNT],
			 struct pressure_raw *p)
{
	for (int i = 0; i < PSI__COUNT; i++) {
		struct psi_raw *x = &p->res[i];
		const char *rel = paths[i];
		char disp[256];
		int n;

		memset(x, 0, sizeof(*x));
		pf[i].rel = rel;
		/* the descriptor is kept: a pread a sample, not open/read/close */
		n = procfile_read(&pf[i], r);
		if (n >= 0)
			n = pressure_parse(pf[i].buf, pf[i].len, x);
		if (n < 0) {
			root_display(r, rel, disp, sizeof(disp));
			src_status_set(
			    &x->status, n, "%s: %s%s", disp,
			    n == -EBADMSG ? "malformed" : strerror(-n),
			    n == -EOPNOTSUPP ? " (PSI disabled: boot with psi=1)"
			    : n == -ENOENT && i == PSI_IRQ
				? " (needs kernel >= 6.1 with CONFIG_IRQ_TIME_ACCOUNTING)"
				: "");
		}
	}
}
