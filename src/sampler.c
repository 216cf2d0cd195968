// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sampler: one collector, two snapshots that take turns being current,
 * one metrics struct and one encode buffer, all reused tick after tick so a
 * steady stream of samples allocates nothing. It must not print, sleep or
 * touch anything but what collect reads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode.h"
#include "workload.h"
#include "recfile.h"
#include "recpayload.h"
#include "sampler.h"

static int dup_opt(const char *s, char **ret)
{
	char *d;

	if (!s) {
		*ret = NULL;
		return 0;
	}
	d = strdup(s);
	if (!d)
		return -ENOMEM;
	*ret = d;
	return 0;
}

int sampler_open(const struct sampler_opts *o, struct sampler **ret_s)
{
	struct sampler *s;
	int r;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	r = dup_opt(o ? o->host : NULL, &s->host);
	if (r >= 0)
		r = dup_opt(o ? o->mode : NULL, &s->mode);
	if (r >= 0)
		r = snapshot_collector_open(o ? o->root : NULL, &s->col);
	if (r < 0) {
		free(s->host);
		free(s->mode);
		free(s);
		return r;
	}
	s->all_disks = o && o->all_disks;
	s->advise = o && o->advise;
	s->topo_given = o && o->topo_given;
	s->col.skip = o ? o->skip : 0;
	s->budget_pct = o ? o->cpu_budget_pct : 0;
	s->interval_ms = o && o->interval_ms > 0 ? o->interval_ms : 1000;
	s->scan_every = 1;
	*ret_s = s;
	return 0;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	snapshot_collector_close(&s->col);
	snapshot_free(&s->snap[0]);
	snapshot_free(&s->snap[1]);
	metrics_free(&s->m);
	advice_free(&s->adv);
	if (s->have_topo)
		topology_free(&s->topo);
	sb_free(&s->json);
	sb_free(&s->rec_topo);
	free(s->host);
	free(s->mode);
	free(s);
}

/*
 * sysstat's interval is the /proc/uptime difference. A recorded tree that is
 * not being rewritten keeps the same uptime, and a root without /proc/uptime
 * has none: then the monotonic clock of the two samples, rounded to
 * centiseconds, never 0 (metrics_compute() refuses 0).
 */
static uint64_t tick_interval_cs(struct sampler *s, const struct snapshot *prev,
				 const struct snapshot *cur)
{
	uint64_t itv = metrics_interval_cs(prev, cur);
	int64_t dns;

	s->itv_from_clock = itv == 0;
	if (itv)
		return itv;
	dns = cur->mono_ns - prev->mono_ns;
	if (dns <= 0)
		return 1;
	itv = (uint64_t)((dns + 5000000) / 10000000);
	return itv ? itv : 1;
}

/*
 * The advice of the current sample: pure over the metrics and a topology
 * read at most SAMPLER_TOPO_NS ago (so its undo values may be that old;
 * apply re-reads before it writes). A topology that cannot be read leaves
 * the document without advice rather than advising blind.
 */
static void tick_advise(struct sampler *s, const struct snapshot *cur)
{
	advice_free(&s->adv);
	s->advise_ok = false;
	if (!s->advise || !s->have_metrics)
		return;
	if (!s->topo_given && (!s->have_topo || cur->mono_ns - s->topo_ns >= SAMPLER_TOPO_NS ||
			       cur->mono_ns < s->topo_ns)) {
		if (s->have_topo)
			topology_free(&s->topo);
		s->have_topo = topology_collect_hint(&s->col.root, &s->topo_hint, &s->topo) >= 0;
		s->topo_ns = cur->mono_ns;
	}
	s->advise_ok = s->have_topo && advise_compute(cur, &s->m, &s->topo, &s->adv) >= 0;
}

void sampler_topology_stale(struct sampler *s)
{
	if (s->have_topo)
		topology_free(&s->topo);
	s->have_topo = false;
}

void sampler_put_topology(struct sampler *s, struct topology *t)
{
	if (s->have_topo)
		topology_free(&s->topo);
	s->topo = *t;
	memset(t, 0, sizeof(*t));
	s->have_topo = true;
}

const struct advice *sampler_advice(const struct sampler *s)
{
	return s->advise_ok ? &s->adv : NULL;
}

void sampler_want_procs(struct sampler *s, bool want)
{
	s->want_procs = want;
}

uint32_t sampler_scan_every(int64_t scan_ns, int64_t base_ns, int64_t budget_ns)
{
	int64_t n = 1, left = budget_ns - base_ns;

	if (budget_ns <= 0 || scan_ns <= 0)
		return 1;
	if (base_ns > 0)
		n = (SAMPLER_SCAN_SHARE * scan_ns + base_ns - 1) / base_ns;
	if (left <= 0)
		n = SAMPLER_SCAN_EVERY_MAX;
	else if ((scan_ns + left - 1) / left > n)
		n = (scan_ns + left - 1) / left;
	if (n < 1)
		n = 1;
	return n > SAMPLER_SCAN_EVERY_MAX ? SAMPLER_SCAN_EVERY_MAX : (uint32_t)n;
}

static bool disk_finding(const struct sampler *s)
{
	for (size_t i = 0; s->advise_ok && i < s->adv.nfindings; i++) {
		enum finding_kind k = s->adv.findings[i].kind;

		if (k == FIND_DISK_SATURATED || k == FIND_DISK_SLOW || k == FIND_MEMBER_IMBALANCE)
			return true;
	}
	return false;
}

/* Why the next sample scans /proc/PID/io, NULL when it need not. */
static const char *scan_reason(const struct sampler *s)
{
	if (s->budget_pct <= 0)
		return "always";
	if (s->ticks < 2)
		return "start"; /* the first rates need two scans */
	if (s->want_procs)
		return "client";
	if (disk_finding(s))
		return "finding";
	if (s->since_scan + 1 >= s->scan_every)
		return "cadence";
	return NULL;
}

/*
 * A sample that skipped the scan takes over the previous sample's table
 * (the last scan's rows, its statuses and time), so the next scan's rates
 * are against it; the storage it held goes to the previous snapshot,
 * which is not read again.
 */
static void carry_procs(struct snapshot *cur, struct snapshot *prev)
{
	struct proc_table t;

	if (!cur->workload || !cur->workload->procs.carried)
		return;
	if (!prev->workload) {
		cur->workload->procs.n = 0;
		return;
	}
	t = cur->workload->procs;
	cur->workload->procs = prev->workload->procs;
	prev->workload->procs = t;
	cur->workload->procs.carried = true;
}

/* After the sample's metrics: the costs, the next cadence, and what the
 * document says of them. */
static void scan_account(struct sampler *s, struct snapshot *cur, int64_t spent_ns)
{
	struct proc_table *t = cur->workload ? &cur->workload->procs : NULL;
	int64_t base = spent_ns, budget;

	if (s->scan_why && t) {
		s->scan_cpu_ns = (int64_t)t->scan_cpu_ns;
		base -= s->scan_cpu_ns;
		s->since_scan = 0;
	} else {
		s->since_scan++;
	}
	if (base < 0)
		base = 0;
	s->tick_cpu_ns = spent_ns;
	/* a moving average: one slow sample (a page fault storm) must not
	 * stretch the cadence for minutes */
	s->base_cpu_ns = s->base_cpu_ns ? (7 * s->base_cpu_ns + base) / 8 : base;
	budget = (int64_t)(s->budget_pct / 100.0 * (double)s->interval_ms * 1e6);
	s->scan_every =
	    s->budget_pct > 0 ? sampler_scan_every(s->scan_cpu_ns, s->base_cpu_ns, budget) : 1;
	if (!t || s->replaying)
		return; /* a replayed table has the recorded cadence */
	t->scan_every = s->scan_every;
	t->scan_age = s->since_scan;
	snprintf(t->scan_why, sizeof(t->scan_why), "%s", s->scan_why ? s->scan_why : "");
}

/* After cur (the next snapshot slot) was filled: metrics, advice, the
 * costs and the next cadence, the document. t0: the thread's CPU clock when
 * the sample began. */
static int tick_finish(struct sampler *s, unsigned next, int64_t t0)
{
	struct encode_opts eo = { .host = s->host, .mode = s->mode, .whole_only = !s->all_disks };
	struct snapshot *cur = &s->snap[next];
	const struct snapshot *prev = &s->snap[next ^ 1];
	int r;

	s->cur = next;
	s->ticks++;
	s->have_metrics = false;
	if (s->ticks > 1) {
		r = metrics_compute(prev, cur, tick_interval_cs(s, prev, cur), &s->m);
		if (r < 0 && r != -EINVAL) {
			sb_reset(&s->json);
			s->json.err = r; /* sampler_json() now returns NULL */
			return r;
		}
		s->have_metrics = r >= 0;
	}
	tick_advise(s, cur);
	scan_account(s, cur, snapshot_thread_cpu_ns() - t0);
	if (s->advise_ok)
		eo.advice = &s->adv;
	sb_reset(&s->json);
	encode_sample(&s->json, cur, s->have_metrics ? &s->m : NULL, &eo);
	return s->json.err;
}

int sampler_tick(struct sampler *s)
{
	unsigned next = s->ticks ? s->cur ^ 1 : 0;
	int64_t t0 = snapshot_thread_cpu_ns();

	s->scan_why = scan_reason(s);
	s->col.noscan = !s->scan_why;
	s->last_err = snapshot_collector_sample(&s->col, &s->snap[next]);
	if (s->ticks)
		carry_procs(&s->snap[next], &s->snap[next ^ 1]);
	return tick_finish(s, next, t0);
}

int sampler_pack(const struct sampler *s, struct strbuf *out)
{
	const struct snapshot *cur = sampler_current(s);

	if (!cur)
		return 0;
	return snapshot_collector_pack(&s->col, cur, s->advise && s->have_topo ? &s->topo : NULL,
				       out);
}

/* A replayed sample that skipped the scan with no scan before it in this
 * replay (it started there, or after a lost frame): the rows are in an
 * earlier frame, so the processes are unavailable, not an empty table. */
static void no_rows(struct proc_table *t)
{
	t->n = 0;
	t->procfs.err = -ENODATA;
	snprintf(t->procfs.reason, sizeof(t->procfs.reason),
		 "not in the replay: the last scan of /proc/PID/io was before its first sample");
}

/*
 * A replayed sample that skipped the scan: the last scan's rows, as
 * carry_procs() gives them live, with this sample's recorded cadence.
 */
static void carry_recorded(struct sampler *s, struct snapshot *cur, struct snapshot *prev)
{
	struct proc_table *now;

	if (!cur->workload || !cur->workload->procs.carried)
		return;
	if (!s->ticks || !prev->workload) {
		no_rows(&cur->workload->procs);
		return;
	}
	carry_procs(cur, prev);
	now = &prev->workload->procs; /* what the payload said, swapped out */
	cur->workload->procs.scan_every = now->scan_every;
	cur->workload->procs.scan_age = now->scan_age;
	memcpy(cur->workload->procs.scan_why, now->scan_why, sizeof(now->scan_why));
}

/* The topology recorded with the sample, put when it changed; none
 * recorded: no advice, as live before the topology was read. */
static int put_recorded_topology(struct sampler *s, const void *payload, size_t len)
{
	struct topology t;
	const char *p;
	size_t n;
	int32_t err;
	int r;

	r = recpayload_find(payload, len, REC_TAG_TOPOLOGY, &p, &n, &err);
	if (r <= 0 || err < 0) {
		sampler_topology_stale(s);
		sb_reset(&s->rec_topo);
		return r;
	}
	if (s->have_topo && s->rec_topo.len == n && memcmp(s->rec_topo.buf, p, n) == 0)
		return 0;
	sb_reset(&s->rec_topo);
	r = recpayload_unpack_topology(p, n, &t);
	if (r < 0) {
		sampler_topology_stale(s);
		return r == -ENOMEM ? r : 0;
	}
	sampler_put_topology(s, &t);
	sb_append(&s->rec_topo, p, n);
	if (s->rec_topo.err) {
		sb_reset(&s->rec_topo); /* only the comparison is lost */
		s->rec_topo.err = 0;
	}
	return 0;
}

int sampler_tick_recorded(struct sampler *s, uint64_t id, int64_t mono_ns, int64_t real_ns,
			  const void *payload, size_t len)
{
	unsigned next = s->ticks ? s->cur ^ 1 : 0;
	struct snapshot *cur = &s->snap[next];
	int64_t t0 = snapshot_thread_cpu_ns();
	int r;

	s->scan_why = NULL; /* a recording has no processes to scan */
	s->replaying = true;
	s->last_err = snapshot_collector_unpack(&s->col, payload, len, cur);
	if (s->last_err == -EBADMSG || s->last_err == -ENOMEM)
		return s->last_err;
	r = s->advise ? put_recorded_topology(s, payload, len) : 0;
	if (r < 0)
		return r;
	carry_recorded(s, cur, &s->snap[next ^ 1]);
	cur->id = id;
	cur->mono_ns = mono_ns;
	cur->real_ns = real_ns;
	return tick_finish(s, next, t0);
}

int sampler_set_labels(struct sampler *s, const char *host, const char *mode)
{
	char *h = NULL, *m = NULL;

	if (dup_opt(host, &h) < 0 || dup_opt(mode, &m) < 0) {
		free(h);
		return -ENOMEM;
	}
	free(s->host);
	free(s->mode);
	s->host = h;
	s->mode = m;
	return 0;
}

void sampler_restart(struct sampler *s)
{
	s->ticks = 0;
	s->have_metrics = false;
}

const char *sampler_json(const struct sampler *s, size_t *ret_len)
{
	if (!s->ticks || s->json.err || !s->json.buf)
		return NULL;
	if (ret_len)
		*ret_len = s->json.len;
	return s->json.buf;
}

const struct snapshot *sampler_current(const struct sampler *s)
{
	return s->ticks ? &s->snap[s->cur] : NULL;
}

const struct metrics *sampler_metrics(const struct sampler *s)
{
	return s->have_metrics ? &s->m : NULL;
}

int sampler_last_error(const struct sampler *s)
{
	return s->last_err;
}

struct sampler_replay {
	struct recreader *rd;
	struct sampler *s;
	struct recframe f;
	int64_t target_ns; /* frames before it only feed the next one's metrics */
};

int sampler_replay_open(const char *path, struct sampler_replay **ret_r, char *why, size_t why_size)
{
	/* advice on the recorded topology (topo_given: never read from here) */
	struct sampler_opts so = {
		.skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT,
		.advise = true,
		.topo_given = true,
	};
	struct sampler_replay *r;
	int e;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->target_ns = INT64_MIN;
	e = recreader_open(path, &r->rd, why, why_size);
	if (e < 0) {
		free(r);
		return e;
	}
	/* the collector's root is never read: the bytes come from the frames */
	e = sampler_open(&so, &r->s);
	if (e < 0) {
		snprintf(why, why_size, "replay: %s", strerror(-e));
		recreader_close(r->rd);
		free(r);
		return e;
	}
	*ret_r = r;
	return 0;
}

void sampler_replay_close(struct sampler_replay *r)
{
	if (!r)
		return;
	recreader_close(r->rd);
	sampler_close(r->s);
	free(r);
}

int sampler_replay_seek(struct sampler_replay *r, int64_t real_ns, bool before)
{
	int64_t t = real_ns;
	int e;

	e = recreader_seek(r->rd, real_ns, RECREADER_WITH_PREV | (before ? RECREADER_BEFORE : 0),
			   &t);
	r->target_ns = t;
	return e;
}

int sampler_replay_span(struct sampler_replay *r, int64_t *ret_first, int64_t *ret_last)
{
	return recreader_span(r->rd, ret_first, ret_last);
}

int sampler_replay_next(struct sampler_replay *r, const struct recframe **ret_f)
{
	for (;;) {
		int e = recreader_next(r->rd, &r->f);

		if (e <= 0)
			return e;
		if (r->f.new_run) {
			sampler_restart(r->s);
			e = sampler_set_labels(r->s, r->f.host[0] ? r->f.host : NULL,
					       r->f.mode[0] ? r->f.mode : NULL);
			if (e < 0)
				return e;
		}
		e = sampler_tick_recorded(r->s, r->f.id, r->f.mono_ns, r->f.real_ns, r->f.payload,
					  r->f.len);
		if (e == -ENOMEM)
			return e;
		if (e < 0) {
			sampler_restart(r->s); /* a payload that lies: the next one starts afresh */
			continue;
		}
		if (r->f.real_ns < r->target_ns)
			continue;
		*ret_f = &r->f;
		return 1;
	}
}

struct sampler *sampler_replay_sampler(struct sampler_replay *r)
{
	return r->s;
}

const char *sampler_replay_problems(struct sampler_replay *r)
{
	const char *p = recreader_take_problems(r->rd, NULL);

	return p;
}
