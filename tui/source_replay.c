// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_replay: a flight recording stepped by keys (iotriage replay): the
 * recording's samples through sampler_replay_* (src/sampler.h), each
 * sample's IRQ affinities in its document as the topology recorded with
 * it says them, never this host's (a recording without one: none).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rec_file.h"
#include "sampler.h"
#include "source_int.h"
#include "ui.h"

int source_replay_start(struct source *src, const struct source_opts *o, char *err, size_t errsz)
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
	src->ops = &source_replay_ops;
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

static unsigned replay_dispatch(struct source *src, short revents, int64_t now_ns, struct model *m,
				bool paused)
{
	const struct recframe *f = NULL;
	const char *doc, *p;
	size_t len;
	int r = 1;

	(void)revents;
	(void)now_ns;
	(void)paused;
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
		source_set_state(src, "%s",
				 r < 0 ? strerror(-r) : "no sample there: the recording ends");
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
		source_set_state(src, "sample %llu: cannot decode", (unsigned long long)f->id);
		return UI_REDRAW;
	}
	p = sampler_replay_problems(src->rp);
	if (p)
		source_set_state(src, "skipped: %.*s", (int)strcspn(p, "\n"), p);
	else if (r > 0)
		src->state[0] = '\0';
	return UI_REDRAW;
}

unsigned source_replay_step(struct source *src, int dir)
{
	if (src->ops != &source_replay_ops)
		return 0;
	src->rp_steps += dir > 0 ? 1 : -1;
	return UI_REDRAW;
}

unsigned source_replay_jump(struct source *src, int64_t real_ns)
{
	if (src->ops != &source_replay_ops)
		return 0;
	src->rp_jump = true;
	src->rp_steps = 0;
	src->rp_target = real_ns;
	return UI_REDRAW;
}

unsigned source_replay_widen(struct source *src)
{
	if (src->ops != &source_replay_ops)
		return 0;
	src->rp_step_ns = source_wider_ns(src->rp_step_ns);
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
	if (src->ops != &source_replay_ops || size < 8)
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

static int64_t replay_deadline_ns(const struct source *src)
{
	return src->rp_jump || src->rp_steps ? 0 : INT64_MAX;
}

static unsigned replay_step_interval(struct source *src, int dir, int64_t now_ns)
{
	(void)src;
	(void)dir;
	(void)now_ns;
	return 0; /* the recording's interval is what it is */
}

static long replay_interval_ms(const struct source *src)
{
	return src->rp_step_ns ? (long)(src->rp_step_ns / 1000000) : (long)src->rp_itv_ms;
}

static unsigned replay_time_step(struct source *src, int dir, struct model *m)
{
	(void)m;
	return source_replay_step(src, dir);
}

static unsigned replay_time_jump(struct source *src, int64_t real_ns, struct model *m)
{
	(void)m;
	return source_replay_jump(src, real_ns);
}

static unsigned replay_time_widen(struct source *src, struct model *m)
{
	(void)m;
	return source_replay_widen(src);
}

static unsigned replay_time_now(struct source *src, struct model *m)
{
	(void)m;
	return source_replay_jump(src, src->rp_last);
}

const char *source_replay_refusal(bool undo)
{
	return undo ? "replay: nothing to undo here: the recording is the past; undo on the live "
		      "host (iotriage undo)"
		    : "replay: nothing to apply: the recording is the past, and these suggestions "
		      "use today's topology; apply on the live host (iotriage suggest, apply)";
}

static int replay_apply(const struct source *src, const struct model_advice *advice,
			const char *root_dir, const char *id, bool undo, char *msg, size_t size)
{
	(void)src;
	(void)advice;
	(void)root_dir;
	(void)id;
	snprintf(msg, size, "%s", source_replay_refusal(undo));
	return -1;
}

static const struct source_time_ops replay_time = {
	.step = replay_time_step,
	.jump = replay_time_jump,
	.widen = replay_time_widen,
	.now = replay_time_now,
};

/* in source_ops' order (source_int.h) */
const struct source_ops source_replay_ops = { SOURCE_REPLAY,	  replay_dispatch,
					      replay_deadline_ns, replay_step_interval,
					      replay_interval_ms, &replay_time,
					      replay_apply };
