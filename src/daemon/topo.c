// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The advisor's topology (/proc/irq/N, /sys/kernel/irq, PCI devices, NIC
 * queues) read on a thread. On a host with thousands of IRQs that is tens of
 * thousands of small file reads, far longer than a sample: done in the epoll
 * loop it would hold every subscriber's sample back. The thread reads it
 * every SAMPLER_TOPO_NS while a finding stands or a live view watches (its
 * IRQ lines' affinities are the topology's), every SAMPLER_TOPO_IDLE_NS
 * otherwise (topo_reader_pace), or at once when asked (after an apply or undo),
 * leaves the result in a slot and signals an eventfd; the loop hands it to
 * the sampler, which advises on the latest topology it was given.
 *
 * A read may never return (a hung device's sysfs file, a stalled FUSE or
 * NFS tree under --root), so shutdown waits TOPO_STOP_DEADLINE_MS for the
 * thread and then leaves it behind, detached: it owns its root descriptor
 * and its struct, writes nothing once told to stop, and frees both itself
 * if its read ever returns. The daemon then exits as for a left-behind
 * worker (main.c: _exit, the process ends when the read does).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "daemon.h"

/*
 * How long shutdown waits for a read in progress. A healthy read of a big
 * host's topology is tens of milliseconds; past this, the thread is
 * left behind. doc/daemon.md.
 */
#define TOPO_STOP_DEADLINE_MS 2000

/* Who frees the reader: the loop after a join, or the thread itself once
 * the loop gave up on it (the handshake of worker.c's runs). */
enum topo_fate {
	TOPO_RUNNING,
	TOPO_ENDED,
	TOPO_ADRIFT,
};

struct topo_reader {
	struct watch w; /* first: the eventfd the thread writes when a topology is ready */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* CLOCK_MONOTONIC; the thread waits on it for work */
	pthread_cond_t end_cv;	/* the loop waits on it for the thread's end */
	bool stop, want, ended; /* under mu */
	struct topology *ready; /* under mu: read, not yet taken by the loop */
	/* the thread's own copy (its own descriptor): it may outlive the sampler */
	struct root root;
	bool started;
	atomic_int fate;       /* enum topo_fate */
	struct topo_hint hint; /* the thread's own: irqbalance's PID between reads */
	int64_t period_ns;     /* under mu: sampler_topo_period_ns() of the last sample */
	bool search;	       /* under mu: the next read searches /proc for irqbalance */
	int64_t search_ns;     /* the loop's: when it last asked for a search */
};

static void topo_reader_free(struct topo_reader *t)
{
	if (t->ready) {
		topology_free(t->ready);
		free(t->ready);
	}
	if (t->w.fd >= 0)
		close(t->w.fd);
	root_close(&t->root);
	pthread_cond_destroy(&t->cv);
	pthread_cond_destroy(&t->end_cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

/* A finding asks for an irqbalance search at most this often: the
 * longest wait between searches of TOPO_IRQBALANCE_RESCAN_MAX reads. */
#define TOPO_SEARCH_NS (TOPO_IRQBALANCE_RESCAN_MAX * SAMPLER_TOPO_NS)

static void *topo_thread(void *arg)
{
	struct topo_reader *t = arg;

	int64_t last = clock_mono_ns();

	pthread_mutex_lock(&t->mu);
	for (;;) {
		struct timespec until;
		struct topology *topo;
		uint64_t one = 1;
		int e;

		/* the period may change while waiting (topo_reader_pace) */
		while (!t->stop && !t->want) {
			int64_t at = last + t->period_ns;

			if (clock_mono_ns() >= at)
				break;
			until.tv_sec = at / 1000000000;
			until.tv_nsec = at % 1000000000;
			pthread_cond_timedwait(&t->cv, &t->mu, &until);
		}
		if (t->stop)
			break;
		t->want = false;
		if (t->search)
			t->hint.rescan_wait = 0;
		t->search = false;
		pthread_mutex_unlock(&t->mu);
		last = clock_mono_ns();

		topo = calloc(1, sizeof(*topo));
		e = topo ? topology_collect_hint(&t->root, &t->hint, topo) : -ENOMEM;
		if (e < 0) {
			free(topo);
			topo = NULL;
		}

		pthread_mutex_lock(&t->mu);
		if (topo && t->stop) {
			/* too late: the loop may have gone on without us */
			topology_free(topo);
			free(topo);
			break;
		}
		if (topo) {
			if (t->ready) { /* the loop has not taken the last one: replace it */
				topology_free(t->ready);
				free(t->ready);
			}
			t->ready = topo;
			/* a counter far from its maximum: cannot block or fail short */
			if (write(t->w.fd, &one, sizeof(one)) < 0)
				break;
		}
	}
	t->ended = true;
	pthread_cond_signal(&t->end_cv);
	pthread_mutex_unlock(&t->mu);
	if (atomic_exchange(&t->fate, TOPO_ENDED) == TOPO_ADRIFT)
		topo_reader_free(t); /* left behind: nobody else holds t */
	return NULL;
}

int topo_reader_start(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct topo_reader *t;
	pthread_condattr_t ca;
	int r;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->w.kind = WATCH_TOPOLOGY;
	t->root = *sampler_root(d->sampler);
	t->root.dirfd = fcntl(t->root.dirfd, F_DUPFD_CLOEXEC, 0);
	t->want = true; /* the first at once */
	atomic_init(&t->fate, TOPO_RUNNING);
	t->period_ns = SAMPLER_TOPO_NS;
	t->search_ns = clock_mono_ns(); /* the first read searches */
	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);
	pthread_cond_init(&t->end_cv, &ca);
	pthread_condattr_destroy(&ca);
	t->w.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (t->w.fd < 0 || t->root.dirfd < 0) {
		r = -errno;
		goto fail;
	}
	ev.data.ptr = &t->w;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, t->w.fd, &ev) < 0) {
		r = -errno;
		goto fail;
	}
	r = loop_thread_start(&t->thread, topo_thread, t);
	if (r < 0)
		goto fail;
	t->started = true;
	d->topo = t;
	return 0;
fail:
	topo_reader_free(t);
	return r;
}

void topo_reader_request(struct daemon *d)
{
	struct topo_reader *t = d->topo;

	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->want = true;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

/* Someone watches the samples as they come (a live view): the affinities
 * each sample carries must not be minutes old. */
static bool watched(const struct daemon *d)
{
	for (const struct client *c = d->clients; c; c = c->next)
		if (c->subscribed && !c->dead)
			return true;
	return false;
}

void topo_reader_pace(struct daemon *d)
{
	struct topo_reader *t = d->topo;
	int64_t p = sampler_topo_period_ns(d->sampler), now;

	if (!t)
		return;
	if (p > SAMPLER_TOPO_NS && watched(d))
		p = SAMPLER_TOPO_NS;
	pthread_mutex_lock(&t->mu);
	if (p != t->period_ns) {
		now = clock_mono_ns();
		/* a finding came: irqbalance's presence matters again; the
		 * search (every /proc/PID/comm, 11 ms with 2 000 processes) at
		 * most every TOPO_SEARCH_NS, findings that come and go would
		 * otherwise search every minute */
		if (p < t->period_ns && now - t->search_ns >= TOPO_SEARCH_NS) {
			t->search = true;
			t->search_ns = now;
		}
		t->period_ns = p;
		pthread_cond_signal(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
}

void topo_reader_event(struct daemon *d)
{
	struct topo_reader *t = d->topo;
	struct topology *topo;
	uint64_t n;

	if (!t)
		return;
	while (read(t->w.fd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&t->mu);
	topo = t->ready;
	t->ready = NULL;
	pthread_mutex_unlock(&t->mu);
	if (topo) {
		sampler_put_topology(d->sampler, topo);
		free(topo);
	}
}

bool topo_reader_stop(struct daemon *d)
{
	struct topo_reader *t = d->topo;
	struct timespec until;
	bool ended;

	if (!t)
		return false;
	d->topo = NULL;
	until = clock_mono_after(TOPO_STOP_DEADLINE_MS);
	pthread_mutex_lock(&t->mu);
	t->stop = true;
	pthread_cond_signal(&t->cv);
	while (t->started && !t->ended)
		if (pthread_cond_timedwait(&t->end_cv, &t->mu, &until) == ETIMEDOUT)
			break;
	ended = !t->started || t->ended;
	pthread_mutex_unlock(&t->mu);
	/* out of the loop's epoll either way: the loop is ending */
	if (d->epfd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, t->w.fd, NULL);
	if (!ended && atomic_exchange(&t->fate, TOPO_ADRIFT) == TOPO_RUNNING) {
		/* still in a read: it frees t if that read ever returns */
		pthread_detach(t->thread);
		daemon_log(LOG_WARNING,
			   "topology thread: a read did not return within %d ms of the stop "
			   "(a hung device or filesystem under %s?): left behind",
			   TOPO_STOP_DEADLINE_MS, t->root.path[0] ? t->root.path : "/");
		return true;
	}
	if (t->started)
		pthread_join(t->thread, NULL);
	topo_reader_free(t);
	return false;
}
