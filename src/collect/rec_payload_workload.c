// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's workload records: processes, pressure, writeback,
 * cgroups, NICs, blk-mq and NUMA tables as text lines, one row a line,
 * written and read back (doc/recording.md). Pure: bytes in, tables out;
 * never trusts a count, each table bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numa.h"
#include "rec_payload.h"
#include "rec_payload_int.h"
#include "rec_text.h"
#include "turbo.h"
#include "workload.h"

/* ---- processes ---- */

void rec_payload_procs_pack(const struct proc_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_PROCS);

	/* the numbers, then each text on its own line: a changed text makes
	 * its line a literal in the frame, the numbers stay differences */
	sb_puts(o, "h\t");
	w_u(o, t->carried);
	w_i(o, t->delayacct);
	w_u(o, t->unreadable);
	w_u(o, t->queried);
	w_u(o, t->answered);
	w_u(o, t->vanished);
	w_u(o, t->exited_rows);
	w_u(o, t->scan_uptime_cs);
	w_u(o, t->scan_cpu_ns);
	w_u(o, t->scan_every);
	w_u(o, t->scan_age);
	w_u(o, t->ts_io_rows);
	w_u(o, t->ts_io_asked);
	w_end(o, 0);
	sb_puts(o, "w\t");
	w_s(o, t->scan_why);
	w_end(o, 0);
	sb_puts(o, "s\t");
	w_st(o, &t->procfs);
	w_end(o, 0);
	sb_puts(o, "s\t");
	w_st(o, &t->taskstats);
	w_end(o, 0);
	/* a sample that skipped the scan carries the last scan's rows: recorded
	 * then. A row's pid is its distance from the row before: most rows are
	 * processes that did no IO ("1\t"), which zstd packs into almost nothing
	 * and which stay equal lines when a process before them comes or goes */
	for (size_t i = 0; !t->carried && i < t->n; i++) {
		const struct proc_raw *p = &t->rows[i];
		size_t k;

		w_i(o, (int64_t)p->pid - (i ? t->rows[i - 1].pid : 0));
		w_s(o, p->comm);
		k = o->len;
		/* most processes did no IO: their numbers would all be trimmed */
		if (!(p->exited | p->source | p->has_delay | p->read_bytes | p->write_bytes |
		      p->cancelled_write_bytes | p->blkio_count | p->blkio_delay_ns |
		      p->reaped_read_bytes | p->reaped_write_bytes | p->reaped_cancelled_bytes |
		      p->has_stat | p->io_unknown | p->io_taskstats | p->has_who)) {
			w_end(o, k);
			continue;
		}
		w_u(o, p->exited);
		w_u(o, p->source);
		w_u(o, p->read_bytes);
		w_u(o, p->write_bytes);
		w_u(o, p->cancelled_write_bytes);
		w_u(o, p->has_delay);
		w_u(o, p->blkio_count);
		w_u(o, p->blkio_delay_ns);
		w_u(o, p->reaped_read_bytes);
		w_u(o, p->reaped_write_bytes);
		w_u(o, p->reaped_cancelled_bytes);
		/* CPU time and who (later fields: an older reader stops before) */
		w_u(o, p->has_stat);
		w_u(o, p->kthread);
		w_u(o, p->io_unknown);
		w_u(o, p->utime_ticks);
		w_u(o, p->stime_ticks);
		w_u(o, p->gtime_ticks);
		w_u(o, p->start_ticks);
		w_u(o, p->io_taskstats);
		w_u(o, p->has_who);
		if (p->has_who) {
			/* texts after numbers: '=' keeps a "0" from being trimmed */
			w_u(o, p->uid);
			sb_putc(o, '=');
			w_s(o, p->user);
			sb_putc(o, '=');
			w_s(o, p->cmdline);
			sb_putc(o, '=');
			w_s(o, p->unit);
		}
		/* run-queue wait (appended later) */
		w_u(o, p->has_sched);
		w_u(o, p->runq_ns);
		w_end(o, k);
	}
	rec_payload_end(o, at);
}

int rec_payload_procs_unpack(struct rec_text *r, struct proc_table *t)
{
	int64_t d, gap, pid = 0;

	t->n = 0;
	if (!rec_text_line(r) || rec_text_kind(r) != 'h')
		return -EBADMSG;
	t->carried = r_b(r);
	d = r_i(r);
	t->delayacct = (int8_t)(d > 0 ? 1 : d < 0 ? -1 : 0);
	t->unreadable = r_u32(r);
	t->queried = r_u32(r);
	t->answered = r_u32(r);
	t->vanished = r_u32(r);
	t->exited_rows = r_u32(r);
	t->scan_uptime_cs = rec_text_u(r);
	t->scan_cpu_ns = rec_text_u(r);
	t->scan_every = r_u32(r);
	t->scan_age = r_u32(r);
	t->ts_io_rows = r_u32(r);
	t->ts_io_asked = r_u32(r);
	if (!rec_text_line(r) || rec_text_kind(r) != 'w')
		return -EBADMSG;
	rec_text_s(r, t->scan_why, sizeof(t->scan_why));
	if (!rec_text_line(r) || rec_text_kind(r) != 's')
		return -EBADMSG;
	r_st(r, &t->procfs);
	if (!rec_text_line(r) || rec_text_kind(r) != 's')
		return -EBADMSG;
	r_st(r, &t->taskstats);
	while (!r->bad && rec_text_line(r)) {
		struct proc_raw *p;

		if (t->carried) {
			r->bad = true;
			break;
		}
		p = rec_row(r, (void **)&t->rows, &t->n, &t->cap, sizeof(*t->rows),
			    REC_PAYLOAD_PROCS_MAX);
		if (!p)
			return r->bad ? -EBADMSG : -ENOMEM;
		/* ascending but for a pid reused in the interval (an exited row
		 * and a live one): kept as recorded, only bounded */
		gap = r_i(r);
		if (gap < INT32_MIN - pid || gap > INT32_MAX - pid) {
			r->bad = true;
			break;
		}
		pid += gap;
		p->pid = (int32_t)pid;
		rec_text_s(r, p->comm, sizeof(p->comm));
		p->exited = r_b(r);
		p->source = rec_text_u(r) ? PROC_SRC_TASKSTATS : PROC_SRC_PROCFS;
		p->read_bytes = rec_text_u(r);
		p->write_bytes = rec_text_u(r);
		p->cancelled_write_bytes = rec_text_u(r);
		p->has_delay = r_b(r);
		p->blkio_count = rec_text_u(r);
		p->blkio_delay_ns = rec_text_u(r);
		p->reaped_read_bytes = rec_text_u(r);
		p->reaped_write_bytes = rec_text_u(r);
		p->reaped_cancelled_bytes = rec_text_u(r);
		p->has_stat = r_b(r);
		p->kthread = r_b(r);
		p->io_unknown = r_b(r);
		p->utime_ticks = rec_text_u(r);
		p->stime_ticks = rec_text_u(r);
		p->gtime_ticks = rec_text_u(r);
		p->start_ticks = rec_text_u(r);
		p->io_taskstats = r_b(r);
		p->has_who = r_b(r);
		if (p->has_who) {
			p->uid = r_u32(r);
			r_text(r, p->user, sizeof(p->user));
			r_text(r, p->cmdline, sizeof(p->cmdline));
			r_text(r, p->unit, sizeof(p->unit));
		}
		p->has_sched = r_b(r);
		p->runq_ns = rec_text_u(r);
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- pressure (the host's and each cgroup's) ---- */

static void w_psi(struct strbuf *o, const struct psi_line *l)
{
	w_u(o, l->present);
	w_pct(o, l->avg10);
	w_pct(o, l->avg60);
	w_pct(o, l->avg300);
	w_u(o, l->total_us);
}

static void r_psi(struct rec_text *r, struct psi_line *l)
{
	l->present = r_b(r);
	l->avg10 = r_pct(r);
	l->avg60 = r_pct(r);
	l->avg300 = r_pct(r);
	l->total_us = rec_text_u(r);
}

void rec_payload_pressure_pack(const struct pressure_raw *p, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_PRESSURE);

	for (int i = 0; i < PSI__COUNT; i++) {
		w_u(o, (uint64_t)i);
		w_psi(o, &p->res[i].some);
		w_psi(o, &p->res[i].full);
		w_st(o, &p->res[i].status);
		w_end(o, 0);
	}
	rec_payload_end(o, at);
}

int rec_payload_pressure_unpack(struct rec_text *r, struct pressure_raw *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < PSI__COUNT; i++) {
		p->res[i].status.err = -ENODATA;
		snprintf(p->res[i].status.reason, sizeof(p->res[i].status.reason),
			 "not in the recording");
	}
	while (!r->bad && rec_text_line(r)) {
		uint64_t i = rec_text_u(r);
		struct psi_raw *x;

		if (i >= PSI__COUNT)
			continue; /* a later kernel's resource */
		x = &p->res[i];
		r_psi(r, &x->some);
		r_psi(r, &x->full);
		r_st(r, &x->status);
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- writeback ---- */

void rec_payload_writeback_pack(const struct writeback_raw *w, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_WRITEBACK);

	w_u(o, w->has_vmstat);
	w_u(o, w->nr_dirty);
	w_u(o, w->nr_writeback);
	w_u(o, w->nr_dirty_threshold);
	w_u(o, w->nr_dirty_bg_threshold);
	w_u(o, w->has_thresholds);
	w_u(o, w->page_size);
	for (int i = 0; i < WB__COUNT; i++) {
		w_u(o, w->has_sysctl[i]);
		w_u(o, w->sysctl[i]);
	}
	w_st(o, &w->vmstat_status);
	w_st(o, &w->sysctl_status);
	w_end(o, 0);
	rec_payload_end(o, at);
}

int rec_payload_writeback_unpack(struct rec_text *r, struct writeback_raw *w)
{
	memset(w, 0, sizeof(*w));
	if (!rec_text_line(r))
		return -EBADMSG;
	w->has_vmstat = r_b(r);
	w->nr_dirty = rec_text_u(r);
	w->nr_writeback = rec_text_u(r);
	w->nr_dirty_threshold = rec_text_u(r);
	w->nr_dirty_bg_threshold = rec_text_u(r);
	w->has_thresholds = r_b(r);
	w->page_size = rec_text_u(r);
	for (int i = 0; i < WB__COUNT; i++) {
		w->has_sysctl[i] = r_b(r);
		w->sysctl[i] = rec_text_u(r);
	}
	r_st(r, &w->vmstat_status);
	r_st(r, &w->sysctl_status);
	return r->bad ? -EBADMSG : 0;
}

/* ---- cgroups ---- */

void rec_payload_cgroups_pack(const struct cgroup_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_CGROUPS);

	sb_puts(o, "h\t");
	w_s(o, t->top);
	w_u(o, t->io_enabled);
	w_u(o, t->skipped);
	w_st(o, &t->status);
	w_s(o, t->psi_top); /* appended later: cpu and memory pressure */
	w_end(o, 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct cgroup_raw *g = &t->rows[i];

		sb_puts(o, "g\t");
		w_s(o, g->path);
		w_u(o, g->has_stat);
		w_u(o, g->has_psi);
		w_psi(o, &g->some);
		w_psi(o, &g->full);
		w_u(o, g->has_cpu_psi);
		w_psi(o, &g->cpu_some);
		w_psi(o, &g->cpu_full);
		w_u(o, g->has_mem_psi);
		w_psi(o, &g->mem_some);
		w_psi(o, &g->mem_full);
		w_end(o, 0);
		for (size_t k = 0; k < g->nio && g->io_off + k < t->nio; k++) {
			const struct cgroup_io *io = &t->io[g->io_off + k];

			sb_puts(o, "i\t");
			w_u(o, io->major);
			w_u(o, io->minor);
			w_u(o, io->has_discard);
			w_u(o, io->rbytes);
			w_u(o, io->wbytes);
			w_u(o, io->rios);
			w_u(o, io->wios);
			w_u(o, io->dbytes);
			w_u(o, io->dios);
			w_end(o, 0);
		}
	}
	rec_payload_end(o, at);
}

int rec_payload_cgroups_unpack(struct rec_text *r, struct cgroup_table *t)
{
	struct cgroup_raw *g = NULL;

	t->n = t->nio = 0;
	if (!rec_text_line(r) || rec_text_kind(r) != 'h')
		return -EBADMSG;
	rec_text_s(r, t->top, sizeof(t->top));
	t->io_enabled = r_b(r);
	t->skipped = r_u32(r);
	r_st(r, &t->status);
	rec_text_s(r, t->psi_top, sizeof(t->psi_top));
	while (!r->bad && rec_text_line(r)) {
		char k = rec_text_kind(r);

		if (k == 'g') {
			g = rec_row(r, (void **)&t->rows, &t->n, &t->cap, sizeof(*t->rows),
				    CGROUP_MAX);
			if (!g)
				return r->bad ? -EBADMSG : -ENOMEM;
			rec_text_s(r, g->path, sizeof(g->path));
			g->has_stat = r_b(r);
			g->has_psi = r_b(r);
			r_psi(r, &g->some);
			r_psi(r, &g->full);
			g->has_cpu_psi = r_b(r);
			r_psi(r, &g->cpu_some);
			r_psi(r, &g->cpu_full);
			g->has_mem_psi = r_b(r);
			r_psi(r, &g->mem_some);
			r_psi(r, &g->mem_full);
			g->io_off = t->nio;
			/* cgroup_table_find() searches by path: the rows must ascend */
			if (t->n > 1 && strcmp(g->path, g[-1].path) <= 0)
				r->bad = true;
		} else if (k == 'i') {
			struct cgroup_io *io;

			if (!g || g->nio >= CGROUP_DEVS_MAX) {
				r->bad = true;
				break;
			}
			io = rec_row(r, (void **)&t->io, &t->nio, &t->io_cap, sizeof(*t->io),
				     REC_PAYLOAD_CGIO_MAX);
			if (!io)
				return r->bad ? -EBADMSG : -ENOMEM;
			g->nio++;
			io->major = r_u32(r);
			io->minor = r_u32(r);
			io->has_discard = r_b(r);
			io->rbytes = rec_text_u(r);
			io->wbytes = rec_text_u(r);
			io->rios = rec_text_u(r);
			io->wios = rec_text_u(r);
			io->dbytes = rec_text_u(r);
			io->dios = rec_text_u(r);
		}
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- NICs ---- */

void rec_payload_nics_pack(const struct nic_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_NICS);

	sb_puts(o, "h\t");
	w_st(o, &t->rtnl);
	w_st(o, &t->ethtool);
	w_end(o, 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct nic_raw *n = &t->rows[i];
		const struct nic_link_stats *s = &n->stats;
		const struct nic_channels *ch = &n->channels;
		const struct nic_coalesce *co = &n->coalesce;

		sb_puts(o, "n\t");
		w_s(o, n->ifname);
		w_u(o, n->ifindex);
		w_u(o, n->up);
		w_u(o, n->running);
		w_u(o, n->num_rx_queues);
		w_u(o, n->num_tx_queues);
		w_u(o, n->has_channels);
		w_u(o, ch->rx);
		w_u(o, ch->tx);
		w_u(o, ch->other);
		w_u(o, ch->combined);
		w_u(o, ch->rx_max);
		w_u(o, ch->tx_max);
		w_u(o, ch->other_max);
		w_u(o, ch->combined_max);
		w_st(o, &n->channels_status);
		w_u(o, n->has_coalesce);
		w_u(o, (uint64_t)co->has_rx_usecs | (uint64_t)co->has_rx_frames << 1 |
			   (uint64_t)co->has_tx_usecs << 2 | (uint64_t)co->has_tx_frames << 3 |
			   (uint64_t)co->has_adaptive_rx << 4 | (uint64_t)co->has_adaptive_tx << 5 |
			   (uint64_t)co->adaptive_rx << 6 | (uint64_t)co->adaptive_tx << 7);
		w_u(o, co->rx_usecs);
		w_u(o, co->rx_frames);
		w_u(o, co->tx_usecs);
		w_u(o, co->tx_frames);
		w_st(o, &n->coalesce_status);
		w_u(o, n->nirqs);
		for (size_t k = 0; k < n->nirqs && k < NIC_IRQ_MAX; k++)
			w_u(o, n->irqs[k]);
		/* the counters last: a line whose text is unchanged but for them */
		w_u(o, n->has_stats);
		w_u(o, s->rx_packets);
		w_u(o, s->tx_packets);
		w_u(o, s->rx_bytes);
		w_u(o, s->tx_bytes);
		w_u(o, s->rx_errors);
		w_u(o, s->tx_errors);
		w_u(o, s->rx_dropped);
		w_u(o, s->tx_dropped);
		w_end(o, 0);
	}
	rec_payload_end(o, at);
}

int rec_payload_nics_unpack(struct rec_text *r, struct nic_table *t)
{
	t->n = 0;
	if (!rec_text_line(r) || rec_text_kind(r) != 'h')
		return -EBADMSG;
	r_st(r, &t->rtnl);
	r_st(r, &t->ethtool);
	while (!r->bad && rec_text_line(r)) {
		struct nic_raw *n;
		struct nic_link_stats *s;
		struct nic_channels *ch;
		struct nic_coalesce *co;
		uint64_t bits;

		if (rec_text_kind(r) != 'n')
			continue;
		n = rec_row(r, (void **)&t->rows, &t->n, &t->cap, sizeof(*t->rows),
			    REC_PAYLOAD_NICS_MAX);
		if (!n)
			return r->bad ? -EBADMSG : -ENOMEM;
		s = &n->stats;
		ch = &n->channels;
		co = &n->coalesce;
		rec_text_s(r, n->ifname, sizeof(n->ifname));
		n->ifindex = r_u32(r);
		n->up = r_b(r);
		n->running = r_b(r);
		n->num_rx_queues = r_u32(r);
		n->num_tx_queues = r_u32(r);
		n->has_channels = r_b(r);
		ch->rx = r_u32(r);
		ch->tx = r_u32(r);
		ch->other = r_u32(r);
		ch->combined = r_u32(r);
		ch->rx_max = r_u32(r);
		ch->tx_max = r_u32(r);
		ch->other_max = r_u32(r);
		ch->combined_max = r_u32(r);
		r_st(r, &n->channels_status);
		n->has_coalesce = r_b(r);
		bits = rec_text_u(r);
		co->has_rx_usecs = bits & 1;
		co->has_rx_frames = bits >> 1 & 1;
		co->has_tx_usecs = bits >> 2 & 1;
		co->has_tx_frames = bits >> 3 & 1;
		co->has_adaptive_rx = bits >> 4 & 1;
		co->has_adaptive_tx = bits >> 5 & 1;
		co->adaptive_rx = bits >> 6 & 1;
		co->adaptive_tx = bits >> 7 & 1;
		co->rx_usecs = r_u32(r);
		co->rx_frames = r_u32(r);
		co->tx_usecs = r_u32(r);
		co->tx_frames = r_u32(r);
		r_st(r, &n->coalesce_status);
		n->nirqs = rec_text_u(r);
		if (n->nirqs > NIC_IRQ_MAX) {
			n->nirqs = 0;
			r->bad = true;
			break;
		}
		for (size_t k = 0; k < n->nirqs; k++)
			n->irqs[k] = r_u32(r);
		n->has_stats = r_b(r);
		s->rx_packets = rec_text_u(r);
		s->tx_packets = rec_text_u(r);
		s->rx_bytes = rec_text_u(r);
		s->tx_bytes = rec_text_u(r);
		s->rx_errors = rec_text_u(r);
		s->tx_errors = rec_text_u(r);
		s->rx_dropped = rec_text_u(r);
		s->tx_dropped = rec_text_u(r);
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- blk-mq and NUMA ---- */

void rec_payload_blkmq_pack(const struct blkmq_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_BLKMQ);

	for (size_t i = 0; i < t->n; i++) {
		w_s(o, t->rows[i].disk);
		w_u(o, t->rows[i].hctx);
		w_s(o, t->rows[i].cpu_list);
		w_end(o, 0);
	}
	rec_payload_end(o, at);
}

int rec_payload_blkmq_unpack(struct rec_text *r, struct blkmq_table *t)
{
	t->n = 0;
	while (!r->bad && rec_text_line(r)) {
		struct blkmq_queue *q = rec_row(r, (void **)&t->rows, &t->n, &t->cap,
						sizeof(*t->rows), REC_PAYLOAD_BLKMQ_MAX);

		if (!q)
			return r->bad ? -EBADMSG : -ENOMEM;
		rec_text_s(r, q->disk, sizeof(q->disk));
		q->hctx = r_u32(r);
		rec_text_s(r, q->cpu_list, sizeof(q->cpu_list));
	}
	return r->bad ? -EBADMSG : 0;
}

void rec_payload_numa_pack(const struct numa_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_NUMA);

	for (size_t i = 0; i < t->n; i++) {
		w_i(o, t->rows[i].node);
		w_s(o, t->rows[i].cpu_list);
		w_end(o, 0);
	}
	rec_payload_end(o, at);
}

int rec_payload_numa_unpack(struct rec_text *r, struct numa_table *t)
{
	t->n = 0;
	while (!r->bad && rec_text_line(r)) {
		struct numa_node *x =
		    rec_row(r, (void **)&t->rows, &t->n, &t->cap, sizeof(*t->rows), NUMA_NODES_MAX);

		if (!x)
			return r->bad ? -EBADMSG : -ENOMEM;
		x->node = r_int(r);
		rec_text_s(r, x->cpu_list, sizeof(x->cpu_list));
	}
	return r->bad ? -EBADMSG : 0;
}
