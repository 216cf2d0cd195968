// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * JSON for processes, NICs, pressure and writeback. Key names follow the
 * tools users already read: sar -n DEV/EDEV for link rates, ethtool's words
 * for channels and coalescing, the kernel's for PSI and vmstat.
 */
#include <stdio.h>
#include <string.h>

#include "encode_workload.h"
#include "metrics_proc.h"
#include "snapshot.h"
#include "taskstats.h"

static void status(struct strbuf *sb, const char *name, const struct src_status *st)
{
	sb_json_key(sb, name);
	sb_puts(sb, st->err ? "{\"available\":false,\"reason\":" : "{\"available\":true");
	if (st->err)
		sb_json_str(sb, st->reason);
	else if (st->reason[0]) {
		/* available with a caveat ("12 processes not readable") */
		sb_puts(sb, ",\"note\":");
		sb_json_str(sb, st->reason);
	}
	sb_puts(sb, "},");
}

void encode_workload_sources(struct strbuf *sb, const struct snapshot *s)
{
	const struct workload_raw *x = s->workload;
	char key[32];

	if (!x)
		return;
	status(sb, "procfs_io", &x->procs.procfs);
	status(sb, "taskstats", &x->procs.taskstats);
	status(sb, "rtnetlink", &x->nics.rtnl);
	status(sb, "ethtool", &x->nics.ethtool);
	for (int i = 0; i < PSI__COUNT; i++) {
		memcpy(key, "pressure_", 10);
		strncat(key, pressure_name((enum psi_res)i), sizeof(key) - 10);
		status(sb, key, &x->pressure.res[i].status);
	}
	status(sb, "vmstat", &x->writeback.vmstat_status);
	status(sb, "cgroup_io", &x->cgroups.status);
	status(sb, "vm_dirty_sysctl", &x->writeback.sysctl_status);
}

static void kv(struct strbuf *sb, const char *key, double v)
{
	sb_json_key(sb, key);
	sb_fixed2(sb, v);
	sb_putc(sb, ',');
}

static void kvu(struct strbuf *sb, const char *key, uint64_t v)
{
	sb_json_key(sb, key);
	sb_u64(sb, v);
	sb_putc(sb, ',');
}

static void kvs(struct strbuf *sb, const char *key, const char *v)
{
	sb_json_key(sb, key);
	sb_json_str(sb, v);
	sb_putc(sb, ',');
}

static void proc_row(struct strbuf *sb, const struct proc_metrics *p)
{
	sb_putc(sb, '{');
	kvu(sb, "pid", (uint64_t)p->pid);
	sb_json_key(sb, "comm");
	sb_json_str(sb, p->comm);
	sb_putc(sb, ',');
	if (p->started)
		sb_puts(sb, "\"started\":true,");
	if (p->exited)
		sb_puts(sb, "\"exited\":true,");
	kv(sb, "kB_rd/s", p->rkb_s);
	kv(sb, "kB_wr/s", p->wkb_s);
	kv(sb, "kB_ccwr/s", p->ckb_s);
	if (p->reaped_kb_s > 0)
		kv(sb, "reaped_kB/s", p->reaped_kb_s);
	if (p->has_delay) {
		kv(sb, "io_delay%", p->io_delay);
		kv(sb, "blkio/s", p->blkio_s);
	}
	if (p->has_cpu) {
		kv(sb, "cpu_pct", p->cpu_pct);
		kv(sb, "usr_pct", p->usr_pct);
		kv(sb, "sys_pct", p->sys_pct);
	}
	if (p->has_runq)
		kv(sb, "runq_pct", p->runq_pct);
	if (p->has_who) {
		kvu(sb, "uid", p->uid);
		sb_json_key(sb, "user");
		sb_json_str(sb, p->user);
		sb_putc(sb, ',');
		sb_json_key(sb, "cmdline");
		sb_json_str(sb, p->cmdline);
		sb_putc(sb, ',');
		sb_json_key(sb, "unit");
		sb_json_str(sb, p->unit);
		sb_putc(sb, ',');
	}
	if (p->role.db) {
		kvs(sb, "db", dbrole_db_name(p->role.db));
		kvs(sb, "role", p->role.role);
		if (p->role.state[0])
			kvs(sb, "state", p->role.state);
	} else if (p->role.claimed) {
		sb_puts(sb, "\"role_claimed\":true,");
	}
	sb_json_end(sb, '}');
}

static void group_row(struct strbuf *sb, const struct proc_group *g)
{
	sb_putc(sb, '{');
	kvs(sb, "key", g->key);
	if (g->db) {
		kvs(sb, "db", dbrole_db_name(g->db));
		kvs(sb, "role", g->role);
	}
	kvs(sb, "comm", g->comm);
	kvu(sb, "count", g->n);
	kvu(sb, "pid", (uint64_t)g->pid);
	if (g->has_who) {
		kvs(sb, "user", g->user);
		kvs(sb, "unit", g->unit);
		if (g->users_differ)
			sb_puts(sb, "\"users_differ\":true,");
		if (g->units_differ)
			sb_puts(sb, "\"units_differ\":true,");
	}
	kv(sb, "kB_rd/s", g->rkb_s);
	kv(sb, "kB_wr/s", g->wkb_s);
	kv(sb, "cpu_pct", g->cpu_pct);
	kv(sb, "io_delay%", g->io_delay);
	sb_json_end(sb, '}');
}

/* "key":[rows], the processes' (or with groups, the groups') rows idx[0..n) */
static void top_list(struct strbuf *sb, const char *key, const struct workload_metrics *em,
		     bool groups, const size_t *idx, size_t n)
{
	sb_json_key(sb, key);
	sb_putc(sb, '[');
	for (size_t i = 0; i < n; i++) {
		if (groups)
			group_row(sb, &em->groups[idx[i]]);
		else
			proc_row(sb, &em->procs[idx[i]]);
	}
	sb_json_end(sb, ']');
}

/* "db_threads": the database servers' busiest threads by role */
static void db_threads(struct strbuf *sb, const struct workload_metrics *em)
{
	sb_json_key(sb, "db_threads");
	sb_putc(sb, '[');
	for (size_t i = 0; i < em->ntroles && i < PROC_TOP_N; i++) {
		const struct proc_thread_metrics *m = &em->troles[i];

		sb_putc(sb, '{');
		kvu(sb, "pid", (uint64_t)m->pid);
		kvs(sb, "db", dbrole_db_name(m->db));
		if (m->role[0])
			kvs(sb, "role", m->role);
		kvu(sb, "tid", (uint64_t)m->tid);
		kvu(sb, "count", m->n);
		kv(sb, "kB_rd/s", m->rkb_s);
		kv(sb, "kB_wr/s", m->wkb_s);
		sb_json_end(sb, '}');
	}
	sb_json_end(sb, ']');
	if (em->threads_why[0])
		kvs(sb, "db_threads_note", em->threads_why);
}

static void encode_procs(struct strbuf *sb, const struct workload_raw *x,
			 const struct workload_metrics *em)
{
	const struct proc_table *t = &x->procs;

	if (t->procfs.err)
		return;
	sb_json_key(sb, "processes");
	sb_putc(sb, '{');
	/* bytes are the thread group's /proc/PID/io, or where it was refused
	 * the sum of its threads' taskstats answers; delays need taskstats */
	sb_puts(sb, t->ts_io_rows ? "\"bytes_source\":\"procfs+taskstats\","
				  : "\"bytes_source\":\"procfs\",");
	if (t->ts_io_rows) {
		kvu(sb, "taskstats_bytes_rows", t->ts_io_rows);
		kvu(sb, "taskstats_bytes_threads", t->ts_io_asked);
	}
	sb_puts(sb, !t->taskstats.err && t->answered ? "\"delay_source\":\"taskstats\","
						     : "\"delay_source\":null,");
	sb_json_key(sb, "delay_accounting");
	sb_puts(sb, t->taskstats.err	? "\"unavailable\","
		    : t->delayacct == 0 ? "\"off\","
		    : t->delayacct > 0	? "\"on\","
					: "\"unknown\",");
	kvu(sb, "count", t->n);
	kvu(sb, "taskstats_queries", t->queried);
	kvu(sb, "taskstats_answers", t->answered);
	kvu(sb, "vanished", t->vanished);
	/* the scan's cadence (doc/PERFORMANCE.md, "Daemon cost"); absent in
	 * a document not made by the sampler (compute) */
	if (t->scan_every) {
		sb_puts(sb, "\"scan\":{");
		kvu(sb, "every", t->scan_every);
		kvu(sb, "age", t->scan_age);
		sb_puts(sb, t->carried ? "\"scanned\":false," : "\"scanned\":true,");
		if (t->scan_why[0]) {
			sb_json_key(sb, "reason");
			sb_json_str(sb, t->scan_why);
			sb_putc(sb, ',');
		}
		kvu(sb, "cpu_us", t->scan_cpu_ns / 1000);
		sb_json_end(sb, '}');
	}
	if (em && em->procs_valid) {
		kvu(sb, "exited", em->exited);
		top_list(sb, "top_io", em, false, em->by_io, em->nby_io);
		top_list(sb, "top_delay", em, false, em->by_delay, em->nby_delay);
		top_list(sb, "top_cpu", em, false, em->by_cpu, em->nby_cpu);
		top_list(sb, "top_runq", em, false, em->by_runq, em->nby_runq);
		top_list(sb, "groups_io", em, true, em->g_by_io, em->ng_by_io);
		top_list(sb, "groups_delay", em, true, em->g_by_delay, em->ng_by_delay);
		top_list(sb, "groups_cpu", em, true, em->g_by_cpu, em->ng_by_cpu);
		if (em->procs_window_cs)
			kv(sb, "window_s", (double)em->procs_window_cs / 100.0);
		if (em->ntroles || em->threads_why[0])
			db_threads(sb, em);
	}
	sb_json_end(sb, '}');
}

static void channels(struct strbuf *sb, const struct nic_raw *n)
{
	const struct nic_channels *c = &n->channels;

	if (!n->has_channels) {
		sb_puts(sb, "\"channels\":{\"available\":false,\"reason\":");
		sb_json_str(sb, n->channels_status.reason);
		sb_puts(sb, "},");
		return;
	}
	sb_puts(sb, "\"channels\":{");
	kvu(sb, "rx", c->rx);
	kvu(sb, "tx", c->tx);
	kvu(sb, "other", c->other);
	kvu(sb, "combined", c->combined);
	kvu(sb, "rx_max", c->rx_max);
	kvu(sb, "tx_max", c->tx_max);
	kvu(sb, "other_max", c->other_max);
	kvu(sb, "combined_max", c->combined_max);
	sb_json_end(sb, '}');
}

static void coalesce(struct strbuf *sb, const struct nic_raw *n)
{
	const struct nic_coalesce *c = &n->coalesce;

	if (!n->has_coalesce) {
		sb_puts(sb, "\"coalesce\":{\"available\":false,\"reason\":");
		sb_json_str(sb, n->coalesce_status.reason);
		sb_puts(sb, "},");
		return;
	}
	sb_puts(sb, "\"coalesce\":{");
	if (c->has_rx_usecs)
		kvu(sb, "rx-usecs", c->rx_usecs);
	if (c->has_rx_frames)
		kvu(sb, "rx-frames", c->rx_frames);
	if (c->has_tx_usecs)
		kvu(sb, "tx-usecs", c->tx_usecs);
	if (c->has_tx_frames)
		kvu(sb, "tx-frames", c->tx_frames);
	if (c->has_adaptive_rx)
		sb_puts(sb, c->adaptive_rx ? "\"adaptive-rx\":true," : "\"adaptive-rx\":false,");
	if (c->has_adaptive_tx)
		sb_puts(sb, c->adaptive_tx ? "\"adaptive-tx\":true," : "\"adaptive-tx\":false,");
	sb_json_end(sb, '}');
}

static void nic_irqs(struct strbuf *sb, const struct snapshot *cur, const struct nic_raw *n,
		     const struct workload_metrics *em, const struct nic_metrics *nm,
		     const struct metrics *m)
{
	sb_json_key(sb, "irqs");
	sb_putc(sb, '[');
	for (size_t k = 0; k < n->nirqs; k++) {
		const struct nic_irq_metrics *q = nm ? &em->nic_irqs[nm->irq_off + k] : NULL;

		sb_putc(sb, '{');
		kvu(sb, "irq", n->irqs[k]);
		if (q && q->irq_row != SIZE_MAX) {
			const struct rate_row *rr = &m->irq.rows[q->irq_row];
			const struct irq_row *row = &cur->irqs.rows[rr->cur_index];

			sb_json_key(sb, "actions");
			sb_json_str(sb, row->actions);
			sb_putc(sb, ',');
			if (rr->valid) {
				kv(sb, "total/s", q->total_s);
				if (q->busiest_cpu >= 0) {
					kvu(sb, "busiest_cpu", (uint64_t)q->busiest_cpu);
					kv(sb, "busiest_cpu/s", q->busiest_cpu_s);
				}
			}
		}
		sb_json_end(sb, '}');
	}
	sb_json_end(sb, ']');
}

static void encode_nics(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m,
			const struct workload_metrics *em)
{
	const struct nic_table *t = &cur->workload->nics;

	if (t->rtnl.err)
		return;
	sb_json_key(sb, "nics");
	sb_putc(sb, '[');
	for (size_t i = 0; i < t->n; i++) {
		const struct nic_raw *n = &t->rows[i];
		const struct nic_metrics *nm = NULL;

		for (size_t k = 0; em && k < em->nnics; k++)
			if (em->nics[k].cur_index == i)
				nm = &em->nics[k];
		sb_putc(sb, '{');
		sb_json_key(sb, "name");
		sb_json_str(sb, n->ifname);
		sb_putc(sb, ',');
		sb_puts(sb, n->up ? "\"up\":true," : "\"up\":false,");
		sb_puts(sb, n->running ? "\"carrier\":true," : "\"carrier\":false,");
		kvu(sb, "ifindex", n->ifindex); /* what trace.napi[] rows match */
		kvu(sb, "rx_queues", n->num_rx_queues);
		kvu(sb, "tx_queues", n->num_tx_queues);
		if (nm && nm->valid) {
			kv(sb, "rxpck/s", nm->rxpck_s);
			kv(sb, "txpck/s", nm->txpck_s);
			kv(sb, "rxkB/s", nm->rxkb_s);
			kv(sb, "txkB/s", nm->txkb_s);
			kv(sb, "rxerr/s", nm->rxerr_s);
			kv(sb, "txerr/s", nm->txerr_s);
			kv(sb, "rxdrop/s", nm->rxdrop_s);
			kv(sb, "txdrop/s", nm->txdrop_s);
		}
		if (!t->ethtool.err) {
			channels(sb, n);
			coalesce(sb, n);
		}
		nic_irqs(sb, cur, n, em, nm, m);
		sb_json_end(sb, '}');
	}
	sb_json_end(sb, ']');
}

static void psi_line(struct strbuf *sb, const char *key, const struct psi_line *l, bool valid,
		     double pct)
{
	if (!l->present)
		return;
	sb_json_key(sb, key);
	sb_putc(sb, '{');
	kv(sb, "avg10", l->avg10);
	kv(sb, "avg60", l->avg60);
	kv(sb, "avg300", l->avg300);
	kvu(sb, "total", l->total_us);
	if (valid)
		kv(sb, "stall%", pct);
	sb_json_end(sb, '}');
}

static void encode_pressure(struct strbuf *sb, const struct workload_raw *x,
			    const struct workload_metrics *em)
{
	bool any = false;

	for (int i = 0; i < PSI__COUNT; i++)
		any |= !x->pressure.res[i].status.err;
	if (!any)
		return;
	sb_json_key(sb, "pressure");
	sb_putc(sb, '{');
	for (int i = 0; i < PSI__COUNT; i++) {
		const struct psi_raw *r = &x->pressure.res[i];
		const struct psi_metrics *pm = em ? &em->psi[i] : NULL;

		if (r->status.err)
			continue;
		sb_json_key(sb, pressure_name((enum psi_res)i));
		sb_putc(sb, '{');
		psi_line(sb, "some", &r->some, pm && pm->some_valid, pm ? pm->some_pct : 0);
		psi_line(sb, "full", &r->full, pm && pm->full_valid, pm ? pm->full_pct : 0);
		sb_json_end(sb, '}');
	}
	sb_json_end(sb, '}');
}

static void encode_writeback(struct strbuf *sb, const struct workload_raw *x,
			     const struct workload_metrics *em)
{
	const struct writeback_raw *w = &x->writeback;
	uint64_t kb = w->page_size / 1024;

	if (!w->has_vmstat && w->sysctl_status.err)
		return;
	sb_json_key(sb, "writeback");
	sb_putc(sb, '{');
	if (w->has_vmstat) {
		kvu(sb, "dirty_kB", w->nr_dirty * kb);
		kvu(sb, "writeback_kB", w->nr_writeback * kb);
		if (w->has_thresholds) {
			kvu(sb, "dirty_background_threshold_kB", w->nr_dirty_bg_threshold * kb);
			kvu(sb, "dirty_threshold_kB", w->nr_dirty_threshold * kb);
			if (em) {
				kvu(sb, "freerun_ceiling_kB", em->wb_freerun_pages * kb);
				sb_json_key(sb, "state");
				sb_json_str(sb, metrics_proc_wb_state_name(em->wb_state));
				sb_putc(sb, ',');
			}
		}
	}
	if (!w->sysctl_status.err) {
		sb_json_key(sb, "vm");
		sb_putc(sb, '{');
		for (int i = 0; i < WB__COUNT; i++)
			if (w->has_sysctl[i])
				kvu(sb, writeback_sysctl_name((enum wb_sysctl)i), w->sysctl[i]);
		sb_json_end(sb, '}');
	}
	sb_json_end(sb, '}');
}

static void cg_rates(struct strbuf *sb, double rkb, double wkb, double r, double w, double dkb,
		     double d)
{
	kv(sb, "rkB/s", rkb);
	kv(sb, "wkB/s", wkb);
	kv(sb, "r/s", r);
	kv(sb, "w/s", w);
	kv(sb, "dkB/s", dkb);
	kv(sb, "d/s", d);
}

static const char *disk_name(const struct snapshot *cur, uint32_t major, uint32_t minor)
{
	for (size_t i = 0; i < cur->disks.n; i++)
		if (cur->disks.rows[i].major == major && cur->disks.rows[i].minor == minor)
			return cur->disks.rows[i].name;
	return NULL;
}

static void cg_row(struct strbuf *sb, const struct snapshot *cur,
		   const struct cgroup_metrics_set *x, const struct cgroup_metrics *m)
{
	const struct cgroup_table *t = &cur->workload->cgroups;
	const struct cgroup_raw *g = &t->rows[m->cur_index];
	char path[CGROUP_PATH_MAX + 1];

	snprintf(path, sizeof(path), "/%s", g->path);
	sb_puts(sb, "{\"path\":");
	sb_json_str(sb, path);
	sb_putc(sb, ',');
	if (m->valid)
		cg_rates(sb, m->rkb_s, m->wkb_s, m->r_s, m->w_s, m->dkb_s, m->d_s);
	if (m->some_valid || m->full_valid || m->res_valid[CG_RES_CPU] ||
	    m->res_valid[CG_RES_MEM]) {
		sb_json_key(sb, "pressure");
		sb_putc(sb, '{');
		if (m->some_valid)
			kv(sb, "some%", m->some_pct);
		if (m->full_valid)
			kv(sb, "full%", m->full_pct);
		for (int r = CG_RES_CPU; r < CG_RES__COUNT; r++) {
			if (!m->res_valid[r])
				continue;
			sb_json_key(sb, cgroup_res_name((enum cg_res)r));
			sb_putc(sb, '{');
			kv(sb, "some%", m->res_some[r]);
			kv(sb, "full%", m->res_full[r]);
			sb_json_end(sb, '}');
		}
		sb_json_end(sb, '}');
	}
	if (m->valid) {
		sb_json_key(sb, "devices");
		sb_putc(sb, '[');
		for (size_t k = 0; k < m->ndev; k++) {
			const struct cgroup_dev_metrics *d = &x->devs[m->dev_off + k];
			const char *name = disk_name(cur, d->major, d->minor);
			char dev[24];

			snprintf(dev, sizeof(dev), "%u:%u", d->major, d->minor);
			sb_puts(sb, "{\"dev\":");
			sb_json_str(sb, dev);
			sb_putc(sb, ',');
			if (name) {
				sb_json_key(sb, "disk");
				sb_json_str(sb, name);
				sb_putc(sb, ',');
			}
			cg_rates(sb, d->rkb_s, d->wkb_s, d->r_s, d->w_s, d->dkb_s, d->d_s);
			sb_json_end(sb, '}');
		}
		sb_json_end(sb, ']');
	}
	sb_json_end(sb, '}');
}

/* Who waits: the cgroups that stalled longest this interval, flat across
 * the tree (metrics_cgroup.h), each with its unit's name. */
static void encode_victims(struct strbuf *sb, const struct cgroup_table *t,
			   const struct cgroup_metrics_set *x)
{
	sb_json_key(sb, "victims");
	sb_putc(sb, '[');
	for (size_t i = 0; i < x->nvictims; i++) {
		const struct cgroup_victim *v = &x->victims[i];
		const struct cgroup_raw *g = &t->rows[x->rows[v->row].cur_index];
		char path[CGROUP_PATH_MAX + 1], unit[CGROUP_PATH_MAX + 1];

		snprintf(path, sizeof(path), "/%s", g->path);
		cgroup_unit_name(g->path, unit, sizeof(unit));
		sb_puts(sb, "{\"path\":");
		sb_json_str(sb, path);
		sb_puts(sb, ",\"unit\":");
		sb_json_str(sb, unit);
		sb_puts(sb, ",\"resource\":");
		sb_json_str(sb, cgroup_res_name(v->res));
		sb_putc(sb, ',');
		kv(sb, "some%", v->some_pct);
		kv(sb, "full%", v->full_pct);
		sb_json_end(sb, '}');
	}
	sb_json_end(sb, ']');
}

static void encode_cgroups(struct strbuf *sb, const struct snapshot *cur,
			   const struct workload_metrics *em)
{
	const struct cgroup_table *t = &cur->workload->cgroups;
	char top[300];

	if (t->status.err)
		return;
	snprintf(top, sizeof(top), "/%s", t->top);
	sb_json_key(sb, "cgroups");
	sb_puts(sb, "{\"hierarchy\":");
	sb_json_str(sb, top);
	sb_puts(sb, t->io_enabled ? ",\"io_controller\":true," : ",\"io_controller\":false,");
	kvu(sb, "count", t->n);
	if (em && em->cgroups_valid) {
		kvu(sb, "active", em->cgroups.active);
		sb_json_key(sb, "top");
		sb_putc(sb, '[');
		for (size_t i = 0; i < em->cgroups.ntop; i++)
			cg_row(sb, cur, &em->cgroups, &em->cgroups.rows[em->cgroups.top[i]]);
		sb_json_end(sb, ']');
		encode_victims(sb, t, &em->cgroups);
	}
	if (t->psi_top[0]) {
		snprintf(top, sizeof(top), "/%s", t->psi_top);
		sb_json_key(sb, "pressure_hierarchy");
		sb_json_str(sb, top);
		sb_putc(sb, ',');
	}
	/* 1: the v1 blkio hierarchy's throttle counters, each cgroup's own IO */
	kvu(sb, "version", cgroup_top_is_blkio(t->top) ? 1 : 2);
	sb_json_end(sb, '}');
}

void encode_workload_sections(struct strbuf *sb, const struct snapshot *cur,
			      const struct metrics *m)
{
	const struct workload_metrics *em = m ? m->workload : NULL;

	if (!cur->workload)
		return;
	encode_procs(sb, cur->workload, em);
	encode_nics(sb, cur, m, em);
	encode_pressure(sb, cur->workload, em);
	encode_writeback(sb, cur->workload, em);
	encode_cgroups(sb, cur, em);
}

void encode_workload_threads(struct strbuf *sb, const struct thread_table *cur,
			     const struct workload_metrics *x, uint64_t itv_ms)
{
	sb_kv_u64(sb, "{\"pid\":", (uint64_t)cur->pid);
	sb_kv_u64(sb, ",\"interval_ms\":", itv_ms);
	sb_puts(sb, ",\"sources\":{");
	status(sb, "taskstats", &cur->status);
	sb_json_end(sb, '}');
	sb_json_key(sb, "delay_accounting");
	sb_puts(sb, cur->delayacct == 0	 ? "\"off\","
		    : cur->delayacct > 0 ? "\"on\","
					 : "\"unknown\",");
	kvu(sb, "threads", cur->n);
	kvu(sb, "vanished", cur->vanished);
	if (cur->truncated)
		sb_puts(sb, "\"truncated\":true,");
	if (x && x->procs_valid) {
		sb_json_key(sb, "top_io");
		sb_putc(sb, '[');
		for (size_t i = 0; i < x->nby_io; i++)
			proc_row(sb, &x->procs[x->by_io[i]]);
		sb_json_end(sb, ']');
		sb_json_key(sb, "top_delay");
		sb_putc(sb, '[');
		for (size_t i = 0; i < x->nby_delay; i++)
			proc_row(sb, &x->procs[x->by_delay[i]]);
		sb_json_end(sb, ']');
	}
	sb_json_close(sb, '}');
}
