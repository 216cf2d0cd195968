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
#include "kname.h"
#include "workload.h"
#include "rec_file.h"
#include "rec_payload.h"
#include "sampler.h"
#include "encode_trace.h"
#include "rec_trace.h"
#include "trace.h"

struct sampler {
	struct snapshot_collector col;
	struct snapshot snap[2]; /* swapped each tick: no copy, storage reused */
	unsigned cur;		 /* index of the current snapshot in snap[] */
	uint64_t ticks;		 /* samples taken (successful or not) */
	int last_err;		 /* snapshot_collector_sample()'s result for the current sample */
	bool have_metrics;	 /* m is of (previous, current) */
	bool itv_from_clock;	 /* /proc/uptime unusable: interval from CLOCK_MONOTONIC */
	struct metrics m;
	struct strbuf json; /* the current sample's document, no newline */
	char *host;
	char *mode;
	bool all_disks;
	bool advise;
	bool steady;
	bool topo_given;
	bool have_topo;	 /* topo holds a topology read at topo_ns */
	int64_t topo_ns; /* CLOCK_MONOTONIC of the snapshot it was read with */
	struct topology topo;
	struct topo_hint topo_hint; /* irqbalance between topology reads */
	struct advice adv;	    /* of the current sample when advise_ok, steadied by hold */
	struct advise_hold hold;    /* findings rise and clear with hysteresis */
	bool advise_ok;
	/* the CPU budget: the optional sources' cadence (enum cad_src) */
	double budget_pct;
	long interval_ms;
	unsigned wanted; /* 1u << CAD_*: a client looks at it (sampler_want) */
	unsigned pinned; /* read every sample now: wanted, or a finding needs it */
	unsigned busy;	 /* of pinned: a disk or the CPUs are busy (sampler.c busy_needs) */
	struct sampler_cad cad[CAD__COUNT];
	int64_t base_cpu_ns; /* of a sample without the optional reads (moving average) */
	int64_t tick_cpu_ns; /* of the last sample, everything included */
	/* the current sample is a recording's: the cadence and the topology
	 * are the recording's */
	bool recorded;
	/* replay with a topology read at replay time (sampler_replay_advise):
	 * kept for the samples that recorded none */
	bool topo_fallback;
	/* the frame being replayed is of format 3 or later: its topology is
	 * the one recorded with it or none (a daemon that had not read it
	 * yet), never the fallback */
	bool topo_recorded;
	struct strbuf rec_topo; /* the topology record last put, to skip an unchanged one */
	struct rec_payload_memo rec_memo; /* sampler_pack's records of unchanged parts */
	/* --trace: the stage (NULL when off or unavailable: trace_why says
	 * why), its reads beside snap[], the metrics of the last two */
	bool trace_wanted;
	struct trace *trace;
	char trace_why[IOT_REASON_MAX];
	struct trace_raw traw[2];
	struct trace_metrics tm;
	bool have_tm; /* tm is this sample's interval (the advice used it) */
	bool tm_ok;
	struct strbuf rec_trace; /* sampler_pack's trace record */
	/* a replayed frame's trace record: whether it had one, and whether
	 * it says tracing was unavailable (why) */
	bool rec_has_trace;
	bool rec_trace_off;
	char rec_trace_why[IOT_REASON_MAX];
	/* replayed trace rows left out as impossible, summed over the frames
	 * (trace.rows_dropped; replay says it once) */
	uint64_t rec_trace_dropped;
	/* applies and undos through the daemon: noted until the next sample
	 * (ev_pending), then that sample's (ev), recorded with it */
	struct encode_event ev_pending[ENCODE_EVENTS_MAX], ev[ENCODE_EVENTS_MAX];
	size_t nev_pending, nev;
};

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
	s->steady = o && o->steady;
	s->topo_given = o && o->topo_given;
	s->col.skip = o ? o->skip : 0;
	s->budget_pct = o ? o->cpu_budget_pct : 0;
	s->interval_ms = o && o->interval_ms > 0 ? o->interval_ms : 1000;
	for (int k = 0; k < CAD__COUNT; k++)
		s->cad[k].every = 1;
	if (o && o->trace) {
		struct trace_opts to = { .btf_path = o->trace_btf,
					 .budget_pct = o->trace_budget_pct };

		s->trace_wanted = true;
		/* the live kernel's tracepoints beside a recorded tree's counters
		 * would mix two hosts */
		if (o->root && *o->root && strcmp(o->root, "/"))
			snprintf(s->trace_why, sizeof(s->trace_why),
				 "--root %s: a tree has no tracepoints", o->root);
		else
			r = trace_open(&to, &s->trace, s->trace_why, sizeof(s->trace_why));
		if (r == -ENOMEM) {
			sampler_close(s);
			return r;
		}
	}
	*ret_s = s;
	return 0;
}

const char *sampler_trace_unavailable(const struct sampler *s)
{
	return s->trace_wanted && !s->trace ? s->trace_why : NULL;
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	trace_close(s->trace);
	trace_raw_free(&s->traw[0]);
	trace_raw_free(&s->traw[1]);
	metrics_trace_free(&s->tm);
	snapshot_collector_close(&s->col);
	snapshot_free(&s->snap[0]);
	snapshot_free(&s->snap[1]);
	metrics_free(&s->m);
	advice_free(&s->adv);
	advise_hold_free(&s->hold);
	if (s->have_topo)
		topology_free(&s->topo);
	sb_free(&s->json);
	sb_free(&s->rec_topo);
	sb_free(&s->rec_trace);
	rec_payload_memo_free(&s->rec_memo);
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
	if (!s->topo_given &&
	    (!s->have_topo || cur->mono_ns - s->topo_ns >= sampler_topo_period_ns(s) ||
	     cur->mono_ns < s->topo_ns)) {
		if (s->have_topo)
			topology_free(&s->topo);
		s->have_topo = topology_collect_hint(&s->col.root, &s->topo_hint, &s->topo) >= 0;
		s->topo_ns = cur->mono_ns;
		s->rec_memo.topo_ok = false;
	}
	if (s->have_topo) {
		struct advise_input in = {
			.cur = cur, .m = &s->m, .trace = s->have_tm ? &s->tm : NULL, .t = &s->topo
		};

		s->advise_ok = advise_run(&in, &s->adv) >= 0;
	} else {
		s->advise_ok = false;
	}
	/* one judgement for every reader of the document: steadied here */
	if (s->advise_ok && s->steady && advise_hold_step(&s->hold, &s->adv) < 0) {
		advice_free(&s->adv);
		s->advise_ok = false;
	}
}

int64_t sampler_topo_period_ns(const struct sampler *s)
{
	/* reading it itself, the sampler is a live view's: the IRQ lines'
	 * affinities it shows are the topology's */
	if (!s->topo_given)
		return SAMPLER_TOPO_NS;
	return s->advise_ok && s->adv.nfindings ? SAMPLER_TOPO_NS : SAMPLER_TOPO_IDLE_NS;
}

void sampler_topology_stale(struct sampler *s)
{
	if (s->have_topo)
		topology_free(&s->topo);
	s->have_topo = false;
	s->rec_memo.topo_ok = false;
}

void sampler_put_topology(struct sampler *s, struct topology *t)
{
	if (s->have_topo)
		topology_free(&s->topo);
	s->topo = *t;
	memset(t, 0, sizeof(*t));
	s->have_topo = true;
	s->rec_memo.topo_ok = false;
}

const struct topology *sampler_topology(const struct sampler *s)
{
	return s->have_topo ? &s->topo : NULL;
}

void sampler_set_steady(struct sampler *s, bool steady)
{
	s->steady = steady;
}

void sampler_set_topo_recorded(struct sampler *s, bool topo_recorded)
{
	s->topo_recorded = topo_recorded;
}

uint64_t sampler_trace_rows_dropped(const struct sampler *s)
{
	return s->rec_trace_dropped;
}

const struct advice *sampler_advice(const struct sampler *s)
{
	return s->advise_ok ? &s->adv : NULL;
}

void sampler_want(struct sampler *s, unsigned cad_mask)
{
	s->wanted = cad_mask;
}

const char *sampler_cad_name(enum cad_src k)
{
	return encode_cadence_name(k);
}

static uint32_t clamp_every(int64_t n)
{
	if (n < 1)
		return 1;
	return n > SAMPLER_EVERY_MAX ? SAMPLER_EVERY_MAX : (uint32_t)n;
}

void sampler_cadence(const int64_t cost_ns[CAD__COUNT], unsigned pinned, int64_t base_ns,
		     int64_t budget_ns, uint32_t ret_every[CAD__COUNT])
{
	int64_t left = budget_ns - base_ns, share;
	bool done[CAD__COUNT] = { false };
	unsigned unset = 0; /* sources whose cadence is still to be set */

	if (base_ns > 0 && base_ns / SAMPLER_OPT_SHARE < left)
		left = base_ns / SAMPLER_OPT_SHARE;
	for (int k = 0; k < CAD__COUNT; k++) {
		ret_every[k] = 1;
		done[k] = (pinned & (1u << k)) || cost_ns[k] <= 0 || budget_ns <= 0;
		unset += !done[k];
	}
	/* cheapest first: what a cheap source leaves of its share goes to the
	 * dearer ones */
	for (; unset; unset--) {
		int c = -1;

		for (int k = 0; k < CAD__COUNT; k++)
			if (!done[k] && (c < 0 || cost_ns[k] < cost_ns[c]))
				c = k;
		done[c] = true;
		if (left <= 0) {
			ret_every[c] = SAMPLER_EVERY_MAX;
			continue;
		}
		share = left / unset;
		ret_every[c] =
		    clamp_every(share > 0 ? (cost_ns[c] + share - 1) / share : SAMPLER_EVERY_MAX);
		left -= cost_ns[c] / ret_every[c];
	}
}

/* The findings that need a source fresh: while one stands, every sample
 * reads it (the advice is only as good as its rows). */
static unsigned finding_needs(const struct sampler *s)
{
	unsigned need = 0;

	for (size_t i = 0; s->advise_ok && i < s->adv.nfindings; i++) {
		enum finding_kind k = s->adv.findings[i].kind;

		if (k == FIND_DISK_SATURATED || k == FIND_DISK_SLOW || k == FIND_MEMBER_IMBALANCE ||
		    k == FIND_CPU_SATURATED || k == FIND_STEAL || k == FIND_IOWAIT)
			/* who does the IO, who takes the CPUs, and who waits for
			 * them (the cgroups' pressure: the victims) */
			need |= 1u << CAD_PROCS | 1u << CAD_CGROUPS | 1u << CAD_PRESSURE;
		if (k == FIND_HOT_CPU)
			need |= 1u << CAD_NICS; /* the NIC queues behind the IRQs */
	}
	return need;
}

/* Load at which the processes are read every sample even before a finding
 * rises (issue 22: a 156 MB/s writer must not be 30 s old): a disk this busy
 * is where a finding comes from, and its culprit must be fresh when it does */
#define BUSY_DISK_UTIL 50.0
#define BUSY_CPU_PCT   90.0
/* ... while a scan costs at most this many times the whole budget: on a
 * host whose scan costs more the cadence stands (doc/PERFORMANCE.md) */
#define BUSY_BUDGET_X 4

/* The sources the current sample's load asks for every sample. */
static unsigned busy_needs(const struct sampler *s, int64_t budget_ns)
{
	const struct metrics *m = &s->m;

	if (!s->have_metrics || s->cad[CAD_PROCS].cost_ns > BUSY_BUDGET_X * budget_ns)
		return 0;
	if (m->cpu_valid && m->all.valid && 100.0 - m->all.idle - m->all.iowait >= BUSY_CPU_PCT)
		return 1u << CAD_PROCS;
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].valid && m->disks[i].util >= BUSY_DISK_UTIL &&
		    !kname_virtual_disk(m->disks[i].name))
			return 1u << CAD_PROCS;
	return 0;
}

/* Why the next sample reads source k, NULL when it need not. */
static const char *read_reason(const struct sampler *s, enum cad_src k)
{
	if (s->budget_pct <= 0)
		return "always";
	if (s->ticks < 2)
		return "start"; /* the first rates need two reads */
	if (s->wanted & (1u << k))
		return "client";
	if (s->pinned & ~s->busy & (1u << k))
		return "finding";
	if (s->busy & (1u << k))
		return "busy";
	if (s->cad[k].age + 1 >= s->cad[k].every)
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

/* The same for every skipped source: the last read's rows move to cur with
 * their read's time and cost (swapped, so no allocation). */
static void carry(struct snapshot *cur, struct snapshot *prev)
{
	struct workload_raw *cw = cur->workload, *pw = prev->workload;

	for (int k = 0; k < CAD__COUNT; k++) {
		struct src_cadence *c = &cur->cadence[k];

		if (!c->carried)
			continue;
		c->read_uptime_cs = prev->cadence[k].read_uptime_cs;
		c->cpu_ns = prev->cadence[k].cpu_ns;
		if (k == CAD_TURBO) {
			struct turbo_raw *t = cur->turbo;

			cur->turbo = prev->turbo;
			prev->turbo = t;
		} else if (!cw || !pw) {
			continue;
		} else if (k == CAD_PROCS) {
			carry_procs(cur, prev);
		} else if (k == CAD_NICS) {
			struct nic_table t = cw->nics;

			cw->nics = pw->nics;
			pw->nics = t;
		} else if (k == CAD_CGROUPS) {
			struct cgroup_table t = cw->cgroups;

			cw->cgroups = pw->cgroups;
			pw->cgroups = t;
		} else if (k == CAD_PRESSURE) {
			cw->pressure = pw->pressure;
		}
	}
}

/* After the sample's metrics: the costs, the next cadence, and what the
 * document says of them. */
static void cost_account(struct sampler *s, struct snapshot *cur, int64_t spent_ns)
{
	struct proc_table *t = cur->workload ? &cur->workload->procs : NULL;
	int64_t base = spent_ns, budget, cost[CAD__COUNT];
	uint32_t every[CAD__COUNT], unpinned[CAD__COUNT];

	for (int k = 0; k < CAD__COUNT; k++) {
		struct sampler_cad *c = &s->cad[k];
		struct src_cadence *d = &cur->cadence[k];

		if (c->why && !d->carried) {
			base -= (int64_t)d->cpu_ns;
			/* the first read probes (turbostat opens its counters):
			 * not what a read costs */
			if (s->ticks > 1)
				c->cost_ns = (int64_t)d->cpu_ns;
			c->age = 0;
		} else {
			c->age++;
		}
		cost[k] = c->cost_ns;
	}
	if (base < 0)
		base = 0;
	s->tick_cpu_ns = spent_ns;
	if (s->recorded)
		return; /* the cadence is the recording's (none before version 3) */
	/* a moving average: one slow sample (a page fault storm) must not
	 * stretch the cadence for minutes */
	s->base_cpu_ns = s->base_cpu_ns ? (7 * s->base_cpu_ns + base) / 8 : base;
	budget = (int64_t)(s->budget_pct / 100.0 * (double)s->interval_ms * 1e6);
	if (s->budget_pct <= 0)
		budget = 0;
	s->busy = budget ? busy_needs(s, budget) & ~(s->wanted | finding_needs(s)) : 0;
	s->pinned = s->wanted | finding_needs(s) | s->busy;
	/* a pinned source is read every sample anyway and says the cadence it
	 * will have once unpinned; the others share what it leaves */
	sampler_cadence(cost, 0, s->base_cpu_ns, budget, unpinned);
	sampler_cadence(cost, s->pinned, s->base_cpu_ns, budget, every);
	for (int k = 0; k < CAD__COUNT; k++)
		if (s->pinned & (1u << k))
			every[k] = unpinned[k];
	for (int k = 0; k < CAD__COUNT; k++) {
		struct src_cadence *d = &cur->cadence[k];

		s->cad[k].every = every[k];
		d->every = every[k];
		d->age = s->cad[k].age;
		snprintf(d->why, sizeof(d->why), "%s", s->cad[k].why ? s->cad[k].why : "");
	}
	if (!t)
		return;
	t->scan_every = s->cad[CAD_PROCS].every;
	t->scan_age = s->cad[CAD_PROCS].age;
	snprintf(t->scan_why, sizeof(t->scan_why), "%s",
		 s->cad[CAD_PROCS].why ? s->cad[CAD_PROCS].why : "");
}

/*
 * --trace: the metrics of the two last reads of the maps, and the "trace"
 * section in the document just encoded (its closing brace reopened: the
 * section is the document's last, beside the others, not inside them).
 */
static void tick_trace(struct sampler *s, unsigned next)
{
	const struct trace_metrics *m = s->have_tm ? &s->tm : NULL;
	/* a replayed sample: what its frame recorded (sampler_tick_recorded) */
	bool want = s->recorded ? s->rec_has_trace : s->trace_wanted;
	const char *why = s->recorded ? (s->rec_trace_off ? s->rec_trace_why : NULL)
				      : (s->trace ? NULL : s->trace_why);

	if (!want || s->json.err || !s->json.len || s->json.buf[s->json.len - 1] != '}')
		return;
	s->json.len--;
	sb_putc(&s->json, ',');
	encode_trace(&s->json, why, &s->traw[next], m);
	if (s->json.len && s->json.buf[s->json.len - 1] == ',')
		s->json.len--;
	sb_putc(&s->json, '}');
}

/*
 * The topology whose IRQ affinities the document shows: the one the advice
 * is made on, read under the root (live), or recorded with the sample (a
 * recording's, format 3 or later); never one read at replay time for a
 * recording that has none. NULL: the document shows none.
 */
static const struct topology *shown_topology(const struct sampler *s)
{
	if (!s->have_topo || (s->recorded && !s->topo_recorded))
		return NULL;
	return &s->topo;
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
	/* the trace's interval first: the advice judges by its measured time */
	s->have_tm =
	    (s->recorded ? s->rec_has_trace && !s->rec_trace_off : s->trace != NULL) &&
	    s->ticks > 1 &&
	    metrics_trace_compute(&s->traw[next ^ 1], &s->traw[next], &cur->disks, &s->tm) >= 0;
	if (s->recorded && s->rec_has_trace && !s->rec_trace_off)
		s->rec_trace_dropped +=
		    s->have_tm ? s->tm.rows_dropped : s->traw[next].rows_dropped;
	tick_advise(s, cur);
	cost_account(s, cur, snapshot_thread_cpu_ns() - t0);
	if (s->advise_ok)
		eo.advice = &s->adv;
	eo.irq_topo = shown_topology(s);
	eo.events = s->ev;
	eo.nevents = s->nev;
	sb_reset(&s->json);
	encode_sample(&s->json, cur, s->have_metrics ? &s->m : NULL, &eo);
	tick_trace(s, next);
	return s->json.err;
}

int sampler_tick(struct sampler *s)
{
	unsigned next = s->ticks ? s->cur ^ 1 : 0;
	int64_t t0 = snapshot_thread_cpu_ns();

	s->recorded = false;
	s->col.noread = 0;
	for (int k = 0; k < CAD__COUNT; k++) {
		s->cad[k].why = read_reason(s, (enum cad_src)k);
		if (!s->cad[k].why)
			s->col.noread |= 1u << k;
	}
	s->last_err = snapshot_collector_sample(&s->col, &s->snap[next]);
	memcpy(s->ev, s->ev_pending, s->nev_pending * sizeof(s->ev[0]));
	s->nev = s->nev_pending;
	s->nev_pending = 0;
	if (s->trace && trace_read(s->trace, &s->traw[next]) == -ENOMEM)
		s->traw[next].valid = false;
	if (s->ticks)
		carry(&s->snap[next], &s->snap[next ^ 1]);
	return tick_finish(s, next, t0);
}

/* --trace: the trace record of the current sample (tag 17, format 6): the
 * read of the maps, or why tracing is unavailable. */
static void pack_trace(struct sampler *s, struct strbuf *o)
{
	size_t at;

	if (!s->trace) {
		rec_payload_put(o, REC_TAG_TRACE, -ENODEV, s->trace_why, strlen(s->trace_why));
		return;
	}
	at = rec_payload_begin(o, REC_TAG_TRACE);
	rec_trace_pack(&s->traw[s->cur], o); /* fails only with o->err, the caller's */
	rec_payload_end(o, at);
}

/* A text field of an event line: no tab, no line break, cut to size. */
static void ev_field(char *dst, size_t size, const char *p, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < size; i++)
		dst[k++] = p[i] == '\t' || p[i] == '\n' || p[i] == '\r' ? ' ' : p[i];
	dst[k] = '\0';
}

/* The sample's events as REC_TAG_EVENTS: one "KIND\tID\tBY" line each. */
static void pack_events(const struct sampler *s, struct strbuf *o)
{
	size_t at;

	if (!s->nev)
		return;
	at = rec_payload_begin(o, REC_TAG_EVENTS);
	for (size_t i = 0; i < s->nev; i++) {
		char id[sizeof(s->ev[i].id)], by[sizeof(s->ev[i].by)];

		ev_field(id, sizeof(id), s->ev[i].id, strlen(s->ev[i].id));
		ev_field(by, sizeof(by), s->ev[i].by, strlen(s->ev[i].by));
		sb_printf(o, "%s\t%s\t%s\n", s->ev[i].kind, id, by);
	}
	rec_payload_end(o, at);
}

/* A replayed frame's events: lines of a known kind, at most
 * ENCODE_EVENTS_MAX, the rest (a hostile or later recording's) dropped. */
static void unpack_events(struct sampler *s, const void *payload, size_t len)
{
	const char *p, *end;
	size_t n;
	int32_t err;

	s->nev = 0;
	if (rec_payload_find(payload, len, REC_TAG_EVENTS, &p, &n, &err) <= 0 || err < 0)
		return;
	for (end = p + n; p < end && s->nev < ENCODE_EVENTS_MAX;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		const char *t1 = memchr(p, '\t', (size_t)(line_end - p));
		const char *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(line_end - t1 - 1)) : NULL;
		struct encode_event *e = &s->ev[s->nev];

		if (t1 && t2 &&
		    (((size_t)(t1 - p) == 5 && memcmp(p, "apply", 5) == 0) ||
		     ((size_t)(t1 - p) == 4 && memcmp(p, "undo", 4) == 0))) {
			ev_field(e->kind, sizeof(e->kind), p, (size_t)(t1 - p));
			ev_field(e->id, sizeof(e->id), t1 + 1, (size_t)(t2 - t1 - 1));
			ev_field(e->by, sizeof(e->by), t2 + 1, (size_t)(line_end - t2 - 1));
			s->nev++;
		}
		p = nl ? nl + 1 : end;
	}
}

int sampler_pack(struct sampler *s, struct strbuf *out)
{
	const struct snapshot *cur = sampler_current(s);

	if (!cur)
		return 0;
	sb_reset(&s->rec_trace);
	if (s->trace_wanted && !s->recorded) {
		pack_trace(s, &s->rec_trace);
		if (s->rec_trace.err) {
			out->err = s->rec_trace.err;
			return out->err;
		}
	}
	if (snapshot_collector_pack(&s->col, cur, s->advise && s->have_topo ? &s->topo : NULL,
				    &s->rec_memo, &s->rec_trace, out) < 0)
		return out->err ? out->err : -ENOMEM;
	pack_events(s, out);
	return out->err;
}

void sampler_note_event(struct sampler *s, const char *kind, const char *id, const char *by)
{
	struct encode_event *e;

	if (s->nev_pending >= ENCODE_EVENTS_MAX)
		return;
	e = &s->ev_pending[s->nev_pending++];
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->id, sizeof(e->id), "%s", id ? id : "");
	snprintf(e->by, sizeof(e->by), "%s", by ? by : "");
}

/*
 * A replayed frame's trace record into traw[next]: none (a recording
 * before format 6, a daemon without --trace), the reason tracing was
 * unavailable, or the read of the maps; a malformed one is unavailable,
 * "not in the recording". Returns 0 or -ENOMEM.
 */
static int unpack_trace(struct sampler *s, unsigned next, const void *payload, size_t len)
{
	const char *p;
	size_t n;
	int32_t err;
	int r;

	s->traw[next].valid = false; /* never paired with an older frame's read */
	s->rec_trace_off = false;
	s->rec_has_trace = rec_payload_find(payload, len, REC_TAG_TRACE, &p, &n, &err) > 0;
	if (!s->rec_has_trace)
		return 0;
	if (err < 0) {
		s->rec_trace_off = true;
		snprintf(s->rec_trace_why, sizeof(s->rec_trace_why), "%.*s",
			 (int)(n < IOT_REASON_MAX ? n : IOT_REASON_MAX), p);
		return 0;
	}
	r = rec_trace_unpack(p, n, &s->traw[next]);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		s->rec_trace_off = true;
		snprintf(s->rec_trace_why, sizeof(s->rec_trace_why), "not in the recording");
	}
	return 0;
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

	r = rec_payload_find(payload, len, REC_TAG_TOPOLOGY, &p, &n, &err);
	if (r <= 0 || err < 0) {
		/* a recording older than its topology: the one read at replay
		 * time, as before (a newer segment's recorded one stays put) */
		if (s->topo_fallback && !s->topo_recorded && r == 0)
			return 0;
		sampler_topology_stale(s);
		sb_reset(&s->rec_topo);
		return r;
	}
	if (s->have_topo && s->rec_topo.len == n && memcmp(s->rec_topo.buf, p, n) == 0)
		return 0;
	sb_reset(&s->rec_topo);
	r = rec_payload_unpack_topology(p, n, &t);
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

	for (int k = 0; k < CAD__COUNT; k++)
		s->cad[k].why = NULL; /* a recording has no optional sources to read */
	s->recorded = true;
	s->last_err = snapshot_collector_unpack(&s->col, payload, len, cur);
	if (s->last_err == -EBADMSG || s->last_err == -ENOMEM)
		return s->last_err;
	r = s->advise ? put_recorded_topology(s, payload, len) : 0;
	if (r < 0)
		return r;
	r = unpack_trace(s, next, payload, len);
	if (r < 0)
		return r;
	unpack_events(s, payload, len);
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
	/* the advice shown refers to the hold's actions: released first */
	advice_free(&s->adv);
	s->advise_ok = false;
	advise_hold_free(&s->hold); /* a new run judges afresh, as its daemon did */
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

const struct trace_raw *sampler_trace_raw(const struct sampler *s)
{
	return s->trace && s->ticks && !s->recorded && s->traw[s->cur].valid ? &s->traw[s->cur]
									     : NULL;
}

const struct trace_metrics *sampler_trace_metrics(const struct sampler *s)
{
	return s->have_tm ? &s->tm : NULL;
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
	int64_t step_ns;   /* sampler_replay_step(): 0 every sample */
};

/* Half the recording's interval (at most half the step): a frame within it
 * of an interval's wanted end is the end, so 10 s at 1 Hz is 10 frames, not
 * 11 when the clock jittered a millisecond. */
static int64_t replay_slack_ns(const struct sampler_replay *r)
{
	int64_t half = (int64_t)(r->f.interval_ms ? r->f.interval_ms : 1000) * 500000;

	return half < r->step_ns / 2 ? half : r->step_ns / 2;
}

/* The replay of dirfd (>= 0, shown as path) or of path. */
static int replay_open(int dirfd, const char *path, struct sampler_replay **ret_r, char *why,
		       size_t why_size)
{
	/* no advice until sampler_replay_advise() (replay --core-only) */
	struct sampler_opts so = { .skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT };
	struct sampler_replay *r;
	int e;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->target_ns = INT64_MIN;
	e = dirfd >= 0 ? recreader_open_dir(dirfd, path, &r->rd, why, why_size)
		       : recreader_open(path, &r->rd, why, why_size);
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

int sampler_replay_open(const char *path, struct sampler_replay **ret_r, char *why, size_t why_size)
{
	return replay_open(-1, path, ret_r, why, why_size);
}

int sampler_replay_open_dir(int dirfd, const char *shown, struct sampler_replay **ret_r, char *why,
			    size_t why_size)
{
	return replay_open(dirfd, shown, ret_r, why, why_size);
}

void sampler_replay_close(struct sampler_replay *r)
{
	if (!r)
		return;
	recreader_close(r->rd);
	sampler_close(r->s);
	free(r);
}

/* The replay's sampler again, advising (on topologies it is given). */
static int replay_advising(struct sampler_replay *r, const char *root, struct sampler **ret_s)
{
	struct sampler_opts so = { .root = root,
				   .skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT,
				   .advise = true,
				   .steady = true,
				   .topo_given = true };

	return sampler_open(&so, ret_s);
}

int sampler_replay_advise(struct sampler_replay *r, const char *root)
{
	struct topology t = { 0 };
	struct sampler *s;
	int e;

	e = replay_advising(r, root, &s);
	if (e < 0)
		return e;
	/* once: it is today's topology whatever the recorded time, so reading
	 * it again every 10 s of a week's recording would only cost */
	e = topology_collect(&s->col.root, &t);
	if (e < 0) {
		sampler_close(s);
		return e;
	}
	sampler_put_topology(s, &t);
	s->topo_fallback = true;
	sampler_close(r->s);
	r->s = s;
	return 0;
}

int sampler_replay_advise_recorded(struct sampler_replay *r)
{
	struct sampler *s;
	int e;

	e = replay_advising(r, NULL, &s);
	if (e < 0)
		return e;
	sampler_close(r->s);
	r->s = s;
	return 0;
}

void sampler_replay_step(struct sampler_replay *r, int64_t step_ns)
{
	r->step_ns = step_ns > 0 ? step_ns : 0;
}

int sampler_replay_seek(struct sampler_replay *r, int64_t real_ns, bool before)
{
	int64_t t = real_ns, base;
	int e;

	if (!r->step_ns) {
		e = recreader_seek(r->rd, real_ns,
				   RECREADER_WITH_PREV | (before ? RECREADER_BEFORE : 0), &t);
		r->target_ns = t;
		if (e <= 0)
			return e;
		/* the findings' hysteresis (advise_hold): the samples that decide
		 * the target's findings are sampled too, not shown, so a replayed
		 * instant shows what the live view showed then */
		if (!r->f.interval_ms) {
			e = recreader_next(r->rd, &r->f);
			if (e <= 0)
				return e < 0 ? e : 1;
		}
		base =
		    t -
		    (int64_t)(ADV_RISE_SAMPLES + ADV_CLEAR_SAMPLES) * r->f.interval_ms * 1000000 -
		    replay_slack_ns(r);
		e = recreader_seek(r->rd, base, RECREADER_BEFORE, NULL);
		if (e == 0)
			e = recreader_seek(r->rd, base, 0, NULL);
		return e < 0 ? e : 1;
	}
	/* a wider interval: the target, then its start, the last frame a step
	 * before it (the recording's first when there is none); the frames in
	 * between are decoded but not sampled, so the target's metrics are of
	 * the whole step (counters are cumulative) */
	e = recreader_seek(r->rd, real_ns, before ? RECREADER_BEFORE : 0, &t);
	r->target_ns = t;
	if (e <= 0)
		return e;
	if (!r->f.interval_ms) {
		e = recreader_next(r->rd, &r->f); /* the target's segment's interval */
		if (e <= 0)
			return e < 0 ? e : 1;
	}
	base = t - r->step_ns + replay_slack_ns(r);
	e = recreader_seek(r->rd, base, RECREADER_BEFORE, NULL);
	if (e == 0)
		e = recreader_seek(r->rd, base, 0, NULL);
	return e < 0 ? e : 1;
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
		} else if (r->step_ns && r->f.real_ns < r->target_ns)
			continue; /* inside the step: only the interval's ends are sampled */
		/* a --step document is one wide interval judged on its own; the
		 * recording's own samples are steadied as the live view was */
		r->s->steady = r->s->advise && !r->step_ns;
		r->s->topo_recorded = r->f.version >= 3;
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
		if (r->step_ns) /* the next document: a step on */
			r->target_ns = r->f.real_ns + r->step_ns - replay_slack_ns(r);
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

const struct root *sampler_root(const struct sampler *s)
{
	return &s->col.root;
}

void sampler_set_topo_given(struct sampler *s, bool given)
{
	s->topo_given = given;
}

bool sampler_interval_from_clock(const struct sampler *s)
{
	return s->itv_from_clock;
}

void sampler_cost(const struct sampler *s, struct sampler_cost *ret)
{
	ret->tick_cpu_ns = s->tick_cpu_ns;
	ret->base_cpu_ns = s->base_cpu_ns;
	ret->pinned = s->pinned;
	ret->cad = s->cad;
}
