// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The help screen: the keys, then what every column means (from the same
 * tables the panels draw, so the two cannot drift apart), wrapped to the
 * terminal's width and scrolled by its keys. The keys are each view's own
 * (struct view_ops), so a new view's key is listed where it is defined.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "ui.h"

#define LABEL_W 12

static const char *const help_help[][2] = {
	{ "F1 h ?", "this help (arrows, PgUp/PgDn scroll it; any other key closes it)" },
	{ NULL, NULL },
};

/* "  label       text" with text wrapped at word boundaries under itself. */
static void entry(struct draw_text *o, const char *label, const char *text)
{
	char first[64];

	snprintf(first, sizeof(first), "  %-*s ", LABEL_W, label);
	draw_text_wrap(o, 0, LABEL_W + 3, first, text);
}

/* A table's entries, up to its { NULL } (none when h is NULL). */
static void entries(struct draw_text *o, const char *const (*h)[2])
{
	for (size_t i = 0; h && h[i][0]; i++)
		entry(o, h[i][0], h[i][1]);
}

/* Each view's keys, help's own first, then the loop's; the replay's last. */
static void keys(struct draw_text *o)
{
	for (size_t v = 0; ui_views[v]; v++) {
		entries(o, ui_views[v]->help);
		if (ui_views[v] == &view_help)
			entries(o, ui_keys_help);
	}
	entries(o, ui_time_keys_help);
}

/* The whole text into o; returns its lines. */
static int text(struct ui *ui, struct draw_text *o)
{
	char line[256];

	draw_text_line(o, ui_attr(ui, PAIR_HEADER), "iotriage live view: help");
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "Keys");
	keys(o);
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "Disks: iostat -x (sysstat 12.6) columns, per whole device");
	for (int c = 0; c < MD__COUNT; c++)
		entry(o, model_disk_cols[c].label, model_disk_cols[c].help);
	entry(o, "",
	      "Columns that do not fit are left out, least telling first: widen the "
	      "terminal to see them all. iotriage snapshot prints every one.");
	entry(o, "job",
	      "the daemon's bench job (iotriage worker start), under its device's row, or "
	      "first with its target when that device has no row: engine, rw, queue depth, "
	      "IOPS and MB/s over the last interval, completion latency so far (avg, p99), "
	      "seconds since it started; once ended its result stays 30 s marked done");
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "CPUs: mpstat -u and -I SUM, per core");
	entries(o, model_cpu_help);
	entry(o, "job",
	      "takes the bench job's device interrupts (handlers named after it, e.g. "
	      "nvme0q3); loop, dm and devices whose handlers are not named after them "
	      "show none");
	entries(o, model_turbo_help);
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "IRQs: /proc/interrupts lines that fired (mpstat -I CPU)");
	entries(o, model_irq_help);
	entries(o, model_nic_help);
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "Header: the lines under the title");
	entries(o, model_header_help);
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "Processes (p): pidstat -d columns, per process (thread group)");
	entries(o, model_proc_help);
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "cgroups (c): cgroup v2 io.stat and io.pressure, per cgroup");
	entries(o, model_cgroup_help);
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD,
		       "Findings (f): the advisor of iotriage suggest, on the same sample");
	entry(o, "severity", "critical (red), warning (yellow), info (cyan), gravest first");
	entry(o, "reason", "one line with the measured numbers; a finding's detail below it");
	entry(o, "commands",
	      "the selected suggestion's exact shell lines, which a writes (through iotriaged "
	      "when connected, else under --root; the live host needs root)");
	entry(o, "undo", "the exact lines that restore the values read, which u writes");
	entry(o, "*", "applied from this screen; kept in the list until undone");
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "Thresholds");
	entry(o, "%util", "80 or more: saturated (red)");
	snprintf(line, sizeof(line), "above %.0f ms (--await-ms): slow (yellow)", ui->await_ms);
	entry(o, "r/w_await", line);
	entry(o, "%irq %soft",
	      "20 or more on one core (yellow); HOT marks a core the advisor finds hot");
	draw_text_line(o, 0, "");
	draw_text_line(o, A_BOLD, "Source");
	entry(o, "daemon",
	      "samples from iotriaged over its socket, with its history; "
	      "\"disconnected\" keeps the last data and reconnects by itself");
	entry(o, "embedded", "no daemon answered: this process samples with the same library");
	return o->line;
}

/* Over the whole terminal: the text in all but the last line, which says
 * how to leave; never scrolled past its end. */
static void help_draw(struct ui *ui, struct rect r)
{
	struct draw_text o = { .r = { r.y, r.x, 0, r.w } }; /* h 0: counts */
	int total;

	r.h--;
	total = text(ui, &o);
	draw_scroll_fit(&ui->help_scroll, total, r.h);
	o = (struct draw_text){ .r = r, .top = ui->help_scroll.top };
	text(ui, &o);
	ui_put(r.y + r.h, r.x, r.w, ui_attr(ui, PAIR_HEADER),
	       " help: arrows/PgUp/PgDn scroll, any other key returns");
}

static unsigned help_key(struct ui *ui, int ch)
{
	switch (ch) {
	case ' ':
		ch = KEY_NPAGE;
		/* fall through */
	case KEY_UP:
	case 'k':
	case KEY_DOWN:
	case 'j':
	case KEY_PPAGE:
	case KEY_NPAGE:
		return draw_scroll_key(&ui->help_scroll, ch, LINES - 2);
	case KEY_F(10):
		return UI_QUIT;
	}
	ui->help = false;
	return UI_REDRAW;
}

static void help_open(struct ui *ui)
{
	ui->help_scroll.top = 0;
}

const struct view_ops view_help = {
	.name = "help",
	.keys = { KEY_F(1), 'h', '?' },
	.flags = VIEW_WHOLE,
	.open_at = offsetof(struct ui, help),
	.open = help_open,
	.draw = help_draw,
	.on_key = help_key,
	.help = help_help,
	.footer_key = "F1",
	.footer_label = "Help",
};
