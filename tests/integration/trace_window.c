// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage over windows a test chooses: loads the probes, prints
 * "ready", then reads the maps at each "read" line on stdin and, from the
 * second read on, prints the "trace" section of the interval since the one
 * before (doc/json.md) on one line. Lets a test line its windows up with
 * libbpf-tools' (tests/integration/test_trace.py, tests/bench/bench_trace.py).
 * "read ID..." also dumps, right after our maps, every entry of the BPF maps
 * ID... (a libbpf-tool's, found by the test with bpftool) as one line
 * {"maps":{"ID":[["KEYHEX","VALUEHEX"],...]}}: both tools' counters read at
 * the same instant, so the windows agree whatever the machine's load.
 * Usage: trace_window [--budget PCT] [--btf PATH] [--sample N] (the block
 * probe timing 1 in N requests from the start); exit 77 when tracing is
 * unavailable (the reason on stderr), 1 on failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include "encode_trace.h"
#include "trace.h"

static void hex(struct strbuf *sb, const unsigned char *p, size_t n)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < n; i++)
		sb_printf(sb, "%02x", p[i]);
	sb_putc(sb, '"');
}

/* Every entry of map id as ["KEYHEX","VALUEHEX"], (per-CPU values: each
 * CPU's in turn), at most 65536 of them. */
static void dump_map(struct strbuf *sb, unsigned id)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	unsigned char *key = NULL, *next = NULL, *val = NULL;
	size_t vs;
	int fd = bpf_map_get_fd_by_id(id), n = 0;
	bool first = true;

	sb_printf(sb, "\"%u\":[", id);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		goto out;
	vs = info.value_size;
	if (info.type == BPF_MAP_TYPE_PERCPU_ARRAY || info.type == BPF_MAP_TYPE_PERCPU_HASH)
		vs = (vs + 7) / 8 * 8 * (size_t)libbpf_num_possible_cpus();
	key = calloc(1, info.key_size);
	next = calloc(1, info.key_size);
	val = calloc(1, vs);
	if (!key || !next || !val)
		goto out;
	while (n < 65536 && bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		first = false;
		memcpy(key, next, info.key_size);
		if (bpf_map_lookup_elem(fd, key, val) < 0)
			continue;
		sb_puts(sb, n++ ? ",[" : "[");
		hex(sb, key, info.key_size);
		sb_putc(sb, ',');
		hex(sb, val, vs);
		sb_putc(sb, ']');
	}
out:
	sb_putc(sb, ']');
	free(key);
	free(next);
	free(val);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct trace_opts o = { .budget_pct = 0 };
	struct trace_raw raw[2] = { 0 };
	struct trace_metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct trace *t;
	struct strbuf maps = { 0 };
	char why[IOT_REASON_MAX], line[256];
	unsigned n = 0;
	int r;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--budget"))
			o.budget_pct = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--btf"))
			o.btf_path = argv[i + 1];
		else if (!strcmp(argv[i], "--sample"))
			o.block_sample = (uint32_t)strtoul(argv[i + 1], NULL, 10);
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
		sb_reset(&maps);
		if (line[4] == ' ') {
			char *p = line + 5, *end;
			unsigned long id;

			sb_puts(&maps, "{\"maps\":{");
			while ((id = strtoul(p, &end, 10)) && end != p) {
				if (maps.buf[maps.len - 1] != '{')
					sb_putc(&maps, ',');
				dump_map(&maps, (unsigned)id);
				p = end;
			}
			sb_puts(&maps, "}}");
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
		if (maps.len)
			printf("%.*s\n", (int)maps.len, maps.buf);
		fflush(stdout);
	}
	sb_free(&sb);
	sb_free(&maps);
	metrics_trace_free(&m);
	trace_raw_free(&raw[0]);
	trace_raw_free(&raw[1]);
	trace_close(t);
	return r < 0 ? 1 : 0;
}
