// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source: the TUI's samples, from iotriaged (protocol.h: hello, status,
 * history, worker.status, subscribe; reconnecting by itself) or from the
 * embedded sampler on the loop's clock. Either way the bytes are a
 * doc/json.md sample handed to the model's one decoder; the daemon's worker
 * events go to model_worker.c. Never draws; never blocks: the socket is
 * non-blocking and the loop polls it.
 */
#include <errno.h>
#include <json-c/json.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "cpuset.h"
#include "client.h"
#include "cmd_suggest.h"
#include "grow.h"
#include "iotriage/protocol.h"
#include "model_findings.h"
#include "irqaff.h"
#include "model_worker.h"
#include "rec_file.h"
#include "root.h"
#include "trace.h"
#include "sampler.h"
#include "source.h"
#include "strbuf.h"
#include "ui.h"

#define RECONNECT_NS	 1000000000LL /* retry a lost daemon every second */
#define HISTORY_SECONDS	 600	      /* as much as the sparkline keeps at 1 Hz */
#define AFFINITY_MAX_IRQ 256	      /* /proc/irq reads per sample, busiest first */
/* The past the live view's time keys move over: the samples received (or
 * sampled) last, at most this many and this many bytes (the daemon's 600 s
 * at 1 Hz are ~600 x 11 KB of documents; embedded keeps each tick's packed
 * snapshot beside its document) */
#define PAST_MAX       4000
#define PAST_BYTES_MAX (48u << 20)

/* Embedded intervals and daemon decimations that +/- step through. */
static const long itv_steps_ms[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000 };
static const unsigned every_steps[] = { 1, 2, 5, 10, 30, 60 };

struct source {
	enum source_kind kind;
	bool auto_mode; /* no --socket: fall back to embedded if the daemon refuses us */
	char state[256];
	char host[256];

	/* embedded */
	struct sampler *sampler;
	bool trace;		 /* --trace */
	double trace_budget_pct; /* --trace-budget; < 0 the default */
	long interval_ms;
	int64_t next_tick_ns;

	/* daemon */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;
	bool hello_ok;	     /* this connection's hello was accepted */
	bool ever_connected; /* some hello was accepted: stay a daemon client */
	long daemon_itv_ms;
	unsigned every;
	unsigned want; /* 1u << CAD_*: the views open ask the daemon to read these every sample */
	int64_t next_connect_ns;
	bool history_pending;	  /* the history reply may be IOT_PROTO_MAX_HISTORY_REPLY */
	int64_t rx_ns;		  /* connected, or the last whole line received */
	char why[CLIENT_WHY_MAX]; /* why the last connect was refused */
	char *rbuf;
	size_t rlen, rcap;
	size_t rscan; /* rbuf[0, rscan) holds no newline: a long line is scanned once */
	char *wbuf;
	size_t wlen, wcap;
	struct json_tokener *tok;

	/* replay */
	struct sampler_replay *rp;
	int rp_steps; /* pending: samples forward (> 0) or back (< 0) */
	bool rp_jump; /* pending: to rp_target first */
	int64_t rp_target;
	int64_t rp_cur;	  /* real ns of the sample shown, 0 none */
	uint64_t rp_id;	  /* its sample id */
	int64_t rp_first; /* the recording's span */
	int64_t rp_last;
	uint32_t rp_itv_ms;
	int64_t rp_step_ns; /* each interval this long (i), 0 one sample */

	/* the past (live only): the samples kept here, oldest first; the
	 * tables show the one at past_ns while past is set */
	struct past_entry *pe;
	size_t pn, pcap, pbytes;
	bool past;
	int64_t past_ns;
	int64_t past_base_ns;		/* the start of its interval shown, 0: the sample's own */
	int64_t past_step_ns;		/* i: each interval this long, 0 one sample */
	bool past_fetch;		/* a history request reaching into the recording is out */
	int64_t past_want;		/* the time it is for */
	struct sampler *past_s;		/* embedded: wider intervals from the packed snapshots */
	struct sampler_replay *past_rp; /* daemon: wider intervals from its recording */
	char rec_dir[4096];		/* the daemon's --record (status), "" none */
	struct strbuf pack;
	char past_note[160];

	/* /proc/irq/N affinities: --root, or the daemon's root (status) */
	bool root_given;
	bool have_root;
	struct root root;
};

static void set_state(struct source *src, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_state(struct source *src, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(src->state, sizeof(src->state), fmt, ap);
	va_end(ap);
}

/* ---- IRQ affinities ---- */

static int cmp_rate_desc(const void *a, const void *b)
{
	const struct model_irq *x = *(const struct model_irq *const *)a;
	const struct model_irq *y = *(const struct model_irq *const *)b;

	return (x->total_s < y->total_s) - (x->total_s > y->total_s);
}

static void refresh_affinity(struct source *src, struct model *m)
{
	const struct root *r = src->sampler	? &src->sampler->col.root
			       : src->have_root ? &src->root
						: NULL;
	struct model_irq *busy[AFFINITY_MAX_IRQ];
	size_t n = 0;

	if (!r)
		return;
	/* only the lines that fired: on a big host most of /proc/irq is idle */
	for (size_t i = 0; i < m->nirqs; i++) {
		struct model_irq *q = &m->irqs[i];

		if (!q->numeric || !q->valid || q->total_s <= 0)
			continue;
		if (n < AFFINITY_MAX_IRQ) {
			busy[n++] = q;
		} else {
			if (n > 1)
				qsort(busy, n, sizeof(busy[0]), cmp_rate_desc);
			if (q->total_s > busy[n - 1]->total_s)
				busy[n - 1] = q;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct model_irq *q = busy[i];
		struct irqaff a;

		if (irqaff_read(r, q->irq, &a) < 0) {
			q->has_smp = q->has_eff = false;
			continue;
		}
		q->has_smp = a.has_smp;
		q->has_eff = a.has_eff;
		snprintf(q->smp_list, sizeof(q->smp_list), "%s", a.smp_list);
		snprintf(q->eff_list, sizeof(q->eff_list), "%s", a.eff_list);
	}
}

/* ---- replay ---- */

/*
 * A replayed sample's IRQ affinities as recorded with it (the topology
 * record, format version 3: the one its findings were made on), never read
 * from this host's /proc/irq; a line the topology does not list has none.
 */
static void replay_affinity(struct source *src, struct model *m)
{
	const struct sampler *s = sampler_replay_sampler(src->rp);
	const struct topology *t = s && s->have_topo ? &s->topo : NULL;

	for (size_t i = 0; i < m->nirqs; i++) {
		struct model_irq *q = &m->irqs[i];
		const struct topo_irq *ti = NULL;
		size_t lo = 0, hi = t ? t->nirqs : 0;

		q->has_smp = q->has_eff = false;
		if (!q->numeric)
			continue;
		while (lo < hi) { /* the topology's IRQs are in ascending order */
			size_t mid = lo + (hi - lo) / 2;

			if (t->irqs[mid].irq == q->irq) {
				ti = &t->irqs[mid];
				break;
			}
			if (t->irqs[mid].irq < q->irq)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!ti)
			continue;
		q->has_smp = ti->has_smp;
		snprintf(q->smp_list, sizeof(q->smp_list), "%s", ti->smp_list);
		q->has_eff = ti->has_eff && cpuset_format_list(&ti->effective, q->eff_list,
							       sizeof(q->eff_list)) >= 0;
	}
}

/* What i steps through: atop's habit of widening the interval. */
static const int64_t replay_steps_ns[] = { 0, 10 * INT64_C(1000000000), 60 * INT64_C(1000000000),
					   600 * INT64_C(1000000000) };

static int replay_start(struct source *src, const struct source_opts *o, char *err, size_t errsz)
{
	int r;

	r = sampler_replay_open(o->replay, &src->rp, err, errsz);
	if (r < 0)
		return r;
	/* findings for each interval: the advisor on the replayed samples,
	 * on the topology recorded with each (version 3), else that of --root
	 * (an older recording) or of this host */
	r = sampler_replay_advise(src->rp, o->root);
	if (r < 0) {
		snprintf(err, errsz, "--root %s: %s", o->root ? o->root : "/", strerror(-r));
		return r;
	}
	src->rp_step_ns = (int64_t)o->interval_ms * 1000000;
	sampler_replay_step(src->rp, src->rp_step_ns);
	if (sampler_replay_span(src->rp, &src->rp_first, &src->rp_last) <= 0) {
		snprintf(err, errsz, "%s: no recorded sample", o->replay);
		return -ENOENT;
	}
	src->kind = SOURCE_REPLAY;
	src->rp_jump = true;
	src->rp_target = o->replay_at == INT64_MIN ? src->rp_first : o->replay_at;
	return 0;
}

/* One move: a jump, one interval on (the reader goes on by itself), or one
 * back: the last sample a step (within half an interval) before this one.
 * 1 moved (*ret_f), 0 no sample there, -errno. */
static int replay_move(struct source *src, int how, const struct recframe **ret_f)
{
	int64_t slack = (int64_t)src->rp_itv_ms * 500000;
	int r = 1;

	if (slack > src->rp_step_ns / 2)
		slack = src->rp_step_ns / 2;
	if (how == 2)
		r = sampler_replay_seek(src->rp, src->rp_target, false);
	else if (how < 0)
		r = sampler_replay_seek(src->rp, src->rp_cur - src->rp_step_ns + slack, true);
	if (r > 0)
		r = sampler_replay_next(src->rp, ret_f);
	if (r > 0) {
		src->rp_cur = (*ret_f)->real_ns;
		src->rp_id = (*ret_f)->id;
	}
	return r;
}

static unsigned replay_dispatch(struct source *src, struct model *m)
{
	const struct recframe *f = NULL;
	const char *doc, *p;
	size_t len;
	int r = 1;

	if (!src->rp_jump && !src->rp_steps)
		return 0;
	if (src->rp_jump)
		r = replay_move(src, 2, &f);
	src->rp_jump = false;
	/* keys typed faster than drawn all count: T T is two samples back */
	for (; r > 0 && src->rp_steps; src->rp_steps += src->rp_steps > 0 ? -1 : 1)
		r = replay_move(src, src->rp_steps > 0 ? 1 : -1, &f);
	src->rp_steps = 0;
	if (r <= 0 || !f) {
		set_state(src, "%s", r < 0 ? strerror(-r) : "no sample there: the recording ends");
		/* back where we were (the reader is past the end now): the
		 * sample shown read again, so t goes on from it */
		if (src->rp_cur && sampler_replay_seek(src->rp, src->rp_cur, false) > 0)
			sampler_replay_next(src->rp, &f);
		if (!f)
			return UI_REDRAW;
	}
	src->rp_itv_ms = f->interval_ms;
	snprintf(src->host, sizeof(src->host), "%s", f->host);
	doc = sampler_json(sampler_replay_sampler(src->rp), &len);
	if (!doc || model_apply_text(m, doc, len, MODEL_HISTORY | MODEL_VIEW) < 0) {
		set_state(src, "sample %llu: cannot decode", (unsigned long long)f->id);
		return UI_REDRAW;
	}
	replay_affinity(src, m);
	p = sampler_replay_problems(src->rp);
	if (p)
		set_state(src, "skipped: %.*s", (int)strcspn(p, "\n"), p);
	else if (r > 0)
		src->state[0] = '\0';
	return UI_REDRAW;
}

unsigned source_replay_step(struct source *src, int dir)
{
	if (src->kind != SOURCE_REPLAY)
		return 0;
	src->rp_steps += dir > 0 ? 1 : -1;
	return UI_REDRAW;
}

unsigned source_replay_jump(struct source *src, int64_t real_ns)
{
	if (src->kind != SOURCE_REPLAY)
		return 0;
	src->rp_jump = true;
	src->rp_steps = 0;
	src->rp_target = real_ns;
	return UI_REDRAW;
}

unsigned source_replay_widen(struct source *src)
{
	size_t n = sizeof(replay_steps_ns) / sizeof(replay_steps_ns[0]), i;

	if (src->kind != SOURCE_REPLAY)
		return 0;
	for (i = 0; i < n && replay_steps_ns[i] != src->rp_step_ns; i++)
		;
	src->rp_step_ns = replay_steps_ns[i < n ? (i + 1) % n : 0];
	sampler_replay_step(src->rp, src->rp_step_ns);
	/* the sample shown again, its metrics and findings over the new step */
	return src->rp_cur ? source_replay_jump(src, src->rp_cur) : UI_REDRAW;
}

void source_replay_timeline(const struct source *src, char *buf, size_t size, int w)
{
	int64_t span = src->rp_last - src->rp_first;
	char when[32] = "", first[32] = "", last[32] = "";
	int bar, at, n;
	struct tm tm;
	time_t t;

	buf[0] = '\0';
	if (src->kind != SOURCE_REPLAY || size < 8)
		return;
	t = (time_t)(src->rp_cur / 1000000000);
	if (src->rp_cur && localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	t = (time_t)(src->rp_first / 1000000000);
	if (localtime_r(&t, &tm))
		strftime(first, sizeof(first), "%m-%d %H:%M", &tm);
	t = (time_t)(src->rp_last / 1000000000);
	if (localtime_r(&t, &tm))
		strftime(last, sizeof(last), "%m-%d %H:%M", &tm);
	/* " WHEN #ID  FIRST [----|----] LAST" */
	n = snprintf(buf, size, " %s #%llu  %s [", when, (unsigned long long)src->rp_id, first);
	bar = w - n - (int)strlen(last) - 3;
	if (n < 0 || (size_t)n >= size || bar < 4) {
		snprintf(buf, size, " %s #%llu", when, (unsigned long long)src->rp_id);
		return;
	}
	at = span > 0 ? (int)((double)(src->rp_cur - src->rp_first) / (double)span * (bar - 1)) : 0;
	for (int i = 0; i < bar && (size_t)n + 1 < size; i++)
		buf[n++] = i == at ? '|' : '-';
	snprintf(buf + n, size - (size_t)n, "] %s", last);
}

/* ---- the past: the live view's time keys ---- */

/* One sample kept for the time keys: its document as received (or as the
 * embedded sampler encoded it) and, embedded, its packed snapshot
 * (sampler_pack, the flight recorder's payload) for wider intervals. */
struct past_entry {
	uint64_t id;
	int64_t mono_ns, real_ns;
	char *doc;
	size_t len;
	char *payload; /* NULL: none (the daemon's samples) */
	size_t plen;
};

static void past_entry_free(struct past_entry *e)
{
	free(e->doc);
	free(e->payload);
}

/* The oldest kept go while over PAST_MAX or PAST_BYTES_MAX; the newest stays. */
static void past_trim(struct source *src)
{
	size_t drop = 0;

	while (drop + 1 < src->pn && (src->pn - drop > PAST_MAX || src->pbytes > PAST_BYTES_MAX)) {
		src->pbytes -= src->pe[drop].len + src->pe[drop].plen;
		past_entry_free(&src->pe[drop]);
		drop++;
	}
	if (drop) {
		memmove(src->pe, src->pe + drop, (src->pn - drop) * sizeof(*src->pe));
		src->pn -= drop;
	}
}

/* e with copies of doc and payload (may be NULL); 0 or -ENOMEM. */
static int past_entry_make(struct past_entry *e, const char *doc, size_t len, const void *payload,
			   size_t plen)
{
	e->doc = malloc(len + 1);
	if (!e->doc)
		return -ENOMEM;
	memcpy(e->doc, doc, len);
	e->doc[len] = '\0';
	e->len = len;
	e->payload = NULL;
	e->plen = 0;
	if (payload && plen) {
		e->payload = malloc(plen);
		if (e->payload) { /* without it, this sample's wider intervals only */
			memcpy(e->payload, payload, plen);
			e->plen = plen;
		}
	}
	return 0;
}

/* Keeps a sample newer than every one kept (a history reply after a
 * reconnect repeats what is here: those are skipped). Out of memory: not kept. */
static void past_add(struct source *src, const struct past_entry *tmpl, const char *doc, size_t len,
		     const void *payload, size_t plen)
{
	struct past_entry e = *tmpl;

	if (src->pn && e.real_ns <= src->pe[src->pn - 1].real_ns)
		return;
	if (grow((void **)&src->pe, &src->pcap, src->pn + 1, sizeof(*src->pe)) < 0 ||
	    past_entry_make(&e, doc, len, payload, plen) < 0)
		return;
	src->pe[src->pn++] = e;
	src->pbytes += e.len + e.plen;
	past_trim(src);
}

static void past_clear(struct source *src)
{
	for (size_t i = 0; i < src->pn; i++)
		past_entry_free(&src->pe[i]);
	free(src->pe);
	src->pe = NULL;
	src->pn = src->pcap = src->pbytes = 0;
}

/* The index of the last sample kept taken at or before t, -1 when none. */
static long past_at_or_before(const struct source *src, int64_t t)
{
	size_t lo = 0, hi = src->pn;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->pe[mid].real_ns <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* Half a sample's interval: a sample within it of an interval's wanted
 * start is the start (as replay's slack, sampler.c). */
static int64_t past_slack_ns(const struct source *src)
{
	long ms = src->kind == SOURCE_EMBEDDED ? src->interval_ms : src->daemon_itv_ms;

	return (int64_t)(ms > 0 ? ms : 1000) * 500000;
}

/* The document of the interval (a, b): both packed snapshots through a
 * sampler of their own, the advisor on b's recorded topology and judging
 * the interval alone, as replay --step does. NULL when it cannot be made. */
static const char *past_pair(struct source *src, const struct past_entry *a,
			     const struct past_entry *b, size_t *ret_len)
{
	if (!src->past_s) {
		struct sampler_opts so = { .skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT,
					   .host = src->host,
					   .mode = "live",
					   .advise = true,
					   .topo_given = true };

		if (sampler_open(&so, &src->past_s) < 0)
			return NULL;
	}
	src->past_s->topo_recorded = true;
	src->past_s->steady = false;
	sampler_restart(src->past_s);
	for (int k = 0; k < 2; k++) {
		const struct past_entry *e = k ? b : a;

		if (sampler_tick_recorded(src->past_s, e->id, e->mono_ns, e->real_ns, e->payload,
					  e->plen) < 0)
			return NULL;
	}
	return sampler_json(src->past_s, ret_len);
}

/* A daemon's sample at t over the wider interval: its flight recording
 * read here, as iotriage replay --step reads it (the advisor on the
 * topology recorded with it). NULL, the note set, when it cannot be. */
static const char *past_recorded(struct source *src, int64_t t, size_t *ret_len)
{
	const struct recframe *f;
	char why[512];
	int r;

	sampler_replay_close(src->past_rp); /* a new look: it has grown since */
	src->past_rp = NULL;
	r = sampler_replay_open(src->rec_dir, &src->past_rp, why, sizeof(why));
	if (r < 0) {
		snprintf(src->past_note, sizeof(src->past_note),
			 "wider intervals read the daemon's recording: %.110s", why);
		return NULL;
	}
	if (sampler_replay_advise_recorded(src->past_rp) < 0)
		return NULL;
	sampler_replay_step(src->past_rp, src->past_step_ns);
	if (sampler_replay_seek(src->past_rp, t, false) <= 0 ||
	    sampler_replay_next(src->past_rp, &f) <= 0 || f->real_ns > t + past_slack_ns(src)) {
		snprintf(src->past_note, sizeof(src->past_note),
			 "this sample is not in the daemon's recording: one sample");
		return NULL;
	}
	return sampler_json(sampler_replay_sampler(src->past_rp), ret_len);
}

/* The tables on pe[i]: its document, or with a wider interval the metrics
 * and findings of the last sample a step before it to it (embedded: from
 * the packed snapshots; a daemon: from its recording). */
static unsigned past_show(struct source *src, size_t i, struct model *m)
{
	const struct past_entry *e = &src->pe[i];
	const char *doc = e->doc, *d = NULL;
	size_t len = e->len, dlen = 0;

	src->past = true;
	src->past_ns = e->real_ns;
	src->past_base_ns = 0;
	if (src->past_step_ns && e->payload) {
		long b =
		    past_at_or_before(src, e->real_ns - src->past_step_ns + past_slack_ns(src));

		if (b < 0)
			b = 0; /* not a whole step kept: from the oldest */
		if ((size_t)b < i && src->pe[b].payload)
			d = past_pair(src, &src->pe[b], e, &dlen);
		if (d) /* "every" says the interval recomputed, by the wall clock */
			src->past_base_ns = src->pe[b].real_ns;
	} else if (src->past_step_ns && src->rec_dir[0]) {
		d = past_recorded(src, e->real_ns, &dlen);
		if (d) /* the recording's start within the step: shorter */
			src->past_base_ns = src->past_ns - src->past_step_ns;
		else
			src->past_step_ns = 0;
	}
	if (d) {
		doc = d;
		len = dlen;
	}
	if (model_apply_text(m, doc, len, MODEL_VIEW) < 0)
		snprintf(src->past_note, sizeof(src->past_note), "sample %llu: cannot decode",
			 (unsigned long long)e->id);
	/* the affinities of now: a sample kept here does not carry them */
	refresh_affinity(src, m);
	return UI_REDRAW;
}

static int64_t real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void daemon_queue(struct source *src, const char *req);

/* t is older than every sample kept: a daemon's history reaches into its
 * flight recording for it (a "seconds" request past its ring, answered
 * with the recorded samples before; doc/protocol.md); else the oldest. */
static unsigned past_older(struct source *src, int64_t t, struct model *m)
{
	char req[128];
	int64_t s;

	if (src->kind == SOURCE_DAEMON && src->fd >= 0 && src->hello_ok) {
		if (src->past_fetch)
			return 0; /* one at a time; this key moves from its answer */
		/* a minute more: the samples just before come with it, so
		 * the next steps back need no request of their own */
		s = (real_now() - t) / 1000000000 + 60;
		snprintf(req, sizeof(req),
			 "{\"cmd\":\"history\",\"seconds\":%lld,\"id\":\"past\"}\n",
			 (long long)(s > INT32_MAX ? INT32_MAX : s));
		daemon_queue(src, req);
		src->past_fetch = src->history_pending = true;
		src->past_want = t;
		snprintf(src->past_note, sizeof(src->past_note),
			 "asking the daemon for older samples (its recording)");
		return UI_REDRAW;
	}
	snprintf(src->past_note, sizeof(src->past_note), "the oldest sample kept here");
	return src->pn ? past_show(src, 0, m) : UI_REDRAW;
}

/* The daemon's answer to past_older(): the samples older than those kept
 * go in front of them, and the tables move to the time asked for. */
static unsigned past_fetched(struct source *src, struct json_object *samples, struct model *m)
{
	size_t n = samples ? json_object_array_length(samples) : 0, k = 0;
	int64_t oldest = src->pn ? src->pe[0].real_ns : INT64_MAX;
	struct past_entry *older = NULL;
	size_t cap = 0;
	long i;

	src->past_fetch = false;
	for (size_t j = 0; j < n; j++) {
		struct json_object *o = json_object_array_get_idx(samples, j), *v;
		struct past_entry e = { 0 };
		const char *doc;
		size_t len;

		if (!json_object_object_get_ex(o, "timestamp_ms", &v))
			continue;
		e.real_ns = json_object_get_int64(v) * 1000000;
		if (e.real_ns >= oldest || (k && e.real_ns <= older[k - 1].real_ns))
			continue;
		if (json_object_object_get_ex(o, "sample", &v))
			e.id = (uint64_t)json_object_get_int64(v);
		doc = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
		if (!doc || grow((void **)&older, &cap, k + 1, sizeof(*older)) < 0 ||
		    past_entry_make(&e, doc, len, NULL, 0) < 0)
			break;
		older[k++] = e;
	}
	if (k && grow((void **)&src->pe, &src->pcap, src->pn + k, sizeof(*src->pe)) == 0) {
		memmove(src->pe + k, src->pe, src->pn * sizeof(*src->pe));
		memcpy(src->pe, older, k * sizeof(*older));
		src->pn += k;
		for (size_t j = 0; j < k; j++)
			src->pbytes += older[j].len;
	} else {
		for (size_t j = 0; j < k; j++)
			past_entry_free(&older[j]);
		k = 0;
	}
	free(older);
	if (!src->pn)
		return UI_REDRAW;
	i = past_at_or_before(src, src->past_want);
	if (i < 0) {
		snprintf(src->past_note, sizeof(src->past_note), "%s",
			 "the oldest sample the daemon sends (its memory, and with --record up "
			 "to 900 recorded before it; older: iotriage replay)");
		i = 0;
	} else {
		src->past_note[0] = '\0';
	}
	return past_show(src, (size_t)i, m);
}

unsigned source_time_step(struct source *src, int dir, struct model *m)
{
	long cur, i;

	if (src->kind == SOURCE_REPLAY)
		return source_replay_step(src, dir);
	src->past_note[0] = '\0';
	if (!src->pn)
		return 0;
	if (!src->past && dir > 0) {
		snprintf(src->past_note, sizeof(src->past_note), "already now");
		return UI_REDRAW;
	}
	cur = src->past ? past_at_or_before(src, src->past_ns) : (long)src->pn - 1;
	if (cur < 0)
		cur = 0;
	if (!src->past_step_ns)
		i = cur + (dir > 0 ? 1 : -1);
	else if (dir < 0)
		i = past_at_or_before(src, src->pe[cur].real_ns - src->past_step_ns +
					       past_slack_ns(src));
	else
		i = past_at_or_before(src, src->pe[cur].real_ns + src->past_step_ns -
					       past_slack_ns(src) - 1) +
		    1;
	if (i >= (long)src->pn)
		return source_time_now(src, m);
	if (i < 0 || (dir < 0 && i >= cur))
		return past_older(src,
				  src->pe[cur].real_ns -
				      (src->past_step_ns ? src->past_step_ns : past_slack_ns(src)),
				  m);
	return past_show(src, (size_t)i, m);
}

unsigned source_time_jump(struct source *src, int64_t real_ns, struct model *m)
{
	long i;

	if (src->kind == SOURCE_REPLAY)
		return source_replay_jump(src, real_ns);
	src->past_note[0] = '\0';
	if (!src->pn)
		return 0;
	if (real_ns < src->pe[0].real_ns)
		return past_older(src, real_ns, m);
	i = past_at_or_before(src, real_ns - 1) + 1; /* the first at or after it */
	if (i >= (long)src->pn)
		return source_time_now(src, m);
	return past_show(src, (size_t)i, m);
}

unsigned source_time_widen(struct source *src, struct model *m)
{
	size_t n = sizeof(replay_steps_ns) / sizeof(replay_steps_ns[0]), i;

	if (src->kind == SOURCE_REPLAY)
		return source_replay_widen(src);
	src->past_note[0] = '\0';
	if (src->kind == SOURCE_DAEMON && !src->rec_dir[0]) {
		/* its documents carry rates of one interval, not the counters */
		snprintf(src->past_note, sizeof(src->past_note),
			 "i: the daemon does not record (--record): one sample only");
		return UI_REDRAW;
	}
	for (i = 0; i < n && replay_steps_ns[i] != src->past_step_ns; i++)
		;
	src->past_step_ns = replay_steps_ns[i < n ? (i + 1) % n : 0];
	if (!src->past_step_ns)
		src->past_base_ns = 0;
	if (src->past) {
		long k = past_at_or_before(src, src->past_ns);

		return past_show(src, k < 0 ? 0 : (size_t)k, m);
	}
	/* now, over the wider interval: the newest sample as a past one */
	return src->past_step_ns && src->pn ? past_show(src, src->pn - 1, m) : UI_REDRAW;
}

unsigned source_time_now(struct source *src, struct model *m)
{
	if (src->kind == SOURCE_REPLAY)
		return source_replay_jump(src, src->rp_last);
	src->past_note[0] = '\0';
	src->past_step_ns = src->past_base_ns = 0;
	if (!src->past)
		return 0;
	src->past = false;
	if (src->pn && model_apply_text(m, src->pe[src->pn - 1].doc, src->pe[src->pn - 1].len,
					MODEL_VIEW) >= 0)
		refresh_affinity(src, m);
	return UI_REDRAW;
}

bool source_past(const struct source *src, int64_t *ret_shown_ns, int64_t *ret_newest_ns)
{
	if (src->kind == SOURCE_REPLAY || !src->past)
		return false;
	*ret_shown_ns = src->past_ns;
	*ret_newest_ns = src->pn ? src->pe[src->pn - 1].real_ns : src->past_ns;
	return true;
}

bool source_past_note_take(struct source *src, char *buf, size_t size)
{
	if (!src->past_note[0])
		return false;
	snprintf(buf, size, "%s", src->past_note);
	src->past_note[0] = '\0';
	return true;
}

/* ---- embedded ---- */

static int embedded_start(struct source *src, const char *root, char *err, size_t errsz)
{
	struct sampler_opts so = {
		.root = root, .host = src->host, .mode = "live", .advise = true, .steady = true
	};
	int r;

	so.trace = src->trace; /* --trace */
	so.trace_budget_pct =
	    src->trace_budget_pct < 0 ? TRACE_BUDGET_DEFAULT_PCT : src->trace_budget_pct;
	r = sampler_open(&so, &src->sampler);
	if (r < 0) {
		snprintf(err, errsz, "--root %s: %s", root ? root : "/", strerror(-r));
		return r;
	}
	src->kind = SOURCE_EMBEDDED;
	src->next_tick_ns = 0; /* the first sample now */
	return 0;
}

static unsigned embedded_dispatch(struct source *src, int64_t now_ns, struct model *m, bool paused)
{
	const char *doc;
	size_t len;
	int r;

	if (now_ns < src->next_tick_ns)
		return 0;
	/* keep the cadence, but never try to catch up on missed ticks */
	src->next_tick_ns += src->interval_ms * 1000000LL;
	if (src->next_tick_ns <= now_ns)
		src->next_tick_ns = now_ns + src->interval_ms * 1000000LL;
	r = sampler_tick(src->sampler);
	doc = r < 0 ? NULL : sampler_json(src->sampler, &len);
	if (!doc) {
		set_state(src, "sampling failed: %s", strerror(r < 0 ? -r : ENOMEM));
		return UI_REDRAW;
	}
	r = model_apply_text(m, doc, len, MODEL_HISTORY | (paused || src->past ? 0 : MODEL_VIEW));
	if (r < 0) {
		set_state(src, "cannot decode a sample: %s", strerror(-r));
		return UI_REDRAW;
	}
	src->state[0] = '\0';
	{
		const struct snapshot *cur = sampler_current(src->sampler);
		struct past_entry e = { .id = cur->id,
					.mono_ns = cur->mono_ns,
					.real_ns = cur->real_ns };

		/* its packed snapshot too, for the time keys' wider intervals */
		sb_reset(&src->pack);
		if (sampler_pack(src->sampler, &src->pack) < 0)
			sb_reset(&src->pack);
		past_add(src, &e, doc, len, src->pack.err ? NULL : src->pack.buf,
			 src->pack.err ? 0 : src->pack.len);
	}
	if (!paused && !src->past)
		refresh_affinity(src, m);
	return UI_REDRAW;
}

/* ---- daemon ---- */

static void daemon_queue(struct source *src, const char *req)
{
	size_t n = strlen(req);

	if (grow((void **)&src->wbuf, &src->wcap, src->wlen + n, 1) < 0)
		return; /* the request is lost; the reconnect after the EOF resends all */
	memcpy(src->wbuf + src->wlen, req, n);
	src->wlen += n;
}

static const char *tf(unsigned want, enum cad_src k)
{
	return want & (1u << k) ? "true" : "false";
}

static void daemon_queue_subscribe(struct source *src)
{
	char req[224];

	snprintf(req, sizeof(req),
		 "{\"cmd\":\"subscribe\",\"every\":%u,\"procs\":%s,\"turbostat\":%s,"
		 "\"nics\":%s,\"cgroups\":%s,\"pressure\":%s,\"id\":\"subscribe\"}\n",
		 src->every, tf(src->want, CAD_PROCS), tf(src->want, CAD_TURBO),
		 tf(src->want, CAD_NICS), tf(src->want, CAD_CGROUPS), tf(src->want, CAD_PRESSURE));
	daemon_queue(src, req);
}

static void daemon_disconnect(struct source *src, int64_t now_ns, const char *why)
{
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	src->hello_ok = false;
	src->past_fetch = false; /* its answer will not come: a time key may ask again */
	src->rlen = src->rscan = 0;
	src->wlen = 0;
	if (src->rcap > IOT_PROTO_MAX_REPLY / 16) {
		/* a history reply (or a server that sent a huge line) grew it:
		 * do not keep hundreds of MiB while disconnected */
		free(src->rbuf);
		src->rbuf = NULL;
		src->rcap = 0;
	}
	src->next_connect_ns = now_ns + RECONNECT_NS;
	set_state(src, "DISCONNECTED: %s; retrying", why);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the loop's clock (ui.c) */
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Why a connect failed, for the state line: the peer check's words. */
static const char *connect_why(const struct source *src, int r)
{
	return r == -EPERM && src->why[0] ? src->why : strerror(-r);
}

/*
 * Connects and checks who answers (root or us: client_peer_check); on
 * success queues hello, status, history, worker.status and subscribe, which
 * the daemon answers in this order. Returns 0 or -errno (-EPERM: src->why).
 */
static int daemon_connect(struct source *src)
{
	char req[160];
	int fd;

	src->why[0] = '\0';
	fd = client_connect(src->path, true, src->why, sizeof(src->why));
	if (fd < 0) {
		if (fd != -EPERM)
			src->why[0] = '\0'; /* not there: the caller says so its way */
		return fd;
	}
	src->fd = fd;
	src->rlen = src->rscan = src->wlen = 0;
	src->history_pending = true;
	src->rx_ns = mono_ns();
	snprintf(req, sizeof(req), "{\"cmd\":\"hello\",\"version\":%d,\"id\":\"hello\"}\n",
		 IOT_PROTOCOL_VERSION);
	daemon_queue(src, req);
	daemon_queue(src, "{\"cmd\":\"status\",\"id\":\"status\"}\n");
	snprintf(req, sizeof(req), "{\"cmd\":\"history\",\"seconds\":%d,\"id\":\"history\"}\n",
		 HISTORY_SECONDS);
	daemon_queue(src, req);
	/* a job that began before we connected shows at once, not at its next
	 * event; a job that ended while we were away is marked ended */
	daemon_queue(src, "{\"cmd\":\"worker.status\",\"id\":\"worker\"}\n");
	daemon_queue_subscribe(src);
	set_state(src, "connecting");
	return 0;
}

static const char *reply_error(struct json_object *o, char *buf, size_t size)
{
	struct json_object *e = NULL, *v = NULL;

	snprintf(buf, size, "error reply");
	if (json_object_object_get_ex(o, "error", &e) &&
	    json_object_object_get_ex(e, "message", &v) && json_object_is_type(v, json_type_string))
		snprintf(buf, size, "%s", json_object_get_string(v));
	return buf;
}

static int switch_to_embedded(struct source *src, const char *why)
{
	char err[256];

	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	if (embedded_start(src, src->root_given ? src->root.path : NULL, err, sizeof(err)) < 0) {
		set_state(src, "%s", err);
		return -1;
	}
	set_state(src, "daemon at %s refused (%s): sampling here", src->path, why);
	return 0;
}

/* A daemon's sample kept for the time keys: its bytes in line (the event
 * line {"ok":true,"event":"sample","sample":DOC}, as iotriaged writes it:
 * no serialising again), else (line NULL: a history reply) re-encoded. */
static void past_keep(struct source *src, struct json_object *smp, const char *line,
		      size_t line_len)
{
	static const char head[] = "{\"ok\":true,\"event\":\"sample\",\"sample\":";
	struct past_entry e = { 0 };
	struct json_object *v;
	const char *doc;
	size_t len;

	if (!json_object_object_get_ex(smp, "timestamp_ms", &v))
		return;
	e.real_ns = json_object_get_int64(v) * 1000000;
	if (json_object_object_get_ex(smp, "sample", &v))
		e.id = (uint64_t)json_object_get_int64(v);
	if (src->pn && e.real_ns <= src->pe[src->pn - 1].real_ns)
		return; /* before the serialising: a reconnect's history repeats */
	if (line && line_len > sizeof(head) && memcmp(line, head, sizeof(head) - 1) == 0 &&
	    line[line_len - 1] == '}') {
		doc = line + sizeof(head) - 1;
		len = line_len - (sizeof(head) - 1) - 1;
	} else {
		doc = json_object_to_json_string_length(smp, JSON_C_TO_STRING_PLAIN, &len);
	}
	if (doc)
		past_add(src, &e, doc, len, NULL, 0);
}

static unsigned daemon_line(struct source *src, const char *line, size_t len, int64_t now_ns,
			    struct model *m, bool paused)
{
	struct json_object *o, *v = NULL, *samples = NULL;
	const char *id = "";
	unsigned flags = 0;
	char msg[256];
	bool ok, trim;

	json_tokener_reset(src->tok);
	o = json_tokener_parse_ex(src->tok, line, (int)len);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		daemon_disconnect(src, now_ns, "the daemon sent a line that is not JSON");
		return UI_REDRAW;
	}
	ok = json_object_object_get_ex(o, "ok", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "id", &v) && json_object_is_type(v, json_type_string))
		id = json_object_get_string(v);
	if (strcmp(id, "history") == 0 || strcmp(id, "past") == 0)
		src->history_pending = false; /* answered: lines are small again */

	if (json_object_object_get_ex(o, "event", &v)) {
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), "worker") == 0) {
			if (json_object_object_get_ex(o, "worker", &v) &&
			    model_worker_apply(m, v, now_ns, MODEL_WORKER_EVENT) >= 0)
				flags = UI_REDRAW;
		} else if (json_object_object_get_ex(o, "sample", &v) &&
			   model_apply(
			       m, v, MODEL_HISTORY | (paused || src->past ? 0 : MODEL_VIEW)) >= 0) {
			past_keep(src, v, line, len);
			if (!paused && !src->past)
				refresh_affinity(src, m);
			flags = UI_REDRAW;
		}
	} else if (strcmp(id, "worker") == 0) {
		/* worker.status is for root and the daemon's user: others learn of
		 * a job from its events, so a refusal is no news */
		if (ok && json_object_object_get_ex(o, "worker", &v) &&
		    model_worker_apply(m, v, now_ns, MODEL_WORKER_STATUS) >= 0)
			flags = UI_REDRAW;
	} else if (!ok) {
		reply_error(o, msg, sizeof(msg));
		if (strcmp(id, "hello") == 0 && src->auto_mode && !src->ever_connected) {
			switch_to_embedded(src, msg);
		} else if (strcmp(id, "hello") == 0 || src->fd < 0) {
			daemon_disconnect(src, now_ns, msg);
		} else {
			set_state(src, "daemon: %s", msg);
		}
		flags = UI_REDRAW;
	} else if (strcmp(id, "hello") == 0) {
		src->hello_ok = src->ever_connected = true;
		if (json_object_object_get_ex(o, "interval_ms", &v) &&
		    json_object_is_type(v, json_type_int))
			src->daemon_itv_ms = (long)json_object_get_int64(v);
		src->state[0] = '\0';
		flags = UI_REDRAW;
	} else if (strcmp(id, "status") == 0) {
		struct json_object *rec = NULL;

		/* where it records: the time keys' wider intervals read it */
		src->rec_dir[0] = '\0';
		if (json_object_object_get_ex(o, "record", &rec) &&
		    json_object_object_get_ex(rec, "dir", &v) &&
		    json_object_is_type(v, json_type_string))
			snprintf(src->rec_dir, sizeof(src->rec_dir), "%s",
				 json_object_get_string(v));
		/* without --root, /proc/irq is read where the daemon reads /proc */
		if (!src->root_given && json_object_object_get_ex(o, "root", &v) &&
		    json_object_is_type(v, json_type_string)) {
			struct root r;

			if (src->have_root)
				root_close(&src->root);
			src->have_root = root_open(json_object_get_string(v), &r) >= 0;
			if (src->have_root)
				src->root = r;
		}
	} else if (strcmp(id, "history") == 0 &&
		   json_object_object_get_ex(o, "samples", &samples) &&
		   json_object_is_type(samples, json_type_array)) {
		size_t n = json_object_array_length(samples);

		/* the newest also fills the tables, so the screen is not empty
		 * until the next push */
		for (size_t i = 0; i < n; i++) {
			struct json_object *smp = json_object_array_get_idx(samples, i);

			model_apply(m, smp,
				    MODEL_HISTORY |
					(i + 1 == n && !paused && !src->past ? MODEL_VIEW : 0));
			past_keep(src, smp, NULL, 0);
		}
		if (n && !paused && !src->past)
			refresh_affinity(src, m);
		flags = UI_REDRAW;
	} else if (strcmp(id, "past") == 0) {
		if (!ok || !json_object_object_get_ex(o, "samples", &samples) ||
		    !json_object_is_type(samples, json_type_array))
			samples = NULL;
		flags = past_fetched(src, samples, m);
	} else if (strcmp(id, "subscribe") == 0) {
		flags = UI_REDRAW;
	}
	/* a history reply's parse tree (hundreds of samples) is freed in
	 * pieces among the samples kept: give the holes back (66 MB of RSS
	 * after a 600 s history, measured; doc/PERFORMANCE.md) */
	trim = strcmp(id, "history") == 0 || strcmp(id, "past") == 0;
	json_object_put(o); /* id with it */
	if (trim)
		malloc_trim(0);
	return flags;
}

/* What the daemon may send without a newline (protocol.h "What a client
 * accepts"): the history reply is the one big line. */
static size_t line_max(const struct source *src)
{
	/* only after a hello answered as iotriaged answers it */
	return src->history_pending && src->hello_ok ? IOT_PROTO_MAX_HISTORY_REPLY
						     : IOT_PROTO_MAX_REPLY;
}

static unsigned daemon_read(struct source *src, int64_t now_ns, struct model *m, bool paused)
{
	unsigned flags = 0;

	for (;;) {
		size_t start = 0;
		ssize_t n;

		if (src->rlen > line_max(src)) {
			char why[64];

			snprintf(why, sizeof(why), "a line over %zu MiB from the daemon",
				 line_max(src) >> 20);
			daemon_disconnect(src, now_ns, why);
			return flags | UI_REDRAW;
		}
		if (src->rcap - src->rlen < 65536 &&
		    grow((void **)&src->rbuf, &src->rcap, src->rlen + 65536, 1) < 0) {
			daemon_disconnect(src, now_ns, strerror(ENOMEM));
			return flags | UI_REDRAW;
		}
		n = read(src->fd, src->rbuf + src->rlen, src->rcap - src->rlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return flags;
		if (n <= 0) {
			daemon_disconnect(src, now_ns,
					  n == 0 ? "the daemon closed the connection"
						 : strerror(errno));
			return flags | UI_REDRAW;
		}
		src->rlen += (size_t)n;
		for (;;) {
			size_t from = start > src->rscan ? start : src->rscan;
			char *nl = memchr(src->rbuf + from, '\n', src->rlen - from);

			if (!nl)
				break;
			/* only whole lines count as the daemon being alive: a
			 * trickle of bytes without a newline is not */
			src->rx_ns = now_ns;
			flags |= daemon_line(src, src->rbuf + start,
					     (size_t)(nl - src->rbuf) - start, now_ns, m, paused);
			if (src->fd < 0 || src->kind != SOURCE_DAEMON)
				return flags; /* the line ended the connection */
			start = (size_t)(nl - src->rbuf) + 1;
		}
		memmove(src->rbuf, src->rbuf + start, src->rlen - start);
		src->rlen -= start;
		/* what is left has no newline: the next read scans only its own
		 * bytes (rescanning from 0 made a 64 MiB line cost ~10 GB of
		 * memchr, and the live view gave up on time first) */
		src->rscan = src->rlen;
	}
}

/*
 * When the connection is given up if no whole line arrives: a reply is due
 * within IOT_PROTO_CLIENT_TIMEOUT_MS of connecting; once subscribed, a
 * sample every interval_ms * every, so three of them missed (10 s at least)
 * means a wedged daemon or something that is not one.
 */
static int64_t silence_limit_ns(const struct source *src)
{
	int64_t lim = (int64_t)IOT_PROTO_CLIENT_TIMEOUT_MS * 1000000;
	int64_t three = 3 * (int64_t)src->daemon_itv_ms * src->every * 1000000;

	return src->hello_ok && three > lim ? three : lim;
}

static unsigned daemon_write(struct source *src, int64_t now_ns)
{
	while (src->wlen) {
		ssize_t n = send(src->fd, src->wbuf, src->wlen, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			daemon_disconnect(src, now_ns, strerror(errno));
			return UI_REDRAW;
		}
		memmove(src->wbuf, src->wbuf + n, src->wlen - (size_t)n);
		src->wlen -= (size_t)n;
	}
	return 0;
}

static unsigned daemon_dispatch(struct source *src, short revents, int64_t now_ns, struct model *m,
				bool paused)
{
	int64_t stale_ns = src->daemon_itv_ms * 3 * 1000000LL;
	unsigned flags = 0;

	/* the daemon sends a worker event after every sample while a job runs */
	if (model_worker_expire(
		m, now_ns, stale_ns > MODEL_WORKER_STALE_NS ? stale_ns : MODEL_WORKER_STALE_NS))
		flags |= UI_REDRAW;

	if (src->fd < 0) {
		int r;

		if (now_ns < src->next_connect_ns)
			return 0;
		r = daemon_connect(src);
		if (r < 0) {
			daemon_disconnect(src, now_ns, connect_why(src, r));
			return UI_REDRAW;
		}
		flags |= UI_REDRAW;
	}
	if (src->wlen)
		flags |= daemon_write(src, now_ns);
	/* read before acting on a hangup: the last replies may be waiting */
	if (src->fd >= 0 && (revents & (POLLIN | POLLHUP | POLLERR)))
		flags |= daemon_read(src, now_ns, m, paused);
	if (src->fd >= 0 && now_ns - src->rx_ns > silence_limit_ns(src)) {
		char why[96];

		snprintf(why, sizeof(why), "%s for %lld s",
			 src->hello_ok ? "nothing from the daemon" : "no answer",
			 (long long)(silence_limit_ns(src) / 1000000000));
		daemon_disconnect(src, now_ns, why);
		flags |= UI_REDRAW;
	}
	return flags;
}

/* ---- the interface ---- */

int source_open(const struct source_opts *o, struct source **ret_src, char *err, size_t errsz)
{
	struct source *src;
	int r;

	src = calloc(1, sizeof(*src));
	if (!src) {
		snprintf(err, errsz, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	src->fd = -1;
	src->every = 1;
	src->trace = o->trace;
	src->trace_budget_pct = o->trace_budget_pct;
	src->interval_ms = o->interval_ms > 0 ? o->interval_ms : 1000;
	gethostname(src->host, sizeof(src->host) - 1);
	if (o->root) {
		r = root_open(o->root, &src->root);
		if (r < 0) {
			snprintf(err, errsz, "--root %s: %s", o->root, strerror(-r));
			free(src);
			return r;
		}
		src->root_given = src->have_root = true;
	}
	src->tok = json_tokener_new();
	if (!src->tok) {
		r = -ENOMEM;
		snprintf(err, errsz, "%s", strerror(ENOMEM));
		goto fail;
	}
	if (o->replay) {
		r = replay_start(src, o, err, errsz);
		if (r < 0)
			goto fail;
		*ret_src = src;
		return 0;
	}
	/* --root without --socket names the tree to sample, not a daemon's */
	if (!o->embedded && (o->socket || !o->root)) {
		if (o->socket) {
			if (strlen(o->socket) >= sizeof(src->path)) {
				r = -ENAMETOOLONG;
				snprintf(err, errsz, "--socket %s: path too long for a Unix socket",
					 o->socket);
				goto fail;
			}
			snprintf(src->path, sizeof(src->path), "%s", o->socket);
		} else {
			/* the system daemon first (a member of its group reaches it),
			 * then a daemon of the user's own ($XDG_RUNTIME_DIR) */
			snprintf(src->path, sizeof(src->path), "%s", IOT_PROTO_SYSTEM_SOCKET);
			if (daemon_connect(src) < 0 &&
			    (iot_proto_default_socket(src->path, sizeof(src->path)) < 0 ||
			     strcmp(src->path, IOT_PROTO_SYSTEM_SOCKET) == 0 ||
			     daemon_connect(src) < 0))
				src->path[0] = '\0'; /* nobody answers: embedded */
		}
		src->auto_mode = !o->socket;
	}
	/* an explicit socket is the user's choice: wait for that daemon; the
	 * default one is used only if it answered just now */
	if (o->socket || src->fd >= 0) {
		src->kind = SOURCE_DAEMON;
		if (src->fd < 0) {
			r = daemon_connect(src);
			if (r < 0)
				daemon_disconnect(src, 0, connect_why(src, r));
		}
		*ret_src = src;
		return 0;
	}
	r = embedded_start(src, o->root, err, errsz);
	if (r < 0)
		goto fail;
	*ret_src = src;
	return 0;
fail:
	source_close(src);
	return r;
}

const char *source_trace_unavailable(const struct source *src)
{
	return src->sampler ? sampler_trace_unavailable(src->sampler) : NULL;
}

void source_close(struct source *src)
{
	if (!src)
		return;
	if (src->fd >= 0)
		close(src->fd);
	sampler_close(src->sampler);
	sampler_replay_close(src->rp);
	sampler_close(src->past_s);
	sampler_replay_close(src->past_rp);
	past_clear(src);
	sb_free(&src->pack);
	if (src->have_root)
		root_close(&src->root);
	if (src->tok)
		json_tokener_free(src->tok);
	free(src->rbuf);
	free(src->wbuf);
	free(src);
}

void source_pollfd(const struct source *src, struct pollfd *ret_pfd)
{
	ret_pfd->fd = src->kind == SOURCE_DAEMON ? src->fd : -1;
	ret_pfd->events = POLLIN | (src->wlen ? POLLOUT : 0);
	ret_pfd->revents = 0;
}

int64_t source_deadline_ns(const struct source *src)
{
	if (src->kind == SOURCE_REPLAY)
		return src->rp_jump || src->rp_steps ? 0 : INT64_MAX;
	if (src->kind == SOURCE_EMBEDDED)
		return src->next_tick_ns;
	/* wake to give up on a silent daemon, whatever the screen does */
	return src->fd < 0 ? src->next_connect_ns : src->rx_ns + silence_limit_ns(src) + 1;
}

unsigned source_dispatch(struct source *src, short revents, int64_t now_ns, struct model *m,
			 bool paused)
{
	if (src->kind == SOURCE_EMBEDDED)
		return embedded_dispatch(src, now_ns, m, paused);
	if (src->kind == SOURCE_REPLAY)
		return replay_dispatch(src, m);
	return daemon_dispatch(src, revents, now_ns, m, paused);
}

unsigned source_step_interval(struct source *src, int dir, int64_t now_ns)
{
	if (src->kind == SOURCE_REPLAY)
		return 0; /* the recording's interval is what it is */
	if (src->kind == SOURCE_EMBEDDED) {
		size_t n = sizeof(itv_steps_ms) / sizeof(itv_steps_ms[0]);
		long next = src->interval_ms;

		for (size_t i = 0; i < n; i++) {
			size_t k = dir > 0 ? i : n - 1 - i;

			if (dir > 0 ? itv_steps_ms[k] > src->interval_ms
				    : itv_steps_ms[k] < src->interval_ms) {
				next = itv_steps_ms[k];
				break;
			}
		}
		if (next == src->interval_ms)
			return 0;
		src->next_tick_ns += (next - src->interval_ms) * 1000000LL;
		if (src->next_tick_ns < now_ns)
			src->next_tick_ns = now_ns;
		src->interval_ms = next;
		return UI_REDRAW;
	} else {
		size_t n = sizeof(every_steps) / sizeof(every_steps[0]);
		unsigned next = src->every;

		for (size_t i = 0; i < n; i++) {
			size_t k = dir > 0 ? i : n - 1 - i;

			if (dir > 0 ? every_steps[k] > src->every : every_steps[k] < src->every) {
				next = every_steps[k];
				break;
			}
		}
		if (next == src->every)
			return 0;
		src->every = next;
		if (src->fd >= 0)
			daemon_queue_subscribe(src); /* a second subscribe changes "every" */
		return UI_REDRAW;
	}
}

void source_want(struct source *src, unsigned cad_mask)
{
	if (src->want == cad_mask)
		return;
	src->want = cad_mask;
	if (src->kind == SOURCE_DAEMON && src->fd >= 0)
		daemon_queue_subscribe(src); /* a second subscribe changes the flags */
}

enum source_kind source_kind(const struct source *src)
{
	return src->kind;
}

long source_interval_ms(const struct source *src)
{
	if (src->past && src->past_base_ns)
		return (long)((src->past_ns - src->past_base_ns) / 1000000);
	if (src->kind == SOURCE_EMBEDDED)
		return src->interval_ms;
	if (src->kind == SOURCE_REPLAY)
		return src->rp_step_ns ? (long)(src->rp_step_ns / 1000000) : (long)src->rp_itv_ms;
	return src->daemon_itv_ms * (long)src->every;
}

bool source_connected(const struct source *src)
{
	return src->kind != SOURCE_DAEMON || (src->fd >= 0 && src->hello_ok);
}

const char *source_socket(const struct source *src)
{
	return src->kind == SOURCE_DAEMON ? src->path : "";
}

const char *source_state(const struct source *src)
{
	return src->state;
}

/* ---- apply and undo: through the daemon, or here ---- */

const char *source_replay_refusal(bool undo)
{
	return undo ? "replay: nothing to undo here: the recording is the past; undo on the live "
		      "host (iotriage undo)"
		    : "replay: nothing to apply: the recording is the past, and these suggestions "
		      "use today's topology; apply on the live host (iotriage suggest, apply)";
}

/* Through iotriaged: a connection of its own, so the subscription's stream
 * is never mixed with this reply. 0 done, else failed; msg says which. */
static int daemon_act(const struct source *src, const struct model_advice *advice, const char *id,
		      bool undo, char *msg, size_t size)
{
	const char *path = src->path;
	char reply[700], why[CLIENT_WHY_MAX];
	struct client_conn c;
	int r;

	/* client.h: the peer is root or us, and a daemon that stops answering
	 * freezes the screen for IOT_PROTO_CLIENT_TIMEOUT_MS at most */
	r = client_open(path, &c, why, sizeof(why));
	if (r < 0) {
		snprintf(msg, size, "%s failed: cannot reach iotriaged at %s: %s",
			 undo ? "undo" : "apply", path, why);
		return -1;
	}
	/* the writes on the screen: the daemon applies those or nothing */
	r = suggest_daemon_apply(&c, id, undo, undo ? NULL : model_findings_suggestion(advice, id),
				 reply, sizeof(reply));
	client_close(&c);
	if (r == 0) {
		snprintf(msg, size, "iotriaged: %s", reply);
		return 0;
	}
	if (r > 0)
		snprintf(msg, size, "%s refused by iotriaged: %s", undo ? "undo" : "apply",
			 reply[0] ? reply : "no reason given");
	else if (r == -ETIMEDOUT)
		snprintf(msg, size, "%s: iotriaged did not answer within %d s; it may still act",
			 undo ? "undo" : "apply", IOT_PROTO_CLIENT_TIMEOUT_MS / 1000);
	else
		snprintf(msg, size, "iotriaged: %s", reply);
	return -1;
}

/* Embedded: exactly the writes the sample showed, through apply_suggestion()
 * (which re-reads each file for its undo value, journals, writes, verifies
 * and rolls back on failure). */
static int embedded_apply(const struct model_advice *advice, const char *root_dir, const char *id,
			  char *msg, size_t size)
{
	const struct model_suggestion *ms = model_findings_suggestion(advice, id);
	struct suggestion s = { 0 };
	struct apply_result res = { 0 };
	struct root root;
	char why[600];
	int fd, e = -EINVAL;

	if (!ms) {
		snprintf(msg, size,
			 "apply: %s is no longer suggested by the last sample; nothing "
			 "written",
			 id);
		return -1;
	}
	if (ms->nwrites == 0 || ms->nwrites > APPLY_MAX_WRITES) {
		snprintf(msg, size, "apply: %s carries no writes this client can apply", id);
		return -1;
	}
	s.actions = calloc(ms->nwrites, sizeof(*s.actions));
	if (!s.actions) {
		snprintf(msg, size, "apply: %s", strerror(ENOMEM));
		return -1;
	}
	snprintf(s.id, sizeof(s.id), "%s", ms->id);
	for (size_t i = 0; i < ms->nwrites; i++) {
		struct advise_action *a = &s.actions[i];
		const struct model_write *w = &ms->writes[i];

		/* host paths in the document, root-relative in apply */
		if (strlen(w->path + 1) >= sizeof(a->path) ||
		    strlen(w->value) >= sizeof(a->value)) {
			snprintf(msg, size, "apply: %s: a path or value too long (%s)", id,
				 w->path);
			goto out;
		}
		memcpy(a->path, w->path + 1, strlen(w->path + 1) + 1);
		memcpy(a->value, w->value, strlen(w->value) + 1);
	}
	s.nactions = ms->nwrites;
	e = root_open(root_dir, &root);
	if (e < 0) {
		snprintf(msg, size, "apply: %s: %s", root_dir ? root_dir : "/", strerror(-e));
		goto out;
	}
	fd = apply_state_open(&root, NULL, why, sizeof(why));
	if (fd < 0) {
		e = fd;
		snprintf(msg, size, "apply: undo journal directory: %s", why);
	} else {
		e = apply_suggestion(&root, fd, &s, &res);
		close(fd);
		snprintf(msg, size, "%s%s", e < 0 ? "apply failed: " : "", res.message);
	}
	root_close(&root);
out:
	free(s.actions);
	return e < 0 ? -1 : 0;
}

int source_apply(const struct source *src, const struct model_advice *advice, const char *root_dir,
		 const char *id, bool undo, char *msg, size_t size)
{
	struct apply_result res = { 0 };
	int r;

	if (src->kind == SOURCE_REPLAY) {
		snprintf(msg, size, "%s", source_replay_refusal(undo));
		return -1;
	}
	if (src->kind == SOURCE_DAEMON)
		return daemon_act(src, advice, id, undo, msg, size);
	if (!undo)
		return embedded_apply(advice, root_dir, id, msg, size);
	r = apply_undo_by_id(root_dir, NULL, id, &res) < 0 ? -1 : 0;
	snprintf(msg, size, "%s%s", r < 0 ? "undo failed: " : "", res.message);
	return r;
}
