// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One read of the tracing stage's maps (trace_raw.h): its destructor, the
 * order of its rows, and the checks every read gets, live (trace_maps.c,
 * trace_rows.c), recorded (rec_trace.c) or the difference of two
 * (metrics_trace.c). Pure; built with or without BPF.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_raw.h"

void trace_raw_free(struct trace_raw *r)
{
	if (!r)
		return;
	free(r->soft_ns);
	free(r->soft_count);
	free(r->irq);
	free(r->irq_ns);
	free(r->irq_count);
	free(r->lat);
	free(r->napi);
	free(r->blkq);
	free(r->hlat);
	free(r->cg);
	memset(r, 0, sizeof(*r));
}

/* Two rows' keys, most significant field first, as qsort wants */
static int keys_cmp(const uint64_t *x, const uint64_t *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

int trace_lat_cmp(const void *a, const void *b)
{
	const struct trace_lat_raw *x = a, *y = b;

	return keys_cmp((const uint64_t[]){ x->major, x->minor, x->hctx, x->op, x->kind },
			(const uint64_t[]){ y->major, y->minor, y->hctx, y->op, y->kind }, 5);
}

int trace_cg_cmp(const void *a, const void *b)
{
	const struct trace_cg_raw *x = a, *y = b;

	return keys_cmp((const uint64_t[]){ x->cgid, x->major, x->minor, x->kind },
			(const uint64_t[]){ y->cgid, y->major, y->minor, y->kind }, 4);
}

int trace_napi_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct trace_napi_raw *)a)->napi_id;
	uint32_t y = ((const struct trace_napi_raw *)b)->napi_id;

	return x < y ? -1 : x > y;
}

int trace_blkq_cmp(const void *a, const void *b)
{
	const struct trace_blkq_raw *x = a, *y = b;

	return keys_cmp((const uint64_t[]){ x->major, x->minor, x->hctx },
			(const uint64_t[]){ y->major, y->minor, y->hctx }, 3);
}

unsigned trace_lat_check(struct trace_lat_raw *l)
{
	unsigned r = 0;
	long double cap_us = 0;
	uint64_t n = 0;
	int top = -1;

	for (int s = 0; s < TRACE_HIST_SLOTS; s++) {
		if (!trace_add_sat(&n, l->slots[s]))
			return TRACE_CHECK_BAD;
		if (l->slots[s]) {
			top = s;
			/* bucket s holds [2^s, 2^(s+1)) us */
			cap_us += (long double)l->slots[s] * (long double)(2ull << s);
		}
	}
	/* the last bucket is everything above 2^31 us: no bound */
	if (top >= 0 && top < TRACE_HIST_SLOTS - 1 && (long double)l->sum_ns > cap_us * 1000.0L)
		return TRACE_CHECK_BAD;
	if (!n && l->sum_ns)
		return TRACE_CHECK_BAD;
	if (l->count != n) {
		l->count = n;
		r |= TRACE_CHECK_COUNT;
	}
	if (l->remote > n) {
		l->remote = n;
		r |= TRACE_CHECK_REMOTE;
	}
	return r;
}

unsigned trace_cg_check(struct trace_cg_raw *g)
{
	struct trace_lat_raw l = { .count = g->count, .sum_ns = g->sum_ns };
	unsigned r;

	memcpy(l.slots, g->slots, sizeof(l.slots));
	r = trace_lat_check(&l);
	g->count = l.count;
	return r;
}

bool trace_time_ok(uint64_t d_ns, uint64_t dt_ns)
{
	return (long double)d_ns <= (long double)dt_ns * 1.25L + TRACE_TIME_SLACK_NS;
}

bool trace_ios_ok(uint64_t n, uint64_t dt_ns, uint32_t weight)
{
	return (long double)n <=
	       ((long double)(dt_ns / TRACE_IO_MIN_NS) + 1.0L) * (long double)(weight ? weight : 1);
}
