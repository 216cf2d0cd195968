// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot, compute and capture: the one-shot subcommands over the core
 * library. Each parses its own options and owns its exit code.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "capture.h"
#include "cli.h"
#include "daemon_conn.h"
#include "clock.h"
#include "cmd_suggest.h"
#include "advise.h"
#include "encode.h"
#include "encode_trace.h"
#include "trace.h"
#include "diskstats.h"
#include "strbuf.h"
#include "text.h"

enum { OPT_ALL = CLI_OPT_NEXT, OPT_RECORDING, OPT_TRACE };

static const struct option common_opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "root", required_argument, NULL, CLI_OPT_ROOT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "socket", required_argument, NULL, CLI_OPT_SOCKET },
	{ "recording", required_argument, NULL, OPT_RECORDING },
	{ "trace", no_argument, NULL, OPT_TRACE },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

struct common_args {
	struct cli_opts o; /* --socket: snapshot only, a daemon's socket */
	bool all_disks;
	const char *recording;	   /* compute only: BEFORE and AFTER are instants of it */
	bool trace;		   /* snapshot only: the BPF tracing stage (doc/trace.md) */
	struct strbuf *trace_json; /* its "trace":{...}, section, put in the JSON */
	const struct trace_metrics *trace_m; /* ... and its tables' numbers */
};

static const char snapshot_usage[] =
    "Usage: iotriage snapshot [--interval MS] [--json] [--all] [--root DIR] [--trace]\n"
    "       iotriage snapshot --socket PATH --json\n"
    "Measure one interval (default 1000 ms) on the live host and print it.\n"
    "  --all          every device: partitions and never-used devices too\n"
    "  --socket PATH  instead, print the latest sample of the iotriaged at PATH\n"
    "                 as it sent it (JSON only: the tables are made from a\n"
    "                 measurement here)\n"
    "  --trace        also time per IRQ line and softirq vector and IO latency\n"
    "                 percentiles over the interval, from BPF (root; doc/trace.md):\n"
    "                 the JSON's \"trace\"\n";

static int parse_common(int argc, char **argv, const char *usage, struct common_args *a)
{
	int c;

	optind = 1;
	opterr = 0; /* our own message, in the iotriage: WHAT: WHY form */
	while ((c = cli_getopt(argc, argv, ":i:jh", common_opts, &a->o)) != -1) {
		switch (c) {
		case OPT_ALL:
			a->all_disks = true;
			break;
		case OPT_RECORDING:
			a->recording = optarg;
			break;
		case OPT_TRACE:
			/* a measurement of its own: compute and capture have none */
			if (usage != snapshot_usage) {
				cli_error("--trace", "only snapshot traces (a measurement of its "
						     "own)");
				return -EXIT_USAGE;
			}
			a->trace = true;
			break;
		default: /* -h, a missing value, an unknown option */
			return cli_opt_usage(c, argv, usage);
		}
	}
	return 0;
}

/* snapshot --trace without --json: softirq and hardirq time per CPU, the
 * device latency percentiles per disk and op. */
static void report_trace(FILE *f, const struct trace_metrics *m)
{
	fprintf(f, "\ntracing (us/s)\nCPU   ");
	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		fprintf(f, " %9s", trace_softirq_name(v));
	fprintf(f, " %9s\n", "hardirq");
	for (size_t c = 0; c < m->ncpu; c++) {
		fprintf(f, "%-6zu", c);
		for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
			fprintf(f, " %9.1f",
				m->on[TRACE_SOFTIRQ] ? m->soft_us_s[c * TRACE_NR_SOFTIRQS + v]
						     : 0.0);
		fprintf(f, " %9.1f\n", m->on[TRACE_HARDIRQ] ? m->hard_us_s[c] : 0.0);
	}
	if (!m->on[TRACE_BLOCK] || !m->ndisk)
		return;
	fprintf(f, "\n%-12s %-8s %8s %10s %10s %10s %10s %10s %8s\n", "device (us)", "op", "IOs",
		"p50", "p90", "p99", "p99.9", "max", "remote%");
	for (size_t i = 0; i < m->ndisk; i++) {
		const struct trace_disk_metrics *d = &m->disks[i];

		for (unsigned op = 0; op < TRACE_OP__COUNT; op++) {
			const struct trace_lat_metrics *l = &d->lat[op][TRACE_LAT_DEVICE];

			if (!d->has[op][TRACE_LAT_DEVICE] || !l->count)
				continue;
			fprintf(f, "%-12s %-8s %8llu %10.1f %10.1f %10.1f %10.1f %10.1f %8.1f\n",
				d->name[0] ? d->name : "?", trace_op_name(op),
				(unsigned long long)l->count, l->p50_us, l->p90_us, l->p99_us,
				l->p999_us, l->max_us,
				d->completed ? 100.0 * (double)d->remote / (double)d->completed
					     : 0);
		}
	}
}

/* The text report's first lines: the findings in rank order, one line
 * each (severity, subject, the proof, who), and where the fixes are. */
static void print_verdict(FILE *f, const struct advice *adv)
{
	if (!adv->nfindings) {
		fprintf(f, "findings: none: nothing stands out over this interval\n\n");
		return;
	}
	fprintf(f, "findings:\n");
	for (size_t i = 0; i < adv->nfindings; i++) {
		const struct finding *fd = &adv->findings[i];

		fprintf(f, "  %-8s %s: %s%s%s\n", advise_severity_name(fd->severity), fd->subject,
			fd->reason, fd->who[0] ? " — " : "", fd->who);
	}
	if (adv->nsuggestions)
		fprintf(f, "  %zu suggestion%s: iotriage suggest gives the commands and undo\n\n",
			adv->nsuggestions, adv->nsuggestions == 1 ? "" : "s");
	else
		fprintf(f, "  no suggestion: iotriage suggest says why\n\n");
}

/* topo: the topology recorded with compute --recording's AFTER, else NULL;
 * two instants of a recording without one get no advice rather than advice
 * on this host's topology of today. */
static int emit(const struct snapshot *cur, const struct metrics *m, const struct common_args *a,
		const char *mode, const char *topo_root, const struct topology *topo)
{
	char host[256] = "";
	struct advice adv = { 0 };
	bool has_adv = false;

	gethostname(host, sizeof(host) - 1);
	if (a->recording)
		topo_root = NULL;
	/* findings and suggestions from the topology of the same root */
	if (topo && advise_run(&(struct advise_input){ .cur = cur, .m = m, .t = topo }, &adv) == 0)
		has_adv = true;
	else if (topo_root && suggest_advise_root(topo_root, cur, m, &adv) == 0)
		has_adv = true;
	if (a->o.json) {
		struct strbuf sb = { 0 };
		struct encode_opts o = { .host = host, .mode = mode, .whole_only = !a->all_disks };

		o.advice = has_adv ? &adv : NULL;
		encode_sample(&sb, cur, m, &o);
		advice_free(&adv);
		/* the tracing stage's section, the document's last (as the sampler's) */
		if (a->trace_json && sb.len && sb.buf[sb.len - 1] == '}') {
			sb.len--;
			sb_putc(&sb, ',');
			sb_append(&sb, a->trace_json->buf, a->trace_json->len - 1);
			sb_putc(&sb, '}');
		}
		sb_putc(&sb, '\n');
		if (sb.err) {
			cli_error("encode", "%s", strerror(-sb.err));
			sb_free(&sb);
			return EXIT_FAIL;
		}
		fwrite(sb.buf, 1, sb.len, stdout);
		sb_free(&sb);
	} else {
		if (has_adv)
			print_verdict(stdout, &adv);
		advice_free(&adv);
		report_print(stdout, cur, m, a->all_disks);
		if (a->trace_m)
			report_trace(stdout, a->trace_m);
	}
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
}

/*
 * snapshot --socket: the daemon's latest sample, printed as the daemon
 * encoded it (the document of doc/json.md, mode "daemon"). Returns an exit
 * code; errors read "iotriage: snapshot: PATH: WHY". A program that accepts
 * and never answers, or answers without end, fails within the client's
 * limits (daemon_conn.h), so it cannot hang a script.
 */
static int snapshot_daemon(const char *path)
{
	/* protocol.h: the reply to a snapshot request without "id" */
	static const char pre[] = "{\"ok\":true,\"sample\":";
	const size_t pre_len = sizeof(pre) - 1;
	struct strbuf reply;
	struct daemon_conn c;
	json_object *root, *sample = NULL;
	char why[SUGGEST_WHY_MAX];
	int r;

	r = daemon_conn_open(path, &c, why, sizeof(why));
	if (r < 0) {
		cli_error("snapshot", "%s: %s", path, why);
		return EXIT_FAIL;
	}
	r = suggest_daemon_sample(&c, &reply, &root, why, sizeof(why));
	daemon_conn_close(&c);
	if (r < 0) {
		cli_error("snapshot", "%s: %s", path, why);
		return EXIT_FAIL;
	}
	/* as is: with no member besides "ok" and "sample", the bytes between
	 * the prefix and the closing brace are the daemon's document; a reply
	 * shaped otherwise is written again from its parse */
	if (json_object_object_length(root) == 2 && reply.len > pre_len + 1 &&
	    memcmp(reply.buf, pre, pre_len) == 0 && reply.buf[reply.len - 1] == '}') {
		fwrite(reply.buf + pre_len, 1, reply.len - pre_len - 1, stdout);
	} else {
		json_object_object_get_ex(root, "sample", &sample);
		fputs(json_object_to_json_string_ext(sample, JSON_C_TO_STRING_PLAIN |
								 JSON_C_TO_STRING_NOSLASHESCAPE),
		      stdout);
	}
	putchar('\n');
	json_object_put(root);
	sb_free(&reply);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
}

/* snapshot --trace: the tracing stage over the live kernel, or NULL with
 * why (IOT_REASON_MAX) set and said. */
static struct trace *snapshot_trace_open(const char *root, char *why, size_t why_size)
{
	struct trace *tr = NULL;

	/* the live kernel's tracepoints beside a tree's counters would mix hosts */
	if (root && strcmp(root, "/")) {
		snprintf(why, why_size, "--root %s: a tree has no tracepoints", root);
		fprintf(stderr, "iotriage: tracing: unavailable (%s)\n", why);
	} else if (trace_open(&(struct trace_opts){ .budget_pct = 0 }, &tr, why, why_size) < 0) {
		fprintf(stderr, "iotriage: tracing: unavailable (%s)\n", why);
	}
	return tr;
}

int cmd_snapshot(int argc, char **argv)
{
	struct common_args a = { 0 };
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	struct snapshot_collector c;
	struct trace *tr = NULL;
	struct trace_raw t0 = { 0 }, t1 = { 0 };
	struct trace_metrics tm = { 0 };
	struct strbuf tj = { 0 };
	char why[IOT_REASON_MAX];
	int r, ret = EXIT_FAIL;

	r = parse_common(argc, argv, snapshot_usage, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (optind != argc) {
		fprintf(stderr, "%s", snapshot_usage);
		return EXIT_USAGE;
	}
	if (a.o.socket) {
		if (a.o.root || a.o.interval_ms || a.all_disks || a.trace) {
			cli_error("--socket",
				  "the daemon samples with its own root, interval, "
				  "devices and tracing: no --root, --interval, --all or "
				  "--trace with it");
			return EXIT_USAGE;
		}
		if (!a.o.json) {
			cli_error("snapshot", "--socket needs --json: the tables are printed from "
					      "a measurement made here");
			return EXIT_USAGE;
		}
		return snapshot_daemon(a.o.socket);
	}
	if (!a.o.interval_ms)
		a.o.interval_ms = 1000;
	r = snapshot_collector_open(a.o.root, &c);
	if (r < 0) {
		cli_error(a.o.root ? a.o.root : "/", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	if (a.trace)
		tr = snapshot_trace_open(a.o.root, why, sizeof(why));
	r = snapshot_collector_sample(&c, &s0);
	if (r < 0) {
		report_sources(&s0, NULL);
		goto out;
	}
	if (tr && trace_read(tr, &t0) < 0)
		t0.valid = false;
	cli_sleep_ms(a.o.interval_ms);
	r = snapshot_collector_sample(&c, &s1);
	if (r < 0) {
		report_sources(&s1, NULL);
		goto out;
	}
	if (tr && trace_read(tr, &t1) < 0)
		t1.valid = false;
	if (a.trace) {
		bool ok = tr && metrics_trace_compute(&t0, &t1, &s1.disks, &tm) >= 0;

		encode_trace(&tj, tr ? NULL : why, &t1, ok ? &tm : NULL);
		a.trace_json = tj.err ? NULL : &tj;
		a.trace_m = ok ? &tm : NULL;
	}
	report_sources(&s1, NULL);
	r = metrics_compute(&s0, &s1, cli_live_interval_cs(&s0, &s1), &m);
	if (r < 0) {
		cli_error("compute", "%s", strerror(-r));
		goto out;
	}
	/* live: the advice from this host's topology, as suggest gives it */
	ret = emit(&s1, &m, &a, "live", a.o.root ? a.o.root : "/", NULL);
out:
	trace_close(tr);
	trace_raw_free(&t0);
	trace_raw_free(&t1);
	metrics_trace_free(&tm);
	sb_free(&tj);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
	snapshot_collector_close(&c);
	return ret;
}

static const char compute_usage[] =
    "Usage: iotriage compute BEFORE AFTER [--interval MS] [--json] [--all]\n"
    "       iotriage compute --recording DIR|FILE TIME1 TIME2 [--json] [--all]\n"
    "Metrics from two recorded trees (iotriage capture), or from the samples of a\n"
    "flight recording (iotriaged --record) taken at (the first at or after) TIME1\n"
    "and TIME2 (times as iotriage replay takes them). The interval is the\n"
    "difference of their /proc/uptime, as sysstat takes it, unless --interval.\n";

/* BEFORE and AFTER of compute --recording: two instants of one boot. */
static int load_instants(const struct common_args *a, char **argv, struct snapshot *b,
			 struct snapshot *c, struct topology *topo, bool *has_topo)
{
	char boot_b[40], boot_c[40];
	int64_t tb, tc, rb, rc, now;
	int r;

	now = clock_ns(CLOCK_REALTIME);
	for (int i = 0; i < 2; i++)
		if (cli_parse_time(argv[i], now, i ? &tc : &tb) < 0) {
			cli_error(argv[i], "not a time (see iotriage replay --help)");
			return -EINVAL;
		}
	r = cli_recording_snapshot(a->recording, tb, b, boot_b, sizeof(boot_b), &rb, NULL, NULL);
	if (r >= 0) /* the advice on AFTER's topology, as the daemon's on its sample */
		r = cli_recording_snapshot(a->recording, tc, c, boot_c, sizeof(boot_c), &rc, topo,
					   has_topo);
	if (r < 0)
		return r;
	if (rc <= rb) {
		cli_error("compute", "%s is not after %s in the recording", argv[1], argv[0]);
		return -EINVAL;
	}
	if (strcmp(boot_b, boot_c) != 0) {
		cli_error("compute",
			  "the two samples are of different boots (boot id %s, then %s): the "
			  "counters restarted between them",
			  boot_b, boot_c);
		return -EINVAL;
	}
	return 0;
}

/*
 * Names the devices and CPUs present in only one tree. A tree whose
 * diskstats is unavailable has no disks at all, so pairing would call every
 * disk absent; report_sources has already said why, once, with the file and
 * line, and the disks are left at that.
 */
static void report_unpaired(const struct snapshot *b, const struct snapshot *c,
			    const struct metrics *m)
{
	bool disks = !b->status[SRC_DISKSTATS].err && !c->status[SRC_DISKSTATS].err;

	for (size_t i = 0; disks && i < m->ndisks; i++)
		if (!m->disks[i].valid)
			fprintf(stderr, "iotriage: compute: %s: not compared: %s\n",
				m->disks[i].name, m->disks[i].reason);
	/* m->disks are AFTER's rows, one each: look them up there (indexed) */
	for (size_t i = 0; disks && i < b->disks.n; i++) {
		bool found = disk_table_find(&c->disks, b->disks.rows[i].major,
					     b->disks.rows[i].minor, NULL) != NULL;

		if (!found)
			fprintf(stderr, "iotriage: compute: %s: not compared: absent in AFTER\n",
				b->disks.rows[i].name);
	}
	for (size_t i = 0; i < m->ncpu; i++)
		if (!m->cpus[i].valid)
			fprintf(stderr, "iotriage: compute: cpu%d: not compared: %s\n",
				m->cpus[i].cpu, m->cpus[i].reason);
}

int cmd_compute(int argc, char **argv)
{
	struct common_args a = { 0 };
	struct snapshot b = { 0 }, c = { 0 };
	struct metrics m = { 0 };
	struct topology topo = { 0 };
	bool has_topo = false;
	uint64_t itv;
	int r, ret = EXIT_FAIL;

	r = parse_common(argc, argv, compute_usage, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (argc - optind != 2) {
		fprintf(stderr, "%s", compute_usage);
		return EXIT_USAGE;
	}
	if (a.o.root) {
		cli_error("compute", "--root does not apply: BEFORE and AFTER are the roots");
		return EXIT_USAGE;
	}
	if (a.o.socket) {
		cli_error("compute", "--socket does not apply: BEFORE and AFTER are the samples");
		return EXIT_USAGE;
	}
	if (a.recording) {
		if (load_instants(&a, argv + optind, &b, &c, &topo, &has_topo) < 0)
			goto out;
		goto rates;
	}
	r = snapshot_load_tree(argv[optind], &b);
	report_sources(&b, argv[optind]);
	if (r < 0) {
		cli_error(argv[optind], "cannot read the tree: %s", strerror(-r));
		goto out;
	}
	r = snapshot_load_tree(argv[optind + 1], &c);
	report_sources(&c, argv[optind + 1]);
	if (r < 0) {
		cli_error(argv[optind + 1], "cannot read the tree: %s", strerror(-r));
		goto out;
	}
rates:
	if (a.o.interval_ms) {
		itv = (uint64_t)(a.o.interval_ms + 5) / 10;
	} else {
		itv = metrics_interval_cs(&b, &c);
		if (itv == 0) {
			cli_error("compute",
				  "no interval: /proc/uptime of AFTER is not later than BEFORE's "
				  "(or missing); give --interval MS");
			goto out;
		}
	}
	r = metrics_compute(&b, &c, itv, &m);
	if (r < 0) {
		cli_error("compute", "%s", strerror(-r));
		goto out;
	}
	report_unpaired(&b, &c, &m);
	ret = emit(&c, &m, &a, "compute", argv[optind + 1], has_topo ? &topo : NULL);
out:
	metrics_free(&m);
	snapshot_free(&b);
	snapshot_free(&c);
	topology_free(&topo);
	return ret;
}

static const char capture_usage[] =
    "Usage: iotriage capture DIR [--root DIR]\n"
    "Write every host file iotriage reads into DIR, for `iotriage compute`.\n"
    "DIR is created; an existing one must be an empty directory of yours.\n";

int cmd_capture(int argc, char **argv)
{
	struct common_args a = { 0 };
	struct capture_result res;
	struct root root;
	char why[512];
	int r;

	r = parse_common(argc, argv, capture_usage, &a);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	if (argc - optind != 1) {
		fprintf(stderr, "%s", capture_usage);
		return EXIT_USAGE;
	}
	if (a.o.socket) {
		cli_error("capture", "--socket does not apply: capture reads the host's files");
		return EXIT_USAGE;
	}
	r = root_open(a.o.root, &root);
	if (r < 0) {
		cli_error(a.o.root ? a.o.root : "/", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	r = capture_tree(&root, argv[optind], &res, why, sizeof(why));
	root_close(&root);
	if (r < 0) {
		/* res is untouched on failure; why says what failed */
		fprintf(stderr, "iotriage: capture %s: %s\n", argv[optind], why);
		return EXIT_FAIL;
	}
	fprintf(stderr, "iotriage: captured %u files into %s (%u optional files absent)\n",
		res.files, argv[optind], res.missing);
	return EXIT_OK;
}
