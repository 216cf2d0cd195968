// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TUI's one loop: poll on the terminal, a signalfd, the source's fd and
 * the source's deadline; keys go to ui_key.c, which returns UI_* flags, and
 * the loop alone redraws (ui_screen.c). Owns the terminal: it is restored on
 * every way out, fatal signals included. Its options, the colours, the
 * start and the end are here; views draw, reached only through their table
 * (ui_views.c); the source and the model fetch and decode.
 */
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "source.h"
#include "ui.h"
#include "ui_int.h"

#define UI_DEFAULT_AWAIT_MS 20.0 /* a busy SSD stays well under, a busy HDD around it */

/* ---- terminal restore on fatal signals ---- */

/*
 * What endwin() would send, captured while the terminal is set up, so a
 * crashing client can put the terminal back with async-signal-safe calls
 * only (write, tcsetattr) before dying with the same signal.
 */
static struct {
	bool armed;
	struct termios tio;
	char seq[256];
	size_t len;
} restore;

static void restore_add(const char *cap)
{
	char *s = tigetstr(cap);
	size_t n;

	if (!s || s == (char *)-1)
		return;
	n = strlen(s);
	if (restore.len + n < sizeof(restore.seq)) {
		memcpy(restore.seq + restore.len, s, n);
		restore.len += n;
	}
}

static void restore_fatal(int sig)
{
	if (restore.armed) {
		ssize_t n = write(STDOUT_FILENO, restore.seq, restore.len);

		(void)n;
		tcsetattr(STDIN_FILENO, TCSANOW, &restore.tio);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
/* Signals that mean "quit": read from the signalfd in the loop. */
static const int quit_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* ---- the loop ---- */

static void setup_colors(struct ui *ui)
{
	if (!ui->color || !has_colors() || start_color() == ERR) {
		ui->color = false;
		return;
	}
	use_default_colors();
	init_pair(PAIR_HEADER, COLOR_BLACK, COLOR_CYAN);
	init_pair(PAIR_TITLE, COLOR_BLACK, COLOR_GREEN);
	init_pair(PAIR_WARN, COLOR_YELLOW, -1);
	init_pair(PAIR_CRIT, COLOR_RED, -1);
	init_pair(PAIR_HOT, COLOR_WHITE, COLOR_RED);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_SOFT, COLOR_MAGENTA, -1);
	init_pair(PAIR_IRQ, COLOR_YELLOW, -1);
	init_pair(PAIR_WAIT, COLOR_BLUE, -1);
	init_pair(PAIR_INFO, COLOR_CYAN, -1);
}

static int ui_loop(struct ui *ui, int sfd)
{
	unsigned flags = UI_REDRAW;
	/* stdin at EOF (iotriage </dev/null) would poll readable forever: without
	 * a keyboard the view still runs and a signal ends it */
	int kbd = isatty(STDIN_FILENO) ? STDIN_FILENO : -1;
	int quit_sig = 0;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = kbd, .events = POLLIN },
			{ .fd = sfd, .events = POLLIN },
		};
		int64_t deadline, t;
		int timeout, n;

		if (flags & UI_QUIT)
			break;
		if (flags & UI_REDRAW)
			ui_draw(ui);
		flags = 0;
		source_pollfd(ui->src, &pfd[2]);
		deadline = source_deadline_ns(ui->src);
		t = clock_mono_ns();
		if (deadline == INT64_MAX)
			timeout = -1;
		else if (deadline <= t)
			timeout = 0;
		else
			timeout = (int)((deadline - t + 999999) / 1000000);
		n = poll(pfd, pfd[2].fd >= 0 ? 3 : 2, timeout);
		if (n < 0 && errno != EINTR)
			return -errno;
		t = clock_mono_ns();
		/* ncurses turns SIGWINCH into KEY_RESIZE on the next getch(), and
		 * poll() returned EINTR: always drain the keyboard */
		for (int ch; (ch = getch()) != ERR;)
			flags |= ui_key(ui, ch, t);
		source_want(ui->src, ui_screen_wanted(ui)); /* every read while looking */
		/* the terminal went away (ssh dropped without SIGHUP reaching us):
		 * nothing will ever be read again, and poll would spin */
		if (n > 0 && (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
			flags |= UI_QUIT;
		if (n > 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				quit_sig = (int)si.ssi_signo;
			flags |= UI_QUIT;
		}
		if ((n > 0 && pfd[2].fd >= 0 && pfd[2].revents) || source_deadline_ns(ui->src) <= t)
			flags |=
			    source_dispatch(ui->src, n > 0 && pfd[2].fd >= 0 ? pfd[2].revents : 0,
					    t, &ui->model, ui->paused);
		/* a time key's answer from the daemon (its recording) */
		if (source_past_note_take(ui->src, ui->note, sizeof(ui->note)))
			flags |= UI_REDRAW;
	}
	return quit_sig;
}

static const char tui_usage[] =
    "Usage: iotriage [--socket PATH | --embedded] [--interval MS] [--root DIR]\n"
    "                [--no-color] [--await-ms MS]\n"
    "The live view: from iotriaged if its socket answers, else sampled in-process.\n"
    "  --socket PATH   use the daemon at PATH only (waits and reconnects)\n"
    "  --embedded      sample in this process, never ask a daemon\n"
    "  --interval MS   embedded sampling interval (default 1000, minimum 100)\n"
    "  --root DIR      read /proc and /sys under DIR (a recorded or rewritten tree)\n"
    "  --no-color      no colours (as the NO_COLOR environment variable)\n"
    "  --await-ms MS   colour r_await/w_await above MS (default 20)\n"
    "  --trace         embedded, with BPF tracing: IRQ/softirq time, IO latency\n"
    "                  percentiles (root, or CAP_BPF and CAP_PERFMON; doc/trace.md)\n"
    "  --trace-budget PCT  with --trace: switch a probe off past PCT % of one CPU\n"
    "                  (default 2; 0 never: heavy packet rates cost the softirq probe more)\n"
    "Keys: F1/h/? help, F10/q quit, F6/s sort, / filter, space pause, +/- interval,\n"
    "Tab panel, arrows/jk move, f findings (a apply, u undo: each asks y/N),\n"
    "p processes by IO, t turbostat sources (each column's, or why unavailable),\n"
    "[ ] the previous / next CPU of the heat map (64 CPUs and more), Enter a\n"
    "disk's queue chain (its blk-mq queues, interrupts and their CPUs' load), a\n"
    "NIC's (its queues, with --trace their NET_RX time) or an IRQ device group's\n"
    "lines. Time: < > (or , .) the previous / next sample\n"
    "kept (a daemon's history and, with --record, its recording), b jump to a\n"
    "time, i the interval (10 s, 1 min, 10 min: embedded, or from the daemon's\n"
    "recording), n now.\n"
    "When stdout is not a terminal, iotriage prints one snapshot (iotriage snapshot)\n"
    "instead.\n";

enum {
	OPT_SOCKET = 0x100,
	OPT_EMBEDDED,
	OPT_ROOT,
	OPT_NO_COLOR,
	OPT_AWAIT,
	OPT_TRACE,
	OPT_TRACE_BUDGET
};

static int parse_args(int argc, char **argv, struct ui_opts *o)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "embedded", no_argument, NULL, OPT_EMBEDDED },
		{ "interval", required_argument, NULL, 'i' },
		{ "root", required_argument, NULL, OPT_ROOT },
		{ "no-color", no_argument, NULL, OPT_NO_COLOR },
		{ "await-ms", required_argument, NULL, OPT_AWAIT },
		{ "trace", no_argument, NULL, OPT_TRACE },
		{ "trace-budget", required_argument, NULL, OPT_TRACE_BUDGET },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool budget = false;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case OPT_SOCKET:
			o->socket = optarg;
			break;
		case OPT_EMBEDDED:
			o->embedded = true;
			break;
		case 'i':
			o->interval_ms = cli_interval_arg(optarg, 100);
			if (o->interval_ms < 0)
				return -EXIT_USAGE;
			break;
		case OPT_ROOT:
			o->root = optarg;
			break;
		case OPT_NO_COLOR:
			o->no_color = true;
			break;
		case OPT_TRACE:
			/* the daemon traces with its own --trace */
			o->trace = o->embedded = true;
			break;
		case OPT_TRACE_BUDGET:
			o->trace_budget_pct = strtod(optarg, &end);
			if (end == optarg || *end || !(o->trace_budget_pct >= 0) ||
			    o->trace_budget_pct > 100) {
				cli_error("--trace-budget", "'%s' is not a percent from 0 to 100",
					  optarg);
				return -EXIT_USAGE;
			}
			budget = true;
			break;
		case OPT_AWAIT:
			o->await_ms = strtod(optarg, &end);
			if (end == optarg || *end || !(o->await_ms > 0) || o->await_ms > 1e6) {
				cli_error("--await-ms", "'%s' is not a positive number of ms",
					  optarg);
				return -EXIT_USAGE;
			}
			break;
		case 'h':
			printf("%s", tui_usage);
			return 1;
		default:
			fprintf(stderr, "%s", tui_usage);
			return -EXIT_USAGE;
		}
	}
	if (optind != argc) {
		cli_error(argv[optind], "unexpected argument (try --help)");
		return -EXIT_USAGE;
	}
	if (o->socket && o->embedded) {
		cli_error("--socket", "cannot be combined with --embedded");
		return -EXIT_USAGE;
	}
	if (budget && !o->trace) {
		cli_error("--trace-budget", "needs --trace (a daemon traces with its own budget)");
		return -EXIT_USAGE;
	}
	return 0;
}

/* The live view's state for these options, its source open; NULL after
 * saying why. */
static struct ui *ui_new(const struct ui_opts *o, const char *replay, int64_t at_ns)
{
	const char *nc = getenv("NO_COLOR");
	struct source_opts so;
	struct ui *ui;
	char err[512];

	ui = calloc(1, sizeof(*ui));
	if (!ui) {
		cli_error("tui", "%s", strerror(ENOMEM));
		return NULL;
	}
	ui->await_ms = o->await_ms;
	ui->root = o->root;
	ui->color = !o->no_color && !(nc && nc[0]); /* no-color.org: set and non-empty */
	ui->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	so = (struct source_opts){ .socket = o->socket,
				   .embedded = o->embedded,
				   .interval_ms = o->interval_ms,
				   .root = o->root,
				   .replay = replay,
				   .replay_at = at_ns,
				   .trace = o->trace,
				   .trace_budget_pct = o->trace_budget_pct };
	if (source_open(&so, &ui->src, err, sizeof(err)) < 0) {
		fprintf(stderr, "iotriage: %s\n", err);
		free(ui);
		return NULL;
	}
	if (source_trace_unavailable(ui->src))
		fprintf(stderr, "iotriage: tracing: unavailable (%s)\n",
			source_trace_unavailable(ui->src));
	return ui;
}

static void ui_free(struct ui *ui)
{
	source_close(ui->src);
	for (size_t i = 0; ui_views[i]; i++)
		if (ui_views[i]->free)
			ui_views[i]->free(ui);
	model_free(&ui->model);
	for (int i = 0; i < PANEL__COUNT; i++)
		free(ui->panels[i].order);
	free(ui);
}

/* Quit signals arrive on a signalfd, so the loop leaves through endwin():
 * blocked (the mask before in *ret_old) and the fd returned, or -1 after
 * saying why. */
static int quit_signalfd(sigset_t *ret_old)
{
	sigset_t mask;
	int sfd;

	sigemptyset(&mask);
	for (size_t i = 0; i < sizeof(quit_signals) / sizeof(quit_signals[0]); i++)
		sigaddset(&mask, quit_signals[i]);
	sigprocmask(SIG_BLOCK, &mask, ret_old);
	signal(SIGPIPE, SIG_IGN); /* a daemon that went away is an EPIPE, not a death */
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		cli_error("signalfd", "%s", strerror(errno));
	return sfd;
}

/* The fatal signals to handler (restore_fatal, or SIG_DFL after endwin). */
static void fatal_handlers(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaction(fatal_signals[i], &sa, NULL);
}

/* The terminal taken by curses, what puts it back captured for the fatal
 * signals; NULL after saying why. */
static SCREEN *term_start(struct ui *ui)
{
	SCREEN *scr;

	tcgetattr(STDIN_FILENO, &restore.tio);
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		const char *term = getenv("TERM");

		cli_error("terminal", "cannot drive TERM=%s", term ? term : "(unset)");
		return NULL;
	}
	restore_add("sgr0");
	restore_add("cnorm");
	restore_add("rmkx");
	restore_add("rmcup");
	restore.armed = true;
	fatal_handlers(restore_fatal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	/* a click on the CPU heat map selects that CPU */
	mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED, NULL);
	setup_colors(ui);
	return scr;
}

static void term_stop(SCREEN *scr)
{
	endwin();
	restore.armed = false;
	fatal_handlers(SIG_DFL);
	delscreen(scr);
}

static int tui_run(const struct ui_opts *o, const char *replay, int64_t at_ns)
{
	struct ui *ui;
	sigset_t old;
	SCREEN *scr;
	int r, sfd, ret = EXIT_FAIL;

	setlocale(LC_ALL, "");
	ui = ui_new(o, replay, at_ns);
	if (!ui)
		return EXIT_FAIL;
	sfd = quit_signalfd(&old);
	if (sfd < 0)
		goto out_mask;
	scr = term_start(ui);
	if (!scr)
		goto out_sfd;
	r = ui_loop(ui, sfd);
	ret = r < 0 ? EXIT_FAIL : EXIT_OK;
	term_stop(scr);
	if (r < 0)
		cli_error("poll", "%s", strerror(-r));
out_sfd:
	close(sfd);
out_mask:
	sigprocmask(SIG_SETMASK, &old, NULL);
	ui_free(ui);
	return ret;
}

int cmd_tui(int argc, char **argv)
{
	struct ui_opts o = { .await_ms = UI_DEFAULT_AWAIT_MS, .trace_budget_pct = -1 };
	int r;

	r = parse_args(argc, argv, &o);
	if (r)
		return r > 0 ? EXIT_OK : -r;
	return tui_run(&o, NULL, 0);
}

int ui_replay(const char *path, int64_t at_ns, const char *root, int64_t step_ns)
{
	/* a replay's --interval is its step */
	struct ui_opts o = { .await_ms = UI_DEFAULT_AWAIT_MS,
			     .root = root,
			     .interval_ms = (long)(step_ns / 1000000) };

	return tui_run(&o, path, at_ns);
}
