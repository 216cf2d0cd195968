// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Unix socket: listening (stale-socket check, mode, group), clients and
 * their peer credentials, request lines -> the dispatch table -> replies, and
 * per-client output queues of blob slices. Nothing here blocks: sockets are
 * non-blocking, a client that cannot keep up is marked dead and freed by the
 * loop after the current batch of events, never from inside a write.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "daemon.h"
#include "encode.h"
#include "grow.h"
#include "encode_turbo.h"
#include "text.h"

/*
 * A client whose replies (not pushes) exceed this is not read any further
 * until they are written: one history reply may be megabytes, but a client
 * cannot pile up more than one of them plus a few small ones.
 */
#define REPLY_BACKLOG (256 * 1024)

/*
 * A history reply is written as the socket drains (history_step): the next
 * chunk of samples is made when less than HIST_LOW_WATER of the client's
 * replies are unwritten, at most HIST_CHUNK bytes of decompressed samples
 * (at least one sample). A client with a chunk of its own still queued
 * gets another only while all clients' chunks together stay under
 * HIST_QUEUED_MAX; one with none always gets one, so replies that others
 * leave unread never hold a reader's back (nor its pushes, held meanwhile,
 * past IOT_PROTO_MAX_PUSH_BACKLOG). The bound is HIST_QUEUED_MAX plus one
 * chunk a client: 60 clients asking for the whole ring and never reading
 * pin about 128 KiB each (the kernel's socket buffers aside), not the ring
 * each.
 */
#define HIST_LOW_WATER	(64 * 1024)
#define HIST_CHUNK	(64 * 1024)
#define HIST_QUEUED_MAX (16 * 1024 * 1024)

static const char *peer_name(const struct client *c, char *buf, size_t size)
{
	snprintf(buf, size, "client %u (pid %d, uid %u)", c->serial, (int)c->cred.pid,
		 (unsigned)c->cred.uid);
	return buf;
}

static void client_kill(struct daemon *d, struct client *c, int prio, const char *why)
{
	char name[64];

	if (c->dead)
		return;
	c->dead = true;
	if (c->subscribed) {
		c->subscribed = false;
		d->nsubscribers--;
	}
	daemon_log(prio, "%s: disconnected: %s", peer_name(c, name, sizeof(name)), why);
}

/*
 * Closing on purpose (too long a line, a wrong version, EOF) after the last
 * reply went out. Unix sockets reset the peer (ECONNRESET, losing the reply we
 * just wrote) when closed with unread input queued, so what the client has
 * already sent is read and dropped first, at most a bounded amount.
 */
static void client_close_after_reply(struct daemon *d, struct client *c)
{
	char sink[16384];

	for (size_t total = 0; total < (1u << 20);) {
		ssize_t n = recv(c->w.fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n <= 0)
			break;
		total += (size_t)n;
	}
	client_kill(d, c, LOG_DEBUG, "closed after the last reply");
}

bool server_client_privileged(const struct client *c)
{
	return c->cred.uid == 0 || c->cred.uid == geteuid();
}

/* ---- output queue ---- */

static size_t reply_backlog(const struct client *c)
{
	return c->q_bytes - c->push_bytes;
}

/* Queues [off, off + len) of b, taking a new reference. 0 or -ENOMEM. */
static int queue_seg(struct client *c, struct blob *b, size_t off, size_t len, bool push)
{
	if (!push && reply_backlog(c) == 0)
		c->reply_wait_ns = daemon_now_ns();
	if (c->q_head + c->q_n == c->q_cap && c->q_head) {
		memmove(c->q, c->q + c->q_head, c->q_n * sizeof(*c->q));
		c->q_head = 0;
	}
	if (grow((void **)&c->q, &c->q_cap, c->q_head + c->q_n + 1, sizeof(*c->q)) < 0)
		return -ENOMEM;
	c->q[c->q_head + c->q_n] =
	    (struct oseg){ .b = blob_ref(b), .off = off, .len = len, .push = push };
	c->q_n++;
	c->q_bytes += len;
	if (push)
		c->push_bytes += len;
	return 0;
}

/* Drops n written bytes from the front of the queue. */
static void queue_consume(struct daemon *d, struct client *c, size_t n)
{
	while (n && c->q_n) {
		struct oseg *s = &c->q[c->q_head];
		size_t k = n < s->len ? n : s->len;

		s->off += k;
		s->len -= k;
		c->q_bytes -= k;
		if (s->push)
			c->push_bytes -= k;
		if (s->owned) {
			c->owned_bytes -= k;
			d->hist_queued -= k;
		}
		n -= k;
		if (s->len == 0) {
			blob_unref(s->b);
			c->q_head++;
			c->q_n--;
		}
	}
	if (!c->q_n) {
		c->q_head = 0;
		/* a long history reply grew the array: do not keep it per client */
		if (c->q_cap > 256) {
			free(c->q);
			c->q = NULL;
			c->q_cap = 0;
		}
	}
}

static void client_flush(struct daemon *d, struct client *c)
{
	while (c->q_n && !c->dead) {
		struct iovec iov[64];
		struct msghdr mh = { .msg_iov = iov };
		size_t n = c->q_n < 64 ? c->q_n : 64;
		ssize_t w;

		for (size_t i = 0; i < n; i++) {
			iov[i].iov_base = c->q[c->q_head + i].b->data + c->q[c->q_head + i].off;
			iov[i].iov_len = c->q[c->q_head + i].len;
		}
		mh.msg_iovlen = n;
		/* MSG_NOSIGNAL: a peer gone away is an error here, not a SIGPIPE */
		w = sendmsg(c->w.fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			client_kill(d, c, LOG_DEBUG, strerror(errno));
			return;
		}
		if (w > 0 && reply_backlog(c))
			c->reply_wait_ns = daemon_now_ns();
		queue_consume(d, c, (size_t)w);
	}
	if (!c->q_n && c->closing && !c->hist_active)
		client_close_after_reply(d, c);
}

static void client_update_events(struct daemon *d, struct client *c)
{
	struct epoll_event ev = { .data.ptr = &c->w };
	uint32_t want = 0;

	if (c->dead)
		return;
	/* nothing is read while a history reply is written: an error reply
	 * (too_long) would land inside it */
	if (!c->closing && !c->eof && !c->hist_active && reply_backlog(c) < REPLY_BACKLOG)
		want |= EPOLLIN;
	if (c->q_n)
		want |= EPOLLOUT;
	if (want == c->events)
		return;
	ev.events = want;
	if (epoll_ctl(d->epfd, EPOLL_CTL_MOD, c->w.fd, &ev) < 0) {
		client_kill(d, c, LOG_ERR, "epoll_ctl failed");
		return;
	}
	c->events = want;
}

/* ---- replies ---- */

struct strbuf *server_reply_start(struct daemon *d, const struct request *rq)
{
	request_reply_start(&d->sb, rq ? rq->id : NULL);
	return &d->sb;
}

/* Queues d->sb as one owned blob. */
static int queue_sb(struct daemon *d, struct client *c)
{
	struct blob *b;
	int r;

	if (d->sb.err)
		return d->sb.err;
	b = blob_new(d->sb.buf, d->sb.len);
	if (!b)
		return -ENOMEM;
	r = queue_seg(c, b, 0, b->len, false);
	blob_unref(b);
	return r;
}

int server_reply_finish(struct daemon *d, struct client *c)
{
	sb_append(&d->sb, "}\n", 2);
	return queue_sb(d, c);
}

int server_reply_error(struct daemon *d, struct client *c, const char *id,
		       enum iot_proto_error code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	request_reply_error(&d->sb, id, code, msg);
	return queue_sb(d, c);
}

/* ---- commands ---- */

static int cmd_hello(struct daemon *d, struct client *c, const struct request *rq)
{
	struct strbuf *sb;
	int64_t v = -1;

	/* any 64-bit version is a version we do not speak, not a bad request */
	if (request_get_int(rq, "version", 0, INT64_MAX, &v) <= 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "hello needs \"version\", a non-negative integer");
	if (v != IOT_PROTOCOL_VERSION) {
		c->closing = true;
		return server_reply_error(d, c, rq->id, IOT_ERR_VERSION,
					  "protocol version %lld is not supported; this "
					  "iotriaged speaks version %d",
					  (long long)v, IOT_PROTOCOL_VERSION);
	}
	sb = server_reply_start(d, rq);
	sb_printf(sb, ",\"version\":%d,\"server\":\"iotriaged %s\",\"interval_ms\":%ld",
		  IOT_PROTOCOL_VERSION, IOTRIAGE_VERSION, d->args.interval_ms);
	sb_printf(sb, ",\"history_s\":%ld", d->args.history_s);
	return server_reply_finish(d, c);
}

static int cmd_snapshot(struct daemon *d, struct client *c, const struct request *rq)
{
	const struct hist_entry *e = history_latest(&d->hist);
	int r;

	if (!e)
		return server_reply_error(d, c, rq->id, IOT_ERR_NO_SAMPLE,
					  "no sample has been taken yet");
	sb_puts(server_reply_start(d, rq), ",\"sample\":");
	r = queue_sb(d, c);
	/* the event line ends DOC with "}\n": exactly the end of this reply */
	if (r >= 0)
		r = queue_seg(c, e->b, e->doc_off, e->b->len - e->doc_off, false);
	return r;
}

static int cmd_subscribe(struct daemon *d, struct client *c, const struct request *rq)
{
	struct strbuf *sb;
	int64_t every = 1;

	if (request_get_int(rq, "every", 1, 1000000, &every) < 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "\"every\" must be an integer from 1 to 1000000");
	if (!c->subscribed)
		d->nsubscribers++;
	c->subscribed = true;
	c->every = (uint32_t)every;
	c->sub_counter = 0;
	sb = server_reply_start(d, rq);
	sb_printf(sb, ",\"subscribed\":true,\"every\":%u,\"interval_ms\":%ld", c->every,
		  d->args.interval_ms);
	return server_reply_finish(d, c);
}

static int cmd_unsubscribe(struct daemon *d, struct client *c, const struct request *rq)
{
	if (c->subscribed)
		d->nsubscribers--;
	c->subscribed = false;
	sb_puts(server_reply_start(d, rq), ",\"subscribed\":false");
	return server_reply_finish(d, c);
}

/*
 * {"cmd":"history",...}: the header goes out now; the samples follow as the
 * client reads (history_step), then "count", "first" and "last", which say
 * what was sent: a sample the ring dropped before its turn came (a client
 * reading slower than the ring turns over) is not in the reply.
 */
static int cmd_history(struct daemon *d, struct client *c, const struct request *rq)
{
	const struct hist_entry *last = history_latest(&d->hist);
	int64_t seconds = -1, since = -1;
	size_t from;
	int r1, r2, r;

	r1 = request_get_int(rq, "seconds", 0, INT32_MAX, &seconds);
	r2 = request_get_int(rq, "since", 0, INT64_MAX, &since);
	if (r1 < 0 || r2 < 0 || r1 + r2 != 1)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "history needs exactly one of \"seconds\" or \"since\", "
					  "a non-negative integer");
	sb_puts(server_reply_start(d, rq), ",\"samples\":[");
	r = queue_sb(d, c);
	if (r < 0)
		return r;
	/* the samples follow from history_step(), nothing else until then */
	c->hist_active = true;
	c->hist_count = 0;
	c->hist_first_sent = 0;
	c->hist_last = last ? last->id : 0;
	if (!last)
		from = 0;
	else if (r1)
		from = history_find_from(&d->hist, last->mono_ns - seconds * 1000000000LL);
	else
		from = history_find_since(&d->hist, (uint64_t)since);
	/* ids only increase (from 1): everything after the one before from */
	c->hist_after = from < d->hist.n ? history_at(&d->hist, from)->id - 1 : c->hist_last;
	return 0;
}

/* Queues what was pushed while the history reply was written, in order. */
static int release_held(struct client *c)
{
	int r = 0;

	for (size_t i = 0; i < c->held_n; i++) {
		if (r >= 0)
			r = queue_seg(c, c->held[i], 0, c->held[i]->len, true);
		c->held_bytes -= c->held[i]->len;
		blob_unref(c->held[i]);
	}
	c->held_n = 0;
	free(c->held);
	c->held = NULL;
	c->held_cap = 0;
	return r;
}

/* Ends the history reply: "]", what was sent, "}\n". 0 or -ENOMEM. */
static int history_finish(struct daemon *d, struct client *c)
{
	char tail[96];
	struct blob *b;
	int r;

	if (c->hist_count)
		snprintf(tail, sizeof(tail), ",\"count\":%zu,\"first\":%llu,\"last\":%llu}\n",
			 c->hist_count, (unsigned long long)c->hist_first_sent,
			 (unsigned long long)c->hist_after);
	else
		snprintf(tail, sizeof(tail), ",\"count\":0,\"first\":null,\"last\":null}\n");
	r = queue_seg(c, d->list_end, 0, d->list_end->len, false);
	b = r >= 0 ? blob_new(tail, strlen(tail)) : NULL;
	if (!b)
		return -ENOMEM;
	r = queue_seg(c, b, 0, b->len, false);
	blob_unref(b);
	c->hist_active = false;
	if (r >= 0)
		r = release_held(c);
	return r;
}

/*
 * Queues the next samples of c's history reply while less than
 * HIST_LOW_WATER of its replies are unwritten. Samples still holding their
 * line are queued as slices of it (shared); a run of compressed ones is
 * decompressed into a chunk of at most HIST_CHUNK bytes (at least one
 * sample) owned by this reply and counted in d->hist_queued. Returns
 * whether anything was queued; -ENOMEM drops the client.
 */
static bool history_step(struct daemon *d, struct client *c)
{
	bool any = false;
	int r = 0;

	c->hist_wait = false;
	while (c->hist_active && !c->dead && reply_backlog(c) < HIST_LOW_WATER) {
		size_t i = history_find_since(&d->hist, c->hist_after), j, len = 0;
		const struct hist_entry *e = history_at(&d->hist, i);
		struct blob *b;

		any = true;
		if (!e || e->id > c->hist_last) {
			r = history_finish(d, c);
			break;
		}
		if (!e->b && c->owned_bytes && d->hist_queued >= HIST_QUEUED_MAX) {
			/* resumed by server_resume() once other replies drained */
			c->hist_wait = true;
			d->hist_waiting = true;
			any = false;
			break;
		}
		if (c->hist_count)
			r = queue_seg(c, d->comma, 0, d->comma->len, false);
		if (r < 0)
			break;
		if (e->b) { /* not compressed yet: its event line, shared */
			r = queue_seg(c, e->b, e->doc_off, e->doc_len, false);
			j = i + 1;
		} else {
			/* one frame's samples at a time, decompressed once for
			 * all of them (history keeps the last frame) */
			for (j = i; j < d->hist.n; j++) {
				const struct hist_entry *f = history_at(&d->hist, j);

				if (f->b || f->z != e->z || f->id > c->hist_last ||
				    (j > i && len + 1 + f->doc_len > HIST_CHUNK))
					break;
				len += f->doc_len + (j > i);
			}
			b = blob_alloc(len);
			if (!b) {
				r = -ENOMEM;
				break;
			}
			/* a frame of ours that does not decompress cannot happen:
			 * the client is dropped */
			r = history_docs_cached(&d->hist, i, j, b->data);
			if (r >= 0)
				r = queue_seg(c, b, 0, len, false);
			if (r >= 0) {
				c->q[c->q_head + c->q_n - 1].owned = true;
				c->owned_bytes += len;
				d->hist_queued += len;
			}
			blob_unref(b);
		}
		if (r < 0)
			break;
		if (!c->hist_count)
			c->hist_first_sent = e->id;
		c->hist_count += j - i;
		c->hist_after = history_at(&d->hist, j - 1)->id;
	}
	if (r < 0)
		client_kill(d, c, LOG_ERR, "out of memory for its history reply");
	return any;
}

static int cmd_status(struct daemon *d, struct client *c, const struct request *rq)
{
	const struct snapshot *s = sampler_current(d->sampler);
	const struct metrics *m = sampler_metrics(d->sampler);
	const struct hist_entry *first = history_at(&d->hist, 0);
	const struct hist_entry *last = history_latest(&d->hist);
	struct strbuf *sb = server_reply_start(d, rq);

	sb_printf(sb, ",\"version\":%d,\"server\":\"iotriaged %s\",\"pid\":%d",
		  IOT_PROTOCOL_VERSION, IOTRIAGE_VERSION, (int)getpid());
	sb_printf(sb, ",\"uptime_s\":%lld",
		  (long long)((daemon_now_ns() - d->start_mono_ns) / 1000000000LL));
	sb_printf(sb, ",\"interval_ms\":%ld,\"history_s\":%ld", d->args.interval_ms,
		  d->args.history_s);
	sb_printf(sb, ",\"samples\":%llu,\"overruns\":%llu,\"sample_errors\":%llu",
		  (unsigned long long)d->samples, (unsigned long long)d->overruns,
		  (unsigned long long)d->sample_errors);
	sb_printf(sb, ",\"tick_us\":{\"last\":%lld,\"avg\":%lld,\"max\":%lld}",
		  (long long)(d->tick_last_ns / 1000),
		  (long long)(d->samples ? d->tick_sum_ns / 1000 / (int64_t)d->samples : 0),
		  (long long)(d->tick_max_ns / 1000));
	sb_printf(sb, ",\"clients\":%u,\"max_clients\":%ld,\"subscribers\":%u", d->nclients,
		  d->args.max_clients, d->nsubscribers);
	sb_printf(sb, ",\"history\":{\"count\":%zu,\"bytes\":%zu,\"stored_bytes\":%zu", d->hist.n,
		  d->hist.bytes, d->hist.stored);
	if (first && last)
		sb_printf(sb, ",\"first\":%llu,\"last\":%llu}", (unsigned long long)first->id,
			  (unsigned long long)last->id);
	else
		sb_puts(sb, ",\"first\":null,\"last\":null}");
	sb_puts(sb, ",\"root\":");
	sb_json_str(sb, d->args.root ? d->args.root : "/");
	sb_puts(sb, d->args.core_only ? ",\"core_only\":true" : ",\"core_only\":false");
	sb_puts(sb, ",\"sources\":");
	if (s)
		encode_sources_object(sb, s);
	else
		sb_puts(sb, "{}");
	/* turbostat's sources chosen per column at start, with the reasons */
	if (m && m->turbo && m->turbo->available) {
		sb_puts(sb, ",\"turbostat\":");
		encode_turbo_columns(sb, m->turbo);
	}
	return server_reply_finish(d, c);
}

/* {"cmd":"apply","suggestion":ID} and {"cmd":"undo"[,"suggestion":ID]}:
 * the advisor's writes (src/advise/apply.c) on the daemon's own root, against its
 * latest sample; privileged (SO_PEERCRED) in the table below. */
static const char *suggestion_arg(const struct request *rq)
{
	json_object *v;

	/* "x\u0000y" would read as "x": another suggestion than the one named */
	if (!json_object_object_get_ex(rq->root, "suggestion", &v) ||
	    !json_object_is_type(v, json_type_string) || !request_text_ok(v))
		return NULL;
	return json_object_get_string(v);
}

static int reply_apply(struct daemon *d, struct client *c, const struct request *rq, int e,
		       const struct apply_result *res, const char *key)
{
	struct strbuf *sb;

	if (e == -ENOMEM)
		return e;
	if (e < 0)
		return server_reply_error(d, c, rq->id,
					  e == -ENOENT || e == -EEXIST || e == -EINVAL
					      ? IOT_ERR_BAD_REQUEST
					      : IOT_ERR_INTERNAL,
					  "%s", res->message);
	sb = server_reply_start(d, rq);
	sb_printf(sb, ",\"%s\":true,\"written\":%zu,\"pending\":%u,\"message\":", key, res->written,
		  res->pending);
	sb_json_str(sb, res->message);
	return server_reply_finish(d, c);
}

static int cmd_apply(struct daemon *d, struct client *c, const struct request *rq)
{
	const struct metrics *m = sampler_metrics(d->sampler);
	const char *id = suggestion_arg(rq);
	struct apply_result res;
	int e;

	if (!id)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "apply needs \"suggestion\", a suggestion id string "
					  "without NUL");
	if (!m)
		return server_reply_error(d, c, rq->id, IOT_ERR_NO_SAMPLE,
					  "no interval measured yet: apply needs two samples");
	e = apply_by_id(d->args.root, NULL, sampler_current(d->sampler), m, id, &res);
	if (e >= 0) { /* advise again on what is now, not on what was */
		sampler_topology_stale(d->sampler);
		topo_reader_request(d);
	}
	daemon_log(e < 0 ? LOG_WARNING : LOG_NOTICE, "apply %s (uid %u): %s", id,
		   (unsigned)c->cred.uid, res.message);
	return reply_apply(d, c, rq, e, &res, "applied");
}

static int cmd_undo(struct daemon *d, struct client *c, const struct request *rq)
{
	struct apply_result res;
	json_object *v;
	int e;

	/* "suggestion" of another type is a mistake, not "undo everything" */
	if (json_object_object_get_ex(rq->root, "suggestion", &v) && !suggestion_arg(rq))
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "undo's \"suggestion\" is a suggestion id string "
					  "without NUL");
	e = apply_undo_by_id(d->args.root, NULL, suggestion_arg(rq), &res);
	if (e >= 0) {
		sampler_topology_stale(d->sampler);
		topo_reader_request(d);
	}
	daemon_log(e < 0 ? LOG_WARNING : LOG_NOTICE, "undo (uid %u): %s", (unsigned)c->cred.uid,
		   res.message);
	return reply_apply(d, c, rq, e, &res, "undone");
}

/*
 * The dispatch table. Later requests add one entry each: "worker.start"
 * (issue 6) and "apply" (issue 5) with .privileged = true, so the peer's
 * SO_PEERCRED uid is checked before their handler runs.
 */
static const struct server_cmd commands[] = {
	{ "hello", false, cmd_hello },
	{ "snapshot", false, cmd_snapshot },
	{ "subscribe", false, cmd_subscribe },
	{ "unsubscribe", false, cmd_unsubscribe },
	{ "history", false, cmd_history },
	{ "status", false, cmd_status },
	{ "apply", true, cmd_apply },
	{ "undo", true, cmd_undo },
	{ "worker.start", true, worker_cmd_start },
	{ "worker.stop", true, worker_cmd_stop },
	{ "worker.status", true, worker_cmd_status },
};

static int dispatch(struct daemon *d, struct client *c, const char *line, size_t len)
{
	enum iot_proto_error code = IOT_ERR_INTERNAL;
	const struct server_cmd *cmd = NULL;
	struct request rq;
	char msg[256];
	int r;

	r = request_parse(d->tok, line, len, &rq, &code, msg, sizeof(msg));
	if (r < 0) {
		r = server_reply_error(d, c, rq.id, code, "%s", msg);
		request_free(&rq);
		return r;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, rq.cmd) == 0)
			cmd = &commands[i];
	if (!cmd) {
		/* echoed inside a JSON string (sb_json_str escapes it), at most 63
		 * bytes cut on a character boundary */
		size_t n = strnlen(rq.cmd, 63);

		r = server_reply_error(d, c, rq.id, IOT_ERR_UNKNOWN_CMD, "unknown command \"%.*s\"",
				       (int)text_utf8_cut(rq.cmd, n), rq.cmd);
	} else if (cmd->privileged && !server_client_privileged(c)) {
		r = server_reply_error(d, c, rq.id, IOT_ERR_PERMISSION,
				       "%s needs uid 0 or the daemon's uid (you are uid %u)",
				       cmd->name, (unsigned)c->cred.uid);
	} else {
		r = cmd->run(d, c, &rq);
		if (r < 0)
			r = server_reply_error(d, c, rq.id, IOT_ERR_INTERNAL, "%s: %s", cmd->name,
					       strerror(-r));
	}
	request_free(&rq);
	return r;
}

/* Blank lines (and a lone "\r") are not requests and get no reply. */
static bool is_blank_line(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

/* Handles the complete lines in c->in while the client's replies stay
 * under REPLY_BACKLOG. Returns whether any line was handled. */
static bool process_lines(struct daemon *d, struct client *c)
{
	size_t start = 0;
	bool any = false;

	while (!c->dead && !c->closing && !c->hist_active && reply_backlog(c) < REPLY_BACKLOG) {
		/* c->in is NULL until the client's first bytes: no memchr(NULL) */
		char *nl =
		    start < c->in_len ? memchr(c->in + start, '\n', c->in_len - start) : NULL;
		size_t len;

		if (!nl) {
			/* at EOF a last line without '\n' still counts */
			if (!c->eof || start == c->in_len)
				break;
			len = c->in_len - start;
		} else {
			len = (size_t)(nl - (c->in + start));
		}
		any = true;
		if (!is_blank_line(c->in + start, len) && dispatch(d, c, c->in + start, len) < 0) {
			client_kill(d, c, LOG_ERR, "out of memory for its reply");
			break;
		}
		start += nl ? len + 1 : len;
	}
	if (start) {
		memmove(c->in, c->in + start, c->in_len - start);
		c->in_len -= start;
		/* what is left is the start of the next line: due from now */
		c->line_start_ns = c->in_len ? daemon_now_ns() : 0;
	}
	if (c->in_len == 0 && c->in_cap > 4096) {
		/* a big request grew the buffer: idle clients keep none of it */
		free(c->in);
		c->in = NULL;
		c->in_cap = 0;
	}
	if (c->eof && !c->dead && c->in_len == 0)
		c->closing = true;
	return any;
}

/* The client is held back by us, not by itself: a full line may be waiting. */
static bool client_blocked(const struct client *c)
{
	return c->closing || c->hist_active || reply_backlog(c) >= REPLY_BACKLOG;
}

/* Runs requests, streams a history reply and writes replies until none of
 * them makes progress. */
static void client_service(struct daemon *d, struct client *c)
{
	for (;;) {
		bool any = false;

		if (c->hist_active)
			any = history_step(d, c);
		if (!c->hist_active && !c->dead)
			any |= process_lines(d, c);
		client_flush(d, c);
		if (c->dead)
			break;
		/* the write made room: the history reply goes on (nothing else
		 * would wake it: no EPOLLOUT with an empty queue, no EPOLLIN
		 * during a reply) */
		if (c->hist_active && !c->hist_wait && reply_backlog(c) < HIST_LOW_WATER)
			continue;
		if (!any || reply_backlog(c) >= REPLY_BACKLOG)
			break;
	}
	if (c->eof && c->in_len == 0 && !c->dead && !c->closing)
		c->closing = true;
	if (c->closing && !c->q_n && !c->hist_active && !c->dead)
		client_close_after_reply(d, c);
	client_update_events(d, c);
}

static void client_read(struct daemon *d, struct client *c)
{
	ssize_t n;

	if (c->in_cap - c->in_len < 4096 && c->in_cap < IOT_PROTO_MAX_LINE) {
		size_t want = c->in_cap ? c->in_cap * 2 : 4096;
		char *p;

		if (want > IOT_PROTO_MAX_LINE)
			want = IOT_PROTO_MAX_LINE;
		p = realloc(c->in, want);
		if (!p) {
			client_kill(d, c, LOG_ERR, "out of memory for its request");
			return;
		}
		c->in = p;
		c->in_cap = want;
	}
	/* full of lines waiting for replies to drain: a 0-byte read would look like EOF */
	if (c->in_len == c->in_cap)
		return;
	n = read(c->w.fd, c->in + c->in_len, c->in_cap - c->in_len);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			client_kill(d, c, LOG_DEBUG, strerror(errno));
		return;
	}
	if (n == 0) {
		c->eof = true;
		return;
	}
	if (!c->line_start_ns)
		c->line_start_ns = daemon_now_ns();
	c->in_len += (size_t)n;
	if (c->in_len == IOT_PROTO_MAX_LINE && !memchr(c->in, '\n', c->in_len)) {
		char name[64];

		daemon_log(LOG_WARNING, "%s: request line over %d bytes, closing",
			   peer_name(c, name, sizeof(name)), IOT_PROTO_MAX_LINE);
		c->in_len = 0;
		c->closing = true;
		if (server_reply_error(d, c, NULL, IOT_ERR_TOO_LONG,
				       "request line longer than %d bytes", IOT_PROTO_MAX_LINE) < 0)
			client_kill(d, c, LOG_ERR, "out of memory for its reply");
	}
}

void server_client_event(struct daemon *d, struct client *c, uint32_t events)
{
	if (c->dead)
		return;
	if (events & EPOLLOUT)
		client_flush(d, c);
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->closing && !c->eof && !c->dead &&
	    !c->hist_active)
		client_read(d, c);
	if ((events & (EPOLLHUP | EPOLLERR)) && (c->closing || c->eof) && c->q_n && !c->dead)
		client_flush(d, c); /* writes fail now: the peer is gone */
	if (!c->dead)
		client_service(d, c);
}

/* ---- publishing ---- */

/* Writes what c has queued; a history reply the write made room for goes
 * on (client_service), else the epoll interest follows the queue. */
static void client_push_flush(struct daemon *d, struct client *c)
{
	client_flush(d, c);
	if (c->dead)
		return;
	if (c->hist_active && !c->hist_wait && reply_backlog(c) < HIST_LOW_WATER)
		client_service(d, c);
	else
		client_update_events(d, c);
}

/*
 * Queues pushed line b to c, or holds it while a history reply is being
 * written (its line must not be cut in two); either way it counts against
 * IOT_PROTO_MAX_PUSH_BACKLOG. 0, -ENOBUFS over it, -ENOMEM.
 */
static int push_line(struct client *c, struct blob *b)
{
	if (c->push_bytes + c->held_bytes + b->len > IOT_PROTO_MAX_PUSH_BACKLOG)
		return -ENOBUFS;
	if (!c->hist_active)
		return queue_seg(c, b, 0, b->len, true);
	if (grow((void **)&c->held, &c->held_cap, c->held_n + 1, sizeof(*c->held)) < 0)
		return -ENOMEM;
	c->held[c->held_n++] = blob_ref(b);
	c->held_bytes += b->len;
	return 0;
}

void server_publish(struct daemon *d, const struct hist_entry *e)
{
	for (struct client *c = d->clients; c; c = c->next) {
		int r;

		if (c->dead || !c->subscribed)
			continue;
		if (c->sub_counter++ % c->every)
			continue;
		r = push_line(c, e->b);
		if (r == -ENOBUFS) {
			char why[96];

			snprintf(why, sizeof(why),
				 "subscriber not reading (%zu bytes of samples unread)",
				 c->push_bytes + c->held_bytes);
			client_kill(d, c, LOG_WARNING, why);
			continue;
		}
		if (r < 0) {
			client_kill(d, c, LOG_ERR, "out of memory for its queue");
			continue;
		}
		client_push_flush(d, c);
	}
}

void server_publish_event(struct daemon *d, struct blob *b)
{
	for (struct client *c = d->clients; c; c = c->next) {
		int r;

		if (c->dead || !c->subscribed)
			continue;
		r = push_line(c, b);
		if (r == -ENOBUFS) {
			client_kill(d, c, LOG_WARNING, "subscriber not reading (worker events)");
			continue;
		}
		if (r < 0) {
			client_kill(d, c, LOG_ERR, "out of memory for its queue");
			continue;
		}
		client_push_flush(d, c);
	}
}

void server_resume(struct daemon *d)
{
	if (!d->hist_waiting || d->hist_queued >= HIST_QUEUED_MAX)
		return;
	d->hist_waiting = false;
	for (struct client *c = d->clients; c; c = c->next) {
		if (c->dead || !c->hist_wait)
			continue;
		c->hist_wait = false;
		client_service(d, c);
	}
}

int server_timeouts(struct daemon *d)
{
	int64_t now = daemon_now_ns();

	if (!d->nclients)
		return -1;
	if (now - d->sweep_ns < 1000000000LL)
		return (int)((d->sweep_ns + 1000000000LL - now) / 1000000) + 1;
	d->sweep_ns = now;
	for (struct client *c = d->clients; c; c = c->next) {
		bool late;

		if (c->dead)
			continue;
		late = c->line_start_ns && !client_blocked(c) &&
		       now - c->line_start_ns > IOT_PROTO_REQUEST_TIMEOUT_MS * 1000000LL;
		if (late) {
			/* a line the kernel holds for us that the loop has not
			 * read yet (a busy daemon) is not the client's fault */
			client_read(d, c);
			if (!c->dead)
				client_service(d, c);
			late = !c->dead && c->line_start_ns && !client_blocked(c) &&
			       now - c->line_start_ns > IOT_PROTO_REQUEST_TIMEOUT_MS * 1000000LL;
		}
		if (late) {
			char why[96];

			snprintf(why, sizeof(why), "no complete request line within %d s",
				 IOT_PROTO_REQUEST_TIMEOUT_MS / 1000);
			client_kill(d, c, LOG_INFO, why);
		} else if (reply_backlog(c) &&
			   now - c->reply_wait_ns > IOT_PROTO_REPLY_TIMEOUT_MS * 1000000LL) {
			char why[96];

			snprintf(why, sizeof(why), "%zu bytes of replies unread for %d s",
				 reply_backlog(c), IOT_PROTO_REPLY_TIMEOUT_MS / 1000);
			client_kill(d, c, LOG_WARNING, why);
		}
	}
	return 1000;
}

/* ---- accept, reap ---- */

static void client_free(struct daemon *d, struct client *c)
{
	for (size_t i = 0; i < c->q_n; i++)
		blob_unref(c->q[c->q_head + i].b);
	for (size_t i = 0; i < c->held_n; i++)
		blob_unref(c->held[i]);
	d->hist_queued -= c->owned_bytes;
	free(c->held);
	free(c->q);
	free(c->in);
	if (c->w.fd >= 0)
		close(c->w.fd);
	free(c);
}

static void reject_busy(struct daemon *d, int fd, const char *why)
{
	int64_t now = daemon_now_ns();

	/* one line per 10 s at most: a connect loop must not flood the log */
	d->busy_refused++;
	if (!d->busy_logged_ns || now - d->busy_logged_ns >= 10000000000LL) {
		daemon_log(LOG_WARNING, "%llu client(s) refused, the last: %s",
			   (unsigned long long)d->busy_refused, why);
		d->busy_refused = 0;
		d->busy_logged_ns = now;
	}
	sb_reset(&d->sb);
	sb_printf(&d->sb, "{\"ok\":false,\"error\":{\"code\":\"%s\",\"message\":",
		  iot_proto_error_name(IOT_ERR_BUSY));
	sb_json_str(&d->sb, why);
	sb_puts(&d->sb, "}}\n");
	/* best effort: a fresh socket's buffer takes one short line */
	if (!d->sb.err && send(fd, d->sb.buf, d->sb.len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		daemon_log(LOG_DEBUG, "busy reply not sent: %s", strerror(errno));
}

/* Of --max-clients, the slots kept for uid 0 and the daemon's own. */
static unsigned root_slots(const struct daemon *d)
{
	unsigned max = (unsigned)d->args.max_clients;

	return max < 2 * IOT_PROTO_ROOT_SLOTS ? max / 2 : IOT_PROTO_ROOT_SLOTS;
}

/*
 * Whether a peer with these credentials may take a slot now; if not, why in
 * buf. uid 0 and the daemon's own uid may take every slot; others not the
 * last root_slots(), and at most --max-clients-per-uid each, so one user in
 * the socket's group cannot lock everybody out, root included.
 */
static bool admit(const struct daemon *d, const struct ucred *cred, char *buf, size_t size)
{
	unsigned max = (unsigned)d->args.max_clients, same = 0;
	bool privileged = cred->uid == 0 || cred->uid == geteuid();

	if (d->nclients >= max) {
		snprintf(buf, size, "too many clients (--max-clients %ld)", d->args.max_clients);
		return false;
	}
	if (privileged)
		return true;
	if (d->nclients >= max - root_slots(d)) {
		snprintf(buf, size,
			 "too many clients (--max-clients %ld, of which the last %u are kept for "
			 "root)",
			 d->args.max_clients, root_slots(d));
		return false;
	}
	if (d->nclients < (unsigned)d->args.max_clients_per_uid)
		return true;
	for (const struct client *c = d->clients; c; c = c->next)
		same += !c->dead && c->cred.uid == cred->uid;
	if (same >= (unsigned)d->args.max_clients_per_uid) {
		snprintf(buf, size, "too many clients of uid %u (--max-clients-per-uid %ld)",
			 (unsigned)cred->uid, d->args.max_clients_per_uid);
		return false;
	}
	return true;
}

void server_accept(struct daemon *d)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		socklen_t len = sizeof(struct ucred);
		struct ucred cred;
		struct client *c;
		char why[160];
		int fd;

		fd = accept4(d->listen.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				daemon_log(LOG_WARNING, "accept: %s", strerror(errno));
			return;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
			/* without credentials the peer is nobody: never privileged */
			cred.pid = 0;
			cred.uid = (uid_t)-1;
			cred.gid = (gid_t)-1;
		}
		if (!admit(d, &cred, why, sizeof(why))) {
			reject_busy(d, fd, why);
			close(fd);
			continue;
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			daemon_log(LOG_ERR, "client refused: out of memory");
			close(fd);
			continue;
		}
		c->w.kind = WATCH_CLIENT;
		c->w.fd = fd;
		c->serial = ++d->next_serial;
		c->every = 1;
		c->cred = cred;
		/* its first request is due from now (IOT_PROTO_REQUEST_TIMEOUT_MS) */
		c->line_start_ns = daemon_now_ns();
		ev.data.ptr = &c->w;
		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			daemon_log(LOG_ERR, "client refused: epoll_ctl: %s", strerror(errno));
			client_free(d, c);
			continue;
		}
		c->events = EPOLLIN;
		c->next = d->clients;
		d->clients = c;
		d->nclients++;
		daemon_log(LOG_DEBUG, "client %u connected (pid %d, uid %u)", c->serial,
			   (int)c->cred.pid, (unsigned)c->cred.uid);
	}
}

void server_reap(struct daemon *d)
{
	struct client **pp = &d->clients;

	while (*pp) {
		struct client *c = *pp;

		if (!c->dead) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		d->nclients--;
		client_free(d, c);
	}
}

/* ---- listening socket ---- */

/*
 * The socket is made without naming a path twice (issue 12). Whoever can
 * write a directory on the socket's path can put something else there
 * between two system calls that name it: the daemon used to bind(), then
 * chown() and chmod() the path, and a member of --group allowed to write
 * the directory could swap in a symlink and have any file of the host
 * (/etc/shadow) given to its group, mode 0660. Now:
 *
 *  - socket_dir_open() walks the path from "/" one component at a time
 *    with openat(O_PATH | O_NOFOLLOW | O_DIRECTORY) and checks each
 *    directory on the descriptor it will use: owned by root or the
 *    daemon's user, and writable by nobody else unless sticky; the
 *    socket's own directory not even sticky-writable by a group. A symlink
 *    is followed only when root or the daemon's user owns it. Clients
 *    reach the socket by the same path, so whoever controls a component
 *    controls where root's "apply" goes: nobody else may.
 *  - The stale-socket check, its removal and bind() name the socket
 *    relative to that descriptor (fchdir), not by its path.
 *  - The socket is born 0660 (umask 0117 around bind()); its group is set
 *    on a descriptor of the inode bind() made (openat O_PATH | O_NOFOLLOW
 *    in that directory, checked to be a socket of ours, then fchownat
 *    AT_EMPTY_PATH), before listen(), so nobody connects before the group
 *    is right. Nobody else can write the directory (or, sticky, remove our
 *    entry), so the name still holds what bind() made.
 *
 * fchown() or fchmod() on the socket's own descriptor would not do: on
 * Linux they change the socket, not the inode bind() creates.
 */

/* 1: something answers on name (relative to the current directory, a live
 * daemon), 0: nobody (stale), -errno. */
static int socket_answers(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	/* non-blocking: a wedged daemon with a full backlog must not hang us */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, name, strlen(name) + 1);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r == 0)
		r = 1;
	else if (errno == ECONNREFUSED)
		r = 0;
	else if (errno == EAGAIN)
		r = 1; /* its backlog is full: alive, just busy */
	else
		r = -errno;
	close(fd);
	return r;
}

/* "uid 65534 (nobody)", or the number alone for a uid without a name. */
static const char *uid_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, size, "uid %u (%s)", (unsigned)uid, pw->pw_name);
	else
		snprintf(buf, size, "uid %u", (unsigned)uid);
	return buf;
}

/* "group 50 (staff)", or the number alone for a gid without a name. */
static const char *gid_name(gid_t gid, char *buf, size_t size)
{
	struct group *gr = getgrgid(gid);

	if (gr)
		snprintf(buf, size, "group %u (%s)", (unsigned)gid, gr->gr_name);
	else
		snprintf(buf, size, "group %u", (unsigned)gid);
	return buf;
}

/* The group the socket is given to: --group, else "iotriage"; NULL (errno
 * set when the lookup failed) when there is no such group. */
static struct group *socket_group(const struct daemon *d)
{
	return getgrnam(d->args.group ? d->args.group : "iotriage");
}

/* What an administrator types to make dir fit; a user's daemon cannot chown.
 * last: dir is the socket's own directory, else one on the way to it. */
static const char *dir_fix(const struct daemon *d, const char *dir, bool last, char *buf,
			   size_t size)
{
	struct group *gr = socket_group(d);
	const char *group = gr ? gr->gr_name : NULL;

	if (geteuid() != 0)
		snprintf(buf, size,
			 "use a directory only uid %u can write (mkdir -m 0700), such as "
			 "$XDG_RUNTIME_DIR, under directories of root or yours",
			 (unsigned)geteuid());
	else if (last)
		snprintf(buf, size,
			 "fix it with chown root:%s %s && chmod %s %s, or let systemd's "
			 "RuntimeDirectory= create it",
			 group ? group : "root", dir, group ? "0750" : "0700", dir);
	else
		snprintf(buf, size,
			 "every directory above the socket must belong to root and be writable "
			 "by nobody else (or be sticky, as /tmp): fix it with chown root %s && "
			 "chmod go-w %s, or choose another --socket",
			 dir, dir);
	return buf;
}

static bool uid_trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/*
 * Checks the directory open as fd, shown as dir: refuses (-EPERM, logged)
 * one owned by another user, or writable by group or others without the
 * sticky bit; for the socket's own directory (last) also one that a group
 * may write even with it (its members could plant a socket before us).
 * Warns about a sticky one that everyone may write (/tmp).
 */
static int check_dir(const struct daemon *d, const char *path, int fd, const char *dir, bool last)
{
	char fix[400], who[80], owner[80];
	struct stat st;
	unsigned mode;
	bool by_all, by_group;

	if (fstat(fd, &st) < 0) {
		int r = -errno;

		daemon_log(LOG_ERR, "%s: directory %s: %s", path, dir, strerror(-r));
		return r;
	}
	mode = (unsigned)(st.st_mode & 07777);
	uid_name(st.st_uid, owner, sizeof(owner));
	if (!uid_trusted(st.st_uid)) {
		char self[40] = "root, the daemon's user";

		if (geteuid() != 0)
			snprintf(self, sizeof(self), "root or uid %u, the daemon's",
				 (unsigned)geteuid());
		daemon_log(LOG_ERR,
			   "%s: directory %s (mode %04o) belongs to %s, not to %s: its owner could "
			   "replace the socket; %s",
			   path, dir, mode, owner, self, dir_fix(d, dir, last, fix, sizeof(fix)));
		return -EPERM;
	}
	by_all = st.st_mode & S_IWOTH;
	by_group = st.st_mode & S_IWGRP;
	if (!by_all && !by_group)
		return 0;
	if (by_all)
		snprintf(who, sizeof(who), "everyone");
	else
		gid_name(st.st_gid, who, sizeof(who));
	if (!(st.st_mode & S_ISVTX) || (last && !by_all)) {
		daemon_log(LOG_ERR,
			   "%s: directory %s is writable by %s (owner %s, mode %04o%s): %s could "
			   "replace the socket; %s",
			   path, dir, who, owner, mode,
			   st.st_mode & S_ISVTX ? ", sticky" : ", no sticky bit",
			   by_all ? "anybody" : "its members",
			   dir_fix(d, dir, last, fix, sizeof(fix)));
		return -EPERM;
	}
	if (last)
		daemon_log(LOG_WARNING,
			   "%s: directory %s is writable by everyone (sticky): a socket another "
			   "user put there first cannot be replaced; prefer a private directory",
			   path, dir);
	return 0;
}

#define WALK_MAX_DEPTH 64 /* directories from "/" to the socket's */
#define WALK_MAX_LINKS 40 /* symlinks followed, as the kernel's MAXSYMLINKS */

/*
 * Opens the socket's directory dir (absolute) as an O_PATH descriptor,
 * walking from "/" and checking every directory on the way (check_dir)
 * and every symlink followed. Returns the descriptor or -errno (logged).
 * The kernel's own walk is never used: each step opens one name relative
 * to an already checked descriptor, without following a symlink.
 */
static int socket_dir_open(const struct daemon *d, const char *path, const char *dir)
{
	char rest[PATH_MAX], tmp[PATH_MAX], shown[PATH_MAX], target[PATH_MAX], name[NAME_MAX + 1];
	int stack[WALK_MAX_DEPTH];
	size_t depth = 0, shown_len[WALK_MAX_DEPTH], checked = 0;
	unsigned links = 0;
	const char *p;
	int r = 0;

	if (snprintf(rest, sizeof(rest), "%s", dir) >= (int)sizeof(rest))
		return -ENAMETOOLONG;
	stack[0] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (stack[0] < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: directory /: %s", path, strerror(-r));
		return r;
	}
	depth = 1;
	shown_len[0] = 0;
	snprintf(shown, sizeof(shown), "/");
	p = rest;
	for (;;) {
		const char *end;
		size_t len;
		struct stat st;
		int fd;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len > NAME_MAX) {
			r = -ENAMETOOLONG;
			daemon_log(LOG_ERR, "%s: directory %s: %s", path, dir, strerror(-r));
			break;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		p = end;
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			/* each entry was opened from the one below it: its parent */
			if (depth > 1) {
				close(stack[--depth]);
				checked = checked < depth ? checked : depth;
				shown[shown_len[depth] > 1 ? shown_len[depth] : 1] = '\0';
			}
			continue;
		}
		/* a directory is checked as an ancestor once a name is looked
		 * up in it; the last one, at the end, as the socket's */
		if (checked < depth) {
			r = check_dir(d, path, stack[depth - 1], shown, false);
			if (r < 0)
				break;
			checked = depth;
		}
		if (fstatat(stack[depth - 1], name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			daemon_log(LOG_ERR, "%s: directory %s%s%s: %s", path, shown,
				   depth > 1 ? "/" : "", name, strerror(-r));
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			char who[80];
			ssize_t n;

			if (!uid_trusted(st.st_uid)) {
				daemon_log(LOG_ERR,
					   "%s: %s%s%s is a symlink of %s: its owner chose where "
					   "the socket goes; give --socket a path without it",
					   path, shown, depth > 1 ? "/" : "", name,
					   uid_name(st.st_uid, who, sizeof(who)));
				r = -EPERM;
				break;
			}
			n = readlinkat(stack[depth - 1], name, target, sizeof(target));
			if (n < 0 || (size_t)n >= sizeof(target) || ++links > WALK_MAX_LINKS) {
				r = n < 0		     ? -errno
				    : links > WALK_MAX_LINKS ? -ELOOP
							     : -ENAMETOOLONG;
				daemon_log(LOG_ERR, "%s: symlink %s%s%s: %s", path, shown,
					   depth > 1 ? "/" : "", name, strerror(-r));
				break;
			}
			target[n] = '\0';
			if (snprintf(tmp, sizeof(tmp), "%s%s", target, p) >= (int)sizeof(tmp)) {
				r = -ENAMETOOLONG;
				daemon_log(LOG_ERR, "%s: directory %s: %s", path, dir,
					   strerror(-r));
				break;
			}
			/* rest is rewritten: p pointed into it */
			memcpy(rest, tmp, strlen(tmp) + 1);
			p = rest;
			if (target[0] == '/') {
				while (depth > 1)
					close(stack[--depth]);
				checked = checked < depth ? checked : depth;
				shown[1] = '\0';
			}
			continue;
		}
		if (depth == WALK_MAX_DEPTH) {
			r = -ENAMETOOLONG;
			daemon_log(LOG_ERR, "%s: directory %s: %s", path, dir, strerror(-r));
			break;
		}
		fd = openat(stack[depth - 1], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			daemon_log(LOG_ERR, "%s: directory %s%s%s: %s", path, shown,
				   depth > 1 ? "/" : "", name, strerror(-r));
			break;
		}
		shown_len[depth] = strlen(shown);
		snprintf(shown + shown_len[depth], sizeof(shown) - shown_len[depth], "%s%s",
			 depth > 1 ? "/" : "", name);
		stack[depth++] = fd;
	}
	/* the socket's own directory, also when it is "/" or came after ".." */
	if (r >= 0)
		r = check_dir(d, path, stack[depth - 1], shown, true);
	for (size_t i = 0; i + 1 < depth; i++)
		close(stack[i]);
	if (r < 0) {
		close(stack[depth - 1]);
		return r;
	}
	return stack[depth - 1];
}

/* With the current directory at the socket's: a stale socket at name is
 * removed; anything else there is an error (logged). */
static int prepare_name(struct daemon *d, int dfd, const char *name)
{
	const char *path = d->socket_path;
	struct stat st;
	int r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		daemon_log(LOG_ERR, "%s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISSOCK(st.st_mode)) {
		daemon_log(LOG_ERR, "%s: exists and is not a socket; not replacing it", path);
		return -EEXIST;
	}
	r = socket_answers(name);
	if (r < 0) {
		daemon_log(LOG_ERR, "%s: cannot tell whether a daemon is listening: %s", path,
			   strerror(-r));
		return r;
	}
	if (r > 0) {
		daemon_log(LOG_ERR, "%s: another iotriaged is running (it answers on this socket)",
			   path);
		return -EADDRINUSE;
	}
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: stale socket cannot be removed: %s", path, strerror(-r));
		return r;
	}
	daemon_log(LOG_NOTICE, "%s: replaced a stale socket (nobody answered on it)", path);
	return 0;
}

/*
 * Creates the socket as name in the directory open as dfd: the stale check,
 * bind() and the group, all relative to dfd. Returns the listening fd, not
 * yet listening, or -errno (logged).
 */
static int bind_in(struct daemon *d, int dfd, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = d->socket_path;
	int cwd, fd = -1, r;
	mode_t old;

	/* a relative sun_path is resolved from the current directory: make it
	 * the checked one for the stale check and bind(), then go back */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fchdir(dfd) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: cannot enter its directory: %s", path, strerror(-r));
		goto out;
	}
	r = prepare_name(d, dfd, name);
	if (r < 0)
		goto out;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "socket: %s", strerror(-r));
		goto out;
	}
	memcpy(sa.sun_path, name, strlen(name) + 1);
	/* born 0660: no window in which others could connect */
	old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: bind: %s", path, strerror(-r));
		goto out;
	}
	r = 0;
out:
	/* back where we were (a relative --root is opened again by apply) */
	if ((cwd >= 0 ? fchdir(cwd) : chdir("/")) < 0 && r >= 0) {
		r = -errno;
		daemon_log(LOG_ERR, "cannot return to the working directory: %s", strerror(-r));
	}
	if (cwd >= 0)
		close(cwd);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

/*
 * Gives the socket bind() just made to the socket's group, through a
 * descriptor of its inode, and records its (st_dev, st_ino). Nobody else
 * may write the directory (socket_dir_open), so name is still our socket;
 * it is checked to be one, owned by us, all the same.
 */
static int set_group(struct daemon *d, int dfd, const char *name)
{
	const char *gname = d->args.group ? d->args.group : "iotriage";
	struct group *gr;
	struct stat st;
	int fd, r = 0;

	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: cannot open the socket just made: %s", d->socket_path,
			   strerror(-r));
		goto out;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		daemon_log(LOG_ERR, "%s: is no longer the socket just made; not touching it",
			   d->socket_path);
		r = -EPERM;
		goto out;
	}
	d->socket_dev = st.st_dev;
	d->socket_ino = st.st_ino;
	d->socket_made = true;
	errno = 0;
	gr = socket_group(d);
	if (!gr) {
		if (!d->args.group)
			goto out; /* the default group is optional */
		r = errno ? -errno : -ENOENT;
		daemon_log(LOG_ERR, "--group %s: %s", gname,
			   errno ? strerror(errno) : "no such group");
		goto out;
	}
	if (st.st_gid != gr->gr_gid && fchownat(fd, "", (uid_t)-1, gr->gr_gid, AT_EMPTY_PATH) < 0) {
		r = -errno;
		daemon_log(d->args.group ? LOG_ERR : LOG_WARNING,
			   "%s: cannot give it to group %s: %s", d->socket_path, gname,
			   strerror(-r));
		if (!d->args.group)
			r = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int server_listen(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &d->listen };
	char dir[PATH_MAX], cwd[PATH_MAX];
	size_t plen = strlen(d->socket_path);
	const char *slash, *name;
	int dfd, fd, r;

	d->comma = blob_new(",", 1);
	d->list_end = blob_new("]", 1);
	if (!d->comma || !d->list_end) {
		daemon_log(LOG_ERR, "startup: out of memory");
		return -ENOMEM;
	}
	if (plen == 0 || plen >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		daemon_log(LOG_ERR, "--socket %s: a socket path is 1 to %zu bytes", d->socket_path,
			   sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return -ENAMETOOLONG;
	}
	if (!d->args.socket_path && strcmp(d->socket_path, IOT_PROTO_SYSTEM_SOCKET) == 0) {
		if (mkdir(IOT_PROTO_SYSTEM_DIR, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			daemon_log(LOG_ERR, "%s: %s", IOT_PROTO_SYSTEM_DIR, strerror(-r));
			return r;
		}
	}
	slash = strrchr(d->socket_path, '/');
	name = slash ? slash + 1 : d->socket_path;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		daemon_log(LOG_ERR, "--socket %s: names a directory, not a socket", d->socket_path);
		return -EISDIR;
	}
	/* the directory, absolute: its every ancestor is checked */
	if (d->socket_path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: working directory: %s", d->socket_path, strerror(-r));
		return r;
	}
	dir[0] = '\0';
	if (d->socket_path[0] != '/' && strlen(cwd) + plen + 2 > sizeof(dir)) {
		daemon_log(LOG_ERR, "%s: working directory: %s", d->socket_path,
			   strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (d->socket_path[0] != '/') {
		strcat(dir, cwd);
		strcat(dir, "/");
	}
	if (slash)
		strncat(dir, d->socket_path, (size_t)(slash - d->socket_path));
	if (!dir[0])
		strcat(dir, "/");
	dfd = socket_dir_open(d, d->socket_path, dir);
	if (dfd < 0)
		return dfd;
	d->socket_dirfd = dfd;
	memcpy(d->socket_name, name, strlen(name) + 1);
	fd = bind_in(d, dfd, name);
	if (fd < 0)
		return fd;
	d->listen.kind = WATCH_LISTEN;
	d->listen.fd = fd;
	r = set_group(d, dfd, name);
	/* only now may anybody connect: the socket has its group */
	if (r >= 0 && listen(fd, 128) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: listen: %s", d->socket_path, strerror(-r));
	}
	if (r >= 0 && epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "epoll_ctl: %s", strerror(-r));
	}
	return r;
}

void server_shutdown(struct daemon *d)
{
	struct stat st;

	for (struct client *c = d->clients; c; c = c->next)
		c->dead = true;
	server_reap(d);
	if (d->listen.fd >= 0) {
		close(d->listen.fd);
		d->listen.fd = -1;
	}
	if (d->socket_dirfd >= 0) {
		/* only our own socket: a newer daemon may have taken the name */
		if (d->socket_made &&
		    fstatat(d->socket_dirfd, d->socket_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_ino == d->socket_ino && st.st_dev == d->socket_dev)
			unlinkat(d->socket_dirfd, d->socket_name, 0);
		close(d->socket_dirfd);
		d->socket_dirfd = -1;
	}
	blob_unref(d->comma);
	blob_unref(d->list_end);
	d->comma = d->list_end = NULL;
}
