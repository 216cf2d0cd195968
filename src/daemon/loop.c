// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one epoll loop: timerfd (sampling), signalfd (SIGTERM/SIGINT/SIGHUP),
 * the listening socket and the clients. Each batch handles the timer and
 * signals before any client, so sampling never waits behind client work, and
 * clients marked dead during a batch are freed only after it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

int loop_setup(struct daemon *d)
{
	struct itimerspec its = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t mask;

	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->epfd < 0)
		goto fail;
	d->timer.kind = WATCH_TIMER;
	d->timer.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (d->timer.fd < 0)
		goto fail;
	its.it_interval.tv_sec = d->args.interval_ms / 1000;
	its.it_interval.tv_nsec = (d->args.interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(d->timer.fd, 0, &its, NULL) < 0)
		goto fail;
	ev.data.ptr = &d->timer;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->timer.fd, &ev) < 0)
		goto fail;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	d->sig.kind = WATCH_SIGNAL;
	d->sig.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sig.fd < 0)
		goto fail;
	ev.data.ptr = &d->sig;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->sig.fd, &ev) < 0)
		goto fail;
	return 0;
fail:
	daemon_log(LOG_ERR, "event loop setup: %s", strerror(errno));
	return -errno;
}

int loop_reopen_signals(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &d->sig };
	sigset_t mask;
	int fd;

	/*
	 * A signalfd wakes epoll through the sighand of the process that
	 * created it: after fork() the child's signals would never make the
	 * inherited one readable. A new one, made by the child, does.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->sig.fd, NULL);
	close(d->sig.fd);
	d->sig.fd = fd;
	return 0;
}

int loop_thread_start(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int r;

	/* the new thread inherits the caller's mask */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = -pthread_create(ret, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* The optional sources subscribers asked for (1u << CAD_*): the next
 * sample reads them whatever their cadence. */
static unsigned wanted(const struct daemon *d)
{
	unsigned w = 0;

	for (const struct client *c = d->clients; c; c = c->next)
		if (c->subscribed && !c->dead)
			w |= c->want;
	return w;
}

void loop_status_cost(struct daemon *d, struct strbuf *sb)
{
	struct sampler_cost s;
	const struct sampler_cad *p;
	unsigned w = wanted(d);
	bool first = true;

	sampler_cost(d->sampler, &s);
	p = &s.cad[CAD_PROCS];
	sb_printf(sb,
		  ",\"cpu_budget\":{\"pct\":%g,\"budget_us\":%lld,\"sample_us\":%lld,"
		  "\"base_us\":%lld,\"scan_us\":%lld,\"scan_every\":%u,\"scan_age\":%u,"
		  "\"scan_reason\":",
		  d->args.cpu_budget_pct,
		  (long long)(d->args.cpu_budget_pct * (double)d->args.interval_ms * 10),
		  (long long)(s.tick_cpu_ns / 1000), (long long)(s.base_cpu_ns / 1000),
		  (long long)(p->cost_ns / 1000), p->every, p->age);
	if (p->why)
		sb_json_str(sb, p->why);
	else
		sb_puts(sb, "null");
	sb_puts(sb, w & (1u << CAD_PROCS) ? ",\"procs_wanted\":true" : ",\"procs_wanted\":false");
	/* every optional source the daemon reads, by the same rule */
	sb_puts(sb, ",\"sources\":{");
	for (int k = 0; k < CAD__COUNT; k++) {
		const struct sampler_cad *c = &s.cad[k];

		if (d->args.core_only)
			break;
		sb_printf(sb, "%s\"%s\":{\"every\":%u,\"age\":%u,\"cost_us\":%lld,\"reason\":",
			  first ? "" : ",", sampler_cad_name((enum cad_src)k), c->every, c->age,
			  (long long)(c->cost_ns / 1000));
		first = false;
		if (c->why)
			sb_json_str(sb, c->why);
		else
			sb_puts(sb, "null");
		sb_puts(sb, w & (1u << k) ? ",\"wanted\":true" : ",\"wanted\":false");
		sb_puts(sb, s.pinned & (1u << k) ? ",\"pinned\":true}" : ",\"pinned\":false}");
	}
	sb_puts(sb, "}}");
}

int loop_sample(struct daemon *d)
{
	const struct snapshot *s;
	struct hist_entry e;
	const char *json;
	size_t len, plen = sizeof(IOTRIAGED_EVENT_PREFIX) - 1;
	int64_t t0 = clock_mono_ns(), dt;
	int r;

	sampler_want(d->sampler, wanted(d));
	r = sampler_tick(d->sampler);
	d->samples++;
	if (r < 0) {
		d->sample_errors++;
		daemon_log(LOG_ERR, "sample: %s", strerror(-r));
		return r;
	}
	r = sampler_last_error(d->sampler);
	if (r < 0)
		d->sample_errors++;
	if (r != d->last_sample_err) {
		s = sampler_current(d->sampler);
		if (r < 0)
			daemon_log(LOG_ERR, "sample: nothing usable read (%s; %s)",
				   s->status[SRC_STAT].reason, s->status[SRC_DISKSTATS].reason);
		else
			daemon_log(LOG_NOTICE, "sample: sources readable again");
		d->last_sample_err = r;
	}
	topo_reader_pace(d);
	rec_sample(d);
	json = sampler_json(d->sampler, &len);
	s = sampler_current(d->sampler);
	/* the event line is built once; snapshot and history replies slice it */
	e.b = blob_alloc(plen + len + 2);
	if (!e.b) {
		d->sample_errors++;
		daemon_log(LOG_ERR, "sample: out of memory");
		return -ENOMEM;
	}
	memcpy(e.b->data, IOTRIAGED_EVENT_PREFIX, plen);
	memcpy(e.b->data + plen, json, len);
	memcpy(e.b->data + plen + len, "}\n", 2);
	e.id = s->id;
	e.mono_ns = s->mono_ns;
	e.doc_off = plen;
	e.doc_len = len;
	history_push(&d->hist, &e);
	/* where history's replays of the recording stop (rec.c's thread) */
	rec_ring_first(d, history_at(&d->hist, 0)->id);
	server_publish(d, history_latest(&d->hist));
	/* a block of older samples into one frame, now that this one is out */
	history_compact(&d->hist);
	worker_tick(d);
	/* what a sample costs in wall time, for status: collect dominates */
	dt = clock_mono_ns() - t0;
	d->tick_last_ns = dt;
	d->tick_sum_ns += dt;
	if (dt > d->tick_max_ns)
		d->tick_max_ns = dt;
	if (!d->ready_sent) {
		/* systemd Type=notify: ready once there is a sample to serve */
		r = daemon_notify("READY=1\nSTATUS=sampling");
		if (r < 0)
			daemon_log(LOG_WARNING, "sd_notify: %s", strerror(-r));
		d->ready_sent = true;
	}
	return 0;
}

static void on_timer(struct daemon *d)
{
	uint64_t expirations;
	ssize_t n;

	n = read(d->timer.fd, &expirations, sizeof(expirations));
	if (n != (ssize_t)sizeof(expirations))
		return; /* EAGAIN: another wakeup already consumed it */
	/* more than one: a sample took longer than the interval */
	if (expirations > 1)
		d->overruns += expirations - 1;
	loop_sample(d);
}

static void on_signal(struct daemon *d)
{
	struct signalfd_siginfo si;

	while (read(d->sig.fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			daemon_log(LOG_INFO, "%s: exiting", strsignal((int)si.ssi_signo));
			d->quit = true;
			d->exit_code = EXIT_OK;
			break;
		case SIGHUP:
			daemon_log(LOG_INFO, "SIGHUP: nothing to reload");
			break;
		default:
			break;
		}
	}
}

int loop_run(struct daemon *d)
{
	struct epoll_event evs[64];

	while (!d->quit) {
		/* wakes at least once a second while clients are connected, and
		 * when libmicrohttpd or an HTTP request's deadline asks */
		int n = epoll_wait(d->epfd, evs, 64, metrics_http_timeout(d, server_timeouts(d)));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			daemon_log(LOG_ERR, "epoll_wait: %s", strerror(errno));
			return EXIT_FAIL;
		}
		/* timer and signals first: the sampler never waits behind clients */
		for (int i = 0; i < n; i++) {
			struct watch *w = evs[i].data.ptr;

			if (w->kind == WATCH_TIMER)
				on_timer(d);
			else if (w->kind == WATCH_SIGNAL)
				on_signal(d);
			else if (w->kind == WATCH_WORKER)
				worker_event(d);
			else if (w->kind == WATCH_WORKER_DEADLINE)
				worker_deadline(d);
			else if (w->kind == WATCH_TOPOLOGY)
				topo_reader_event(d);
			else if (w->kind == WATCH_REC_HISTORY)
				rec_history_event(d);
		}
		for (int i = 0; i < n && !d->quit; i++) {
			struct watch *w = evs[i].data.ptr;

			if (w->kind == WATCH_LISTEN)
				server_accept(d);
			else if (w->kind == WATCH_CLIENT)
				server_client_event(d, (struct client *)w, evs[i].events);
			else if (w->kind == WATCH_METRICS)
				metrics_http_run(d);
		}
		server_reap(d);
		/* after the reap: dead clients' history chunks are freed */
		server_resume(d);
		metrics_http_due(d);
	}
	return d->exit_code;
}
