// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriaged: arguments, start-up order, detach and exit codes. Logging and
 * sd_notify are log.c's; the work itself is loop.c's and the server's
 * (listen.c, conn.c, commands.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "caps.h"
#include "daemon.h"
#include "encode_openmetrics.h"
#include "trace.h"

static const char usage[] =
    "Usage: iotriaged [OPTIONS]\n"
    "Sample disks, CPUs and interrupts, keep recent history, serve it on a Unix socket.\n"
    "\n"
    "  -f, --foreground       stay in the foreground, log to stderr (systemd)\n"
    "  -s, --socket PATH      listen here (default /run/iotriage/iotriaged.sock as root,\n"
    "                         $XDG_RUNTIME_DIR/iotriage.sock otherwise)\n"
    "  -i, --interval MS      sample every MS milliseconds (default 1000, minimum 100)\n"
    "  -H, --history SECONDS  keep this much history in memory (default 600, max 86400)\n"
    "  -g, --group NAME       group of the socket, mode 0660 (default iotriage if it exists)\n"
    "  -c, --max-clients N    refuse clients beyond N (default 64; the last 4 are kept for\n"
    "                         root and the daemon's user)\n"
    "      --max-clients-per-uid N\n"
    "                         at most N clients per uid, but for root and the daemon's user\n"
    "                         (default 16)\n"
    "  -r, --root DIR         read /proc and /sys under DIR (a recorded host)\n"
    "      --core-only        sample only what iostat and mpstat read (no turbostat MSRs,\n"
    "                         no processes, NICs, pressure or writeback): the cheapest\n"
    "      --metrics-listen ADDR:PORT  serve Prometheus /metrics there (a PORT alone:\n"
    "                         127.0.0.1:PORT); off by default\n"
    "      --metrics-device-exclude REGEX  disks left out of /metrics (default\n"
    "                         '" OM_DEVICE_EXCLUDE_DEFAULT "', as node_exporter;\n"
    "                         '': none)\n"
    "      --metrics-top-irqs N  accepted for old configurations, no effect: every IRQ\n"
    "                         line has its counter\n"
    "      --cpu-budget PCT   keep the daemon under PCT % of one CPU by reading the\n"
    "                         optional sources (processes, turbostat, NICs, cgroups,\n"
    "                         pressure) less often (default 0.5; 0: every sample)\n"
    "      --trace            time per IRQ line and softirq vector, IO latency percentiles,\n"
    "                         from BPF tracepoints (root, or CAP_BPF and CAP_PERFMON;\n"
    "                         doc/trace.md); off by default\n"
    "      --trace-budget PCT switch a probe off when it uses more than PCT % of one CPU\n"
    "                         (default 2; 0: no budget)\n"
    "      --record DIR       keep a flight recording of every sample's raw counters in\n"
    "                         DIR (root-owned, 0700; created if absent); see iotriage replay\n"
    "      --record-max-bytes N  the recording's size bound (default 256M; K, M, G, T)\n"
    "      --record-max-age AGE  remove recorded data older than AGE (s, m, h, d; default:\n"
    "                         no age limit, the size bound alone)\n"
    "      --record-min-free N   stop recording while the filesystem has less free\n"
    "                         (default 64M); resumes when space is back\n"
    "      --record-compact-after AGE  keep one sample in N of recorded data older\n"
    "                         than AGE (default 1h; 0: never)\n"
    "      --record-compact-keep N  that N (default 10, 2-3600)\n"
    "  -v, --verbose          also log client connections\n"
    "  -h, --help             show this help\n"
    "  -V, --version          show the version\n"
    "\n"
    "Protocol: newline-delimited JSON, see doc/protocol.md.\n"
    "Exit status: 0 stopped by SIGTERM/SIGINT, 1 failure, 2 usage error.\n";

/* A percent from 0 to 100 in *ret; 0, or -1 with the message printed. */
static int parse_pct(const char *opt, const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 100) {
		fprintf(stderr, "iotriaged: %s: '%s' is not a percent from 0 to 100\n", opt, s);
		return -1;
	}
	*ret = v;
	return 0;
}

static long parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "iotriaged: %s: '%s' is not a whole number from %ld to %ld\n", opt,
			s, min, max);
		return -1;
	}
	return v;
}

/* A byte count with an optional K, M, G or T suffix (powers of 1024). */
static int parse_size(const char *opt, const char *s, uint64_t min, uint64_t *ret)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end && !end[1]) {
		const char *units = "KMGT", *u = strchr(units, *end);

		if (u)
			shift = 10 * (unsigned)(u - units + 1);
		end += u ? 1 : 0;
	}
	if (errno || end == s || *end || s[0] == '-' || (shift && v > (~0ULL >> shift)) ||
	    (v << shift) < min) {
		fprintf(stderr,
			"iotriaged: %s: '%s' is not a size of at least %llu bytes "
			"(a number, optionally K, M, G or T)\n",
			opt, s, (unsigned long long)min);
		return -1;
	}
	*ret = (uint64_t)v << shift;
	return 0;
}

/* An age in seconds with an optional s, m, h or d suffix; 0 means no limit. */
static int parse_age(const char *opt, const char *s, int64_t *ret)
{
	static const struct {
		char c;
		long long mul;
	} units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
	long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoll(s, &end, 10);
	for (size_t i = 0; *end && !end[1] && i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].c) {
			mul = units[i].mul;
			end++;
			break;
		}
	if (errno || end == s || *end || v < 0 || v > 3650LL * 86400 / mul) {
		fprintf(stderr,
			"iotriaged: %s: '%s' is not an age (a number of seconds, or with m, h "
			"or d; at most 3650d)\n",
			opt, s);
		return -1;
	}
	*ret = v * mul;
	return 0;
}

/* A number from 2 to 3600 for --record-compact-keep; 0, or -1 with the message printed. */
static int parse_keep(const char *opt, const char *s, unsigned *ret)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 2 || n > 3600) {
		fprintf(stderr, "iotriaged: %s: '%s' is not a number from 2 to 3600\n", opt, s);
		return -1;
	}
	*ret = (unsigned)n;
	return 0;
}

static const struct option long_opts[] = {
	{ "foreground", no_argument, NULL, 'f' },
	{ "socket", required_argument, NULL, 's' },
	{ "interval", required_argument, NULL, 'i' },
	{ "history", required_argument, NULL, 'H' },
	{ "group", required_argument, NULL, 'g' },
	{ "max-clients", required_argument, NULL, 'c' },
	{ "root", required_argument, NULL, 'r' },
	{ "core-only", no_argument, NULL, 'C' },
	{ "metrics-listen", required_argument, NULL, 'M' },
	{ "metrics-top-irqs", required_argument, NULL, 'T' },
	{ "metrics-device-exclude", required_argument, NULL, 'E' },
	{ "max-clients-per-uid", required_argument, NULL, 'U' },
	{ "cpu-budget", required_argument, NULL, 'B' },
	{ "trace", no_argument, NULL, 'Z' },
	{ "trace-budget", required_argument, NULL, 'b' },
	{ "record", required_argument, NULL, 'R' },
	{ "record-max-bytes", required_argument, NULL, 'X' },
	{ "record-max-age", required_argument, NULL, 'A' },
	{ "record-min-free", required_argument, NULL, 'F' },
	{ "record-compact-after", required_argument, NULL, 'K' },
	{ "record-compact-keep", required_argument, NULL, 'N' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

enum arg_kind { ARG_TEXT, ARG_LONG, ARG_PCT, ARG_SIZE, ARG_AGE, ARG_KEEP };

/* An option with a value, and the field of struct daemon_args it sets. */
struct arg_value {
	int c; /* its code in long_opts */
	enum arg_kind kind;
	void *field;   /* const char **, long *, double *, uint64_t *, int64_t *, unsigned * */
	long min, max; /* ARG_LONG's range, ARG_SIZE's minimum */
};

/* Parses s into v's field, the message naming --NAME; 0, or -1 with the message printed. */
static int arg_value_set(const struct arg_value *v, const char *s)
{
	char opt[40] = "--";
	long n;

	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == v->c)
			snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (v->kind) {
	case ARG_TEXT:
		*(const char **)v->field = s;
		return 0;
	case ARG_LONG:
		n = parse_long(opt, s, v->min, v->max);
		if (n < 0)
			return -1;
		*(long *)v->field = n;
		return 0;
	case ARG_PCT:
		return parse_pct(opt, s, v->field);
	case ARG_SIZE:
		return parse_size(opt, s, (uint64_t)v->min, v->field);
	case ARG_AGE:
		return parse_age(opt, s, v->field);
	default:
		return parse_keep(opt, s, v->field);
	}
}

/* An option without a value (or getopt's complaint): 0, 1 for --help or
 * --version (printed), -1 for a usage error (printed). */
static int arg_flag_set(int c, char **argv, struct daemon_args *a)
{
	switch (c) {
	case 'f':
		a->foreground = true;
		return 0;
	case 'C':
		a->core_only = true;
		return 0;
	case 'Z':
		a->trace = true;
		return 0;
	case 'v':
		daemon_log_verbose();
		return 0;
	case 'h':
		printf("%s", usage);
		return 1;
	case 'V':
		printf("iotriaged %s (protocol %d)\n", IOTRIAGE_VERSION, IOT_PROTOCOL_VERSION);
		return 1;
	case ':':
		fprintf(stderr, "iotriaged: %s: needs a value (try --help)\n", argv[optind - 1]);
		return -1;
	default:
		if (optopt)
			fprintf(stderr, "iotriaged: -%c: unknown option (try --help)\n", optopt);
		else
			fprintf(stderr, "iotriaged: %s: unknown option (try --help)\n",
				argv[optind - 1]);
		return -1;
	}
}

/* 0 ok, 1 --help/--version printed, -1 usage error (printed). */
static int parse_args(int argc, char **argv, struct daemon_args *a)
{
	const struct arg_value values[] = {
		{ 's', ARG_TEXT, &a->socket_path, 0, 0 },
		{ 'i', ARG_LONG, &a->interval_ms, 100, 3600L * 1000 },
		{ 'H', ARG_LONG, &a->history_s, 0, 86400 },
		{ 'g', ARG_TEXT, &a->group, 0, 0 },
		{ 'c', ARG_LONG, &a->max_clients, 1, 100000 },
		{ 'U', ARG_LONG, &a->max_clients_per_uid, 1, 100000 },
		{ 'r', ARG_TEXT, &a->root, 0, 0 },
		{ 'M', ARG_TEXT, &a->metrics_listen, 0, 0 },
		{ 'T', ARG_LONG, &a->metrics_top_irqs, 1, OM_TOP_IRQS_MAX },
		{ 'E', ARG_TEXT, &a->metrics_device_exclude, 0, 0 },
		{ 'B', ARG_PCT, &a->cpu_budget_pct, 0, 0 },
		{ 'b', ARG_PCT, &a->trace_budget_pct, 0, 0 },
		{ 'R', ARG_TEXT, &a->record_dir, 0, 0 },
		{ 'X', ARG_SIZE, &a->record_max_bytes, 1L << 20, 0 },
		{ 'A', ARG_AGE, &a->record_max_age_s, 0, 0 },
		{ 'F', ARG_SIZE, &a->record_min_free, 0, 0 },
		{ 'K', ARG_AGE, &a->record_compact_s, 0, 0 },
		{ 'N', ARG_KEEP, &a->record_keep, 0, 0 },
	};
	int c, r;

	/* our own messages, in the "iotriaged: WHAT: WHY" form */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fs:i:H:g:c:r:vhV", long_opts, NULL)) != -1) {
		size_t i = 0;

		while (i < sizeof(values) / sizeof(values[0]) && values[i].c != c)
			i++;
		r = i < sizeof(values) / sizeof(values[0]) ? arg_value_set(&values[i], optarg)
							   : arg_flag_set(c, argv, a);
		if (r)
			return r;
	}
	if (optind < argc) {
		fprintf(stderr, "iotriaged: %s: unexpected argument (try --help)\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* The socket to listen on: --socket (given) or iot_proto_default_socket(),
 * into ret_path (size bytes). EXIT_OK, or the exit code after saying why. */
static int socket_path_choose(const char *given, char *ret_path, size_t size)
{
	int r;

	if (given) {
		if (strlen(given) >= size) {
			fprintf(stderr, "iotriaged: --socket: path longer than %zu bytes\n",
				size - 1);
			return EXIT_USAGE;
		}
		memcpy(ret_path, given, strlen(given) + 1);
		return EXIT_OK;
	}
	r = iot_proto_default_socket(ret_path, size);
	if (r < 0) {
		daemon_log(LOG_ERR, "socket: %s",
			   r == -ENOENT ? "not root and XDG_RUNTIME_DIR is unset; give "
					  "--socket PATH"
					: "$XDG_RUNTIME_DIR/iotriage.sock is too long");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* Each client is a descriptor: make sure --max-clients of them fit. */
static void raise_nofile(long max_clients)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_clients + 32;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < want)
		daemon_log(LOG_WARNING, "--max-clients %ld: only %llu descriptors allowed",
			   max_clients, (unsigned long long)rl.rlim_cur);
}

/* Classic detach, after the socket is listening and the first sample is
 * taken, so every start-up error still reaches the terminal with its exit
 * code. The parent exits 0 once the child is set up. */
static int detach(void)
{
	pid_t pid;
	int fd;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0)
		_exit(EXIT_OK);
	if (setsid() < 0)
		return -errno;
	if (chdir("/") < 0)
		return -errno;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
	openlog("iotriaged", LOG_PID, LOG_DAEMON);
	daemon_log_to_syslog();
	return 0;
}

/* The sampler (as the arguments ask), the history ring and the request
 * parser; *ret_cap the ring's size in samples. 0, or -1 (logged). */
static int sampler_start(struct daemon *d, size_t *ret_cap)
{
	struct sampler_opts so = { .mode = "daemon" };
	char host[256] = "";
	size_t cap;
	int r;

	gethostname(host, sizeof(host) - 1);
	so.root = d->args.root;
	if (d->args.core_only)
		so.skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT;
	so.advise = !d->args.core_only;
	so.steady = so.advise;
	so.cpu_budget_pct = d->args.cpu_budget_pct;
	so.interval_ms = d->args.interval_ms;
	so.topo_given = so.advise; /* read on topo.c's thread */
	so.host = host;
	so.trace = d->args.trace;
	so.trace_budget_pct = d->args.trace_budget_pct;
	r = sampler_open(&so, &d->sampler);
	if (r < 0) {
		daemon_log(LOG_ERR, "--root %s: %s", d->args.root ? d->args.root : "/",
			   strerror(-r));
		return -1;
	}
	if (sampler_trace_unavailable(d->sampler))
		daemon_log(LOG_WARNING, "tracing: unavailable (%s)",
			   sampler_trace_unavailable(d->sampler));
	/* --history 0 still keeps the latest sample: snapshot needs it */
	cap = (size_t)(d->args.history_s * 1000 / d->args.interval_ms);
	if (cap == 0)
		cap = 1;
	r = history_init(cap, &d->hist);
	if (r < 0) {
		daemon_log(LOG_ERR, "history of %zu samples: %s", cap, strerror(-r));
		return -1;
	}
	d->tok = json_tokener_new_ex(32);
	if (!d->tok) {
		daemon_log(LOG_ERR, "startup: out of memory");
		return -1;
	}
	*ret_cap = cap;
	return 0;
}

/* From the loop's descriptors to the threads: everything up to loop_run(),
 * with the capabilities kept in caps (size bytes). 0, or -1 (logged). */
static int daemon_start(struct daemon *d, char *caps, size_t size)
{
	int r;

	d->start_mono_ns = clock_mono_ns();
	if (loop_setup(d) < 0 || server_listen(d) < 0 || metrics_http_start(d) < 0 ||
	    rec_start(d) < 0)
		return -1;
	r = loop_sample(d);
	if (r < 0)
		return -1;
	if (!d->args.foreground) {
		r = detach();
		if (r >= 0)
			r = loop_reopen_signals(d);
		if (r < 0) {
			daemon_log(LOG_ERR, "detach: %s", strerror(-r));
			return -1;
		}
	}
	/* set up: keep only what a running daemon uses, before any thread
	 * starts (capabilities are per thread; new ones inherit the caller's) */
	r = caps_drop(caps, size);
	if (r < 0) {
		daemon_log(LOG_ERR, "dropping capabilities: %s", strerror(-r));
		return -1;
	}
	/* after detach(): a thread does not survive fork() */
	rec_compact_start(d);
	if (!d->args.core_only) {
		r = topo_reader_start(d);
		if (r < 0) {
			/* advice still works, read in the loop between samples */
			daemon_log(LOG_WARNING, "topology thread: %s; reading it between samples",
				   strerror(-r));
			sampler_set_topo_given(d->sampler, false);
		}
	}
	return 0;
}

/* Releases all of d; true when a job or topology thread was left behind. */
static bool daemon_stop(struct daemon *d)
{
	bool adrift;

	metrics_http_stop(d);
	/* the socket first: a restart works while a stopping job still has
	 * its deadline to run (worker_shutdown waits up to 5 s), or a hung
	 * topology read its own (topo_reader_stop, up to 2 s) */
	server_shutdown(d);
	adrift = topo_reader_stop(d);
	adrift |= worker_shutdown(d);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->timer.fd >= 0)
		close(d->timer.fd);
	if (d->sig.fd >= 0)
		close(d->sig.fd);
	if (d->tok)
		json_tokener_free(d->tok);
	rec_stop(d);
	history_free(&d->hist);
	sampler_close(d->sampler);
	sb_free(&d->sb);
	om_exclude_free(d->args.metrics_exclude_re);
	return adrift;
}

int main(int argc, char **argv)
{
	struct daemon d = {
		.args = { .interval_ms = 1000,
			  .history_s = 600,
			  .max_clients = 64,
			  .max_clients_per_uid = 16,
			  .cpu_budget_pct = 0.5,
			  .trace_budget_pct = TRACE_BUDGET_DEFAULT_PCT,
			  .record_max_bytes = (uint64_t)256 << 20,
			  .record_min_free = (uint64_t)64 << 20,
			  .record_compact_s = 3600,
			  .record_keep = 10,
			  .metrics_device_exclude = OM_DEVICE_EXCLUDE_DEFAULT },
		.epfd = -1,
		.timer.fd = -1,
		.sig.fd = -1,
		.listen.fd = -1,
		.socket_dirfd = -1,
		.exit_code = EXIT_OK,
	};
	char caps[160] = "";
	sigset_t mask;
	size_t cap = 0;
	int r, ret = EXIT_FAIL;

	r = parse_args(argc, argv, &d.args);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_USAGE;
	daemon_log_init();

	r = socket_path_choose(d.args.socket_path, d.socket_path, sizeof(d.socket_path));
	if (r != EXIT_OK)
		return r;
	r = om_exclude_compile(d.args.metrics_device_exclude, &d.args.metrics_exclude_re);
	if (r < 0) {
		fprintf(stderr, "iotriaged: --metrics-device-exclude: '%s': %s\n",
			d.args.metrics_device_exclude,
			r == -EINVAL ? "not a POSIX extended regular expression" : strerror(-r));
		return r == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}

	/* signals arrive through signalfd only; a gone peer is a write error */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile(d.args.max_clients);

	if (sampler_start(&d, &cap) == 0 && daemon_start(&d, caps, sizeof(caps)) == 0) {
		daemon_log(LOG_INFO,
			   "listening on %s, sampling %s every %ld ms, history %ld s (%zu "
			   "samples); capabilities kept: %s",
			   d.socket_path, d.args.root ? d.args.root : "/", d.args.interval_ms,
			   d.args.history_s, cap, caps);
		ret = loop_run(&d);
		daemon_notify("STOPPING=1");
	}
	if (daemon_stop(&d)) {
		/*
		 * A job or topology thread left behind still runs (its device
		 * does not answer): exit()'s handlers and stdio teardown would race it,
		 * and a leak checker's stop-the-world would wait for a thread in
		 * uninterruptible sleep forever. Everything of ours is released.
		 */
		fflush(stderr);
		_exit(ret);
	}
	return ret;
}
