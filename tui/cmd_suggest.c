// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * suggest, apply, undo: the advisor on the command line. Measures an
 * interval (live, or from recorded trees), reads the topology, prints the
 * findings and suggestions; apply/undo write through src/act/apply.c, embedded
 * as root.
 */
#include <errno.h>
#include <getopt.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "advise.h"
#include "encode_advice.h"
#include "apply.h"
#include "cli.h"
#include "daemon_conn.h"
#include "cmd_suggest.h"
#include "iotriage/protocol.h"
#include "model_findings.h"
#include "text.h"

int suggest_advise_root(const char *root_dir, const struct snapshot *cur, const struct metrics *m,
			struct advice *ret)
{
	struct topology t;
	struct root r;
	int e;

	e = root_open(root_dir, &r);
	if (e < 0)
		return e;
	e = topology_collect(&r, &t);
	root_close(&r);
	if (e < 0)
		return e;
	e = advise_run(&(struct advise_input){ .cur = cur, .m = m, .t = &t }, ret);
	topology_free(&t);
	return e;
}

/* Each of the n lines on its own, indented under its heading. */
static void print_lines(FILE *f, char *const *lines, size_t n)
{
	for (size_t k = 0; k < n; k++)
		fprintf(f, "      %s\n", lines[k]);
}

/* Findings, then suggestions with commands, effect, undo and notes: the
 * advice of a sample document, whether measured here or by iotriaged. */
static void print_advice(FILE *f, const struct model_advice *a)
{
	struct strbuf id = { 0 };

	if (a->nfindings == 0) {
		fprintf(f, "No findings: nothing stands out on this host.\n");
		return;
	}
	fprintf(f, "Findings:\n");
	for (size_t i = 0; i < a->nfindings; i++) {
		const struct model_finding *fd = &a->findings[i];

		fprintf(f, "  [%s] %s: %s\n", fd->severity_name, fd->id, fd->reason);
		if (fd->detail[0])
			fprintf(f, "      %s\n", fd->detail);
		if (fd->culprit && fd->culprit[0])
			fprintf(f, "      culprit: %s\n", fd->culprit);
	}
	if (a->nsuggestions == 0) {
		fprintf(f, "\nNo suggestion.\n");
		return;
	}
	fprintf(f, "\nSuggestions:\n");
	for (size_t i = 0; i < a->nsuggestions; i++) {
		const struct model_suggestion *s = &a->suggestions[i];

		fprintf(f, "\n  %s [%s] (for %s)\n    %s\n    commands:\n", s->id, s->severity_name,
			s->finding, s->reason);
		print_lines(f, s->commands, s->ncommands);
		fprintf(f, "    expected: %s\n    undo:\n", s->effect);
		print_lines(f, s->undo, s->nundo);
		if (s->notes[0])
			fprintf(f, "    note: %s\n", s->notes);
		sb_reset(&id);
		text_shell_word(&id, s->id); /* an id holds a name from the host or a tree */
		fprintf(f, "    apply: iotriage apply %s   (undo: iotriage undo %s)\n",
			sb_cstr(&id), sb_cstr(&id));
	}
	sb_free(&id);
}

/*
 * Prints the "findings" and "suggestions" of doc (a sample, or the object
 * encode_advice() wrote): as that JSON object with --json, else as
 * text. Returns an exit code; a document without advice is an error.
 */
static int print_doc(json_object *doc, bool json, const char *from)
{
	struct model_advice adv = { 0 };
	int r;

	r = model_findings_decode(doc, &adv);
	if (r < 0) {
		cli_error("suggest", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	if (!adv.present || adv.bad[0]) {
		cli_error(from, "%s",
			  adv.bad[0] ? adv.bad : "no findings or suggestions in the sample");
		model_findings_free(&adv);
		return EXIT_FAIL;
	}
	if (json) {
		json_object *out = json_object_new_object(), *v;

		if (!out)
			r = -ENOMEM;
		for (const char *const *k =
			 (const char *const[]){ "findings", "suggestions", NULL };
		     out && *k; k++) {
			json_object_object_get_ex(doc, *k, &v);
			json_object_object_add(out, *k, json_object_get(v));
		}
		if (out)
			printf("%s\n",
			       json_object_to_json_string_ext(
				   out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(out);
	} else {
		print_advice(stdout, &adv);
	}
	model_findings_free(&adv);
	if (r < 0) {
		cli_error("suggest", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

enum { OPT_STATE = CLI_OPT_NEXT, OPT_BEFORE };

static const struct option opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "root", required_argument, NULL, CLI_OPT_ROOT },
	{ "state-dir", required_argument, NULL, OPT_STATE },
	{ "before", required_argument, NULL, OPT_BEFORE },
	{ "help", no_argument, NULL, 'h' },
	{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
	{ 0 },
};

struct args {
	struct cli_opts o;
	const char *state_dir;
	const char *before;
};

static int parse(int argc, char **argv, const char *usage, struct args *a)
{
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "i:jh", opts, &a->o)) != -1) {
		switch (c) {
		case CLI_OPT_BAD:
			return -EXIT_USAGE;
		case OPT_STATE:
			a->state_dir = optarg;
			break;
		case OPT_BEFORE:
			a->before = optarg;
			break;
		case 'h':
			printf("%s", usage);
			return 1;
		default:
			fprintf(stderr, "%s", usage);
			return -EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * One interval: BEFORE and AFTER trees, or --before DIR then the root, or
 * the root sampled twice interval_ms apart. The topology comes from the
 * AFTER side (the root). Prints its own errors; returns 0 or -1.
 */
static int measure(const struct args *a, const char *before, const char *after, struct snapshot *s0,
		   struct snapshot *s1, struct metrics *m)
{
	uint64_t itv = 0;
	int r;

	if (before) {
		r = snapshot_load_tree(before, s0);
		report_sources(s0, before);
		if (r < 0) {
			cli_error(before, "cannot read the tree: %s", strerror(-r));
			return -1;
		}
		r = snapshot_load_tree(after ? after : "/", s1);
		report_sources(s1, after);
		if (r < 0) {
			cli_error(after ? after : "/", "cannot read: %s", strerror(-r));
			return -1;
		}
		itv = a->o.interval_ms ? (uint64_t)(a->o.interval_ms + 5) / 10
				       : metrics_interval_cs(s0, s1);
		if (itv == 0) {
			cli_error("advise", "no interval: /proc/uptime of the second sample is not "
					    "later than the first's; give --interval MS");
			return -1;
		}
	} else {
		struct snapshot_collector c;

		r = snapshot_collector_open(after, &c);
		if (r < 0) {
			cli_error(after ? after : "/", "%s", strerror(-r));
			return -1;
		}
		r = snapshot_collector_sample(&c, s0);
		if (r >= 0) {
			cli_sleep_ms(a->o.interval_ms ? a->o.interval_ms : 1000);
			r = snapshot_collector_sample(&c, s1);
		}
		snapshot_collector_close(&c);
		report_sources(s1, NULL);
		if (r < 0) {
			cli_error("sample", "%s", strerror(-r));
			return -1;
		}
		itv = cli_live_interval_cs(s0, s1);
	}
	r = metrics_compute(s0, s1, itv, m);
	if (r < 0) {
		cli_error("compute", "%s", strerror(-r));
		return -1;
	}
	return 0;
}

static int advise_args(const struct args *a, const char *before, const char *after,
		       struct advice *ret)
{
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	int r = -1;

	if (measure(a, before, after, &s0, &s1, &m) == 0) {
		r = suggest_advise_root(after, &s1, &m, ret);
		if (r < 0)
			cli_error("advise", "%s", strerror(-r));
	}
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
	return r < 0 ? -1 : 0;
}

static const char suggest_usage[] =
    "Usage: iotriage suggest [--json] [--socket PATH]\n"
    "       iotriage suggest [--json] [--interval MS] [--root DIR] [--before DIR]\n"
    "       iotriage suggest BEFORE AFTER [--json]\n"
    "Print findings and suggestions, each with exact commands and their undo: those\n"
    "of iotriaged's latest sample when it answers (--socket, else the default socket),\n"
    "else measured here over one interval (default 1000 ms) with the IRQ/device topology.\n"
    "  --socket PATH  this daemon only\n"
    "  --before DIR   first sample from a recorded tree, second from the root\n";

struct args;
static int daemon_route(const struct args *a, struct daemon_conn *ret, const char **ret_path);
static int daemon_suggest(struct daemon_conn *c, const char *path, bool json, bool fallback);

int cmd_suggest(int argc, char **argv)
{
	struct args a = { 0 };
	struct advice adv = { 0 };
	struct strbuf sb = { 0 };
	json_object *doc;
	const char *before, *after;
	int r;

	r = parse(argc, argv, suggest_usage, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (argc - optind == 2) {
		if (a.o.root || a.before) {
			cli_error("suggest", "BEFORE AFTER are the roots: no --root or --before");
			return EXIT_USAGE;
		}
		before = argv[optind];
		after = argv[optind + 1];
	} else if (argc == optind) {
		before = a.before;
		after = a.o.root;
	} else {
		fprintf(stderr, "%s", suggest_usage);
		return EXIT_USAGE;
	}
	/* the daemon's latest sample when it runs (--socket, or the default
	 * socket answers and nothing here asks for a measurement of our own) */
	if (a.o.socket || (!before && !after && !a.o.interval_ms && !a.state_dir)) {
		struct daemon_conn c;
		const char *path;
		int k = daemon_route(&a, &c, &path);

		if (k < 0)
			return EXIT_FAIL;
		if (k > 0) {
			r = daemon_suggest(&c, path, a.o.json, !a.o.socket);
			daemon_conn_close(&c);
			if (r >= 0)
				return r;
		}
	}
	if (advise_args(&a, before, after, &adv) < 0)
		return EXIT_FAIL;
	/* one printer: the advice goes through the JSON a sample carries */
	sb_putc(&sb, '{');
	encode_advice(&sb, &adv);
	sb.len--; /* the trailing comma */
	sb_putc(&sb, '}');
	doc = sb.err ? NULL : json_tokener_parse(sb_cstr(&sb));
	if (!doc) {
		cli_error("encode", "%s", strerror(sb.err ? -sb.err : ENOMEM));
		r = EXIT_FAIL;
	} else {
		r = print_doc(doc, a.o.json, "suggest");
	}
	json_object_put(doc);
	sb_free(&sb);
	advice_free(&adv);
	if (fflush(stdout) != 0)
		r = EXIT_FAIL;
	return r;
}

static int open_state(const struct args *a, struct root *r)
{
	char why[600];
	int e, fd;

	e = root_open(a->o.root, r);
	if (e < 0) {
		cli_error(a->o.root ? a->o.root : "/", "%s", strerror(-e));
		return -1;
	}
	fd = apply_state_open(r, a->state_dir, why, sizeof(why));
	if (fd < 0) {
		char path[4096];

		if (a->state_dir)
			snprintf(path, sizeof(path), "%s", a->state_dir);
		else
			root_display(r, APPLY_STATE_DIR, path, sizeof(path));
		cli_error(path, "undo journal directory: %s", why);
		root_close(r);
		return -1;
	}
	return fd;
}

/* ---- through iotriaged ---- */

/*
 * Writes req (one line), reads one reply line into sb (without its newline):
 * 0 or daemon_conn_line's -errno. No pushed events come on these connections:
 * nothing is subscribed.
 */
static int daemon_exchange(struct daemon_conn *c, const char *req, struct strbuf *sb)
{
	char *line;
	size_t len;
	int r;

	r = daemon_conn_send(c, req, strlen(req));
	if (r == 0)
		r = daemon_conn_line(c, IOT_PROTO_MAX_REPLY, IOT_PROTO_CLIENT_TIMEOUT_MS, &line,
				     &len);
	if (r < 0)
		return r;
	sb_reset(sb);
	sb_append(sb, line, len);
	return sb->err;
}

/*
 * The hello exchange: 0, the transport's -errno (why untouched), or -EPROTO
 * with the daemon's reply in why (a daemon of another protocol version says
 * so, then closes).
 */
static int daemon_hello(struct daemon_conn *c, char *why, size_t why_size)
{
	struct strbuf sb = { 0 };
	json_object *root, *ok;
	char req[64];
	int r;

	snprintf(req, sizeof(req), "{\"cmd\":\"hello\",\"version\":%d}\n", IOT_PROTOCOL_VERSION);
	r = daemon_exchange(c, req, &sb);
	if (r < 0) {
		sb_free(&sb);
		return r;
	}
	root = json_tokener_parse(sb_cstr(&sb));
	if (!root || !json_object_object_get_ex(root, "ok", &ok) || !json_object_get_boolean(ok)) {
		/* quoted, cut to what the caller shows: 4 KiB of a refusal */
		snprintf(why, why_size, "%.4096s", sb_cstr(&sb));
		r = -EPROTO;
	}
	json_object_put(root);
	sb_free(&sb);
	return r;
}

int suggest_daemon_sample(struct daemon_conn *c, struct strbuf *ret_reply, json_object **ret_root,
			  char *why, size_t why_size)
{
	static const char snap[] = "{\"cmd\":\"snapshot\"}\n";
	struct strbuf sb = { 0 };
	json_object *root = NULL, *ok, *sample, *v;
	const char *step = "hello";
	char refused[4200], err[96];
	int r;

	r = daemon_hello(c, refused, sizeof(refused));
	if (r == -EPROTO) {
		snprintf(why, why_size, "hello: %s", refused);
		return r;
	}
	if (r == 0) {
		step = "snapshot";
		r = daemon_exchange(c, snap, &sb);
	}
	if (r == 0) {
		root = json_tokener_parse(sb_cstr(&sb));
		if (!root || !json_object_object_get_ex(root, "ok", &ok))
			r = -EPROTO;
	}
	if (r < 0) {
		snprintf(why, why_size, "%s: %s", step,
			 r == -EPROTO ? "malformed reply"
				      : daemon_conn_strerror(r, err, sizeof(err)));
		goto fail;
	}
	if (!json_object_get_boolean(ok) || !json_object_object_get_ex(root, "sample", &sample) ||
	    !json_object_is_type(sample, json_type_object)) {
		if (json_object_object_get_ex(root, "error", &v) &&
		    json_object_object_get_ex(v, "message", &v))
			snprintf(why, why_size, "%s", json_object_get_string(v));
		else
			snprintf(why, why_size, "snapshot refused without a reason");
		r = -EPROTO;
		goto fail;
	}
	*ret_reply = sb;
	*ret_root = root;
	return 0;
fail:
	json_object_put(root);
	sb_free(&sb);
	return r;
}

int suggest_daemon_apply(struct daemon_conn *c, const char *id, bool undo,
			 const struct model_suggestion *shown, char *ret_msg, size_t size)
{
	const char *what = undo ? "undo" : "apply";
	struct strbuf sb = { 0 }, req = { 0 };
	json_object *root = NULL, *ok, *v, *err;
	char refused[4200], e[96];
	int r;

	r = daemon_hello(c, refused, sizeof(refused));
	if (r < 0) {
		snprintf(ret_msg, size, "hello failed: %s",
			 r == -EPROTO ? refused : daemon_conn_strerror(r, e, sizeof(e)));
		return r;
	}
	sb_printf(&req, "{\"cmd\":\"%s\"", id ? what : "undo");
	if (id) {
		sb_puts(&req, ",\"suggestion\":");
		sb_json_str(&req, id);
	}
	if (id && !undo && shown && shown->nwrites) {
		/* what the screen showed: the daemon writes that or nothing */
		sb_puts(&req, ",\"writes\":[");
		for (size_t i = 0; i < shown->nwrites; i++) {
			sb_puts(&req, i ? ",{\"path\":" : "{\"path\":");
			sb_json_str(&req, shown->writes[i].path);
			sb_puts(&req, ",\"value\":");
			sb_json_str(&req, shown->writes[i].value);
			sb_putc(&req, '}');
		}
		sb_putc(&req, ']');
	}
	sb_puts(&req, "}\n");
	r = req.err ? -ENOMEM : daemon_exchange(c, sb_cstr(&req), &sb);
	sb_free(&req);
	if (r == 0) {
		root = json_tokener_parse(sb_cstr(&sb));
		if (!root || !json_object_object_get_ex(root, "ok", &ok))
			r = -EPROTO;
	}
	sb_free(&sb);
	if (r < 0) {
		snprintf(ret_msg, size, "%s: %s", what,
			 r == -EPROTO ? "malformed reply" : daemon_conn_strerror(r, e, sizeof(e)));
		json_object_put(root);
		return r;
	}
	ret_msg[0] = '\0';
	if (json_object_get_boolean(ok)) {
		if (json_object_object_get_ex(root, "message", &v))
			snprintf(ret_msg, size, "%s", json_object_get_string(v));
		r = 0;
	} else {
		if (json_object_object_get_ex(root, "error", &err) &&
		    json_object_object_get_ex(err, "message", &v))
			snprintf(ret_msg, size, "%s", json_object_get_string(v));
		r = 1;
	}
	json_object_put(root);
	return r;
}

/*
 * apply (id != NULL, undo false), undo ID, or undo all (id NULL) through the
 * daemon on c (at path). Prints the result; returns an exit code.
 */
static int daemon_apply(struct daemon_conn *c, const char *path, const char *what, const char *id,
			bool undo)
{
	char msg[4096];
	int r;

	r = suggest_daemon_apply(c, id, undo, NULL, msg, sizeof(msg));
	if (r < 0) {
		cli_error(path, "%s", msg);
		return EXIT_FAIL;
	}
	if (r > 0) {
		if (msg[0])
			cli_error(what, "%s (iotriaged)", msg);
		else
			cli_error(what, "iotriaged refused without a reason");
		return EXIT_FAIL;
	}
	if (msg[0])
		printf("%s\n", msg);
	return EXIT_OK;
}

/*
 * The daemon route: --socket PATH, or (with none of --root, --before,
 * --state-dir, which name an embedded setup) the default socket when it
 * answers. Returns 1 with *ret connected to *ret_path, 0 for "embedded",
 * or -1 after printing an error (also when something that is neither root
 * nor us answers on the default socket: never fall back past an impostor).
 */
static int daemon_route(const struct args *a, struct daemon_conn *ret, const char **ret_path)
{
	static char path[108];
	char why[DAEMON_CONN_WHY_MAX];
	int r;

	if (a->o.socket) {
		if (a->o.root || a->before || a->state_dir) {
			cli_error("--socket",
				  "the daemon uses its own root and journal: no --root, "
				  "--before or --state-dir with it");
			return -1;
		}
		r = daemon_conn_open(a->o.socket, ret, why, sizeof(why));
		if (r < 0) {
			cli_error(a->o.socket, "%s", why);
			return -1;
		}
		*ret_path = a->o.socket;
		return 1;
	}
	if (a->o.root || a->before || a->state_dir)
		return 0;
	snprintf(path, sizeof(path), "%s", IOT_PROTO_SYSTEM_SOCKET);
	r = daemon_conn_open(path, ret, why, sizeof(why));
	if (r < 0 && r != -EPERM && iot_proto_default_socket(path, sizeof(path)) == 0 &&
	    strcmp(path, IOT_PROTO_SYSTEM_SOCKET) != 0)
		r = daemon_conn_open(path, ret, why, sizeof(why));
	if (r == -EPERM) {
		cli_error(path, "%s", why);
		return -1;
	}
	if (r < 0)
		return 0;
	*ret_path = path;
	return 1;
}

/*
 * suggest from iotriaged's latest sample on c (at path): what the daemon
 * measured, over its own interval, on its own topology. Returns an exit
 * code, or -1 when the sample carries no advice and fallback allows
 * measuring here.
 */
static int daemon_suggest(struct daemon_conn *c, const char *path, bool json, bool fallback)
{
	struct strbuf reply = { 0 };
	json_object *root, *sample = NULL, *v;
	char why[SUGGEST_WHY_MAX];
	int r;

	r = suggest_daemon_sample(c, &reply, &root, why, sizeof(why));
	if (r < 0) {
		cli_error(path, "%s", why);
		return EXIT_FAIL;
	}
	sb_free(&reply);
	json_object_object_get_ex(root, "sample", &sample);
	if (!json_object_object_get_ex(sample, "findings", &v)) {
		json_object_put(root);
		if (fallback) {
			fprintf(stderr, "iotriage: note: iotriaged's samples carry no advice "
					"(--core-only, or its first sample); measuring here\n");
			return -1;
		}
		cli_error("iotriaged", "its samples carry no advice (started with --core-only, or "
				       "only one sample yet)");
		return EXIT_FAIL;
	}
	r = print_doc(sample, json, "iotriaged");
	json_object_put(root);
	return r;
}

static bool may_write(const struct args *a)
{
	/* a recorded tree under --root is the user's own files; the live
	 * kernel's /proc/irq is root's */
	if (a->o.root || geteuid() == 0)
		return true;
	cli_error("apply", "changing IRQ affinity and queue settings needs root: run with sudo");
	return false;
}

static const char apply_usage[] =
    "Usage: iotriage apply ID [--socket PATH]\n"
    "       iotriage apply ID [--root DIR] [--state-dir DIR] [--before DIR] [--interval MS]\n"
    "Measure again, and if suggestion ID still stands, write it, verify it and\n"
    "journal its undo (default /var/lib/iotriage). Undo with: iotriage undo ID.\n"
    "Through iotriaged when its socket answers (or --socket), else embedded (root).\n";

int cmd_apply(int argc, char **argv)
{
	struct args a = { 0 };
	struct advice adv = { 0 };
	struct apply_result res;
	const struct suggestion *s;
	struct root root;
	struct daemon_conn c;
	const char *path;
	int r, fd, ret = EXIT_FAIL;

	r = parse(argc, argv, apply_usage, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (argc - optind != 1) {
		fprintf(stderr, "%s", apply_usage);
		return EXIT_USAGE;
	}
	r = daemon_route(&a, &c, &path);
	if (r < 0)
		return EXIT_FAIL;
	if (r > 0) {
		ret = daemon_apply(&c, path, "apply", argv[optind], false);
		daemon_conn_close(&c);
		return ret;
	}
	if (!may_write(&a))
		return EXIT_FAIL;
	if (advise_args(&a, a.before, a.o.root, &adv) < 0)
		return EXIT_FAIL;
	s = advice_suggestion(&adv, argv[optind]);
	if (!s) {
		cli_error(argv[optind],
			  "no such suggestion now (%zu suggested now): run iotriage suggest",
			  adv.nsuggestions);
		goto out;
	}
	fd = open_state(&a, &root);
	if (fd < 0)
		goto out;
	{
		struct strbuf sb = { 0 };

		advise_commands(s, false, &sb);
		printf("%s", sb.err ? "" : sb_cstr(&sb));
		sb_free(&sb);
	}
	r = apply_suggestion(&root, fd, s, &res);
	close(fd);
	root_close(&root);
	if (r < 0) {
		cli_error("apply", "%s", res.message);
		goto out;
	}
	printf("%s\n", res.message);
	ret = EXIT_OK;
out:
	advice_free(&adv);
	return ret;
}

static const char undo_usage[] =
    "Usage: iotriage undo [ID] [--socket PATH | --root DIR] [--state-dir DIR]\n"
    "Restore what `iotriage apply ID` changed; without ID, every "
    "applied suggestion, newest first.\n";

/* Undoes id through the journal at fd, saying what was restored or why
 * not: an exit code. */
static int undo_one(const struct root *root, int fd, const char *id)
{
	struct apply_result res;

	if (apply_undo(root, fd, id, &res) < 0) {
		cli_error("undo", "%s", res.message);
		return EXIT_FAIL;
	}
	printf("%s\n", res.message);
	return EXIT_OK;
}

int cmd_undo(int argc, char **argv)
{
	struct args a = { 0 };
	char(*ids)[ADV_ID_MAX] = NULL;
	struct root root;
	struct daemon_conn c;
	const char *path;
	int r, fd, n, ret = EXIT_OK;

	r = parse(argc, argv, undo_usage, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (argc - optind > 1) {
		fprintf(stderr, "%s", undo_usage);
		return EXIT_USAGE;
	}
	r = daemon_route(&a, &c, &path);
	if (r < 0)
		return EXIT_FAIL;
	if (r > 0) {
		ret =
		    daemon_apply(&c, path, "undo", argc - optind == 1 ? argv[optind] : NULL, true);
		daemon_conn_close(&c);
		return ret;
	}
	if (!may_write(&a))
		return EXIT_FAIL;
	fd = open_state(&a, &root);
	if (fd < 0)
		return EXIT_FAIL;
	if (argc - optind == 1) {
		ret = undo_one(&root, fd, argv[optind]);
		goto out;
	}
	ids = calloc(APPLY_MAX_WRITES, sizeof(*ids));
	if (!ids) {
		cli_error("undo", "%s", strerror(ENOMEM));
		ret = EXIT_FAIL;
		goto out;
	}
	n = apply_list(fd, ids, APPLY_MAX_WRITES);
	if (n < 0) {
		cli_error("undo", "cannot list the journal: %s", strerror(-n));
		ret = EXIT_FAIL;
		goto out;
	}
	if (n == 0)
		printf("Nothing to undo.\n");
	for (int i = 0; i < n; i++)
		if (undo_one(&root, fd, ids[i]) != EXIT_OK)
			ret = EXIT_FAIL;
out:
	free(ids);
	close(fd);
	root_close(&root);
	return ret;
}
