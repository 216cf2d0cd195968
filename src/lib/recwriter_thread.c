// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * recwriter_thread: the writer's own thread: the sampling path queues a
 * frame's payload (bounded, the oldest dropped and said so) and the
 * thread writes it, so that the disk's waits never sit in a sample.
 *
 * One of the flight recorder's files (doc/map.md, src/lib): rec_crc.c the
 * checksum, rec_segment.c the segments' names and listing, recwriter.c
 * writes, recwriter_thread.c the writer's thread, recwriter_compact.c
 * seals and compacts, recreader.c reads; rec_file_int.h is what they
 * share, rec_file.h the interface (doc/recording.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "rec_file_int.h"

/* ---- the async writer: the disk's waits in a thread of their own ---- */

/* Under qlock: st as the thread left it, with the queue's counts. */
static void publish(struct recwriter *w)
{
	struct recwriter_stats keep = w->pub;

	w->pub = w->st;
	w->pub.queued = w->qn;
	w->pub.queue_peak = keep.queue_peak;
	w->pub.queue_max = w->o.queue_max;
	w->pub.dropped = keep.dropped;
	w->pub.write_max_ns = keep.write_max_ns;
	w->pub.write_cpu_ns = keep.write_cpu_ns;
	w->pub.last_err = keep.last_err;
}

static void *writer_main(void *arg)
{
	struct recwriter *w = arg;

	pthread_mutex_lock(&w->qlock);
	for (;;) {
		struct qent e;
		int64_t t0, cpu0;
		int r;

		while (!w->qn && !w->qstop)
			pthread_cond_wait(&w->qcond, &w->qlock);
		if (!w->qn)
			break; /* stopped and drained */
		e = w->q[w->qhead];
		memset(&w->q[w->qhead].buf, 0, sizeof(e.buf));
		w->qhead = (w->qhead + 1) % w->o.queue_max;
		w->qn--;
		w->qbytes -= e.buf.len;
		pthread_mutex_unlock(&w->qlock);
		t0 = clock_ns(CLOCK_MONOTONIC);
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		r = recwriter_append_now(w, e.id, e.mono_ns, e.real_ns, e.buf.buf ? e.buf.buf : "",
					 e.buf.len, &e.buf, e.dropped);
		cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		t0 = clock_ns(CLOCK_MONOTONIC) - t0;
		pthread_mutex_lock(&w->qlock);
		publish(w);
		w->pub.write_cpu_ns += cpu0;
		if (t0 > w->pub.write_max_ns)
			w->pub.write_max_ns = t0;
		if (r < 0)
			w->pub.last_err = r;
		/* its buffer (the previous payload's, after a swap) for a next frame */
		if (w->nspare < QUEUE_SPARE) {
			sb_reset(&e.buf);
			e.buf.err = 0;
			w->spare[w->nspare++] = e.buf;
		} else {
			sb_free(&e.buf);
		}
	}
	pthread_mutex_unlock(&w->qlock);
	return NULL;
}

/* Queues payload's bytes (its buffer taken, another given back) for the
 * thread, or drops the frame when the queue is full. Never waits on I/O:
 * qlock is held by the thread only between its writes. */
static int enqueue(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
		   struct strbuf *payload)
{
	struct qent *e;

	pthread_mutex_lock(&w->qlock);
	if (payload->len > REC_FILE_RAW_MAX) {
		w->drop_next = true;
		pthread_mutex_unlock(&w->qlock);
		return -EFBIG;
	}
	if (w->qn == w->o.queue_max || (w->qn && w->qbytes + payload->len > REC_FILE_QUEUE_BYTES)) {
		w->pub.dropped++;
		w->drop_next = true;
		pthread_mutex_unlock(&w->qlock);
		return 0;
	}
	e = &w->q[(w->qhead + w->qn) % w->o.queue_max];
	e->buf = *payload;
	if (w->nspare)
		*payload = w->spare[--w->nspare];
	else
		memset(payload, 0, sizeof(*payload));
	sb_reset(payload);
	e->id = id;
	e->mono_ns = mono_ns;
	e->real_ns = real_ns;
	e->dropped = w->drop_next;
	w->drop_next = false;
	w->qn++;
	w->qbytes += e->buf.len;
	if (w->qn > w->pub.queue_peak)
		w->pub.queue_peak = w->qn;
	w->pub.queued = w->qn;
	pthread_cond_signal(&w->qcond);
	pthread_mutex_unlock(&w->qlock);
	return 1;
}

int recwriter_start_thread(struct recwriter *w)
{
	int e;

	if (w->thread_on)
		return 0;
	if (!w->o.queue_max)
		w->o.queue_max = REC_FILE_QUEUE_MAX;
	w->q = calloc(w->o.queue_max, sizeof(*w->q));
	if (!w->q)
		return -ENOMEM;
	pthread_mutex_init(&w->qlock, NULL);
	pthread_cond_init(&w->qcond, NULL);
	w->pub = w->st;
	w->pub.queue_max = w->o.queue_max;
	e = pthread_create(&w->thread, NULL, writer_main, w);
	if (e) {
		pthread_cond_destroy(&w->qcond);
		pthread_mutex_destroy(&w->qlock);
		free(w->q);
		w->q = NULL;
		return -e;
	}
	w->thread_on = true;
	return 0;
}

/* Lets the thread write what is queued, then joins it. */
void recwriter_thread_stop(struct recwriter *w)
{
	if (!w->thread_on)
		return;
	pthread_mutex_lock(&w->qlock);
	w->qstop = true;
	pthread_cond_signal(&w->qcond);
	pthread_mutex_unlock(&w->qlock);
	pthread_join(w->thread, NULL);
	w->thread_on = false;
	for (unsigned i = 0; i < w->o.queue_max; i++)
		sb_free(&w->q[i].buf);
	for (unsigned i = 0; i < w->nspare; i++)
		sb_free(&w->spare[i]);
	free(w->q);
	pthread_cond_destroy(&w->qcond);
	pthread_mutex_destroy(&w->qlock);
}

int recwriter_append(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
		     const void *payload, size_t len)
{
	struct strbuf copy = { 0 };
	int r;

	if (!w->thread_on)
		return recwriter_append_now(w, id, mono_ns, real_ns, payload, len, NULL, false);
	if (len > REC_FILE_RAW_MAX) {
		copy.len = len; /* enqueue() refuses it, and says so in the next frame */
		return enqueue(w, id, mono_ns, real_ns, &copy);
	}
	sb_append(&copy, payload, len);
	r = copy.err ? copy.err : enqueue(w, id, mono_ns, real_ns, &copy);
	sb_free(&copy);
	return r;
}

int recwriter_append_take(struct recwriter *w, uint64_t id, int64_t mono_ns, int64_t real_ns,
			  struct strbuf *payload)
{
	if (payload->err)
		return payload->err;
	if (w->thread_on)
		return enqueue(w, id, mono_ns, real_ns, payload);
	return recwriter_append_now(w, id, mono_ns, real_ns, payload->buf ? payload->buf : "",
				    payload->len, payload, false);
}
