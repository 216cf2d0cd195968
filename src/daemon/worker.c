// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * worker.start / worker.stop / worker.status: one bench job at a time run by
 * iotriaged on a thread of its own, through the same fio option parser, the
 * same safety checks, target setup, job model and report as `iotriage bench`.
 * The epoll loop never waits on the job: the thread signals an eventfd when
 * it ends, and progress is read from the job's atomic counters at each
 * sample tick and pushed to subscribers as one "worker" event line. A stop
 * is bounded: a job that has not ended WORKER_STOP_DEADLINE_MS after it was
 * asked to (a device that stopped answering) has its thread left behind,
 * detached, and the daemon goes on (or exits) without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "bench_report.h"
#include "daemon.h"
#include "fioopts.h"
#include "job.h"
#include "diskstats.h"
#include "procfile.h"
#include "root.h"
#include "runs.h"
#include "safety.h"
#include "target.h"

/* fio options in one worker.start: far more than any job needs, and a bound
 * on what one request may make the daemon allocate. */
#define WORKER_MAX_ARGS 128

/*
 * How long a job asked to stop (worker.stop, SIGTERM) may take to end. A
 * healthy device ends it within one IO; one that stopped answering (a
 * suspended device-mapper table, a dead path, a hung NFS or FUSE file)
 * never does: block IO cannot be cancelled, and a psync thread sits in the
 * kernel. After this the thread is left behind (see worker_leave), so
 * worker.stop and SIGTERM end in bounded time. doc/daemon.md, iotriaged(8).
 */
#define WORKER_STOP_DEADLINE_MS 5000

/* Threads left behind that may still hold IO, buffers and descriptors: a
 * start beyond this many is refused rather than let a wedged device pile
 * them up. */
#define WORKER_MAX_ADRIFT 4

enum worker_state {
	WS_IDLE,
	WS_STARTING, /* target being opened (a new file is laid out first) */
	WS_RUNNING,
	WS_DONE,
	WS_FAILED,
	WS_STOPPED, /* worker.stop or daemon shutdown: results up to then */
};

static const char *const state_names[] = {
	[WS_IDLE] = "idle",	 [WS_STARTING] = "starting", [WS_RUNNING] = "running",
	[WS_DONE] = "completed", [WS_FAILED] = "failed",     [WS_STOPPED] = "stopped",
};

/* Who frees a run: its thread ends (ENDED, the loop joins it) or the loop
 * gave up on it first (ADRIFT, the detached thread frees it at its end). */
enum worker_fate {
	FATE_RUNNING,
	FATE_ENDED,
	FATE_ADRIFT,
};

/*
 * Threads left behind and still running. Process-wide like the threads it
 * counts: one may outlive the daemon struct (it ends after main returned).
 */
static atomic_uint worker_adrift;

/* Live percentiles in status and events; the final result has fio's full list. */
static const double live_pcts[] = { 50.0, 90.0, 99.0, 99.9, 99.99 };

struct worker_run {
	struct watch w;	       /* the eventfd the thread writes when it ends */
	struct watch deadline; /* timerfd: the stop deadline */
	atomic_int fate;       /* enum worker_fate: the thread's and the loop's handshake */
	int64_t stop_ns;       /* the first stop asked (monotonic), 0 before */
	struct job_spec spec;
	struct safety_verdict v;
	bool write;
	uint64_t id; /* counts starts since the daemon began */
	uid_t uid;   /* who started it */
	char dev[64];
	uint32_t major, minor;
	pthread_t thread;
	bool joinable;
	bool stop_asked;
	atomic_int state;
	struct job_control ctl;
	struct job_live *live;
	struct histogram *snap; /* scratch for live percentiles */
	int64_t start_ns;	/* worker.start accepted */
	atomic_llong run_ns;	/* job_run began (thread); 0 before */
	int64_t end_ns;		/* the thread ended (loop) */
	int64_t tick_ns;	/* the previous progress tick */
	uint64_t tick_ios[DDIR__COUNT], tick_bytes[DDIR__COUNT];
	double now_iops[DDIR__COUNT], now_bw[DDIR__COUNT];
	double final_iops[DDIR__COUNT], final_bw[DDIR__COUNT]; /* the report's, when done */
	bool have_final;
	/* what the thread does now: 0 the run, 1 the precondition pass, 2 + k
	 * sweep point k (at sweep_depth) */
	atomic_uint phase;
	atomic_uint sweep_depth;
	/* written by the thread before it signals; read by the loop after the join */
	int err;
	/* err is target_open's, which a unit's device list may explain */
	bool open_failed;
	/* the reason, with room for append_unit_hint() after it */
	char why[SAFETY_WHY_MAX + 200];
	struct strbuf result; /* fio-style JSON */
	struct strbuf report; /* fio-style text */
};

static bool state_active(int s)
{
	return s == WS_STARTING || s == WS_RUNNING;
}

static int64_t real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

/* Frees a run that no thread uses; its descriptors are out of epoll. */
static void worker_free(struct worker_run *w)
{
	if (w->w.fd >= 0)
		close(w->w.fd);
	if (w->deadline.fd >= 0)
		close(w->deadline.fd);
	free(w->live);
	free(w->snap);
	sb_free(&w->result);
	sb_free(&w->report);
	free(w);
}

/* ---- the thread ---- */

/* The target's device row in /proc/diskstats, for the report's disk section. */
struct worker_disk {
	struct root root;
	struct procfile pf;
	struct disk_table t[2];
	int64_t ns[2];
	bool ok[2];
};

static void worker_disk_read(struct worker_disk *dk, int i)
{
	dk->ns[i] = clock_mono_ns();
	dk->ok[i] = procfile_read(&dk->pf, &dk->root) >= 0 &&
		    diskstats_parse(dk->pf.buf, dk->pf.len, &dk->t[i], NULL) >= 0;
}

static void worker_report(struct worker_run *w, const struct target *tg,
			  const struct job_result *rs, const struct worker_disk *dk,
			  const struct job_result *pre)
{
	struct bench_report rep = { .spec = &w->spec, .target = &tg->t, .precondition = pre };
	struct job_result merged;
	bool have_merged = false;

	rep.time_real_ns = real_ns();
	if (dk->ok[0] && dk->ok[1]) {
		rep.disk_before = disk_table_find(&dk->t[0], w->major, w->minor, NULL);
		rep.disk_after = disk_table_find(&dk->t[1], w->major, w->minor, NULL);
		if (!rep.disk_before || !rep.disk_after)
			rep.disk_before = rep.disk_after = NULL;
		rep.disk_elapsed_ns = (uint64_t)(dk->ns[1] - dk->ns[0]);
	}
	/* as the CLI: fio's group_reporting merges the threads into one */
	if (w->spec.group_reporting && w->spec.numjobs > 1 &&
	    job_results_merge(rs, w->spec.numjobs, &merged) >= 0) {
		rep.results = &merged;
		rep.nresults = 1;
		have_merged = true;
	} else {
		rep.results = rs;
		rep.nresults = w->spec.numjobs;
	}
	bench_report_json(&w->result, &rep);
	bench_report_text(&w->report, &rep);
	if (have_merged)
		job_result_free(&merged);
}

/* The sweep's table and knee as the CLI prints them, and the last point's
 * rates for the job line. */
static void worker_sweep_report(struct worker_run *w, const struct target *tg,
				const struct job_result *pts, unsigned n,
				const struct job_result *pre)
{
	struct bench_sweep sw = { .spec = &w->spec,
				  .target = &tg->t,
				  .points = pts,
				  .npoints = n,
				  .time_real_ns = real_ns(),
				  .precondition = pre };

	bench_sweep_json(&w->result, &sw);
	bench_sweep_text(&w->report, &sw);
	for (int d = 0; n && d < DDIR__COUNT; d++) {
		w->final_iops[d] = job_result_iops(&pts[n - 1], (enum job_ddir)d);
		w->final_bw[d] = job_result_bw(&pts[n - 1], (enum job_ddir)d);
	}
}

/* Before each sweep point: say which, and start its live latencies afresh. */
static void worker_sweep_point(void *arg, unsigned k, unsigned iodepth)
{
	struct worker_run *w = arg;

	for (int d = 0; d < DDIR__COUNT; d++) {
		atomic_store_explicit(&w->live->clat_sum_ns[d], 0, memory_order_relaxed);
		for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++)
			atomic_store_explicit(&w->live->bucket[d][i], 0, memory_order_relaxed);
	}
	atomic_store(&w->sweep_depth, iodepth);
	atomic_store(&w->phase, 2 + k);
}

/* A thread's IO error in one of n results: the job failed with it. */
static void worker_result_errors(struct worker_run *w, const struct job_result *rs, unsigned n,
				 const char *what)
{
	for (unsigned i = 0; i < n && !w->err; i++)
		if (rs[i].error) {
			w->err = rs[i].error;
			snprintf(w->why, sizeof(w->why), "%.32s%s%.96s: %s", what ? what : "",
				 what ? ": " : "", rs[i].error_what, strerror(-rs[i].error));
		}
}

/* --precondition: the pass before the measured run, its result in *pre
 * (*ret_have_pre set once it holds one). True when the job goes on. */
static bool worker_precondition(struct worker_run *w, struct target *tg, struct job_result *pre,
				bool *ret_have_pre)
{
	int r;

	atomic_store(&w->phase, 1);
	r = job_precondition(&w->spec, &tg->t, &w->ctl, pre);
	if (r < 0) {
		w->err = r;
		snprintf(w->why, sizeof(w->why), "precondition: %s", strerror(-r));
		return false;
	}
	*ret_have_pre = true;
	worker_result_errors(w, pre, 1, "precondition");
	if (w->err || atomic_load(&w->ctl.stop))
		return false;
	/* the measured run's counters and latencies start after it */
	for (int d = 0; d < DDIR__COUNT; d++) {
		atomic_store(&w->ctl.ios[d], 0);
		atomic_store(&w->ctl.bytes[d], 0);
	}
	worker_sweep_point(w, 0, w->spec.iodepth);
	atomic_store(&w->phase, 0);
	atomic_store(&w->run_ns, clock_mono_ns());
	return true;
}

/* --sweep-iodepth: one run per depth, reported together. */
static void worker_sweep(struct worker_run *w, struct target *tg, const struct job_result *pre)
{
	struct job_result *pts = calloc(w->spec.nsweep, sizeof(*pts));
	unsigned n = 0;
	int r;

	r = pts ? job_sweep(&w->spec, &tg->t, &w->ctl, pts, &n, worker_sweep_point, w) : -ENOMEM;
	if (r < 0) {
		w->err = r;
		snprintf(w->why, sizeof(w->why), "%s", strerror(-r));
	} else {
		if (n)
			worker_result_errors(w, &pts[n - 1], 1, NULL);
		worker_sweep_report(w, tg, pts, n, pre);
		w->have_final = true;
	}
	for (unsigned i = 0; i < n; i++)
		job_result_free(&pts[i]);
	free(pts);
}

/* The measured run, its report and its final rates; with read_disk, dk
 * reads the device's counters after it. */
static void worker_measure(struct worker_run *w, struct target *tg, struct worker_disk *dk,
			   bool read_disk, const struct job_result *pre)
{
	struct job_result *rs = NULL;
	int r;

	r = job_run(&w->spec, &tg->t, &w->ctl, &rs);
	if (read_disk)
		worker_disk_read(dk, 1);
	if (r < 0) {
		w->err = r;
		snprintf(w->why, sizeof(w->why), "%s", strerror(-r));
		return;
	}
	worker_result_errors(w, rs, w->spec.numjobs, NULL);
	worker_report(w, tg, rs, dk, pre);
	/* the measured period's rates (after ramp_time), as the report has them */
	for (unsigned i = 0; i < w->spec.numjobs; i++)
		for (int d = 0; d < DDIR__COUNT; d++) {
			w->final_iops[d] += job_result_iops(&rs[i], (enum job_ddir)d);
			w->final_bw[d] += job_result_bw(&rs[i], (enum job_ddir)d);
		}
	w->have_final = true;
	job_results_free(rs, w->spec.numjobs);
}

/* The thread's last act: tells the loop (the eventfd), or, left behind
 * at the stop deadline, frees the run itself. */
static void worker_thread_end(struct worker_run *w)
{
	uint64_t one = 1;

	if (atomic_exchange(&w->fate, FATE_ENDED) == FATE_ADRIFT) {
		/* left behind: nobody else holds w any more */
		daemon_log(LOG_NOTICE,
			   "worker %llu on %s: its thread, left behind at the stop deadline, "
			   "ended %.1f s after the stop",
			   (unsigned long long)w->id, w->v.path,
			   (double)(clock_mono_ns() - w->stop_ns) / 1e9);
		worker_free(w);
		atomic_fetch_sub(&worker_adrift, 1);
		return;
	}
	/* an eventfd write of 1 cannot block or fail short: the counter is far from its max */
	if (write(w->w.fd, &one, sizeof(one)) < 0)
		abort();
}

static void *worker_thread(void *arg)
{
	struct worker_run *w = arg;
	struct worker_disk dk = { 0 };
	struct job_result pre;
	struct target tg;
	char why[SAFETY_WHY_MAX];
	bool have_root, have_pre = false;
	int r;

	r = target_open(&w->spec, &w->v, w->write, &tg, w->why, sizeof(w->why));
	if (r < 0) {
		w->err = r;
		w->open_failed = true;
		worker_thread_end(w);
		return NULL;
	}
	have_root = root_open("/", &dk.root) >= 0;
	if (have_root) {
		procfile_init(&dk.pf, "proc/diskstats");
		worker_disk_read(&dk, 0);
	}
	atomic_store(&w->run_ns, clock_mono_ns());
	atomic_store(&w->state, WS_RUNNING);
	if (!w->spec.precondition || worker_precondition(w, &tg, &pre, &have_pre)) {
		if (w->spec.nsweep)
			worker_sweep(w, &tg, have_pre ? &pre : NULL);
		else
			worker_measure(w, &tg, &dk, have_root, have_pre ? &pre : NULL);
	}
	if (have_pre)
		job_result_free(&pre);
	if (have_root) {
		procfile_free(&dk.pf);
		disk_table_free(&dk.t[0]);
		disk_table_free(&dk.t[1]);
		root_close(&dk.root);
	}
	if (target_close(&tg, why, sizeof(why)) < 0 && !w->err) {
		w->err = -EIO;
		snprintf(w->why, sizeof(w->why), "%s", why);
	}
	worker_thread_end(w);
	return NULL;
}

/* ---- JSON of the job ---- */

static void put_dir(struct worker_run *w, struct strbuf *sb, enum job_ddir d, double secs)
{
	uint64_t ios = atomic_load_explicit(&w->ctl.ios[d], memory_order_relaxed);
	uint64_t bytes = atomic_load_explicit(&w->ctl.bytes[d], memory_order_relaxed);
	struct histogram *h = w->snap;
	uint64_t sum_ns = 0;

	sb_printf(
	    sb, "\"%s\":{\"ios\":%llu,\"bytes\":%llu,\"iops\":", d == DDIR_READ ? "read" : "write",
	    (unsigned long long)ios, (unsigned long long)bytes);
	/* have_final is the thread's until it is joined, which ends the active states */
	if (!state_active(atomic_load(&w->state)) && w->have_final) {
		sb_fixed2(sb, w->final_iops[d]);
		sb_kv_fixed2(sb, ",\"bw_bytes\":", w->final_bw[d]);
	} else {
		sb_fixed2(sb, secs > 0 ? (double)ios / secs : 0.0);
		sb_kv_fixed2(sb, ",\"bw_bytes\":", secs > 0 ? (double)bytes / secs : 0.0);
	}
	sb_kv_fixed2(sb, ",\"iops_now\":", w->now_iops[d]);
	sb_kv_fixed2(sb, ",\"bw_bytes_now\":", w->now_bw[d]);
	/*
	 * A copy of the live buckets: threads keep adding while it is taken, so
	 * the count is that of the copy, never the counters' (which run ahead).
	 * min/max stay open: the buckets bound them within HISTOGRAM_REL_ERROR.
	 */
	histogram_init(h);
	h->sum.min_ns = 0;
	h->sum.max_ns = UINT64_MAX;
	if (w->live) {
		sum_ns = atomic_load_explicit(&w->live->clat_sum_ns[d], memory_order_relaxed);
		for (size_t i = 0; i < HISTOGRAM_BUCKETS; i++) {
			h->bucket[i] =
			    atomic_load_explicit(&w->live->bucket[d][i], memory_order_relaxed);
			h->sum.n += h->bucket[i];
		}
	}
	sb_printf(sb, ",\"clat_ns\":{\"N\":%llu,\"mean\":", (unsigned long long)h->sum.n);
	sb_fixed2(sb, h->sum.n ? (double)sum_ns / (double)h->sum.n : 0.0);
	sb_puts(sb, ",\"percentile\":{");
	for (size_t i = 0; i < sizeof(live_pcts) / sizeof(live_pcts[0]); i++)
		sb_printf(sb, "%s\"%f\":%llu", i ? "," : "", live_pcts[i],
			  (unsigned long long)histogram_percentile(h, live_pcts[i]));
	sb_puts(sb, "}}}");
}

/* The "worker" object of status replies and events. full: with the final
 * result and report (status only: events stay small). */
/* The worker object. full: a worker.status reply (the result and report
 * once ended); event: a pushed line every subscriber gets, which leaves out
 * who started the job (replies go to privileged peers only). */
static void put_worker(struct daemon *d, struct strbuf *sb, bool full, bool event)
{
	struct worker_run *w = d->worker;
	int state = w ? atomic_load(&w->state) : WS_IDLE;
	int64_t run_ns, end_ns;
	unsigned phase;
	double secs = 0;

	if (!w || state == WS_IDLE) {
		sb_puts(sb, "{\"state\":\"idle\"}");
		return;
	}
	run_ns = atomic_load(&w->run_ns);
	end_ns = state_active(state) ? clock_mono_ns() : w->end_ns;
	if (run_ns)
		secs = (double)(end_ns - run_ns) / 1e9;
	sb_printf(sb, "{\"id\":%llu,\"state\":\"%s\"", (unsigned long long)w->id,
		  state_names[state]);
	if (!event)
		sb_printf(sb, ",\"uid\":%u", (unsigned)w->uid);
	sb_puts(sb, ",\"filename\":");
	sb_json_str(sb, w->v.path);
	sb_puts(sb, ",\"device\":");
	if (w->dev[0])
		sb_json_str(sb, w->dev);
	else
		sb_puts(sb, "null");
	sb_printf(sb, ",\"major\":%u,\"minor\":%u,\"name\":", w->major, w->minor);
	sb_json_str(sb, w->spec.name);
	phase = atomic_load(&w->phase);
	sb_printf(
	    sb, ",\"rw\":\"%s\",\"ioengine\":\"%s\",\"bs\":%llu,\"iodepth\":%u,\"numjobs\":%u",
	    job_rw_name(w->spec.rw), job_engine_name(w->spec.engine),
	    (unsigned long long)w->spec.bs,
	    phase >= 2 ? (unsigned)atomic_load(&w->sweep_depth) : w->spec.iodepth, w->spec.numjobs);
	/* what runs now: "run", "precondition" or "sweep" (point k+1 of n) */
	if (phase == 1)
		sb_puts(sb, ",\"phase\":\"precondition\"");
	else if (phase >= 2)
		sb_printf(sb, ",\"phase\":\"sweep\",\"sweep\":{\"point\":%u,\"points\":%u}",
			  phase - 1, w->spec.nsweep);
	else
		sb_puts(sb, ",\"phase\":\"run\"");
	sb_kv_fixed2(sb, ",\"elapsed_s\":",
		     (double)((state_active(state) ? clock_mono_ns() : w->end_ns) - w->start_ns) /
			 1e9);
	sb_kv_fixed2(sb, ",\"runtime_s\":", secs);
	/* what the job was given: --ramp_time + --runtime, or null (until --size is done) */
	sb_puts(sb, ",\"planned_s\":");
	if (w->spec.runtime_ns) /* per sweep point; the precondition pass is not timed */
		sb_fixed2(sb, (double)(w->spec.runtime_ns + w->spec.ramp_ns) / 1e9 *
				  (w->spec.nsweep ? w->spec.nsweep : 1));
	else
		sb_puts(sb, "null");
	sb_putc(sb, ',');
	put_dir(w, sb, DDIR_READ, secs);
	sb_putc(sb, ',');
	put_dir(w, sb, DDIR_WRITE, secs);
	if (state_active(state) && w->stop_asked)
		sb_puts(sb, ",\"stopping\":true");
	if (state == WS_FAILED) {
		sb_puts(sb, ",\"error\":");
		sb_json_str(sb, w->why);
	}
	if (full && !state_active(state) && w->result.len && !w->result.err) {
		sb_puts(sb, ",\"result\":");
		/* bench_report_json ends its document with a newline */
		sb_append(sb, w->result.buf,
			  w->result.len - (w->result.buf[w->result.len - 1] == '\n'));
		sb_puts(sb, ",\"report\":");
		sb_json_str(sb, sb_cstr(&w->report));
	}
	sb_putc(sb, '}');
}

/* One {"ok":true,"event":"worker","worker":{...}} line, encoded once for
 * every subscriber. */
static void publish(struct daemon *d)
{
	struct strbuf sb = { 0 };
	struct blob *b;

	sb_puts(&sb, "{\"ok\":true,\"event\":\"worker\",\"worker\":");
	put_worker(d, &sb, false, true);
	sb_puts(&sb, "}\n");
	if (!sb.err) {
		b = blob_new(sb.buf, sb.len);
		if (b) {
			server_publish_event(d, b);
			blob_unref(b);
		}
	}
	sb_free(&sb);
}

/* ---- the loop's side ---- */

void worker_tick(struct daemon *d)
{
	struct worker_run *w = d->worker;
	int64_t now = clock_mono_ns();
	double dt;

	if (!w || !state_active(atomic_load(&w->state)))
		return;
	dt = (double)(now - w->tick_ns) / 1e9;
	for (int i = 0; i < DDIR__COUNT; i++) {
		uint64_t ios = atomic_load_explicit(&w->ctl.ios[i], memory_order_relaxed);
		uint64_t bytes = atomic_load_explicit(&w->ctl.bytes[i], memory_order_relaxed);

		w->now_iops[i] = dt > 0 ? (double)(ios - w->tick_ios[i]) / dt : 0;
		w->now_bw[i] = dt > 0 ? (double)(bytes - w->tick_bytes[i]) / dt : 0;
		w->tick_ios[i] = ios;
		w->tick_bytes[i] = bytes;
	}
	w->tick_ns = now;
	if (d->nsubscribers)
		publish(d);
}

/* ---- a device the unit does not allow ---- */

/*
 * Whether the daemon runs as root under systemd, which sets INVOCATION_ID
 * for every unit it starts (and NOTIFY_SOCKET for Type=notify ones). Read
 * here, not in src/workers: library code never reads the environment.
 */
static bool under_systemd_as_root(void)
{
	return geteuid() == 0 && (getenv("INVOCATION_ID") || getenv("NOTIFY_SOCKET"));
}

/*
 * When root is refused a device, a device cgroup is the usual cause, and
 * under systemd that is the unit's DevicePolicy=closed and DeviceAllow= list
 * (packaging/systemd/iotriaged.service allows the msr devices only). The
 * open fails with a bare EPERM, which does not say the fix is in the unit:
 * when err (-errno) is such a refusal of the block device path, appends to
 * why (a string in size bytes) what to add; else leaves it alone.
 */
static void append_unit_hint(char *why, size_t size, int err, const char *path, bool write)
{
	size_t len = strlen(why);
	struct stat st;

	if ((err != -EPERM && err != -EACCES) || !under_systemd_as_root())
		return;
	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode) || len + 1 >= size)
		return;
	snprintf(why + len, size - len,
		 " (the iotriaged service may only open the devices its unit allows: add "
		 "\"DeviceAllow=%s %s\" with \"systemctl edit iotriaged\")",
		 path, write ? "rw" : "r");
}

/*
 * The same for a refusal by safety_check, whose EPERM also means "has
 * partitions" and the like: the hint is due only when the device itself
 * cannot be opened, as its libblkid probe (a write's) could not.
 */
static void append_refusal_hint(char *why, size_t size, int err, const char *target, bool write)
{
	char path[PATH_MAX];
	struct stat st;
	int pfd, fd;

	if ((err != -EPERM && err != -EACCES) || !under_systemd_as_root() ||
	    !realpath(target, path))
		return;
	/*
	 * The client names the path and may swap what it names between the
	 * safety check and here (a link of its own): a device's open is the
	 * driver's (/dev/watchdog arms the watchdog), so only a block device
	 * is opened, and it is the inode looked at: an O_PATH handle (no
	 * driver open) checked, then reopened through /proc/self/fd.
	 */
	pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return;
	if (fstat(pfd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(pfd);
		return;
	}
	fd = root_reopen(pfd, O_RDONLY | O_NONBLOCK);
	close(pfd);
	if (fd >= 0) {
		close(fd);
		return;
	}
	append_unit_hint(why, size, fd, path, write);
}

/* The thread ended: join it (it is past its last instruction that matters),
 * settle the state, tell subscribers. */
static void worker_ended(struct daemon *d)
{
	struct worker_run *w = d->worker;
	struct itimerspec off = { 0 };
	uint64_t n;
	int state;

	pthread_join(w->thread, NULL);
	/* its eventfd write came before it returned: clear it */
	if (read(w->w.fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		daemon_log(LOG_WARNING, "worker eventfd: %s", strerror(errno));
	timerfd_settime(w->deadline.fd, 0, &off, NULL);
	w->joinable = false;
	w->end_ns = clock_mono_ns();
	if (w->err)
		state = WS_FAILED;
	else if (w->stop_asked)
		state = WS_STOPPED;
	else
		state = WS_DONE;
	for (int i = 0; i < DDIR__COUNT; i++)
		w->now_iops[i] = w->now_bw[i] = 0;
	if (w->open_failed)
		append_unit_hint(w->why, sizeof(w->why), w->err, w->v.path, w->write);
	atomic_store(&w->state, state);
	daemon_log(state == WS_FAILED ? LOG_WARNING : LOG_NOTICE, "worker %llu on %s: %s%s%s",
		   (unsigned long long)w->id, w->v.path, state_names[state], w->err ? ": " : "",
		   w->err ? w->why : "");
	/* w->live stays: status keeps showing the run's latencies until the next start */
	if (d->nsubscribers)
		publish(d);
}

void worker_event(struct daemon *d)
{
	struct worker_run *w = d->worker;
	uint64_t n;

	/* a read that finds nothing: worker_deadline settled it already */
	if (!w || !w->joinable || read(w->w.fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return;
	/* worker_ended reads it again: one write, so it finds 0 left (EAGAIN) */
	worker_ended(d);
}

/* Adds (EPOLL_CTL_ADD) or removes (EPOLL_CTL_DEL) the run's two descriptors. */
static int worker_watch(struct daemon *d, struct worker_run *w, int op)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.ptr = &w->w;
	if (epoll_ctl(d->epfd, op, w->w.fd, &ev) < 0)
		return -errno;
	ev.data.ptr = &w->deadline;
	if (epoll_ctl(d->epfd, op, w->deadline.fd, &ev) < 0) {
		int r = -errno;

		if (op == EPOLL_CTL_ADD)
			epoll_ctl(d->epfd, EPOLL_CTL_DEL, w->w.fd, NULL);
		return r;
	}
	return 0;
}

/* A run with its eventfd and timerfd, in epoll; the rest zero. */
static int worker_new(struct daemon *d, struct worker_run **ret_w)
{
	struct worker_run *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->w.kind = WATCH_WORKER;
	w->deadline.kind = WATCH_WORKER_DEADLINE;
	w->deadline.fd = -1;
	w->w.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->w.fd >= 0)
		w->deadline.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->w.fd < 0 || w->deadline.fd < 0) {
		r = -errno;
		goto fail;
	}
	w->snap = malloc(sizeof(*w->snap));
	r = w->snap ? worker_watch(d, w, EPOLL_CTL_ADD) : -ENOMEM;
	if (r < 0)
		goto fail;
	*ret_w = w;
	return 0;
fail:
	worker_free(w);
	return r;
}

/*
 * What worker.status shows of a run whose thread is left behind: a copy of
 * the run as it stands, failed with why. NULL when out of memory (status is
 * then idle; the log has said what happened).
 */
static struct worker_run *worker_record(struct daemon *d, struct worker_run *w, const char *why)
{
	struct worker_run *rec;

	if (worker_new(d, &rec) < 0)
		return NULL;
	rec->live = calloc(1, sizeof(*rec->live));
	if (!rec->live) {
		worker_watch(d, rec, EPOLL_CTL_DEL);
		worker_free(rec);
		return NULL;
	}
	/* the job threads still add to w's counters: relaxed loads, a snapshot */
	for (int i = 0; i < DDIR__COUNT; i++) {
		atomic_store(&rec->ctl.ios[i], atomic_load(&w->ctl.ios[i]));
		atomic_store(&rec->ctl.bytes[i], atomic_load(&w->ctl.bytes[i]));
		if (!w->live)
			continue;
		atomic_store(&rec->live->clat_sum_ns[i], atomic_load(&w->live->clat_sum_ns[i]));
		for (size_t b = 0; b < HISTOGRAM_BUCKETS; b++)
			atomic_store(&rec->live->bucket[i][b], atomic_load(&w->live->bucket[i][b]));
	}
	rec->ctl.live = rec->live;
	rec->spec = w->spec;
	rec->v = w->v;
	rec->write = w->write;
	rec->id = w->id;
	rec->uid = w->uid;
	memcpy(rec->dev, w->dev, sizeof(rec->dev));
	rec->major = w->major;
	rec->minor = w->minor;
	rec->stop_asked = true;
	rec->stop_ns = w->stop_ns;
	atomic_store(&rec->phase, atomic_load(&w->phase));
	atomic_store(&rec->sweep_depth, atomic_load(&w->sweep_depth));
	rec->start_ns = w->start_ns;
	atomic_store(&rec->run_ns, atomic_load(&w->run_ns));
	rec->end_ns = clock_mono_ns();
	rec->err = -ETIMEDOUT;
	snprintf(rec->why, sizeof(rec->why), "%s", why);
	atomic_store(&rec->fate, FATE_ENDED);
	atomic_store(&rec->state, WS_FAILED);
	return rec;
}

/*
 * Gives up on a run whose thread did not end by the stop deadline: the
 * thread is detached and frees the run itself if it ever ends (its IO
 * completes once the device answers again; until then it keeps its
 * buffers, which the kernel may still fill, and its descriptors). Logs
 * which job, on which device, with how many IOs still out. keep_record:
 * d->worker becomes a copy showing it failed (worker.stop); else NULL (exit).
 * Returns false when the thread ended in the meantime: the run is the
 * loop's as before, to settle with worker_ended().
 */
static bool worker_leave(struct daemon *d, struct worker_run *w, const char *what, bool keep_record)
{
	struct worker_run *rec = NULL;
	pthread_t thread = w->thread;
	int expected = FATE_RUNNING;
	char why[sizeof(w->why)], line[1024]; /* daemon_log's own bound */
	unsigned long long out;

	out = (unsigned long long)atomic_load(&w->ctl.inflight);
	snprintf(why, sizeof(why),
		 "did not stop within %d s of %s: %llu IO%s still outstanding on %.256s; its "
		 "thread is left behind and ends when the device completes them",
		 WORKER_STOP_DEADLINE_MS / 1000, what, out, out == 1 ? "" : "s",
		 w->dev[0] ? w->dev : w->v.path);
	/* all before the handshake: once it is made, w may be freed at any time */
	snprintf(line, sizeof(line), "worker %llu (%s %s on %.256s, device %s): %.600s",
		 (unsigned long long)w->id, job_rw_name(w->spec.rw),
		 job_engine_name(w->spec.engine), w->v.path, w->dev[0] ? w->dev : "unknown", why);
	if (keep_record)
		rec = worker_record(d, w, why);
	worker_watch(d, w, EPOLL_CTL_DEL);
	atomic_fetch_add(&worker_adrift, 1);
	if (!atomic_compare_exchange_strong(&w->fate, &expected, FATE_ADRIFT)) {
		atomic_fetch_sub(&worker_adrift, 1);
		if (worker_watch(d, w, EPOLL_CTL_ADD) < 0)
			daemon_log(LOG_ERR, "worker %llu: epoll: %s", (unsigned long long)w->id,
				   strerror(errno));
		if (rec) {
			worker_watch(d, rec, EPOLL_CTL_DEL);
			worker_free(rec);
		}
		return false;
	}
	daemon_log(LOG_ERR, "%s", line);
	pthread_detach(thread);
	d->worker = rec;
	if (rec && d->nsubscribers)
		publish(d);
	return true;
}

/* Where the target's IO shows up in /proc/diskstats: the device itself, or
 * the one its file lives on. */
static void find_device(struct worker_run *w)
{
	char link[64], buf[256];
	struct stat st;
	const char *base;
	ssize_t n;

	w->dev[0] = '\0';
	w->major = w->minor = 0;
	if (stat(w->v.path, &st) < 0) {
		/* a file still to be created lives on its directory's device */
		char dir[sizeof(w->v.path)];
		char *slash;

		snprintf(dir, sizeof(dir), "%s", w->v.path);
		slash = strrchr(dir, '/');
		if (!slash)
			return;
		slash[slash == dir] = '\0';
		if (stat(dir, &st) < 0)
			return;
	}
	if (S_ISBLK(st.st_mode)) {
		w->major = major(st.st_rdev);
		w->minor = minor(st.st_rdev);
	} else {
		w->major = major(st.st_dev);
		w->minor = minor(st.st_dev);
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", w->major, w->minor);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;
	buf[n] = '\0';
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (strlen(base) < sizeof(w->dev))
		memcpy(w->dev, base, strlen(base) + 1);
}

/* "args": the fio options as `iotriage bench` takes them, one string each. */
static int get_args(const struct request *rq, const char **argv, int *ret_argc)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(rq->root, "args", &a) ||
	    !json_object_is_type(a, json_type_array))
		return -EINVAL;
	n = json_object_array_length(a);
	if (n == 0 || n > WORKER_MAX_ARGS)
		return -E2BIG;
	argv[0] = "worker.start";
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(a, i);

		/* "--filename=/tmp/x\u0000..." would read as another option
		 * than the one sent: text without NUL, valid UTF-8 */
		if (!json_object_is_type(s, json_type_string) || !request_text_ok(s))
			return -EINVAL;
		argv[i + 1] = json_object_get_string(s);
	}
	*ret_argc = (int)n + 1;
	return 0;
}

/* w made ready for a new job: its spec, the target's verdict v, whether it
 * writes, the uid that asked; counters, results and reports cleared.
 * 0 or -ENOMEM. */
static int worker_reset(struct worker_run *w, const struct job_spec *spec,
			const struct safety_verdict *v, bool write, uid_t uid)
{
	if (!w->live) {
		w->live = malloc(sizeof(*w->live));
		if (!w->live)
			return -ENOMEM;
	}
	memset(w->live, 0, sizeof(*w->live));
	atomic_store(&w->phase, 0);
	atomic_store(&w->sweep_depth, 0);
	memset(w->final_iops, 0, sizeof(w->final_iops));
	memset(w->final_bw, 0, sizeof(w->final_bw));
	w->have_final = false;
	w->spec = *spec;
	w->v = *v;
	w->write = write;
	w->id++;
	w->uid = uid;
	w->stop_asked = false;
	w->stop_ns = 0;
	atomic_store(&w->fate, FATE_RUNNING);
	w->err = 0;
	w->open_failed = false;
	w->why[0] = '\0';
	sb_reset(&w->result);
	sb_reset(&w->report);
	memset(&w->ctl, 0, sizeof(w->ctl));
	w->ctl.live = w->live;
	memset(w->tick_ios, 0, sizeof(w->tick_ios));
	memset(w->tick_bytes, 0, sizeof(w->tick_bytes));
	memset(w->now_iops, 0, sizeof(w->now_iops));
	memset(w->now_bw, 0, sizeof(w->now_bw));
	w->start_ns = w->tick_ns = clock_mono_ns();
	w->end_ns = 0;
	atomic_store(&w->run_ns, 0);
	find_device(w);
	atomic_store(&w->state, WS_STARTING);
	return 0;
}

int worker_cmd_start(struct daemon *d, struct client *c, const struct request *rq)
{
	const char *argv[WORKER_MAX_ARGS + 1];
	struct fioopts_error perr = { 0 };
	struct safety_request sreq;
	struct safety_verdict v;
	struct job_spec spec;
	struct worker_run *w;
	struct root root;
	char why[SAFETY_WHY_MAX + 200]; /* room for append_refusal_hint() */
	struct strbuf *sb;
	bool write;
	int argc = 0, r;

	r = get_args(rq, argv, &argc);
	if (r < 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "worker.start needs \"args\": 1 to %d strings (UTF-8, "
					  "no NUL), the fio options of iotriage bench",
					  WORKER_MAX_ARGS);
	r = fioopts_parse(argc, argv, 1, &spec, &perr);
	if (r == 1)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "--help: see iotriage bench --help");
	if (r < 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST, "%s: %s", perr.option,
					  perr.message);
	if (spec.filename[0] != '/')
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "--filename: must be an absolute path: the daemon does "
					  "not share the client's directory");
	w = d->worker;
	if (w && state_active(atomic_load(&w->state)))
		return server_reply_error(d, c, rq->id, IOT_ERR_WORKER_RUNNING,
					  "worker %llu is running on %s (worker.stop first)",
					  (unsigned long long)w->id, w->v.path);
	if (atomic_load(&worker_adrift) >= WORKER_MAX_ADRIFT)
		return server_reply_error(d, c, rq->id, IOT_ERR_WORKER_RUNNING,
					  "%u jobs that did not stop still wait for their devices "
					  "(see the log): no more until one ends",
					  atomic_load(&worker_adrift));

	/*
	 * The CLI's decision, on the live host (never --root: the IO goes to
	 * this machine's devices). It reads a few /proc and /sys files and the
	 * target's first blocks (libblkid): short, and it must come before the
	 * reply so a refusal is the answer to this request.
	 */
	write = job_rw_writes(spec.rw) || spec.precondition;
	r = root_open("/", &root);
	if (r < 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_INTERNAL, "/: %s", strerror(-r));
	sreq = (struct safety_request){ .target = spec.filename,
					.write = write,
					.allow_destroy =
					    spec.allow_destroy[0] ? spec.allow_destroy : NULL,
					.overwrite = spec.overwrite };
	r = safety_check(&root, &sreq, &v, why, sizeof(why));
	root_close(&root);
	if (r < 0) {
		append_refusal_hint(why, sizeof(why), r, spec.filename, write);
		daemon_log(LOG_NOTICE, "worker.start (uid %u) on %s refused: %s",
			   (unsigned)c->cred.uid, spec.filename, why);
		return server_reply_error(d, c, rq->id, IOT_ERR_REFUSED, "%s", why);
	}

	if (!w) {
		r = worker_new(d, &w);
		if (r < 0)
			return r;
		d->worker = w;
	}
	r = worker_reset(w, &spec, &v, write, c->cred.uid);
	if (r < 0)
		return r;

	r = loop_thread_start(&w->thread, worker_thread, w);
	if (r < 0) {
		atomic_store(&w->state, WS_IDLE);
		return server_reply_error(d, c, rq->id, IOT_ERR_INTERNAL, "thread: %s",
					  strerror(-r));
	}
	w->joinable = true;
	daemon_log(LOG_NOTICE, "worker %llu started by uid %u: %s %s on %s",
		   (unsigned long long)w->id, (unsigned)c->cred.uid, job_rw_name(spec.rw),
		   job_engine_name(spec.engine), v.path);
	sb = server_reply_start(d, rq);
	sb_puts(sb, ",\"worker\":");
	put_worker(d, sb, false, false);
	return server_reply_finish(d, c);
}

int worker_cmd_stop(struct daemon *d, struct client *c, const struct request *rq)
{
	struct worker_run *w = d->worker;
	struct strbuf *sb;

	if (!w || !state_active(atomic_load(&w->state)))
		return server_reply_error(d, c, rq->id, IOT_ERR_NO_WORKER, "no worker is running");
	if (!w->stop_asked) {
		/* the first stop starts the deadline; another does not move it */
		struct itimerspec its = {
			.it_value = { .tv_sec = WORKER_STOP_DEADLINE_MS / 1000,
				      .tv_nsec = WORKER_STOP_DEADLINE_MS % 1000 * 1000000L },
		};

		w->stop_asked = true;
		w->stop_ns = clock_mono_ns();
		if (timerfd_settime(w->deadline.fd, 0, &its, NULL) < 0)
			daemon_log(LOG_ERR, "worker %llu: stop deadline: %s",
				   (unsigned long long)w->id, strerror(errno));
	}
	atomic_store(&w->ctl.stop, true);
	daemon_log(LOG_NOTICE, "worker %llu: stop asked by uid %u", (unsigned long long)w->id,
		   (unsigned)c->cred.uid);
	/* the thread ends within one IO, or is left behind at the deadline: its
	 * end is the "stopped" event, or the "failed" one saying so */
	sb = server_reply_start(d, rq);
	sb_puts(sb, ",\"stopping\":true,\"worker\":");
	put_worker(d, sb, false, false);
	return server_reply_finish(d, c);
}

int worker_cmd_status(struct daemon *d, struct client *c, const struct request *rq)
{
	struct strbuf *sb = server_reply_start(d, rq);

	sb_puts(sb, ",\"worker\":");
	put_worker(d, sb, true, false);
	return server_reply_finish(d, c);
}

void worker_deadline(struct daemon *d)
{
	struct worker_run *w = d->worker;
	uint64_t n;

	if (!w || read(w->deadline.fd, &n, sizeof(n)) != (ssize_t)sizeof(n) || !w->joinable)
		return;
	if (!worker_leave(d, w, "worker.stop", true))
		worker_ended(d); /* it ended just now */
}

/* Waits until the thread signals its end or deadline_ns (monotonic) passes.
 * True when it ended. */
static bool worker_wait_end(struct worker_run *w, int64_t deadline_ns)
{
	struct pollfd p = { .fd = w->w.fd, .events = POLLIN };

	for (;;) {
		int64_t left_ms = (deadline_ns - clock_mono_ns() + 999999) / 1000000;
		int r;

		if (left_ms <= 0)
			return false;
		r = poll(&p, 1, left_ms > INT_MAX ? INT_MAX : (int)left_ms);
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
}

bool worker_shutdown(struct daemon *d)
{
	struct worker_run *w = d->worker;
	int64_t deadline;

	if (!w)
		return atomic_load(&worker_adrift) > 0;
	if (w->joinable) {
		/* waits for the run to end (one IO) and its file to be removed,
		 * within the deadline of the first stop, this one or an earlier */
		if (!w->stop_asked) {
			w->stop_asked = true;
			w->stop_ns = clock_mono_ns();
		}
		atomic_store(&w->ctl.stop, true);
		deadline = w->stop_ns + (int64_t)WORKER_STOP_DEADLINE_MS * 1000000;
		if (!worker_wait_end(w, deadline) && worker_leave(d, w, "the exit", false))
			return true; /* the thread has it now */
		pthread_join(w->thread, NULL);
		daemon_log(LOG_NOTICE, "worker %llu on %s: stopped at exit",
			   (unsigned long long)w->id, w->v.path);
	}
	worker_watch(d, w, EPOLL_CTL_DEL);
	worker_free(w);
	d->worker = NULL;
	return atomic_load(&worker_adrift) > 0;
}
