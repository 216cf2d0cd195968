// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libaio engine (Linux native AIO): one aio context per worker thread, one
 * iocb per unit, everything staged since the last submit goes to the kernel
 * in a single io_submit. Completions are read straight from the context's
 * ring in user memory when some are already posted, so a busy queue needs
 * no io_getevents call for them (the kernel ABI fio's userspace_reap uses).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libaio.h>

#include "engine.h"

/* The header the kernel maps at the address of an aio context (fs/aio.c). */
struct aio_ring {
	unsigned id;
	unsigned nr; /* number of io_events */
	unsigned head;
	unsigned tail;
	unsigned magic;
	unsigned compat_features;
	unsigned incompat_features;
	unsigned header_length;
	struct io_event events[];
};

#define AIO_RING_MAGIC 0xa10a10a1

struct aio_priv {
	io_context_t ioctx;
	struct iocb *iocbs;    /* one per unit */
	struct iocb **pending; /* staged, not yet submitted */
	unsigned npending;
	struct io_event *events;
	bool *inflight; /* per unit: submitted, not yet reaped (what a stop cancels) */
};

static int engine_aio_init(struct engine_ctx *ctx)
{
	struct aio_priv *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->iocbs = calloc(ctx->depth, sizeof(*p->iocbs));
	p->pending = calloc(ctx->depth, sizeof(*p->pending));
	p->events = calloc(ctx->depth, sizeof(*p->events));
	p->inflight = calloc(ctx->depth, sizeof(*p->inflight));
	if (!p->iocbs || !p->pending || !p->events || !p->inflight) {
		r = -ENOMEM;
		goto fail;
	}
	r = io_setup((int)ctx->depth, &p->ioctx);
	if (r < 0) {
		snprintf(ctx->error_what, sizeof(ctx->error_what),
			 "io_setup(%u) (see /proc/sys/fs/aio-max-nr)", ctx->depth);
		goto fail;
	}
	ctx->priv = p;
	return 0;
fail:
	free(p->iocbs);
	free(p->pending);
	free(p->events);
	free(p->inflight);
	free(p);
	return r;
}

static int engine_aio_stage(struct engine_ctx *ctx, struct io_unit *u)
{
	struct aio_priv *p = ctx->priv;
	struct iocb *cb = &p->iocbs[u->idx];

	if (p->npending >= ctx->depth)
		return -EBUSY;
	if (u->ddir == DDIR_READ)
		io_prep_pread(cb, ctx->fd, u->buf, u->len, (long long)u->offset);
	else
		io_prep_pwrite(cb, ctx->fd, u->buf, u->len, (long long)u->offset);
	cb->data = u;
	p->pending[p->npending++] = cb;
	return 0;
}

static int engine_aio_submit(struct engine_ctx *ctx)
{
	struct aio_priv *p = ctx->priv;
	unsigned off = 0;
	int r;

	/* io_submit may take fewer than asked: hand it the rest until all are in. */
	while (off < p->npending) {
		r = io_submit(p->ioctx, (long)(p->npending - off), p->pending + off);
		if (r == -EINTR || r == -EAGAIN)
			continue;
		if (r < 0) {
			snprintf(ctx->error_what, sizeof(ctx->error_what), "io_submit");
			return r;
		}
		for (int i = 0; i < r; i++)
			p->inflight[((struct io_unit *)p->pending[off + (unsigned)i]->data)->idx] =
			    true;
		off += (unsigned)r;
	}
	p->npending = 0;
	return 0;
}

/* Takes up to max events that are already in the ring; -1 if the ring is not usable. */
static int aio_user_reap(struct aio_priv *p, struct io_event *ev, unsigned max)
{
	struct aio_ring *ring = (struct aio_ring *)p->ioctx;
	unsigned head, tail, n = 0;

	if (!ring || ring->magic != AIO_RING_MAGIC || ring->incompat_features)
		return -1;
	head = ring->head;
	/* pairs with the kernel's smp_wmb() before it publishes tail */
	tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
	while (head != tail && n < max) {
		ev[n++] = ring->events[head];
		head = (head + 1) % ring->nr;
	}
	if (n)
		__atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
	return (int)n;
}

static int engine_aio_reap(struct engine_ctx *ctx, unsigned min, struct io_unit **done,
			   unsigned max)
{
	struct aio_priv *p = ctx->priv;
	unsigned got = 0;
	int r;

	if (max > ctx->depth)
		max = ctx->depth;
	r = aio_user_reap(p, p->events, max);
	if (r > 0)
		got = (unsigned)r;
	if (got < min) {
		/* bounded: the loop must see a stop even when nothing completes */
		struct timespec wait = { .tv_sec = ENGINE_REAP_WAIT_NS / 1000000000,
					 .tv_nsec = ENGINE_REAP_WAIT_NS % 1000000000 };

		do
			r = io_getevents(p->ioctx, (long)(min - got), (long)(max - got),
					 p->events + got, &wait);
		while (r == -EINTR);
		if (r < 0) {
			snprintf(ctx->error_what, sizeof(ctx->error_what), "io_getevents");
			return r;
		}
		got += (unsigned)r;
	}
	for (unsigned i = 0; i < got; i++) {
		struct io_unit *u = p->events[i].data;

		/* res is unsigned long in the ABI; errors come as -errno */
		u->result = (int64_t)(long)p->events[i].res;
		p->inflight[u->idx] = false;
		done[i] = u;
	}
	return (int)got;
}

/*
 * io_cancel(2) on each unit in flight. Most files and block devices have no
 * cancel method (EINVAL): their IO ends when the device answers, and
 * io_destroy() in exit waits for it, so buffers are never freed under the
 * kernel. A cancelled one completes through the ring (EINPROGRESS).
 */
static int engine_aio_cancel(struct engine_ctx *ctx)
{
	struct aio_priv *p = ctx->priv;
	struct io_event ev;
	int r = 0;

	for (unsigned i = 0; i < ctx->depth; i++) {
		int c;

		if (!p->inflight[i])
			continue;
		c = io_cancel(p->ioctx, &p->iocbs[i], &ev);
		if (c < 0 && c != -EINVAL && c != -EINPROGRESS && c != -EAGAIN && !r)
			r = c;
	}
	return r;
}

static void engine_aio_exit(struct engine_ctx *ctx)
{
	struct aio_priv *p = ctx->priv;

	if (!p)
		return;
	io_destroy(p->ioctx);
	free(p->iocbs);
	free(p->pending);
	free(p->events);
	free(p->inflight);
	free(p);
	ctx->priv = NULL;
}

const struct engine_ops engine_aio_ops = {
	.name = "libaio",
	.init = engine_aio_init,
	.stage = engine_aio_stage,
	.submit = engine_aio_submit,
	.reap = engine_aio_reap,
	.cancel = engine_aio_cancel,
	.exit = engine_aio_exit,
};
