// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The socket's clients' connections (struct client, client_*): accepting
 * them (peer credentials, per-uid limits, slots kept for root), reading
 * request lines, per-client output queues of
 * blob slices, history replies written as the socket drains, pushes to
 * subscribers, timeouts. Nothing here blocks: a client that cannot keep up
 * is marked dead and freed by the loop after the current batch of events,
 * never from inside a write. What a request does is commands.c's.
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
#include "server.h"
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

void client_kill(struct daemon *d, struct client *c, int prio, const char *why)
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

size_t client_reply_backlog(const struct client *c)
{
	return c->q_bytes - c->push_bytes;
}

/* Queues [off, off + len) of b, taking a new reference. 0 or -ENOMEM. */
int client_queue_seg(struct client *c, struct blob *b, size_t off, size_t len, bool push)
{
	if (!push && client_reply_backlog(c) == 0)
		c->reply_wait_ns = clock_mono_ns();
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
		if (s->recorded)
			c->rec_bytes -= k;
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
		if (w > 0 && client_reply_backlog(c))
			c->reply_wait_ns = clock_mono_ns();
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
	if (!c->closing && !c->eof && !c->hist_active && client_reply_backlog(c) < REPLY_BACKLOG)
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
int client_queue_sb(struct daemon *d, struct client *c)
{
	struct blob *b;
	int r;

	if (d->sb.err)
		return d->sb.err;
	b = blob_new(d->sb.buf, d->sb.len);
	if (!b)
		return -ENOMEM;
	r = client_queue_seg(c, b, 0, b->len, false);
	blob_unref(b);
	return r;
}

int server_reply_finish(struct daemon *d, struct client *c)
{
	sb_append(&d->sb, "}\n", 2);
	return client_queue_sb(d, c);
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
	return client_queue_sb(d, c);
}

static int release_held(struct client *c)
{
	int r = 0;

	for (size_t i = 0; i < c->held_n; i++) {
		if (r >= 0)
			r = client_queue_seg(c, c->held[i], 0, c->held[i]->len, true);
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
	char tail[128];
	struct blob *b;
	int r;

	/* "recorded": of count, the samples from the flight recording, before
	 * the ring's; "first" and "last" are the ring's */
	char rec[40] = "";

	if (d->rec)
		snprintf(rec, sizeof(rec), ",\"recorded\":%zu", c->hist_recorded);
	if (c->hist_count)
		snprintf(tail, sizeof(tail), ",\"count\":%zu%s,\"first\":%llu,\"last\":%llu}\n",
			 c->hist_count + c->hist_recorded, rec,
			 (unsigned long long)c->hist_first_sent, (unsigned long long)c->hist_after);
	else
		snprintf(tail, sizeof(tail), ",\"count\":%zu%s,\"first\":null,\"last\":null}\n",
			 c->hist_recorded, rec);
	r = client_queue_seg(c, d->list_end, 0, d->list_end->len, false);
	b = r >= 0 ? blob_new(tail, strlen(tail)) : NULL;
	if (!b)
		return -ENOMEM;
	r = client_queue_seg(c, b, 0, b->len, false);
	blob_unref(b);
	c->hist_active = false;
	if (r >= 0)
		r = release_held(c);
	return r;
}

/* Queues b, the part of c's history reply from the flight recording,
 * before the ring's samples. 0 or -ENOMEM. */
static int queue_recorded(struct client *c, struct blob *b, size_t n)
{
	int r;

	if (!b)
		return 0;
	r = client_queue_seg(c, b, 0, b->len, false);
	if (r >= 0) {
		c->q[c->q_head + c->q_n - 1].recorded = true;
		c->rec_bytes += b->len;
		c->hist_recorded = n;
	}
	return r;
}

/* The part of c's history reply from the flight recording (rec_history_ready()
 * said it may be made now): asked of rec.c's replay thread, or made now
 * without one. 0 or -ENOMEM. */
static int history_recorded(struct daemon *d, struct client *c)
{
	struct blob *b;
	size_t n;
	int r;

	c->rec_pending = false;
	r = rec_history_submit(d, c, &b, &n);
	if (r != 0)
		return r < 0 ? r : 0; /* client_history_part() goes on */
	r = queue_recorded(c, b, n);
	blob_unref(b);
	return r;
}

static void client_service(struct daemon *d, struct client *c);

void client_history_part(struct daemon *d, struct client *c, struct blob *b, size_t count)
{
	if (c->dead)
		return;
	if (queue_recorded(c, b, count) < 0) {
		client_kill(d, c, LOG_ERR, "out of memory for its history reply");
		return;
	}
	c->hist_wait = false;
	client_service(d, c);
}

/*
 * Queues the next samples of c's history reply while less than
 * HIST_LOW_WATER of its replies are unwritten. Samples still holding their
 * line are queued as slices of it (shared); a run of compressed ones is
 * decompressed into a chunk of at most HIST_CHUNK bytes (at least one
 * sample) owned by this reply and counted in d->hist_queued. Returns
 * whether anything was queued; -ENOMEM drops the client.
 */
bool client_history_step(struct daemon *d, struct client *c)
{
	bool any = false;
	int r = 0;

	c->hist_wait = false;
	if (c->hist_active && c->rec_pending) {
		if (!rec_history_ready(d, c)) {
			/* resumed by server_resume() once its uid's turn comes */
			c->hist_wait = true;
			d->rec_waiting = true;
			return false;
		}
		r = history_recorded(d, c);
		any = true;
	}
	if (r >= 0 && c->rec_job) {
		/* the part is being made off the loop: client_history_part()
		 * goes on with the reply once it is */
		c->hist_wait = true;
		return any;
	}
	while (r >= 0 && c->hist_active && !c->dead && client_reply_backlog(c) < HIST_LOW_WATER) {
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
		if (c->hist_count || c->hist_recorded)
			r = client_queue_seg(c, d->comma, 0, d->comma->len, false);
		if (r < 0)
			break;
		if (e->b) { /* not compressed yet: its event line, shared */
			r = client_queue_seg(c, e->b, e->doc_off, e->doc_len, false);
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
				r = client_queue_seg(c, b, 0, len, false);
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

	while (!c->dead && !c->closing && !c->hist_active &&
	       client_reply_backlog(c) < REPLY_BACKLOG) {
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
		if (!is_blank_line(c->in + start, len) &&
		    commands_dispatch(d, c, c->in + start, len) < 0) {
			client_kill(d, c, LOG_ERR, "out of memory for its reply");
			break;
		}
		start += nl ? len + 1 : len;
	}
	if (start) {
		memmove(c->in, c->in + start, c->in_len - start);
		c->in_len -= start;
		/* what is left is the start of the next line: due from now */
		c->line_start_ns = c->in_len ? clock_mono_ns() : 0;
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
	return c->closing || c->hist_active || client_reply_backlog(c) >= REPLY_BACKLOG;
}

/* Runs requests, streams a history reply and writes replies until none of
 * them makes progress. */
static void client_service(struct daemon *d, struct client *c)
{
	for (;;) {
		bool any = false;

		if (c->hist_active)
			any = client_history_step(d, c);
		if (!c->hist_active && !c->dead)
			any |= process_lines(d, c);
		client_flush(d, c);
		if (c->dead)
			break;
		/* the write made room: the history reply goes on (nothing else
		 * would wake it: no EPOLLOUT with an empty queue, no EPOLLIN
		 * during a reply) */
		if (c->hist_active && !c->hist_wait && client_reply_backlog(c) < HIST_LOW_WATER)
			continue;
		if (!any || client_reply_backlog(c) >= REPLY_BACKLOG)
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
		c->line_start_ns = clock_mono_ns();
	c->in_len += (size_t)n;
	if (c->in_len == IOT_PROTO_MAX_LINE && !memchr(c->in, '\n', c->in_len)) {
		int64_t now = clock_mono_ns();
		char name[64];

		/* one line per 10 s at most, as for busy: anyone in the group
		 * could else write 20000 a second, and the journal's rate limit
		 * would then drop the daemon's other lines (apply's among them) */
		d->too_long++;
		if (!d->too_long_logged_ns || now - d->too_long_logged_ns >= 10000000000LL) {
			daemon_log(LOG_WARNING,
				   "%llu client(s) closed for a request line over %d bytes, the "
				   "last: %s",
				   (unsigned long long)d->too_long, IOT_PROTO_MAX_LINE,
				   peer_name(c, name, sizeof(name)));
			d->too_long = 0;
			d->too_long_logged_ns = now;
		}
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
	/* gone while its history reply waits (nothing queued, nothing read
	 * meanwhile): the reply can never be read, and the HUP, reported
	 * whatever the interest, would wake the loop until the client goes */
	if ((events & (EPOLLHUP | EPOLLERR)) && c->hist_wait) {
		client_kill(d, c, LOG_DEBUG, "gone while its history reply waited");
		return;
	}
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
	if (c->hist_active && !c->hist_wait && client_reply_backlog(c) < HIST_LOW_WATER)
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
		return client_queue_seg(c, b, 0, b->len, true);
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
	/* for the budget of history chunks, or for a turn to replay the
	 * recording (looked at again after every batch) */
	bool room = d->hist_waiting && d->hist_queued < HIST_QUEUED_MAX;

	if (!room && !d->rec_waiting)
		return;
	if (room)
		d->hist_waiting = false;
	d->rec_waiting = false;
	for (struct client *c = d->clients; c; c = c->next) {
		if (c->dead || !c->hist_wait || (!room && !c->rec_pending))
			continue;
		c->hist_wait = false;
		client_service(d, c);
	}
}

int server_timeouts(struct daemon *d)
{
	int64_t now = clock_mono_ns();

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
		} else if (client_reply_backlog(c) &&
			   now - c->reply_wait_ns > IOT_PROTO_REPLY_TIMEOUT_MS * 1000000LL) {
			char why[96];

			snprintf(why, sizeof(why), "%zu bytes of replies unread for %d s",
				 client_reply_backlog(c), IOT_PROTO_REPLY_TIMEOUT_MS / 1000);
			client_kill(d, c, LOG_WARNING, why);
		}
	}
	return 1000;
}

/* ---- accept, reap ---- */

static void client_free(struct daemon *d, struct client *c)
{
	rec_history_forget(d, c);
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
	int64_t now = clock_mono_ns();

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
		c->line_start_ns = clock_mono_ns();
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
