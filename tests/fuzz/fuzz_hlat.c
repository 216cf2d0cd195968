// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the block probe's shared per-hardware-queue rows as the
 * map might hold them (arbitrary bytes: keys, counts, buckets), through
 * trace_hlat_take and the metrics and JSON of two such reads. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encode_trace.h"
#include "metrics_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(struct trace_hlat_row), half = n / 2;
	struct trace_hlat_row *rows;
	struct trace_raw a = { .valid = true, .ncpu = 1, .mono_ns = 1, .hlat_read = true };
	struct trace_raw b = { .valid = true, .ncpu = 1, .mono_ns = 1000000001, .hlat_read = true };
	struct trace_metrics m = { 0 };
	uint64_t soft[2 * TRACE_NR_SOFTIRQS] = { 0 };
	struct strbuf sb = { 0 };

	if (!n)
		return 0;
	rows = malloc(n * sizeof(*rows));
	if (!rows)
		return 0;
	memcpy(rows, data, n * sizeof(*rows));
	/* the first half the earlier read, the whole the later one */
	if (trace_hlat_take(rows, half, &a) >= 0 && trace_hlat_take(rows, n, &b) >= 0) {
		for (size_t i = 0; i < b.nhlat; i++)
			if (b.hlat[i].op >= TRACE_OP__COUNT || b.hlat[i].hctx >= TRACE_HCTX_MAX ||
			    (i && trace_lat_cmp(&b.hlat[i - 1], &b.hlat[i]) >= 0))
				abort();
		a.soft_ns = a.soft_count = soft;
		b.soft_ns = b.soft_count = soft;
		for (int k = 0; k < TRACE__COUNT; k++)
			a.probe[k].read = b.probe[k].read = true;
		if (metrics_trace_compute(&a, &b, NULL, &m) >= 0)
			encode_trace(&sb, NULL, &b, &m);
		sb_free(&sb);
		metrics_trace_free(&m);
	}
	free(a.hlat);
	free(b.hlat);
	free(rows);
	return 0;
}
