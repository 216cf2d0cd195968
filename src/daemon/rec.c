// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec: iotriaged --record: after each sample the bytes the collector read
 * go to the flight recorder (src/lib/recwriter.c) through sampler_pack(); status
 * tells whether it records and why not; history reaches back into the
 * recording beyond the ring. The loop owns the clock: nothing here sleeps,
 * waits on the disk (the writer's own thread writes and fsyncs; a frame
 * that finds its queue full is dropped and counted) or compresses a small
 * frame (it is stored: zstd cold once a second was a third of the
 * recorder's CPU); sealing (a closed segment's
 * frames compressed) and compaction (one sample in N of data older than
 * --record-compact-after) run in a thread of their own, paced, off the
 * sampling path.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload.c packs a
 * sample's sections, trace/rec_trace.c its trace read, lib/rec_diff.c
 * makes a frame the difference from the last, lib/recwriter*.c and recreader.c
 * write and read the segments, daemon/rec.c drives them from iotriaged's loop
 * (doc/recording.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "daemon.h"
#include "grow.h"
#include "rec_file.h"
#include "treewrite.h"

/* The most samples one history reply takes from the recording: replaying
 * costs ~50 us a sample here and the loop waits for it (900: 15 minutes at
 * 1 Hz, ~50 ms). Longer spans: `iotriage replay` on the recording. */
#define REC_HISTORY_MAX 900
/* ... and the most bytes: the part is built whole and queued as it is
 * (900 documents of a big host would be hundreds of MB); the newest kept */
#define REC_HISTORY_MAX_BYTES ((size_t)8 << 20)
/* A uid other than root's and ours gets at most this share of one CPU for
 * its replays: after one that took T of CPU its next waits 9 T. With one
 * part unwritten a uid at a time, a member of the socket's group asking
 * again and again, or never reading, costs the daemon no more. */
#define REC_HISTORY_CPU_PCT 10

struct rec_pace {
	uid_t uid;
	int64_t next_ns; /* CLOCK_MONOTONIC: its next replay not before */
};

/* The recorder's state (daemon.h's struct recorder, opaque there). */
struct recorder {
	struct recwriter *w;
	int dirfd; /* the record directory checked at start */
	/* history's replays of the recording: when each uid (but root's and
	 * ours) may have its next one */
	struct rec_pace *pace;
	size_t pace_n, pace_cap;
	struct strbuf buf; /* a sample's packed bytes */
	uint64_t run_id;   /* this run's segments */
	int64_t sum_ns;	   /* CPU time spent recording, for status */
	int last_err;
	bool logged_on;	      /* what the log last said: recording or not */
	uint64_t drop_logged; /* the writer queue's drops as last logged */
	int64_t drop_log_ns;  /* CLOCK_MONOTONIC of that line */
	/* the sealing and compaction thread; what it shares with the loop is
	 * under cmu */
	int64_t compact_s; /* --record-compact-after; 0: never */
	unsigned keep;	   /* --record-compact-keep: one sample in N */
	pthread_t cthread;
	bool cthread_on;
	pthread_mutex_t cmu;
	pthread_cond_t ccond;
	int cstop; /* also read by recwriter_compact(), atomically */
	struct recwriter_compact_stats cst;
	struct recwriter_compact_stats sst; /* sealing's */
	int cerr;
};

/* Compaction's and sealing's share of one CPU while they run (compaction
 * decodes every frame of a segment: ~2 s of CPU for a 256-CPU host's 8 MiB
 * segment), and how often the thread looks for segments at most (a closed
 * segment stays uncompressed that long: a minute). */
#define REC_COMPACT_DUTY_PCT 20
#define REC_COMPACT_EVERY_S  60
/* Samples the writer's queue dropped are logged at most this often. */
#define REC_DROP_LOG_NS (60 * INT64_C(1000000000))

static const struct treewrite_dir_words rec_words = {
	.what = "the recording",
	.risk = "or whoever else can write there can plant or swap the segments that "
		"replay and history read back; fix",
	.option = "--record",
};

static void add_stats(struct recwriter_compact_stats *sum, const struct recwriter_compact_stats *st)
{
	sum->segments += st->segments;
	sum->frames_in += st->frames_in;
	sum->frames_kept += st->frames_kept;
	sum->bytes_before += st->bytes_before;
	sum->bytes_after += st->bytes_after;
	sum->cpu_ns += st->cpu_ns;
}

static void *compact_main(void *arg)
{
	struct recorder *rec = arg;
	int64_t age = rec->compact_s;
	/* a short age (tests) is looked at more often */
	int64_t every = !age || age / 4 > REC_COMPACT_EVERY_S ? REC_COMPACT_EVERY_S
			: age / 4 < 1			      ? 1
							      : age / 4;

	pthread_mutex_lock(&rec->cmu);
	while (!rec->cstop) {
		struct recwriter_compact_stats st = { 0 }, ss = { 0 };
		struct timespec until;
		int r = 0, rs;

		pthread_mutex_unlock(&rec->cmu);
		/* sealed first: compaction then reads compressed frames */
		rs = recwriter_seal(rec->w, REC_COMPACT_DUTY_PCT, &rec->cstop, &ss);
		if (age)
			r = recwriter_compact(rec->w, clock_ns(CLOCK_REALTIME), age, rec->keep,
					      REC_COMPACT_DUTY_PCT, &rec->cstop, &st);
		pthread_mutex_lock(&rec->cmu);
		add_stats(&rec->cst, &st);
		add_stats(&rec->sst, &ss);
		if (rs < 0 && rs != -ECANCELED)
			rec->cerr = rs;
		if (r < 0 && r != -ECANCELED)
			rec->cerr = r;
		until = clock_mono_after(every * 1000);
		while (!rec->cstop && pthread_cond_timedwait(&rec->ccond, &rec->cmu, &until) == 0)
			;
	}
	pthread_mutex_unlock(&rec->cmu);
	return NULL;
}

void rec_compact_start(struct daemon *d)
{
	int r;

	if (!d->rec)
		return;
	/* the writer's own: from now on a sample never waits on the disk */
	r = recwriter_start_thread(d->rec->w);
	if (r < 0)
		daemon_log(LOG_ERR, "--record: no writer thread (samples wait on the disk): %s",
			   strerror(-r));
	/* the signals stay blocked in it (main blocked them: signalfd) */
	r = pthread_create(&d->rec->cthread, NULL, compact_main, d->rec);
	if (r) {
		daemon_log(LOG_ERR, "--record: no sealing and compaction thread: %s", strerror(r));
		return;
	}
	d->rec->cthread_on = true;
}

static void compact_stop(struct recorder *rec)
{
	if (!rec->cthread_on)
		return;
	pthread_mutex_lock(&rec->cmu);
	__atomic_store_n(&rec->cstop, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&rec->ccond);
	pthread_mutex_unlock(&rec->cmu);
	pthread_join(rec->cthread, NULL);
	rec->cthread_on = false;
}

int rec_start(struct daemon *d)
{
	struct recwriter_opts o = { 0 };
	struct recorder *rec;
	pthread_condattr_t ca;
	char why[1024], boot[64] = "", host[256] = "";
	const char *dir = d->args.record_dir;
	int start, dfd, r;

	if (!dir)
		return 0;
	start = open(dir[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (start < 0) {
		daemon_log(LOG_ERR, "--record %s: %s", dir, strerror(errno));
		return -errno;
	}
	dfd = treewrite_private_dir(start, dir[0] == '/' ? "/" : ".", dir, &rec_words, why,
				    sizeof(why));
	close(start);
	if (dfd < 0) {
		daemon_log(LOG_ERR, "--record: %s", why);
		return dfd;
	}
	rec = calloc(1, sizeof(*rec));
	if (!rec) {
		close(dfd);
		daemon_log(LOG_ERR, "--record: out of memory");
		return -ENOMEM;
	}
	/* the recorded host's boot: a tree under --root carries its own */
	if (root_read_small(&d->sampler->col.root, "proc/sys/kernel/random/boot_id", boot,
			    sizeof(boot)) < 0)
		boot[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	if (getrandom(&rec->run_id, sizeof(rec->run_id), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(rec->run_id))
		rec->run_id = (uint64_t)clock_ns(CLOCK_REALTIME) ^ (uint64_t)getpid() << 32;
	o.dirfd = dfd;
	o.interval_ms = (uint32_t)d->args.interval_ms;
	o.max_bytes = d->args.record_max_bytes;
	o.max_age_s = d->args.record_max_age_s;
	o.min_free = d->args.record_min_free;
	o.host = host;
	o.mode = "daemon";
	o.boot_id = boot;
	o.run_id = rec->run_id;
	o.store = true; /* rec_compact_start()'s thread seals */
	r = recwriter_open(&o, &rec->w);
	if (r < 0) {
		close(dfd);
		free(rec);
		daemon_log(LOG_ERR, "--record %s: %s", dir,
			   r == -EBUSY ? "another iotriaged records there" : strerror(-r));
		return r;
	}
	/* history replays what it checked and writes: the path may name
	 * another directory by then (a relative one after detach's chdir) */
	rec->dirfd = dfd;
	rec->logged_on = true;
	rec->compact_s = d->args.record_compact_s;
	rec->keep = d->args.record_keep;
	daemon_log(LOG_INFO, "recording to %s: at most %llu MiB%s", dir,
		   (unsigned long long)(d->args.record_max_bytes >> 20),
		   d->args.record_max_age_s ? ", age-limited" : "");
	/* the compaction thread starts later (rec_compact_start), these now:
	 * status reads what it counts */
	pthread_mutex_init(&rec->cmu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&rec->ccond, &ca);
	pthread_condattr_destroy(&ca);
	d->rec = rec;
	return 0;
}

void rec_sample(struct daemon *d)
{
	const struct snapshot *s = sampler_current(d->sampler);
	struct recwriter_stats st;
	int64_t t0;
	int r;

	if (!d->rec || !s)
		return;
	t0 = clock_thread_cpu_ns();
	sb_reset(&d->rec->buf);
	r = sampler_pack(d->sampler, &d->rec->buf);
	if (r >= 0)
		r = recwriter_append_take(d->rec->w, s->id, s->mono_ns, s->real_ns, &d->rec->buf);
	d->rec->sum_ns += clock_thread_cpu_ns() - t0;
	recwriter_stats(d->rec->w, &st);
	/* log each change of state once, not every sample */
	if (st.recording != d->rec->logged_on) {
		if (st.recording)
			daemon_log(LOG_NOTICE, "recording again to %s", d->args.record_dir);
		else
			daemon_log(LOG_ERR, "recording %s", st.reason);
		d->rec->logged_on = st.recording;
	} else if (r < 0 && r != d->rec->last_err) {
		daemon_log(LOG_ERR, "recording: %s", strerror(-r));
	}
	d->rec->last_err = r < 0 ? r : 0;
	/* the queue overflowed: said once a minute at most, with the total */
	if (st.dropped > d->rec->drop_logged &&
	    (!d->rec->drop_logged || s->mono_ns - d->rec->drop_log_ns >= REC_DROP_LOG_NS)) {
		daemon_log(LOG_WARNING,
			   "recording: %llu samples not recorded: the record disk is slower "
			   "than sampling (writer queue of %u full; slowest write %lld ms)",
			   (unsigned long long)st.dropped, st.queue_max,
			   (long long)(st.write_max_ns / 1000000));
		d->rec->drop_logged = st.dropped;
		d->rec->drop_log_ns = s->mono_ns;
	}
}

void rec_stop(struct daemon *d)
{
	struct recorder *rec = d->rec;

	if (!rec)
		return;
	compact_stop(rec);
	recwriter_close(rec->w);
	close(rec->dirfd);
	free(rec->pace);
	sb_free(&rec->buf);
	free(rec);
	d->rec = NULL;
}

void rec_status(struct daemon *d, struct strbuf *sb)
{
	struct recwriter_stats st;

	if (!d->rec) {
		sb_puts(sb, ",\"record\":null");
		return;
	}
	recwriter_stats(d->rec->w, &st);
	sb_puts(sb, ",\"record\":{\"dir\":");
	sb_json_str(sb, d->args.record_dir);
	sb_printf(sb, ",\"recording\":%s", st.recording ? "true" : "false");
	if (!st.recording) {
		sb_puts(sb, ",\"reason\":");
		sb_json_str(sb, st.reason);
	}
	sb_printf(sb,
		  ",\"frames\":%llu,\"bytes\":%llu,\"raw_bytes\":%llu,\"segments\":%llu,"
		  "\"removed\":%llu,\"fsyncs\":%llu,\"stored\":%llu,\"max_bytes\":%llu,"
		  "\"cpu_us\":%lld,\"queue\":{\"max\":%u,\"queued\":%u,\"peak\":%u,"
		  "\"dropped\":%llu,\"write_max_us\":%lld}",
		  (unsigned long long)st.frames, (unsigned long long)st.bytes,
		  (unsigned long long)st.raw_bytes, (unsigned long long)st.segments,
		  (unsigned long long)st.removed, (unsigned long long)st.fsyncs,
		  (unsigned long long)st.stored, (unsigned long long)d->args.record_max_bytes,
		  (long long)((d->rec->sum_ns + st.write_cpu_ns) / 1000), st.queue_max, st.queued,
		  st.queue_peak, (unsigned long long)st.dropped,
		  (long long)(st.write_max_ns / 1000));
	/* the thread's totals: sealing's, compaction's */
	pthread_mutex_lock(&d->rec->cmu);
	sb_printf(
	    sb,
	    ",\"seal\":{\"segments\":%llu,\"frames\":%llu,\"bytes_before\":%llu,"
	    "\"bytes_after\":%llu,\"cpu_us\":%lld}",
	    (unsigned long long)d->rec->sst.segments, (unsigned long long)d->rec->sst.frames_in,
	    (unsigned long long)d->rec->sst.bytes_before,
	    (unsigned long long)d->rec->sst.bytes_after, (long long)(d->rec->sst.cpu_ns / 1000));
	sb_printf(
	    sb,
	    ",\"compact\":{\"after_s\":%lld,\"keep_every\":%u,\"segments\":%llu,"
	    "\"frames_in\":%llu,\"frames_kept\":%llu,\"bytes_before\":%llu,"
	    "\"bytes_after\":%llu,\"cpu_us\":%lld",
	    (long long)d->args.record_compact_s, d->args.record_keep,
	    (unsigned long long)d->rec->cst.segments, (unsigned long long)d->rec->cst.frames_in,
	    (unsigned long long)d->rec->cst.frames_kept,
	    (unsigned long long)d->rec->cst.bytes_before,
	    (unsigned long long)d->rec->cst.bytes_after, (long long)(d->rec->cst.cpu_ns / 1000));
	if (d->rec->cerr) {
		sb_puts(sb, ",\"error\":");
		sb_json_str(sb, strerror(-d->rec->cerr));
	}
	pthread_mutex_unlock(&d->rec->cmu);
	sb_puts(sb, "}}");
}

void rec_history_ask(struct daemon *d, struct client *c, int64_t seconds)
{
	c->rec_pending = d->rec && seconds > 0;
	c->rec_from_ns = clock_ns(CLOCK_REALTIME) - seconds * INT64_C(1000000000);
}

/* uid's entry, the expired ones dropped on the way; NULL when none. */
static struct rec_pace *pace_find(struct daemon *d, uid_t uid, int64_t now)
{
	struct rec_pace *found = NULL;

	for (size_t i = 0; i < d->rec->pace_n;) {
		struct rec_pace *p = &d->rec->pace[i];

		if (p->next_ns <= now) {
			*p = d->rec->pace[--d->rec->pace_n];
			continue;
		}
		if (p->uid == uid)
			found = p;
		i++;
	}
	return found;
}

bool rec_history_ready(struct daemon *d, const struct client *c)
{
	if (server_client_privileged(c))
		return true;
	for (const struct client *o = d->clients; o; o = o->next)
		if (o != c && !o->dead && o->cred.uid == c->cred.uid && o->rec_bytes)
			return false;
	return !pace_find(d, c->cred.uid, clock_mono_ns());
}

/* Its next replay waits (100 - PCT) / PCT times what this one took. */
static void pace_charge(struct daemon *d, const struct client *c, int64_t cpu_ns)
{
	int64_t now = clock_mono_ns();
	struct rec_pace *p;

	if (server_client_privileged(c) || cpu_ns <= 0)
		return;
	p = pace_find(d, c->cred.uid, now);
	if (!p) {
		if (grow((void **)&d->rec->pace, &d->rec->pace_cap, d->rec->pace_n + 1,
			 sizeof(*d->rec->pace)) < 0)
			return; /* out of memory: this one unpaced */
		p = &d->rec->pace[d->rec->pace_n++];
		p->uid = c->cred.uid;
	}
	p->next_ns = now + cpu_ns * (100 - REC_HISTORY_CPU_PCT) / REC_HISTORY_CPU_PCT;
}

struct blob *rec_history(struct daemon *d, const struct client *c, uint64_t first_id,
			 size_t *ret_count)
{
	int64_t now = clock_ns(CLOCK_REALTIME), from = c->rec_from_ns, cpu0 = clock_thread_cpu_ns();
	int64_t span =
	    d->args.interval_ms * INT64_C(1000000) * (REC_HISTORY_MAX + (int64_t)d->hist.n);
	/* where each document starts in out; those before head are dropped */
	size_t *at = NULL, head = 0;
	struct sampler_replay *rp = NULL;
	const struct recframe *f;
	struct strbuf out = { 0 };
	struct blob *b = NULL;
	char why[512];
	size_t n = 0;

	*ret_count = 0;
	if (!d->rec)
		return NULL;
	/* the newest REC_HISTORY_MAX samples before the ring, not the oldest */
	if (now - span > from)
		from = now - span;
	at = calloc(REC_HISTORY_MAX, sizeof(*at));
	if (!at ||
	    sampler_replay_open_dir(d->rec->dirfd, d->args.record_dir, &rp, why, sizeof(why)) < 0)
		goto out;
	/* the advice the daemon sent, on the topology it recorded with it */
	if (!d->args.core_only && sampler_replay_advise_recorded(rp) < 0)
		goto out;
	sampler_replay_seek(rp, from, false);
	while (n < REC_HISTORY_MAX && sampler_replay_next(rp, &f) > 0) {
		const char *doc;
		size_t len;

		/* from here on the ring has them */
		if (f->run_id == d->rec->run_id && f->id >= first_id)
			break;
		doc = sampler_json(sampler_replay_sampler(rp), &len);
		if (!doc)
			continue;
		if (n)
			sb_putc(&out, ',');
		at[n++] = out.len;
		sb_append(&out, doc, len);
		/* over the bytes: the oldest go (one is always kept), and
		 * their room once it is as much again */
		while (n - head > 1 && out.len - at[head] > REC_HISTORY_MAX_BYTES)
			head++;
		if (at[head] > REC_HISTORY_MAX_BYTES && !out.err) {
			size_t cut = at[head];

			memmove(out.buf, out.buf + cut, out.len - cut);
			out.len -= cut;
			for (size_t i = head; i < n; i++)
				at[i] -= cut;
		}
	}
	if (n && !out.err) {
		b = blob_new(out.buf + at[head], out.len - at[head]);
		if (b)
			*ret_count = n - head;
	}
out:
	sampler_replay_close(rp);
	sb_free(&out);
	free(at);
	pace_charge(d, c, clock_thread_cpu_ns() - cpu0);
	return b;
}
