// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The job loop every engine shares: per worker thread, keep up to iodepth
 * units in flight, pick each one's direction (rwmixread) and offset
 * (sequential, or a random permutation of the blocks so a pass touches each
 * block once, like fio's random map), honour rate_iops, fsync, ramp_time,
 * runtime and size, and time every IO the way fio does (slat, clat, lat).
 * Never prints; errors land in the thread's result.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "job.h"

#define NSEC_PER_SEC 1000000000LL

/* Each engine by its job_engine value; its ops carry fio's name for it. */
static const struct engine_ops *const engines[] = {
	[ENGINE_IO_URING] = &engine_uring_ops,
	[ENGINE_LIBAIO] = &engine_aio_ops,
	[ENGINE_PSYNC] = &engine_psync_ops,
};

const struct engine_ops *engine_ops_for(enum job_engine e)
{
	return (unsigned)e < sizeof(engines) / sizeof(engines[0]) ? engines[e] : NULL;
}

const char *job_engine_name(enum job_engine e)
{
	const struct engine_ops *ops = engine_ops_for(e);

	return ops ? ops->name : "?";
}

const char *job_rw_name(enum job_rw rw)
{
	static const char *const names[] = { "read",	  "write", "randread",
					     "randwrite", "rw",	   "randrw" };

	return (unsigned)rw < sizeof(names) / sizeof(names[0]) ? names[rw] : "?";
}

/* xorshift64*: the direction mix and buffer contents; not for security. */
static inline uint64_t job_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * A bijection on [0, 2^bits): xor with the seed, odd multiplies (invertible
 * mod 2^bits) and right xorshifts (invertible within bits). Walking a
 * counter through it and dropping values >= nblocks visits every block
 * exactly once per pass, in an order that looks random, with O(1) state.
 */
static uint64_t job_perm(uint64_t x, uint64_t seed, unsigned bits, uint64_t mask)
{
	unsigned s = bits / 2 + 1;

	x = (x ^ seed) & mask;
	x = (x * 0x9e3779b97f4a7c15ULL) & mask;
	if (s < bits)
		x ^= x >> s;
	x = (x * 0xbf58476d1ce4e5b9ULL) & mask;
	if (s < bits)
		x ^= x >> s;
	return (x + (seed >> 7)) & mask;
}

struct offgen {
	uint64_t nblocks;
	unsigned bits;
	uint64_t mask;
	uint64_t counter;
	uint64_t seed;
	uint64_t seq[DDIR__COUNT]; /* next sequential block per direction */
};

static void offgen_init(struct offgen *g, uint64_t nblocks, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->nblocks = nblocks;
	while (g->bits < 63 && (UINT64_C(1) << g->bits) < nblocks)
		g->bits++;
	g->mask = (UINT64_C(1) << g->bits) - 1;
	g->seed = seed;
}

static uint64_t offgen_next(struct offgen *g, bool random, enum job_ddir d)
{
	uint64_t b;

	if (!random) {
		b = g->seq[d];
		g->seq[d] = b + 1 >= g->nblocks ? 0 : b + 1;
		return b;
	}
	for (;;) {
		if (g->counter > g->mask) {
			g->counter = 0;
			g->seed = g->seed * 6364136223846793005ULL + 1442695040888963407ULL;
		}
		b = job_perm(g->counter++, g->seed, g->bits, g->mask);
		if (b < g->nblocks)
			return b;
	}
}

/* Threads set up their engine, then wait here so all of them measure the same period. */
struct job_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;
	bool open;
	bool abort; /* a thread failed to set up, or to start: nobody runs */
};

struct worker {
	pthread_t thread;
	unsigned index;
	const struct job_spec *spec;
	const struct job_target *target;
	struct job_control *ctl;
	struct job_gate *gate;
	const struct engine_ops *ops;
	struct engine_ctx ctx;
	struct job_result *res;
	struct offgen gen;
	uint64_t rng;
	int64_t measure_at;
	bool measuring;
	struct rusage ru0;
};

static void job_fail(struct worker *w, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void job_fail(struct worker *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->res->error)
		return;
	w->res->error = err;
	va_start(ap, fmt);
	vsnprintf(w->res->error_what, sizeof(w->res->error_what), fmt, ap);
	va_end(ap);
}

static void job_dir_stats_init(struct job_dir_stats *d)
{
	d->ios = d->bytes = d->short_ios = 0;
	histogram_summary_init(&d->slat);
	histogram_init(&d->clat);
	histogram_summary_init(&d->lat);
}

static void job_result_reset(struct job_result *r)
{
	for (int d = 0; d < DDIR__COUNT; d++)
		job_dir_stats_init(&r->dir[d]);
	histogram_summary_init(&r->sync);
	r->nsec = 0;
	if (r->sec)
		memset(r->sec, 0, sizeof(*r->sec) * r->sec_cap);
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC_PER_SEC + (uint64_t)tv->tv_usec * 1000;
}

/* End of ramp_time: what happened so far is forgotten, the clock for the timeline starts. */
static void job_begin_measure(struct worker *w, int64_t now)
{
	job_result_reset(w->res);
	w->measure_at = now;
	w->measuring = true;
	getrusage(RUSAGE_THREAD, &w->ru0);
}

static void job_end_measure(struct worker *w, int64_t now)
{
	struct job_result *r = w->res;
	struct rusage ru;

	if (!w->measuring)
		job_begin_measure(w, now);
	r->runtime_ns = (uint64_t)(now - w->measure_at);
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		r->usr_ns = tv_ns(&ru.ru_utime) - tv_ns(&w->ru0.ru_utime);
		r->sys_ns = tv_ns(&ru.ru_stime) - tv_ns(&w->ru0.ru_stime);
		r->ctx =
		    (uint64_t)(ru.ru_nvcsw - w->ru0.ru_nvcsw + ru.ru_nivcsw - w->ru0.ru_nivcsw);
		r->majf = (uint64_t)(ru.ru_majflt - w->ru0.ru_majflt);
		r->minf = (uint64_t)(ru.ru_minflt - w->ru0.ru_minflt);
	}
}

static int job_second_slot(struct job_result *r, uint64_t sec, struct job_second **ret)
{
	if (sec >= r->sec_cap) {
		unsigned cap = r->sec_cap ? r->sec_cap : 16;
		struct job_second *n;

		while (cap <= sec)
			cap *= 2;
		n = realloc(r->sec, sizeof(*n) * cap);
		if (!n)
			return -ENOMEM;
		memset(n + r->sec_cap, 0, sizeof(*n) * (cap - r->sec_cap));
		r->sec = n;
		r->sec_cap = cap;
	}
	if (sec >= r->nsec)
		r->nsec = (unsigned)sec + 1;
	*ret = &r->sec[sec];
	return 0;
}

/* Accounts one finished unit. Returns 0, or -errno when the IO failed. */
static int job_account(struct worker *w, struct io_unit *u)
{
	struct job_dir_stats *st = &w->res->dir[u->ddir];
	struct job_second *sec;
	uint64_t done;

	if (u->result < 0) {
		job_fail(w, (int)u->result, "%s of %u bytes at offset %llu",
			 u->ddir == DDIR_READ ? "read" : "write", u->len,
			 (unsigned long long)u->offset);
		return (int)u->result;
	}
	if (u->result == 0) {
		job_fail(w, -EIO, "%s at offset %llu returned 0 bytes (end of the target?)",
			 u->ddir == DDIR_READ ? "read" : "write", (unsigned long long)u->offset);
		return -EIO;
	}
	done = (uint64_t)u->result;
	if (done < u->len)
		st->short_ios++;
	if (!w->measuring)
		return 0;
	st->ios++;
	st->bytes += done;
	if (!w->ops->synchronous)
		histogram_summary_add(&st->slat, (uint64_t)(u->issue_ns - u->start_ns));
	histogram_add(&st->clat, (uint64_t)(u->done_ns - u->issue_ns));
	if (w->ctl->live)
		job_live_add(w->ctl->live, u->ddir, (uint64_t)(u->done_ns - u->issue_ns));
	histogram_summary_add(&st->lat, (uint64_t)(u->done_ns - u->start_ns));
	if (u->done_ns >= w->measure_at &&
	    job_second_slot(w->res, (uint64_t)(u->done_ns - w->measure_at) / NSEC_PER_SEC, &sec) ==
		0) {
		sec->ios[u->ddir]++;
		sec->bytes[u->ddir] += done;
	}
	return 0;
}

static int job_do_fsync(struct worker *w)
{
	int64_t t0 = clock_mono_ns(), t1;

	if (fsync(w->ctx.fd) < 0) {
		job_fail(w, -errno, "fsync");
		return -1;
	}
	t1 = clock_mono_ns();
	if (w->measuring)
		histogram_summary_add(&w->res->sync, (uint64_t)(t1 - t0));
	return 0;
}

/*
 * A stop with IO still out: asks the engine, once, to cancel it. Its error
 * does not matter: the loop waits for every unit's real completion anyway,
 * so no buffer is freed under the kernel. psync has nothing to ask with.
 */
static void job_cancel(struct worker *w, bool *cancelled)
{
	if (*cancelled)
		return;
	*cancelled = true;
	if (w->ops->cancel)
		w->ops->cancel(&w->ctx);
}

/* The issue loop's state: the units free, staged in this round and just
 * completed, and the counts the loop's decisions rest on. */
struct loop_state {
	struct io_unit **freel, **staged, **done;
	unsigned nfree, inflight, writes_since_sync;
	uint64_t issued_bytes, io_bytes;
	int64_t next_issue, rate_gap;
	bool cancelled; /* a cancel was asked: -ECANCELED results are no failure */
};

/* More to issue: not stopping, and time-based or bytes left. */
static bool loop_more(const struct job_spec *s, const struct loop_state *ls, bool stopping)
{
	return !stopping && (s->time_based || ls->issued_bytes < ls->io_bytes);
}

static bool loop_sync_due(const struct job_spec *s, const struct loop_state *ls)
{
	return s->fsync_every && ls->writes_since_sync >= s->fsync_every;
}

/*
 * Stages units while there is more to issue, a free unit, no fsync due and
 * the rate allows (psync: one, its stage being the IO itself). Returns the
 * number staged, or -1 after job_fail().
 */
static int loop_stage(struct worker *w, struct loop_state *ls, int64_t now, bool stopping)
{
	const struct job_spec *s = w->spec;
	const struct engine_ops *ops = w->ops;
	const bool random = job_rw_random(s->rw);
	unsigned nstaged = 0;

	while (loop_more(s, ls, stopping) && !loop_sync_due(s, ls) && ls->nfree &&
	       (!ls->rate_gap || now >= ls->next_issue)) {
		struct io_unit *u = ls->freel[--ls->nfree];
		enum job_ddir d;
		int n;

		if (s->rw == RW_RW || s->rw == RW_RANDRW)
			d = job_rand(&w->rng) % 100 < s->rwmixread ? DDIR_READ : DDIR_WRITE;
		else
			d = job_rw_reads(s->rw) ? DDIR_READ : DDIR_WRITE;
		u->ddir = d;
		u->offset = w->target->region_off + offgen_next(&w->gen, random, d) * s->bs;
		u->len = (uint32_t)s->bs;
		u->start_ns = now;
		u->issue_ns = u->done_ns = 0;
		/* psync's stage is the IO itself: it counts while it blocks */
		if (ops->synchronous)
			atomic_fetch_add_explicit(&w->ctl->inflight, 1, memory_order_relaxed);
		n = ops->stage(&w->ctx, u);
		if (n < 0) {
			if (ops->synchronous)
				atomic_fetch_sub_explicit(&w->ctl->inflight, 1,
							  memory_order_relaxed);
			job_fail(w, n, "%s: stage", ops->name);
			return -1;
		}
		ls->staged[nstaged++] = u;
		ls->issued_bytes += s->bs;
		if (d == DDIR_WRITE)
			ls->writes_since_sync++;
		if (ls->rate_gap)
			ls->next_issue += ls->rate_gap;
		if (ops->synchronous)
			break;
	}
	return (int)nstaged;
}

/* Submits the staged units; 0, or -1 after job_fail(). *now is updated. */
static int loop_submit(struct worker *w, struct loop_state *ls, unsigned nstaged, int64_t *now)
{
	const struct engine_ops *ops = w->ops;
	struct engine_ctx *ctx = &w->ctx;
	int n;

	if (!ops->synchronous)
		atomic_fetch_add_explicit(&w->ctl->inflight, nstaged, memory_order_relaxed);
	n = ops->submit(ctx);
	if (n < 0) {
		atomic_fetch_sub_explicit(&w->ctl->inflight, nstaged, memory_order_relaxed);
		job_fail(w, n, "%s", ctx->error_what[0] ? ctx->error_what : "submit");
		return -1;
	}
	if (!ops->synchronous) {
		*now = clock_mono_ns();
		for (unsigned i = 0; i < nstaged; i++)
			ls->staged[i]->issue_ns = *now;
	}
	ls->inflight += nstaged;
	return 0;
}

/*
 * Takes back the n completed units in done[]: every one is freed, even
 * after a failure (the drain waits only for those still out); what a stop
 * cancelled is neither a failure nor an IO done. 0, or -1 after a failed
 * IO (job_account() said why).
 */
static int loop_complete(struct worker *w, struct loop_state *ls, int n, int64_t now)
{
	uint64_t ios[DDIR__COUNT] = { 0 }, bytes[DDIR__COUNT] = { 0 };
	bool failed = false;

	for (int i = 0; i < n; i++) {
		struct io_unit *u = ls->done[i];

		if (!u->done_ns)
			u->done_ns = now;
		ls->freel[ls->nfree++] = u;
		ls->inflight--;
		if (failed || (ls->cancelled && u->result == -ECANCELED))
			continue;
		if (job_account(w, u) < 0) {
			failed = true;
			continue;
		}
		ios[u->ddir]++;
		bytes[u->ddir] += (uint64_t)u->result;
	}
	for (int d = 0; d < DDIR__COUNT; d++) {
		if (!ios[d])
			continue;
		atomic_fetch_add_explicit(&w->ctl->ios[d], ios[d], memory_order_relaxed);
		atomic_fetch_add_explicit(&w->ctl->bytes[d], bytes[d], memory_order_relaxed);
	}
	return failed ? -1 : 0;
}

/*
 * After a failure: wait for what is in flight so buffers are not freed
 * under the kernel, however long the device takes (a stop cancels what it
 * can; the daemon stops waiting for this thread after its deadline).
 */
static void loop_drain(struct worker *w, struct loop_state *ls)
{
	while (ls->inflight) {
		int n;

		if (atomic_load_explicit(&w->ctl->stop, memory_order_relaxed))
			job_cancel(w, &ls->cancelled);
		n = w->ops->reap(&w->ctx, 1, ls->done, ls->inflight);
		if (n < 0)
			break;
		ls->inflight -= (unsigned)n;
		atomic_fetch_sub_explicit(&w->ctl->inflight, (unsigned)n, memory_order_relaxed);
	}
}

static void job_loop(struct worker *w)
{
	const struct job_spec *s = w->spec;
	struct engine_ctx *ctx = &w->ctx;
	struct loop_state ls = { .nfree = ctx->depth, .io_bytes = w->target->region_len };
	int64_t now, start, deadline;
	bool stopping = false;

	ls.freel = calloc(ctx->depth, sizeof(*ls.freel));
	ls.staged = calloc(ctx->depth, sizeof(*ls.staged));
	ls.done = calloc(ctx->depth, sizeof(*ls.done));
	if (!ls.freel || !ls.staged || !ls.done) {
		job_fail(w, -ENOMEM, "allocate the unit lists");
		goto out;
	}
	for (unsigned i = 0; i < ctx->depth; i++)
		ls.freel[i] = &ctx->units[ctx->depth - 1 - i];

	now = start = clock_mono_ns();
	if (s->ramp_ns)
		w->measure_at = start + (int64_t)s->ramp_ns;
	else
		job_begin_measure(w, start);
	deadline = s->runtime_ns ? w->measure_at + (int64_t)s->runtime_ns : INT64_MAX;
	if (s->rate_iops)
		ls.rate_gap = NSEC_PER_SEC / (int64_t)s->rate_iops;
	ls.next_issue = start;

	for (;;) {
		int n;

		if (!w->measuring && now >= w->measure_at)
			job_begin_measure(w, now);
		if (!stopping &&
		    (atomic_load_explicit(&w->ctl->stop, memory_order_relaxed) || now >= deadline))
			stopping = true;
		/* asked to stop with IO out: what the device holds may never come back */
		if (stopping && ls.inflight &&
		    atomic_load_explicit(&w->ctl->stop, memory_order_relaxed))
			job_cancel(w, &ls.cancelled);
		if (loop_sync_due(s, &ls) && !ls.inflight) {
			if (job_do_fsync(w) < 0)
				break;
			ls.writes_since_sync = 0;
			now = clock_mono_ns();
			continue;
		}
		n = loop_stage(w, &ls, now, stopping);
		if (n < 0 || (n > 0 && loop_submit(w, &ls, (unsigned)n, &now) < 0))
			goto drain;
		if (!ls.inflight) {
			if (!loop_more(s, &ls, stopping) && !loop_sync_due(s, &ls))
				break;
			if (ls.rate_gap && now < ls.next_issue) {
				struct timespec ts = { .tv_sec =
							   (ls.next_issue - now) / NSEC_PER_SEC,
						       .tv_nsec =
							   (ls.next_issue - now) % NSEC_PER_SEC };

				nanosleep(&ts, NULL);
			}
			now = clock_mono_ns();
			continue;
		}
		n = w->ops->reap(ctx, 1, ls.done, ls.inflight);
		if (n < 0) {
			job_fail(w, n, "%s", ctx->error_what[0] ? ctx->error_what : "reap");
			goto drain;
		}
		/* 0: the engine's wait ran out; the top of the loop looks at stop again */
		if (n)
			atomic_fetch_sub_explicit(&w->ctl->inflight, (unsigned)n,
						  memory_order_relaxed);
		now = clock_mono_ns();
		if (loop_complete(w, &ls, n, now) < 0)
			goto drain;
	}
	job_end_measure(w, now);
	goto out;
drain:
	loop_drain(w, &ls);
	job_end_measure(w, clock_mono_ns());
out:
	if (ls.inflight) /* a failed reap: they are not waited for, nor counted */
		atomic_fetch_sub_explicit(&w->ctl->inflight, ls.inflight, memory_order_relaxed);
	free(ls.freel);
	free(ls.staged);
	free(ls.done);
}

static void *job_thread(void *arg)
{
	struct worker *w = arg;
	struct job_gate *g = w->gate;
	bool run;
	int r;

	r = w->ops->init(&w->ctx);
	if (r < 0)
		job_fail(w, r, "%s", w->ctx.error_what[0] ? w->ctx.error_what : w->ops->name);
	pthread_mutex_lock(&g->lock);
	if (r < 0)
		g->abort = true;
	g->ready++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	run = !g->abort;
	pthread_mutex_unlock(&g->lock);
	if (r >= 0 && run)
		job_loop(w);
	if (r >= 0)
		w->ops->exit(&w->ctx);
	return NULL;
}

static int job_worker_setup(struct worker *w, unsigned depth)
{
	const struct job_spec *s = w->spec;
	const struct job_target *t = w->target;
	int flags = O_CLOEXEC | (s->direct ? O_DIRECT : 0);
	char self[32];
	uint64_t *p;
	int r;

	/*
	 * The inode target_open checked and opened, never its path again: the
	 * path may lead elsewhere by now (a directory swapped for a symlink) or
	 * be gone (a created file has no name). A new open file description,
	 * for this thread's flags (O_DIRECT, the access mode).
	 */
	flags |= job_rw_writes(s->rw) ? O_RDWR : O_RDONLY;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", t->fd);
	w->ctx.fd = t->fd >= 0 ? open(self, flags) : -1;
	if (w->ctx.fd < 0) {
		r = t->fd >= 0 ? -errno : -EBADF;
		job_fail(w, r, "open %s%s (through %s)", t->path, s->direct ? " with O_DIRECT" : "",
			 self);
		return r;
	}
	w->ctx.depth = depth;
	w->ctx.spec = s;
	w->ctx.buf_len = (uint64_t)depth * s->bs;
	/* 4096: O_DIRECT wants buffers aligned to the logical block size (<= 4096). */
	r = posix_memalign(&w->ctx.bufs, 4096, w->ctx.buf_len);
	if (r) {
		w->ctx.bufs = NULL;
		job_fail(w, -r, "allocate %llu bytes of IO buffers",
			 (unsigned long long)w->ctx.buf_len);
		return -r;
	}
	/* Incompressible contents, so a deduplicating or compressing device is not flattered. */
	p = w->ctx.bufs;
	for (uint64_t i = 0; i < w->ctx.buf_len / sizeof(*p); i++)
		p[i] = job_rand(&w->rng);
	w->ctx.units = calloc(depth, sizeof(*w->ctx.units));
	if (!w->ctx.units) {
		job_fail(w, -ENOMEM, "allocate the IO units");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < depth; i++) {
		w->ctx.units[i].buf = (char *)w->ctx.bufs + (uint64_t)i * s->bs;
		w->ctx.units[i].len = (uint32_t)s->bs;
		w->ctx.units[i].idx = i;
	}
	offgen_init(&w->gen, t->region_len / s->bs, 0x5eed0000ULL + w->index * 0x9e3779b9ULL);
	return 0;
}

static void job_worker_teardown(struct worker *w)
{
	if (w->ctx.fd >= 0)
		close(w->ctx.fd);
	free(w->ctx.bufs);
	free(w->ctx.units);
}

int job_run(const struct job_spec *spec, const struct job_target *t, struct job_control *ctl,
	    struct job_result **ret_results)
{
	unsigned n = spec->numjobs ? spec->numjobs : 1;
	unsigned depth = spec->engine == ENGINE_PSYNC ? 1 : spec->iodepth;
	struct job_gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER,
				 .cond = PTHREAD_COND_INITIALIZER };
	struct worker *ws = NULL;
	struct job_result *res = NULL;
	unsigned started = 0;
	int r = 0;

	if (!spec->bs || spec->bs > UINT32_MAX || !depth || depth > JOB_DEPTH_MAX ||
	    n > JOB_NUMJOBS_MAX || t->region_len < spec->bs)
		return -EINVAL;
	ws = calloc(n, sizeof(*ws));
	res = calloc(n, sizeof(*res));
	if (!ws || !res) {
		free(ws);
		free(res);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &ws[i];

		w->index = i;
		w->spec = spec;
		w->target = t;
		w->ctl = ctl;
		w->res = &res[i];
		w->ops = engine_ops_for(spec->engine);
		w->rng = 0x243f6a8885a308d3ULL ^ ((uint64_t)(i + 1) << 32);
		w->gate = &gate;
		w->ctx.fd = -1;
		snprintf(res[i].name, sizeof(res[i].name), "%s", spec->name);
		res[i].njobs = 1;
		res[i].iodepth = depth;
		job_result_reset(&res[i]);
	}
	for (unsigned i = 0; i < n; i++)
		if (job_worker_setup(&ws[i], depth) < 0)
			goto out; /* the reason is in res[i] */
	for (; started < n; started++) {
		r = -pthread_create(&ws[started].thread, NULL, job_thread, &ws[started]);
		if (r < 0) {
			job_fail(&ws[started], r, "pthread_create");
			break;
		}
	}
	pthread_mutex_lock(&gate.lock);
	while (gate.ready < started)
		pthread_cond_wait(&gate.cond, &gate.lock);
	gate.abort |= started < n;
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
	for (unsigned i = 0; i < started; i++)
		pthread_join(ws[i].thread, NULL);
out:
	for (unsigned i = 0; i < n; i++)
		job_worker_teardown(&ws[i]);
	free(ws);
	*ret_results = res;
	return 0;
}

void job_result_free(struct job_result *r)
{
	if (!r)
		return;
	free(r->sec);
	r->sec = NULL;
	r->nsec = r->sec_cap = 0;
}

void job_results_free(struct job_result *r, unsigned n)
{
	if (!r)
		return;
	for (unsigned i = 0; i < n; i++)
		job_result_free(&r[i]);
	free(r);
}

int job_results_merge(const struct job_result *r, unsigned n, struct job_result *ret_merged)
{
	struct job_result m;
	unsigned nsec = 0;

	memset(&m, 0, sizeof(m));
	job_result_reset(&m);
	for (unsigned i = 0; i < n; i++)
		if (r[i].nsec > nsec)
			nsec = r[i].nsec;
	if (nsec) {
		m.sec = calloc(nsec, sizeof(*m.sec));
		if (!m.sec)
			return -ENOMEM;
		m.nsec = m.sec_cap = nsec;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct job_result *x = &r[i];

		if (i == 0) {
			snprintf(m.name, sizeof(m.name), "%s", x->name);
			m.iodepth = x->iodepth;
		}
		if (!m.error && x->error) {
			m.error = x->error;
			snprintf(m.error_what, sizeof(m.error_what), "%s", x->error_what);
		}
		m.njobs += x->njobs;
		if (x->runtime_ns > m.runtime_ns)
			m.runtime_ns = x->runtime_ns;
		for (int d = 0; d < DDIR__COUNT; d++) {
			m.dir[d].ios += x->dir[d].ios;
			m.dir[d].bytes += x->dir[d].bytes;
			m.dir[d].short_ios += x->dir[d].short_ios;
			histogram_summary_merge(&m.dir[d].slat, &x->dir[d].slat);
			histogram_merge(&m.dir[d].clat, &x->dir[d].clat);
			histogram_summary_merge(&m.dir[d].lat, &x->dir[d].lat);
		}
		histogram_summary_merge(&m.sync, &x->sync);
		for (unsigned s = 0; s < x->nsec; s++)
			for (int d = 0; d < DDIR__COUNT; d++) {
				m.sec[s].ios[d] += x->sec[s].ios[d];
				m.sec[s].bytes[d] += x->sec[s].bytes[d];
			}
		m.usr_ns += x->usr_ns;
		m.sys_ns += x->sys_ns;
		m.ctx += x->ctx;
		m.majf += x->majf;
		m.minf += x->minf;
	}
	*ret_merged = m;
	return 0;
}

double job_result_iops(const struct job_result *r, enum job_ddir d)
{
	if (!r->runtime_ns)
		return 0.0;
	return (double)r->dir[d].ios * 1e9 / (double)r->runtime_ns;
}

double job_result_bw(const struct job_result *r, enum job_ddir d)
{
	if (!r->runtime_ns)
		return 0.0;
	return (double)r->dir[d].bytes * 1e9 / (double)r->runtime_ns;
}
