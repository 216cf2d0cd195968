// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * io_uring engine (liburing): one ring per worker thread, the target fd and
 * the unit buffers registered once so each IO skips the fd lookup and the
 * page pinning. SQPOLL (sqthread_poll) and IOPOLL (hipri) only when asked.
 * A stop cancels what is in flight with IORING_OP_ASYNC_CANCEL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <liburing.h>

#include "engine.h"

/*
 * The user_data of the cancel requests: never a unit's address, so reap
 * tells their completions apart. LIBURING_UDATA_TIMEOUT (all ones) is
 * liburing's own, for the timeout of a wait on kernels without EXT_ARG.
 */
#define URING_CANCEL_ANY  1ULL
#define URING_CANCEL_UNIT 2ULL

struct uring_priv {
	struct io_uring ring;
	bool fixed_file;
	bool fixed_bufs;
	/* IORING_ASYNC_CANCEL_ANY was refused (before 5.19): cancel unit by unit */
	bool cancel_each;
};

static int uring_setup(struct engine_ctx *ctx, struct uring_priv *p)
{
	const struct job_spec *s = ctx->spec;
	struct io_uring_params par;
	unsigned base = 0;
	int r;

	if (s->sqpoll)
		base |= IORING_SETUP_SQPOLL;
	if (s->hipri)
		base |= IORING_SETUP_IOPOLL;
	/*
	 * One thread submits and reaps: SINGLE_ISSUER and COOP_TASKRUN (6.0)
	 * spare the kernel the IPIs and locking a shared ring needs. Older
	 * kernels say EINVAL, and the plain ring works there.
	 */
	memset(&par, 0, sizeof(par));
	par.flags = base | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
	if (s->sqpoll)
		par.sq_thread_idle = 1000; /* ms the poller spins before sleeping */
	r = io_uring_queue_init_params(ctx->depth, &p->ring, &par);
	if (r == -EINVAL) {
		memset(&par, 0, sizeof(par));
		par.flags = base;
		if (s->sqpoll)
			par.sq_thread_idle = 1000;
		r = io_uring_queue_init_params(ctx->depth, &p->ring, &par);
	}
	if (r < 0)
		snprintf(ctx->error_what, sizeof(ctx->error_what), "io_uring_queue_init%s%s",
			 s->sqpoll ? " (sqthread_poll)" : "", s->hipri ? " (hipri)" : "");
	return r;
}

static int engine_uring_init(struct engine_ctx *ctx)
{
	const struct job_spec *s = ctx->spec;
	struct uring_priv *p;
	struct iovec *iov;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	r = uring_setup(ctx, p);
	if (r < 0) {
		free(p);
		return r;
	}
	if (s->registerfiles) {
		r = io_uring_register_files(&p->ring, &ctx->fd, 1);
		if (r < 0) {
			snprintf(ctx->error_what, sizeof(ctx->error_what),
				 "io_uring_register_files (try --registerfiles=0)");
			goto fail;
		}
		p->fixed_file = true;
	}
	if (s->fixedbufs) {
		iov = calloc(ctx->depth, sizeof(*iov));
		if (!iov) {
			r = -ENOMEM;
			goto fail;
		}
		for (unsigned i = 0; i < ctx->depth; i++) {
			iov[i].iov_base = ctx->units[i].buf;
			iov[i].iov_len = ctx->units[i].len;
		}
		r = io_uring_register_buffers(&p->ring, iov, ctx->depth);
		free(iov);
		if (r < 0) {
			snprintf(ctx->error_what, sizeof(ctx->error_what),
				 "io_uring_register_buffers (RLIMIT_MEMLOCK? try --fixedbufs=0)");
			goto fail;
		}
		p->fixed_bufs = true;
	}
	ctx->priv = p;
	return 0;
fail:
	io_uring_queue_exit(&p->ring);
	free(p);
	return r;
}

static int engine_uring_stage(struct engine_ctx *ctx, struct io_unit *u)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_sqe *sqe;
	int fd = p->fixed_file ? 0 : ctx->fd;

	sqe = io_uring_get_sqe(&p->ring);
	if (!sqe)
		return -EBUSY; /* the loop never stages more than depth */
	if (p->fixed_bufs) {
		if (u->ddir == DDIR_READ)
			io_uring_prep_read_fixed(sqe, fd, u->buf, u->len, u->offset, (int)u->idx);
		else
			io_uring_prep_write_fixed(sqe, fd, u->buf, u->len, u->offset, (int)u->idx);
	} else {
		if (u->ddir == DDIR_READ)
			io_uring_prep_read(sqe, fd, u->buf, u->len, u->offset);
		else
			io_uring_prep_write(sqe, fd, u->buf, u->len, u->offset);
	}
	if (p->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, u);
	return 0;
}

static int engine_uring_submit(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;
	int r;

	do
		r = io_uring_submit(&p->ring);
	while (r == -EINTR);
	return r < 0 ? r : 0;
}

/*
 * One cancel request per unit, by its user_data (kernels before 5.19 know
 * no IORING_ASYNC_CANCEL_ANY). A unit not in flight just answers -ENOENT.
 */
static int uring_cancel_each(struct engine_ctx *ctx, struct uring_priv *p)
{
	for (unsigned i = 0; i < ctx->depth; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
		int r;

		if (!sqe) {
			/* the SQ ring holds depth entries: hand these over, go on */
			r = io_uring_submit(&p->ring);
			if (r < 0)
				return r;
			sqe = io_uring_get_sqe(&p->ring);
			if (!sqe)
				return -EBUSY;
		}
		io_uring_prep_cancel(sqe, &ctx->units[i], 0);
		io_uring_sqe_set_data64(sqe, URING_CANCEL_UNIT);
	}
	return io_uring_submit(&p->ring) < 0 ? -EIO : 0;
}

static int engine_uring_cancel(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;
	struct io_uring_sqe *sqe;
	int r;

	if (p->cancel_each)
		return uring_cancel_each(ctx, p);
	sqe = io_uring_get_sqe(&p->ring);
	if (!sqe)
		return -EBUSY;
	/* ANY matches every request; ALL says to cancel each, not the first */
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data64(sqe, URING_CANCEL_ANY);
	do
		r = io_uring_submit(&p->ring);
	while (r == -EINTR);
	return r < 0 ? r : 0;
}

static int engine_uring_reap(struct engine_ctx *ctx, unsigned min, struct io_unit **done,
			     unsigned max)
{
	struct uring_priv *p = ctx->priv;
	struct __kernel_timespec wait = { .tv_sec = ENGINE_REAP_WAIT_NS / 1000000000,
					  .tv_nsec = ENGINE_REAP_WAIT_NS % 1000000000 };
	struct io_uring_cqe *cqes[64], *cqe;
	unsigned got = 0, n;
	bool waited = false, cancel_each = false;
	int r;

	for (;;) {
		/* Collect what is already posted before paying for a syscall. */
		while (got < max) {
			unsigned want = max - got < 64 ? max - got : 64;

			n = io_uring_peek_batch_cqe(&p->ring, cqes, want);
			if (!n)
				break;
			for (unsigned i = 0; i < n; i++) {
				uint64_t data = io_uring_cqe_get_data64(cqes[i]);
				struct io_unit *u;

				/* a cancel's own answer, or liburing's wait timeout */
				if (data == URING_CANCEL_ANY || data == URING_CANCEL_UNIT ||
				    data == LIBURING_UDATA_TIMEOUT) {
					if (data == URING_CANCEL_ANY && cqes[i]->res == -EINVAL)
						cancel_each = true;
					continue;
				}
				u = io_uring_cqe_get_data(cqes[i]);
				u->result = cqes[i]->res;
				done[got++] = u;
			}
			io_uring_cq_advance(&p->ring, n);
		}
		if (cancel_each && !p->cancel_each) {
			p->cancel_each = true;
			r = uring_cancel_each(ctx, p);
			if (r < 0)
				return r;
		}
		if (got >= min || waited)
			return (int)got;
		/* bounded: the loop must see a stop even when nothing completes */
		r = io_uring_wait_cqe_timeout(&p->ring, &cqe, &wait);
		if (r == -ETIME)
			waited = true;
		else if (r < 0 && r != -EINTR && r != -EAGAIN)
			return r;
	}
}

static void engine_uring_exit(struct engine_ctx *ctx)
{
	struct uring_priv *p = ctx->priv;

	if (!p)
		return;
	io_uring_queue_exit(&p->ring);
	free(p);
	ctx->priv = NULL;
}

const struct engine_ops engine_uring_ops = {
	.name = "io_uring",
	.init = engine_uring_init,
	.stage = engine_uring_stage,
	.submit = engine_uring_submit,
	.reap = engine_uring_reap,
	.cancel = engine_uring_cancel,
	.exit = engine_uring_exit,
};
