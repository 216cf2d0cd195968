// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage: dispatch to a subcommand. With none, the live view on a
 * terminal, the live snapshot table on a pipe.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ui.h"

static const char usage[] =
    "Usage: iotriage [COMMAND] [OPTIONS]\n"
    "\n"
    "With no command on a terminal: the live view (iotriage --embedded --help).\n"
    "\n"
    "Commands:\n"
    "  snapshot [--interval MS] [--json]   measure one interval on this host\n"
    "  compute BEFORE AFTER [--json]       metrics from two recorded trees\n"
    "  capture DIR                         record this host's counters into DIR\n"
    "  replay [DIR|FILE] [--at T] [--json] a flight recording (iotriaged --record)\n"
    "  report [DIR|FILE] [-o FILE]         the incident report of a window (HTML, --text)\n"
    "  bench --filename=PATH [fio options] load a disk as fio does (see bench --help)\n"
    "  suggest [--json]                    findings and suggestions, with undo\n"
    "  apply ID                            apply suggestion ID (root), journal its undo\n"
    "  undo [ID]                           restore what apply changed\n"
    "  worker start|stop|status            a bench job run by iotriaged (root)\n"
    "  threads PID [--json]                per-thread IO of one process (taskstats)\n"
    "  metrics [--textfile PATH]           the Prometheus exposition, once\n"
    "\n"
    "  --help      show this help\n"
    "  --version   show the version\n"
    "\n"
    "Exit status: 0 ok, 1 failure, 2 usage error.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "snapshot", cmd_snapshot }, { "compute", cmd_compute }, { "capture", cmd_capture },
	{ "bench", cmd_bench },	      { "suggest", cmd_suggest }, { "apply", cmd_apply },
	{ "undo", cmd_undo },	      { "worker", cmd_worker },	  { "threads", cmd_threads },
	{ "metrics", cmd_metrics },   { "replay", cmd_replay },	  { "report", cmd_report },
};

/*
 * A command whose output could not all be written (a full disk, a closed
 * pipe, memory the escaping stream could not get) failed, whatever it
 * returned: `compute --json > /dev/full` used to exit 0 with nothing out.
 */
static int finish(int rc)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	cli_error("stdout", "%s", errno ? strerror(errno) : "the output could not all be written");
	return rc == EXIT_OK ? EXIT_FAIL : rc;
}

/* No command: the live view on a terminal; a pipe or a script gets one
 * snapshot table, as before the TUI existed. */
static int live(int argc, char **argv)
{
	if (isatty(STDOUT_FILENO))
		return cmd_tui(argc, argv);
	cli_escape_stdio();
	return finish(cmd_snapshot(argc, argv));
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return live(argc, argv);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		printf("%s", usage);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("iotriage %s\n", IOTRIAGE_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			/* best effort: out of memory here, the output is unescaped
			 * but cli_error still escapes. replay may open the live
			 * view, whose ncurses output must reach the terminal as
			 * it is: it escapes its text output itself. */
			if (commands[i].run != cmd_replay)
				cli_escape_stdio();
			return finish(commands[i].run(argc - 1, argv + 1));
		}
	if (argv[1][0] == '-')
		return live(argc, argv);
	cli_error(argv[1], "unknown command (try --help)");
	return EXIT_USAGE;
}
