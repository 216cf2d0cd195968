// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_embedded: the sampler (src/sampler.c, the daemon's own) run in
 * this process on the loop's clock; each sample kept with its packed
 * snapshot for the time keys (source_past.c); apply and undo here, under
 * --root, through src/act as the CLI does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "model_findings.h"
#include "sampler.h"
#include "source_int.h"
#include "trace.h"
#include "ui.h"

/* The intervals that +/- step through. */
static const long itv_steps_ms[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000 };

int source_embedded_start(struct source *src, const char *root, char *err, size_t errsz)
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
	src->ops = &source_embedded_ops;
	src->next_tick_ns = 0; /* the first sample now */
	return 0;
}

static unsigned embedded_dispatch(struct source *src, short revents, int64_t now_ns,
				  struct model *m, bool paused)
{
	const char *doc;
	size_t len;
	int r;

	(void)revents;
	if (now_ns < src->next_tick_ns)
		return 0;
	/* keep the cadence, but never try to catch up on missed ticks */
	src->next_tick_ns += src->interval_ms * 1000000LL;
	if (src->next_tick_ns <= now_ns)
		src->next_tick_ns = now_ns + src->interval_ms * 1000000LL;
	r = sampler_tick(src->sampler);
	doc = r < 0 ? NULL : sampler_json(src->sampler, &len);
	if (!doc) {
		source_set_state(src, "sampling failed: %s", strerror(r < 0 ? -r : ENOMEM));
		return UI_REDRAW;
	}
	r = model_apply_text(m, doc, len, MODEL_HISTORY | (paused || src->past ? 0 : MODEL_VIEW));
	if (r < 0) {
		source_set_state(src, "cannot decode a sample: %s", strerror(-r));
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
	return UI_REDRAW;
}

/* The writes the screen showed (host paths in the document, root-relative
 * in apply) as apply_shown()'s expect: what a person confirmed is what is
 * written, or nothing. 0, or -1 with msg set. */
static int shown_writes(const struct model_suggestion *ms, const char *id,
			struct advise_action **ret, char *msg, size_t size)
{
	struct advise_action *a;

	if (ms->nwrites == 0 || ms->nwrites > APPLY_MAX_WRITES) {
		snprintf(msg, size, "apply: %s carries no writes this client can apply", id);
		return -1;
	}
	a = calloc(ms->nwrites, sizeof(*a));
	if (!a) {
		snprintf(msg, size, "apply: %s", strerror(ENOMEM));
		return -1;
	}
	for (size_t i = 0; i < ms->nwrites; i++) {
		const struct model_write *w = &ms->writes[i];

		if (w->path[0] != '/' || strlen(w->path + 1) >= sizeof(a[i].path) ||
		    strlen(w->value) >= sizeof(a[i].value)) {
			snprintf(msg, size, "apply: %s: a path or value too long (%s)", id,
				 w->path);
			free(a);
			return -1;
		}
		memcpy(a[i].path, w->path + 1, strlen(w->path + 1) + 1);
		memcpy(a[i].value, w->value, strlen(w->value) + 1);
	}
	*ret = a;
	return 0;
}

/*
 * Embedded: the CLI's and the daemon's path (src/act apply_shown()): the
 * suggestion as the sampler published it, its files checked against what
 * the advice read, and only if it writes what the screen showed; then the
 * sampler reads the topology again, as the daemon does after an apply.
 */
static int embedded_apply(const struct source *src, const struct model_advice *advice,
			  const char *root_dir, const char *id, char *msg, size_t size)
{
	const struct model_suggestion *ms = model_findings_suggestion(advice, id);
	const struct advice *adv = sampler_advice(src->sampler);
	const struct suggestion *s = adv ? advice_suggestion(adv, id) : NULL;
	struct apply_result res = { 0 };
	struct advise_action *expect;
	int e;

	if (!ms || !s) {
		snprintf(msg, size,
			 "apply: %s is no longer suggested by the last sample; nothing "
			 "written",
			 id);
		return -1;
	}
	if (shown_writes(ms, id, &expect, msg, size) < 0)
		return -1;
	e = apply_shown(root_dir, NULL, s, expect, ms->nwrites, &res);
	free(expect);
	if (e >= 0)
		sampler_topology_stale(src->sampler);
	snprintf(msg, size, "%s%s", e < 0 ? "apply failed: " : "", res.message);
	return e < 0 ? -1 : 0;
}

/* Undo as the CLI's (apply_undo_by_id); the topology read again after it. */
static int embedded_undo(const struct source *src, const char *root_dir, const char *id, char *msg,
			 size_t size)
{
	struct apply_result res = { 0 };
	int e;

	e = apply_undo_by_id(root_dir, NULL, id, &res);
	if (e >= 0)
		sampler_topology_stale(src->sampler);
	snprintf(msg, size, "%s%s", e < 0 ? "undo failed: " : "", res.message);
	return e < 0 ? -1 : 0;
}

static int embedded_act(const struct source *src, const struct model_advice *advice,
			const char *root_dir, const char *id, bool undo, char *msg, size_t size)
{
	if (undo)
		return embedded_undo(src, root_dir, id, msg, size);
	return embedded_apply(src, advice, root_dir, id, msg, size);
}

static int64_t embedded_deadline_ns(const struct source *src)
{
	return src->next_tick_ns;
}

static unsigned embedded_step_interval(struct source *src, int dir, int64_t now_ns)
{
	long next = source_step_long(itv_steps_ms, sizeof(itv_steps_ms) / sizeof(itv_steps_ms[0]),
				     src->interval_ms, dir);

	if (next == src->interval_ms)
		return 0;
	src->next_tick_ns += (next - src->interval_ms) * 1000000LL;
	if (src->next_tick_ns < now_ns)
		src->next_tick_ns = now_ns;
	src->interval_ms = next;
	return UI_REDRAW;
}

static long embedded_interval_ms(const struct source *src)
{
	return src->interval_ms;
}

/* in source_ops' order (source_int.h) */
const struct source_ops source_embedded_ops = { SOURCE_EMBEDDED,      embedded_dispatch,
						embedded_deadline_ns, embedded_step_interval,
						embedded_interval_ms, &source_past_time,
						embedded_act };
