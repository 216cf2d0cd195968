// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The cgroups view (c): which service or container does the IO, from each
 * cgroup v2's io.stat and io.pressure (or, where the io controller is on
 * cgroup v1, blkio's throttle counters) as the sample's "cgroups" section
 * lists them, busiest first, with a line per device where a cgroup uses
 * more than one. Replaces the tables while open. Draws the model only.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "ui.h"

/* The path in w columns: its end (the service or container) when too long. */
static void fit(const char *path, int w, char *buf, size_t size)
{
	size_t n = strlen(path);

	if (w < 4 || n <= (size_t)w) {
		snprintf(buf, size, "%s", path);
		return;
	}
	snprintf(buf, size, "...%s", path + n - (size_t)(w - 3));
}

static void pct(char *buf, size_t size, bool has, double v)
{
	if (has)
		snprintf(buf, size, "%6.2f", v);
	else
		snprintf(buf, size, "%6s", "-");
}

static void cgroups_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	const struct model_cgroups *c = &m->sections.cgroups;
	struct draw_text o = { .r = r, .top = ui->cgroups.scroll.top };
	bool discard = false;
	int pw;

	/* discards only where they fit beside a readable path (100 columns) */
	for (size_t i = 0; r.w >= 100 && i < c->n; i++)
		discard |= c->v[i].has_io && (c->v[i].v.dkb_s > 0 || c->v[i].v.d_s > 0);
	/* the numbers take 4 x 10 (+ 2 x 10 with discards) + 2 x 7 columns */
	pw = r.w - (discard ? 74 : 54) - 1;
	if (pw < 16)
		pw = 16;
	if (!c->present) {
		draw_text_printf(&o, ui_attr(ui, PAIR_TITLE), "> cgroups");
		draw_text_printf(
		    &o, A_DIM, "cgroups: %s%s%s",
		    !m->have_sample	   ? "waiting for the first sample"
		    : c->reason[0]	   ? "unavailable ("
		    : !m->sections.sampled ? "not in the sample (iotriaged --core-only, or older)"
					   : "not in this sample",
		    m->have_sample ? c->reason : "", m->have_sample && c->reason[0] ? ")" : "");
	} else {
		draw_text_bar(&o, ui_attr(ui, PAIR_TITLE) | (int)A_REVERSE,
			      "> cgroups (%s %s: %llu read, %llu active)  sort: rkB/s+wkB/s+dkB/s",
			      c->version == 1 ? "v1" : "v2", c->hierarchy,
			      (unsigned long long)c->count, (unsigned long long)c->active);
		if (c->reason[0])
			draw_text_printf(&o, ui_attr(ui, PAIR_WARN), "note: %s", c->reason);
		if (!c->has_rows) {
			draw_text_printf(&o, A_DIM, "waiting for a second sample...");
		} else if (c->n == 0) {
			draw_text_printf(&o, A_DIM,
					 "no cgroup did IO or stalled on it in the interval");
		} else {
			draw_text_printf(&o, A_BOLD, "%-*s %9s %9s %9s %9s%s %6s %6s", pw, "CGROUP",
					 "rkB/s", "wkB/s", "r/s", "w/s",
					 discard ? "     dkB/s       d/s" : "", "some%", "full%");
		}
	}
	for (size_t i = 0; c->present && i < c->n; i++) {
		const struct model_cg *g = &c->v[i];
		char path[MODEL_CG_PATH_MAX], io[96] = "", d[32] = "", s[16], f[16];

		fit(g->path, pw, path, sizeof(path));
		pct(s, sizeof(s), g->has_some, g->some_pct);
		pct(f, sizeof(f), g->has_full, g->full_pct);
		if (g->has_io)
			snprintf(io, sizeof(io), "%9.2f %9.2f %9.2f %9.2f", g->v.rkb_s, g->v.wkb_s,
				 g->v.r_s, g->v.w_s);
		else
			snprintf(io, sizeof(io), "%9s %9s %9s %9s", "-", "-", "-", "-");
		if (discard && g->has_io)
			snprintf(d, sizeof(d), " %9.2f %9.2f", g->v.dkb_s, g->v.d_s);
		else if (discard)
			snprintf(d, sizeof(d), " %9s %9s", "-", "-");
		draw_text_printf(&o, 0, "%-*s %s%s %s %s", pw, path, io, d, s, f);
		for (size_t k = 0; g->ndev > 1 && k < g->ndev; k++) {
			const struct model_cg_dev *v = &c->devs[g->dev_off + k];
			char name[64];

			snprintf(name, sizeof(name), "  %s %s", v->dev, v->disk);
			draw_text_printf(&o, A_DIM, "%-*.*s %9.2f %9.2f %9.2f %9.2f", pw, pw, name,
					 v->v.rkb_s, v->v.wkb_s, v->v.r_s, v->v.w_s);
		}
	}
	if (c->present && c->has_rows)
		draw_text_printf(
		    &o, A_DIM, "%s",
		    c->version == 1
			? "blkio.throttle counts each cgroup's own IO: a slice's rows "
			  "exclude its services'"
			: "io.stat is hierarchical: a slice's rows include its services'");
	draw_scroll_fit(&ui->cgroups.scroll, o.line, r.h);
}

static unsigned cgroups_key(struct ui *ui, int ch)
{
	switch (ch) {
	case 'c':
	case 27: /* Esc */
		ui->cgroups.open = false;
		ui->cgroups.scroll.top = 0;
		return UI_REDRAW;
	case 'f': /* another view instead */
	case 'p':
	case 't':
		ui->cgroups.open = false;
		return UI_PASS;
	}
	return draw_scroll_key(&ui->cgroups.scroll, ch, LINES - 3 > 1 ? LINES - 3 : 1);
}

static void cgroups_open(struct ui *ui)
{
	ui->cgroups.scroll.top = 0;
}

static const char *const cgroups_help[][2] = {
	{ "c", "the cgroups view: which service or container does the IO, from cgroup v2 "
	       "io.stat and io.pressure (or v1 blkio.throttle), busiest first (c or Esc returns; "
	       "arrows scroll)" },
	{ NULL, NULL },
};

const struct view_ops view_cgroups = {
	.name = "cgroups",
	.keys = { 'c' },
	.open_at = offsetof(struct ui, cgroups.open),
	.open = cgroups_open,
	.draw = cgroups_draw,
	.on_key = cgroups_key,
	.help = cgroups_help,
};
