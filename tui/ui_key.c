// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live view's keys: the edit line ('/' filter, 'b' time), the open
 * view's keys first (help takes them all), then the time keys, a view's
 * opening key, and the loop's own (quit, sort, pause, interval, focus,
 * selection). Each returns UI_* flags and draws nothing: the loop redraws.
 * Their lines on the help screen are here too.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "source.h"
#include "ui.h"
#include "ui_int.h"

const char *const ui_keys_help[][2] = {
	{ "F10 q", "quit" },
	{ "F6 s", "sort the focused panel by its next key (the title says which)" },
	{ "/", "filter the focused panel by name: type, Enter keeps it, Esc clears it" },
	{ "z", "show / hide the rows idle in the interval (hidden as iostat -z)" },
	{ "space", "pause: freeze the tables; the history keeps recording" },
	{ "+ -", "longer / shorter interval (with a daemon: every Nth of its samples)" },
	{ "Tab", "next panel (Shift-Tab: previous); the history strip follows the focus" },
	{ "arrows j k", "move the selection; PgUp/PgDn/Home/End jump" },
	{ NULL, NULL },
};

/* After every view's keys: time, live and replay. */
const char *const ui_time_keys_help[][2] = {
	{ "< >  , .", "time: the previous / next interval (live: over the samples kept here, "
		      "and a daemon's recording before them; the header says PAST and when)" },
	{ "b", "jump to a time (HH:MM[:SS], YYYY-MM-DD HH:MM, -15m)" },
	{ "i", "the interval: one sample, 10 s, 1 min, 10 min; metrics and findings "
	       "recomputed over it (replay, embedded, a daemon's recording)" },
	{ "n", "back to now (replay: the recording's last sample)" },
	{ "t T", "replay only: next / previous interval (live, t is the turbostat view); "
		 "a and u refused (the recording is the past)" },
	{ NULL, NULL },
};

static unsigned key_move(struct ui *ui, int delta, bool to_end)
{
	struct panel *p = &ui->panels[ui->focus];
	long sel = (long)p->sel;

	if (p->norder == 0)
		return 0;
	if (to_end)
		sel = delta < 0 ? 0 : (long)p->norder - 1;
	else
		sel += delta;
	if (sel < 0)
		sel = 0;
	if (sel >= (long)p->norder)
		sel = (long)p->norder - 1;
	p->sel = (size_t)sel;
	/* the name is refreshed at the next ordering; keep it in step now */
	p->sel_key[0] = '\0';
	snprintf(p->sel_key, sizeof(p->sel_key), "%s",
		 ui_panels[ui->focus]->row_name(ui, p->order[p->sel]));
	return UI_REDRAW;
}

static unsigned key_sort(struct ui *ui)
{
	struct panel *p = &ui->panels[ui->focus];

	p->sort++;
	if (!ui_panels[ui->focus]->sorts[p->sort])
		p->sort = 0;
	return UI_REDRAW;
}

/* What the time key met, on the footer. */
static unsigned time_key_note(struct ui *ui, unsigned flags)
{
	source_past_note_take(ui->src, ui->note, sizeof(ui->note));
	return flags | UI_REDRAW;
}

bool ui_key_is_time(const struct ui *ui, int ch)
{
	switch (ch) {
	case '<':
	case '>':
	case ',':
	case '.':
	case 'b':
	case 'i':
	case 'n':
		return true;
	case 't':
	case 'T':
		return source_kind(ui->src) == SOURCE_REPLAY;
	default:
		return false;
	}
}

/* The time keys (ui_key_is_time): step, jump, interval, now. */
static unsigned key_time(struct ui *ui, int ch)
{
	switch (ch) {
	case 'i': /* the interval: one sample, 10 s, 1 min, 10 min */
		return time_key_note(ui, source_time_widen(ui->src, &ui->model));
	case 'n':
		return time_key_note(ui, source_time_now(ui->src, &ui->model));
	case 'b':
		ui->editing = ui->jumping = true;
		ui->edit[0] = '\0';
		ui->edit_len = 0;
		return UI_REDRAW;
	}
	return time_key_note(
	    ui,
	    source_time_step(ui->src, ch == 't' || ch == '>' || ch == '.' ? 1 : -1, &ui->model));
}

/* A key typed on the edit line: Backspace, or a printable character
 * added while there is room. */
static void edit_type(struct ui *ui, int ch)
{
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		if (ui->edit_len)
			ui->edit[--ui->edit_len] = '\0';
	} else if (ch >= 32 && ch < 127 && ui->edit_len + 1 < sizeof(ui->edit)) {
		ui->edit[ui->edit_len++] = (char)ch;
		ui->edit[ui->edit_len] = '\0';
	}
}

/* 'b': the typed time, on Enter */
static unsigned key_jump(struct ui *ui, int ch)
{
	int64_t t;

	if (ch == 27) {
		ui->editing = ui->jumping = false;
		return UI_REDRAW;
	}
	if (ch != '\n' && ch != '\r' && ch != KEY_ENTER) {
		edit_type(ui, ch);
		return UI_REDRAW;
	}
	ui->editing = ui->jumping = false;
	if (cli_parse_time(ui->edit, clock_ns(CLOCK_REALTIME), &t) < 0) {
		snprintf(ui->note, sizeof(ui->note), "'%s' is not a time", ui->edit);
		return UI_REDRAW;
	}
	return time_key_note(ui, source_time_jump(ui->src, t, &ui->model));
}

static unsigned key_edit(struct ui *ui, int ch)
{
	struct panel *p = &ui->panels[ui->focus];
	char *filter = ui->edit_procs ? ui->procs.filter : p->filter;
	size_t filter_size = ui->edit_procs ? sizeof(ui->procs.filter) : sizeof(p->filter);

	if (ui->jumping)
		return key_jump(ui, ch);

	switch (ch) {
	case 27: /* Esc: clear */
		filter[0] = '\0';
		ui->editing = ui->edit_procs = false;
		return UI_REDRAW;
	case '\n':
	case '\r':
	case KEY_ENTER:
		ui->editing = ui->edit_procs = false;
		return UI_REDRAW;
	default:
		edit_type(ui, ch);
		break;
	}
	/* the filter applies while typing, as htop's does */
	snprintf(filter, filter_size, "%s", ui->edit);
	if (ui->edit_procs)
		ui->procs.scroll.top = 0;
	else
		p->top = 0;
	return UI_REDRAW;
}

bool ui_key_is_global(int ch)
{
	switch (ch) {
	case 'q':
	case 'Q':
	case KEY_F(10):
	case KEY_F(1):
	case 'h':
	case '?':
	case ' ':
	case '+':
	case '=':
	case '-':
	case '_':
	case 12: /* Ctrl-L */
		return true;
	default:
		return false;
	}
}

bool ui_key_move(int ch, int page, int *ret_delta, bool *ret_to_end)
{
	int delta;
	bool to_end = false;

	switch (ch) {
	case KEY_UP:
	case 'k':
		delta = -1;
		break;
	case KEY_DOWN:
	case 'j':
		delta = 1;
		break;
	case KEY_PPAGE:
		delta = -page;
		break;
	case KEY_NPAGE:
		delta = page;
		break;
	case KEY_HOME:
	case 'g':
		delta = -1;
		to_end = true;
		break;
	case KEY_END:
	case 'G':
		delta = 1;
		to_end = true;
		break;
	default:
		return false;
	}
	*ret_delta = delta;
	*ret_to_end = to_end;
	return true;
}

/* '+' '-': a longer or shorter interval, or why not on the footer. */
static unsigned key_interval(struct ui *ui, int ch, int64_t now_ns)
{
	bool longer = ch == '+' || ch == '=';

	if (!source_step_interval(ui->src, longer ? 1 : -1, now_ns))
		snprintf(ui->note, sizeof(ui->note), "interval: already the %s",
			 longer ? "longest" : "shortest");
	return UI_REDRAW;
}

static unsigned key_focus(struct ui *ui, int delta)
{
	ui->focus = (ui->focus + PANEL__COUNT + delta) % PANEL__COUNT;
	return UI_REDRAW;
}

/* The loop's own keys: after the views', the time keys and the views'
 * opening keys. */
static unsigned key_loop(struct ui *ui, int ch, int64_t now_ns)
{
	struct panel *p = &ui->panels[ui->focus];
	int delta;
	bool to_end;

	if (ui_key_move(ch, p->visible > 1 ? p->visible : 1, &delta, &to_end))
		return key_move(ui, delta, to_end);
	switch (ch) {
	case 'q':
	case 'Q':
	case KEY_F(10):
		return UI_QUIT;
	case KEY_F(6):
	case 's':
		return key_sort(ui);
	case '/':
		ui->editing = true;
		snprintf(ui->edit, sizeof(ui->edit), "%s", p->filter);
		ui->edit_len = strlen(ui->edit);
		return UI_REDRAW;
	case 27: /* Esc clears the focused panel's filter */
		p->filter[0] = '\0';
		return UI_REDRAW;
	case ' ':
		ui->paused = !ui->paused;
		return UI_REDRAW;
	case 'z':
		ui->show_idle = !ui->show_idle;
		return UI_REDRAW;
	case 'a': /* the headline's fix */
		return view_findings_fix(ui);
	case '+':
	case '=':
	case '-':
	case '_':
		return key_interval(ui, ch, now_ns);
	case '\t':
	case KEY_RIGHT:
		return key_focus(ui, 1);
	case KEY_BTAB:
	case KEY_LEFT:
		return key_focus(ui, -1);
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		return UI_REDRAW;
	}
	return 0;
}

/* The open view's keys (v), else the tables' parts': the heat map, the
 * focused panel (Enter). UI_PASS when none took ch. */
static unsigned key_views(struct ui *ui, const struct view_ops *v, int ch)
{
	if (v)
		return v->on_key(ui, ch);
	for (size_t i = 0; ui_views[i]; i++) {
		const struct view_ops *t = ui_views[i];
		unsigned f;

		if (t->open_at || !t->on_key || (t->order && t != ui_panels[ui->focus]))
			continue;
		f = t->on_key(ui, ch);
		if (!(f & UI_PASS))
			return f;
	}
	return UI_PASS;
}

unsigned ui_key(struct ui *ui, int ch, int64_t now_ns)
{
	const struct view_ops *v;
	unsigned f;

	if (ch == KEY_RESIZE)
		return UI_REDRAW;
	if (ui->editing)
		return key_edit(ui, ch);
	v = ui_views_shown(ui);
	/* help takes every key and leaves the footer's note be */
	if (v && v->flags & VIEW_WHOLE)
		return v->on_key(ui, ch);
	ui->note[0] = '\0';
	f = key_views(ui, v, ch);
	if (!(f & UI_PASS))
		return f;
	/* time; replay: atop's t/T win over the turbostat sources view's t */
	if (ui_key_is_time(ui, ch))
		return key_time(ui, ch);
	/* a view's key opens it */
	for (size_t i = 0; ui_views[i]; i++)
		for (size_t k = 0; k < 4 && ui_views[i]->keys[k]; k++)
			if (ch == ui_views[i]->keys[k])
				return ui_open(ui, ui_views[i]);
	return key_loop(ui, ch, now_ns);
}
