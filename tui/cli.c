// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every subcommand shares: the one error line ("iotriage: WHAT: WHY",
 * escaped whole), the escaping stream under stdout and stderr (no byte from
 * the host or a server reaches the terminal as a control sequence), the
 * millisecond option parser, the options most subcommands share (one
 * getopt loop for them), and a live interval's sleep and length.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "treewrite.h"
#include "strbuf.h"
#include "text.h"

void cli_error(const char *what, const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	char msg[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		msg[0] = '\0';
	/* what and why may quote a path, a server's message, a process name:
	 * escaped whole (newlines too), so one error is one line */
	sb_puts(&sb, "iotriage: ");
	text_escape(&sb, what, strlen(what), 0);
	sb_puts(&sb, ": ");
	text_escape(&sb, msg, text_utf8_cut(msg, strlen(msg)), 0);
	sb_putc(&sb, '\n');
	fputs(sb.err ? "iotriage: out of memory\n" : sb_cstr(&sb), stderr);
	sb_free(&sb);
}

int cli_getopt(int argc, char **argv, const char *optstring, const struct option *opts,
	       struct cli_opts *o)
{
	int c;

	while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		if (c == 'i') {
			o->interval_ms = cli_interval_arg(optarg, 10);
			if (o->interval_ms < 0)
				return CLI_OPT_BAD;
		} else if (c == 'j') {
			o->json = true;
		} else if (c == CLI_OPT_ROOT || c == CLI_OPT_SOCKET) {
			*(c == CLI_OPT_ROOT ? &o->root : &o->socket) = optarg;
		} else {
			return c;
		}
	}
	return -1;
}

/* cli_opt_usage and cli_opt_other: the usage printed, or "(try --help)" */
static int opt_end(int c, char **argv, const char *usage, bool show_usage)
{
	if (c == CLI_OPT_BAD)
		return -EXIT_USAGE;
	if (c == 'h') {
		printf("%s", usage);
		return 1;
	}
	if (!show_usage) {
		cli_error(argv[optind - 1],
			  c == ':' ? "needs a value (try --help)" : "unknown option (try --help)");
		return -EXIT_USAGE;
	}
	cli_error(argv[optind - 1], c == ':' ? "missing argument" : "unknown option");
	fprintf(stderr, "%s", usage);
	return -EXIT_USAGE;
}

int cli_opt_usage(int c, char **argv, const char *usage)
{
	return opt_end(c, argv, usage, true);
}

int cli_opt_other(int c, char **argv, const char *usage)
{
	return opt_end(c, argv, usage, false);
}

void cli_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

uint64_t cli_live_interval_cs(const struct snapshot *s0, const struct snapshot *s1)
{
	uint64_t itv = metrics_interval_cs(s0, s1);

	if (itv == 0)
		itv = (uint64_t)((s1->mono_ns - s0->mono_ns + 5000000) / 10000000);
	return itv ? itv : 1;
}

/*
 * The escaping stream under stdout and stderr (cli_escape_stdio): every byte
 * goes through text_escape, '\n' and '\t' kept. A UTF-8 sequence that stdio
 * splits between two writes is held (at most 3 bytes) until the next one.
 */
struct escape_out {
	int fd;
	size_t nheld;
	char held[4];
	struct strbuf in, out;
};

/* Bytes escaped at a time: a 500 MB document written at once used to be
 * copied whole twice more (in, out), and an allocation failing there was
 * the write that crashed glibc (below). */
#define ESCAPE_CHUNK ((size_t)64 << 10)

/*
 * fopencookie(3): the write function returns the bytes taken, "or 0 on
 * error. (The function must not return a negative value.)": here the
 * bytes of the chunks written before the error. glibc's
 * new_do_write() keeps the count in a size_t: a -1 (what this returned
 * when an allocation failed, under `ulimit -v`) became SIZE_MAX, the
 * stream's pointers past its buffer, and the next fwrite crashed.
 */
static ssize_t escape_write(void *cookie, const char *buf, size_t size)
{
	struct escape_out *o = cookie;
	size_t done = 0;

	while (done < size) {
		size_t step = size - done < ESCAPE_CHUNK ? size - done : ESCAPE_CHUNK, keep, n;

		sb_reset(&o->in);
		sb_reset(&o->out);
		sb_append(&o->in, o->held, o->nheld);
		sb_append(&o->in, buf + done, step);
		if (o->in.err) {
			errno = ENOMEM;
			return (ssize_t)done;
		}
		n = o->in.len;
		keep = n - text_utf8_cut(o->in.buf, n);
		text_escape(&o->out, o->in.buf, n - keep, TEXT_KEEP_NL);
		if (o->out.err) {
			errno = ENOMEM;
			return (ssize_t)done;
		}
		if (treewrite_write_all(o->fd, o->out.buf, o->out.len) < 0)
			return (ssize_t)done; /* errno from write(2) */
		memcpy(o->held, o->in.buf + n - keep, keep);
		o->nheld = keep;
		done += step;
	}
	return (ssize_t)size;
}

static int escape_close(void *cookie)
{
	struct escape_out *o = cookie;
	int r = 0;

	if (o->nheld) { /* a sequence that never finished: its bytes escaped */
		sb_reset(&o->out);
		text_escape(&o->out, o->held, o->nheld, TEXT_KEEP_NL);
		r = o->out.err || treewrite_write_all(o->fd, o->out.buf, o->out.len) < 0 ? -1 : 0;
	}
	sb_free(&o->in);
	sb_free(&o->out);
	free(o);
	return r;
}

/* The two streams' state, for the flush at exit: glibc flushes streams at
 * exit but does not close them, so a held partial sequence is written here. */
static struct escape_out *escaped[2];

static void escape_at_exit(void)
{
	fflush(stdout);
	fflush(stderr);
	for (size_t i = 0; i < 2; i++) {
		struct escape_out *o = escaped[i];

		if (!o || !o->nheld)
			continue;
		sb_reset(&o->out);
		text_escape(&o->out, o->held, o->nheld, TEXT_KEEP_NL);
		o->nheld = 0;
		if (!o->out.err)
			treewrite_write_all(o->fd, o->out.buf, o->out.len);
	}
}

static FILE *escape_open(int fd, int mode, struct escape_out **ret)
{
	static const cookie_io_functions_t io = { .write = escape_write, .close = escape_close };
	struct escape_out *o = calloc(1, sizeof(*o));
	FILE *f;

	if (!o)
		return NULL;
	o->fd = fd;
	f = fopencookie(o, "w", io);
	if (!f) {
		free(o);
		return NULL;
	}
	setvbuf(f, NULL, mode, mode == _IONBF ? 0 : BUFSIZ);
	*ret = o;
	return f;
}

int cli_escape_stdio(void)
{
	struct escape_out *o[2] = { NULL, NULL };
	FILE *out = escape_open(STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, &o[0]);
	FILE *err = escape_open(STDERR_FILENO, _IOLBF, &o[1]);

	if (!out || !err) {
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		return -ENOMEM;
	}
	/* glibc's stdout and stderr are assignable; exit() flushes and closes
	 * these streams like any other */
	fflush(stdout);
	fflush(stderr);
	stdout = out;
	stderr = err;
	escaped[0] = o[0];
	escaped[1] = o[1];
	atexit(escape_at_exit);
	return 0;
}

long cli_parse_ms(const char *s, long min_ms)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min_ms || v > 3600L * 1000)
		return -1;
	return v;
}

long cli_interval_arg(const char *s, long min_ms)
{
	long v = cli_parse_ms(s, min_ms);

	if (v < 0)
		cli_error("--interval", "'%s' is not a number of milliseconds (%ld..3600000)", s,
			  min_ms);
	return v;
}
