// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live view's cost per frame on a big host (issue 17: <= 5 ms at 1,024
 * CPUs): the embedded sampler takes two samples of TREE (advanced between
 * them by the command ADVANCE), the document is decoded into the TUI's
 * model, then the screen is drawn FRAMES times into a terminal of COLSxROWS
 * whose output goes to /dev/null. Reported: decoding one sample, a frame
 * whose data changed (a new sample: every cell rewritten, ncurses'
 * comparison and output included), and a frame as the first one after a
 * sample (the model decoded again, then drawn).
 * Usage: bench_tui TREE "ADVANCE COMMAND" [FRAMES] [COLSxROWS]
 * tests/bench/bench_tui.sh runs it on make-trees.py's big hosts.
 */
#include <errno.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "model.h"
#include "sampler.h"
#include "source.h"
#include "ui.h"

static double now_ms(void)
{
	return (double)clock_mono_ns() / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	printf("%-34s median %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%d runs)\n", what, v[n / 2],
	       v[n * 99 / 100], v[n - 1], n);
}

int main(int argc, char **argv)
{
	struct sampler_opts so = { .host = "bench", .mode = "live", .advise = true };
	struct source_opts src = { .embedded = true };
	struct sampler *sm;
	struct ui *ui;
	const char *json;
	size_t len;
	int frames = argc > 3 ? atoi(argv[3]) : 200, cols = 80, rows = 24;
	double *t;
	char err[256];
	FILE *out;
	SCREEN *scr;

	if (argc < 3 || frames < 1) {
		fprintf(stderr, "usage: bench_tui TREE \"ADVANCE COMMAND\" [FRAMES] [COLSxROWS]\n");
		return 2;
	}
	if (argc > 4 && sscanf(argv[4], "%dx%d", &cols, &rows) != 2)
		return 2;
	so.root = src.root = argv[1];
	if (sampler_open(&so, &sm) < 0 || sampler_tick(sm) < 0 || system(argv[2]) != 0 ||
	    sampler_tick(sm) < 0) {
		fprintf(stderr, "bench_tui: cannot sample %s\n", argv[1]);
		return 1;
	}
	json = sampler_json(sm, &len);
	ui = calloc(1, sizeof(*ui));
	t = calloc((size_t)frames, sizeof(*t));
	if (!ui || !t || source_open(&src, &ui->src, err, sizeof(err)) < 0)
		return 1;
	ui->utf8 = true;
	ui->color = true;
	ui->await_ms = 20;
	out = fopen("/dev/null", "w");
	setenv("TERM", "xterm-256color", 1);
	scr = newterm(NULL, out, stdin);
	if (!scr)
		return 1;
	resizeterm(rows, cols);
	start_color();
	use_default_colors();
	for (int p = 1; p < PAIR__COUNT; p++)
		init_pair((short)p, COLOR_WHITE, COLOR_RED);

	for (int i = 0; i < frames; i++) {
		double t0 = now_ms();

		if (model_apply_text(&ui->model, json, len, MODEL_VIEW) < 0)
			return 1;
		t[i] = now_ms() - t0;
	}
	printf("%s: %zu CPUs, %zu IRQ lines fired, %zu disks, %dx%d, document %zu bytes\n", argv[1],
	       ui->model.ncpus ? ui->model.ncpus - 1 : 0, ui->model.nirqs, ui->model.ndisks, cols,
	       rows, len);
	report("decode a sample (model_apply)", t, frames);
	for (int i = 0; i < frames; i++) {
		double t0 = now_ms();

		/* every cell rewritten, as when a new sample changes the numbers */
		clearok(curscr, TRUE);
		ui_draw(ui);
		t[i] = now_ms() - t0;
	}
	report("draw a frame (full repaint)", t, frames);
	for (int i = 0; i < frames; i++) {
		double t0 = now_ms();

		model_apply_text(&ui->model, json, len, MODEL_VIEW);
		clearok(curscr, TRUE);
		ui_draw(ui);
		t[i] = now_ms() - t0;
	}
	report("a new sample: decode + draw", t, frames);
	endwin();
	delscreen(scr);
	fclose(out);
	source_close(ui->src);
	model_free(&ui->model);
	sampler_close(sm);
	free(t);
	return 0;
}
