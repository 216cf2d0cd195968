/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TUI's widgets (draw.c): what more than one view draws the same way,
 * over the primitives of ui.h (ui_put, ui_fill, ui_attr): a filled line, a
 * panel's title, a list that follows its selection, lines of text scrolled
 * and wrapped, a scrolled list's "3-20 of 41" marker, the segmented load
 * bar, a block glyph, the colour of a severity. Views call these; none of
 * them reads the model beyond what it is handed.
 */
#ifndef IOTRIAGE_TUI_DRAW_H
#define IOTRIAGE_TUI_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "ui.h"

/* w columns filled with attr and s on them: a title bar, a marked row. */
void draw_line(int y, int x, int w, int attr, const char *s);

/* A panel's title line over r: "> Name (shown of total)  sort: S  filter: F",
 * in the title's colour when the panel has the focus; hidden rows not
 * matched by the filter but left out as idle (iostat -z) are said after the
 * count: "(1 of 65, 64 idle hidden: z shows)". */
void draw_title(struct ui *ui, enum panel_id id, struct rect r, const char *name, const char *sort,
		size_t shown, size_t total, size_t idle_hidden);

/* A traced time as % of one CPU, right-aligned in w columns (0: as
 * long as it takes): three decimals under 1 (a handler's or a queue's few
 * µs a second are not 0), two under 100, then one. */
void draw_pct(char *buf, size_t size, int w, double pct);

/* The first row to show of a list rows tall so that row sel is on screen,
 * moving top as little as possible. */
size_t draw_follow(size_t top, size_t sel, size_t rows);

/*
 * Lines of text scrolled by top and clipped to r: the views that are one
 * long text (processes, cgroups, help, turbostat sources, a finding's
 * detail) emit every line and only those in view are drawn; line counts
 * them all. r.h 0 counts without drawing.
 */
struct draw_text {
	struct rect r;
	int line; /* next logical line */
	int top;  /* first logical line shown */
};

/* The screen row of the current line, -1 when it is not in view. */
int draw_text_row(const struct draw_text *t);
/* One line, then the next. */
void draw_text_line(struct draw_text *t, int attr, const char *s);
void draw_text_printf(struct draw_text *t, int attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same over the whole width filled with attr: a view's title. */
void draw_text_bar(struct draw_text *t, int attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* text wrapped at spaces into the width less indent columns (20 at the
 * least), each line indented; the first line starts with first instead of
 * the indent's spaces when given (a label). Empty text is one line. */
void draw_text_wrap(struct draw_text *t, int attr, int indent, const char *first, const char *text);
/* Of the n bytes at p, those that go on a line w columns wide: all when
 * they fit, else up to the last space within w (a word is not cut), else
 * w (one word longer than the line). */
int draw_cut(const char *p, int n, int w);

/* "pre3-20 of 41post": what a scrolled list shows of its lines, from top
 * (0-based) h lines tall. */
void draw_range(char *buf, size_t size, const char *pre, int top, int h, int total,
		const char *post);

/*
 * The keys of a view that is one long text, after its own: Up/k, Down/j
 * (to the last line at the top), PgUp/PgDn by page, Home/g scroll
 * (UI_REDRAW); the loop's global keys are passed (UI_PASS); the others are
 * taken and do nothing (0), since the tables' keys would act unseen.
 */
unsigned draw_scroll_key(struct scroll *s, int ch, int page);
/* After drawing nlines lines h tall: s->nlines set, and s->top no further
 * than the last full page (it went past after the text shrank). */
void draw_scroll_fit(struct scroll *s, int nlines, int h);

/* One share of a load bar: its percentage, its letter and colour. */
struct draw_seg {
	double pct;
	char ch;
	enum ui_pair pair;
};

/* "[uuuSSSw   ]" in w columns on a row drawn with base: each share a run of
 * its letter in its colour, so it reads the same without colour ("|" in
 * colour); plain: the row's colour wins (a marked row), letters only. */
void draw_meter(const struct ui *ui, int y, int x, int w, int base, const struct draw_seg *seg,
		size_t nseg, bool plain);

/* A block of eighths of a cell high (0..8): UTF-8 block elements, else an
 * ASCII stand-in; 0 is a space. */
const char *draw_block(int eighths, bool utf8);
/* One glyph at (y, x), a multi-byte one included (ui_put counts bytes). */
void draw_glyph(int y, int x, int attr, const char *g);

/* The colour of a finding's severity: critical red, warning yellow, info cyan. */
int draw_severity_attr(const struct ui *ui, enum model_severity s);

#endif
