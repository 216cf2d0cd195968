// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage replay: a flight recording (iotriaged --record) read back through
 * the same parsers, metrics and encoder: NDJSON documents of a time range,
 * tables, or the live view's panels on recorded data (ui.c). Also the time
 * syntax shared with compute --recording.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "rec_file.h"
#include "rec_payload.h"
#include "sampler.h"
#include "ui.h"

int cli_parse_time(const char *s, int64_t now_ns, int64_t *ret_ns)
{
	static const char *const fmts[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
					    "%Y-%m-%d %H:%M",	 "%Y-%m-%dT%H:%M",
					    "%H:%M:%S",		 "%H:%M" };
	struct tm tm;
	char *end;
	time_t t;

	if (s[0] == '@') { /* seconds since the epoch, as date(1) takes them; a fraction too */
		long long v, frac = 0, scale = 1000000000;

		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || end == s + 1 || v < 0 || v > INT64_MAX / 1000000000 - 1)
			return -EINVAL;
		if (*end == '.')
			for (end++; *end >= '0' && *end <= '9'; end++)
				if (scale > 1) {
					scale /= 10;
					frac += (*end - '0') * scale;
				}
		if (*end)
			return -EINVAL;
		*ret_ns = v * 1000000000 + frac;
		return 0;
	}
	if (s[0] == '-') { /* -90s, -15m, -2h, -1d: before now */
		long long v, mul = 1;

		errno = 0;
		v = strtoll(s + 1, &end, 10);
		if (errno || end == s + 1 || v < 0)
			return -EINVAL;
		if (*end == 's' || *end == 'm' || *end == 'h' || *end == 'd') {
			mul = *end == 'm' ? 60 : *end == 'h' ? 3600 : *end == 'd' ? 86400 : 1;
			end++;
		}
		if (*end || v > 3650LL * 86400 / mul)
			return -EINVAL;
		*ret_ns = now_ns - v * mul * 1000000000;
		return 0;
	}
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		time_t now = (time_t)(now_ns / 1000000000);

		memset(&tm, 0, sizeof(tm));
		if (i >= 4) { /* a time of day: today's, or yesterday's if still to come */
			localtime_r(&now, &tm);
			tm.tm_sec = 0;
		}
		end = strptime(s, fmts[i], &tm);
		if (!end || *end)
			continue;
		tm.tm_isdst = -1;
		t = mktime(&tm);
		if (t == (time_t)-1)
			return -EINVAL;
		if (i >= 4 && t > now)
			t -= 86400;
		*ret_ns = (int64_t)t * 1000000000;
		return 0;
	}
	return -EINVAL;
}

void cli_print_problems(const char *what, const char *lines)
{
	while (lines && *lines) {
		const char *nl = strchr(lines, '\n');
		int n = nl ? (int)(nl - lines) : (int)strlen(lines);

		fprintf(stderr, "iotriage: %s: %.*s\n", what, n, lines);
		lines += n + (nl ? 1 : 0);
	}
}

static const char replay_usage[] =
    "Usage: iotriage replay [DIR|FILE] [--at TIME | --from TIME [--to TIME]] [--json]\n"
    "                       [--step DUR] [--root DIR] [--core-only]\n"
    "Read a flight recording (iotriaged --record; default " CLI_RECORD_DIR ")\n"
    "back: the live view's panels on recorded data on a terminal (t/T or >/<\n"
    "next or previous sample, b jump to a time, i the interval, n the last\n"
    "sample), else tables, or with\n"
    "--json one document a line, the ones the daemon sent (doc/recording.md),\n"
    "findings recomputed for each interval.\n"
    "TIME: 'YYYY-MM-DD HH:MM[:SS]', 'HH:MM[:SS]' (the last such time), '@EPOCH'\n"
    "seconds (a fraction allowed: a document's timestamp_ms / 1000), or '-15m'\n"
    "(s, m, h, d before now).\n"
    "  --at TIME      the sample taken at TIME (the first at or after it)\n"
    "  --from T --to T  every sample from T to T (to: the end when absent)\n"
    "  --json         NDJSON documents instead of tables\n"
    "  --step DUR     each interval this long (10s, 1m, 10m; default: one sample)\n"
    "  --root DIR     the advisor's topology for a recording older than version 3 (default /)\n"
    "  --core-only    no findings in the documents: those of iotriaged --core-only\n";

enum { OPT_AT = CLI_OPT_NEXT, OPT_FROM, OPT_TO, OPT_STEP, OPT_CORE };

struct replay_args {
	const char *path;
	struct cli_opts o; /* --root (NULL: /), --json */
	int64_t at;	   /* --at when have_at */
	int64_t from;	   /* INT64_MIN: the start */
	int64_t to;	   /* INT64_MAX: the end */
	int64_t step;	   /* ns, 0: one sample */
	bool have_at;
	bool advise; /* no --core-only */
};

/* 0: go on; 1: --help printed; -EXIT_USAGE after its message. */
static int replay_parse(int argc, char **argv, struct replay_args *a)
{
	static const struct option opts[] = {
		{ "at", required_argument, NULL, OPT_AT },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "json", no_argument, NULL, 'j' },
		{ "step", required_argument, NULL, OPT_STEP },
		{ "root", required_argument, NULL, CLI_OPT_ROOT },
		{ "core-only", no_argument, NULL, OPT_CORE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int64_t now;
	int c;

	now = clock_ns(CLOCK_REALTIME);
	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":jh", opts, &a->o)) != -1) {
		int64_t *dst = c == OPT_AT ? &a->at : c == OPT_FROM ? &a->from : &a->to;

		switch (c) {
		case OPT_AT:
		case OPT_FROM:
		case OPT_TO:
			if (cli_parse_time(optarg, now, dst) < 0) {
				cli_error(argv[optind - 1] ? argv[optind - 2] : "replay",
					  "'%s' is not a time (try --help)", optarg);
				return -EXIT_USAGE;
			}
			a->have_at |= c == OPT_AT;
			break;
		case OPT_STEP: {
			char rel[32]; /* "10m" as "-10m": a duration before the epoch */

			snprintf(rel, sizeof(rel), "-%s", optarg);
			if (strlen(optarg) + 1 >= sizeof(rel) || optarg[0] == '-' ||
			    cli_parse_time(rel, 0, &a->step) < 0 ||
			    -a->step > 86400 * INT64_C(1000000000)) {
				cli_error("--step",
					  "'%s' is not a duration (10s, 1m, 10m; at most 1d)",
					  optarg);
				return -EXIT_USAGE;
			}
			a->step = -a->step;
			break;
		}
		case OPT_CORE:
			a->advise = false;
			break;
		default: /* -h, a missing value, an unknown option */
			return cli_opt_other(c, argv, replay_usage);
		}
	}
	if (argc - optind > 1 || (a->have_at && (a->from != INT64_MIN || a->to != INT64_MAX))) {
		fprintf(stderr, "%s", replay_usage);
		return -EXIT_USAGE;
	}
	if (argc - optind == 1)
		a->path = argv[optind];
	return 0;
}

/*
 * A core source the recording holds but that could not be decoded (past a
 * bound of doc/recording.md, or malformed), said once on stderr when its
 * reason first appears or changes: its documents say it every sample. A
 * source the payload does not hold ("not in the recording") is not news.
 */
static void replay_sources(const struct snapshot *cur, uint64_t id, char (*last)[IOT_REASON_MAX])
{
	for (int i = 0; i < SRC__COUNT; i++) {
		const struct src_status *st = &cur->status[i];

		if (!st->err || st->err == -ENODATA) {
			last[i][0] = '\0';
			continue;
		}
		if (strcmp(last[i], st->reason) == 0)
			continue;
		snprintf(last[i], IOT_REASON_MAX, "%s", st->reason);
		cli_error("replay", "sample %llu: %s unavailable: %s", (unsigned long long)id,
			  snapshot_source_name((enum src_id)i), st->reason);
	}
}

/* Prints the samples a asks for, as tables or documents; the exit code. */
static int replay_print(struct sampler_replay *rp, const struct replay_args *a)
{
	/* --at: the range of that one instant */
	int64_t from = a->have_at ? a->at : a->from, to = a->have_at ? a->at : a->to;
	const struct recframe *f;
	unsigned long long n = 0;
	unsigned keep = 1; /* the resolution said last: one sample in keep */
	char last[SRC__COUNT][IOT_REASON_MAX] = { { 0 } };
	int r;

	sampler_replay_step(rp, a->step);
	if (from != INT64_MIN)
		sampler_replay_seek(rp, from, false);
	while ((r = sampler_replay_next(rp, &f)) > 0) {
		struct sampler *s = sampler_replay_sampler(rp);
		const char *doc;
		size_t len;

		cli_print_problems("replay", sampler_replay_problems(rp));
		if (f->real_ns > to && !(a->have_at && n == 0))
			break;
		if (f->keep_every != keep) {
			/* compacted data: their intervals are keep_every samples long */
			if (f->keep_every > 1)
				fprintf(stderr,
					"iotriage: replay: from sample %llu: compacted, one sample "
					"in %u kept (every %.3g s)\n",
					(unsigned long long)f->id, f->keep_every,
					(double)f->keep_every * f->interval_ms / 1000.0);
			else
				fprintf(stderr,
					"iotriage: replay: from sample %llu: every sample (every "
					"%.3g s)\n",
					(unsigned long long)f->id, f->interval_ms / 1000.0);
			keep = f->keep_every;
		}
		replay_sources(sampler_current(s), f->id, last);
		doc = sampler_json(s, &len);
		if (!doc)
			continue;
		if (a->o.json) {
			fwrite(doc, 1, len, stdout);
			fputc('\n', stdout);
		} else {
			time_t t = (time_t)(f->real_ns / 1000000000);
			struct tm tm;
			char when[64];

			localtime_r(&t, &tm);
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
			printf("%s%s  sample %llu  %s\n", n ? "\n" : "", when,
			       (unsigned long long)f->id, f->host);
			if (sampler_metrics(s))
				report_print(stdout, sampler_current(s), sampler_metrics(s), false);
			else
				printf("(the first sample of a run: no interval to rate)\n");
		}
		n++;
		if (a->have_at)
			break;
	}
	cli_print_problems("replay", sampler_replay_problems(rp));
	if (sampler_trace_rows_dropped(sampler_replay_sampler(rp)))
		fprintf(stderr,
			"iotriage: replay: %llu trace rows left out as impossible (a damaged "
			"recording: trace.rows_dropped)\n",
			(unsigned long long)sampler_trace_rows_dropped(sampler_replay_sampler(rp)));
	if (r < 0) {
		cli_error("replay", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	if (!n) {
		cli_error("replay", "%s: no recorded sample %s", a->path,
			  a->have_at || from != INT64_MIN ? "in that time range" : "at all");
		return EXIT_FAIL;
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_args a = {
		.path = CLI_RECORD_DIR,
		.at = INT64_MIN,
		.from = INT64_MIN,
		.to = INT64_MAX,
		.advise = true,
	};
	struct sampler_replay *rp = NULL;
	char why[512];
	int r;

	r = replay_parse(argc, argv, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (!a.o.json && isatty(STDOUT_FILENO))
		return ui_replay(a.path, a.have_at ? a.at : a.from, a.o.root, a.step);
	cli_escape_stdio(); /* tables and documents: as every subcommand's */
	r = sampler_replay_open(a.path, &rp, why, sizeof(why));
	if (r < 0) {
		cli_error("replay", "%s", why);
		return EXIT_FAIL;
	}
	r = a.advise ? sampler_replay_advise(rp, a.o.root) : 0;
	if (r < 0) {
		cli_error("--root", "%s: %s", a.o.root ? a.o.root : "/", strerror(-r));
		sampler_replay_close(rp);
		return EXIT_FAIL;
	}
	r = replay_print(rp, &a);
	sampler_replay_close(rp);
	return r;
}

/* The topology recorded in a frame's payload: 1 (*ret set), 0 none, -errno. */
static int recorded_topology(const struct recframe *f, struct topology *ret)
{
	const char *p;
	size_t n;
	int32_t err;
	int r;

	r = rec_payload_find(f->payload, f->len, REC_TAG_TOPOLOGY, &p, &n, &err);
	if (r <= 0 || err < 0)
		return r < 0 ? r : 0;
	r = rec_payload_unpack_topology(p, n, ret);
	if (r < 0) {
		topology_free(ret);
		return r;
	}
	return 1;
}

int cli_recording_snapshot(const char *path, int64_t at_ns, struct snapshot *ret, char *ret_boot,
			   size_t boot_size, int64_t *ret_real, struct topology *ret_topo,
			   bool *ret_has_topo)
{
	struct sampler_replay *rp;
	const struct recframe *f;
	char why[512];
	int r;

	r = sampler_replay_open(path, &rp, why, sizeof(why));
	if (r < 0) {
		cli_error("compute", "%s", why);
		return r;
	}
	sampler_replay_seek(rp, at_ns, false);
	r = sampler_replay_next(rp, &f);
	cli_print_problems("compute", sampler_replay_problems(rp));
	if (r == 0) {
		cli_error("compute", "%s: no recorded sample at or after that time", path);
		r = -ENOENT;
	} else if (r > 0) {
		r = snapshot_copy(ret, sampler_current(sampler_replay_sampler(rp)));
		snprintf(ret_boot, boot_size, "%s", f->boot_id);
		*ret_real = f->real_ns;
		if (r >= 0 && ret_topo) {
			int t = recorded_topology(f, ret_topo);

			/* a damaged topology record: no advice, the numbers stand */
			if (t < 0)
				cli_error("compute", "the recorded topology: %s", strerror(-t));
			*ret_has_topo = t > 0;
		}
	}
	sampler_replay_close(rp);
	return r;
}
