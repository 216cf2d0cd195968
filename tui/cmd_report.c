// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage report: the incident report of a window (doc/report.md), one
 * self-contained HTML page or a one-page text summary, from a flight
 * recording (replayed through the same sampler as `replay --json`) or from
 * a daemon's history over its socket. Both give sample documents; the page
 * is drawn from them (report_data.c, report_svg.c, report_html.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "daemon_conn.h"
#include "clock.h"
#include "json_get.h"
#include "iotriage/protocol.h"
#include "rec_file.h"
#include "report_page.h"
#include "sampler.h"

static const char report_usage[] =
    "Usage: iotriage report [DIR|FILE | --socket PATH] [--from TIME] [--to TIME]\n"
    "                       [-o FILE] [--text] [--root DIR]\n"
    "The incident report of a window: one self-contained HTML page (inline SVG,\n"
    "no network) with the findings' timeline, each busy disk's util, aqu-sz and\n"
    "awaits (latency heat map with --trace), the cores' irq+soft, pressure, the\n"
    "worst span's culprits and the suggestions' commands; or with --text a\n"
    "one-page summary. From a flight recording (default " CLI_RECORD_DIR ")\n"
    "or the history of the iotriaged on --socket. TIME as replay takes it.\n"
    "  --from T --to T  the window (default: all of it)\n"
    "  -o, --output FILE  write there (default: standard output)\n"
    "  --text           the text summary instead of the page\n"
    "  --socket PATH    iotriaged's history instead of a recording\n"
    "  --root DIR       the advisor's topology for a recording older than version 3\n";

enum { OPT_FROM = CLI_OPT_NEXT, OPT_TO, OPT_TEXT };

struct report_args {
	const char *path;
	struct cli_opts o; /* --socket, --root */
	const char *out;
	int64_t from, to, now;
	bool text;
};

static int report_parse(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "text", no_argument, NULL, OPT_TEXT },
		{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":o:h", opts, &a->o)) != -1) {
		switch (c) {
		case OPT_FROM:
		case OPT_TO:
			if (cli_parse_time(optarg, a->now, c == OPT_FROM ? &a->from : &a->to) < 0) {
				cli_error(c == OPT_FROM ? "--from" : "--to",
					  "'%s' is not a time (try --help)", optarg);
				return -EXIT_USAGE;
			}
			break;
		case OPT_TEXT:
			a->text = true;
			break;
		case 'o':
			a->out = optarg;
			break;
		default: /* -h, a missing value, an unknown option */
			return cli_opt_other(c, argv, report_usage);
		}
	}
	if (argc - optind > 1 || (argc - optind == 1 && a->o.socket) || a->from > a->to) {
		fprintf(stderr, "%s", report_usage);
		return -EXIT_USAGE;
	}
	if (argc - optind == 1)
		a->path = argv[optind];
	return 0;
}

/* One document into d, when in the window; 0 or -errno */
static int take(struct report_data *d, const struct report_args *a, struct json_object *doc)
{
	int64_t ts;

	if (mj_int(doc, "timestamp_ms", &ts) <= 0 || ts * 1000000 < a->from || ts > a->to / 1000000)
		return 0;
	int r = rd_add(d, doc);

	return r < 0 ? r : 0;
}

/* Why reading the window stopped, said once */
static void report_fail(const struct report_data *d, int r)
{
	if (r == -E2BIG)
		cli_error("report",
			  "the window holds more samples than fit in %zu MiB (%zu read): "
			  "narrow it with --from/--to",
			  RD_BYTES_MAX >> 20, d->n);
	else
		cli_error("report", "%s", strerror(-r));
}

/* The recording's samples of the window, replayed */
static int from_recording(const struct report_args *a, struct report_data *d)
{
	struct sampler_replay *rp;
	const struct recframe *f;
	struct strbuf scratch = { 0 };
	char why[512];
	int r;

	r = sampler_replay_open(a->path, &rp, why, sizeof(why));
	if (r < 0) {
		cli_error("report", "%s", why);
		return r;
	}
	r = sampler_replay_advise(rp, a->o.root);
	if (r < 0) {
		cli_error("--root", "%s: %s", a->o.root ? a->o.root : "/", strerror(-r));
		sampler_replay_close(rp);
		return r;
	}
	if (a->from != INT64_MIN)
		sampler_replay_seek(rp, a->from, false);
	while ((r = sampler_replay_next(rp, &f)) > 0) {
		size_t len;
		const char *doc = sampler_json(sampler_replay_sampler(rp), &len);

		cli_print_problems("report", sampler_replay_problems(rp));
		if (f->real_ns > a->to)
			break;
		if (!doc || f->real_ns < a->from)
			continue;
		r = rd_add_text(d, doc, len, &scratch);
		if (r < 0)
			break;
	}
	sb_free(&scratch);
	cli_print_problems("report", sampler_replay_problems(rp));
	sampler_replay_close(rp);
	if (r < 0)
		report_fail(d, r);
	return r;
}

/* The daemon's history of the window (with --record, reaching into its
 * recording, at most 900 recorded samples: doc/protocol.md) */
static int from_socket(const struct report_args *a, struct report_data *d)
{
	struct daemon_conn c;
	struct json_object *root = NULL, *arr;
	char why[DAEMON_CONN_WHY_MAX], req[96], *line;
	size_t len, n;
	int r;

	r = daemon_conn_open(a->o.socket, &c, why, sizeof(why));
	if (r < 0) {
		cli_error("report", "%s: %s", a->o.socket, why);
		return r;
	}
	if (a->from != INT64_MIN)
		snprintf(req, sizeof(req), "{\"cmd\":\"history\",\"seconds\":%lld}\n",
			 (long long)((a->now - a->from) / 1000000000 + 1));
	else
		snprintf(req, sizeof(req), "{\"cmd\":\"history\",\"since\":0}\n");
	r = daemon_conn_send(&c, req, strlen(req));
	if (r == 0)
		r = daemon_conn_line(&c, IOT_PROTO_MAX_HISTORY_REPLY,
				     IOT_PROTO_CLIENT_TIMEOUT_MS * 3, &line, &len);
	if (r == 0 && mj_parse(line, len, &root) < 0)
		r = -EPROTO;
	arr = mj_get(root, "samples");
	if (r == 0 && !json_object_is_type(arr, json_type_array)) {
		struct json_object *msg = mj_get(mj_get(root, "error"), "message");

		cli_error("report", "%s: history refused: %s", a->o.socket,
			  msg ? json_object_get_string(msg) : "no samples in the reply");
		r = -EPROTO;
	} else if (r < 0) {
		cli_error("report", "%s: history: %s", a->o.socket,
			  r == -EPROTO ? "malformed reply"
				       : daemon_conn_strerror(r, why, sizeof(why)));
	}
	n = r == 0 ? json_object_array_length(arr) : 0;
	for (size_t i = 0; i < n && r == 0; i++)
		r = take(d, a, json_object_array_get_idx(arr, i));
	if (n && r < 0)
		report_fail(d, r);
	json_object_put(root);
	daemon_conn_close(&c);
	return r;
}

/* Writes out to a->out (created 0644, replaced) or stdout */
static int write_out(const struct report_args *a, const struct strbuf *out)
{
	FILE *f = a->out ? fopen(a->out, "we") : stdout;
	int bad;

	if (!f) {
		cli_error(a->out, "%s", strerror(errno));
		return EXIT_FAIL;
	}
	bad = fwrite(out->buf, 1, out->len, f) != out->len;
	if (a->out)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	if (bad) {
		cli_error(a->out ? a->out : "stdout", "%s", strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .path = CLI_RECORD_DIR, .from = INT64_MIN, .to = INT64_MAX };
	struct report_data d = { 0 };
	struct strbuf out = { 0 };
	int r, ret = EXIT_FAIL;

	a.now = clock_ns(CLOCK_REALTIME);
	r = report_parse(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	r = a.o.socket ? from_socket(&a, &d) : from_recording(&a, &d);
	if (r < 0)
		goto out;
	if (!d.n) {
		cli_error("report", "%s: no sample %s", a.o.socket ? a.o.socket : a.path,
			  a.from != INT64_MIN || a.to != INT64_MAX ? "in that time range"
								   : "at all");
		goto out;
	}
	r = a.text ? report_text(&out, &d, a.o.socket ? a.o.socket : a.path)
		   : report_html(&out, &d, a.o.socket ? a.o.socket : a.path);
	if (r < 0) {
		cli_error("report", "%s", strerror(-r));
		goto out;
	}
	ret = write_out(&a, &out);
out:
	sb_free(&out);
	rd_free(&d);
	return ret;
}
