// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The processes view (p): who does the storage IO, biggest kB_rd/s +
 * kB_wr/s first, each with its user and command line (its unit on a wide
 * screen), then who is busiest on CPU, as the sample's "processes" section lists it (pidstat -d
 * columns, iotop's IO> as io_delay%), with where the numbers come from
 * (/proc/PID/io, taskstats) and why delays are missing when they are; then
 * the longest IO waits and the pressure the kernel reports. Replaces the
 * tables while open. Draws the model only.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "source.h"
#include "ui.h"

/* Where the bytes and the delays come from, as the document says. */
/* Seconds of n samples at the sample's interval ("12 s", "2.5 s"), or
 * "n samples" when the interval is unknown. */
static const char *samples_text(const struct ui *ui, uint64_t n, char *buf, size_t size)
{
	long ms = ui->model.interval_ms;
	double s = (double)n * (double)ms / 1000.0;

	if (ms <= 0)
		snprintf(buf, size, "%llu samples", (unsigned long long)n);
	else if (s < 10)
		snprintf(buf, size, "%.1f s", s);
	else
		snprintf(buf, size, "%.0f s", s);
	return buf;
}

/* The process scan's age in seconds: "126 samples" read as culprits two
 * minutes old when the view said nothing of their age. */
static const char *scan_age_text(const struct ui *ui, const struct model_procs *p, char *buf,
				 size_t size)
{
	char t[32];

	snprintf(buf, size, "rows of the scan %s ago", samples_text(ui, p->scan_age, t, sizeof(t)));
	return buf;
}

static void sources_line(struct draw_text *o, const struct ui *ui)
{
	int64_t shown, newest; /* the time keys' past: what the daemon read then */
	const struct model_procs *p = &ui->model.sections.procs;
	char delay[MODEL_SECTIONS_REASON_MAX + 64], why[MODEL_SECTIONS_REASON_MAX];
	char every[48], age[64];

	model_sections_short_reason(p->taskstats_why, why, sizeof(why));
	if (strcmp(p->delay_accounting, "off") == 0)
		snprintf(delay, sizeof(delay),
			 "delay accounting off (kernel.task_delayacct=0; sysctl -w "
			 "kernel.task_delayacct=1 turns it on, at a scheduler cost the kernel "
			 "made opt-in for in 5.14): bytes, run-queue wait and cgroup pressure");
	else if (strcmp(p->delay_accounting, "unavailable") == 0)
		snprintf(delay, sizeof(delay), "delay: taskstats unavailable (%s)",
			 why[0] ? why : "refused");
	else if (strcmp(p->delay_source, "taskstats") == 0)
		snprintf(delay, sizeof(delay), "delay: taskstats (%llu asked, %llu answered)",
			 (unsigned long long)p->queries, (unsigned long long)p->answers);
	else if (strcmp(p->delay_accounting, "unknown") == 0)
		snprintf(delay, sizeof(delay),
			 "delay: taskstats, none this sample (kernel < 5.14)");
	else
		snprintf(delay, sizeof(delay), "delay: taskstats, none this sample");
	draw_text_printf(o, 0, "bytes: %s  %s",
			 strcmp(p->bytes_source, "procfs") == 0 ? "/proc/PID/io"
			 : strcmp(p->bytes_source, "procfs+taskstats") == 0
			     ? "/proc/PID/io, taskstats for other users'"
			 : p->bytes_source[0] ? p->bytes_source
					      : "?",
			 delay);
	if (p->has_scan && p->scan_every > 1)
		draw_text_printf(
		    o, 0, "scan: every %s to stay in the daemon's CPU budget; %s (%s)",
		    samples_text(ui, p->scan_every, every, sizeof(every)),
		    p->scanned ? "scanned this sample" : scan_age_text(ui, p, age, sizeof(age)),
		    /* a recording is what the daemon read then: nothing asks now */
		    source_kind(ui->src) == SOURCE_REPLAY   ? "as recorded"
		    : source_past(ui->src, &shown, &newest) ? "as it was then"
							    : "this view asks for every sample");
	else if (p->has_scan && !p->scanned)
		draw_text_printf(o, 0, "scan: %s", scan_age_text(ui, p, age, sizeof(age)));
	else if (p->has_scan && strcmp(p->scan_reason, "always") != 0)
		draw_text_printf(o, A_DIM, "scan: every sample%s%s%s",
				 p->scan_reason[0] ? " (" : "", p->scan_reason,
				 p->scan_reason[0] ? ")" : "");
	if (p->note[0])
		draw_text_printf(o, ui_attr(ui, PAIR_WARN), "note: %s", p->note);
}

/* Columns of a table: the command line takes what the numbers leave
 * (16 at least, as comm), the unit a column of its own on a wide screen. */
struct proc_cols {
	int cmd_w;  /* COMMAND */
	int unit_w; /* UNIT, 0: not shown */
};

#define PROC_UNIT_COL 28

static struct proc_cols proc_cols(int width, int numbers_w)
{
	/* PID USER ... %CPU: 8 + 1 + 8 + 1, the command's space, 7 */
	int left = width - 18 - 1 - numbers_w - 7 - 14; /* 14: "  (started)" */
	struct proc_cols c = { .cmd_w = 16, .unit_w = 0 };

	if (left >= 16 + 40 + PROC_UNIT_COL + 1) {
		c.unit_w = PROC_UNIT_COL;
		left -= PROC_UNIT_COL + 1;
	}
	if (left > 16)
		c.cmd_w = left > 160 ? 160 : left;
	return c;
}

static void header(struct draw_text *o, bool delay, struct proc_cols c)
{
	draw_text_printf(o, A_BOLD, "%-8s %-8s %-*s%s%-*s %11s %11s %11s%s %6s", "PID", "USER",
			 c.unit_w, c.unit_w ? "UNIT" : "", c.unit_w ? " " : "", c.cmd_w, "COMMAND",
			 "kB_rd/s", "kB_wr/s", "kB_ccwr/s", delay ? "  io_delay%   blkio/s" : "",
			 "%CPU");
}

/* The command line where the document has one, else the name. */
static const char *command(const struct model_proc *p)
{
	return p->cmdline[0] ? p->cmdline : p->comm[0] ? p->comm : "?";
}

static void row(struct draw_text *o, const struct model_proc *p, bool delay, struct proc_cols c)
{
	char d[32] = "", cpu[16] = "     -";

	if (delay && p->has_delay)
		snprintf(d, sizeof(d), "  %9.2f %9.2f", p->io_delay_pct, p->blkio_s);
	else if (delay)
		snprintf(d, sizeof(d), "  %9s %9s", "-", "-");
	if (p->has_cpu)
		snprintf(cpu, sizeof(cpu), "%6.1f", p->cpu_pct);
	draw_text_printf(o, 0, "%-8d %-8.8s %-*.*s%s%-*.*s %11.2f %11.2f %11.2f%s %s%s", p->pid,
			 p->user[0] ? p->user : "-", c.unit_w, c.unit_w, p->unit,
			 c.unit_w ? " " : "", c.cmd_w, c.cmd_w, command(p), p->rd_kbs, p->wr_kbs,
			 p->ccwr_kbs, d, cpu,
			 p->exited    ? "  (started, exited)"
			 : p->started ? "  (started)"
				      : "");
}

/* The busiest on CPU (pidstat -u), IO or not: the culprit of a CPU finding. */
static void cpu_table(struct draw_text *o, const struct model_procs *p, int width)
{
	int cmd_w = width - 8 - 1 - 8 - 1 - 3 * 7 - 1 - PROC_UNIT_COL - 1;

	if (!p->ncpu)
		return;
	if (cmd_w < 16)
		cmd_w = 16;
	if (cmd_w > 160)
		cmd_w = 160;
	draw_text_line(o, 0, "");
	draw_text_printf(o, A_BOLD,
			 "Busiest on CPU (pidstat -u: %%CPU = utime + stime of all its threads, "
			 "percent of one CPU)");
	draw_text_printf(o, A_BOLD, "%-8s %-8s %6s %6s %6s %-*s %s", "PID", "USER", "%CPU", "%usr",
			 "%sys", PROC_UNIT_COL, "UNIT", "COMMAND");
	for (size_t i = 0; i < p->ncpu; i++) {
		const struct model_proc *q = &p->top_cpu[i];

		draw_text_printf(o, 0, "%-8d %-8.8s %6.1f %6.1f %6.1f %-*.*s %.*s", q->pid,
				 q->user[0] ? q->user : "-", q->cpu_pct, q->usr_pct, q->sys_pct,
				 PROC_UNIT_COL, PROC_UNIT_COL, q->unit[0] ? q->unit : "-", cmd_w,
				 command(q));
	}
}

static void pressure(struct draw_text *o, const struct ui *ui)
{
	const struct model_sections *x = &ui->model.sections;

	draw_text_line(o, 0, "");
	draw_text_printf(
	    o, A_BOLD,
	    "Pressure (/proc/pressure: avg10 avg60 avg300 %%, stall%% of this interval)");
	for (int i = 0; i < MP__COUNT; i++) {
		const struct model_psi *p = &x->psi[i];
		const struct model_psi_line *l[2] = { &p->some, &p->full };
		static const char *const kind[2] = { "some", "full" };
		char why[MODEL_SECTIONS_REASON_MAX];

		if (!p->present) {
			model_sections_short_reason(p->reason, why, sizeof(why));
			draw_text_printf(o, A_DIM, "  %-4s unavailable%s%s%s", model_psi_names[i],
					 why[0] ? " (" : ": not in this sample", why,
					 why[0] ? ")" : "");
			continue;
		}
		for (int k = 0; k < 2; k++) {
			char stall[32] = "";

			if (!l[k]->present)
				continue;
			if (l[k]->has_stall)
				snprintf(stall, sizeof(stall), "  stall %6.2f%%", l[k]->stall_pct);
			draw_text_printf(o, 0, "  %-4s %s %6.2f %6.2f %6.2f%s", model_psi_names[i],
					 kind[k], l[k]->avg10, l[k]->avg60, l[k]->avg300, stall);
		}
	}
}

static void procs_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	const struct model_procs *p = &m->sections.procs;
	struct draw_text o = { .r = r, .top = ui->procs.scroll.top };
	struct proc_cols cols, dcols;
	bool delay = false;

	for (size_t i = 0; i < p->nio; i++)
		delay |= p->top_io[i].has_delay;
	cols = proc_cols(r.w, 3 * 12 + (delay ? 22 : 0));
	dcols = proc_cols(r.w, 3 * 12 + 22);
	if (!p->present) {
		char why[MODEL_SECTIONS_REASON_MAX];

		model_sections_short_reason(p->reason, why, sizeof(why));
		draw_text_printf(&o, ui_attr(ui, PAIR_TITLE), "> Processes");
		draw_text_printf(&o, A_DIM, "processes: %s%s%s",
				 !m->have_sample ? "waiting for the first sample"
				 : why[0]	 ? "unavailable ("
				 : !m->sections.sampled
				     ? "not in the sample (iotriaged --core-only, or older)"
				 : !m->has_rates ? "waiting for a second sample"
						 : "not in this sample",
				 m->have_sample ? why : "", m->have_sample && why[0] ? ")" : "");
	} else {
		draw_text_bar(&o, ui_attr(ui, PAIR_TITLE) | (int)A_REVERSE,
			      "> Processes (top %zu by IO of %llu read)  sort: kB_rd/s+kB_wr/s",
			      p->nio, (unsigned long long)p->count);
		sources_line(&o, ui);
		if (!p->has_rows) {
			draw_text_printf(&o, A_DIM, "waiting for a second sample...");
		} else if (p->nio == 0) {
			draw_text_printf(&o, A_DIM, "no process did storage IO in the interval");
		} else {
			header(&o, delay, cols);
			for (size_t i = 0; i < p->nio; i++)
				row(&o, &p->top_io[i], delay, cols);
		}
		if (p->has_rows)
			draw_text_printf(
			    &o, A_DIM,
			    "%llu exited since the last sample, %llu vanished while read",
			    (unsigned long long)p->exited, (unsigned long long)p->vanished);
		if (p->ndelay) {
			draw_text_line(&o, 0, "");
			draw_text_printf(
			    &o, A_BOLD,
			    "Longest IO waits (io_delay%%: share of the interval waiting "
			    "on block IO, iotop's IO>)");
			header(&o, true, dcols);
			for (size_t i = 0; i < p->ndelay; i++)
				row(&o, &p->top_delay[i], true, dcols);
		}
		cpu_table(&o, p, r.w);
	}
	pressure(&o, ui);
	/* scrolled past the end after the list shrank: from the last full page */
	draw_scroll_fit(&ui->procs.scroll, o.line, r.h);
}

static unsigned procs_key(struct ui *ui, int ch)
{
	switch (ch) {
	case 'p':
	case 27: /* Esc */
		ui->procs.open = false;
		ui->procs.scroll.top = 0;
		return UI_REDRAW;
	case 'f': /* the findings panel, the turbostat or cgroups view instead */
	case 't':
	case 'c':
		return UI_PASS;
	}
	return draw_scroll_key(&ui->procs.scroll, ch, LINES - 3 > 1 ? LINES - 3 : 1);
}

static void procs_open(struct ui *ui)
{
	ui->procs.scroll.top = 0;
}

static const char *const procs_help[][2] = {
	{ "p", "the processes view: who does the storage IO, biggest kB_rd/s + kB_wr/s first, "
	       "with the IO pressure (p or Esc returns; arrows scroll)" },
	{ NULL, NULL },
};

const struct view_ops view_procs = {
	.name = "procs",
	.keys = { 'p' },
	.open_at = offsetof(struct ui, procs.open),
	.open = procs_open,
	.draw = procs_draw,
	.on_key = procs_key,
	.help = procs_help,
	.footer_key = "p",
	.footer_label = "Procs",
};
