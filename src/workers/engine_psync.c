// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * psync engine: pread(2)/pwrite(2), one IO at a time (fio's psync). The IO
 * happens in stage(), timed around the system call, so clat is the call's
 * duration and there is no submission latency.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"

struct psync_priv {
	struct io_unit *done; /* the one finished unit not yet reaped */
};

static int engine_psync_init(struct engine_ctx *ctx)
{
	ctx->priv = calloc(1, sizeof(struct psync_priv));
	return ctx->priv ? 0 : -ENOMEM;
}

static int engine_psync_stage(struct engine_ctx *ctx, struct io_unit *u)
{
	struct psync_priv *p = ctx->priv;
	ssize_t r;

	if (p->done)
		return -EBUSY;
	u->issue_ns = clock_mono_ns();
	do {
		if (u->ddir == DDIR_READ)
			r = pread(ctx->fd, u->buf, u->len, (off_t)u->offset);
		else
			r = pwrite(ctx->fd, u->buf, u->len, (off_t)u->offset);
	} while (r < 0 && errno == EINTR);
	u->done_ns = clock_mono_ns();
	u->result = r < 0 ? -errno : (int64_t)r;
	p->done = u;
	return 0;
}

static int engine_psync_submit(struct engine_ctx *ctx)
{
	return 0;
}

static int engine_psync_reap(struct engine_ctx *ctx, unsigned min, struct io_unit **done,
			     unsigned max)
{
	struct psync_priv *p = ctx->priv;

	if (!p->done || !max)
		return min ? -EDEADLK : 0; /* nothing staged: the loop would wait forever */
	done[0] = p->done;
	p->done = NULL;
	return 1;
}

static void engine_psync_exit(struct engine_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct engine_ops engine_psync_ops = {
	.name = "psync",
	.synchronous = true,
	.init = engine_psync_init,
	.stage = engine_psync_stage,
	.submit = engine_psync_submit,
	.reap = engine_psync_reap,
	.exit = engine_psync_exit,
};
