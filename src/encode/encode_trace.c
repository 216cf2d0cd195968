// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "trace" in the sample document: the probes and their cost, softirq and
 * hardirq time per CPU, time per IRQ line, IO latency per disk and op (and
 * per hardware queue).
 * Writes bytes only; every number comes from metrics_trace.c.
 */
#include "encode_trace.h"

/* The block probe's own members: its sampling and what its maps dropped. */
static void encode_block_probe(struct strbuf *sb, const struct trace_raw *raw,
			       const struct trace_metrics *m)
{
	if (raw->block_sample)
		sb_kv_u64(sb, ",\"sampled\":", raw->block_sample);
	if (m && m->has_lat_dropped)
		sb_kv_u64(sb, ",\"lat_dropped\":", m->lat_dropped);
	if (raw->lat_slots)
		sb_kv_u64(sb, ",\"lat_slots\":", raw->lat_slots);
	if (m && m->has_cg)
		sb_kv_u64(sb, ",\"cg_dropped\":", m->cg_dropped);
	if (m && m->hctx_dropped)
		sb_kv_u64(sb, ",\"hctx_dropped\":", m->hctx_dropped);
}

static void encode_probes(struct strbuf *sb, const struct trace_raw *raw,
			  const struct trace_metrics *m)
{
	sb_puts(sb, "\"probes\":{");
	for (int k = 0; k < TRACE__COUNT; k++) {
		const struct trace_probe_status *p = &raw->probe[k];

		sb_json_key(sb, trace_probe_name((enum trace_probe)k));
		sb_puts(sb, p->on ? "{\"on\":true" : "{\"on\":false,\"reason\":");
		if (!p->on)
			sb_json_str(sb, p->reason);
		if (m && m->probe_cpu_pct[k] >= 0) {
			sb_puts(sb, ",\"cpu_pct\":");
			sb_printf(sb, "%.4f", m->probe_cpu_pct[k]);
		}
		if (p->over_budget)
			sb_kv_u64(sb, ",\"over_budget\":", p->over_budget);
		if (p->backing_off) {
			sb_kv_fixed2(sb, ",\"off_s\":", (double)p->off_ns / 1e9);
			sb_kv_fixed2(sb, ",\"back_in_s\":", (double)p->back_in_ns / 1e9);
		}
		if (k == TRACE_BLOCK)
			encode_block_probe(sb, raw, m);
		if (p->has_run) {
			sb_kv_u64(sb, ",\"run_ns\":", p->run_ns);
			sb_kv_u64(sb, ",\"run_cnt\":", p->run_cnt);
		}
		sb_puts(sb, "},");
	}
	sb_json_end(sb, '}');
}

static void encode_lat(struct strbuf *sb, const struct trace_lat_metrics *l)
{
	int top = -1;

	sb_kv_u64(sb, "{\"count\":", l->count);
	sb_kv_fixed2(sb, ",\"mean_us\":", l->mean_us);
	sb_kv_fixed2(sb, ",\"p50_us\":", l->p50_us);
	sb_kv_fixed2(sb, ",\"p90_us\":", l->p90_us);
	sb_kv_fixed2(sb, ",\"p99_us\":", l->p99_us);
	sb_kv_fixed2(sb, ",\"p99.9_us\":", l->p999_us);
	sb_kv_fixed2(sb, ",\"max_us\":", l->max_us);
	/* the log2 buckets up to the last one that holds an IO */
	for (int i = 0; i < TRACE_HIST_SLOTS; i++)
		if (l->slots[i])
			top = i;
	sb_puts(sb, ",\"hist\":[");
	for (int i = 0; i <= top; i++) {
		sb_u64(sb, l->slots[i]);
		sb_putc(sb, ',');
	}
	sb_json_close(sb, ']');
	sb_putc(sb, '}');
}

/* ,"p50_us":..,"p99_us":..,"max_us":.. of a latency */
static void encode_p50_p99_max(struct strbuf *sb, const struct trace_lat_metrics *l)
{
	sb_kv_fixed2(sb, ",\"p50_us\":", l->p50_us);
	sb_kv_fixed2(sb, ",\"p99_us\":", l->p99_us);
	sb_kv_fixed2(sb, ",\"max_us\":", l->max_us);
}

/* ,"q_p50_us":..,"q_p99_us":.. of the time queued, when measured (has)
 * and any IO was */
static void encode_queued(struct strbuf *sb, bool has, const struct trace_lat_metrics *q)
{
	if (!has || !q->count)
		return;
	sb_kv_fixed2(sb, ",\"q_p50_us\":", q->p50_us);
	sb_kv_fixed2(sb, ",\"q_p99_us\":", q->p99_us);
}

/* A disk's hardware queues that completed IO in the interval, from *j on
 * (m->hctx and m->disks both by ascending (major, minor)): "hctx":[{"hctx":
 * N,"read":{count_s, p50_us, p99_us, max_us, remote_pct},"write":...}]. */
static void encode_hctx(struct strbuf *sb, const struct trace_metrics *m,
			const struct trace_disk_metrics *d, size_t *j)
{
	const struct trace_hctx_metrics *h;
	bool open = false;

	while (*j < m->nhctx && (m->hctx[*j].major < d->major ||
				 (m->hctx[*j].major == d->major && m->hctx[*j].minor < d->minor)))
		(*j)++;
	sb_puts(sb, ",\"hctx\":[");
	for (; *j < m->nhctx; (*j)++) {
		h = &m->hctx[*j];
		if (h->major != d->major || h->minor != d->minor)
			break;
		if (open && h->hctx != h[-1].hctx) {
			sb_json_end(sb, '}');
			open = false;
		}
		if (!open) {
			sb_kv_u64(sb, "{\"hctx\":", h->hctx);
			sb_putc(sb, ',');
			open = true;
		}
		sb_json_key(sb, trace_op_name(h->op));
		sb_kv_fixed2(sb, "{\"count_s\":", h->count_s);
		encode_p50_p99_max(sb, &h->lat);
		sb_kv_fixed2(sb,
			     ",\"remote_pct\":", 100.0 * (double)h->remote / (double)h->lat.count);
		sb_puts(sb, "},");
	}
	if (open) {
		sb_json_end(sb, '}');
	}
	sb_json_close(sb, ']');
}

/* "flush": the disk's flush requests (REQ_OP_FLUSH: an fsync's, and the
 * pre- and post-flushes the kernel splits from a write with PREFLUSH or,
 * on a disk without FUA, FUA), the device stage and the time queued */
static void encode_flush(struct strbuf *sb, const struct trace_metrics *m,
			 const struct trace_disk_metrics *d)
{
	const struct trace_lat_metrics *l = &d->lat[TRACE_OP_FLUSH][TRACE_LAT_DEVICE];
	const struct trace_lat_metrics *q = &d->lat[TRACE_OP_FLUSH][TRACE_LAT_QUEUED];

	sb_kv_u64(sb, ",\"flush\":{\"count\":", l->count);
	sb_kv_fixed2(sb, ",\"count_s\":", (double)l->count / m->itv_s);
	encode_p50_p99_max(sb, l);
	encode_queued(sb, d->has[TRACE_OP_FLUSH][TRACE_LAT_QUEUED], q);
	sb_putc(sb, '}');
}

/* "cgroups": IO by the cgroup that owns it, per disk */
static void encode_cgroups(struct strbuf *sb, const struct trace_metrics *m)
{
	sb_puts(sb, "\"cgroup_hierarchy\":");
	sb_json_str(sb, m->cg_top);
	sb_puts(sb, ",\"cgroups\":[");
	for (size_t i = 0; i < m->ncg; i++) {
		const struct trace_cg_metrics *g = &m->cg[i];
		const struct trace_lat_metrics *d = &g->lat[TRACE_LAT_DEVICE];
		const struct trace_lat_metrics *q = &g->lat[TRACE_LAT_QUEUED];

		if (!g->has[TRACE_LAT_DEVICE])
			continue;
		sb_puts(sb, "{\"path\":");
		sb_json_str(sb, g->path);
		sb_kv_u64(sb, ",\"cgroup_id\":", g->cgid);
		sb_puts(sb, ",\"disk\":");
		sb_json_str(sb, g->name);
		sb_kv_u64(sb, ",\"major\":", g->major);
		sb_kv_u64(sb, ",\"minor\":", g->minor);
		sb_kv_u64(sb, ",\"count\":", d->count);
		sb_kv_fixed2(sb, ",\"count_s\":", g->count_s);
		encode_queued(sb, g->has[TRACE_LAT_QUEUED], q);
		sb_kv_fixed2(sb, ",\"d_mean_us\":", d->mean_us);
		sb_kv_fixed2(sb, ",\"d_p50_us\":", d->p50_us);
		sb_kv_fixed2(sb, ",\"d_p99_us\":", d->p99_us);
		sb_puts(sb, "},");
	}
	sb_json_end(sb, ']');
}

static void encode_disks(struct strbuf *sb, const struct trace_metrics *m)
{
	static const char *const kinds[TRACE_LAT__COUNT] = { "queued", "device" };
	size_t j = 0;

	sb_puts(sb, "\"disks\":[");
	for (size_t i = 0; i < m->ndisk; i++) {
		const struct trace_disk_metrics *d = &m->disks[i];

		sb_puts(sb, "{\"disk\":");
		sb_json_str(sb, d->name);
		sb_kv_u64(sb, ",\"major\":", d->major);
		sb_kv_u64(sb, ",\"minor\":", d->minor);
		sb_kv_u64(sb, ",\"completed\":", d->completed);
		if (d->completed) {
			sb_kv_fixed2(sb, ",\"remote_pct\":",
				     100.0 * (double)d->remote / (double)d->completed);
		}
		sb_puts(sb, ",\"lat\":{");
		for (int op = 0; op < TRACE_OP__COUNT; op++) {
			if (!d->has[op][0] && !d->has[op][1])
				continue;
			sb_json_key(sb, trace_op_name((unsigned)op));
			sb_putc(sb, '{');
			for (int k = 0; k < TRACE_LAT__COUNT; k++) {
				if (!d->has[op][k])
					continue;
				sb_json_key(sb, kinds[k]);
				encode_lat(sb, &d->lat[op][k]);
				sb_putc(sb, ',');
			}
			sb_json_end(sb, '}');
		}
		sb_json_close(sb, '}');
		if (d->has[TRACE_OP_FLUSH][TRACE_LAT_DEVICE])
			encode_flush(sb, m, d);
		if (m->has_hctx)
			encode_hctx(sb, m, d, &j);
		sb_puts(sb, "},");
	}
	sb_json_end(sb, ']');
}

static void encode_time(struct strbuf *sb, const struct trace_metrics *m)
{
	size_t nc = m->ncpu;

	sb_puts(sb, "\"cpus\":[");
	for (size_t c = 0; c < nc; c++) {
		double any = m->on[TRACE_HARDIRQ] ? m->hard_us_s[c] : 0;

		for (unsigned v = 0; m->on[TRACE_SOFTIRQ] && v < TRACE_NR_SOFTIRQS; v++)
			any += m->soft_us_s[c * TRACE_NR_SOFTIRQS + v];
		/* the maps have a row per possible CPU: leave out those that took
		 * no time (offline, or hotplug slots a VM never fills) */
		if (any <= 0)
			continue;
		sb_kv_u64(sb, "{\"cpu\":", c);
		if (m->on[TRACE_HARDIRQ])
			sb_kv_fixed2(sb, ",\"hard_us_s\":", m->hard_us_s[c]);
		if (m->on[TRACE_SOFTIRQ]) {
			sb_puts(sb, ",\"soft_us_s\":{");
			for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++) {
				sb_json_key(sb, trace_softirq_name(v));
				sb_fixed2(sb, m->soft_us_s[c * TRACE_NR_SOFTIRQS + v]);
				sb_putc(sb, ',');
			}
			sb_json_close(sb, '}');
		}
		sb_puts(sb, "},");
	}
	sb_json_end(sb, ']');
	if (!m->on[TRACE_HARDIRQ])
		return;
	sb_puts(sb, "\"irqs\":[");
	for (size_t i = 0; i < m->nirq; i++) {
		double us = 0, cnt = 0;

		for (size_t c = 0; c < nc; c++) {
			us += m->irq_us_s[i * nc + c];
			cnt += m->irq_cnt_s[i * nc + c];
		}
		sb_kv_u64(sb, "{\"irq\":", m->irq[i]);
		sb_kv_fixed2(sb, ",\"us_s\":", us);
		sb_kv_fixed2(sb, ",\"count_s\":", cnt);
		sb_puts(sb, ",\"cpus_us_s\":[");
		for (size_t c = 0; c < nc; c++) {
			sb_fixed2(sb, m->irq_us_s[i * nc + c]);
			sb_putc(sb, ',');
		}
		sb_json_close(sb, ']');
		sb_puts(sb, "},");
	}
	sb_json_end(sb, ']');
}

/* per-queue softirq load: "napi" (NET_RX by NAPI) and "blk_queues" (BLOCK
 * by disk and hardware queue), each only when measured in both reads */
static void encode_queues(struct strbuf *sb, const struct trace_metrics *m)
{
	if (m->has_napi) {
		sb_puts(sb, "\"napi\":[");
		for (size_t i = 0; i < m->nnapi; i++) {
			const struct trace_napi_metrics *q = &m->napi[i];

			sb_kv_u64(sb, "{\"napi_id\":", q->napi_id);
			sb_puts(sb, ",\"dev\":");
			sb_json_str(sb, q->dev);
			if (q->dev[0])
				sb_kv_u64(sb, ",\"ifindex\":", q->ifindex);
			if (q->netns)
				sb_kv_u64(sb, ",\"netns\":", q->netns);
			sb_puts(sb, q->foreign ? ",\"host\":false" : ",\"host\":true");
			if (q->irq >= 0)
				sb_kv_u64(sb, ",\"irq\":", (uint64_t)q->irq);
			if (q->index >= 0)
				sb_kv_u64(sb, ",\"queue\":", (uint64_t)q->index);
			sb_kv_fixed2(sb, ",\"us_s\":", q->us_s);
			sb_kv_fixed2(sb, ",\"polls_s\":", q->polls_s);
			sb_kv_fixed2(sb, ",\"packets_s\":", q->packets_s);
			sb_puts(sb, "},");
		}
		sb_json_end(sb, ']');
	}
	if (m->has_blkq) {
		sb_puts(sb, "\"blk_queues\":[");
		for (size_t i = 0; i < m->nblkq; i++) {
			const struct trace_blkq_metrics *q = &m->blkq[i];

			sb_puts(sb, "{\"disk\":");
			sb_json_str(sb, q->name);
			sb_kv_u64(sb, ",\"major\":", q->major);
			sb_kv_u64(sb, ",\"minor\":", q->minor);
			sb_kv_u64(sb, ",\"hctx\":", q->hctx);
			sb_kv_fixed2(sb, ",\"us_s\":", q->us_s);
			sb_kv_fixed2(sb, ",\"completed_s\":", q->completed_s);
			sb_puts(sb, "},");
		}
		sb_json_end(sb, ']');
	}
}

void encode_trace(struct strbuf *sb, const char *why, const struct trace_raw *raw,
		  const struct trace_metrics *m)
{
	sb_puts(sb, "\"trace\":{");
	if (why || !raw || !raw->valid) {
		sb_puts(sb, "\"available\":false,\"reason\":");
		sb_json_str(sb, why ? why : "not read yet");
		sb_puts(sb, "},");
		return;
	}
	sb_kv_fixed2(sb, "\"available\":true,\"budget_pct\":", raw->budget_pct);
	sb_putc(sb, ',');
	if (!raw->stats) {
		sb_puts(sb, "\"stats_reason\":");
		sb_json_str(sb, raw->stats_reason);
		sb_putc(sb, ',');
	}
	if (m ? m->rows_dropped : raw->rows_dropped) {
		/* impossible rows left out (a damaged recording's, a map's) */
		sb_kv_u64(sb, "\"rows_dropped\":", m ? m->rows_dropped : raw->rows_dropped);
		sb_putc(sb, ',');
	}
	encode_probes(sb, raw, m);
	if (m) {
		sb_kv_fixed2(sb, "\"interval_ms\":", m->itv_s * 1000.0);
		sb_putc(sb, ',');
		encode_time(sb, m);
		if (m->on[TRACE_BLOCK])
			encode_disks(sb, m);
		if (m->on[TRACE_BLOCK] && m->has_cg)
			encode_cgroups(sb, m);
		encode_queues(sb, m);
	}
	sb_json_end(sb, '}');
}
