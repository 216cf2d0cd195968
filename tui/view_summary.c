// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The findings line under the header: always there on the tables' screen,
 * the advisor's first finding in words with the number that proves it and
 * the key to its fix (model_summary.c says what and how it drops fields to
 * fit), coloured by its severity, so the culprit is named before any key
 * is pressed. Draws the model only.
 */
#include <ncurses.h>
#include <stdio.h>

#include "model_summary.h"
#include "source.h"
#include "ui.h"

static void summary_draw(struct ui *ui, struct rect r)
{
	struct model_summary s;
	char buf[320];
	int64_t shown, newest;
	int attr;

	/* cut off from the daemon: why, whole, where the headline goes (the
	 * top line keeps only the word); the tables are the last ones seen */
	if (!source_connected(ui->src) && source_state(ui->src)[0]) {
		snprintf(buf, sizeof(buf), " %s", source_state(ui->src));
		attr = ui_attr(ui, PAIR_CRIT) | (int)A_BOLD;
		ui_fill(r.y, r.x, r.w, 0);
		ui_put(r.y, r.x, r.w, attr, buf);
		return;
	}
	model_summary_get(&ui->model, &s);
	switch (s.level) {
	case MODEL_SUM_CRITICAL:
		attr = ui_attr(ui, PAIR_HOT);
		break;
	case MODEL_SUM_WARNING:
		attr = ui_attr(ui, PAIR_WARN) | (int)A_BOLD;
		break;
	case MODEL_SUM_INFO:
		attr = ui_attr(ui, PAIR_INFO);
		break;
	case MODEL_SUM_OK:
		attr = ui_attr(ui, PAIR_GOOD);
		break;
	case MODEL_SUM_UNKNOWN:
		/* a hot core without advice still stands out */
		attr = s.word[0] ? ui_attr(ui, PAIR_WARN) | (int)A_BOLD : (int)A_DIM;
		break;
	default:
		attr = (int)A_DIM;
		break;
	}
	/* a replay, or the past live, cannot apply: f shows the fix */
	model_summary_line(&s, ui->utf8,
			   source_kind(ui->src) != SOURCE_REPLAY &&
			       !source_past(ui->src, &shown, &newest),
			   r.w, buf, sizeof(buf));
	ui_fill(r.y, r.x, r.w, s.level == MODEL_SUM_CRITICAL ? attr : 0);
	ui_put(r.y, r.x, r.w, attr, buf);
}

static int summary_lines(struct ui *ui, int w)
{
	(void)ui;
	(void)w;
	return 1;
}

const struct view_ops view_summary = {
	.name = "summary",
	.draw = summary_draw,
	.lines = summary_lines,
};
