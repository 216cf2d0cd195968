// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage worker start|stop|status: a bench job run by iotriaged (the
 * worker.* requests of doc/protocol.md). The fio options are checked here
 * with the bench's parser first, so a typo is the same usage error as
 * `iotriage bench`; the daemon parses and safety-checks them again itself.
 * Owns its exit code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "daemon_conn.h"
#include "clock.h"
#include "fioopts.h"
#include "iotriage/protocol.h"
#include "job.h"

static const char worker_usage[] =
    "Usage: iotriage worker start [--socket PATH] [--wait] --filename=PATH [fio options]\n"
    "       iotriage worker stop [--socket PATH]\n"
    "       iotriage worker status [--socket PATH] [--json]\n"
    "Run a bench job inside iotriaged (root): the options of iotriage bench,\n"
    "except --sweep-iodepth and --precondition; --filename must be absolute.\n"
    "\n"
    "  --socket PATH  the daemon's socket (default as the live view)\n"
    "  --wait         after start, wait for the end and print the result\n"
    "                 (fio text, or JSON with --output-format=json)\n"
    "  --json         status: the daemon's \"worker\" object as it is\n"
    "\n"
    "Exit: 0 ok, 1 failure/refused/job failed, 2 usage.\n";

/* A client connection (daemon_conn.h) and the daemon's sample interval, which
 * paces the worker events --wait waits for. */
struct worker_conn {
	struct daemon_conn c;
	long interval_ms;
};

static int conn_send(struct worker_conn *c, json_object *req)
{
	const char *s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(s);
	char *line = malloc(len + 2);
	int r;

	if (!line)
		return -ENOMEM;
	memcpy(line, s, len);
	memcpy(line + len, "\n", 2);
	r = daemon_conn_send(&c->c, line, len + 1);
	free(line);
	return r;
}

/* The next line as a JSON object (caller puts it), whole before
 * deadline_ms: daemon_conn_line's -errno, or -EBADMSG. */
static int conn_line(struct worker_conn *c, int64_t deadline_ms, json_object **ret)
{
	int64_t left = deadline_ms - clock_mono_ms();
	json_object *o;
	char *line;
	size_t len;
	int r;

	r = daemon_conn_line(&c->c, IOT_PROTO_MAX_REPLY, left > 0 ? (int)left : 0, &line, &len);
	if (r < 0)
		return r;
	o = json_tokener_parse(line);
	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return -EBADMSG;
	}
	*ret = o;
	return 0;
}

/* The reply to the last request: the next line that is not an event, all
 * within IOT_PROTO_CLIENT_TIMEOUT_MS (events in between do not extend it). */
static int conn_reply(struct worker_conn *c, json_object **ret)
{
	int64_t deadline = clock_mono_ms() + IOT_PROTO_CLIENT_TIMEOUT_MS;
	json_object *o, *v;
	int r;

	for (;;) {
		r = conn_line(c, deadline, &o);
		if (r < 0)
			return r;
		if (!json_object_object_get_ex(o, "event", &v)) {
			*ret = o;
			return 0;
		}
		json_object_put(o);
	}
}

static int conn_request(struct worker_conn *c, const char *cmd, json_object *args,
			json_object **ret)
{
	json_object *req = json_object_new_object();
	int r;

	if (!req)
		return -ENOMEM;
	json_object_object_add(req, "cmd", json_object_new_string(cmd));
	if (args)
		json_object_object_add(req, "args", args);
	r = conn_send(c, req);
	json_object_put(req);
	return r < 0 ? r : conn_reply(c, ret);
}

/* Connects (the peer checked), then hello: 0, or -errno with why set. */
static int conn_open(const char *path, struct worker_conn *ret, char *why, size_t why_size)
{
	struct worker_conn c = { .interval_ms = 1000 };
	json_object *req, *o = NULL, *v;
	int r;

	r = daemon_conn_open(path, &c.c, why, why_size);
	if (r < 0)
		return r;
	req = json_object_new_object();
	if (!req) {
		r = -ENOMEM;
		goto fail;
	}
	json_object_object_add(req, "cmd", json_object_new_string("hello"));
	json_object_object_add(req, "version", json_object_new_int(IOT_PROTOCOL_VERSION));
	r = conn_send(&c, req);
	json_object_put(req);
	if (r == 0)
		r = conn_reply(&c, &o);
	if (r < 0) {
		char e[96];

		snprintf(why, why_size, "hello: %s",
			 r == -EBADMSG ? "malformed reply" : daemon_conn_strerror(r, e, sizeof(e)));
		goto fail;
	}
	if (!json_object_object_get_ex(o, "ok", &v) || !json_object_get_boolean(v)) {
		json_object *e;

		snprintf(why, why_size, "hello: %s",
			 json_object_object_get_ex(o, "error", &e) &&
				 json_object_object_get_ex(e, "message", &v) &&
				 json_object_is_type(v, json_type_string)
			     ? json_object_get_string(v)
			     : "refused without a reason");
		r = -EPROTO;
		goto fail;
	}
	if (json_object_object_get_ex(o, "interval_ms", &v) &&
	    json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0 &&
	    json_object_get_int64(v) <= 3600L * 1000)
		c.interval_ms = (long)json_object_get_int64(v);
	json_object_put(o);
	*ret = c;
	return 0;
fail:
	json_object_put(o);
	daemon_conn_close(&c.c);
	return r;
}

static const char *str_at(json_object *o, const char *a, const char *b)
{
	json_object *v;

	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool reply_ok(json_object *o)
{
	json_object *v;

	return json_object_object_get_ex(o, "ok", &v) && json_object_get_boolean(v);
}

/* Prints a failed reply as "iotriage: WHAT: MESSAGE"; returns the exit code. */
static int reply_fail(json_object *o, const char *what)
{
	const char *msg = str_at(o, "error", "message");

	cli_error(what, "%s", msg ? msg : "the daemon refused without a reason");
	return EXIT_FAIL;
}

static void print_dir(json_object *w, const char *dir)
{
	json_object *d, *v, *p;

	if (!json_object_object_get_ex(w, dir, &d) || !json_object_object_get_ex(d, "ios", &v) ||
	    json_object_get_int64(v) == 0)
		return;
	json_object_object_get_ex(d, "iops", &v);
	printf("  %-5s IOPS=%.0f", dir, json_object_get_double(v));
	json_object_object_get_ex(d, "bw_bytes", &v);
	printf(" BW=%.1fMiB/s", json_object_get_double(v) / (1 << 20));
	if (json_object_object_get_ex(d, "clat_ns", &v) &&
	    json_object_object_get_ex(v, "percentile", &p)) {
		printf("  clat(us)");
		json_object_object_foreach(p, k, pv)
		{
			printf(" p%.6g=%.1f", atof(k), (double)json_object_get_int64(pv) / 1000.0);
		}
	}
	printf("\n");
}

static void print_status(json_object *w)
{
	const char *state = str_at(w, "state", NULL), *err = str_at(w, "error", NULL);
	const char *report = str_at(w, "report", NULL);
	json_object *v;

	if (!state || strcmp(state, "idle") == 0) {
		printf("no worker has run\n");
		return;
	}
	json_object_object_get_ex(w, "id", &v);
	printf("worker %lld: %s  %s", (long long)json_object_get_int64(v), state,
	       str_at(w, "filename", NULL) ?: "?");
	if (str_at(w, "device", NULL))
		printf(" (%s)", str_at(w, "device", NULL));
	printf("  %s %s", str_at(w, "rw", NULL) ?: "?", str_at(w, "ioengine", NULL) ?: "?");
	if (json_object_object_get_ex(w, "iodepth", &v))
		printf(" iodepth=%d", json_object_get_int(v));
	if (json_object_object_get_ex(w, "elapsed_s", &v))
		printf("  elapsed %.1fs", json_object_get_double(v));
	printf("\n");
	print_dir(w, "read");
	print_dir(w, "write");
	if (err)
		printf("  error: %s\n", err);
	if (report)
		printf("\n%s", report);
}

static bool state_final(const char *s)
{
	return s && strcmp(s, "starting") != 0 && strcmp(s, "running") != 0;
}

/* --wait: subscribe, wait for job id's end, then print its result. */
static int wait_end(struct worker_conn *c, int64_t id, enum job_output output)
{
	json_object *o, *w, *v;
	const char *state;
	char seen[16] = ""; /* the job's state, copied: o is freed each round */
	int r, ret = EXIT_FAIL;

	r = conn_request(c, "subscribe", NULL, &o);
	if (r < 0)
		return r;
	json_object_put(o);
	/* a status first: the job may have ended before we subscribed */
	for (bool first = true;; first = false) {
		if (first) {
			r = conn_request(c, "worker.status", NULL, &o);
		} else {
			/* the daemon sends a worker event after every sample while a
			 * job runs: silence for three of them (10 s at least) is a
			 * daemon gone wrong, or not a daemon */
			int64_t wait_ms = 3 * (int64_t)c->interval_ms;

			if (wait_ms < IOT_PROTO_CLIENT_TIMEOUT_MS)
				wait_ms = IOT_PROTO_CLIENT_TIMEOUT_MS;
			r = conn_line(c, clock_mono_ms() + wait_ms, &o);
			if (r >= 0 && !str_at(o, "event", NULL)) {
				json_object_put(o);
				continue;
			}
		}
		if (r < 0)
			return r;
		if (json_object_object_get_ex(o, "worker", &w) &&
		    json_object_object_get_ex(w, "id", &v) && json_object_get_int64(v) == id &&
		    (state = str_at(w, "state", NULL)))
			snprintf(seen, sizeof(seen), "%s", state);
		json_object_put(o);
		if (seen[0] && state_final(seen))
			break;
	}
	r = conn_request(c, "worker.status", NULL, &o);
	if (r < 0)
		return r;
	if (!reply_ok(o) || !json_object_object_get_ex(o, "worker", &w)) {
		ret = reply_fail(o, "worker status");
	} else {
		if (output == OUTPUT_JSON && json_object_object_get_ex(w, "result", &v))
			printf("%s\n", json_object_to_json_string_ext(
					   v, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
		else if (str_at(w, "report", NULL))
			printf("%s", str_at(w, "report", NULL));
		state = str_at(w, "state", NULL);
		if (str_at(w, "error", NULL))
			cli_error("worker", "%s", str_at(w, "error", NULL));
		else if (state && strcmp(state, "stopped") == 0)
			cli_error("worker",
				  "stopped: the results cover the time until worker stop");
		if (state && strcmp(state, "completed") == 0)
			ret = EXIT_OK;
	}
	json_object_put(o);
	return ret;
}

/* The bench's own parser, before any connection: a usage error is exit 2
 * with the same words as iotriage bench, daemon or not. 0, or an exit code. */
static int start_check(int argc, char **argv, struct job_spec *ret_spec)
{
	struct fioopts_error perr;
	int r;

	r = fioopts_parse(argc, (const char *const *)argv, 0, ret_spec, &perr);
	if (r == 1) {
		printf("%s", worker_usage);
		return -1;
	}
	if (r < 0) {
		cli_error(perr.option, "%s", perr.message);
		return EXIT_USAGE;
	}
	if (ret_spec->filename[0] != '/') {
		cli_error("--filename", "must be an absolute path: the daemon does not share this "
					"directory");
		return EXIT_USAGE;
	}
	return 0;
}

static int worker_start(struct worker_conn *c, int argc, char **argv, const struct job_spec *sp,
			bool wait)
{
	const struct job_spec spec = *sp;
	json_object *args, *o, *w, *v;
	const char *code;
	int64_t id = -1;
	int r, ret;

	args = json_object_new_array();
	if (!args)
		return -ENOMEM;
	for (int i = 0; i < argc; i++)
		json_object_array_add(args, json_object_new_string(argv[i]));
	r = conn_request(c, "worker.start", args, &o);
	if (r < 0)
		return r;
	if (!reply_ok(o)) {
		code = str_at(o, "error", "code");
		/* the same words as iotriage bench's refusal */
		if (code && strcmp(code, "refused") == 0)
			cli_error(spec.filename, "refused: %s",
				  str_at(o, "error", "message") ?: "");
		else
			reply_fail(o, "worker start");
		ret = code && strcmp(code, "bad_request") == 0 ? EXIT_USAGE : EXIT_FAIL;
		json_object_put(o);
		return ret;
	}
	if (json_object_object_get_ex(o, "worker", &w) && json_object_object_get_ex(w, "id", &v))
		id = json_object_get_int64(v);
	json_object_put(o);
	if (!wait) {
		printf("worker %lld started on %s\n", (long long)id, spec.filename);
		return EXIT_OK;
	}
	return wait_end(c, id, spec.output);
}

/* worker stop or status (verb): the request, and the reply printed (the
 * worker's object with json). Returns -errno when the exchange failed
 * (*ret untouched), else 0 with *ret the exit code. */
static int worker_query(struct worker_conn *c, const char *verb, bool json, int *ret)
{
	bool stop = strcmp(verb, "stop") == 0;
	json_object *o, *w;
	int r;

	r = conn_request(c, stop ? "worker.stop" : "worker.status", NULL, &o);
	if (r < 0)
		return r;
	if (!reply_ok(o)) {
		*ret = reply_fail(o, stop ? "worker stop" : "worker status");
	} else {
		json_object_object_get_ex(o, "worker", &w);
		if (json)
			printf("%s\n", json_object_to_json_string_ext(
					   w, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
		else if (stop)
			printf("stopping worker\n");
		else
			print_status(w);
		*ret = EXIT_OK;
	}
	json_object_put(o);
	return r;
}

int cmd_worker(int argc, char **argv)
{
	const char *socket_path = NULL, *verb;
	char def[108];
	struct worker_conn c = { .c = { .fd = -1 } };
	char why[DAEMON_CONN_WHY_MAX];
	bool wait = false, json = false;
	char **rest;
	int nrest = 0, r, ret = EXIT_FAIL;
	struct job_spec spec;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		printf("%s", worker_usage);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	verb = argv[1];
	rest = calloc((size_t)argc, sizeof(*rest));
	if (!rest)
		return EXIT_FAIL;
	/* ours are taken out wherever they are; the rest are fio's */
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc)
			socket_path = argv[++i];
		else if (strncmp(argv[i], "--socket=", 9) == 0)
			socket_path = argv[i] + 9;
		else if (strcmp(argv[i], "--wait") == 0)
			wait = true;
		else if (strcmp(argv[i], "--json") == 0 && strcmp(verb, "status") == 0)
			json = true;
		else
			rest[nrest++] = argv[i];
	}
	if (strcmp(verb, "start") && strcmp(verb, "stop") && strcmp(verb, "status")) {
		cli_error(verb, "unknown worker command (start, stop, status)");
		ret = EXIT_USAGE;
		goto out;
	}
	if (strcmp(verb, "start") && nrest) {
		cli_error(rest[0], "unexpected argument (try worker --help)");
		ret = EXIT_USAGE;
		goto out;
	}
	if (!socket_path) {
		if (iot_proto_default_socket(def, sizeof(def)) < 0) {
			cli_error("--socket",
				  "not root and XDG_RUNTIME_DIR is unset; give --socket");
			ret = EXIT_USAGE;
			goto out;
		}
		socket_path = def;
	}
	if (strcmp(verb, "start") == 0) {
		r = start_check(nrest, rest, &spec);
		if (r) {
			/* --help asked: printed, exit 0 */
			ret = r < 0 ? EXIT_OK : r;
			goto out;
		}
	}
	r = conn_open(socket_path, &c, why, sizeof(why));
	if (r < 0) {
		cli_error(socket_path, "%s", why);
		r = 0; /* said */
		goto out;
	}
	if (strcmp(verb, "start") == 0) {
		r = worker_start(&c, nrest, rest, &spec, wait);
		ret = r < 0 ? EXIT_FAIL : r;
	} else {
		r = worker_query(&c, verb, json, &ret);
	}
	if (r < 0)
		cli_error(socket_path, "%s",
			  r == -EBADMSG ? "a reply that is not a JSON object"
			  : r == -ETIMEDOUT && wait
			      ? "no reply, or no worker event for three sample intervals (10 s at "
				"least)"
			      : daemon_conn_strerror(r, why, sizeof(why)));
out:
	daemon_conn_close(&c.c);
	free(rest);
	return ret;
}
