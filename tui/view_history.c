// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The history strip: a sparkline of the focused panel's selected row (a
 * disk's %util, a core's busy %, an IRQ's rate), newest on the right, from
 * the model's history, which in daemon mode starts with the daemon's own
 * history, so the minutes before the client started are there too.
 */
#include <math.h>
#include <ncurses.h>
#include <string.h>

#include "draw.h"
#include "ui.h"

static void fmt_span(char *buf, size_t size, int64_t ms)
{
	int64_t s = ms / 1000;

	if (s >= 3600)
		snprintf(buf, size, "%lldh%02lldm", (long long)(s / 3600),
			 (long long)(s / 60 % 60));
	else
		snprintf(buf, size, "%lldm%02llds", (long long)(s / 60), (long long)(s % 60));
}

static void history_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	const char *sel = view_selected(ui, ui->focus);
	static const char *const prefix[PANEL__COUNT] = { "d:", "c:", "i:" };
	static const char *const what[PANEL__COUNT] = { "%util", "busy %", "interrupts/s" };
	const struct model_series *s;
	char key[MODEL_NAME_MAX + 2], title[256], span[32], num[16];
	size_t npts, first;
	double scale, now = NAN, max = 0;
	int rows = r.h - 1;

	if (r.h < 2 || r.w < 10)
		return;
	snprintf(key, sizeof(key), "%s%s", prefix[ui->focus], sel);
	s = sel[0] ? model_series_find(m, key) : NULL;
	ui_fill(r.y, r.x, r.w, A_BOLD);
	if (!s || m->hist.n == 0) {
		snprintf(title, sizeof(title), "History: %s",
			 !sel[0] ? "select a row"
			 : strncmp(sel, "nic ", 4) == 0
			     ? "none kept for a NIC line (Enter: its queues)"
			     : "no samples yet");
		ui_put(r.y, r.x, r.w, A_BOLD, title);
		return;
	}
	npts = m->hist.n < (size_t)r.w ? m->hist.n : (size_t)r.w;
	first = m->hist.n - npts;
	for (size_t i = first; i < m->hist.n; i++) {
		float v = model_series_at(m, s, i);

		if (!isnan(v)) {
			now = v;
			if (v > max)
				max = v;
		}
	}
	/* percentages on a fixed 0..100 scale, so two rows compare at a glance */
	scale = ui->focus == PANEL_IRQS ? (max > 0 ? max : 1) : 100.0;
	{
		size_t newest = (m->hist.head + MODEL_HIST_MAX - 1) % MODEL_HIST_MAX;
		size_t oldest = (m->hist.head + MODEL_HIST_MAX - npts) % MODEL_HIST_MAX;

		fmt_span(span, sizeof(span), m->hist.ts_ms[newest] - m->hist.ts_ms[oldest]);
	}
	ui_fmt_num(num, sizeof(num), 7, isnan(now) ? 0 : now);
	snprintf(title, sizeof(title), "History: %s %s  last %s (%zu samples)  now %s  max %.2f",
		 ui->focus == PANEL_CPUS   ? "cpu"
		 : ui->focus == PANEL_IRQS ? "irq"
					   : "disk",
		 sel, span, npts, isnan(now) ? "-" : num + strspn(num, " "), max);
	ui_put(r.y, r.x, r.w, A_BOLD, title);
	ui_put(r.y, r.x + (int)strlen(title) + 1, r.w - (int)strlen(title) - 1, A_DIM,
	       what[ui->focus]);
	for (size_t i = first; i < m->hist.n; i++) {
		float v = model_series_at(m, s, i);
		int x = r.x + r.w - (int)(m->hist.n - i);
		int level, attr;

		if (isnan(v))
			continue;
		level = (int)lround(v / scale * rows * 8);
		if (level < 1 && v > 0)
			level = 1; /* something happened: never draw it as nothing */
		attr = ui_attr(ui, ui->focus != PANEL_IRQS && v >= 80.0 ? PAIR_CRIT : PAIR_GOOD);
		for (int k = 0; k < rows; k++) {
			int cell = level - k * 8;

			if (cell <= 0)
				break;
			draw_glyph(r.y + r.h - 1 - k, x, attr, draw_block(cell, ui->utf8));
		}
	}
}

const struct view_ops view_history = {
	.name = "history",
	.draw = history_draw,
};
