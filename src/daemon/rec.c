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
 * sampling path; history's replays of the recording in another, one
 * reply's part at a time.
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
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "daemon.h"
#include "grow.h"
#include "rec_file.h"
#include "server.h"
#include "treewrite.h"

/* The most samples one history reply takes from the recording (900: 15
 * minutes at 1 Hz): replaying costs ~50 us a sample of a small host here,
 * ~3 ms one of a big host's trace, on the replay thread (the loop never
 * waits for it). Longer spans: `iotriage replay` on the recording. */
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
	/* the replay thread: history replies' recorded parts, made off the
	 * loop one at a time in the order asked; under hmu but the watch and
	 * what the loop alone reads (the totals) */
	const char *dir;     /* --record, as given */
	int64_t interval_ns; /* --interval */
	bool core_only;	     /* --core-only: no advice replayed */
	uint64_t ring_first; /* the ring's first sample (rec_ring_first), atomically */
	struct watch hw;     /* its eventfd: a part is made */
	pthread_t hthread;
	bool hthread_on;
	pthread_mutex_t hmu;
	pthread_cond_t hcond;
	struct rec_job *hq, **hq_tail; /* to make */
	struct rec_job *hdone;	       /* made, not yet taken by the loop */
	bool hstop;
	uint64_t hjobs; /* parts made, for status */
	int64_t hcpu_ns, hmax_ns;
};

/* Compaction's and sealing's share of one CPU while they run (compaction
 * decodes every frame of a segment: ~2 s of CPU for a 256-CPU host's 8 MiB
 * segment), and how often the thread looks for segments at most (a closed
 * segment stays uncompressed that long: a minute). */
#define REC_COMPACT_DUTY_PCT 20
#define REC_COMPACT_EVERY_S  60
/* Samples the writer's queue dropped are logged at most this often. */
#define REC_DROP_LOG_NS (60 * INT64_C(1000000000))

static void history_start(struct daemon *d);
static void history_stop(struct recorder *rec);

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
	history_start(d);
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
	if (root_read_small(sampler_root(d->sampler), "proc/sys/kernel/random/boot_id", boot,
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
	rec->dir = dir;
	rec->interval_ns = d->args.interval_ms * INT64_C(1000000);
	rec->core_only = d->args.core_only;
	rec->hw.fd = -1;
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
	pthread_mutex_init(&rec->hmu, NULL);
	pthread_cond_init(&rec->hcond, NULL);
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
	history_stop(rec);
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
	/* history's replays: parts made (off the loop with the thread) */
	sb_printf(sb,
		  "},\"history\":{\"thread\":%s,\"parts\":%llu,\"cpu_us\":%lld,"
		  "\"max_us\":%lld}}",
		  d->rec->hthread_on ? "true" : "false", (unsigned long long)d->rec->hjobs,
		  (long long)(d->rec->hcpu_ns / 1000), (long long)(d->rec->hmax_ns / 1000));
}

void rec_history_ask(struct daemon *d, struct client *c, int64_t seconds)
{
	c->rec_pending = d->rec && seconds > 0;
	c->rec_from_ns = clock_ns(CLOCK_REALTIME) - seconds * INT64_C(1000000000);
	c->rec_step_ns = 0;
}

void rec_history_ask_at(struct daemon *d, struct client *c, int64_t at_ns, int64_t step_ns)
{
	c->rec_pending = d->rec != NULL;
	c->rec_from_ns = at_ns;
	c->rec_step_ns = step_ns;
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
		if (o != c && !o->dead && o->cred.uid == c->cred.uid &&
		    (o->rec_bytes || o->rec_job))
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

/* A history reply's recorded part: asked by the loop, made by the replay
 * thread (or by the loop when there is none), handed back by the loop. */
struct rec_job {
	struct rec_job *next;
	struct client *c;    /* the loop's: NULL once the client is freed */
	int64_t from_ns;     /* the part: recorded samples from then on ... */
	int64_t end_ns;	     /* ... the ring holding those from about then */
	int64_t step_ns;     /* "at": the one interval this long ending at from_ns */
	int cancel;	     /* atomically: the client is gone, stop */
	bool retried;	     /* made a second time (the ring moved meanwhile) */
	struct blob *b;	     /* made: the documents joined by ',', NULL none */
	size_t count;	     /* how many */
	uint64_t first_used; /* the ring's first sample when the replay met it */
	int64_t cpu_ns;	     /* what making it took */
};

/* What the replays of one part share: the reader, the documents' buffer
 * and where each starts in it (at[REC_HISTORY_MAX]). */
struct part_buf {
	struct sampler_replay *rp;
	struct strbuf out;
	size_t *at;
};

/*
 * The recorded samples from from_ns on that the ring does not hold (older
 * than its first sample, of this run: rec->ring_first, read as the replay
 * goes, since the loop goes on meanwhile), joined by ',': at most
 * REC_HISTORY_MAX of them and REC_HISTORY_MAX_BYTES (but one), the newest.
 * *ret_full: whether the bounds dropped some (a part starting earlier
 * would send no more). NULL when none or cancelled.
 */
static struct blob *replay_part(struct recorder *rec, struct rec_job *j, struct part_buf *pb,
				int64_t from, size_t *ret_count, bool *ret_full)
{
	/* where each document starts in out; those before head are dropped */
	size_t *at = pb->at, head = 0;
	struct sampler_replay *rp = pb->rp;
	const struct recframe *f;
	struct strbuf out = pb->out;
	struct blob *b = NULL;
	size_t n = 0;

	*ret_count = 0;
	*ret_full = false;
	sb_reset(&out);
	/* each replay judges afresh from its first sample, as a new reader */
	sampler_restart(sampler_replay_sampler(rp));
	sampler_replay_seek(rp, from, false);
	while (sampler_replay_next(rp, &f) > 0) {
		const char *doc;
		size_t len;

		if (__atomic_load_n(&j->cancel, __ATOMIC_RELAXED))
			goto out;
		/* from here on the ring has them */
		j->first_used = __atomic_load_n(&rec->ring_first, __ATOMIC_RELAXED);
		if (f->run_id == rec->run_id && f->id >= j->first_used)
			break;
		doc = sampler_json(sampler_replay_sampler(rp), &len);
		if (!doc)
			continue;
		if (n == REC_HISTORY_MAX) { /* the oldest goes */
			size_t cut = at[head + 1];

			memmove(out.buf, out.buf + cut, out.len - cut);
			out.len -= cut;
			for (size_t i = head + 1; i < n; i++)
				at[i - head - 1] = at[i] - cut;
			n -= head + 1;
			head = 0;
			*ret_full = true;
		}
		if (n)
			sb_putc(&out, ',');
		at[n++] = out.len;
		sb_append(&out, doc, len);
		/* over the bytes: the oldest go (one is always kept), and
		 * their room once it is as much again */
		while (n - head > 1 && out.len - at[head] > REC_HISTORY_MAX_BYTES) {
			head++;
			*ret_full = true;
		}
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
	out.err = 0;
	pb->out = out; /* its buffer, for the next */
	return b;
}

/*
 * Makes j's part, replaying little more than the bounds keep: the part
 * ends at the ring, so it is replayed over a window before the ring that
 * widens until the bounds drop samples or it reaches from_ns: 4 samples
 * first, then twice as many as documents of the size just seen fit in the
 * bytes, at least 4 and at most 16 times the window before. A big host's
 * documents (2,048 per-queue rows: ~430 KB, ~19 in the bytes) take 4 + 40
 * samples, not 900 (seconds of CPU); small ones 4 + 64 + 1,024 at most.
 */
/*
 * A history "at" reply's part: the one document of the interval of
 * j->step_ns ending at the recorded sample at j->from_ns (within half an
 * interval), the advice on the topology recorded with it, as iotriage
 * replay --step --at makes it. None when that sample is not recorded.
 */
static void make_wide(struct recorder *rec, struct rec_job *j)
{
	int64_t cpu0 = clock_thread_cpu_ns();
	struct sampler_replay *rp = NULL;
	const struct recframe *f;
	const char *doc;
	char why[512];
	size_t len;

	if (sampler_replay_open_dir(rec->dirfd, rec->dir, &rp, why, sizeof(why)) < 0 ||
	    (!rec->core_only && sampler_replay_advise_recorded(rp) < 0))
		goto out;
	sampler_replay_step(rp, j->step_ns);
	if (sampler_replay_seek(rp, j->from_ns, false) > 0 && sampler_replay_next(rp, &f) > 0 &&
	    f->real_ns <= j->from_ns + rec->interval_ns / 2 &&
	    (doc = sampler_json(sampler_replay_sampler(rp), &len)))
		j->b = blob_new(doc, len);
out:
	sampler_replay_close(rp);
	j->count = j->b ? 1 : 0;
	j->cpu_ns = clock_thread_cpu_ns() - cpu0;
}

static void make_part(struct recorder *rec, struct rec_job *j)
{
	int64_t each = rec->interval_ns, start, cpu0 = clock_thread_cpu_ns();
	struct part_buf pb = { 0 };
	bool full = false;
	char why[512];

	if (j->step_ns) {
		make_wide(rec, j);
		return;
	}
	pb.at = calloc(REC_HISTORY_MAX, sizeof(*pb.at));
	if (!pb.at || sampler_replay_open_dir(rec->dirfd, rec->dir, &pb.rp, why, sizeof(why)) < 0)
		goto out;
	/* the advice the daemon sent, on the topology it recorded with it */
	if (!rec->core_only && sampler_replay_advise_recorded(pb.rp) < 0)
		goto out;
	for (int64_t w = 4;;) {
		int64_t est = 16 * w;

		start = j->end_ns - w * each > j->from_ns ? j->end_ns - w * each : j->from_ns;
		blob_unref(j->b);
		j->b = replay_part(rec, j, &pb, start, &j->count, &full);
		if (start == j->from_ns || full || w > REC_HISTORY_MAX ||
		    __atomic_load_n(&j->cancel, __ATOMIC_RELAXED))
			break;
		if (j->b && j->count && j->b->len / j->count)
			est = 2 * (int64_t)(REC_HISTORY_MAX_BYTES / (j->b->len / j->count)) + 2;
		w = est < 4 * w ? 4 * w : est > 16 * w ? 16 * w : est;
	}
out:
	sampler_replay_close(pb.rp);
	sb_free(&pb.out);
	free(pb.at);
	if (!j->b)
		j->count = 0;
	j->cpu_ns = clock_thread_cpu_ns() - cpu0;
}

static void job_free(struct rec_job *j)
{
	if (!j)
		return;
	blob_unref(j->b);
	free(j);
}

static void *history_main(void *arg)
{
	struct recorder *rec = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&rec->hmu);
	while (!rec->hstop) {
		struct rec_job *j = rec->hq;

		if (!j) {
			pthread_cond_wait(&rec->hcond, &rec->hmu);
			continue;
		}
		rec->hq = j->next;
		if (!rec->hq)
			rec->hq_tail = &rec->hq;
		pthread_mutex_unlock(&rec->hmu);
		if (!__atomic_load_n(&j->cancel, __ATOMIC_RELAXED))
			make_part(rec, j);
		pthread_mutex_lock(&rec->hmu);
		j->next = rec->hdone;
		rec->hdone = j;
		/* a counter far from its maximum: cannot block or fail short */
		if (write(rec->hw.fd, &one, sizeof(one)) < 0)
			break;
	}
	pthread_mutex_unlock(&rec->hmu);
	return NULL;
}

/* The replay thread and its eventfd; without them history replays in the
 * loop, as it did. Signals stay blocked in it (main blocked them). */
static void history_start(struct daemon *d)
{
	struct recorder *rec = d->rec;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &rec->hw };
	int r;

	rec->hq_tail = &rec->hq;
	rec->hw.kind = WATCH_REC_HISTORY;
	rec->hw.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (rec->hw.fd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, rec->hw.fd, &ev) < 0) {
		daemon_log(LOG_ERR,
			   "--record: no history replay thread (history replays in the "
			   "loop): %s",
			   strerror(errno));
		goto fail;
	}
	r = pthread_create(&rec->hthread, NULL, history_main, rec);
	if (r) {
		daemon_log(LOG_ERR,
			   "--record: no history replay thread (history replays in the "
			   "loop): %s",
			   strerror(r));
		goto fail;
	}
	rec->hthread_on = true;
	return;
fail:
	if (rec->hw.fd >= 0)
		close(rec->hw.fd);
	rec->hw.fd = -1;
}

static void history_stop(struct recorder *rec)
{
	struct rec_job *j;

	if (!rec->hthread_on)
		return;
	pthread_mutex_lock(&rec->hmu);
	rec->hstop = true;
	for (j = rec->hq; j; j = j->next)
		__atomic_store_n(&j->cancel, 1, __ATOMIC_RELAXED);
	pthread_cond_signal(&rec->hcond);
	pthread_mutex_unlock(&rec->hmu);
	pthread_join(rec->hthread, NULL);
	rec->hthread_on = false;
	while ((j = rec->hq)) {
		rec->hq = j->next;
		job_free(j);
	}
	while ((j = rec->hdone)) {
		rec->hdone = j->next;
		job_free(j);
	}
	/* the loop is over and its epoll fd closed (main.c): closing ours
	 * is all (an epoll_ctl now would name a number another may hold) */
	close(rec->hw.fd);
	rec->hw.fd = -1;
}

void rec_ring_first(struct daemon *d, uint64_t id)
{
	if (d->rec)
		__atomic_store_n(&d->rec->ring_first, id, __ATOMIC_RELAXED);
}

/* j to the replay thread's queue, the thread woken. */
static void job_queue(struct recorder *rec, struct rec_job *j)
{
	pthread_mutex_lock(&rec->hmu);
	*rec->hq_tail = j;
	rec->hq_tail = &j->next;
	pthread_cond_signal(&rec->hcond);
	pthread_mutex_unlock(&rec->hmu);
}

/* A finished part's CPU time in the replay statistics (status). */
static void job_account(struct recorder *rec, const struct rec_job *j)
{
	rec->hjobs++;
	rec->hcpu_ns += j->cpu_ns;
	if (j->cpu_ns > rec->hmax_ns)
		rec->hmax_ns = j->cpu_ns;
}

int rec_history_submit(struct daemon *d, struct client *c, struct blob **ret_b, size_t *ret_count)
{
	int64_t now = clock_ns(CLOCK_REALTIME);
	int64_t span =
	    d->args.interval_ms * INT64_C(1000000) * (REC_HISTORY_MAX + (int64_t)d->hist.n);
	const struct hist_entry *first = history_at(&d->hist, 0);
	struct rec_job *j;

	*ret_b = NULL;
	*ret_count = 0;
	if (!d->rec)
		return 0;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	/* the newest REC_HISTORY_MAX samples before the ring, not the oldest */
	j->from_ns = now - span > c->rec_from_ns ? now - span : c->rec_from_ns;
	j->step_ns = c->rec_step_ns;
	if (j->step_ns)
		j->from_ns = c->rec_from_ns; /* "at": that sample, wherever it is */
	/* the ring's first sample's real time */
	j->end_ns = first ? now - (clock_mono_ns() - first->mono_ns) : now;
	if (!d->rec->hthread_on) {
		make_part(d->rec, j);
		pace_charge(d, c, j->cpu_ns);
		job_account(d->rec, j);
		*ret_b = j->b;
		*ret_count = j->count;
		free(j);
		return 0;
	}
	j->c = c;
	c->rec_job = j;
	job_queue(d->rec, j);
	return 1;
}

void rec_history_forget(struct daemon *d, struct client *c)
{
	struct rec_job *j = c->rec_job;

	if (!j)
		return;
	pthread_mutex_lock(&d->rec->hmu);
	j->c = NULL; /* freed when the thread hands it back */
	__atomic_store_n(&j->cancel, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&d->rec->hmu);
	c->rec_job = NULL;
}

void rec_history_event(struct daemon *d)
{
	struct rec_job *done, *j;
	uint64_t n;

	while (read(d->rec->hw.fd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&d->rec->hmu);
	done = d->rec->hdone;
	d->rec->hdone = NULL;
	pthread_mutex_unlock(&d->rec->hmu);
	while ((j = done)) {
		const struct hist_entry *first = history_at(&d->hist, 0);
		struct client *c = j->c;

		done = j->next;
		job_account(d->rec, j);
		if (c)
			c->rec_job = NULL;
		if (!c || c->dead) {
			job_free(j);
			continue;
		}
		pace_charge(d, c, j->cpu_ns);
		/* the ring dropped samples after the replay met its first one
		 * and before now (a sample in between): made again, once, so
		 * none is missing between the part and the ring */
		if (first && first->id > j->first_used && j->first_used && !j->retried) {
			blob_unref(j->b);
			j->b = NULL;
			j->retried = true;
			j->next = NULL;
			c->rec_job = j;
			job_queue(d->rec, j);
			continue;
		}
		client_history_part(d, c, j->b, j->count);
		job_free(j);
	}
}
