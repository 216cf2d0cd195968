// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriage threads PID: per-thread IO of one process over one interval,
 * each thread asked through taskstats (its answer carries the thread's
 * bytes and delays). Owns the clock of the interval; computes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clock.h"
#include "encode_workload.h"
#include "metrics_proc.h"
#include "strbuf.h"
#include "taskstats.h"
#include "text.h"

static const char threads_usage[] =
    "Usage: iotriage threads PID [--interval MS] [--json] [--root DIR]\n"
    "\n"
    "Per-thread IO of process PID over one interval (default 1000 ms): bytes\n"
    "read, written and cancelled per second and, with delay accounting on\n"
    "(sysctl kernel.task_delayacct=1), the share of time each thread waited\n"
    "on block IO. Asks the taskstats netlink family: needs CAP_NET_ADMIN.\n";

static const struct option opts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "root", required_argument, NULL, CLI_OPT_ROOT },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static void print_text(const struct thread_table *t, const struct workload_metrics *x)
{
	printf("process %d: %zu thread(s)", t->pid, t->n);
	if (t->vanished)
		printf(", %u ended during the interval", t->vanished);
	printf("; delay accounting %s\n", t->delayacct == 0  ? "off (bytes only)"
					  : t->delayacct > 0 ? "on"
							     : "unknown");
	if (!x || !x->procs_valid)
		return;
	printf("%-8s %-16s %11s %11s %11s %9s\n", "TID", "COMMAND", "kB_rd/s", "kB_wr/s",
	       "kB_ccwr/s", "io_delay%");
	for (size_t i = 0; i < x->nby_io; i++) {
		const struct proc_metrics *p = &x->procs[x->by_io[i]];
		char comm[17]; /* a thread's name is its owner's choice: escaped */

		printf("%-8d %-16s %11.2f %11.2f %11.2f", p->pid,
		       text_safe(p->comm, comm, sizeof(comm)), p->rkb_s, p->wkb_s, p->ckb_s);
		if (p->has_delay)
			printf(" %9.2f", p->io_delay);
		putchar('\n');
	}
	if (!x->nby_io)
		printf("no thread did storage IO in the interval\n");
}

int cmd_threads(int argc, char **argv)
{
	struct taskstats_collector tc = { 0 };
	struct thread_table t0 = { 0 }, t1 = { 0 };
	struct workload_metrics *x = NULL;
	struct cli_opts o = { .interval_ms = 1000 };
	struct root root;
	int64_t start, itv_ms;
	int c, r, ret = EXIT_FAIL;
	char *end;
	long pid;

	optind = 1;
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ":i:jh", opts, &o)) != -1) {
		switch (c) {
		case CLI_OPT_BAD:
			return EXIT_USAGE;
		case 'h':
			printf("%s", threads_usage);
			return EXIT_OK;
		default:
			fprintf(stderr, "%s", threads_usage);
			return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s", threads_usage);
		return EXIT_USAGE;
	}
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || *end || end == argv[optind] || pid <= 0 || pid > INT32_MAX) {
		cli_error(argv[optind], "not a process id");
		return EXIT_USAGE;
	}
	r = root_open(o.root, &root);
	if (r < 0) {
		cli_error(o.root ? o.root : "/", "%s", strerror(-r));
		return EXIT_FAIL;
	}
	start = clock_mono_ms();
	r = taskstats_threads_collect(&tc, &root, (int32_t)pid, &t0);
	if (r < 0 || t0.status.err) {
		cli_error("threads", "%s", r < 0 ? strerror(-r) : t0.status.reason);
		goto out;
	}
	cli_sleep_ms(o.interval_ms);
	r = taskstats_threads_collect(&tc, &root, (int32_t)pid, &t1);
	itv_ms = clock_mono_ms() - start;
	if (r < 0 || t1.status.err) {
		cli_error("threads", "%s", r < 0 ? strerror(-r) : t1.status.reason);
		goto out;
	}
	/* centiseconds, the unit of every other rate; never 0 */
	r = metrics_proc_threads(&t0, &t1, itv_ms / 10 ? (uint64_t)itv_ms / 10 : 1, &x);
	if (r < 0) {
		cli_error("threads", "%s", strerror(-r));
		goto out;
	}
	if (o.json) {
		struct strbuf sb = { 0 };

		encode_workload_threads(&sb, &t1, x, (uint64_t)itv_ms);
		if (sb.err) {
			cli_error("threads", "%s", strerror(-sb.err));
			sb_free(&sb);
			goto out;
		}
		printf("%s\n", sb_cstr(&sb));
		sb_free(&sb);
	} else {
		print_text(&t1, x);
	}
	ret = EXIT_OK;
out:
	metrics_proc_free(x);
	thread_table_free(&t0);
	thread_table_free(&t1);
	taskstats_collector_free(&tc);
	root_close(&root);
	return ret;
}
