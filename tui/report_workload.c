// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Plain-text workload for `iotriage snapshot` and `compute`: who did the IO,
 * what each NIC is set to, pressure and the dirty page state. Reads only the
 * snapshot and the metrics; computes nothing.
 */
#include <string.h>

#include "metrics_proc.h"
#include "report_workload.h"
#include "snapshot.h"
#include "text.h"

static void proc_line(FILE *f, const struct proc_metrics *p)
{
	char comm[17]; /* a process names itself (prctl): escaped, cut whole */
	char role[PROC_ROLE_MAX + 8];

	/* a database role the rule believes (dbrole.h) in the name's column */
	if (p->role.db)
		snprintf(role, sizeof(role), "%s %s", dbrole_db_name(p->role.db), p->role.role);
	fprintf(f, "%-8d %-16s %11.2f %11.2f %11.2f", p->pid,
		p->role.db   ? role
		: p->comm[0] ? text_safe(p->comm, comm, sizeof(comm))
			     : "?",
		p->rkb_s, p->wkb_s, p->ckb_s);
	if (p->has_delay)
		fprintf(f, " %9.2f", p->io_delay);
	else
		fprintf(f, " %9s", "-");
	if (p->has_cpu)
		fprintf(f, " %6.1f", p->cpu_pct);
	else
		fprintf(f, " %6s", "-");
	/* cmdline and unit come escaped (procwho.c); user too */
	if (p->has_who) {
		/* its own words, quoted; its own '"' as \x22 */
		fprintf(f, " %-8s %s  \"", p->user, p->unit[0] ? p->unit : "-");
		for (const char *s = p->cmdline; *s; s++) {
			if (*s == '"')
				fputs("\\x22", f);
			else
				fputc(*s, f);
		}
		fputc('"', f);
	}
	fputc('\n', f);
}

static void print_procs(FILE *f, const struct workload_raw *x, const struct workload_metrics *em)
{
	const struct proc_table *t = &x->procs;

	if (t->procfs.err) {
		fprintf(f, "\nprocesses: unavailable: %s\n", t->procfs.reason);
		return;
	}
	fprintf(f, "\nprocesses: bytes from /proc/PID/io%s; delay ",
		t->ts_io_rows ? " (taskstats for those refused)" : "");
	if (t->taskstats.err)
		fprintf(f, "unavailable: %s\n", t->taskstats.reason);
	else if (t->delayacct == 0)
		fprintf(f, "off (sysctl kernel.task_delayacct=0): bytes only\n");
	else
		fprintf(f, "from taskstats (%u asked)\n", t->queried);
	if (!em || !em->procs_valid)
		return;
	fprintf(f, "%-8s %-16s %11s %11s %11s %9s %6s %-8s %s  %s\n", "PID", "COMMAND", "kB_rd/s",
		"kB_wr/s", "kB_ccwr/s", "io_delay%", "%CPU", "USER", "UNIT", "CMDLINE");
	if (!em->nby_io && !em->nby_delay)
		fprintf(f, "no process did storage IO in the interval\n");
	for (size_t i = 0; i < em->nby_io; i++)
		proc_line(f, &em->procs[em->by_io[i]]);
	if (em->nby_delay) {
		fprintf(f, "by IO delay:\n");
		for (size_t i = 0; i < em->nby_delay; i++)
			proc_line(f, &em->procs[em->by_delay[i]]);
	}
	if (em->nby_cpu) {
		fprintf(f, "by CPU (pidstat -u %%CPU):\n");
		for (size_t i = 0; i < em->nby_cpu; i++)
			proc_line(f, &em->procs[em->by_cpu[i]]);
	}
}

static void print_nic(FILE *f, const struct snapshot *cur, const struct metrics *m,
		      const struct workload_metrics *em, size_t i)
{
	const struct nic_raw *n = &cur->workload->nics.rows[i];
	const struct nic_metrics *nm = NULL;

	for (size_t k = 0; em && k < em->nnics; k++)
		if (em->nics[k].cur_index == i)
			nm = &em->nics[k];
	fprintf(f, "%-10s %-4s", n->ifname, n->up ? (n->running ? "up" : "nocarrier") : "down");
	if (nm && nm->valid)
		fprintf(f,
			" rxpck/s %.2f txpck/s %.2f rxkB/s %.2f txkB/s %.2f drop/s %.2f err/s %.2f",
			nm->rxpck_s, nm->txpck_s, nm->rxkb_s, nm->txkb_s,
			nm->rxdrop_s + nm->txdrop_s, nm->rxerr_s + nm->txerr_s);
	fputc('\n', f);
	if (cur->workload->nics.ethtool.err) {
		/* said once above the list */
	} else if (n->has_channels) {
		fprintf(f, "           channels combined %u/%u rx %u/%u tx %u/%u\n",
			n->channels.combined, n->channels.combined_max, n->channels.rx,
			n->channels.rx_max, n->channels.tx, n->channels.tx_max);
	} else {
		fprintf(f, "           %s\n", n->channels_status.reason);
	}
	if (!cur->workload->nics.ethtool.err && n->has_coalesce) {
		const struct nic_coalesce *c = &n->coalesce;

		fprintf(f, "           coalesce");
		if (c->has_rx_usecs)
			fprintf(f, " rx-usecs %u", c->rx_usecs);
		if (c->has_rx_frames)
			fprintf(f, " rx-frames %u", c->rx_frames);
		if (c->has_adaptive_rx)
			fprintf(f, " adaptive-rx %s", c->adaptive_rx ? "on" : "off");
		fputc('\n', f);
	}
	for (size_t k = 0; nm && k < nm->nirqs; k++) {
		const struct nic_irq_metrics *q = &em->nic_irqs[nm->irq_off + k];
		const struct rate_row *rr;

		if (q->irq_row == SIZE_MAX)
			continue;
		rr = &m->irq.rows[q->irq_row];
		fprintf(f, "           irq %-5u %-24.24s %10.2f/s", q->irq,
			cur->irqs.rows[rr->cur_index].actions, q->total_s);
		if (q->busiest_cpu >= 0)
			fprintf(f, "  busiest cpu%d %.2f/s", q->busiest_cpu, q->busiest_cpu_s);
		fputc('\n', f);
	}
}

static void print_pressure(FILE *f, const struct workload_raw *x, const struct workload_metrics *em)
{
	fprintf(f, "\npressure:");
	for (int i = 0; i < PSI__COUNT; i++) {
		const struct psi_raw *r = &x->pressure.res[i];
		const struct psi_metrics *pm = em ? &em->psi[i] : NULL;

		if (r->status.err) {
			fprintf(f, "  %s unavailable", pressure_name((enum psi_res)i));
			continue;
		}
		fprintf(f, "  %s", pressure_name((enum psi_res)i));
		if (pm && pm->some_valid)
			fprintf(f, " some %.2f%%", pm->some_pct);
		if (pm && pm->full_valid)
			fprintf(f, " full %.2f%%", pm->full_pct);
	}
	fputc('\n', f);
}

static void print_writeback(FILE *f, const struct workload_raw *x,
			    const struct workload_metrics *em)
{
	const struct writeback_raw *w = &x->writeback;
	uint64_t kb = w->page_size / 1024;

	if (!w->has_vmstat) {
		fprintf(f, "writeback: unavailable: %s\n", w->vmstat_status.reason);
		return;
	}
	fprintf(f, "writeback: dirty %llu kB, writeback %llu kB",
		(unsigned long long)(w->nr_dirty * kb), (unsigned long long)(w->nr_writeback * kb));
	if (w->has_thresholds)
		fprintf(f, "; background at %llu kB, throttling from %llu kB, limit %llu kB: %s",
			(unsigned long long)(w->nr_dirty_bg_threshold * kb),
			(unsigned long long)((em ? em->wb_freerun_pages : 0) * kb),
			(unsigned long long)(w->nr_dirty_threshold * kb),
			metrics_proc_wb_state_name(em ? em->wb_state : WB_UNKNOWN));
	fputc('\n', f);
	if (!w->sysctl_status.err) {
		fprintf(f, "           vm.");
		for (int i = 0; i < WB__COUNT; i++)
			if (w->has_sysctl[i])
				fprintf(f, "%s%s=%llu", i ? " " : "",
					writeback_sysctl_name((enum wb_sysctl)i),
					(unsigned long long)w->sysctl[i]);
		fputc('\n', f);
	}
}

void report_workload_print(FILE *f, const struct snapshot *cur, const struct metrics *m)
{
	const struct workload_metrics *em = m ? m->workload : NULL;

	if (!cur->workload)
		return;
	print_procs(f, cur->workload, em);
	if (cur->workload->nics.rtnl.err) {
		fprintf(f, "\nnics: unavailable: %s\n", cur->workload->nics.rtnl.reason);
	} else if (cur->workload->nics.n) {
		fprintf(f, "\nnics:%s%s\n",
			cur->workload->nics.ethtool.err ? " ethtool unavailable: " : "",
			cur->workload->nics.ethtool.err ? cur->workload->nics.ethtool.reason : "");
		for (size_t i = 0; i < cur->workload->nics.n; i++)
			print_nic(f, cur, m, em, i);
	}
	print_pressure(f, cur->workload, em);
	print_writeback(f, cur->workload, em);
}
