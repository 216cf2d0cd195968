// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The findings panel: the advisor's findings (severity, one-line reason)
 * and suggestions from the sample document, the selected one's reason,
 * exact commands and exact undo; and apply/undo on an explicit 'y' only,
 * through iotriaged (a short separate connection) or, embedded, through
 * src/act/apply.c under --root. It never reads /proc and never advises itself:
 * what it shows and applies is what the sample carried.
 */
#include <errno.h>
#include <ncurses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise.h"
#include "draw.h"
#include "model_summary.h"
#include "source.h"
#include "ui.h"

/* ---- rows: findings, suggestions, then what was applied from here ---- */

enum row_kind { ROW_FINDING = 'f', ROW_SUGGESTION = 's', ROW_APPLIED = 'a' };

struct row {
	enum row_kind kind;
	const char *id;
	const char *severity;
	enum model_severity sev;
	const char *reason;
	const struct model_finding *f;
	const struct model_suggestion *s; /* suggestion and applied rows */
	bool applied;			  /* applied from this screen */
};

static const struct model_suggestion *applied_find(const struct findings_panel *fp, const char *id)
{
	for (size_t i = 0; i < fp->napplied; i++)
		if (strcmp(fp->applied[i].id, id) == 0)
			return &fp->applied[i];
	return NULL;
}

/* The rows of the panel now; *ret free()d by the caller. Returns the count
 * (0 with *ret NULL when there are none or memory ran out). */
static size_t rows_build(const struct ui *ui, struct row **ret)
{
	const struct model_advice *a = &ui->model.advice;
	const struct findings_panel *fp = &ui->findings;
	size_t n = 0;
	struct row *v;

	*ret = NULL;
	if (a->nfindings + a->nsuggestions + fp->napplied == 0)
		return 0;
	v = calloc(a->nfindings + a->nsuggestions + fp->napplied, sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < a->nfindings; i++) {
		const struct model_finding *f = &a->findings[i];

		v[n++] =
		    (struct row){ ROW_FINDING, f->id, f->severity_name, f->severity, f->reason, f,
				  NULL,	       false };
	}
	/* the advisor's order (ranked by harm, the first is the headline's):
	 * never re-ranked here */
	for (size_t i = 0; i < a->nsuggestions; i++) {
		const struct model_suggestion *s = &a->suggestions[i];

		v[n++] = (struct row){ ROW_SUGGESTION,
				       s->id,
				       s->severity_name,
				       s->severity,
				       s->reason,
				       NULL,
				       s,
				       applied_find(fp, s->id) != NULL };
	}
	/* applied here and no longer suggested (the spread is in place) */
	for (size_t i = fp->napplied; i-- > 0;) {
		const struct model_suggestion *s = &fp->applied[i];

		if (!model_findings_suggestion(a, s->id))
			v[n++] = (struct row){ ROW_APPLIED, s->id,     s->severity_name,
					       s->severity, s->reason, NULL,
					       s,	    true };
	}
	*ret = v;
	return n;
}

static void row_key(const struct row *r, char *buf, size_t size)
{
	snprintf(buf, size, "%c:%s", (char)r->kind, r->id);
}

/* Finds the selected key again among rows; a panel opened without one
 * selects the first suggestion, the row a person came for. */
static void keep_selection(struct findings_panel *fp, const struct row *v, size_t n)
{
	char key[sizeof(fp->sel_key)];

	if (n == 0) {
		fp->sel = 0;
		fp->sel_key[0] = '\0';
		return;
	}
	for (size_t i = 0; fp->sel_key[0] && i < n; i++) {
		row_key(&v[i], key, sizeof(key));
		if (strcmp(key, fp->sel_key) == 0) {
			fp->sel = i;
			return;
		}
	}
	if (!fp->sel_key[0]) {
		fp->sel = 0;
		for (size_t i = 0; i < n; i++)
			if (v[i].kind == ROW_SUGGESTION) {
				fp->sel = i;
				break;
			}
	} else if (fp->sel >= n) {
		fp->sel = n - 1;
	}
	row_key(&v[fp->sel], fp->sel_key, sizeof(fp->sel_key));
}

/* ---- drawing ---- */

/* title, then text's items (the advisor separates them with "; "), one
 * per line: reads better than one long paragraph */
static void draw_items(struct draw_text *o, const char *title, const char *text)
{
	const char *p = text;

	draw_text_line(o, A_BOLD, title);
	while (*p) {
		const char *end = strstr(p, "; ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char item[1024];

		snprintf(item, sizeof(item), "%.*s", (int)(n < sizeof(item) ? n : sizeof(item) - 1),
			 p);
		draw_text_wrap(o, 0, 2, NULL, item);
		p += n;
		if (end)
			p += 2;
	}
}

static void detail_finding(struct ui *ui, struct draw_text *o, const struct model_finding *f)
{
	const struct model_advice *a = &ui->model.advice;
	char line[512];
	bool any = false;

	snprintf(line, sizeof(line), "Finding %s  [%s]  %s  %s", f->id, f->severity_name, f->kind,
		 f->subject);
	draw_text_line(o, ui_mix(A_BOLD, draw_severity_attr(ui, f->severity)), line);
	draw_text_wrap(o, 0, 2, NULL, f->reason);
	/* who, before why: the processes and cgroups doing it */
	if (f->culprit && f->culprit[0])
		draw_items(o, "Culprit:", f->culprit);
	if (f->detail[0])
		draw_items(o, "Detail:", f->detail);
	for (size_t i = 0; i < a->nsuggestions; i++)
		if (strcmp(a->suggestions[i].finding, f->id) == 0) {
			snprintf(line, sizeof(line),
				 "Suggestion %s answers it: select it for the commands and undo.",
				 a->suggestions[i].id);
			draw_text_line(o, A_BOLD, line);
			any = true;
		}
	if (!any)
		draw_text_line(o, A_BOLD,
			       "No suggestion answers this finding (the detail says why).");
}

static void detail_suggestion(struct ui *ui, struct draw_text *o, const struct model_suggestion *s,
			      bool applied, bool current)
{
	char line[512];

	snprintf(line, sizeof(line), "Suggestion %s  [%s]  for %s%s", s->id, s->severity_name,
		 s->finding,
		 !applied  ? ""
		 : current ? "  APPLIED from this screen (u undoes it)"
			   : "  APPLIED from this screen, no longer suggested (u undoes it)");
	draw_text_line(o, ui_mix(A_BOLD, draw_severity_attr(ui, s->severity)), line);
	draw_text_wrap(o, 0, 2, NULL, s->reason);
	if (applied)
		snprintf(line, sizeof(line), "Commands (%zu, applied):", s->ncommands);
	else
		snprintf(line, sizeof(line),
			 "Commands (%zu; a applies them after a y/N question):", s->ncommands);
	draw_text_line(o, A_BOLD, line);
	for (size_t i = 0; i < s->ncommands; i++)
		draw_text_wrap(o, 0, 2, NULL, s->commands[i]);
	snprintf(line, sizeof(line),
		 "Undo (%zu; u restores these values after a y/N question):", s->nundo);
	draw_text_line(o, A_BOLD, line);
	for (size_t i = 0; i < s->nundo; i++)
		draw_text_wrap(o, 0, 2, NULL, s->undo[i]);
	if (s->effect[0]) {
		draw_text_line(o, A_BOLD, "Expected:");
		draw_text_wrap(o, 0, 2, NULL, s->effect);
	}
	if (s->notes[0]) {
		draw_text_line(o, A_BOLD, "Notes:");
		draw_text_wrap(o, 0, 2, NULL, s->notes);
	}
}

static void detail(struct ui *ui, struct draw_text *o, const struct row *s)
{
	if (s->kind == ROW_FINDING)
		detail_finding(ui, o, s->f);
	else
		detail_suggestion(ui, o, s->s, s->applied, s->kind == ROW_SUGGESTION);
}

/* Why there is no list: nothing known is never drawn as "healthy". */
static const char *why_empty(const struct ui *ui, char *buf, size_t size)
{
	const struct model *m = &ui->model;

	if (!m->have_sample)
		return "waiting for the first sample...";
	if (!m->has_rates)
		return "waiting for a second sample: findings need an interval";
	if (m->advice.bad[0]) {
		snprintf(buf, size,
			 "The advice in the sample could not be read (%s): nothing is known, "
			 "which is not the same as healthy.",
			 m->advice.bad);
		return buf;
	}
	if (!m->advice.present)
		return source_kind(ui->src) == SOURCE_DAEMON
			   ? "No advice: iotriaged sends none in this sample (it runs with "
			     "--core-only or is older than the advisor; or, for a moment after an "
			     "apply or undo, it is reading the topology again). Nothing is known, "
			     "which is not the same as healthy."
			   : "No advice in this sample: the IRQ and device topology could not be "
			     "read. Nothing is known, which is not the same as healthy.";
	return NULL;
}

static void draw_findings_title(struct ui *ui, struct rect r)
{
	const struct model_advice *a = &ui->model.advice;
	size_t napplied = ui->findings.napplied;
	char buf[512];

	if (napplied)
		snprintf(buf, sizeof(buf),
			 "> Findings (%zu)  Suggestions (%zu)  Applied here (%zu)", a->nfindings,
			 a->nsuggestions, napplied);
	else
		snprintf(buf, sizeof(buf), "> Findings (%zu)  Suggestions (%zu)", a->nfindings,
			 a->nsuggestions);
	draw_line(r.y, r.x, r.w, ui_attr(ui, PAIR_TITLE), buf);
}

/* Whether row i starts a kind: a heading line goes before it. */
static bool starts_kind(const struct row *v, size_t i)
{
	return i == 0 || v[i].kind != v[i - 1].kind;
}

/* The list's height from y (half the panel at most when the detail has
 * room), scrolled so the selected row shows. */
static int list_place(struct findings_panel *fp, const struct row *v, size_t n, struct rect r,
		      int y)
{
	int lines = (int)n, list_h;
	size_t sel_line = 0;

	for (size_t i = 0; i < n; i++)
		if (starts_kind(v, i))
			lines++; /* its heading */
	list_h = r.y + r.h - y;
	if (list_h > lines)
		list_h = lines;
	if (list_h > (r.h - 1) / 2 && (r.h - 1) / 2 >= 4)
		list_h = (r.h - 1) / 2;
	for (size_t i = 0, line = 0; i < n; i++, line++) {
		if (starts_kind(v, i))
			line++;
		if (i == fp->sel)
			sel_line = line;
	}
	if (sel_line < fp->top + 1)
		fp->top = sel_line > 0 ? sel_line - 1 : 0;
	if (sel_line >= fp->top + (size_t)list_h)
		fp->top = sel_line - (size_t)list_h + 1;
	return list_h;
}

/* A row of the list: severity, id ("*" applied here), reason. */
static void draw_list_row(struct ui *ui, const struct row *w, int y, struct rect r, bool sel)
{
	int base = sel ? (int)A_REVERSE : 0;
	char id[MODEL_ADV_ID_MAX + 16];

	ui_fill(y, r.x, r.w, base);
	ui_put(y, r.x + 2, 8, ui_mix(base | A_BOLD, draw_severity_attr(ui, w->sev)), w->severity);
	snprintf(id, sizeof(id), "%s%s", w->id, w->applied ? " *" : "");
	ui_put(y, r.x + 11, 28, base | A_BOLD, id);
	ui_put(y, r.x + 40, r.w - 40, base, w->reason);
}

/* The list in list_h lines from y: a heading before each kind, one line
 * per row, from the line fp->top. */
static void draw_list(struct ui *ui, const struct row *v, size_t n, struct rect r, int y,
		      int list_h)
{
	const struct findings_panel *fp = &ui->findings;

	for (size_t i = 0, line = 0; i < n; i++, line++) {
		if (starts_kind(v, i)) {
			const char *head = v[i].kind == ROW_FINDING ? "Findings"
					   : v[i].kind == ROW_SUGGESTION
					       ? "Suggestions"
					       : "Applied from this screen";

			if (line >= fp->top && line < fp->top + (size_t)list_h)
				ui_put(y + (int)(line - fp->top), r.x, r.w, A_BOLD | A_UNDERLINE,
				       head);
			line++;
		}
		if (line < fp->top || line >= fp->top + (size_t)list_h)
			continue;
		draw_list_row(ui, &v[i], y + (int)(line - fp->top), r, i == fp->sel);
	}
}

/* The selected row's detail under a rule at y, scrolled with PgUp/PgDn. */
static void draw_detail(struct ui *ui, const struct row *s, struct rect r, int y)
{
	struct findings_panel *fp = &ui->findings;
	struct draw_text o = { .r = { y + 1, r.x, r.y + r.h - y - 1, r.w } };
	struct draw_text count = { .r = { 0, 0, 0, r.w } }; /* h 0: counts, draws nothing */
	char buf[512];

	mvhline(y, r.x, ui->utf8 ? ACS_HLINE : '-', r.w);
	detail(ui, &count, s);
	/* never scrolled past the end (a shorter row is selected now) */
	if (fp->detail_top > count.line - o.r.h)
		fp->detail_top = count.line - o.r.h;
	if (fp->detail_top < 0)
		fp->detail_top = 0;
	o.top = fp->detail_top;
	detail(ui, &o, s);
	if (o.line > o.r.h) {
		draw_range(buf, sizeof(buf), " ", fp->detail_top, o.r.h, o.line,
			   " lines (PgUp/PgDn) ");
		ui_put(y, r.x + r.w - (int)strlen(buf) - 1, (int)strlen(buf), A_BOLD, buf);
	}
}

void view_findings_draw(struct ui *ui, struct rect r)
{
	struct findings_panel *fp = &ui->findings;
	const struct model_advice *a = &ui->model.advice;
	struct row *v = NULL;
	size_t n = rows_build(ui, &v);
	char buf[512];
	const char *why;
	int y = r.y + 1, list_h;

	draw_findings_title(ui, r);
	keep_selection(fp, v, n);
	why = why_empty(ui, buf, sizeof(buf));
	if (why) {
		struct draw_text o = { .r = { y, r.x, r.y + r.h - y, r.w } };

		draw_text_wrap(&o, A_BOLD, 2, NULL, why);
		y += o.line;
	} else if (a->nfindings == 0) {
		ui_put(y++, r.x, r.w, ui_mix(A_BOLD, ui_attr(ui, PAIR_GOOD)),
		       "  No findings: nothing stands out on this host (no hot core, no "
		       "saturated or slow disk).");
	}
	if (n == 0) {
		free(v);
		return;
	}
	list_h = list_place(fp, v, n, r, y);
	draw_list(ui, v, n, r, y, list_h);
	if (!a->nsuggestions && !fp->napplied && a->nfindings && y + list_h < r.y + r.h) {
		ui_put(y + list_h, r.x, r.w, A_DIM,
		       "  No suggestion: nothing here is safe to change automatically (see the "
		       "finding's detail).");
		list_h++;
	}
	y += list_h;
	if (y + 2 <= r.y + r.h)
		draw_detail(ui, &v[fp->sel], r, y);
	free(v);
}

/* ---- apply and undo ---- */

static void set_status(struct findings_panel *fp, bool failed, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_status(struct findings_panel *fp, bool failed, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fp->status, sizeof(fp->status), fmt, ap);
	va_end(ap);
	fp->status_failed = failed;
}

static void remember_applied(struct findings_panel *fp, const struct model_suggestion *s,
			     const char *id)
{
	struct model_suggestion c, bare = { 0 };

	/* the daemon applied an id the last sample no longer carried: keep the id */
	if (!s) {
		snprintf(bare.id, sizeof(bare.id), "%s", id);
		s = &bare;
	}
	if (model_findings_copy_suggestion(s, &c) < 0)
		return; /* only the "applied" row is lost; the journal has the undo */
	for (size_t i = 0; i < fp->napplied; i++)
		if (strcmp(fp->applied[i].id, c.id) == 0) {
			model_findings_free_suggestion(&fp->applied[i]);
			fp->applied[i] = c;
			return;
		}
	if (fp->napplied == FINDINGS_APPLIED_MAX) {
		model_findings_free_suggestion(&fp->applied[0]);
		memmove(&fp->applied[0], &fp->applied[1],
			sizeof(fp->applied[0]) * (FINDINGS_APPLIED_MAX - 1));
		fp->napplied--;
	}
	fp->applied[fp->napplied++] = c;
}

static void forget_applied(struct findings_panel *fp, const char *id)
{
	for (size_t i = 0; i < fp->napplied; i++)
		if (strcmp(fp->applied[i].id, id) == 0) {
			model_findings_free_suggestion(&fp->applied[i]);
			memmove(&fp->applied[i], &fp->applied[i + 1],
				sizeof(fp->applied[0]) * (fp->napplied - i - 1));
			fp->napplied--;
			return;
		}
}

static void act(struct ui *ui, bool undo)
{
	struct findings_panel *fp = &ui->findings;
	char id[MODEL_ADV_ID_MAX], msg[sizeof(fp->status)];
	int r;

	memcpy(id, fp->ask_id, sizeof(id));
	r = source_apply(ui->src, &ui->model.advice, ui->root, id, undo, msg, sizeof(msg));
	set_status(fp, r < 0, "%s", msg);
	if (r == 0 && undo)
		forget_applied(fp, id);
	else if (r == 0)
		remember_applied(fp, model_findings_suggestion(&ui->model.advice, id), id);
}

/* Embedded without --root writes the live kernel's files: root's. */
static bool may_write(struct ui *ui, bool undo)
{
	if (source_kind(ui->src) == SOURCE_DAEMON || ui->root || geteuid() == 0)
		return true;
	set_status(&ui->findings, true,
		   "cannot %s here: changing IRQ affinity and queue settings needs root (run "
		   "iotriage with sudo, or through iotriaged)",
		   undo ? "undo" : "apply");
	return false;
}

/* a or u on the selected row: ask, never act. */
static unsigned ask(struct ui *ui, bool undo)
{
	struct findings_panel *fp = &ui->findings;
	struct row *v = NULL;
	size_t n = rows_build(ui, &v);
	const struct row *r;
	int64_t shown_ns, newest_ns;

	fp->status[0] = '\0';
	keep_selection(fp, v, n);
	r = n ? &v[fp->sel] : NULL;
	if (source_kind(ui->src) == SOURCE_REPLAY) {
		set_status(fp, true, "%s", source_replay_refusal(undo));
	} else if (!r || r->kind == ROW_FINDING) {
		set_status(fp, true, "select a suggestion (below the findings) to %s it",
			   undo ? "undo" : "apply");
	} else if (!undo && r->kind == ROW_APPLIED) {
		set_status(fp, true, "%s is no longer suggested: u undoes it", r->id);
	} else if (!undo && source_past(ui->src, &shown_ns, &newest_ns)) {
		/* the advice of a past sample: the host may have moved on */
		set_status(fp, true,
			   "looking at the past: this advice is of then; n returns to now before "
			   "applying");
	} else if (!undo && ui->paused) {
		set_status(fp, true,
			   "paused: the advice on screen may be old; resume (space) before "
			   "applying");
	} else if (may_write(ui, undo)) {
		snprintf(fp->ask_id, sizeof(fp->ask_id), "%s", r->id);
		fp->ask = undo ? FINDINGS_ASK_UNDO : FINDINGS_ASK_APPLY;
	}
	free(v);
	return UI_REDRAW;
}

static unsigned select_row(struct ui *ui, long delta, bool to_end)
{
	struct findings_panel *fp = &ui->findings;
	struct row *v = NULL;
	size_t n = rows_build(ui, &v);
	long sel;

	keep_selection(fp, v, n);
	if (n == 0) {
		free(v);
		return 0;
	}
	sel = to_end ? (delta < 0 ? 0 : (long)n - 1) : (long)fp->sel + delta;
	if (sel < 0)
		sel = 0;
	if (sel >= (long)n)
		sel = (long)n - 1;
	if ((size_t)sel != fp->sel)
		fp->detail_top = 0;
	fp->sel = (size_t)sel;
	row_key(&v[fp->sel], fp->sel_key, sizeof(fp->sel_key));
	free(v);
	return UI_REDRAW;
}

unsigned view_findings_fix(struct ui *ui)
{
	struct findings_panel *fp = &ui->findings;
	struct model_summary s;

	model_summary_get(&ui->model, &s);
	ui_open(ui, &view_findings);
	fp->detail_top = 0;
	fp->top = 0;
	if (!s.fix[0]) {
		/* no fix: the headline's finding, whose detail says why */
		fp->sel_key[0] = '\0';
		if (ui->model.advice.nfindings)
			snprintf(fp->sel_key, sizeof(fp->sel_key), "%c:%s", ROW_FINDING,
				 ui->model.advice.findings[0].id);
		return UI_REDRAW;
	}
	snprintf(fp->sel_key, sizeof(fp->sel_key), "%c:%s", ROW_SUGGESTION, s.fix);
	return ask(ui, false);
}

unsigned view_findings_key(struct ui *ui, int ch)
{
	struct findings_panel *fp = &ui->findings;
	bool to_end;
	int delta;

	if (fp->ask != FINDINGS_ASK_NONE) {
		bool undo = fp->ask == FINDINGS_ASK_UNDO;

		/* only an explicit y acts; any other key is a no */
		fp->ask = FINDINGS_ASK_NONE;
		if (ch == 'y' || ch == 'Y')
			act(ui, undo);
		else
			set_status(fp, false, "%s %s cancelled: nothing written",
				   undo ? "undo of" : "apply of", fp->ask_id);
		return UI_REDRAW;
	}
	switch (ch) {
	case 'f':
	case 'F':
	case 27: /* Esc */
		fp->open = false;
		fp->status[0] = '\0';
		return UI_REDRAW;
	case KEY_NPAGE:
		fp->detail_top += LINES / 2 > 1 ? LINES / 2 : 1;
		return UI_REDRAW;
	case KEY_PPAGE:
		fp->detail_top -= LINES / 2 > 1 ? LINES / 2 : 1;
		if (fp->detail_top < 0)
			fp->detail_top = 0;
		return UI_REDRAW;
	case 'a':
		return ask(ui, false);
	case 'u':
		return ask(ui, true);
	}
	/* PgUp/PgDn scroll the detail (above): a row at a time */
	if (ui_key_move(ch, 1, &delta, &to_end))
		return select_row(ui, delta, to_end);
	if (ui_key_is_global(ch))
		return UI_PASS;
	/* time moves under the panel, the findings follow it */
	if (ui_key_is_time(ui, ch))
		return UI_PASS;
	return 0;
}

const char *view_findings_status(const struct ui *ui, int *ret_attr)
{
	const struct findings_panel *fp = &ui->findings;
	static char buf[sizeof(fp->status) + 64];

	if (fp->ask != FINDINGS_ASK_NONE) {
		snprintf(buf, sizeof(buf), "%s %s? [y/N]",
			 fp->ask == FINDINGS_ASK_APPLY ? "Apply" : "Undo", fp->ask_id);
		*ret_attr = ui_mix(A_BOLD, ui_attr(ui, PAIR_WARN)) | (int)A_REVERSE;
		return buf;
	}
	if (fp->status[0]) {
		*ret_attr =
		    fp->status_failed ? ui_mix((int)A_BOLD, ui_attr(ui, PAIR_CRIT)) : (int)A_BOLD;
		return fp->status;
	}
	if (!fp->open)
		return NULL;
	*ret_attr = A_BOLD;
	return "arrows select  a Apply  u Undo  PgUp/PgDn scroll  f/Esc back  F1 Help  F10 Quit";
}

void view_findings_free(struct ui *ui)
{
	for (size_t i = 0; i < ui->findings.napplied; i++)
		model_findings_free_suggestion(&ui->findings.applied[i]);
	ui->findings.napplied = 0;
}

/* "Findings(3)" on the footer: how many wait behind f, when the sample says. */
static void findings_footer(const struct ui *ui, char *buf, size_t size)
{
	const struct model_advice *a = &ui->model.advice;

	snprintf(buf, size, "Findings");
	if (a->present && a->nfindings)
		snprintf(buf, size, "Findings(%zu)", a->nfindings);
}

static const char *const findings_help[][2] = {
	{ "f", "the findings panel: the advisor's findings and suggestions (f or Esc returns)" },
	{ "a", "on the tables: the headline's fix, its commands and undo, [y/N]" },
	{ "a u", "in the findings panel: apply / undo the selected suggestion; each asks "
		 "[y/N] on the status line and only y acts" },
	{ NULL, NULL },
};

const struct view_ops view_findings = {
	.name = "findings",
	.keys = { 'f' },
	.open_at = offsetof(struct ui, findings.open),
	.draw = view_findings_draw,
	.on_key = view_findings_key,
	.help = findings_help,
	.footer_key = "f",
	.footer_label = "Findings",
	.footer_fmt = findings_footer,
	.free = view_findings_free,
};
