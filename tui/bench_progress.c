// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage bench's status line (bench_progress.h). A thread of the bench's
 * child wakes every second, reads the run's counters (job_control, lock-free
 * atomics), and redraws one line with "\r" and erase-to-end, cut to the
 * terminal's width so it never wraps. Whoever prints anything else first
 * holds the line (erased, not redrawn) under the same lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "bench_progress.h"
#include "clock.h"

#define PROGRESS_PERIOD_NS 1000000000LL

struct bench_progress {
	pthread_t thr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool quit, held, drawn, phase_set;
	struct job_control *ctl;
	struct bench_progress_view v;
	char job[JOB_NAME_MAX];
	char phase[48];
	unsigned k, n; /* sweep point k of n; n 0: no sweep */
	int64_t phase_start_ns, sweep_start_ns;
	uint64_t phase_base_bytes;
	uint64_t phase_total_bytes; /* 0: time_based, no byte limit */
	int64_t phase_total_ns;	    /* ramp + runtime; 0: no time limit */
	int64_t last_ns;
	uint64_t last_ios[DDIR__COUNT], last_bytes[DDIR__COUNT];
};

static void fmt_bw(char *buf, size_t size, double bps)
{
	if (bps < 1024.0 * 1024.0)
		snprintf(buf, size, "%.0fKiB/s", bps / 1024.0);
	else if (bps < 1024.0 * 1024.0 * 1024.0)
		snprintf(buf, size, "%.1fMiB/s", bps / (1024.0 * 1024.0));
	else
		snprintf(buf, size, "%.2fGiB/s", bps / (1024.0 * 1024.0 * 1024.0));
}

static void fmt_iops(char *buf, size_t size, double iops)
{
	if (iops < 10000.0)
		snprintf(buf, size, "%.0f", iops);
	else if (iops < 1e6)
		snprintf(buf, size, "%.1fk", iops / 1e3);
	else
		snprintf(buf, size, "%.2fM", iops / 1e6);
}

size_t bench_progress_format(char *buf, size_t size, const struct bench_progress_view *v)
{
	char bw[2][24], io[2][24], eta[32];
	size_t len;
	int n;

	if (!size)
		return 0;
	for (int d = 0; d < DDIR__COUNT; d++) {
		fmt_bw(bw[d], sizeof(bw[d]), v->bw[d]);
		fmt_iops(io[d], sizeof(io[d]), v->iops[d]);
	}
	if (v->eta_s < 0)
		snprintf(eta, sizeof(eta), "--m:--s");
	else if (v->eta_s >= 3600)
		snprintf(eta, sizeof(eta), "%lldh:%02lldm:%02llds", (long long)v->eta_s / 3600,
			 (long long)v->eta_s / 60 % 60, (long long)v->eta_s % 60);
	else
		snprintf(eta, sizeof(eta), "%02lldm:%02llds", (long long)v->eta_s / 60,
			 (long long)v->eta_s % 60);
	if (v->reads && v->writes)
		n = snprintf(
		    buf, size, "%s%s%s: [%c(%u)][%.1f%%][r=%s,w=%s][r=%s,w=%s IOPS][eta %s]",
		    v->job, v->phase ? " " : "", v->phase ? v->phase : "", v->mode, v->njobs,
		    v->pct, bw[DDIR_READ], bw[DDIR_WRITE], io[DDIR_READ], io[DDIR_WRITE], eta);
	else {
		int d = v->writes ? DDIR_WRITE : DDIR_READ;
		char c = v->writes ? 'w' : 'r';

		n = snprintf(buf, size, "%s%s%s: [%c(%u)][%.1f%%][%c=%s][%c=%s IOPS][eta %s]",
			     v->job, v->phase ? " " : "", v->phase ? v->phase : "", v->mode,
			     v->njobs, v->pct, c, bw[d], c, io[d], eta);
	}
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	len = (size_t)n < size ? (size_t)n : size - 1;
	return len;
}

static char fio_mode(enum job_rw rw)
{
	switch (rw) {
	case RW_READ:
		return 'R';
	case RW_RANDREAD:
		return 'r';
	case RW_WRITE:
		return 'W';
	case RW_RANDWRITE:
		return 'w';
	case RW_RW:
		return 'M';
	case RW_RANDRW:
		return 'm';
	}
	return '?';
}

static uint64_t ctl_bytes(struct job_control *ctl)
{
	return atomic_load_explicit(&ctl->bytes[DDIR_READ], memory_order_relaxed) +
	       atomic_load_explicit(&ctl->bytes[DDIR_WRITE], memory_order_relaxed);
}

/* The line's text now; caller holds the lock. */
static void progress_view(struct bench_progress *p, int64_t now)
{
	double f = 0.0, fb = 0.0, ft = 0.0, dt = (double)(now - p->last_ns) / 1e9, all;
	int64_t el = now - p->phase_start_ns;

	for (int d = 0; d < DDIR__COUNT; d++) {
		uint64_t ios = atomic_load_explicit(&p->ctl->ios[d], memory_order_relaxed);
		uint64_t bytes = atomic_load_explicit(&p->ctl->bytes[d], memory_order_relaxed);

		if (dt > 0.0) {
			p->v.iops[d] = (double)(ios - p->last_ios[d]) / dt;
			p->v.bw[d] = (double)(bytes - p->last_bytes[d]) / dt;
		}
		p->last_ios[d] = ios;
		p->last_bytes[d] = bytes;
	}
	p->last_ns = now;
	if (p->phase_total_bytes)
		fb = (double)(ctl_bytes(p->ctl) - p->phase_base_bytes) /
		     (double)p->phase_total_bytes;
	if (p->phase_total_ns)
		ft = (double)el / (double)p->phase_total_ns;
	f = fb > ft ? fb : ft;
	f = f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
	all = p->n ? ((double)p->k + f) / (double)p->n : f;
	p->v.pct = all * 100.0;
	if (p->phase_total_ns && ft >= fb) {
		/* time decides: the rest of this phase, and whole phases after it */
		int64_t left = p->phase_total_ns - el;

		if (p->n)
			left += (int64_t)(p->n - p->k - 1) * p->phase_total_ns;
		p->v.eta_s = left > 0 ? (left + 500000000) / 1000000000 : 0;
	} else if (all > 0.0) {
		double since = (double)(now - (p->n ? p->sweep_start_ns : p->phase_start_ns)) / 1e9;

		p->v.eta_s = (int64_t)(since * (1.0 - all) / all + 0.5);
	} else {
		p->v.eta_s = -1;
	}
}

static int term_width(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

static void write_all(const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(STDOUT_FILENO, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		len -= (size_t)w;
	}
}

static void erase_line(struct bench_progress *p)
{
	if (!p->drawn)
		return;
	write_all("\r\033[K", 4);
	p->drawn = false;
}

static void draw(struct bench_progress *p)
{
	char line[512], out[600];
	size_t len;
	int w = term_width();

	len = bench_progress_format(line, sizeof(line), &p->v);
	if (len > (size_t)w - 1) /* never wrap: "\r" goes back one row only */
		len = (size_t)w - 1;
	memcpy(out, "\r", 1);
	memcpy(out + 1, line, len);
	memcpy(out + 1 + len, "\033[K", 3);
	write_all(out, len + 4);
	p->drawn = true;
}

static void *progress_thread(void *arg)
{
	struct bench_progress *p = arg;
	struct timespec ts;
	int64_t next = clock_mono_ns() + PROGRESS_PERIOD_NS;

	pthread_mutex_lock(&p->lock);
	while (!p->quit) {
		int64_t now = clock_mono_ns();

		if (now < next) {
			ts.tv_sec = next / 1000000000;
			ts.tv_nsec = next % 1000000000;
			pthread_cond_timedwait(&p->cond, &p->lock, &ts);
			continue;
		}
		next = now + PROGRESS_PERIOD_NS;
		if (!p->phase_set || p->held)
			continue;
		progress_view(p, now);
		draw(p);
	}
	erase_line(p);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int bench_progress_start(const struct job_spec *spec, struct job_control *ctl,
			 struct bench_progress **ret)
{
	struct bench_progress *p;
	pthread_condattr_t ca;
	int r;

	*ret = NULL;
	if (spec->output != OUTPUT_NORMAL || !isatty(STDOUT_FILENO))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->ctl = ctl;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&p->thr, NULL, progress_thread, p);
	if (r) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		free(p);
		return -r;
	}
	*ret = p;
	return 0;
}

void bench_progress_phase(struct bench_progress *p, const struct job_spec *spec,
			  const struct job_target *t, bool precondition, unsigned k, unsigned n)
{
	int64_t now = clock_mono_ns();

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	snprintf(p->job, sizeof(p->job), "%s", spec->name);
	p->v.job = p->job;
	p->k = k;
	p->n = n;
	if (precondition)
		snprintf(p->phase, sizeof(p->phase), "precondition");
	else if (n)
		snprintf(p->phase, sizeof(p->phase), "iodepth=%u %u/%u", spec->iodepth, k + 1, n);
	p->v.phase = precondition || n ? p->phase : NULL;
	p->v.mode = fio_mode(precondition ? RW_WRITE : spec->rw);
	p->v.njobs = precondition ? 1 : spec->numjobs;
	p->v.reads = !precondition && job_rw_reads(spec->rw);
	p->v.writes = precondition || job_rw_writes(spec->rw);
	p->phase_start_ns = now;
	if (!n || !k)
		p->sweep_start_ns = now;
	p->phase_base_bytes = ctl_bytes(p->ctl);
	p->phase_total_bytes = !precondition && spec->time_based
				   ? 0
				   : t->region_len * (precondition ? 1 : spec->numjobs);
	p->phase_total_ns = precondition ? 0 : (int64_t)(spec->ramp_ns + spec->runtime_ns);
	if (!spec->runtime_ns && !precondition)
		p->phase_total_ns = 0;
	for (int d = 0; d < DDIR__COUNT; d++) {
		p->last_ios[d] = atomic_load_explicit(&p->ctl->ios[d], memory_order_relaxed);
		p->last_bytes[d] = atomic_load_explicit(&p->ctl->bytes[d], memory_order_relaxed);
		p->v.bw[d] = p->v.iops[d] = 0.0;
	}
	p->last_ns = now;
	p->phase_set = true;
	pthread_mutex_unlock(&p->lock);
}

void bench_progress_hold(struct bench_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	erase_line(p);
	p->held = true;
	pthread_mutex_unlock(&p->lock);
}

void bench_progress_release(struct bench_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->held = false;
	pthread_mutex_unlock(&p->lock);
}

void bench_progress_stop(struct bench_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thr, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
