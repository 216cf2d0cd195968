// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TUI's one loop: poll on the terminal, a signalfd, the source's fd and
 * the source's deadline; key handlers return UI_* flags and the loop alone
 * redraws. Owns the terminal: it is restored on every way out, fatal signals
 * included. Views draw, reached only through their table (ui_views); the
 * source and the model fetch and decode.
 */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <ncurses.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "draw.h"
#include "source.h"
#include "str.h"
#include "text.h"
#include "ui.h"

#define UI_DEFAULT_AWAIT_MS 20.0 /* a busy SSD stays well under, a busy HDD around it */

/* ---- terminal restore on fatal signals ---- */

/*
 * What endwin() would send, captured while the terminal is set up, so a
 * crashing client can put the terminal back with async-signal-safe calls
 * only (write, tcsetattr) before dying with the same signal.
 */
static struct {
	bool armed;
	struct termios tio;
	char seq[256];
	size_t len;
} restore;

static void restore_add(const char *cap)
{
	char *s = tigetstr(cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore.len + n < sizeof(restore.seq)) {
		memcpy(restore.seq + restore.len, s, n);
		restore.len += n;
	}
}

static void restore_fatal(int sig)
{
	if (restore.armed) {
		ssize_t n = write(STDOUT_FILENO, restore.seq, restore.len);

		(void)n;
		tcsetattr(STDIN_FILENO, TCSANOW, &restore.tio);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
/* Signals that mean "quit": read from the signalfd in the loop. */
static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* ---- helpers for the views ---- */

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

void view_keep_selection(struct ui *ui, enum panel_id id,
			 const char *(*name_of)(const struct ui *ui, size_t i))
{
	struct panel *p = &ui->panels[id];

	for (size_t i = 0; i < p->norder; i++)
		if (strcmp(name_of(ui, p->order[i]), p->sel_key) == 0) {
			p->sel = i;
			return;
		}
	if (p->sel >= p->norder)
		p->sel = p->norder ? p->norder - 1 : 0;
	if (p->norder)
		snprintf(p->sel_key, sizeof(p->sel_key), "%s", name_of(ui, p->order[p->sel]));
	else
		p->sel_key[0] = '\0';
}

const char *view_selected(const struct ui *ui, enum panel_id id)
{
	return ui->panels[id].sel_key;
}

/* ---- the views ---- */

/*
 * Every view, in the order of the help screen and the footer: help, the
 * views over the tables, then the tables' parts. The views over the tables
 * open one at a time (opening one closes the other), so their order here
 * is not a precedence.
 */
const struct view_ops *const ui_views[] = {
	&view_help, &view_findings, &view_procs,   &view_turbo, &view_chain,
	&view_heat, &view_cgroups,  &view_summary, &view_disks, &view_cpus,
	&view_irqs, &view_history,  NULL,
};

/* The panels of the tables, by enum panel_id. */
static const struct view_ops *const panels[PANEL__COUNT] = {
	[PANEL_DISKS] = &view_disks,
	[PANEL_CPUS] = &view_cpus,
	[PANEL_IRQS] = &view_irqs,
};

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

static bool *open_flag(struct ui *ui, const struct view_ops *v)
{
	return (bool *)((char *)ui + v->open_at);
}

static bool view_is_open(const struct ui *ui, const struct view_ops *v)
{
	return v->open_at && *(const bool *)((const char *)ui + v->open_at);
}

/* The view drawn now instead of the tables, NULL none: the whole-terminal
 * one (help) over the others. */
static const struct view_ops *view_open(const struct ui *ui)
{
	const struct view_ops *found = NULL;

	for (size_t i = 0; ui_views[i]; i++)
		if (view_is_open(ui, ui_views[i]) && (!found || ui_views[i]->flags & VIEW_WHOLE))
			found = ui_views[i];
	return found;
}

unsigned ui_open(struct ui *ui, const struct view_ops *v)
{
	/* help goes over whatever is open, which is there again after it */
	if (!(v->flags & VIEW_WHOLE))
		for (size_t i = 0; ui_views[i]; i++)
			if (ui_views[i]->open_at && !(ui_views[i]->flags & VIEW_WHOLE))
				*open_flag(ui, ui_views[i]) = false;
	*open_flag(ui, v) = true;
	if (v->open)
		v->open(ui);
	return UI_REDRAW;
}

/* ---- drawing ---- */

/* One field of the top line: shown whole or not at all. */
struct header_field {
	char text[320];
	int prio; /* lower is kept first as the terminal narrows */
	bool on;
};

enum { HF_NAME, HF_MODE, HF_PAUSED, HF_PAST, HF_EVERY, HF_HOST, HF_TIMELINE, HF_CLOCK, HF__COUNT };

/* "PAST 17:57:05 -2m10s": the sample the tables show, live, and how long
 * before the newest it was taken; "" when they show now. */
static void past_word(const struct ui *ui, char *buf, size_t size)
{
	int64_t shown, newest, ago;
	char when[16] = "?";
	time_t t;
	struct tm tm;

	buf[0] = '\0';
	if (!source_past(ui->src, &shown, &newest))
		return;
	t = (time_t)(shown / 1000000000);
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	ago = (newest - shown + 500000000) / 1000000000;
	if (ago < 60)
		snprintf(buf, size, "PAST %s -%llds", when, (long long)ago);
	else if (ago < 3600)
		snprintf(buf, size, "PAST %s -%lldm%02llds", when, (long long)(ago / 60),
			 (long long)(ago % 60));
	else
		snprintf(buf, size, "PAST %s -%lldh%02lldm", when, (long long)(ago / 3600),
			 (long long)(ago / 60 % 60));
}

/* replay: where we are in the recording (atop's habit, on the top line),
 * in the room left; it says the sample's date and time, so the clock goes */
static void place_timeline(struct ui *ui, struct header_field *tl, struct header_field *clock,
			   int *left)
{
	if (source_kind(ui->src) != SOURCE_REPLAY || *left <= 12)
		return;
	source_replay_timeline(ui->src, tl->text, sizeof(tl->text), *left - 2);
	if (tl->text[0] == ' ')
		memmove(tl->text, tl->text + 1, strlen(tl->text));
	tl->on = tl->text[0] && (int)strlen(tl->text) + 2 <= *left;
	if (!tl->on)
		return;
	*left -= (int)strlen(tl->text) + 2;
	if (clock->on) {
		clock->on = false;
		*left += (int)strlen(clock->text) + 2;
	}
}

/*
 * The top line: " iotriage  daemon PATH  PAUSED  every 1s  host db1  12:00:00"
 * and the source's state (DISCONNECTED, connecting...) on the right. Each
 * field owns its place: they are laid out by priority (the state's word,
 * PAUSED, the mode with the socket path, the clock first; then the
 * interval, the host, the replay's timeline, the name, the state's detail)
 * and a field that does not fit is left out whole, so no status word is
 * ever written over another or over the path.
 */
static void draw_header(struct ui *ui)
{
	const struct model *m = &ui->model;
	const char *state = source_state(ui->src);
	bool replay = source_kind(ui->src) == SOURCE_REPLAY;
	struct header_field f[HF__COUNT] = { 0 };
	char itv[32], word[64], line[1024];
	long ms = source_interval_ms(ui->src);
	int left = COLS - 1, state_w = 0, x;
	bool full_state = false;

	if (ms <= 0)
		snprintf(itv, sizeof(itv), "-");
	else if (ms % 1000 == 0)
		snprintf(itv, sizeof(itv), "%lds", ms / 1000);
	else
		snprintf(itv, sizeof(itv), "%.1fs", (double)ms / 1000.0);
	snprintf(f[HF_NAME].text, sizeof(f[0].text), "iotriage");
	f[HF_NAME].prio = 7;
	if (source_kind(ui->src) == SOURCE_DAEMON)
		snprintf(f[HF_MODE].text, sizeof(f[0].text), "daemon %s", source_socket(ui->src));
	else
		snprintf(f[HF_MODE].text, sizeof(f[0].text), "%s", replay ? "REPLAY" : "embedded");
	f[HF_MODE].prio = 1;
	if (ui->paused)
		snprintf(f[HF_PAUSED].text, sizeof(f[0].text), "PAUSED");
	f[HF_PAUSED].prio = 0;
	past_word(ui, f[HF_PAST].text, sizeof(f[0].text));
	f[HF_PAST].prio = 0;
	snprintf(f[HF_EVERY].text, sizeof(f[0].text), "every %s", itv);
	f[HF_EVERY].prio = 3;
	snprintf(f[HF_HOST].text, sizeof(f[0].text), "host %s", m->host[0] ? m->host : "?");
	f[HF_HOST].prio = 4;
	f[HF_TIMELINE].prio = 6; /* in its turn, the room left then */
	if (m->have_sample) {
		int64_t shown, newest;
		/* looking at the past, the clock stays the newest sample's */
		time_t t = source_past(ui->src, &shown, &newest) ? (time_t)(newest / 1000000000)
								 : (time_t)(m->timestamp_ms / 1000);
		struct tm tm;

		if (localtime_r(&t, &tm))
			strftime(f[HF_CLOCK].text, sizeof(f[0].text), "%H:%M:%S", &tm);
	}
	f[HF_CLOCK].prio = 2;
	/* the state's word ("DISCONNECTED" of "DISCONNECTED: ...; retrying")
	 * first; the whole of it only when everything else fits too */
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(state, ":"), state);
	if (state[0]) {
		state_w = (int)strlen(word) + 2;
		left -= state_w;
	}
	for (int prio = 0; prio <= 7; prio++)
		for (int i = 0; i < HF__COUNT; i++) {
			int w = (int)strlen(f[i].text) + 2;

			if (f[i].prio != prio)
				continue;
			if (i == HF_TIMELINE) {
				place_timeline(ui, &f[HF_TIMELINE], &f[HF_CLOCK], &left);
				continue;
			}
			if (!f[i].text[0] || w > left)
				continue;
			f[i].on = true;
			left -= w;
		}
	if (state[0] && strcmp(word, state) != 0 &&
	    (int)strlen(state) - (int)strlen(word) <= left) {
		full_state = true;
		state_w = (int)strlen(state) + 2;
	}
	line[0] = '\0';
	for (int i = 0; i < HF__COUNT; i++)
		if (f[i].on)
			str_cat(line, sizeof(line), "%s%s", line[0] ? "  " : " ", f[i].text);
	draw_line(0, 0, COLS, ui_attr(ui, PAIR_HEADER), line);
	if (state[0]) {
		int attr = source_connected(ui->src) ? ui_attr(ui, PAIR_HEADER)
						     : ui_attr(ui, PAIR_CRIT) | (int)A_REVERSE;

		/* right-aligned, with a space on each side: its own place */
		x = COLS - state_w;
		if (x < 0)
			x = 0;
		ui_put(0, x + 1, COLS - x - 1, attr, full_state ? state : word);
	}
}

/* A key and its label on the footer; optional ones only when the whole
 * line fits (at 80 columns it does not: F10Quit must stay). */
struct footer_key {
	const char *key, *label;
	bool optional;
	const struct view_ops *v; /* the view it opens, NULL the loop's */
};

/* The loop's keys on the footer, after help's. */
static const struct footer_key loop_keys[] = {
	{ "F6", "Sort", false, NULL },	 { "/", "Filter", false, NULL },
	{ "Spc", "Pause", false, NULL }, { "+-", "Interval", false, NULL },
	{ "Tab", "Panel", false, NULL },
};

/* The footer's keys: each view's in the table's order, the loop's after
 * help's, F10 last. Returns how many. */
static size_t footer_keys(struct footer_key *k, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; ui_views[i] && n < max; i++) {
		const struct view_ops *v = ui_views[i];

		if (v->footer_key)
			k[n++] = (struct footer_key){ v->footer_key, v->footer_label,
						      v->footer_optional, v };
		for (size_t j = 0;
		     v == &view_help && j < sizeof(loop_keys) / sizeof(loop_keys[0]) && n < max;
		     j++)
			k[n++] = loop_keys[j];
	}
	if (n < max)
		k[n++] = (struct footer_key){ "F10", "Quit", false, NULL };
	return n;
}

static void footer_label(const struct ui *ui, const struct footer_key *k, char *buf, size_t size)
{
	snprintf(buf, size, "%s", k->label);
	if (k->v && k->v->footer_fmt)
		k->v->footer_fmt(ui, buf, size);
}

static void draw_footer(struct ui *ui, int y)
{
	struct footer_key keys[24];
	const size_t nkeys = footer_keys(keys, sizeof(keys) / sizeof(keys[0]));
	const char *status;
	char label[32];
	int x = 0, attr = 0, width = 0;

	ui_fill(y, 0, COLS, 0);
	if (ui->editing) {
		char buf[128];

		snprintf(buf, sizeof(buf), "filter %s: %s_",
			 ui->edit_procs ? "processes" : panels[ui->focus]->name, ui->edit);
		if (ui->jumping) /* b */
			snprintf(buf, sizeof(buf),
				 "jump to (YYYY-MM-DD HH:MM[:SS], HH:MM, -15m): %s_", ui->edit);
		ui_put(y, 0, COLS, A_BOLD, buf);
		return;
	}
	/* the findings panel's question or result wins: it must be seen */
	status = view_findings_status(ui, &attr);
	if (status) {
		ui_fill(y, 0, COLS, attr & (int)A_REVERSE ? attr : 0);
		ui_put(y, 0, COLS, attr, status);
		return;
	}
	if (ui->note[0]) {
		ui_put(y, 0, COLS, A_BOLD, ui->note);
		return;
	}
	for (size_t i = 0; i < nkeys; i++) {
		footer_label(ui, &keys[i], label, sizeof(label));
		width += (int)(strlen(keys[i].key) + strlen(label)) + (i + 1 < nkeys);
	}
	for (size_t i = 0; i < nkeys && x < COLS; i++) {
		if (keys[i].optional && width > COLS)
			continue;
		footer_label(ui, &keys[i], label, sizeof(label));
		ui_put(y, x, COLS - x, A_BOLD, keys[i].key);
		x += (int)strlen(keys[i].key);
		ui_put(y, x, COLS - x, ui_attr(ui, PAIR_HEADER), label);
		x += (int)strlen(label) + 1;
	}
}

/* Splits the rows between the three panels: each gets its title, header and
 * one row, then rows go one at a time to whichever still has some to show,
 * the focused panel first; what is left is the history's. */
static void layout(struct ui *ui, int top, int avail, int *h)
{
	int need[PANEL__COUNT];
	int left = avail;
	bool more = true;

	for (int i = 0; i < PANEL__COUNT; i++) {
		/* the CPUs' include the heat map's lines, the disks' the bench
		 * job's, the IRQs' a line per NIC */
		need[i] = panels[i]->lines(ui, COLS);
		/* the heat map's lines come first: the CPUs panel is given them */
		h[i] = left >= 3 ? 3 : left > 0 ? left : 0;
		if (i == PANEL_CPUS && left - h[i] >= ui->heat.alloc)
			h[i] += ui->heat.alloc;
		left -= h[i];
	}
	(void)top;
	while (left > 0 && more) {
		more = false;
		for (int k = 0; k < PANEL__COUNT && left > 0; k++) {
			int i = (ui->focus + k) % PANEL__COUNT;

			if (h[i] < need[i]) {
				h[i]++;
				left--;
				more = true;
			}
		}
	}
}

/*
 * The lines under the header, from row y; returns the next free row. With
 * room (30 rows), turbostat's watts and temperatures (or why not), PSI and
 * writeback on two lines, then the unavailable sources; with less, one
 * line: PSI, writeback and turbostat together, unless a core source is
 * missing, which then takes it.
 */
static int draw_status_lines(struct ui *ui, int y)
{
	const struct model *m = &ui->model;
	bool unavail = m->nunavailable && LINES >= 16;

	if (LINES >= 30)
		y += view_header_draw(ui, y, 2);
	else if (LINES >= 16 && !(unavail && m->sections.core_unavailable)) {
		int n = view_header_draw(ui, y, 1);

		y += n;
		unavail = unavail && n == 0;
	}
	if (unavail) {
		char buf[1024];
		size_t shown = 0;

		/* one entry per cause, whole: those that do not fit are counted */
		snprintf(buf, sizeof(buf), " unavailable: ");
		for (size_t i = 0; i < m->nunavailable; i++) {
			size_t after = m->nunavailable - i - 1;
			int need = (int)(strlen(buf) + strlen(m->unavailable[i])) +
				   (shown ? 3 : 0) + (after ? (int)strlen(" | +99 more") : 0);

			if (need > COLS && shown)
				break;
			if (need > COLS) {
				/* the first cause alone is too long: its clauses
				 * that fit, cut before "; " or " (", else none */
				const char *c = m->unavailable[i];
				int room = COLS - (int)strlen(buf) -
					   (after ? (int)strlen(" | +99 more") : 0);
				int cut = 0;

				for (int k = 1; c[k] && k <= room; k++)
					if ((c[k] == ';' && c[k + 1] == ' ') ||
					    (c[k] == ' ' && c[k + 1] == '('))
						cut = k;
				if (!cut)
					break;
				str_cat(buf, sizeof(buf), "%.*s", cut, c);
				shown++;
				continue;
			}
			str_cat(buf, sizeof(buf), "%s%s", shown ? " | " : "", m->unavailable[i]);
			shown++;
		}
		if (shown < m->nunavailable)
			str_cat(buf, sizeof(buf), "%s+%zu more", shown ? " | " : "",
				m->nunavailable - shown);
		ui_put(y++, 0, COLS, ui_attr(ui, PAIR_WARN), buf);
	}
	return y;
}

/* A view instead of the tables: under the header (and the findings line)
 * and over the footer, or over the whole terminal. */
static void draw_view(struct ui *ui, const struct view_ops *v)
{
	struct rect r = { 1, 0, LINES - 2, COLS };

	if (v->flags & VIEW_WHOLE) {
		v->draw(ui, (struct rect){ 0, 0, LINES, COLS });
		return;
	}
	draw_header(ui);
	if (v->flags & VIEW_SUMMARY) {
		int n = view_summary.lines(ui, COLS);

		view_summary.draw(ui, (struct rect){ r.y, 0, n, COLS });
		r.y += n;
		r.h -= n;
	}
	v->draw(ui, r);
	draw_footer(ui, LINES - 1);
}

static void draw(struct ui *ui)
{
	const struct view_ops *v;
	int h[PANEL__COUNT], y = 1, hist_h, avail, n;

	erase();
	ui->rows = LINES;
	ui->cols = COLS;
	for (int i = 0; i < PANEL__COUNT; i++)
		panels[i]->order(ui);
	v = view_open(ui);
	if (v) {
		draw_view(ui, v);
		refresh();
		return;
	}
	draw_header(ui);
	n = view_summary.lines(ui, COLS);
	view_summary.draw(ui, (struct rect){ y, 0, n, COLS });
	y += n;
	y = draw_status_lines(ui, y);
	/* the history strip: 3 rows when there is room, else 2, else none */
	avail = LINES - y - 1;
	hist_h = avail >= 18 ? 4 : avail >= 12 ? 2 : 0;
	/* a big host's CPU heat map: at most a quarter of the rows, and the
	 * history strip gives way to it on a small terminal */
	{
		int heat = view_heat.lines(ui, COLS);

		ui->heat.alloc = heat < avail / 4 ? heat : avail / 4;
		if (ui->heat.alloc > 0 && avail < 30)
			hist_h = 0;
	}
	layout(ui, y, avail - hist_h, h);
	for (int i = 0; i < PANEL__COUNT; i++) {
		panels[i]->draw(ui, (struct rect){ y, 0, h[i], COLS });
		y += h[i];
	}
	hist_h = LINES - 1 - y;
	if (hist_h >= 2)
		view_history.draw(ui, (struct rect){ y, 0, hist_h > 9 ? 9 : hist_h, COLS });
	draw_footer(ui, LINES - 1);
	refresh();
}

void ui_draw(struct ui *ui)
{
	draw(ui);
}

/* ---- keys ---- */

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
		 panels[ui->focus]->row_name(ui, p->order[p->sel]));
	return UI_REDRAW;
}

static unsigned key_sort(struct ui *ui)
{
	struct panel *p = &ui->panels[ui->focus];

	p->sort++;
	if (!panels[ui->focus]->sorts[p->sort])
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

/* 'b': the typed time, on Enter */
static unsigned key_jump(struct ui *ui, int ch)
{
	int64_t t;

	if (ch == 27) {
		ui->editing = ui->jumping = false;
		return UI_REDRAW;
	}
	if (ch != '\n' && ch != '\r' && ch != KEY_ENTER) {
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && ui->edit_len)
			ui->edit[--ui->edit_len] = '\0';
		else if (ch >= 32 && ch < 127 && ui->edit_len + 1 < sizeof(ui->edit)) {
			ui->edit[ui->edit_len++] = (char)ch;
			ui->edit[ui->edit_len] = '\0';
		}
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
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (ui->edit_len)
			ui->edit[--ui->edit_len] = '\0';
		break;
	default:
		if (ch >= 32 && ch < 127 && ui->edit_len + 1 < sizeof(ui->edit)) {
			ui->edit[ui->edit_len++] = (char)ch;
			ui->edit[ui->edit_len] = '\0';
		}
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

/* The optional sources the screen shows now (1u << CAD_*), in draw()'s
 * order: the daemon reads them every sample while shown, so no row on
 * screen is older than the sample (the CPU budget, doc/daemon.md). */
static unsigned ui_wanted(const struct ui *ui)
{
	if (ui->findings.open)
		return 0;
	if (ui->cgroups.open)
		return 1u << CAD_CGROUPS;
	if (ui->procs.open)
		return 1u << CAD_PROCS | 1u << CAD_PRESSURE;
	if (ui->turbo.open)
		return 1u << CAD_TURBO;
	if (ui->chain.open) /* a NIC's chain: its nics section */
		return ui->chain.nic[0] ? 1u << CAD_NICS : 0;
	/* the header's turbostat and pressure lines, the IRQs panel's NICs */
	return 1u << CAD_TURBO | 1u << CAD_PRESSURE | 1u << CAD_NICS;
}

static unsigned ui_key(struct ui *ui, int ch, int64_t now_ns)
{
	struct panel *p = &ui->panels[ui->focus];
	const struct view_ops *v;

	if (ch == KEY_RESIZE)
		return UI_REDRAW;
	if (ui->editing)
		return key_edit(ui, ch);
	v = view_open(ui);
	/* help takes every key and leaves the footer's note be */
	if (v && v->flags & VIEW_WHOLE)
		return v->on_key(ui, ch);
	ui->note[0] = '\0';
	if (v) {
		unsigned f = v->on_key(ui, ch);

		if (!(f & UI_PASS))
			return f;
	} else {
		/* the tables' parts: the heat map, the focused panel (Enter) */
		for (size_t i = 0; ui_views[i]; i++) {
			const struct view_ops *t = ui_views[i];
			unsigned f;

			if (t->open_at || !t->on_key || (t->order && t != panels[ui->focus]))
				continue;
			f = t->on_key(ui, ch);
			if (!(f & UI_PASS))
				return f;
		}
	}
	/* time; replay: atop's t/T win over the turbostat sources view's t */
	if (ui_key_is_time(ui, ch))
		return key_time(ui, ch);
	/* a view's key opens it */
	for (size_t i = 0; ui_views[i]; i++)
		for (size_t k = 0; k < 4 && ui_views[i]->keys[k]; k++)
			if (ch == ui_views[i]->keys[k])
				return ui_open(ui, ui_views[i]);
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
	case '_': {
		unsigned f = source_step_interval(ui->src, ch == '+' || ch == '=' ? 1 : -1, now_ns);

		if (!f)
			snprintf(ui->note, sizeof(ui->note), "interval: already the %s",
				 ch == '+' || ch == '=' ? "longest" : "shortest");
		return UI_REDRAW;
	}
	case '\t':
		ui->focus = (ui->focus + 1) % PANEL__COUNT;
		return UI_REDRAW;
	case KEY_BTAB:
		ui->focus = (ui->focus + PANEL__COUNT - 1) % PANEL__COUNT;
		return UI_REDRAW;
	case KEY_UP:
	case 'k':
		return key_move(ui, -1, false);
	case KEY_DOWN:
	case 'j':
		return key_move(ui, 1, false);
	case KEY_PPAGE:
		return key_move(ui, -(p->visible > 1 ? p->visible : 1), false);
	case KEY_NPAGE:
		return key_move(ui, p->visible > 1 ? p->visible : 1, false);
	case KEY_HOME:
	case 'g':
		return key_move(ui, -1, true);
	case KEY_END:
	case 'G':
		return key_move(ui, 1, true);
	case KEY_LEFT:
		ui->focus = (ui->focus + PANEL__COUNT - 1) % PANEL__COUNT;
		return UI_REDRAW;
	case KEY_RIGHT:
		ui->focus = (ui->focus + 1) % PANEL__COUNT;
		return UI_REDRAW;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		return UI_REDRAW;
	}
	return 0;
}

/* ---- the loop ---- */

static void setup_colors(struct ui *ui)
{
	if (!ui->color || !has_colors() || start_color() == ERR) {
		ui->color = false;
		return;
	}
	use_default_colors();
	init_pair(PAIR_HEADER, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_GREEN);
	init_pair(PAIR_WARN, COLOR_YELLOW, -1);
	init_pair(PAIR_CRIT, COLOR_RED, -1);
	init_pair(PAIR_HOT, COLOR_WHITE, COLOR_RED);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_SOFT, COLOR_MAGENTA, -1);
	init_pair(PAIR_IRQ, COLOR_YELLOW, -1);
	init_pair(PAIR_WAIT, COLOR_BLUE, -1);
	init_pair(PAIR_INFO, COLOR_CYAN, -1);
}

static int ui_loop(struct ui *ui, int sfd)
{
	unsigned flags = UI_REDRAW;
	/* stdin at EOF (iotriage </dev/null) would poll readable forever: without
	 * a keyboard the view still runs and a signal ends it */
	int kbd = isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
	int quit_sig = 0;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = kbd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int64_t deadline, t;
		int timeout, n;

		if (flags & UI_QUIT)
			break;
		if (flags & UI_REDRAW)
			draw(ui);
		flags = 0;
		source_pollfd(ui->src, &pfd[2]);
		deadline = source_deadline_ns(ui->src);
		t = clock_mono_ns();
		if (deadline == INT64_MAX)
			timeout = -1;
		else if (deadline <= t)
			timeout = 0;
		else
			timeout = (int)((deadline - t + 999999) / 1000000);
		n = poll(pfd, pfd[2].fd >= 0 ? 3 : 2, timeout);
		if (n < 0 && errno != EINTR)
			return -errno;
		t = clock_mono_ns();
		/* ncurses turns SIGWINCH into KEY_RESIZE on the next getch(), and
		 * poll() returned EINTR: always drain the keyboard */
		for (int ch; (ch = getch()) != ERR;)
			flags |= ui_key(ui, ch, t);
		source_want(ui->src, ui_wanted(ui)); /* every read while looking */
		/* the terminal went away (ssh dropped without SIGHUP reaching us):
		 * nothing will ever be read again, and poll would spin */
		if (n > 0 && (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
			flags |= UI_QUIT;
		if (n > 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				quit_sig = (int)si.ssi_signo;
			flags |= UI_QUIT;
		}
		if ((n > 0 && pfd[2].fd >= 0 && pfd[2].revents) || source_deadline_ns(ui->src) <= t)
			flags |=
			    source_dispatch(ui->src, n > 0 && pfd[2].fd >= 0 ? pfd[2].revents : 0,
					    t, &ui->model, ui->paused);
		/* a time key's answer from the daemon (its recording) */
		if (source_past_note_take(ui->src, ui->note, sizeof(ui->note)))
			flags |= UI_REDRAW;
	}
	return quit_sig;
}

static const char tui_usage[] =
    "Usage: iotriage [--socket PATH | --embedded] [--interval MS] [--root DIR]\n"
    "                [--no-color] [--await-ms MS]\n"
    "The live view: from iotriaged if its socket answers, else sampled in-process.\n"
    "  --socket PATH   use the daemon at PATH only (waits and reconnects)\n"
    "  --embedded      sample in this process, never ask a daemon\n"
    "  --interval MS   embedded sampling interval (default 1000, minimum 100)\n"
    "  --root DIR      read /proc and /sys under DIR (a recorded or rewritten tree)\n"
    "  --no-color      no colours (as the NO_COLOR environment variable)\n"
    "  --await-ms MS   colour r_await/w_await above MS (default 20)\n"
    "  --trace         embedded, with BPF tracing: IRQ/softirq time, IO latency\n"
    "                  percentiles (root, or CAP_BPF and CAP_PERFMON; doc/trace.md)\n"
    "  --trace-budget PCT  with --trace: switch a probe off past PCT % of one CPU\n"
    "                  (default 2; 0 never: heavy packet rates cost the softirq probe more)\n"
    "Keys: F1/h/? help, F10/q quit, F6/s sort, / filter, space pause, +/- interval,\n"
    "Tab panel, arrows/jk move, f findings (a apply, u undo: each asks y/N),\n"
    "p processes by IO, t turbostat sources (each column's, or why unavailable),\n"
    "[ ] the previous / next CPU of the heat map (64 CPUs and more), Enter a\n"
    "disk's queue chain (its blk-mq queues, interrupts and their CPUs' load), a\n"
    "NIC's (its queues, with --trace their NET_RX time) or an IRQ device group's\n"
    "lines. Time: < > (or , .) the previous / next sample\n"
    "kept (a daemon's history and, with --record, its recording), b jump to a\n"
    "time, i the interval (10 s, 1 min, 10 min: embedded, or from the daemon's\n"
    "recording), n now.\n"
    "When stdout is not a terminal, iotriage prints one snapshot (iotriage snapshot)\n"
    "instead.\n";

enum {
	OPT_SOCKET = 0x100,
	OPT_EMBEDDED,
	OPT_ROOT,
	OPT_NO_COLOR,
	OPT_AWAIT,
	OPT_TRACE,
	OPT_TRACE_BUDGET
};

static int parse_args(int argc, char **argv, struct ui_opts *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "embedded", no_argument, NULL, OPT_EMBEDDED },
		{ "interval", required_argument, NULL, 'i' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "no-color", no_argument, NULL, OPT_NO_COLOR },
		{ "await-ms", required_argument, NULL, OPT_AWAIT },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "trace-budget", required_argument, NULL, OPT_TRACE_BUDGET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool budget = false;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOCKET:
			o->socket = optarg;
			break;
		case OPT_EMBEDDED:
			o->embedded = true;
			break;
		case 'i':
			o->interval_ms = cli_interval_arg(optarg, 100);
			if (o->interval_ms < 0)
				return -EXIT_USAGE;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_TRACE:
			/* the daemon traces with its own --trace */
			o->trace = o->embedded = true;
			break;
		case OPT_TRACE_BUDGET:
			o->trace_budget_pct = strtod(optarg, &end);
			if (end == optarg || *end || !(o->trace_budget_pct >= 0) ||
			    o->trace_budget_pct > 100) {
				cli_error("--trace-budget", "'%s' is not a percent from 0 to 100",
					  optarg);
				return -EXIT_USAGE;
			}
			budget = true;
			break;
		case OPT_AWAIT:
			o->await_ms = strtod(optarg, &end);
			if (end == optarg || *end || !(o->await_ms > 0) || o->await_ms > 1e6) {
				cli_error("--await-ms", "'%s' is not a positive number of ms",
					  optarg);
				return -EXIT_USAGE;
			}
			break;
		case 'h':
			printf("%s", tui_usage);
			return 1;
		default:
			fprintf(stderr, "%s", tui_usage);
			return -EXIT_USAGE;
		}
	}
	if (optind != argc) {
		cli_error(argv[optind], "unexpected argument (try --help)");
		return -EXIT_USAGE;
	}
	if (o->socket && o->embedded) {
		cli_error("--socket", "cannot be combined with --embedded");
		return -EXIT_USAGE;
	}
	if (budget && !o->trace) {
		cli_error("--trace-budget", "needs --trace (a daemon traces with its own budget)");
		return -EXIT_USAGE;
	}
	return 0;
}

static int tui_run(const struct ui_opts *op, const char *replay, int64_t at_ns);

int cmd_tui(int argc, char **argv)
{
	struct ui_opts o = { .await_ms = UI_DEFAULT_AWAIT_MS, .trace_budget_pct = -1 };
	int r;

	r = parse_args(argc, argv, &o);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	return tui_run(&o, NULL, 0);
}

int ui_replay(const char *path, int64_t at_ns, const char *root, int64_t step_ns)
{
	/* a replay's --interval is its step */
	struct ui_opts o = { .await_ms = UI_DEFAULT_AWAIT_MS,
			     .root = root,
			     .interval_ms = (long)(step_ns / 1000000) };

	return tui_run(&o, path, at_ns);
}

static int tui_run(const struct ui_opts *op, const char *replay, int64_t at_ns)
{
	const struct ui_opts o = *op;
	struct source_opts so;
	struct ui *ui;
	struct sigaction sa = { .sa_handler = restore_fatal };
	sigset_t mask, old;
	SCREEN *scr = NULL;
	const char *nc = getenv("NO_COLOR");
	char err[512];
	int r, sfd, ret = EXIT_FAIL;

	setlocale(LC_ALL, "");
	ui = calloc(1, sizeof(*ui));
	if (!ui) {
		cli_error("tui", "%s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	ui->await_ms = o.await_ms;
	ui->root = o.root;
	ui->color = !o.no_color && !(nc && nc[0]); /* no-color.org: set and non-empty */
	ui->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	so = (struct source_opts){ .socket = o.socket,
				   .embedded = o.embedded,
				   .interval_ms = o.interval_ms,
				   .root = o.root,
				   .replay = replay,
				   .replay_at = at_ns,
				   .trace = o.trace,
				   .trace_budget_pct = o.trace_budget_pct };
	r = source_open(&so, &ui->src, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "iotriage: %s\n", err);
		free(ui);
		return EXIT_FAIL;
	}
	if (source_trace_unavailable(ui->src))
		fprintf(stderr, "iotriage: tracing: unavailable (%s)\n",
			source_trace_unavailable(ui->src));

	/* quit signals arrive on a signalfd, so the loop leaves through endwin() */
	sigemptyset(&mask);
	for (size_t i = 0; i < sizeof(quit_signals) / sizeof(quit_signals[0]); i++)
		sigaddset(&mask, quit_signals[i]);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGPIPE, SIG_IGN); /* a daemon that went away is an EPIPE, not a death */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		cli_error("signalfd", "%s", strerror(errno));
		goto out_mask;
	}
	tcgetattr(STDIN_FILENO, &restore.tio);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		const char *term = getenv("TERM");

		cli_error("terminal", "cannot drive TERM=%s", term ? term : "(unset)");
		goto out_sfd;
	}
	restore_add("sgr0");
	restore_add("cnorm");
	restore_add("rmkx");
	restore_add("rmcup");
	restore.armed = true;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	/* a click on the CPU heat map selects that CPU */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	setup_colors(ui);

	r = ui_loop(ui, sfd);
	ret = r < 0 ? EXIT_FAIL : EXIT_OK;

	endwin();
	restore.armed = false;
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
	delscreen(scr);
	if (r < 0)
		cli_error("poll", "%s", strerror(-r));
out_sfd:
	close(sfd);
out_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
	source_close(ui->src);
	for (size_t i = 0; ui_views[i]; i++)
		if (ui_views[i]->free)
			ui_views[i]->free(ui);
	model_free(&ui->model);
	for (int i = 0; i < PANEL__COUNT; i++)
		free(ui->panels[i].order);
	free(ui);
	return ret;
}
