// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * advise_hold_step on the sampling path (src/advise/hold.c): in the steady
 * state it allocates nothing (its suggestions' actions are taken from the
 * advice, not copied: malloc/calloc/realloc are wrapped at link time and
 * counted); the shown advice has every suggestion with its actions as
 * computed, a finding held after it vanished keeps its last ones, and
 * everything is released (ASan) whether the advice is shown or held.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "advise.h"
#include "alloc_count.h"

/* As advise_run makes it: nf findings, 2 suggestions each of 1 + i
 * actions whose value says the sample (t). */
static void make(struct advice *a, size_t nf, unsigned t)
{
	memset(a, 0, sizeof(*a));
	a->findings = calloc(nf + 1, sizeof(*a->findings));
	a->suggestions = calloc(2 * nf + 1, sizeof(*a->suggestions));
	assert_non_null(a->findings);
	assert_non_null(a->suggestions);
	for (size_t i = 0; i < nf; i++) {
		struct finding *f = &a->findings[a->nfindings++];

		snprintf(f->id, sizeof(f->id), "hot-cpu-%zu", i);
		f->severity = ADV_WARNING;
		f->harm = (double)(nf - i);
		for (int k = 0; k < 2; k++) {
			struct suggestion *s = &a->suggestions[a->nsuggestions++];

			snprintf(s->id, sizeof(s->id), "irq-spread-%zu-%d", i, k);
			snprintf(s->finding, sizeof(s->finding), "%s", f->id);
			s->nactions = 1 + i;
			s->actions = calloc(s->nactions, sizeof(*s->actions));
			assert_non_null(s->actions);
			for (size_t j = 0; j < s->nactions; j++)
				snprintf(s->actions[j].value, sizeof(s->actions[j].value), "%u-%zu",
					 t, j);
		}
	}
	a->findings_cap = a->nfindings;
	a->suggestions_cap = a->nsuggestions;
	advise_rank(a);
}

static void check_shown(const struct advice *a, size_t nf, unsigned t)
{
	assert_int_equal(a->nfindings, nf);
	assert_int_equal(a->nsuggestions, 2 * nf);
	for (size_t i = 0; i < nf; i++) {
		char id[ADV_ID_MAX];
		const struct suggestion *s;

		snprintf(id, sizeof(id), "irq-spread-%zu-1", i);
		s = advice_suggestion(a, id);
		assert_non_null(s);
		assert_int_equal(s->nactions, 1 + i);
		for (size_t j = 0; j < s->nactions; j++) {
			char v[32];

			snprintf(v, sizeof(v), "%u-%zu", t, j);
			assert_string_equal(s->actions[j].value, v);
		}
	}
}

static void test_steady_no_alloc(void **state)
{
	struct advise_hold h = { 0 };
	struct advice a;

	(void)state;
	for (unsigned t = 0; t < 10; t++) {
		unsigned long before;

		make(&a, 6, t);
		before = alloc_count();
		assert_int_equal(advise_hold_step(&h, &a), 0);
		/* once the findings stand (and the hold's arrays have grown) */
		if (t >= ADV_RISE_SAMPLES)
			assert_int_equal(alloc_count() - before, 0);
		if (t + 1 >= ADV_RISE_SAMPLES)
			check_shown(&a, 6, t);
		else
			assert_int_equal(a.nfindings, 0);
		advice_free(&a);
	}
	advise_hold_free(&h);
}

/* A shown finding that vanished is held with its last suggestions, actions
 * and all, then cleared; a new advice meanwhile is shown beside it. */
static void test_held_keeps_actions(void **state)
{
	struct advise_hold h = { 0 };
	struct advice a;

	(void)state;
	for (unsigned t = 0; t < 3; t++) {
		make(&a, 3, t);
		assert_int_equal(advise_hold_step(&h, &a), 0);
		advice_free(&a);
	}
	for (unsigned t = 3; t < 3 + ADV_CLEAR_SAMPLES; t++) {
		make(&a, 1, t); /* hot-cpu-1 and -2 vanished */
		assert_int_equal(advise_hold_step(&h, &a), 0);
		if (t < 2 + ADV_CLEAR_SAMPLES) {
			const struct suggestion *s = advice_suggestion(&a, "irq-spread-2-0");

			assert_int_equal(a.nfindings, 3);
			assert_non_null(s);
			assert_int_equal(s->nactions, 3);
			assert_string_equal(s->actions[2].value, "2-2"); /* as last seen */
			char v[32];

			snprintf(v, sizeof(v), "%u-0", t); /* present: this sample's */
			assert_string_equal(
			    advice_suggestion(&a, "irq-spread-0-0")->actions[0].value, v);
		} else {
			assert_int_equal(a.nfindings, 1);
		}
		advice_free(&a);
	}
	advise_hold_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_no_alloc),
		cmocka_unit_test(test_held_keeps_actions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
