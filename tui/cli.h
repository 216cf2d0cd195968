/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The iotriage subcommands and what they share (error printing, exit codes). */
#ifndef IOTRIAGE_CLI_H
#define IOTRIAGE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"
#include "snapshot.h"

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
};

/* "iotriage: WHAT: WHY" on stderr, on one line: both escaped as text_escape
 * does (newlines too), since they may quote a path, a process name or what
 * a server said. */
void cli_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Puts an escaping stream under stdout and stderr: everything a subcommand
 * prints goes through text_escape (src/text.h) with '\n' and '\t' kept, so
 * no byte from the host, a recorded tree or a server (a process named
 * "\e]0;..." by its owner) reaches the terminal as a control sequence.
 * Not for the live view: ncurses draws it (ui_put escapes the same way).
 * 0 or -ENOMEM (the streams are then unchanged).
 */
int cli_escape_stdio(void);

/* As cli_opt_usage, but a missing value or an unknown option says
 * "(try --help)" instead of printing the usage. */
int cli_opt_other(int c, char **argv, const char *usage);

/* Parses a positive millisecond count; -1 if invalid. */
long cli_parse_ms(const char *s, long min_ms);

/* --interval's argument: cli_parse_ms(), and when invalid says so (the
 * range included) with cli_error and returns -1. */
long cli_interval_arg(const char *s, long min_ms);

/* The options most subcommands share, taken by cli_getopt. */
struct cli_opts {
	long interval_ms;   /* -i, --interval MS: 10 ms at least; 0: not given */
	bool json;	    /* -j, --json */
	const char *root;   /* --root DIR (CLI_OPT_ROOT in the option table) */
	const char *socket; /* --socket PATH (CLI_OPT_SOCKET) */
};

/* The shared options' codes in a subcommand's option table; its own
 * codes start at CLI_OPT_NEXT. CLI_OPT_BAD: a bad value, already said. */
enum { CLI_OPT_ROOT = 0x100, CLI_OPT_SOCKET, CLI_OPT_BAD, CLI_OPT_NEXT };

/*
 * getopt_long for a subcommand's loop (optind and opterr set by the
 * caller), the shared options stored into *o and not returned: --interval
 * as cli_interval_arg takes it. Returns the next other option, -1 at the
 * end, or CLI_OPT_BAD after a bad --interval (said).
 */
int cli_getopt(int argc, char **argv, const char *optstring, const struct option *opts,
	       struct cli_opts *o);

/* The options a loop whose optstring starts with ':' leaves to the end:
 * -h prints usage (1); a missing value or an unknown option says so and
 * prints usage (-EXIT_USAGE); CLI_OPT_BAD: -EXIT_USAGE. */
int cli_opt_usage(int c, char **argv, const char *usage);

/* Sleeps ms milliseconds, resumed after a signal. */
void cli_sleep_ms(long ms);

/* The interval between two live samples in centiseconds: their
 * /proc/uptime's, else (missing or frozen) the monotonic clock's; 1 at
 * least. */
uint64_t cli_live_interval_cs(const struct snapshot *s0, const struct snapshot *s1);

/* Human tables: disks (iostat -x), CPUs (mpstat -u + intr/s + hottest softirq), top IRQs. */
void report_print(FILE *f, const struct snapshot *cur, const struct metrics *m, bool all_disks);

/* Prints each unavailable source of s to stderr as a warning. */
void report_sources(const struct snapshot *s, const char *label);

/* tui/cmd_replay.c: flight recordings (iotriaged --record). */
#define CLI_RECORD_DIR "/var/lib/iotriage/record"
int cmd_replay(int argc, char **argv);
/* tui/cmd_report.c: the incident report of a window (doc/report.md). */
int cmd_report(int argc, char **argv);
/* A time as replay takes it ("YYYY-MM-DD HH:MM[:SS]", "HH:MM[:SS]", "@EPOCH",
 * "-15m") into real-time ns; now_ns for the relative forms. 0 or -EINVAL. */
int cli_parse_time(const char *s, int64_t now_ns, int64_t *ret_ns);
/* Each line of lines as "iotriage: WHAT: LINE" on stderr; lines may be NULL. */
void cli_print_problems(const char *what, const char *lines);
/* The recorded sample at (the first at or after) at_ns into *ret (a copy),
 * with its boot id and time, and when ret_topo is not NULL the advisor's
 * topology recorded with it (*ret_has_topo false: none, a version 1-2 or
 * --core-only recording; freed by topology_free). Errors are printed; 0 or
 * -errno. */
struct topology;
int cli_recording_snapshot(const char *path, int64_t at_ns, struct snapshot *ret, char *ret_boot,
			   size_t boot_size, int64_t *ret_real, struct topology *ret_topo,
			   bool *ret_has_topo);

int cmd_snapshot(int argc, char **argv);
int cmd_compute(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_bench(int argc, char **argv);
/* tui/cmd_worker.c: bench jobs run by iotriaged (worker.* requests). */
int cmd_worker(int argc, char **argv);

/* tui/cmd_suggest.c: the advisor. */
struct advice;
int cmd_suggest(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_undo(int argc, char **argv);
int cmd_threads(int argc, char **argv);
/* tui/cmd_metrics.c: the Prometheus exposition, once. */
int cmd_metrics(int argc, char **argv);
/* Topology under root_dir (NULL = "/") + advise_run on (cur, m). 0 or -errno. */
int suggest_advise_root(const char *root_dir, const struct snapshot *cur, const struct metrics *m,
			struct advice *ret);

#endif
