// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_summary: the worst finding as one line of words and the hot core's
 * busiest interrupt line, from the decoded tables (model.c) and advice
 * (model_findings.c). No I/O; no rate is computed here, only a share of two
 * rates the document carries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise.h"
#include "model.h"
#include "model_summary.h"

long model_hot_cpu(const struct model *m)
{
	for (size_t i = 0; i < m->ncpus; i++)
		if (m->cpus[i].hot)
			return (long)i;
	return -1;
}

int model_top_irq_on_cpu(const struct model *m, int cpu, size_t *ret_idx, double *ret_rate_s)
{
	double best = 0;
	size_t bi = 0;
	bool found = false;

	for (size_t i = 0; i < m->nirqs; i++) {
		const struct model_irq *q = &m->irqs[i];

		if (!q->valid)
			continue;
		/* q->cpus is short: only the CPUs the line fired on */
		for (size_t k = 0; k < q->ncpus; k++)
			if (q->cpus[k].cpu == cpu) {
				if (q->cpus[k].rate_s > best) {
					best = q->cpus[k].rate_s;
					bi = i;
					found = true;
				}
				break;
			}
	}
	if (!found)
		return -ENOENT;
	*ret_idx = bi;
	*ret_rate_s = best;
	return 0;
}

/* "cpu200 irq+soft 48%: IRQ 24 nvme0q0 98%" for the CPU row c. */
static void say_cpu(const struct model *m, const struct model_cpu *c, char *buf, size_t size)
{
	size_t qi;
	double rate;
	int n;

	n = snprintf(buf, size, "cpu%d irq+soft %.0f%%", c->cpu, c->irq + c->soft);
	if (n < 0 || (size_t)n >= size)
		return;
	if (model_top_irq_on_cpu(m, c->cpu, &qi, &rate) < 0)
		return;
	{
		const struct model_irq *q = &m->irqs[qi];
		const char *dev = q->actions[0] ? q->actions : q->chip;

		n += snprintf(buf + n, size - (size_t)n, ": IRQ %s%s%s", q->name, dev[0] ? " " : "",
			      dev);
		/* the share needs the CPU's own total: without it, the rate */
		if (n > 0 && (size_t)n < size) {
			if (c->has_intr && c->intr_s > 0)
				snprintf(buf + n, size - (size_t)n, " %.0f%%",
					 rate / c->intr_s * 100.0);
			else
				snprintf(buf + n, size - (size_t)n, " %.0f/s", rate);
		}
	}
}

static const struct model_cpu *cpu_named(const struct model *m, const char *subject)
{
	char *end;
	long v;

	if (strncmp(subject, "cpu", 3) != 0)
		return NULL;
	v = strtol(subject + 3, &end, 10);
	if (end == subject + 3 || *end || v < 0)
		return NULL;
	for (size_t i = 0; i < m->ncpus; i++)
		if (m->cpus[i].cpu == v && m->cpus[i].valid)
			return &m->cpus[i];
	return NULL;
}

/* The host's pressure this interval past the advisor's thresholds, in
 * words ("PSI io full 29.8%"); false when nothing waits or it is unknown. */
static bool still_waits(const struct model *m, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int r = MP_IO; r <= MP_CPU; r++) {
		const struct model_psi *p = &m->sections.psi[r];
		double some = p->some.has_stall ? p->some.stall_pct : -1;
		double full = p->full.has_stall ? p->full.stall_pct : -1;
		size_t n = strlen(buf);

		if (!p->present || !advise_psi_hurts_pct(some, full))
			continue;
		snprintf(buf + n, size - n, "%sPSI %s %s %.1f%%", n ? ", " : "", model_psi_names[r],
			 full >= ADV_PSI_FULL_CRIT ? "full" : "some",
			 full >= ADV_PSI_FULL_CRIT ? full : some);
	}
	return buf[0] != '\0';
}

void model_summary_get(const struct model *m, struct model_summary *ret)
{
	static const char *const words[] = { "INFO", "WARN", "CRIT" };
	const struct model_advice *a = &m->advice;
	const struct model_finding *worst = NULL;
	struct model_summary s = { 0 };
	char what[200];
	long hot;

	if (!m->have_sample || !m->has_rates) {
		s.level = MODEL_SUM_WAIT;
		snprintf(s.text, sizeof(s.text), "%s",
			 m->have_sample ? "waiting for a second sample..."
					: "waiting for the first sample...");
		*ret = s;
		return;
	}
	hot = model_hot_cpu(m);
	if (!a->present) {
		s.level = MODEL_SUM_UNKNOWN;
		if (hot >= 0) {
			say_cpu(m, &m->cpus[hot], what, sizeof(what));
			snprintf(s.word, sizeof(s.word), "HOT");
			snprintf(s.text, sizeof(s.text), "%s; no advice in the sample%s", what,
				 a->bad[0] ? " (malformed)" : "");
		} else {
			snprintf(s.text, sizeof(s.text),
				 "no advice in the sample%s (iotriaged --core-only or older): "
				 "not the same as healthy",
				 a->bad[0] ? " (malformed)" : "");
		}
		*ret = s;
		return;
	}
	/* the advisor ranks by harm: its first finding is the headline */
	worst = a->nfindings ? &a->findings[0] : NULL;
	if (!worst && a->rising) {
		/* measured once, shown once it stands a second sample: not "OK" */
		s.level = MODEL_SUM_WAIT;
		snprintf(s.text, sizeof(s.text),
			 "judging: %u finding%s rising (shown once it stands 2 samples)", a->rising,
			 a->rising == 1 ? "" : "s");
		*ret = s;
		return;
	}
	if (!worst && still_waits(m, what, sizeof(what))) {
		/* no finding yet (or none any more) while the workload still waits:
		 * not "OK" (a disk that just calmed down, a stall without a cause
		 * the advisor can name) */
		s.level = MODEL_SUM_INFO;
		snprintf(s.word, sizeof(s.word), "WAIT");
		snprintf(s.text, sizeof(s.text), "no finding, but tasks still wait: %s", what);
		*ret = s;
		return;
	}
	if (!worst) {
		s.level = MODEL_SUM_OK;
		snprintf(s.word, sizeof(s.word), "OK");
		snprintf(s.text, sizeof(s.text), "no findings: nothing stands out on this host");
		*ret = s;
		return;
	}
	s.level = MODEL_SUM_INFO + (int)worst->severity;
	snprintf(s.word, sizeof(s.word), "%s", words[worst->severity]);
	{
		const struct model_cpu *c =
		    strcmp(worst->kind, "hot_cpu") == 0 ? cpu_named(m, worst->subject) : NULL;
		size_t sl = strlen(worst->subject);

		if (c)
			say_cpu(m, c, what, sizeof(what));
		else if (sl && strncmp(worst->reason, worst->subject, sl) == 0)
			snprintf(what, sizeof(what), "%s", worst->reason);
		else
			snprintf(what, sizeof(what), "%s: %s", worst->subject, worst->reason);
	}
	snprintf(s.text, sizeof(s.text), "%s", what);
	if (worst->who)
		snprintf(s.who, sizeof(s.who), "%s", worst->who);
	if (worst->victim)
		snprintf(s.victim, sizeof(s.victim), "%s", worst->victim);
	s.more = a->nfindings - 1;
	for (size_t i = 0; i < a->nsuggestions; i++)
		if (strcmp(a->suggestions[i].finding, worst->id) == 0) {
			snprintf(s.fix, sizeof(s.fix), "%s", a->suggestions[i].id);
			break;
		}
	s.details = true;
	*ret = s;
}

/* Where text may be cut: before ", ", "; ", ": ", " (" or " - " that come
 * after its first digit (the number that proves it). The first such place
 * in *ret_min, the cut of at most max bytes (at least *ret_min) returned;
 * the whole text when no cut is needed. */
static size_t text_cut(const char *text, size_t max, size_t *ret_min)
{
	size_t len = strlen(text), best = 0, min = 0;
	bool digit = false;

	for (size_t i = 0; i < len; i++) {
		bool cut =
		    text[i + 1] == ' ' && (text[i] == ',' || text[i] == ';' || text[i] == ':');

		cut |= text[i] == ' ' && text[i + 1] == '(';
		digit |= text[i] >= '0' && text[i] <= '9';
		if (!cut || !digit)
			continue;
		if (!min)
			min = i;
		if (i <= max)
			best = i;
	}
	if (!min)
		min = len;
	*ret_min = min;
	if (len <= max)
		return len;
	return best > min ? best : min;
}

/* The victim without its unit's type ("postgresql@15-main io 61%"): the
 * first word's ".service"/".scope" suffix dropped, into buf. */
static void victim_short(const char *v, char *buf, size_t size)
{
	static const char *const sfx[] = { ".service", ".scope" };
	size_t w = strcspn(v, " ");

	snprintf(buf, size, "%s", v);
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t n = strlen(sfx[i]);

		if (w > n && strncmp(v + w - n, sfx[i], n) == 0) {
			snprintf(buf, size, "%.*s%s", (int)(w - n), v, v + w);
			return;
		}
	}
}

/* Drops the word pair "KEY N" (N digits, then a space or the end) from
 * buf, in place; true when it did. */
static bool drop_number(char *buf, const char *key)
{
	char *p = strstr(buf, key);
	size_t k = strlen(key), n;

	if (!p || p[k] < '0' || p[k] > '9')
		return false;
	n = strspn(p + k, "0123456789");
	if (p[k + n] != ' ' && p[k + n] != '\0')
		return false;
	memmove(p, p + k + n, strlen(p + k + n) + 1);
	return true;
}

/* The culprit without its pid or a group's count ("fio 871 MB/s" from
 * "fio pid 812 871 MB/s", "fio 2077 MB/s" from "fio x2 2077 MB/s", "pg
 * backends 112 %CPU"): those words dropped, into buf. */
static void who_short(const char *who, char *buf, size_t size)
{
	snprintf(buf, size, "%s", who);
	if (!drop_number(buf, " pid "))
		drop_number(buf, " x");
}

int model_summary_line(const struct model_summary *s, bool utf8, bool can_apply, int width,
		       char *buf, size_t size)
{
	const char *dash = utf8 ? " \u2014 " : " - ";
	const char *arrow = utf8 ? " \u2192 " : " -> ";
	/* in columns: the em dash and the arrow are one column each (three
	 * bytes), and the line is clipped by columns (ui_put) */
	int dash_w = 3, arrow_w = utf8 ? 3 : 4;
	char fix[96] = "", more[32] = "", lead[16], vic[96], vshort[96], who[96], wshort[96];
	size_t min, cut, len = strlen(s->text);
	int room, lead_w, fix_w, more_w, who_w, vic_w;

	if (width < 1 || size < 2) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	snprintf(lead, sizeof(lead), " %s%s", s->word, s->word[0] ? " " : "");
	if (s->details && s->fix[0])
		snprintf(fix, sizeof(fix), "%s", can_apply ? "a apply the fix" : "f the fix");
	else if (s->details)
		snprintf(fix, sizeof(fix), "f why no fix");
	if (s->more)
		snprintf(more, sizeof(more), "; +%zu more: f", s->more);
	snprintf(vic, sizeof(vic), "%s", s->victim);
	victim_short(s->victim, vshort, sizeof(vshort));
	snprintf(who, sizeof(who), "%s", s->who);
	who_short(s->who, wshort, sizeof(wshort));
	lead_w = (int)strlen(lead);
	fix_w = fix[0] ? dash_w + (int)strlen(fix) : 0;
	more_w = (int)strlen(more);
	who_w = who[0] ? dash_w + (int)strlen(who) : 0;
	vic_w = vic[0] ? (who_w ? arrow_w : dash_w) + (int)strlen(vic) : 0;
	room = width - lead_w;
	cut = text_cut(s->text, room > 0 ? (size_t)room : 0, &min);
	/* drop whole fields, the least telling first, until the proof fits */
	if ((int)min + fix_w + who_w + vic_w + more_w > room)
		more[0] = '\0', more_w = 0;
	if (fix[0] && (int)min + fix_w + who_w + vic_w > room) {
		/* the key's words: "a fix", "f fix", "f why" */
		snprintf(fix, sizeof(fix), "%s",
			 s->fix[0] ? (can_apply ? "a fix" : "f fix") : "f why");
		fix_w = dash_w + (int)strlen(fix);
	}
	if (vic[0] && (int)min + fix_w + who_w + vic_w > room) {
		vic_w -= (int)(strlen(vic) - strlen(vshort));
		snprintf(vic, sizeof(vic), "%s", vshort);
	}
	if (who[0] && (int)min + fix_w + who_w + vic_w > room) {
		who_w -= (int)(strlen(who) - strlen(wshort));
		snprintf(who, sizeof(who), "%s", wshort);
	}
	if ((int)min + fix_w + who_w + vic_w > room)
		fix[0] = '\0', fix_w = 0;
	if ((int)min + who_w + vic_w > room)
		vic[0] = '\0', vic_w = 0;
	if ((int)min + who_w > room)
		who_w = 0;
	if (vic[0] && !who_w)
		vic_w = dash_w + (int)strlen(vic);
	room -= fix_w + who_w + vic_w + more_w;
	cut = text_cut(s->text, room > 0 ? (size_t)room : 0, &min);
	if ((int)cut > room) {
		/* the proof alone is too long: the words that fit, whole */
		cut = room > 0 ? (size_t)room : 0;
		while (cut > 0 && cut < len && s->text[cut] != ' ')
			cut--;
	}
	snprintf(buf, size, "%s%.*s%s%s%s%s%s%s%s", lead, (int)cut, s->text, who_w ? dash : "",
		 who_w ? who : "", vic[0] ? (who_w ? arrow : dash) : "", vic, fix[0] ? dash : "",
		 fix, more);
	return lead_w + (int)cut + who_w + vic_w + fix_w + more_w;
}
