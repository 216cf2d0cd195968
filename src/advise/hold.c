// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hysteresis over a stream of advice: a finding is shown once it stood
 * ADV_RISE_SAMPLES samples in a row and stays, as last seen, until it was
 * absent ADV_CLEAR_SAMPLES samples in a row; a shown finding's severity
 * likewise moves up after ADV_RISE_SAMPLES samples in a row measured above
 * it and down after ADV_CLEAR_SAMPLES below it. One judgement drawn once per
 * sample for the headline, the HOT mark, /metrics and the alert rules, so
 * none of them flickers when a finding's numbers hover at a threshold (a
 * severity is a label of the finding's series: a flip is a new series and
 * restarts an alert's for:).
 * Pure: its only input is the advice it is given, sample after sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "grow.h"

#define HOLD_MAX 256 /* findings remembered at once; a new one past them waits */

struct advise_hold_entry {
	struct finding f;     /* as last seen */
	struct suggestion *s; /* its suggestions as last seen; their actions are
			       * the hold's (taken from the advice, never copied) */
	size_t ns, scap;
	unsigned seen, absent; /* samples in a row present / absent */
	unsigned above, below; /* samples in a row measured above / below f.severity */
	bool shown, present;
};

int advise_suggestion_copy(const struct suggestion *s, struct suggestion *ret)
{
	struct suggestion c = *s;

	c.actions = NULL;
	if (s->nactions) {
		c.actions = malloc(s->nactions * sizeof(*c.actions));
		if (!c.actions)
			return -ENOMEM;
		memcpy(c.actions, s->actions, s->nactions * sizeof(*c.actions));
	}
	*ret = c;
	return 0;
}

static void entry_drop_actions(struct advise_hold_entry *e)
{
	for (size_t i = 0; i < e->ns; i++)
		free(e->s[i].actions);
	e->ns = 0;
}

static void entry_free_suggestions(struct advise_hold_entry *e)
{
	entry_drop_actions(e);
	free(e->s);
	e->s = NULL;
	e->scap = 0;
}

/*
 * e's suggestions become a's that answer e's finding, their actions moved
 * out of a (a's left without): no copy on the sampling path (copying them
 * twice a sample was 3.4 ms a sample with 32 suggestions of 64 IRQs each,
 * doc/PERFORMANCE.md "Advice hysteresis"). The previous ones' actions go:
 * the advice shown with them was released before this step.
 */
static int entry_take_suggestions(struct advise_hold_entry *e, struct advice *a)
{
	entry_drop_actions(e);
	for (size_t i = 0; i < a->nsuggestions; i++) {
		struct suggestion *s = &a->suggestions[i];

		if (strcmp(s->finding, e->f.id) != 0)
			continue;
		if (grow((void **)&e->s, &e->scap, e->ns + 1, sizeof(*e->s)) < 0)
			return -ENOMEM;
		e->s[e->ns++] = *s;
		s->actions = NULL;
		s->nactions = 0;
	}
	return 0;
}

static struct advise_hold_entry *hold_find(struct advise_hold *h, const char *id)
{
	for (size_t i = 0; i < h->n; i++)
		if (strcmp(h->e[i].f.id, id) == 0)
			return &h->e[i];
	return NULL;
}

/* a becomes the shown entries, in its own arrays; the suggestions' actions
 * are the entries' (a->actions_held), so nothing is copied but the structs. */
static int hold_advice(const struct advise_hold *h, struct advice *a)
{
	/* the actions the hold did not take (a finding past HOLD_MAX) */
	for (size_t i = 0; i < a->nsuggestions; i++)
		free(a->suggestions[i].actions);
	a->nfindings = a->nsuggestions = 0;
	a->actions_held = true;
	for (size_t i = 0; i < h->n; i++) {
		const struct advise_hold_entry *e = &h->e[i];

		if (!e->shown)
			continue;
		if (grow((void **)&a->findings, &a->findings_cap, a->nfindings + 1,
			 sizeof(*a->findings)) < 0)
			return -ENOMEM;
		a->findings[a->nfindings] = e->f;
		a->findings[a->nfindings].held = e->absent;
		a->nfindings++;
		if (grow((void **)&a->suggestions, &a->suggestions_cap, a->nsuggestions + e->ns,
			 sizeof(*a->suggestions)) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < e->ns; k++)
			a->suggestions[a->nsuggestions++] = e->s[k];
	}
	advise_rank(a);
	return 0;
}

/* e's finding becomes f as measured, with a shown one's severity held. */
static void hold_severity(struct advise_hold_entry *e, const struct finding *f)
{
	enum advise_severity sev = e->f.severity;

	if (!e->shown || f->severity == sev) {
		e->above = e->below = 0;
		sev = f->severity;
	} else if (f->severity > sev) {
		e->below = 0;
		if (++e->above >= ADV_RISE_SAMPLES) {
			e->above = 0;
			sev = f->severity;
		}
	} else {
		e->above = 0;
		if (++e->below >= ADV_CLEAR_SAMPLES) {
			e->below = 0;
			sev = f->severity;
		}
	}
	e->f = *f;
	e->f.severity = sev;
}

int advise_hold_step(struct advise_hold *h, struct advice *a)
{
	size_t w = 0;

	for (size_t i = 0; i < h->n; i++)
		h->e[i].present = false;
	for (size_t i = 0; i < a->nfindings; i++) {
		const struct finding *f = &a->findings[i];
		struct advise_hold_entry *e = hold_find(h, f->id);

		if (!e) {
			if (h->n >= HOLD_MAX)
				continue;
			if (grow((void **)&h->e, &h->cap, h->n + 1, sizeof(*h->e)) < 0)
				return -ENOMEM;
			e = &h->e[h->n++];
			memset(e, 0, sizeof(*e));
		}
		hold_severity(e, f);
		e->present = true;
		e->absent = 0;
		e->seen++;
		if (e->seen >= ADV_RISE_SAMPLES)
			e->shown = true;
		if (entry_take_suggestions(e, a) < 0)
			return -ENOMEM;
	}
	/* the absent: a shown one stays until ADV_CLEAR_SAMPLES in a row */
	for (size_t i = 0; i < h->n; i++) {
		struct advise_hold_entry *e = &h->e[i];

		if (!e->present) {
			e->seen = e->above = e->below = 0;
			e->absent++;
			if (!e->shown || e->absent >= ADV_CLEAR_SAMPLES) {
				entry_free_suggestions(e);
				continue;
			}
		}
		h->e[w++] = *e;
	}
	h->n = w;
	if (hold_advice(h, a) < 0)
		return -ENOMEM;
	a->nrising = 0;
	for (size_t i = 0; i < h->n; i++)
		a->nrising += h->e[i].present && !h->e[i].shown;
	return 0;
}

void advise_hold_free(struct advise_hold *h)
{
	for (size_t i = 0; i < h->n; i++)
		entry_free_suggestions(&h->e[i]);
	free(h->e);
	memset(h, 0, sizeof(*h));
}
