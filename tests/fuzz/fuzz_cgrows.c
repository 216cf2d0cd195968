// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the block probe's per-CPU (cgroup, disk) rows as the
 * map might hold them (arbitrary bytes: ids, devices, counts, buckets),
 * through trace_cg_take, the recording's pack and unpack, and the metrics
 * and JSON of two such reads. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encode_trace.h"
#include "metrics_trace.h"
#include "rec_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size / sizeof(struct trace_cg_row), half = n / 2;
	struct trace_cg_row *rows;
	struct trace_raw a = { .valid = true, .ncpu = 1, .mono_ns = 1, .cg_read = true };
	struct trace_raw b = { .valid = true, .ncpu = 1, .mono_ns = 1000000001, .cg_read = true };
	struct trace_raw u = { 0 };
	struct trace_metrics m = { 0 };
	uint64_t soft[2 * TRACE_NR_SOFTIRQS] = { 0 };
	struct strbuf sb = { 0 }, rec = { 0 };

	if (!n)
		return 0;
	rows = malloc(n * sizeof(*rows));
	if (!rows)
		return 0;
	memcpy(rows, data, n * sizeof(*rows));
	/* the first half the earlier read, the whole the later one */
	if (trace_cg_take(rows, half, &a) >= 0 && trace_cg_take(rows, n, &b) >= 0) {
		for (size_t i = 0; i < b.ncg; i++)
			if (!b.cg[i].cgid || b.cg[i].kind >= TRACE_LAT__COUNT ||
			    (i && trace_cg_cmp(&b.cg[i - 1], &b.cg[i]) >= 0))
				abort();
		a.soft_ns = a.soft_count = soft;
		b.soft_ns = b.soft_count = soft;
		for (int k = 0; k < TRACE__COUNT; k++)
			a.probe[k].read = b.probe[k].read = true;
		if (metrics_trace_compute(&a, &b, NULL, &m) >= 0)
			encode_trace(&sb, NULL, &b, &m);
		/* what the recorder writes of it reads back the same */
		if (!rec_trace_pack(&b, &rec) && rec_trace_unpack(rec.buf, rec.len, &u) == 0) {
			if (u.ncg != b.ncg)
				abort();
			for (size_t i = 0; i < u.ncg; i++)
				if (trace_cg_cmp(&u.cg[i], &b.cg[i]) ||
				    u.cg[i].count != b.cg[i].count ||
				    memcmp(u.cg[i].slots, b.cg[i].slots, sizeof(u.cg[i].slots)))
					abort();
		}
		sb_free(&sb);
		sb_free(&rec);
		metrics_trace_free(&m);
	}
	trace_raw_free(&u);
	free(a.cg);
	free(b.cg);
	free(rows);
	return 0;
}
