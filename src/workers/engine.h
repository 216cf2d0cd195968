/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The small interface every IO engine implements for the job loop (job.c):
 * stage io_units, submit them, reap completions. Engines own their kernel
 * objects (ring, aio context) and nothing else: no timing, no offsets, no
 * statistics. One engine instance per worker thread.
 */
#ifndef IOTRIAGE_WORKERS_ENGINE_H
#define IOTRIAGE_WORKERS_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

struct io_unit {
	void *buf;
	uint64_t offset;
	uint32_t len;
	uint32_t idx; /* index in the worker's unit array = registered buffer index */
	enum job_ddir ddir;
	int64_t start_ns; /* staged (fio's start_time) */
	int64_t issue_ns; /* submitted to the kernel */
	int64_t done_ns;  /* completed; set by a synchronous engine, else by the loop */
	int64_t result;	  /* bytes transferred or -errno */
};

struct engine_ctx {
	int fd;
	unsigned depth;
	struct io_unit *units; /* depth units, buffers of bs bytes each */
	void *bufs;	       /* one aligned block holding all unit buffers */
	uint64_t buf_len;      /* depth * bs */
	const struct job_spec *spec;
	void *priv;	      /* the engine's own state */
	char error_what[128]; /* what failed, for the result ("io_uring_queue_init") */
};

/* The longest an async engine's reap waits before it returns to the loop. */
#define ENGINE_REAP_WAIT_NS (100 * 1000 * 1000LL)

struct engine_ops {
	const char *name;
	bool synchronous; /* stage() performs the IO (psync) */
	/* Set up for ctx->depth in-flight units. 0 or -errno (error_what set). */
	int (*init)(struct engine_ctx *ctx);
	/* Stage one unit. Never blocks on the device for async engines. 0 or -errno. */
	int (*stage)(struct engine_ctx *ctx, struct io_unit *u);
	/* Submit everything staged. 0 or -errno. */
	int (*submit)(struct engine_ctx *ctx);
	/* Wait for at least min completions (0 = just collect what is ready),
	 * store up to max units in done[] with result set. Returns the count or
	 * -errno. An async engine waits at most ENGINE_REAP_WAIT_NS and may then
	 * return fewer than min (0): a device that stopped answering must not keep
	 * the loop from seeing a stop. */
	int (*reap)(struct engine_ctx *ctx, unsigned min, struct io_unit **done, unsigned max);
	/* Asks the kernel to cancel every unit in flight (a stop on a device
	 * that does not answer). 0 or -errno. Cancelled units still come back
	 * through reap, with -ECANCELED or their real result; what the kernel
	 * cannot cancel (block IO already queued) keeps its buffer until it
	 * completes. NULL: nothing can be cancelled (psync blocks in the call). */
	int (*cancel)(struct engine_ctx *ctx);
	void (*exit)(struct engine_ctx *ctx);
};

extern const struct engine_ops engine_uring_ops;
extern const struct engine_ops engine_aio_ops;
extern const struct engine_ops engine_psync_ops;

const struct engine_ops *engine_ops_for(enum job_engine e);

#endif
