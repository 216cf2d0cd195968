/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the live view: what its own files share and the views do not see.
 * The loop (ui.c) draws the frame (ui_screen.c) and hands keys to ui_key.c;
 * both reach the views through the table in ui_views.c.
 */
#ifndef IOTRIAGE_TUI_UI_INT_H
#define IOTRIAGE_TUI_UI_INT_H

#include <stdint.h>

#include "ui.h"

/* The panels of the tables, by enum panel_id (ui_views.c). */
extern const struct view_ops *const ui_panels[PANEL__COUNT];

/* The view drawn now instead of the tables, NULL none: the whole-terminal
 * one (help) over the others (ui_views.c). */
const struct view_ops *ui_views_shown(const struct ui *ui);

/* One key: the open view's, a time key, a view's opening key or the loop's
 * own; returns UI_* flags (ui_key.c). */
unsigned ui_key(struct ui *ui, int ch, int64_t now_ns);

/* The optional sources the screen shows now (1u << CAD_*) (ui_screen.c). */
unsigned ui_screen_wanted(const struct ui *ui);

#endif
