// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live view's drawing primitives (ui.h): a colour pair as an attribute
 * (or bold and reverse without colour), a string put clipped by columns and
 * escaped as the CLI escapes it, a filled run, a number fitted to a width.
 * Knows ncurses and nothing of the model or the views.
 */
#include <math.h>
#include <ncurses.h>
#include <stdio.h>

#include "text.h"
#include "ui.h"

int ui_attr(const struct ui *ui, enum ui_pair p)
{
	static const int mono[PAIR__COUNT] = {
		[PAIR_HEADER] = (int)A_REVERSE, [PAIR_TITLE] = (int)(A_BOLD | A_UNDERLINE),
		[PAIR_WARN] = (int)A_BOLD,	[PAIR_CRIT] = (int)(A_BOLD | A_UNDERLINE),
		[PAIR_HOT] = (int)A_BOLD,
	};

	if (p == PAIR_NONE || (unsigned)p >= PAIR__COUNT)
		return 0;
	if (!ui->color)
		return mono[p];
	if (p == PAIR_HEADER || p == PAIR_HOT || p == PAIR_CRIT)
		return (int)(COLOR_PAIR(p) | A_BOLD);
	return (int)COLOR_PAIR(p);
}

/* The bytes of s that fill at most w columns: one column a character (the
 * escaped text holds no wide character: its only multibyte ones are the
 * views' own dashes and arrows), a UTF-8 sequence never cut. */
static int bytes_for_columns(const char *s, int w)
{
	int n = 0, cols = 0;

	while (s[n]) {
		int len = 1;

		if (((unsigned char)s[n] & 0xe0) == 0xc0)
			len = 2;
		else if (((unsigned char)s[n] & 0xf0) == 0xe0)
			len = 3;
		else if (((unsigned char)s[n] & 0xf8) == 0xf0)
			len = 4;
		if (cols + 1 > w)
			break;
		for (int k = 1; k < len; k++)
			if (((unsigned char)s[n + k] & 0xc0) != 0x80)
				len = k; /* a broken sequence: its bytes one by one */
		n += len;
		cols++;
	}
	return n;
}

void ui_put(int y, int x, int w, int attr, const char *s)
{
	char safe[1024];
	const char *t;

	if (w <= 0 || y < 0 || x < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attron(attr);
	/* the CLI's escaping (src/text.h), so a name with a newline or an
	 * invalid byte is shown as the CLI shows it, not as ncurses would;
	 * clipped by columns, not bytes: a line with an em dash is not two
	 * columns shorter than the screen */
	t = text_safe(s, safe, sizeof(safe));
	mvaddnstr(y, x, t, bytes_for_columns(t, w));
	attroff(attr);
}

void ui_fill(int y, int x, int w, int attr)
{
	if (w <= 0 || y < 0 || x < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attron(attr);
	mvhline(y, x, ' ', w);
	attroff(attr);
}

void ui_fmt_num(char *buf, size_t size, int w, double v)
{
	static const char suffix[] = "kMGTP";
	int n;

	if (!isfinite(v)) {
		snprintf(buf, size, "%*s", w, "-");
		return;
	}
	for (int dec = 2; dec >= 0; dec--) {
		n = snprintf(buf, size, "%*.*f", w, dec, v);
		if (n >= 0 && n <= w)
			return;
	}
	for (size_t i = 0; i < sizeof(suffix) - 1; i++) {
		v /= 1000.0;
		for (int dec = 1; dec >= 0; dec--) {
			n = snprintf(buf, size, "%*.*f%c", w - 1, dec, v, suffix[i]);
			if (n >= 0 && n <= w)
				return;
		}
	}
	snprintf(buf, size, "%*s", w, "*");
}
