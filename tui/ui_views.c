// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live view's table of views (ui_views) and its three panels, which
 * one is open instead of the tables and how one opens; a panel's selection
 * kept on its row's name across new orderings. Knows struct ui and the
 * views' operations, never a view's insides.
 */
#include <stdio.h>
#include <string.h>

#include "ui.h"
#include "ui_int.h"

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
const struct view_ops *const ui_panels[PANEL__COUNT] = {
	[PANEL_DISKS] = &view_disks,
	[PANEL_CPUS] = &view_cpus,
	[PANEL_IRQS] = &view_irqs,
};

static bool *open_flag(struct ui *ui, const struct view_ops *v)
{
	return (bool *)((char *)ui + v->open_at);
}

static bool view_is_open(const struct ui *ui, const struct view_ops *v)
{
	return v->open_at && *(const bool *)((const char *)ui + v->open_at);
}

const struct view_ops *ui_views_shown(const struct ui *ui)
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
