// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The help screen: the keys, then what every column means (from the same
 * tables the panels draw, so the two cannot drift apart), wrapped to the
 * terminal's width and scrolled by the loop.
 */
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "ui.h"

#define LABEL_W 12

static const char *const keys_help[][2] = {
	{ "F1 h ?", "this help (arrows, PgUp/PgDn scroll it; any other key closes it)" },
	{ "F10 q", "quit" },
	{ "F6 s", "sort the focused panel by its next key (the title says which)" },
	{ "/", "filter the focused panel by name: type, Enter keeps it, Esc clears it" },
	{ "space", "pause: freeze the tables; the history keeps recording" },
	{ "+ -", "longer / shorter interval (with a daemon: every Nth of its samples)" },
	{ "Tab", "next panel (Shift-Tab: previous); the history strip follows the focus" },
	{ "arrows j k", "move the selection; PgUp/PgDn/Home/End jump" },
	{ "f", "the findings panel: the advisor's findings and suggestions (f or Esc returns)" },
	{ "a u", "in the findings panel: apply / undo the selected suggestion; each asks "
		 "[y/N] on the status line and only y acts" },
	{ "p", "the processes view: who does the storage IO, biggest kB_rd/s + kB_wr/s first, "
	       "with the IO pressure (p or Esc returns; arrows scroll)" },
	{ "t", "the turbostat sources view: for each turbostat column (Avg_MHz, Busy%, Bzy_MHz, "
	       "TSC_MHz, IRQ, SMI, CPU%c1.., CoreTmp, PkgTmp, Pkg%pc.., PkgWatt, CorWatt, "
	       "RAMWatt, PKG_%, RAM_%) the source chosen at the first sample (msr, perf, sysfs, "
	       "proc) and its register, event or file, or \"unavailable: why\" (not root, no "
	       "MSR access in a VM); then the source families probed (t or Esc returns; arrows "
	       "scroll)" },
	{ "Enter", "on a disk: its queue chain (each blk-mq queue's CPUs, NVMe interrupt, the "
		   "CPU it lands on and that CPU's load; Enter or Esc returns); on a device's "
		   "group of IRQ lines (big hosts): expand / fold its lines" },
	{ "[ ]", "the CPU heat map (64 CPUs and more): select the previous / next cell's CPU "
		 "in the table; a click selects the cell clicked" },
	{ "c", "the cgroups view: which service or container does the IO, from cgroup v2 "
	       "io.stat and io.pressure, busiest first (c or Esc returns; arrows scroll)" },
	{ NULL, NULL },
};

/* "  label       text" with text wrapped at word boundaries under itself. */
static void entry(struct draw_text *o, const char *label, const char *text)
{
	char first[64];

	snprintf(first, sizeof(first), "  %-*s ", LABEL_W, label);
	draw_text_wrap(o, 0, LABEL_W + 3, first, text);
}

int view_help_draw(struct ui *ui, struct rect r)
{
	struct draw_text o = { .r = r, .top = ui->help_top };
	char line[256];

	draw_text_line(&o, ui_attr(ui, PAIR_HEADER), "iotriage live view: help");
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "Keys");
	for (size_t i = 0; keys_help[i][0]; i++)
		entry(&o, keys_help[i][0], keys_help[i][1]);
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "Disks: iostat -x (sysstat 12.6) columns, per whole device");
	for (int c = 0; c < MD__COUNT; c++)
		entry(&o, model_disk_cols[c].label, model_disk_cols[c].help);
	entry(&o, "",
	      "Columns that do not fit are left out, least telling first: widen the "
	      "terminal to see them all. iotriage snapshot prints every one.");
	entry(&o, "job",
	      "the daemon's bench job (iotriage worker start), under its device's row, or "
	      "first with its target when that device has no row: engine, rw, queue depth, "
	      "IOPS and MB/s over the last interval, completion latency so far (avg, p99), "
	      "seconds since it started; once ended its result stays 30 s marked done");
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "CPUs: mpstat -u and -I SUM, per core");
	for (size_t i = 0; model_cpu_help[i][0]; i++)
		entry(&o, model_cpu_help[i][0], model_cpu_help[i][1]);
	entry(&o, "job",
	      "takes the bench job's device interrupts (handlers named after it, e.g. "
	      "nvme0q3); loop, dm and devices whose handlers are not named after them "
	      "show none");
	for (size_t i = 0; model_turbo_help[i][0]; i++)
		entry(&o, model_turbo_help[i][0], model_turbo_help[i][1]);
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "IRQs: /proc/interrupts lines that fired (mpstat -I CPU)");
	for (size_t i = 0; model_irq_help[i][0]; i++)
		entry(&o, model_irq_help[i][0], model_irq_help[i][1]);
	for (size_t i = 0; model_nic_help[i][0]; i++)
		entry(&o, model_nic_help[i][0], model_nic_help[i][1]);
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "Header: the lines under the title");
	for (size_t i = 0; model_header_help[i][0]; i++)
		entry(&o, model_header_help[i][0], model_header_help[i][1]);
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "Processes (p): pidstat -d columns, per process (thread group)");
	for (size_t i = 0; model_proc_help[i][0]; i++)
		entry(&o, model_proc_help[i][0], model_proc_help[i][1]);
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "cgroups (c): cgroup v2 io.stat and io.pressure, per cgroup");
	for (size_t i = 0; model_cgroup_help[i][0]; i++)
		entry(&o, model_cgroup_help[i][0], model_cgroup_help[i][1]);
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD,
		       "Findings (f): the advisor of iotriage suggest, on the same sample");
	entry(&o, "severity", "critical (red), warning (yellow), info (cyan), gravest first");
	entry(&o, "reason", "one line with the measured numbers; a finding's detail below it");
	entry(&o, "commands",
	      "the selected suggestion's exact shell lines, which a writes (through iotriaged "
	      "when connected, else under --root; the live host needs root)");
	entry(&o, "undo", "the exact lines that restore the values read, which u writes");
	entry(&o, "*", "applied from this screen; kept in the list until undone");
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "Thresholds");
	entry(&o, "%util", "80 or more: saturated (red)");
	snprintf(line, sizeof(line), "above %.0f ms (--await-ms): slow (yellow)", ui->await_ms);
	entry(&o, "r/w_await", line);
	entry(&o, "%irq %soft", "20 or more on one core (yellow); that core is marked HOT");
	draw_text_line(&o, 0, "");
	draw_text_line(&o, A_BOLD, "Source");
	entry(&o, "daemon",
	      "samples from iotriaged over its socket, with its history; "
	      "\"disconnected\" keeps the last data and reconnects by itself");
	entry(&o, "embedded", "no daemon answered: this process samples with the same library");
	return o.line;
}
