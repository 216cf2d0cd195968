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

/*
 * A client whose replies (not pushes) exceed this is not read any further
 * until they are written: one history reply may be megabytes, but a client
 * cannot pile up more than one of them plus a few small ones.
 */
#define REPLY_BACKLOG (256 * 1024)

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
static void queue_consume(struct client *c, size_t n)
{
	while (n && c->q_n) {
		struct oseg *s = &c->q[c->q_head];
		size_t k = n < s->len ? n : s->len;

		s->off += k;
		s->len -= k;
		c->q_bytes -= k;
		if (s->push)
			c->push_bytes -= k;
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
		queue_consume(c, (size_t)w);
	}
	if (!c->q_n && c->closing)
		client_close_after_reply(d, c);
}

static void client_update_events(struct daemon *d, struct client *c)
{
	struct epoll_event ev = { .data.ptr = &c->w };
	uint32_t want = 0;

	if (c->dead)
		return;
	if (!c->closing && !c->eof && reply_backlog(c) < REPLY_BACKLOG)
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
	sb_reset(&d->sb);
	sb_puts(&d->sb, "{\"ok\":true");
	if (rq && rq->id) {
		sb_puts(&d->sb, ",\"id\":");
		sb_puts(&d->sb, rq->id);
	}
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

static void sb_error(struct strbuf *sb, const char *id, enum iot_proto_error code, const char *fmt,
		     va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	sb_reset(sb);
	sb_puts(sb, "{\"ok\":false");
	if (id) {
		sb_puts(sb, ",\"id\":");
		sb_puts(sb, id);
	}
	sb_puts(sb, ",\"error\":{\"code\":");
	sb_json_str(sb, iot_proto_error_name(code));
	sb_puts(sb, ",\"message\":");
	sb_json_str(sb, msg);
	sb_append(sb, "}}\n", 3);
}

int server_reply_error(struct daemon *d, struct client *c, const char *id,
		       enum iot_proto_error code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_error(&d->sb, id, code, fmt, ap);
	va_end(ap);
	return queue_sb(d, c);
}

/* ---- commands ---- */

static int cmd_hello(struct daemon *d, struct client *c, const struct request *rq)
{
	struct strbuf *sb;
	int64_t v = -1;

	if (request_get_int(rq, "version", 0, INT32_MAX, &v) <= 0)
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

static int cmd_history(struct daemon *d, struct client *c, const struct request *rq)
{
	const struct hist_entry *last = history_latest(&d->hist);
	int64_t seconds = -1, since = -1;
	struct blob *old = NULL;
	size_t from, count, nold = 0;
	struct strbuf *sb;
	int r1, r2, r;

	r1 = request_get_int(rq, "seconds", 0, INT32_MAX, &seconds);
	r2 = request_get_int(rq, "since", 0, INT64_MAX, &since);
	if (r1 < 0 || r2 < 0 || r1 + r2 != 1)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "history needs exactly one of \"seconds\" or \"since\", "
					  "a non-negative integer");
	if (!last)
		from = 0;
	else if (r1)
		from = history_find_from(&d->hist, last->mono_ns - seconds * 1000000000LL);
	else
		from = history_find_since(&d->hist, (uint64_t)since);
	/* older than the ring: the flight recording's samples (rec.c) */
	if (r1 && from == 0)
		old =
		    rec_history(d, seconds, last ? history_at(&d->hist, 0)->id : UINT64_MAX, &nold);
	count = d->hist.n - from;
	sb = server_reply_start(d, rq);
	sb_printf(sb, ",\"count\":%zu", count + nold);
	if (d->rec)
		sb_printf(sb, ",\"recorded\":%zu", nold);
	if (count)
		sb_printf(sb, ",\"first\":%llu,\"last\":%llu",
			  (unsigned long long)history_at(&d->hist, from)->id,
			  (unsigned long long)last->id);
	else
		sb_puts(sb, ",\"first\":null,\"last\":null");
	sb_puts(sb, ",\"samples\":[");
	r = queue_sb(d, c);
	if (old && r >= 0) {
		r = queue_seg(c, old, 0, old->len, false);
		if (r >= 0 && count)
			r = queue_seg(c, d->comma, 0, d->comma->len, false);
	}
	blob_unref(old);
	for (size_t i = from, j; i < d->hist.n && r >= 0; i = j) {
		const struct hist_entry *e = history_at(&d->hist, i);
		struct blob *b;
		size_t len = 0;

		if (i > from)
			r = queue_seg(c, d->comma, 0, d->comma->len, false);
		if (r < 0)
			break;
		if (e->b) { /* the newest: its event line, shared */
			r = queue_seg(c, e->b, e->doc_off, e->doc_len, false);
			j = i + 1;
			continue;
		}
		/* a run of compressed samples, decompressed into one blob with
		 * their commas: freed once the reply is written */
		for (j = i; j < d->hist.n && !history_at(&d->hist, j)->b; j++)
			len += history_at(&d->hist, j)->doc_len + (j > i);
		b = blob_alloc(len);
		if (!b)
			return -ENOMEM;
		/* each frame decompressed once; a frame of ours that does not
		 * decompress cannot happen: the client is dropped */
		if (history_docs(&d->hist, i, j, b->data) < 0)
			r = -ENOMEM;
		if (r >= 0)
			r = queue_seg(c, b, 0, len, false);
		blob_unref(b);
	}
	if (r >= 0)
		r = queue_seg(c, d->list_end, 0, d->list_end->len, false);
	return r;
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
	rec_status(d, sb);
	return server_reply_finish(d, c);
}

/* {"cmd":"apply","suggestion":ID} and {"cmd":"undo"[,"suggestion":ID]}:
 * the advisor's writes (src/advise/apply.c) on the daemon's own root, against its
 * latest sample; privileged (SO_PEERCRED) in the table below. */
static const char *suggestion_arg(const struct request *rq)
{
	json_object *v;

	if (!json_object_object_get_ex(rq->root, "suggestion", &v) ||
	    !json_object_is_type(v, json_type_string))
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
					  "apply needs \"suggestion\", a suggestion id string");
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
					  "undo's \"suggestion\" is a suggestion id string");
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
		char shown[64];

		/* the name is echoed inside a JSON string: sb_json_str escapes it */
		snprintf(shown, sizeof(shown), "%s", rq.cmd);
		r = server_reply_error(d, c, rq.id, IOT_ERR_UNKNOWN_CMD, "unknown command \"%s\"",
				       shown);
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

	while (!c->dead && !c->closing && reply_backlog(c) < REPLY_BACKLOG) {
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

/* Runs requests and writes replies until neither makes progress. */
static void client_service(struct daemon *d, struct client *c)
{
	for (;;) {
		bool any = process_lines(d, c);

		client_flush(d, c);
		if (!any || c->dead || reply_backlog(c) >= REPLY_BACKLOG)
			break;
	}
	if (c->eof && c->in_len == 0 && !c->dead && !c->closing)
		c->closing = true;
	if (c->closing && !c->q_n)
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
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->closing && !c->eof && !c->dead)
		client_read(d, c);
	if ((events & (EPOLLHUP | EPOLLERR)) && (c->closing || c->eof) && c->q_n && !c->dead)
		client_flush(d, c); /* writes fail now: the peer is gone */
	if (!c->dead)
		client_service(d, c);
}

/* ---- publishing ---- */

void server_publish(struct daemon *d, const struct hist_entry *e)
{
	for (struct client *c = d->clients; c; c = c->next) {
		if (c->dead || !c->subscribed)
			continue;
		if (c->sub_counter++ % c->every)
			continue;
		if (c->push_bytes + e->b->len > IOT_PROTO_MAX_PUSH_BACKLOG) {
			char why[96];

			snprintf(why, sizeof(why),
				 "subscriber not reading (%zu bytes of samples unread)",
				 c->push_bytes);
			client_kill(d, c, LOG_WARNING, why);
			continue;
		}
		if (queue_seg(c, e->b, 0, e->b->len, true) < 0) {
			client_kill(d, c, LOG_ERR, "out of memory for its queue");
			continue;
		}
		client_flush(d, c);
		client_update_events(d, c);
	}
}

void server_publish_event(struct daemon *d, struct blob *b)
{
	for (struct client *c = d->clients; c; c = c->next) {
		if (c->dead || !c->subscribed)
			continue;
		if (c->push_bytes + b->len > IOT_PROTO_MAX_PUSH_BACKLOG) {
			client_kill(d, c, LOG_WARNING, "subscriber not reading (worker events)");
			continue;
		}
		if (queue_seg(c, b, 0, b->len, true) < 0) {
			client_kill(d, c, LOG_ERR, "out of memory for its queue");
			continue;
		}
		client_flush(d, c);
		client_update_events(d, c);
	}
}

/* ---- accept, reap ---- */

static void client_free(struct client *c)
{
	for (size_t i = 0; i < c->q_n; i++)
		blob_unref(c->q[c->q_head + i].b);
	free(c->q);
	free(c->in);
	if (c->w.fd >= 0)
		close(c->w.fd);
	free(c);
}

static void reject_busy(struct daemon *d, int fd)
{
	sb_reset(&d->sb);
	sb_printf(&d->sb,
		  "{\"ok\":false,\"error\":{\"code\":\"%s\",\"message\":\"too many clients "
		  "(--max-clients %ld)\"}}\n",
		  iot_proto_error_name(IOT_ERR_BUSY), d->args.max_clients);
	/* best effort: a fresh socket's buffer takes one short line */
	if (!d->sb.err && send(fd, d->sb.buf, d->sb.len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		daemon_log(LOG_DEBUG, "busy reply not sent: %s", strerror(errno));
}

void server_accept(struct daemon *d)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		socklen_t len = sizeof(struct ucred);
		struct client *c;
		int fd;

		fd = accept4(d->listen.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				daemon_log(LOG_WARNING, "accept: %s", strerror(errno));
			return;
		}
		if (d->nclients >= (unsigned)d->args.max_clients) {
			int64_t now = daemon_now_ns();

			/* one line per 10 s at most: a connect loop must not flood the log */
			d->busy_refused++;
			if (!d->busy_logged_ns || now - d->busy_logged_ns >= 10000000000LL) {
				daemon_log(LOG_WARNING,
					   "%llu client(s) refused: --max-clients %ld reached",
					   (unsigned long long)d->busy_refused,
					   d->args.max_clients);
				d->busy_refused = 0;
				d->busy_logged_ns = now;
			}
			reject_busy(d, fd);
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
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c->cred, &len) < 0) {
			/* without credentials the peer is nobody: never privileged */
			c->cred.pid = 0;
			c->cred.uid = (uid_t)-1;
			c->cred.gid = (gid_t)-1;
		}
		ev.data.ptr = &c->w;
		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			daemon_log(LOG_ERR, "client refused: epoll_ctl: %s", strerror(errno));
			client_free(c);
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
		client_free(c);
	}
}

/* ---- listening socket ---- */

/* 1: something answers on path (a live daemon), 0: nobody (stale), -errno. */
static int socket_answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	/* non-blocking: a wedged daemon with a full backlog must not hang us */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, path, strlen(path) + 1);
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

/* The daemon trusts its own group and the one it gives the socket to. */
static bool group_trusted(const struct daemon *d, gid_t gid)
{
	struct group *gr;

	if (gid == getegid())
		return true;
	gr = socket_group(d);
	return gr && gr->gr_gid == gid;
}

/* What an administrator types to make dir fit; a user's daemon cannot chown. */
static const char *dir_fix(const struct daemon *d, const char *dir, char *buf, size_t size)
{
	struct group *gr = socket_group(d);
	const char *group = gr ? gr->gr_name : NULL;

	if (geteuid() == 0)
		snprintf(buf, size,
			 "fix it with chown root:%s %s && chmod %s %s, or let systemd's "
			 "RuntimeDirectory= create it",
			 group ? group : "root", dir, group ? "0750" : "0700", dir);
	else
		snprintf(buf, size,
			 "use a directory only uid %u can write (mkdir -m 0700), such as "
			 "$XDG_RUNTIME_DIR",
			 (unsigned)geteuid());
	return buf;
}

/*
 * The socket's directory decides who can replace the socket, and so answer
 * our clients, root's "apply" included. Its owner always can:
 * one that is neither root nor the daemon's user is refused. So can anybody
 * allowed to write it, unless the sticky bit keeps them to their own names:
 * writable without it by everyone, or by a group other than the daemon's
 * own and its --group, is refused. A sticky one (/tmp) is accepted with a
 * warning, since a socket planted there before the daemon starts would be
 * taken for stale.
 */
static int check_socket_dir(const struct daemon *d, const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], fix[400], who[80];
	const char *slash = strrchr(path, '/');
	bool by_all, by_group;
	struct stat st;
	unsigned mode;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0) {
		int r = -errno;

		daemon_log(LOG_ERR, "%s: directory %s: %s", path, dir, strerror(-r));
		return r;
	}
	mode = (unsigned)(st.st_mode & 07777);
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		char self[40] = "root, the daemon's user";

		if (geteuid() != 0)
			snprintf(self, sizeof(self), "root or uid %u, the daemon's",
				 (unsigned)geteuid());
		daemon_log(LOG_ERR,
			   "%s: directory %s (mode %04o) belongs to %s, not to %s: its owner could "
			   "replace the socket; %s",
			   path, dir, mode, uid_name(st.st_uid, who, sizeof(who)), self,
			   dir_fix(d, dir, fix, sizeof(fix)));
		return -EPERM;
	}
	by_all = st.st_mode & S_IWOTH;
	by_group = (st.st_mode & S_IWGRP) && !group_trusted(d, st.st_gid);
	if (!by_all && !by_group)
		return 0;
	if (by_all)
		snprintf(who, sizeof(who), "everyone");
	else
		gid_name(st.st_gid, who, sizeof(who));
	if (!(st.st_mode & S_ISVTX)) {
		daemon_log(LOG_ERR,
			   "%s: directory %s is writable by %s%s (mode %04o, no sticky bit): %s "
			   "could replace the socket; %s",
			   path, dir, who,
			   by_all ? "" : ", neither the daemon's group nor its --group", mode,
			   by_all ? "anybody" : "its members", dir_fix(d, dir, fix, sizeof(fix)));
		return -EPERM;
	}
	daemon_log(LOG_WARNING,
		   "%s: directory %s is writable by %s (sticky): a socket another user put there "
		   "first cannot be replaced; prefer a private directory",
		   path, dir, who);
	return 0;
}

static int prepare_path(struct daemon *d)
{
	const char *path = d->socket_path;
	struct stat st;
	int r;

	if (!d->args.socket_path && strcmp(path, IOT_PROTO_SYSTEM_SOCKET) == 0) {
		if (mkdir(IOT_PROTO_SYSTEM_DIR, 0755) < 0 && errno != EEXIST) {
			daemon_log(LOG_ERR, "%s: %s", IOT_PROTO_SYSTEM_DIR, strerror(errno));
			return -errno;
		}
	}
	r = check_socket_dir(d, path);
	if (r < 0)
		return r;
	if (lstat(path, &st) < 0) {
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
	r = socket_answers(path);
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
	if (unlink(path) < 0 && errno != ENOENT) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: stale socket cannot be removed: %s", path, strerror(-r));
		return r;
	}
	daemon_log(LOG_NOTICE, "%s: replaced a stale socket (nobody answered on it)", path);
	return 0;
}

static int set_group(struct daemon *d)
{
	const char *name = d->args.group ? d->args.group : "iotriage";
	struct group *gr;

	errno = 0;
	gr = socket_group(d);
	if (!gr) {
		if (!d->args.group)
			return 0; /* the default group is optional */
		daemon_log(LOG_ERR, "--group %s: %s", name,
			   errno ? strerror(errno) : "no such group");
		return errno ? -errno : -ENOENT;
	}
	if (chown(d->socket_path, (uid_t)-1, gr->gr_gid) < 0) {
		int r = -errno;

		daemon_log(d->args.group ? LOG_ERR : LOG_WARNING,
			   "%s: cannot give it to group %s: %s", d->socket_path, name,
			   strerror(-r));
		return d->args.group ? r : 0;
	}
	return 0;
}

/*
 * Holds the socket's directory (O_PATH) from before the bind: the socket's
 * identity is read, and the socket removed at exit, through it, not by a
 * path walk that a parent renamed or replaced meanwhile could redirect.
 * Without it (an unreadable path component), by path as before.
 */
static void socket_dir_open(struct daemon *d)
{
	char dir[sizeof(d->socket_path)];
	char *slash;

	memcpy(dir, d->socket_path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (!slash) {
		d->socket_base_off = 0;
		snprintf(dir, sizeof(dir), ".");
	} else {
		d->socket_base_off = (size_t)(slash - dir) + 1;
		slash[slash == dir] = '\0';
	}
	d->socket_dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* lstat of the socket's name, through its directory when held. */
static int socket_stat(const struct daemon *d, struct stat *st)
{
	if (d->socket_dirfd >= 0)
		return fstatat(d->socket_dirfd, d->socket_path + d->socket_base_off, st,
			       AT_SYMLINK_NOFOLLOW);
	return lstat(d->socket_path, st);
}

int server_listen(struct daemon *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &d->listen };
	size_t plen = strlen(d->socket_path);
	struct stat st;
	mode_t old;
	int fd, r;

	d->comma = blob_new(",", 1);
	d->list_end = blob_new("]}\n", 3);
	if (!d->comma || !d->list_end) {
		daemon_log(LOG_ERR, "startup: out of memory");
		return -ENOMEM;
	}
	if (plen == 0 || plen >= sizeof(sa.sun_path)) {
		daemon_log(LOG_ERR, "--socket %s: a socket path is 1 to %zu bytes", d->socket_path,
			   sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	r = prepare_path(d);
	if (r < 0)
		return r;
	socket_dir_open(d);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "socket: %s", strerror(-r));
		return r;
	}
	memcpy(sa.sun_path, d->socket_path, plen + 1);
	/* born 0660: no window in which others could connect */
	old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: bind: %s", d->socket_path, strerror(-r));
		close(fd);
		return r;
	}
	if (socket_stat(d, &st) == 0) {
		d->socket_dev = st.st_dev;
		d->socket_ino = st.st_ino;
	}
	d->listen.kind = WATCH_LISTEN;
	d->listen.fd = fd;
	r = set_group(d);
	if (r >= 0 && chmod(d->socket_path, 0660) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: chmod: %s", d->socket_path, strerror(-r));
	}
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
		/* only our own socket: a newer daemon may have taken the path */
		if (socket_stat(d, &st) == 0 && st.st_ino == d->socket_ino &&
		    st.st_dev == d->socket_dev) {
			if (d->socket_dirfd >= 0)
				unlinkat(d->socket_dirfd, d->socket_path + d->socket_base_off, 0);
			else
				unlink(d->socket_path);
		}
	}
	if (d->socket_dirfd >= 0) {
		close(d->socket_dirfd);
		d->socket_dirfd = -1;
	}
	blob_unref(d->comma);
	blob_unref(d->list_end);
	d->comma = d->list_end = NULL;
}
