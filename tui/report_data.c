// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The incident report's data: each sample document of the window taken
 * apart into series (the documents' numbers as written, so a chart says
 * what `replay --json` says), the findings' spans and headlines, and the
 * reduction of a long window to pixel columns. No I/O, no clock.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "report_data.h"
#include "rec_file.h"
#include "report_json.h"
#include "strbuf.h"

const char *const rd_dkey_names[RD__DKEYS] = { "util",	  "aqu-sz", "r_await", "w_await",
					       "f_await", "r_p99",  "w_p99" };
const char *const rd_psi_names[RD__PSI] = { "cpu some", "io some", "io full" };

const char *rd_sev_name(int sev)
{
	static const char *const names[] = { "", "info", "warning", "critical" };

	return sev >= 0 && sev <= 3 ? names[sev] : "";
}

/* Grows *p from old to cap elements, the new ones NaN. */
static int grow_nan(double **p, size_t old, size_t cap)
{
	double *v = realloc(*p, cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = old; i < cap; i++)
		v[i] = NAN;
	*p = v;
	return 0;
}

static int grow_zero(void **p, size_t old, size_t cap, size_t size)
{
	char *v = realloc(*p, cap * size);

	if (!v)
		return -ENOMEM;
	memset(v + old * size, 0, (cap - old) * size);
	*p = v;
	return 0;
}

static int disk_grow(struct rd_disk *k, size_t old, size_t cap)
{
	for (int j = 0; j < RD__DKEYS; j++)
		if (grow_nan(&k->v[j], old, cap) < 0)
			return -ENOMEM;
	if (k->hist && grow_zero((void **)&k->hist, old * RD_HIST_BUCKETS, cap * RD_HIST_BUCKETS,
				 sizeof(uint32_t)) < 0)
		return -ENOMEM;
	return grow_zero((void **)&k->sat, old, cap, 1);
}

/* Room for one more sample in every series. */
static int rd_reserve(struct report_data *d)
{
	size_t cap = d->cap ? d->cap * 2 : 256, old = d->cap;
	size_t cells = d->ndisks * (RD__DKEYS + 1) + d->ncpus * 2 + RD__PSI + 3 + d->nrows / 8;

	if (d->n < d->cap)
		return 0;
	/* every series holds every sample: a window too long for memory is
	 * refused, not swapped through (a week at 1 Hz of a 1024-CPU host) */
	for (size_t i = 0; i < d->ndisks; i++)
		cells += d->disks[i].hist ? RD_HIST_BUCKETS / 2 : 0;
	if (cap > RD_BYTES_MAX / 8 / cells)
		return -E2BIG;
	if (grow_zero((void **)&d->t_ms, old, cap, sizeof(int64_t)) < 0 ||
	    grow_nan(&d->itv_ms, old, cap) < 0)
		return -ENOMEM;
	for (int j = 0; j < RD__PSI; j++)
		if (grow_nan(&d->psi[j], old, cap) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < d->ndisks; i++)
		if (disk_grow(&d->disks[i], old, cap) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < d->ncpus; i++)
		if (grow_nan(&d->cpus[i].v, old, cap) < 0 ||
		    grow_zero((void **)&d->cpus[i].hot, old, cap, 1) < 0)
			return -ENOMEM;
	for (size_t i = 0; i < d->nrows; i++)
		if (grow_zero((void **)&d->rows[i].sev, old, cap, 1) < 0)
			return -ENOMEM;
	d->cap = cap;
	return 0;
}

/* The disk named name, added (NULL: too many, or out of memory). */
static struct rd_disk *disk_get(struct report_data *d, const char *name)
{
	struct rd_disk *v, *k;

	for (size_t i = 0; i < d->ndisks; i++)
		if (strcmp(d->disks[i].name, name) == 0)
			return &d->disks[i];
	if (d->ndisks >= RD_DISKS_MAX)
		return NULL;
	v = realloc(d->disks, (d->ndisks + 1) * sizeof(*v));
	if (!v)
		return NULL;
	d->disks = v;
	k = &v[d->ndisks];
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", name);
	if (disk_grow(k, 0, d->cap) < 0) {
		for (int j = 0; j < RD__DKEYS; j++)
			free(k->v[j]);
		free(k->sat);
		return NULL;
	}
	d->ndisks++;
	return k;
}

static struct rd_cpu *cpu_get(struct report_data *d, int cpu)
{
	struct rd_cpu *v, *c;

	for (size_t i = 0; i < d->ncpus; i++)
		if (d->cpus[i].cpu == cpu)
			return &d->cpus[i];
	if (d->ncpus >= RD_CPUS_MAX)
		return NULL;
	v = realloc(d->cpus, (d->ncpus + 1) * sizeof(*v));
	if (!v)
		return NULL;
	d->cpus = v;
	c = &v[d->ncpus];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	if (grow_nan(&c->v, 0, d->cap) < 0 || grow_zero((void **)&c->hot, 0, d->cap, 1) < 0) {
		free(c->v);
		free(c->hot);
		return NULL;
	}
	d->ncpus++;
	return c;
}

/* One "disks" row: the series of a whole disk with rates */
static void text_disk(struct report_data *d, const char *row, const char *end, size_t i)
{
	double x[RD_RP99] = { NAN, NAN, NAN, NAN, NAN };
	bool valid = false, whole = true;
	struct rj_it it;
	const char *k, *v, *ve;
	char name[64] = "";
	struct rd_disk *dk;
	size_t kn;

	if (rj_open(row, end, &it) < 0)
		return;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0) {
		if (rj_key(k, kn, "disk_device"))
			rj_str(v, ve, name, sizeof(name));
		else if (rj_key(k, kn, "whole"))
			rj_bool(v, ve, &whole);
		else if (rj_key(k, kn, "valid"))
			rj_bool(v, ve, &valid);
		for (int j = RD_UTIL; j < RD_RP99; j++)
			if (rj_key(k, kn, rd_dkey_names[j]))
				rj_num(v, ve, &x[j]);
	}
	if (!name[0] || !whole || !valid || !(dk = disk_get(d, name)))
		return;
	for (int j = RD_UTIL; j < RD_RP99; j++)
		dk->v[j][i] = x[j];
	if (dk->v[RD_UTIL][i] > dk->max_util)
		dk->max_util = dk->v[RD_UTIL][i];
}

/* A "trace" disk's device p99 of an op (ms) and histogram counts into h
 * (NULL: none wanted); 1 when the histogram had a count */
static int text_stage(const char *op, const char *end, double *ret_p99, uint32_t *h)
{
	struct rj_it it, dev, hi;
	const char *k, *v, *ve, *hv, *hve;
	size_t kn;
	int any = 0;

	if (rj_open(op, end, &it) < 0)
		return 0;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0)
		if (rj_key(k, kn, "device") && rj_open(v, ve, &dev) == 0)
			break;
	if (!rj_key(k, kn, "device"))
		return 0;
	while (rj_next(&dev, &k, &kn, &v, &ve) > 0) {
		size_t b = 0;
		double c;

		if (rj_key(k, kn, "p99_us") && ret_p99 && rj_num(v, ve, ret_p99))
			*ret_p99 /= 1000.0;
		if (!rj_key(k, kn, "hist") || rj_open(v, ve, &hi) < 0)
			continue;
		for (; b < RD_HIST_BUCKETS && rj_next(&hi, &k, &kn, &hv, &hve) > 0; b++)
			if (rj_num(hv, hve, &c) && c > 0) {
				h[b] += c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
				any = 1;
			}
	}
	return any;
}

/* One "trace"."disks" row: the read and write p99, the histograms */
static void text_tdisk(struct report_data *d, const char *row, const char *end, size_t i)
{
	uint32_t h[RD_HIST_BUCKETS] = { 0 };
	double p99[2] = { NAN, NAN };
	const char *k, *v, *ve, *lv = NULL, *lve = NULL;
	struct rj_it it;
	char name[64] = "";
	struct rd_disk *dk;
	bool any = false;
	size_t kn;

	if (rj_open(row, end, &it) < 0)
		return;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0) {
		if (rj_key(k, kn, "disk"))
			rj_str(v, ve, name, sizeof(name));
		else if (rj_key(k, kn, "lat"))
			lv = v, lve = ve;
	}
	if (!name[0] || !lv || !(dk = disk_get(d, name)) || rj_open(lv, lve, &it) < 0)
		return;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0) {
		int op = rj_key(k, kn, "read") ? 0 : rj_key(k, kn, "write") ? 1 : 2;

		if (op == 2 && !rj_key(k, kn, "flush") && !rj_key(k, kn, "discard"))
			continue;
		any |= text_stage(v, ve, op < 2 ? &p99[op] : NULL, h) > 0;
	}
	for (int j = 0; j < 2; j++)
		if (!isnan(p99[j])) {
			dk->v[RD_RP99 + j][i] = p99[j];
			dk->has_p99 = true;
		}
	if (!dk->hist &&
	    grow_zero((void **)&dk->hist, 0, d->cap * RD_HIST_BUCKETS, sizeof(uint32_t)) < 0)
		return;
	memcpy(dk->hist + i * RD_HIST_BUCKETS, h, sizeof(h));
	d->has_trace |= any;
}

/* One "cpu-load" row: %irq + %soft of a core */
static void text_cpu(struct report_data *d, const char *row, const char *end, size_t i)
{
	double irq = NAN, soft = NAN;
	const char *k, *v, *ve;
	char name[16] = "", *e;
	bool valid = false;
	struct rj_it it;
	struct rd_cpu *c;
	size_t kn;
	long cpu;

	if (rj_open(row, end, &it) < 0)
		return;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0) {
		if (rj_key(k, kn, "cpu"))
			rj_str(v, ve, name, sizeof(name));
		else if (rj_key(k, kn, "valid"))
			rj_bool(v, ve, &valid);
		else if (rj_key(k, kn, "irq"))
			rj_num(v, ve, &irq);
		else if (rj_key(k, kn, "soft"))
			rj_num(v, ve, &soft);
	}
	cpu = strtol(name, &e, 10);
	if (e == name || *e || cpu < 0 || cpu > 1 << 20 || !valid || isnan(irq) || isnan(soft))
		return; /* "all", or no rates */
	c = cpu_get(d, (int)cpu);
	if (!c)
		return;
	c->v[i] = irq + soft;
	if (c->v[i] > c->max)
		c->max = c->v[i];
}

/* "pressure": the interval's stall% of cpu some, io some and io full */
static void text_psi(struct report_data *d, const char *p, const char *end, size_t i)
{
	static const char *const res[RD__PSI] = { "cpu", "io", "io" };
	static const char *const kind[RD__PSI] = { "some", "some", "full" };
	struct rj_it it, a, b;
	const char *k, *v, *ve, *k2, *v2, *ve2, *k3, *v3, *ve3;
	size_t kn, kn2, kn3;

	if (rj_open(p, end, &it) < 0)
		return;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0) {
		if (rj_open(v, ve, &a) < 0)
			continue;
		while (rj_next(&a, &k2, &kn2, &v2, &ve2) > 0) {
			for (int j = 0; j < RD__PSI; j++) {
				if (!rj_key(k, kn, res[j]) || !rj_key(k2, kn2, kind[j]) ||
				    rj_open(v2, ve2, &b) < 0)
					continue;
				while (rj_next(&b, &k3, &kn3, &v3, &ve3) > 0)
					if (rj_key(k3, kn3, "stall%") &&
					    rj_num(v3, ve3, &d->psi[j][i]))
						d->has_psi = true;
			}
		}
	}
}

/* Each element of the array at p..end through fn */
static void text_rows(struct report_data *d, const char *p, const char *end, size_t i,
		      void (*fn)(struct report_data *, const char *, const char *, size_t))
{
	const char *k, *v, *ve;
	struct rj_it it;
	size_t kn;

	if (rj_open(p, end, &it) < 0)
		return;
	while (rj_next(&it, &k, &kn, &v, &ve) > 0)
		fn(d, v, ve, i);
}

static void take_victims(struct report_data *d, struct json_object *doc, size_t i)
{
	struct json_object *pr = mj_get(doc, "processes"), *arr = mj_get(pr, "top_delay");
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
	char acct[32];

	if (mj_str(pr, "delay_accounting", acct, sizeof(acct)) > 0)
		snprintf(d->delay_accounting, sizeof(d->delay_accounting), "%s", acct);
	for (size_t k = 0; k < n && d->nvictims < RD_VICTIMS_MAX; k++) {
		struct json_object *row = json_object_array_get_idx(arr, k);
		struct rd_victim *v, *e;

		v = realloc(d->victims, (d->nvictims + 1) * sizeof(*v));
		if (!v)
			return;
		d->victims = v;
		e = &v[d->nvictims];
		memset(e, 0, sizeof(*e));
		e->t_ms = d->t_ms[i];
		mj_str(row, "comm", e->comm, sizeof(e->comm));
		mj_int(row, "pid", &e->pid);
		if (mj_num(row, "io_delay%", &e->delay_pct) > 0)
			d->nvictims++;
	}
}

static int sev_of(enum model_severity s)
{
	return s == MODEL_SEV_CRITICAL ? 3 : s == MODEL_SEV_WARNING ? 2 : 1;
}

static int set_str(char **dst, const char *s)
{
	char *c = strdup(s ? s : "");

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static struct rd_row *row_get(struct report_data *d, const struct model_finding *f)
{
	struct rd_row *v, *r;

	for (size_t i = 0; i < d->nrows; i++)
		if (strcmp(d->rows[i].id, f->id) == 0)
			return &d->rows[i];
	if (d->nrows >= RD_ROWS_MAX)
		return NULL;
	v = realloc(d->rows, (d->nrows + 1) * sizeof(*v));
	if (!v)
		return NULL;
	d->rows = v;
	r = &v[d->nrows];
	memset(r, 0, sizeof(*r));
	if (grow_zero((void **)&r->sev, 0, d->cap, 1) < 0)
		return NULL;
	snprintf(r->id, sizeof(r->id), "%s", f->id);
	snprintf(r->kind, sizeof(r->kind), "%s", f->kind);
	snprintf(r->subject, sizeof(r->subject), "%s", f->subject);
	d->nrows++;
	return r;
}

/* Marks the disk or core a finding names at sample i. */
static void mark_subject(struct report_data *d, const struct model_finding *f, size_t i)
{
	if (strcmp(f->kind, "disk_saturated") == 0) {
		for (size_t k = 0; k < d->ndisks; k++)
			if (strcmp(d->disks[k].name, f->subject) == 0)
				d->disks[k].sat[i] = 1;
	} else if (strcmp(f->kind, "hot_cpu") == 0 && strncmp(f->subject, "cpu", 3) == 0) {
		char *end;
		long cpu = strtol(f->subject + 3, &end, 10);

		for (size_t k = 0; k < d->ncpus && !*end; k++)
			if (d->cpus[k].cpu == cpu)
				d->cpus[k].hot[i] = 1;
	}
}

static int take_head(struct report_data *d, const struct model_advice *a, size_t i)
{
	const struct model_finding *f = a->present && a->nfindings ? &a->findings[0] : NULL;
	int sev = !a->present ? -1 : f ? sev_of(f->severity) : 0;
	const struct rd_head *last = d->nheads ? &d->heads[d->nheads - 1] : NULL;
	struct rd_head *v;
	char text[512];

	/* a change: another finding first, or the same at another severity;
	 * a document without advice (a run's first) changes nothing */
	if (sev < 0 || (last && last->sev == sev && strcmp(last->id, f ? f->id : "") == 0))
		return 0;
	if (f)
		snprintf(text, sizeof(text), "%s %s: %s%s%s", f->severity_name, f->subject,
			 f->reason, f->who[0] ? " - " : "", f->who);
	else
		snprintf(text, sizeof(text), "%s",
			 a->rising ? "judging: a finding rising" : "no finding");
	if (d->nheads >= RD_HEADS_MAX)
		return 0;
	v = realloc(d->heads, (d->nheads + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->heads = v;
	v[d->nheads] = (struct rd_head){ .at = i, .sev = sev, .text = strdup(text) };
	snprintf(v[d->nheads].id, sizeof(v[d->nheads].id), "%s", f ? f->id : "");
	if (!v[d->nheads].text)
		return -ENOMEM;
	d->nheads++;
	return 0;
}

static int take_suggestions(struct report_data *d, const struct model_advice *a, size_t i)
{
	for (size_t k = 0; k < a->nsuggestions; k++) {
		const struct model_suggestion *s = &a->suggestions[k];
		struct rd_sugg *e = NULL, *v;

		for (size_t j = 0; j < d->nsuggs && !e; j++)
			if (strcmp(d->suggs[j].s.id, s->id) == 0)
				e = &d->suggs[j];
		if (!e) {
			if (d->nsuggs >= RD_ROWS_MAX)
				continue;
			v = realloc(d->suggs, (d->nsuggs + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			d->suggs = v;
			e = &v[d->nsuggs];
			memset(e, 0, sizeof(*e));
			if (model_findings_copy_suggestion(s, &e->s) < 0)
				return -ENOMEM;
			d->nsuggs++;
		}
		e->last = i;
	}
	return 0;
}

static int take_findings(struct report_data *d, struct json_object *doc, size_t i)
{
	struct model_advice a = { 0 };
	int r = model_findings_decode(doc, &a);

	if (r < 0)
		return r;
	d->has_advice |= a.present;
	for (size_t k = 0; a.present && k < a.nfindings && r >= 0; k++) {
		const struct model_finding *f = &a.findings[k];
		struct rd_row *row = row_get(d, f);
		int sev = sev_of(f->severity);

		mark_subject(d, f, i);
		if (!row)
			continue;
		row->sev[i] = (uint8_t)sev;
		/* what it said the last time it stood at its worst: a culprit
		 * is named once the process scan has seen it, a few samples
		 * after the rise */
		if (sev > row->peak)
			row->peak_at = i;
		if (sev >= row->peak) {
			row->peak = sev;
			if (set_str(&row->reason, f->reason) < 0 ||
			    set_str(&row->culprit, f->culprit) < 0 ||
			    set_str(&row->who, f->who) < 0 || set_str(&row->victim, f->victim) < 0)
				r = -ENOMEM;
		}
	}
	if (r >= 0)
		r = take_head(d, &a, i);
	if (r >= 0)
		r = take_suggestions(d, &a, i);
	model_findings_free(&a);
	return r;
}

/*
 * The members of a document the report reads, found in one walk of its
 * text: the numbers (most of a document) are read in place (text_*), the
 * advice and the processes that waited on IO copied out for json-c
 * (model_findings_decode reads the advice). json-c's parse of whole
 * documents was most of the report's time (doc/PERFORMANCE.md, "The
 * incident report").
 */
enum {
	S_TS,
	S_ITV,
	S_HOST,
	S_FIND,
	S_SUGG,
	S_RISING,
	S_PROCS,
	S_DISKS,
	S_CPUS,
	S_PSI,
	S_TRACE,
	S_EVENTS,
	S__N
};
static const char *const span_keys[S__N] = {
	"timestamp_ms", "interval_ms", "host",	   "findings", "suggestions", "findings_rising",
	"processes",	"disks",       "cpu-load", "pressure", "trace",	      "events",
};
static const struct rj_pick pick_procs[] = { { "delay_accounting", NULL },
					     { "top_delay", NULL },
					     { NULL, NULL } };

/* The spans of the members the report reads; -EBADMSG: not an object */
static int doc_spans(const char *json, size_t len, const char **v, const char **ve)
{
	const char *k, *a, *b;
	struct rj_it it;
	size_t kn;
	int r;

	if (rj_open(json, json + len, &it) < 0)
		return -EBADMSG;
	while ((r = rj_next(&it, &k, &kn, &a, &b)) > 0)
		for (int j = 0; j < S__N; j++)
			if (rj_key(k, kn, span_keys[j])) {
				v[j] = a;
				ve[j] = b;
				break;
			}
	return r;
}

/* What json-c parses: an object of the spans up to S_PROCS */
static int doc_small(const char **v, const char **ve, struct strbuf *out)
{
	bool first = true;

	sb_putc(out, '{');
	for (int j = S_TS; j <= S_PROCS; j++) {
		if (!v[j])
			continue;
		sb_printf(out, "%s\"%s\":", first ? "" : ",", span_keys[j]);
		first = false;
		if (j != S_PROCS)
			sb_append(out, v[j], (size_t)(ve[j] - v[j]));
		else if (rj_pick(v[j], ve[j], pick_procs, out) < 0)
			return -EBADMSG;
	}
	sb_putc(out, '}');
	return out->err;
}

/* The numeric sections at sample i */
static void text_sections(struct report_data *d, const char **v, const char **ve, size_t i)
{
	const char *k, *a, *b;
	struct rj_it it;
	size_t kn;

	if (v[S_DISKS])
		text_rows(d, v[S_DISKS], ve[S_DISKS], i, text_disk);
	if (v[S_CPUS])
		text_rows(d, v[S_CPUS], ve[S_CPUS], i, text_cpu);
	if (v[S_PSI])
		text_psi(d, v[S_PSI], ve[S_PSI], i);
	if (v[S_TRACE] && rj_open(v[S_TRACE], ve[S_TRACE], &it) == 0)
		while (rj_next(&it, &k, &kn, &a, &b) > 0)
			if (rj_key(k, kn, "disks"))
				text_rows(d, a, b, i, text_tdisk);
}

/* The document's "events" at sample i: each {kind, id, by} of a known
 * kind (apply, undo), at most RD_EVENTS_MAX in the window. */
static int take_events(struct report_data *d, const char *p, const char *end, size_t i)
{
	const char *k, *a, *b;
	struct rj_it it, ot;
	size_t kn;

	if (rj_open(p, end, &it) < 0)
		return 0;
	while (rj_next(&it, &k, &kn, &a, &b) > 0 && d->nevents < RD_EVENTS_MAX) {
		struct rd_event e = { .at = i }, *v;

		if (rj_open(a, b, &ot) < 0)
			continue;
		while (rj_next(&ot, &k, &kn, &a, &b) > 0) {
			if (rj_key(k, kn, "kind"))
				rj_str(a, b, e.kind, sizeof(e.kind));
			else if (rj_key(k, kn, "id"))
				rj_str(a, b, e.id, sizeof(e.id));
			else if (rj_key(k, kn, "by"))
				rj_str(a, b, e.by, sizeof(e.by));
		}
		if (strcmp(e.kind, "apply") != 0 && strcmp(e.kind, "undo") != 0)
			continue;
		v = realloc(d->events, (d->nevents + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->events = v;
		v[d->nevents++] = e;
	}
	return 0;
}

int rd_add_text(struct report_data *d, const char *json, size_t len, struct strbuf *scratch)
{
	const char *v[S__N] = { NULL }, *ve[S__N] = { NULL };
	struct json_object *o;
	int64_t ts;
	double itv;
	size_t i;
	int r;

	sb_reset(scratch);
	r = doc_spans(json, len, v, ve);
	if (r >= 0)
		r = doc_small(v, ve, scratch);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || mj_parse(scratch->buf, scratch->len, &o) < 0) {
		d->skipped++;
		return 0;
	}
	if (mj_int(o, "timestamp_ms", &ts) <= 0 || (d->n && ts <= d->t_ms[d->n - 1])) {
		d->skipped++;
		json_object_put(o);
		return 0;
	}
	r = rd_reserve(d);
	if (r >= 0) {
		i = d->n++;
		d->t_ms[i] = ts;
		if (mj_num(o, "interval_ms", &itv) > 0)
			d->itv_ms[i] = itv;
		if (!d->host[0])
			mj_str(o, "host", d->host, sizeof(d->host));
		/* the disks and cores first: the findings mark them */
		text_sections(d, v, ve, i);
		if (v[S_EVENTS])
			r = take_events(d, v[S_EVENTS], ve[S_EVENTS], i);
		take_victims(d, o, i);
		if (r >= 0)
			r = take_findings(d, o, i);
	}
	json_object_put(o);
	return r < 0 ? r : 1;
}

int rd_add(struct report_data *d, struct json_object *doc)
{
	struct strbuf scratch = { 0 };
	size_t len;
	const char *s = json_object_to_json_string_length(doc, JSON_C_TO_STRING_PLAIN, &len);
	int r = s ? rd_add_text(d, s, len, &scratch) : -ENOMEM;

	sb_free(&scratch);
	return r;
}

void rd_free(struct report_data *d)
{
	if (!d)
		return;
	free(d->events);
	for (size_t i = 0; i < d->ndisks; i++) {
		for (int j = 0; j < RD__DKEYS; j++)
			free(d->disks[i].v[j]);
		free(d->disks[i].hist);
		free(d->disks[i].sat);
	}
	for (size_t i = 0; i < d->ncpus; i++) {
		free(d->cpus[i].v);
		free(d->cpus[i].hot);
	}
	for (size_t i = 0; i < d->nrows; i++) {
		free(d->rows[i].sev);
		free(d->rows[i].reason);
		free(d->rows[i].culprit);
		free(d->rows[i].who);
		free(d->rows[i].victim);
	}
	for (size_t i = 0; i < d->nheads; i++)
		free(d->heads[i].text);
	for (size_t i = 0; i < d->nsuggs; i++)
		model_findings_free_suggestion(&d->suggs[i].s);
	for (int j = 0; j < RD__PSI; j++)
		free(d->psi[j]);
	free(d->disks);
	free(d->cpus);
	free(d->rows);
	free(d->heads);
	free(d->suggs);
	free(d->victims);
	free(d->t_ms);
	free(d->itv_ms);
	memset(d, 0, sizeof(*d));
}

int rd_sev_at(const struct report_data *d, size_t i)
{
	int s = 0;

	for (size_t k = 0; k < d->nrows; k++)
		if (d->rows[k].sev[i] > s)
			s = d->rows[k].sev[i];
	return s;
}

bool rd_worst_span(const struct report_data *d, size_t *ret_first, size_t *ret_last, int *ret_sev)
{
	size_t bfirst = 0, blast = 0, start = 0;
	int64_t best = -1;
	int top = 0, prev = 0;

	for (size_t i = 0; i < d->n; i++)
		if (rd_sev_at(d, i) > top)
			top = rd_sev_at(d, i);
	if (top < 2)
		return false;
	/* the longest in time: compacted samples are 10 s apart, full ones 1 s */
	for (size_t i = 0; i <= d->n; i++) {
		int sev = i < d->n ? rd_sev_at(d, i) : 0;

		if (sev >= top && (i == 0 || prev < top))
			start = i;
		if (sev < top && i > 0 && prev >= top && d->t_ms[i - 1] - d->t_ms[start] > best) {
			best = d->t_ms[i - 1] - d->t_ms[start];
			bfirst = start;
			blast = i - 1;
		}
		prev = sev;
	}
	*ret_first = bfirst;
	*ret_last = blast;
	*ret_sev = top;
	return true;
}

/* The shortest interval of the window's samples, ms (1000 when none) */
static double shortest_interval(const struct report_data *d)
{
	double m = 0;

	for (size_t i = 0; i < d->n; i++)
		if (d->itv_ms[i] > 0 && (m == 0 || d->itv_ms[i] < m))
			m = d->itv_ms[i];
	return m > 0 ? m : 1000;
}

int rd_columns(const struct report_data *d, size_t width, struct rd_cols *ret)
{
	struct rd_cols c = { .reduced = d->n > width };
	double itv = shortest_interval(d);
	int64_t span_ms = d->n ? d->t_ms[d->n - 1] - d->t_ms[0] + 1 : 1, last = 0, step_ns;
	unsigned keep;

	c.first = calloc(d->n ? d->n : 1, sizeof(size_t));
	c.last = calloc(d->n ? d->n : 1, sizeof(size_t));
	if (!c.first || !c.last) {
		rd_cols_free(&c);
		return -ENOMEM;
	}
	/* a column is what the recorder's compaction would keep one sample
	 * of: the first of each run, then one every keep samples of the
	 * shortest interval (rec_file_keep), keep making the window about
	 * width columns; a column never spans a restart */
	keep = (unsigned)((double)span_ms / (double)width / itv) + 1;
	step_ns = rec_file_keep_step_ns(keep < 2 ? 2 : keep, (uint32_t)itv);
	for (size_t i = 0; i < d->n; i++) {
		int64_t t_ns = d->t_ms[i] * 1000000;

		if (c.reduced && c.n &&
		    !rec_file_keep(t_ns, last, i == 0 || isnan(d->itv_ms[i]), step_ns)) {
			c.last[c.n - 1] = i;
			continue;
		}
		last = t_ns;
		c.first[c.n] = c.last[c.n] = i;
		c.n++;
	}
	*ret = c;
	return 0;
}

void rd_cols_free(struct rd_cols *c)
{
	free(c->first);
	free(c->last);
	c->first = c->last = NULL;
}

bool rd_reduce(const struct report_data *d, const double *v, const struct rd_cols *cols, size_t c,
	       double *ret_min, double *ret_mean, double *ret_max)
{
	double mn = INFINITY, mx = -INFINITY, sum = 0, w = 0, plain = 0;
	size_t nv = 0;

	for (size_t i = cols->first[c]; i <= cols->last[c] && cols->first[c] <= cols->last[c];
	     i++) {
		double wi = isnan(d->itv_ms[i]) ? 0 : d->itv_ms[i];

		if (isnan(v[i]))
			continue;
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
		sum += v[i] * wi;
		w += wi;
		plain += v[i];
		nv++;
	}
	if (!nv)
		return false;
	*ret_min = mn;
	*ret_max = mx;
	/* each rate over its interval: weighted by the intervals */
	*ret_mean = w > 0 ? sum / w : plain / (double)nv;
	return true;
}

bool rd_any(const uint8_t *flag, const struct rd_cols *cols, size_t c)
{
	for (size_t i = cols->first[c]; i <= cols->last[c] && cols->first[c] <= cols->last[c]; i++)
		if (flag[i])
			return true;
	return false;
}
