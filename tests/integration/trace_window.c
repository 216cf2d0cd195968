// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage over windows a test chooses: loads the probes, prints
 * "ready", then reads the maps at each "read" line on stdin and, from the
 * second read on, prints the "trace" section of the interval since the one
 * before (doc/json.md) on one line. Lets a test line its windows up with
 * libbpf-tools' (tests/integration/test_trace.py, tests/bench/bench_trace.py).
 * Usage: trace_window [--budget PCT] [--btf PATH]; exit 77 when tracing is
 * unavailable (the reason on stderr), 1 on failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode_trace.h"
#include "trace.h"

int main(int argc, char **argv)
{
	struct trace_opts o = { .budget_pct = 0 };
	struct trace_raw raw[2] = { 0 };
	struct trace_metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct trace *t;
	char why[IOT_REASON_MAX], line[64];
	unsigned n = 0;
	int r;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--budget"))
			o.budget_pct = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--btf"))
			o.btf_path = argv[i + 1];
	}
	r = trace_open(&o, &t, why, sizeof(why));
	if (r < 0) {
		fprintf(stderr, "tracing: unavailable (%s)\n", why);
		return r == -ENOMEM ? 1 : 77;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		struct trace_raw *cur = &raw[n & 1], *prev = &raw[(n & 1) ^ 1];

		if (strncmp(line, "read", 4))
			continue;
		r = trace_read(t, cur);
		if (r < 0) {
			fprintf(stderr, "trace_read: %s\n", strerror(-r));
			break;
		}
		if (n++) {
			r = metrics_trace_compute(prev, cur, NULL, &m);
			sb_reset(&sb);
			sb_putc(&sb, '{');
			encode_trace(&sb, NULL, cur, r >= 0 ? &m : NULL);
			sb.len--; /* the trailing comma */
			sb_putc(&sb, '}');
			printf("%.*s\n", (int)sb.len, sb.buf);
		} else {
			printf("read\n");
		}
		fflush(stdout);
	}
	sb_free(&sb);
	metrics_trace_free(&m);
	trace_raw_free(&raw[0]);
	trace_raw_free(&raw[1]);
	trace_close(t);
	return r < 0 ? 1 : 0;
}
