// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_past: the live view's time keys over the samples kept here (the
 * daemon's history and pushes as received, the embedded sampler's each
 * with its packed snapshot), shared by the daemon and embedded kinds:
 * step, jump, widen (i), now; a wider interval recomputed from the packed
 * snapshots (embedded) or asked of the daemon, which makes it from its
 * flight recording (history "at", doc/protocol.md): the client never opens
 * the daemon's files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sampler.h"
#include "source_int.h"
#include "ui.h"

/* The past the live view's time keys move over: the samples received (or
 * sampled) last, at most this many and this many bytes (the daemon's 600 s
 * at 1 Hz are ~600 x 11 KB of documents; embedded keeps each tick's packed
 * snapshot beside its document) */
#define PAST_MAX       4000
#define PAST_BYTES_MAX (48u << 20)

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
void past_add(struct source *src, const struct past_entry *tmpl, const char *doc, size_t len,
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

void past_clear(struct source *src)
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
	long ms = src->ops == &source_embedded_ops ? src->interval_ms : src->daemon_itv_ms;

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
	sampler_set_topo_recorded(src->past_s, true);
	sampler_set_steady(src->past_s, false);
	sampler_restart(src->past_s);
	for (int k = 0; k < 2; k++) {
		const struct past_entry *e = k ? b : a;

		if (sampler_tick_recorded(src->past_s, e->id, e->mono_ns, e->real_ns, e->payload,
					  e->plen) < 0)
			return NULL;
	}
	return sampler_json(src->past_s, ret_len);
}

/* The tables on pe[i]: its document, or with a wider interval the metrics
 * and findings of the last sample a step before it to it (embedded: from
 * the packed snapshots; a daemon: asked of it, shown when it answers). */
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
	} else if (src->past_step_ns && src->ops == &source_daemon_ops) {
		/* made by the daemon from its recording, shown when it answers
		 * (past_wide_fetched); this sample's own until then */
		if (source_daemon_ask_wide(src, e->real_ns, src->past_step_ns))
			snprintf(src->past_note, sizeof(src->past_note),
				 "asking the daemon for %lld s from its recording",
				 (long long)(src->past_step_ns / 1000000000));
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
	return UI_REDRAW;
}

unsigned past_wide_fetched(struct source *src, bool ok, struct json_object *samples,
			   const char *why, struct model *m)
{
	struct json_object *doc;

	src->wide_fetch = false;
	if (!src->past || !src->past_step_ns)
		return 0; /* back to now, or one sample, meanwhile */
	if (src->wide_at_ns != src->past_ns || src->wide_step_ns != src->past_step_ns) {
		/* the keys moved while it was asked: ask for where they are */
		if (!source_daemon_ask_wide(src, src->past_ns, src->past_step_ns))
			src->past_step_ns = 0;
		return 0;
	}
	doc = samples && json_object_array_length(samples) == 1
		  ? json_object_array_get_idx(samples, 0)
		  : NULL;
	if (!ok || !doc) {
		if (!ok) /* an iotriaged before "at" says history needs "seconds" */
			snprintf(src->past_note, sizeof(src->past_note),
				 "wider intervals: the daemon refused (%.100s): one sample", why);
		else
			snprintf(src->past_note, sizeof(src->past_note),
				 "this sample is not in the daemon's recording: one sample");
		src->past_step_ns = src->past_base_ns = 0;
		return UI_REDRAW;
	}
	if (model_apply(m, doc, MODEL_VIEW) < 0) {
		snprintf(src->past_note, sizeof(src->past_note),
			 "the daemon's wider interval: cannot decode");
		return UI_REDRAW;
	}
	/* the recording's start within the step: shorter */
	src->past_base_ns = src->past_ns - src->past_step_ns;
	src->past_note[0] = '\0';
	return UI_REDRAW;
}

/* t is older than every sample kept: a daemon's history reaches into its
 * flight recording for it (a "seconds" request past its ring, answered
 * with the recorded samples before; doc/protocol.md); else the oldest. */
static unsigned past_older(struct source *src, int64_t t, struct model *m)
{
	unsigned flags;

	if (src->ops == &source_daemon_ops && source_daemon_ask_past(src, t, &flags))
		return flags;
	snprintf(src->past_note, sizeof(src->past_note), "the oldest sample kept here");
	return src->pn ? past_show(src, 0, m) : UI_REDRAW;
}

/* The daemon's answer to past_older(): the samples older than those kept
 * go in front of them, and the tables move to the time asked for. */
unsigned past_fetched(struct source *src, struct json_object *samples, struct model *m)
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

static unsigned past_time_now(struct source *src, struct model *m);

static unsigned past_time_step(struct source *src, int dir, struct model *m)
{
	long cur, i;

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
		return past_time_now(src, m);
	if (i < 0 || (dir < 0 && i >= cur))
		return past_older(src,
				  src->pe[cur].real_ns -
				      (src->past_step_ns ? src->past_step_ns : past_slack_ns(src)),
				  m);
	return past_show(src, (size_t)i, m);
}

static unsigned past_time_jump(struct source *src, int64_t real_ns, struct model *m)
{
	long i;

	src->past_note[0] = '\0';
	if (!src->pn)
		return 0;
	if (real_ns < src->pe[0].real_ns)
		return past_older(src, real_ns, m);
	i = past_at_or_before(src, real_ns - 1) + 1; /* the first at or after it */
	if (i >= (long)src->pn)
		return past_time_now(src, m);
	return past_show(src, (size_t)i, m);
}

static unsigned past_time_widen(struct source *src, struct model *m)
{
	src->past_note[0] = '\0';
	if (src->ops == &source_daemon_ops && !src->daemon_records) {
		/* its documents carry rates of one interval, not the counters */
		snprintf(src->past_note, sizeof(src->past_note),
			 "i: the daemon does not record (--record): one sample only");
		return UI_REDRAW;
	}
	src->past_step_ns = source_wider_ns(src->past_step_ns);
	if (!src->past_step_ns)
		src->past_base_ns = 0;
	if (src->past) {
		long k = past_at_or_before(src, src->past_ns);

		return past_show(src, k < 0 ? 0 : (size_t)k, m);
	}
	/* now, over the wider interval: the newest sample as a past one */
	return src->past_step_ns && src->pn ? past_show(src, src->pn - 1, m) : UI_REDRAW;
}

static unsigned past_time_now(struct source *src, struct model *m)
{
	src->past_note[0] = '\0';
	src->past_step_ns = src->past_base_ns = 0;
	if (!src->past)
		return 0;
	src->past = false;
	if (src->pn)
		model_apply_text(m, src->pe[src->pn - 1].doc, src->pe[src->pn - 1].len, MODEL_VIEW);
	return UI_REDRAW;
}

bool source_past(const struct source *src, int64_t *ret_shown_ns, int64_t *ret_newest_ns)
{
	if (src->ops == &source_replay_ops || !src->past)
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

const struct source_time_ops source_past_time = {
	.step = past_time_step,
	.jump = past_time_jump,
	.widen = past_time_widen,
	.now = past_time_now,
};
