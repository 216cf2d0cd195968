// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The requests: one handler per "cmd" in the dispatch table, each replying
 * exactly once through conn.c's queues; privileged ones are checked
 * against the peer's credentials before they run.
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
	r = client_queue_sb(d, c);
	/* the event line ends DOC with "}\n": exactly the end of this reply */
	if (r >= 0)
		r = client_queue_seg(c, e->b, e->doc_off, e->b->len - e->doc_off, false);
	return r;
}

static int cmd_subscribe(struct daemon *d, struct client *c, const struct request *rq)
{
	struct strbuf *sb;
	/* the optional sources the client looks at: read every sample (the
	 * CPU budget, doc/daemon.md); "procs" is CAD_PROCS's */
	static const char *const keys[CAD__COUNT] = {
		[CAD_PROCS] = "procs",	   [CAD_TURBO] = "turbostat",	[CAD_NICS] = "nics",
		[CAD_CGROUPS] = "cgroups", [CAD_PRESSURE] = "pressure",
	};
	int64_t every = 1;
	unsigned want = 0;

	if (request_get_int(rq, "every", 1, 1000000, &every) < 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "\"every\" must be an integer from 1 to 1000000");
	for (int k = 0; k < CAD__COUNT; k++) {
		int b = request_get_bool(rq, keys[k]);
		char msg[64];

		if (b < 0) {
			snprintf(msg, sizeof(msg), "\"%s\" must be true or false", keys[k]);
			return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST, "%s", msg);
		}
		if (b > 0)
			want |= 1u << k;
	}
	c->want = want;
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
	int64_t seconds = -1, since = -1, at_ms = -1, step_ms = 0;
	size_t from;
	int r1, r2, r3, r4, r;

	r1 = request_get_int(rq, "seconds", 0, INT32_MAX, &seconds);
	r2 = request_get_int(rq, "since", 0, INT64_MAX, &since);
	r3 = request_get_int(rq, "at", 0, INT64_MAX / 1000000, &at_ms);
	r4 = request_get_int(rq, "step_ms", 1, IOT_PROTO_MAX_STEP_MS, &step_ms);
	if (r1 < 0 || r2 < 0 || r3 < 0 || r4 < 0 || r1 + r2 + r3 != 1 || r3 != r4)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "history needs exactly one of \"seconds\" or \"since\", "
					  "a non-negative integer, or \"at\" with \"step_ms\"");
	sb_puts(server_reply_start(d, rq), ",\"samples\":[");
	r = client_queue_sb(d, c);
	if (r < 0)
		return r;
	/* the samples follow from client_history_step(), nothing else until then */
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
	/* older than the ring: the flight recording's samples (rec.c), sent
	 * first, whole, when client_history_step() may make them (paced per
	 * uid); the ring's follow with their comma */
	c->hist_recorded = 0;
	c->rec_pending = false;
	if (r1 && from == 0)
		rec_history_ask(d, c, seconds);
	if (r3) {
		/* one interval, made from the recording alone: none of the ring */
		rec_history_ask_at(d, c, at_ms * 1000000, step_ms * 1000000);
		c->hist_after = c->hist_last;
		return 0;
	}
	/* ids only increase (from 1): everything after the one before from */
	c->hist_after = from < d->hist.n ? history_at(&d->hist, from)->id - 1 : c->hist_last;
	return 0;
}

/* Queues what was pushed while the history reply was written, in order. */
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
		  (long long)((clock_mono_ns() - d->start_mono_ns) / 1000000000LL));
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
	rec_status(d, sb);
	metrics_http_status(d, sb);
	loop_status_cost(d, sb); /* the CPU budget and the process scan's cadence */
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
 * the advisor's writes (src/act/apply.c) on the daemon's own root, of the
 * suggestion its latest sample published; privileged (SO_PEERCRED) in the
 * table below. */
static const char *suggestion_arg(const struct request *rq)
{
	json_object *v;

	/* "x\u0000y" would read as "x": another suggestion than the one named */
	if (!json_object_object_get_ex(rq->root, "suggestion", &v) ||
	    !json_object_is_type(v, json_type_string) || !request_text_ok(v))
		return NULL;
	return json_object_get_string(v);
}

/*
 * apply's optional "writes": [{"path": "/proc/irq/24/smp_affinity_list",
 * "value": "3"}, ...], what the client showed and the person confirmed.
 * 0 none given (*ret NULL), n > 0 parsed into *ret (host paths made
 * root-relative), -EINVAL malformed, -ENOMEM.
 */
static int expected_writes(const struct request *rq, struct advise_action **ret)
{
	struct advise_action *a;
	json_object *arr;
	size_t n;

	*ret = NULL;
	if (!json_object_object_get_ex(rq->root, "writes", &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return -EINVAL;
	n = json_object_array_length(arr);
	if (n == 0 || n > APPLY_MAX_WRITES)
		return -EINVAL;
	a = calloc(n, sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *w = json_object_array_get_idx(arr, i), *p, *v;
		const char *ps, *vs;

		if (!json_object_is_type(w, json_type_object) ||
		    !json_object_object_get_ex(w, "path", &p) ||
		    !json_object_object_get_ex(w, "value", &v) ||
		    !json_object_is_type(p, json_type_string) ||
		    !json_object_is_type(v, json_type_string) || !request_text_ok(p) ||
		    !request_text_ok(v))
			goto bad;
		ps = json_object_get_string(p);
		vs = json_object_get_string(v);
		if (ps[0] != '/' || strlen(ps + 1) >= sizeof(a[i].path) ||
		    strlen(vs) >= sizeof(a[i].value))
			goto bad;
		memcpy(a[i].path, ps + 1, strlen(ps + 1) + 1);
		memcpy(a[i].value, vs, strlen(vs) + 1);
	}
	*ret = a;
	return (int)n;
bad:
	free(a);
	return -EINVAL;
}

static int reply_apply(struct daemon *d, struct client *c, const struct request *rq, int e,
		       const struct apply_result *res, const char *key)
{
	struct strbuf *sb;

	if (e == -ENOMEM)
		return e;
	if (e < 0)
		return server_reply_error(d, c, rq->id,
					  e == -ENOENT || e == -EEXIST || e == -EINVAL ||
						  e == -ESTALE
					      ? IOT_ERR_BAD_REQUEST
					      : IOT_ERR_INTERNAL,
					  "%s", res->message);
	sb = server_reply_start(d, rq);
	sb_printf(sb, ",\"%s\":true,\"written\":%zu,\"pending\":%u,\"message\":", key, res->written,
		  res->pending);
	sb_json_str(sb, res->message);
	return server_reply_finish(d, c);
}

/* An apply or undo that wrote something: said in the next sample and its record
 * (the past and a report mark it), with the uid that asked. */
static void note_event(struct daemon *d, const struct client *c, const char *kind, const char *id)
{
	char by[32];

	snprintf(by, sizeof(by), "uid %u", (unsigned)c->cred.uid);
	sampler_note_event(d->sampler, kind, id, by);
}

static int cmd_apply(struct daemon *d, struct client *c, const struct request *rq)
{
	const struct advice *adv = sampler_advice(d->sampler);
	const char *id = suggestion_arg(rq);
	const struct suggestion *s;
	struct advise_action *expect;
	struct apply_result res;
	int e, n;

	if (!id)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "apply needs \"suggestion\", a suggestion id string "
					  "without NUL");
	n = expected_writes(rq, &expect);
	if (n == -ENOMEM)
		return n;
	if (n < 0)
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "apply's \"writes\" is an array of 1 to %d objects "
					  "{\"path\": \"/...\", \"value\": \"...\"} (strings "
					  "without NUL)",
					  APPLY_MAX_WRITES);
	if (!sampler_metrics(d->sampler)) {
		free(expect);
		return server_reply_error(d, c, rq->id, IOT_ERR_NO_SAMPLE,
					  "no interval measured yet: apply needs two samples");
	}
	/* the suggestion as the latest sample published it (the steadied
	 * advice, with the trace's metrics when tracing: what every client
	 * was shown), not judged again here: a suggestion of a finding that
	 * has not risen yet is not offered, so not applied */
	s = adv ? advice_suggestion(adv, id) : NULL;
	if (!s) {
		free(expect);
		daemon_log(LOG_WARNING, "apply %s (uid %u): no such suggestion shown now", id,
			   (unsigned)c->cred.uid);
		return server_reply_error(d, c, rq->id, IOT_ERR_BAD_REQUEST,
					  "%s: no such suggestion now (its finding is not shown "
					  "yet, or is gone): run iotriage suggest",
					  id);
	}
	/* its files checked against what the advice read, then written */
	e = apply_shown(d->args.root, NULL, s, expect, (size_t)n, &res);
	free(expect);
	if (e >= 0) { /* advise again on what is now, not on what was */
		sampler_topology_stale(d->sampler);
		topo_reader_request(d);
		if (res.written)
			note_event(d, c, "apply", id);
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
		if (res.written)
			note_event(d, c, "undo", suggestion_arg(rq));
	}
	daemon_log(e < 0 ? LOG_WARNING : LOG_NOTICE, "undo (uid %u): %s", (unsigned)c->cred.uid,
		   res.message);
	return reply_apply(d, c, rq, e, &res, "undone");
}

/*
 * The dispatch table: one entry a request; .privileged ones (apply, undo,
 * worker.*) have the peer's SO_PEERCRED uid checked before their handler
 * runs.
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

int commands_dispatch(struct daemon *d, struct client *c, const char *line, size_t len)
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
