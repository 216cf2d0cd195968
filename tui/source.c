// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source: the TUI's samples, from one of the kinds behind struct
 * source_ops (source_int.h): the daemon (source_daemon.c), the embedded
 * sampler (source_embedded.c) or a recording (source_replay.c), with the
 * live time keys over the samples kept (source_past.c). Either way the
 * bytes are a doc/json.md sample handed to the model's one decoder, the IRQ
 * affinities in it: the client reads no /proc of its own. Here: the
 * choice at open, the dispatch and the state line. Never draws; never
 * blocks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "root.h"
#include "sampler.h"
#include "source_int.h"
#include "ui.h"

/* What i steps through: atop's habit of widening the interval. */
static const int64_t wider_steps_ns[] = { 0, 10 * INT64_C(1000000000), 60 * INT64_C(1000000000),
					  600 * INT64_C(1000000000) };

void source_set_state(struct source *src, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(src->state, sizeof(src->state), fmt, ap);
	va_end(ap);
}

int64_t source_wider_ns(int64_t cur_ns)
{
	size_t n = sizeof(wider_steps_ns) / sizeof(wider_steps_ns[0]), i;

	for (i = 0; i < n && wider_steps_ns[i] != cur_ns; i++)
		;
	return wider_steps_ns[i < n ? (i + 1) % n : 0];
}

long source_step_long(const long *steps, size_t n, long cur, int dir)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = dir > 0 ? i : n - 1 - i;

		if (dir > 0 ? steps[k] > cur : steps[k] < cur)
			return steps[k];
	}
	return cur;
}

/* ---- the interface ---- */

/* The parts every kind may use, before the kind is chosen. */
static int source_new(const struct source_opts *o, struct source **ret_src, char *err, size_t errsz)
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
		src->root_given = true;
	}
	*ret_src = src;
	src->tok = json_tokener_new();
	if (!src->tok) {
		snprintf(err, errsz, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

int source_open(const struct source_opts *o, struct source **ret_src, char *err, size_t errsz)
{
	struct source *src = NULL;
	int r;

	r = source_new(o, &src, err, errsz);
	if (r < 0)
		goto fail;
	if (o->replay) {
		r = source_replay_start(src, o, err, errsz);
		if (r < 0)
			goto fail;
		*ret_src = src;
		return 0;
	}
	/* --root without --socket names the tree to sample, not a daemon's */
	if (!o->embedded && (o->socket || !o->root)) {
		r = source_daemon_open(src, o, err, errsz);
		if (r < 0)
			goto fail;
		if (r > 0) {
			*ret_src = src;
			return 0;
		}
	}
	r = source_embedded_start(src, o->root, err, errsz);
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
	source_daemon_close(src);
	sampler_close(src->sampler);
	sampler_replay_close(src->rp);
	sampler_close(src->past_s);
	past_clear(src);
	sb_free(&src->pack);
	if (src->root_given)
		root_close(&src->root);
	if (src->tok)
		json_tokener_free(src->tok);
	free(src);
}

void source_pollfd(const struct source *src, struct pollfd *ret_pfd)
{
	ret_pfd->fd = src->ops == &source_daemon_ops ? src->fd : -1;
	ret_pfd->events = POLLIN | (src->wlen ? POLLOUT : 0);
	ret_pfd->revents = 0;
}

int64_t source_deadline_ns(const struct source *src)
{
	return src->ops->deadline_ns(src);
}

unsigned source_dispatch(struct source *src, short revents, int64_t now_ns, struct model *m,
			 bool paused)
{
	return src->ops->dispatch(src, revents, now_ns, m, paused);
}

unsigned source_step_interval(struct source *src, int dir, int64_t now_ns)
{
	return src->ops->step_interval(src, dir, now_ns);
}

void source_want(struct source *src, unsigned cad_mask)
{
	if (src->want == cad_mask)
		return;
	src->want = cad_mask;
	if (src->ops == &source_daemon_ops)
		source_daemon_want(src);
}

enum source_kind source_kind(const struct source *src)
{
	return src->ops->kind;
}

unsigned source_time_step(struct source *src, int dir, struct model *m)
{
	return src->ops->time->step(src, dir, m);
}

unsigned source_time_jump(struct source *src, int64_t real_ns, struct model *m)
{
	return src->ops->time->jump(src, real_ns, m);
}

unsigned source_time_widen(struct source *src, struct model *m)
{
	return src->ops->time->widen(src, m);
}

unsigned source_time_now(struct source *src, struct model *m)
{
	return src->ops->time->now(src, m);
}

long source_interval_ms(const struct source *src)
{
	if (src->past && src->past_base_ns)
		return (long)((src->past_ns - src->past_base_ns) / 1000000);
	return src->ops->interval_ms(src);
}

bool source_connected(const struct source *src)
{
	return src->ops != &source_daemon_ops || (src->fd >= 0 && src->hello_ok);
}

const char *source_socket(const struct source *src)
{
	return src->ops == &source_daemon_ops ? src->path : "";
}

const char *source_state(const struct source *src)
{
	return src->state;
}

int source_apply(const struct source *src, const struct model_advice *advice, const char *root_dir,
		 const char *id, bool undo, char *msg, size_t size)
{
	return src->ops->apply(src, advice, root_dir, id, undo, msg, size);
}
