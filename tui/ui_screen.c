// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live view's frame, drawn whole each time: the top line (mode, state,
 * interval, host, clock, replay's timeline), the findings line, the status
 * lines under it, the three panels and the history strip laid out in the
 * rows left, the footer; or the view open instead of the tables. Asks the
 * source what it says of itself (state, interval, the past) and the views
 * their lines; draws nothing of a view's own.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "iotriage/types.h"
#include "source.h"
#include "str.h"
#include "ui.h"
#include "ui_int.h"

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
			 ui->edit_procs ? "processes" : ui_panels[ui->focus]->name, ui->edit);
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
		need[i] = ui_panels[i]->lines(ui, COLS);
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

void ui_draw(struct ui *ui)
{
	const struct view_ops *v;
	int h[PANEL__COUNT], y = 1, hist_h, avail, n;

	erase();
	ui->rows = LINES;
	ui->cols = COLS;
	for (int i = 0; i < PANEL__COUNT; i++)
		ui_panels[i]->order(ui);
	v = ui_views_shown(ui);
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
		ui_panels[i]->draw(ui, (struct rect){ y, 0, h[i], COLS });
		y += h[i];
	}
	hist_h = LINES - 1 - y;
	if (hist_h >= 2)
		view_history.draw(ui, (struct rect){ y, 0, hist_h > 9 ? 9 : hist_h, COLS });
	draw_footer(ui, LINES - 1);
	refresh();
}

/* The optional sources the screen shows now (1u << CAD_*), in ui_draw()'s
 * order: the daemon reads them every sample while shown, so no row on
 * screen is older than the sample (the CPU budget, doc/daemon.md). */
unsigned ui_screen_wanted(const struct ui *ui)
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
