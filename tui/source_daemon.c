// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * source_daemon: the samples from iotriaged (protocol.h: hello, status,
 * history, worker.status, subscribe; reconnecting by itself), the
 * daemon's worker events to model_worker.c; never blocks: the socket is
 * non-blocking and the loop polls it. Apply and undo go through the daemon
 * on a connection of their own.
 */
#include <errno.h>
#include <json-c/json.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon_conn.h"
#include "clock.h"
#include "cmd_suggest.h"
#include "grow.h"
#include "iotriage/protocol.h"
#include "iotriage/types.h"
#include "model_findings.h"
#include "model_worker.h"
#include "source_int.h"
#include "ui.h"

#define RECONNECT_NS	1000000000LL /* retry a lost daemon every second */
#define HISTORY_SECONDS 600	     /* as much as the sparkline keeps at 1 Hz */

/* The decimations that +/- step through. */
static const long every_steps[] = { 1, 2, 5, 10, 30, 60 };

static void daemon_queue(struct source *src, const char *req)
{
	size_t n = strlen(req);

	if (grow((void **)&src->wbuf, &src->wcap, src->wlen + n, 1) < 0)
		return; /* the request is lost; the reconnect after the EOF resends all */
	memcpy(src->wbuf + src->wlen, req, n);
	src->wlen += n;
}

static const char *tf(unsigned want, enum cad_src k)
{
	return want & (1u << k) ? "true" : "false";
}

static void daemon_queue_subscribe(struct source *src)
{
	char req[224];

	snprintf(req, sizeof(req),
		 "{\"cmd\":\"subscribe\",\"every\":%u,\"procs\":%s,\"turbostat\":%s,"
		 "\"nics\":%s,\"cgroups\":%s,\"pressure\":%s,\"id\":\"subscribe\"}\n",
		 src->every, tf(src->want, CAD_PROCS), tf(src->want, CAD_TURBO),
		 tf(src->want, CAD_NICS), tf(src->want, CAD_CGROUPS), tf(src->want, CAD_PRESSURE));
	daemon_queue(src, req);
}

static void daemon_disconnect(struct source *src, int64_t now_ns, const char *why)
{
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	src->hello_ok = false;
	src->past_fetch = false; /* its answer will not come: a time key may ask again */
	src->wide_fetch = false;
	src->rlen = src->rscan = 0;
	src->wlen = 0;
	if (src->rcap > IOT_PROTO_MAX_REPLY / 16) {
		/* a history reply (or a server that sent a huge line) grew it:
		 * do not keep hundreds of MiB while disconnected */
		free(src->rbuf);
		src->rbuf = NULL;
		src->rcap = 0;
	}
	src->next_connect_ns = now_ns + RECONNECT_NS;
	source_set_state(src, "DISCONNECTED: %s; retrying", why);
}

/* Why a connect failed, for the state line: the peer check's words. */
static const char *connect_why(const struct source *src, int r)
{
	return r == -EPERM && src->why[0] ? src->why : strerror(-r);
}

/*
 * Connects and checks who answers (root or us: daemon_conn_peer_check); on
 * success queues hello, status, history, worker.status and subscribe, which
 * the daemon answers in this order. Returns 0 or -errno (-EPERM: src->why).
 */
static int daemon_connect(struct source *src)
{
	char req[160];
	int fd;

	src->why[0] = '\0';
	fd = daemon_conn_socket(src->path, true, src->why, sizeof(src->why));
	if (fd < 0) {
		if (fd != -EPERM)
			src->why[0] = '\0'; /* not there: the caller says so its way */
		return fd;
	}
	src->fd = fd;
	src->rlen = src->rscan = src->wlen = 0;
	src->history_pending = true;
	src->rx_ns = clock_mono_ns();
	snprintf(req, sizeof(req), "{\"cmd\":\"hello\",\"version\":%d,\"id\":\"hello\"}\n",
		 IOT_PROTOCOL_VERSION);
	daemon_queue(src, req);
	daemon_queue(src, "{\"cmd\":\"status\",\"id\":\"status\"}\n");
	snprintf(req, sizeof(req), "{\"cmd\":\"history\",\"seconds\":%d,\"id\":\"history\"}\n",
		 HISTORY_SECONDS);
	daemon_queue(src, req);
	/* a job that began before we connected shows at once, not at its next
	 * event; a job that ended while we were away is marked ended */
	daemon_queue(src, "{\"cmd\":\"worker.status\",\"id\":\"worker\"}\n");
	daemon_queue_subscribe(src);
	source_set_state(src, "connecting");
	return 0;
}

static const char *reply_error(struct json_object *o, char *buf, size_t size)
{
	struct json_object *e = NULL, *v = NULL;

	snprintf(buf, size, "error reply");
	if (json_object_object_get_ex(o, "error", &e) &&
	    json_object_object_get_ex(e, "message", &v) && json_object_is_type(v, json_type_string))
		snprintf(buf, size, "%s", json_object_get_string(v));
	return buf;
}

static int switch_to_embedded(struct source *src, const char *why)
{
	char err[256];

	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	if (source_embedded_start(src, src->root_given ? src->root.path : NULL, err, sizeof(err)) <
	    0) {
		source_set_state(src, "%s", err);
		return -1;
	}
	source_set_state(src, "daemon at %s refused (%s): sampling here", src->path, why);
	return 0;
}

/* A daemon's sample kept for the time keys: its bytes in line (the event
 * line {"ok":true,"event":"sample","sample":DOC}, as iotriaged writes it:
 * no serialising again), else (line NULL: a history reply) re-encoded. */
static void past_keep(struct source *src, struct json_object *smp, const char *line,
		      size_t line_len)
{
	static const char head[] = "{\"ok\":true,\"event\":\"sample\",\"sample\":";
	struct past_entry e = { 0 };
	struct json_object *v;
	const char *doc;
	size_t len;

	if (!json_object_object_get_ex(smp, "timestamp_ms", &v))
		return;
	e.real_ns = json_object_get_int64(v) * 1000000;
	if (json_object_object_get_ex(smp, "sample", &v))
		e.id = (uint64_t)json_object_get_int64(v);
	if (src->pn && e.real_ns <= src->pe[src->pn - 1].real_ns)
		return; /* before the serialising: a reconnect's history repeats */
	if (line && line_len > sizeof(head) && memcmp(line, head, sizeof(head) - 1) == 0 &&
	    line[line_len - 1] == '}') {
		doc = line + sizeof(head) - 1;
		len = line_len - (sizeof(head) - 1) - 1;
	} else {
		doc = json_object_to_json_string_length(smp, JSON_C_TO_STRING_PLAIN, &len);
	}
	if (doc)
		past_add(src, &e, doc, len, NULL, 0);
}

/* The status reply: whether the daemon records (the time keys' wider
 * intervals are asked of it then). */
static void daemon_status(struct source *src, struct json_object *o)
{
	struct json_object *rec = NULL;

	src->daemon_records = json_object_object_get_ex(o, "record", &rec) &&
			      json_object_is_type(rec, json_type_object);
}

/* The history reply: every sample into the history and the past kept;
 * the newest also fills the tables, so the screen is not empty until the
 * next push. */
static unsigned daemon_history(struct source *src, struct json_object *samples, struct model *m,
			       bool paused)
{
	size_t n = json_object_array_length(samples);

	for (size_t i = 0; i < n; i++) {
		struct json_object *smp = json_object_array_get_idx(samples, i);

		model_apply(m, smp,
			    MODEL_HISTORY | (i + 1 == n && !paused && !src->past ? MODEL_VIEW : 0));
		past_keep(src, smp, NULL, 0);
	}
	return UI_REDRAW;
}

static unsigned daemon_line(struct source *src, const char *line, size_t len, int64_t now_ns,
			    struct model *m, bool paused)
{
	struct json_object *o, *v = NULL, *samples = NULL;
	const char *id = "";
	unsigned flags = 0;
	char msg[256];
	bool ok, trim;

	json_tokener_reset(src->tok);
	o = json_tokener_parse_ex(src->tok, line, (int)len);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		daemon_disconnect(src, now_ns, "the daemon sent a line that is not JSON");
		return UI_REDRAW;
	}
	ok = json_object_object_get_ex(o, "ok", &v) && json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "id", &v) && json_object_is_type(v, json_type_string))
		id = json_object_get_string(v);
	if (strcmp(id, "history") == 0 || strcmp(id, "past") == 0)
		src->history_pending = false; /* answered: lines are small again */

	if (json_object_object_get_ex(o, "event", &v)) {
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), "worker") == 0) {
			if (json_object_object_get_ex(o, "worker", &v) &&
			    model_worker_apply(m, v, now_ns, MODEL_WORKER_EVENT) >= 0)
				flags = UI_REDRAW;
		} else if (json_object_object_get_ex(o, "sample", &v) &&
			   model_apply(
			       m, v, MODEL_HISTORY | (paused || src->past ? 0 : MODEL_VIEW)) >= 0) {
			past_keep(src, v, line, len);
			flags = UI_REDRAW;
		}
	} else if (strcmp(id, "worker") == 0) {
		/* worker.status is for root and the daemon's user: others learn of
		 * a job from its events, so a refusal is no news */
		if (ok && json_object_object_get_ex(o, "worker", &v) &&
		    model_worker_apply(m, v, now_ns, MODEL_WORKER_STATUS) >= 0)
			flags = UI_REDRAW;
	} else if (strcmp(id, "wide") == 0) {
		if (!ok || !json_object_object_get_ex(o, "samples", &samples) ||
		    !json_object_is_type(samples, json_type_array))
			samples = NULL;
		flags = past_wide_fetched(src, ok, samples,
					  ok ? NULL : reply_error(o, msg, sizeof(msg)), m);
	} else if (!ok) {
		reply_error(o, msg, sizeof(msg));
		if (strcmp(id, "hello") == 0 && src->auto_mode && !src->ever_connected) {
			switch_to_embedded(src, msg);
		} else if (strcmp(id, "hello") == 0 || src->fd < 0) {
			daemon_disconnect(src, now_ns, msg);
		} else {
			source_set_state(src, "daemon: %s", msg);
		}
		flags = UI_REDRAW;
	} else if (strcmp(id, "hello") == 0) {
		src->hello_ok = src->ever_connected = true;
		if (json_object_object_get_ex(o, "interval_ms", &v) &&
		    json_object_is_type(v, json_type_int))
			src->daemon_itv_ms = (long)json_object_get_int64(v);
		src->state[0] = '\0';
		flags = UI_REDRAW;
	} else if (strcmp(id, "status") == 0) {
		daemon_status(src, o);
	} else if (strcmp(id, "history") == 0 &&
		   json_object_object_get_ex(o, "samples", &samples) &&
		   json_object_is_type(samples, json_type_array)) {
		flags = daemon_history(src, samples, m, paused);
	} else if (strcmp(id, "past") == 0) {
		if (!ok || !json_object_object_get_ex(o, "samples", &samples) ||
		    !json_object_is_type(samples, json_type_array))
			samples = NULL;
		flags = past_fetched(src, samples, m);
	} else if (strcmp(id, "subscribe") == 0) {
		flags = UI_REDRAW;
	}
	/* a history reply's parse tree (hundreds of samples) is freed in
	 * pieces among the samples kept: give the holes back (66 MB of RSS
	 * after a 600 s history, measured; doc/PERFORMANCE.md) */
	trim = strcmp(id, "history") == 0 || strcmp(id, "past") == 0;
	json_object_put(o); /* id with it */
	if (trim)
		malloc_trim(0);
	return flags;
}

/* What the daemon may send without a newline (protocol.h "What a client
 * accepts"): the history reply is the one big line. */
static size_t line_max(const struct source *src)
{
	/* only after a hello answered as iotriaged answers it */
	return src->history_pending && src->hello_ok ? IOT_PROTO_MAX_HISTORY_REPLY
						     : IOT_PROTO_MAX_REPLY;
}

static unsigned daemon_read(struct source *src, int64_t now_ns, struct model *m, bool paused)
{
	unsigned flags = 0;

	for (;;) {
		size_t start = 0;
		ssize_t n;

		if (src->rlen > line_max(src)) {
			char why[64];

			snprintf(why, sizeof(why), "a line over %zu MiB from the daemon",
				 line_max(src) >> 20);
			daemon_disconnect(src, now_ns, why);
			return flags | UI_REDRAW;
		}
		if (src->rcap - src->rlen < 65536 &&
		    grow((void **)&src->rbuf, &src->rcap, src->rlen + 65536, 1) < 0) {
			daemon_disconnect(src, now_ns, strerror(ENOMEM));
			return flags | UI_REDRAW;
		}
		n = read(src->fd, src->rbuf + src->rlen, src->rcap - src->rlen);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return flags;
		if (n <= 0) {
			daemon_disconnect(src, now_ns,
					  n == 0 ? "the daemon closed the connection"
						 : strerror(errno));
			return flags | UI_REDRAW;
		}
		src->rlen += (size_t)n;
		for (;;) {
			size_t from = start > src->rscan ? start : src->rscan;
			char *nl = memchr(src->rbuf + from, '\n', src->rlen - from);

			if (!nl)
				break;
			/* only whole lines count as the daemon being alive: a
			 * trickle of bytes without a newline is not */
			src->rx_ns = now_ns;
			flags |= daemon_line(src, src->rbuf + start,
					     (size_t)(nl - src->rbuf) - start, now_ns, m, paused);
			if (src->fd < 0 || src->ops != &source_daemon_ops)
				return flags; /* the line ended the connection */
			start = (size_t)(nl - src->rbuf) + 1;
		}
		memmove(src->rbuf, src->rbuf + start, src->rlen - start);
		src->rlen -= start;
		/* what is left has no newline: the next read scans only its own
		 * bytes (rescanning from 0 made a 64 MiB line cost ~10 GB of
		 * memchr, and the live view gave up on time first) */
		src->rscan = src->rlen;
	}
}

/*
 * When the connection is given up if no whole line arrives: a reply is due
 * within IOT_PROTO_CLIENT_TIMEOUT_MS of connecting; once subscribed, a
 * sample every interval_ms * every, so three of them missed (10 s at least)
 * means a wedged daemon or something that is not one.
 */
static int64_t silence_limit_ns(const struct source *src)
{
	int64_t lim = (int64_t)IOT_PROTO_CLIENT_TIMEOUT_MS * 1000000;
	int64_t three = 3 * (int64_t)src->daemon_itv_ms * src->every * 1000000;

	return src->hello_ok && three > lim ? three : lim;
}

static unsigned daemon_write(struct source *src, int64_t now_ns)
{
	while (src->wlen) {
		ssize_t n = send(src->fd, src->wbuf, src->wlen, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			daemon_disconnect(src, now_ns, strerror(errno));
			return UI_REDRAW;
		}
		memmove(src->wbuf, src->wbuf + n, src->wlen - (size_t)n);
		src->wlen -= (size_t)n;
	}
	return 0;
}

static unsigned daemon_dispatch(struct source *src, short revents, int64_t now_ns, struct model *m,
				bool paused)
{
	int64_t stale_ns = src->daemon_itv_ms * 3 * 1000000LL;
	unsigned flags = 0;

	/* the daemon sends a worker event after every sample while a job runs */
	if (model_worker_expire(
		m, now_ns, stale_ns > MODEL_WORKER_STALE_NS ? stale_ns : MODEL_WORKER_STALE_NS))
		flags |= UI_REDRAW;

	if (src->fd < 0) {
		int r;

		if (now_ns < src->next_connect_ns)
			return 0;
		r = daemon_connect(src);
		if (r < 0) {
			daemon_disconnect(src, now_ns, connect_why(src, r));
			return UI_REDRAW;
		}
		flags |= UI_REDRAW;
	}
	if (src->wlen)
		flags |= daemon_write(src, now_ns);
	/* read before acting on a hangup: the last replies may be waiting */
	if (src->fd >= 0 && (revents & (POLLIN | POLLHUP | POLLERR)))
		flags |= daemon_read(src, now_ns, m, paused);
	if (src->fd >= 0 && now_ns - src->rx_ns > silence_limit_ns(src)) {
		char why[96];

		snprintf(why, sizeof(why), "%s for %lld s",
			 src->hello_ok ? "nothing from the daemon" : "no answer",
			 (long long)(silence_limit_ns(src) / 1000000000));
		daemon_disconnect(src, now_ns, why);
		flags |= UI_REDRAW;
	}
	return flags;
}

/* Through iotriaged: a connection of its own, so the subscription's stream
 * is never mixed with this reply. 0 done, else failed; msg says which. */
static int daemon_act(const struct source *src, const struct model_advice *advice, const char *id,
		      bool undo, char *msg, size_t size)
{
	const char *path = src->path;
	char reply[700], why[DAEMON_CONN_WHY_MAX];
	struct daemon_conn c;
	int r;

	/* daemon_conn.h: the peer is root or us, and a daemon that stops answering
	 * freezes the screen for IOT_PROTO_CLIENT_TIMEOUT_MS at most */
	r = daemon_conn_open(path, &c, why, sizeof(why));
	if (r < 0) {
		snprintf(msg, size, "%s failed: cannot reach iotriaged at %s: %s",
			 undo ? "undo" : "apply", path, why);
		return -1;
	}
	/* the writes on the screen: the daemon applies those or nothing */
	r = suggest_daemon_apply(&c, id, undo, undo ? NULL : model_findings_suggestion(advice, id),
				 reply, sizeof(reply));
	daemon_conn_close(&c);
	if (r == 0) {
		snprintf(msg, size, "iotriaged: %s", reply);
		return 0;
	}
	if (r > 0)
		snprintf(msg, size, "%s refused by iotriaged: %s", undo ? "undo" : "apply",
			 reply[0] ? reply : "no reason given");
	else if (r == -ETIMEDOUT)
		snprintf(msg, size, "%s: iotriaged did not answer within %d s; it may still act",
			 undo ? "undo" : "apply", IOT_PROTO_CLIENT_TIMEOUT_MS / 1000);
	else
		snprintf(msg, size, "iotriaged: %s", reply);
	return -1;
}

static int daemon_apply(const struct source *src, const struct model_advice *advice,
			const char *root_dir, const char *id, bool undo, char *msg, size_t size)
{
	(void)root_dir; /* the daemon writes under its own */
	return daemon_act(src, advice, id, undo, msg, size);
}

static int64_t daemon_deadline_ns(const struct source *src)
{
	/* wake to give up on a silent daemon, whatever the screen does */
	return src->fd < 0 ? src->next_connect_ns : src->rx_ns + silence_limit_ns(src) + 1;
}

static unsigned daemon_step_interval(struct source *src, int dir, int64_t now_ns)
{
	long next = source_step_long(every_steps, sizeof(every_steps) / sizeof(every_steps[0]),
				     (long)src->every, dir);

	(void)now_ns;
	if (next == (long)src->every)
		return 0;
	src->every = (unsigned)next;
	if (src->fd >= 0)
		daemon_queue_subscribe(src); /* a second subscribe changes "every" */
	return UI_REDRAW;
}

static long daemon_interval_ms(const struct source *src)
{
	return src->daemon_itv_ms * (long)src->every;
}

void source_daemon_want(struct source *src)
{
	if (src->fd >= 0)
		daemon_queue_subscribe(src); /* a second subscribe changes the flags */
}

bool source_daemon_ask_past(struct source *src, int64_t t, unsigned *ret_flags)
{
	char req[128];
	int64_t s;

	if (src->fd < 0 || !src->hello_ok)
		return false;
	*ret_flags = 0;
	if (src->past_fetch)
		return true; /* one at a time; this key moves from its answer */
	/* a minute more: the samples just before come with it, so the next
	 * steps back need no request of their own */
	s = (clock_ns(CLOCK_REALTIME) - t) / 1000000000 + 60;
	snprintf(req, sizeof(req), "{\"cmd\":\"history\",\"seconds\":%lld,\"id\":\"past\"}\n",
		 (long long)(s > INT32_MAX ? INT32_MAX : s));
	daemon_queue(src, req);
	src->past_fetch = src->history_pending = true;
	src->past_want = t;
	snprintf(src->past_note, sizeof(src->past_note),
		 "asking the daemon for older samples (its recording)");
	*ret_flags = UI_REDRAW;
	return true;
}

bool source_daemon_ask_wide(struct source *src, int64_t at_ns, int64_t step_ns)
{
	char req[160];

	if (src->fd < 0 || !src->hello_ok)
		return false;
	if (src->wide_fetch)
		return true; /* its answer asks again for where the keys are then */
	src->wide_at_ns = at_ns;
	src->wide_step_ns = step_ns;
	snprintf(req, sizeof(req),
		 "{\"cmd\":\"history\",\"at\":%lld,\"step_ms\":%lld,\"id\":\"wide\"}\n",
		 (long long)(at_ns / 1000000), (long long)(step_ns / 1000000));
	daemon_queue(src, req);
	src->wide_fetch = true;
	return true;
}

/*
 * The daemon at o->socket (waited for), or at the default socket if one
 * answers now: 1, src a daemon source; 0 none (embedded, then); -errno
 * with err set.
 */
int source_daemon_open(struct source *src, const struct source_opts *o, char *err, size_t errsz)
{
	int r;

	if (o->socket) {
		if (strlen(o->socket) >= sizeof(src->path)) {
			snprintf(err, errsz, "--socket %s: path too long for a Unix socket",
				 o->socket);
			return -ENAMETOOLONG;
		}
		snprintf(src->path, sizeof(src->path), "%s", o->socket);
	} else {
		/* the system daemon first (a member of its group reaches it),
		 * then a daemon of the user's own ($XDG_RUNTIME_DIR) */
		snprintf(src->path, sizeof(src->path), "%s", IOT_PROTO_SYSTEM_SOCKET);
		if (daemon_connect(src) < 0 &&
		    (iot_proto_default_socket(src->path, sizeof(src->path)) < 0 ||
		     strcmp(src->path, IOT_PROTO_SYSTEM_SOCKET) == 0 || daemon_connect(src) < 0))
			src->path[0] = '\0'; /* nobody answers: embedded */
	}
	src->auto_mode = !o->socket;
	/* an explicit socket is the user's choice: wait for that daemon; the
	 * default one is used only if it answered just now */
	if (!o->socket && src->fd < 0)
		return 0;
	src->ops = &source_daemon_ops;
	if (src->fd < 0) {
		r = daemon_connect(src);
		if (r < 0)
			daemon_disconnect(src, 0, connect_why(src, r));
	}
	return 1;
}

void source_daemon_close(struct source *src)
{
	if (src->fd >= 0)
		close(src->fd);
	src->fd = -1;
	free(src->rbuf);
	free(src->wbuf);
	src->rbuf = src->wbuf = NULL;
}

/* in source_ops' order (source_int.h) */
const struct source_ops source_daemon_ops = { SOURCE_DAEMON,	  daemon_dispatch,
					      daemon_deadline_ns, daemon_step_interval,
					      daemon_interval_ms, &source_past_time,
					      daemon_apply };
