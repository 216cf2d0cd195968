/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The iotriage subcommands and what they share (error printing, exit codes). */
#ifndef IOTRIAGE_CLI_H
#define IOTRIAGE_CLI_H

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

/* The options a subcommand's getopt loop (optstring starting ':') leaves
 * to the end: -h prints usage (1); a missing value or an unknown option
 * says so, "(try --help)" (-EXIT_USAGE). */
int cli_opt_other(int c, char **argv, const char *usage);

/* Parses a positive millisecond count; -1 if invalid. */
long cli_parse_ms(const char *s, long min_ms);

/* --interval's argument: cli_parse_ms(), and when invalid says so (the
 * range included) with cli_error and returns -1. */
long cli_interval_arg(const char *s, long min_ms);

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
