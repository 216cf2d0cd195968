// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Cost of advise_hold_step() a sample, on the sampling path of every
 * steady sampler (iotriaged, the embedded client):
 *
 *   bench_hold FINDINGS SUGGESTIONS ACTIONS [ROUNDS]
 *
 * Each round gives it an advice as advise_run() makes one (FINDINGS
 * standing findings, SUGGESTIONS suggestions for each, ACTIONS actions for
 * each suggestion: an IRQ spread has one per IRQ line), built outside the
 * measured part; measured: the step and the release of the advice it
 * returns (the sampler frees it at the next sample). Heap allocations in
 * the measured part are counted (malloc/calloc/realloc wrapped at link
 * time). Prints ns and allocations a step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "advise.h"
#include "alloc_count.h"
#include "clock.h"

static void make_advice(struct advice *a, size_t nf, size_t ns, size_t na)
{
	memset(a, 0, sizeof(*a));
	a->findings = calloc(nf + 1, sizeof(*a->findings));
	a->suggestions = calloc(nf * ns + 1, sizeof(*a->suggestions));
	if (!a->findings || !a->suggestions)
		exit(1);
	a->findings_cap = nf;
	a->suggestions_cap = nf * ns;
	for (size_t i = 0; i < nf; i++) {
		struct finding *f = &a->findings[a->nfindings++];

		snprintf(f->id, sizeof(f->id), "hot-cpu-%zu", i);
		f->severity = ADV_WARNING;
		snprintf(f->reason, sizeof(f->reason), "CPU %zu: 41.2 %% in irq+soft", i);
		for (size_t k = 0; k < ns; k++) {
			struct suggestion *s = &a->suggestions[a->nsuggestions++];

			snprintf(s->id, sizeof(s->id), "irq-spread-%zu-%zu", i, k);
			snprintf(s->finding, sizeof(s->finding), "%s", f->id);
			snprintf(s->reason, sizeof(s->reason), "spread the IRQs of nvme%zu", k);
			s->actions = calloc(na ? na : 1, sizeof(*s->actions));
			if (!s->actions)
				exit(1);
			s->nactions = na;
			for (size_t j = 0; j < na; j++)
				snprintf(s->actions[j].path, sizeof(s->actions[j].path),
					 "proc/irq/%zu/smp_affinity_list", 100 + j);
		}
	}
	advise_rank(a);
}

int main(int argc, char **argv)
{
	struct advise_hold h = { 0 };
	size_t nf, ns, na;
	long rounds;
	int64_t spent = 0;
	unsigned long allocs = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: bench_hold FINDINGS SUGGESTIONS ACTIONS [ROUNDS]\n");
		return 2;
	}
	nf = strtoul(argv[1], NULL, 10);
	ns = strtoul(argv[2], NULL, 10);
	na = strtoul(argv[3], NULL, 10);
	rounds = argc > 4 ? strtol(argv[4], NULL, 10) : 20000;
	for (long r = 0; r < rounds + ADV_RISE_SAMPLES; r++) {
		struct advice a;
		unsigned long a0;
		int64_t t0;

		make_advice(&a, nf, ns, na);
		a0 = alloc_count();
		t0 = clock_mono_ns();
		if (advise_hold_step(&h, &a) < 0)
			return 1;
		advice_free(&a);
		/* the findings stand from ADV_RISE_SAMPLES on: the steady state */
		if (r >= ADV_RISE_SAMPLES) {
			spent += clock_mono_ns() - t0;
			allocs += alloc_count() - a0;
		}
	}
	advise_hold_free(&h);
	printf("advise_hold_step: %zu findings x %zu suggestions x %zu actions: "
	       "%.2f us, %.1f allocations a step (%ld steps)\n",
	       nf, ns, na, (double)spent / 1e3 / (double)rounds, (double)allocs / (double)rounds,
	       rounds);
	return 0;
}
