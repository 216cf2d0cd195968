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

	if (d->n < d->cap)
		return 0;
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

static void take_disks(struct report_data *d, struct json_object *doc, size_t i)
{
	struct json_object *arr = mj_get(doc, "disks");
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t k = 0; k < n; k++) {
		struct json_object *row = json_object_array_get_idx(arr, k);
		char name[64];
		bool valid = false, whole = true;
		struct rd_disk *dk;

		if (mj_str(row, "disk_device", name, sizeof(name)) <= 0 || !name[0])
			continue;
		mj_bool(row, "whole", &whole);
		if (!whole || mj_bool(row, "valid", &valid) <= 0 || !valid)
			continue;
		dk = disk_get(d, name);
		if (!dk)
			continue;
		for (int j = RD_UTIL; j <= RD_FAWAIT; j++) {
			double x;

			if (mj_num(row, rd_dkey_names[j], &x) > 0)
				dk->v[j][i] = x;
		}
		if (dk->v[RD_UTIL][i] > dk->max_util)
			dk->max_util = dk->v[RD_UTIL][i];
	}
}

/* A "trace" disk's device histograms of every op summed into h; 1 when
 * it had any. */
static int trace_hist(struct json_object *lat, uint32_t *h)
{
	static const char *const ops[] = { "read", "write", "flush", "discard" };
	int any = 0;

	for (size_t o = 0; o < 4; o++) {
		struct json_object *hist = mj_get(mj_get(mj_get(lat, ops[o]), "device"), "hist");
		size_t nb =
		    json_object_is_type(hist, json_type_array) ? json_object_array_length(hist) : 0;

		for (size_t b = 0; b < nb && b < RD_HIST_BUCKETS; b++) {
			int64_t c = json_object_get_int64(json_object_array_get_idx(hist, b));

			if (c > 0) {
				h[b] += c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
				any = 1;
			}
		}
	}
	return any;
}

static void take_trace(struct report_data *d, struct json_object *doc, size_t i)
{
	struct json_object *arr = mj_get(mj_get(doc, "trace"), "disks");
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t k = 0; k < n; k++) {
		struct json_object *row = json_object_array_get_idx(arr, k), *lat;
		struct rd_disk *dk;
		char name[64];
		double x;

		if (mj_str(row, "disk", name, sizeof(name)) <= 0 || !name[0])
			continue;
		dk = disk_get(d, name);
		if (!dk)
			continue;
		lat = mj_get(row, "lat");
		if (mj_num(mj_get(mj_get(lat, "read"), "device"), "p99_us", &x) > 0) {
			dk->v[RD_RP99][i] = x / 1000.0;
			dk->has_p99 = true;
		}
		if (mj_num(mj_get(mj_get(lat, "write"), "device"), "p99_us", &x) > 0) {
			dk->v[RD_WP99][i] = x / 1000.0;
			dk->has_p99 = true;
		}
		if (!dk->hist && grow_zero((void **)&dk->hist, 0, d->cap * RD_HIST_BUCKETS,
					   sizeof(uint32_t)) < 0)
			continue;
		if (trace_hist(lat, dk->hist + i * RD_HIST_BUCKETS))
			d->has_trace = true;
	}
}

static void take_cpus(struct report_data *d, struct json_object *doc, size_t i)
{
	struct json_object *arr = mj_get(doc, "cpu-load");
	size_t n = json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t k = 0; k < n; k++) {
		struct json_object *row = json_object_array_get_idx(arr, k);
		char name[16], *end;
		double irq, soft;
		bool valid = false;
		struct rd_cpu *c;
		long cpu;

		if (mj_str(row, "cpu", name, sizeof(name)) <= 0)
			continue;
		cpu = strtol(name, &end, 10);
		if (end == name || *end || cpu < 0 || cpu > 1 << 20)
			continue; /* "all" */
		if (mj_bool(row, "valid", &valid) <= 0 || !valid || mj_num(row, "irq", &irq) <= 0 ||
		    mj_num(row, "soft", &soft) <= 0)
			continue;
		c = cpu_get(d, (int)cpu);
		if (!c)
			continue;
		c->v[i] = irq + soft;
		if (c->v[i] > c->max)
			c->max = c->v[i];
	}
}

static void take_psi(struct report_data *d, struct json_object *doc, size_t i)
{
	static const char *const res[RD__PSI] = { "cpu", "io", "io" };
	static const char *const kind[RD__PSI] = { "some", "some", "full" };
	struct json_object *p = mj_get(doc, "pressure");

	for (int j = 0; j < RD__PSI; j++) {
		double x;

		if (mj_num(mj_get(mj_get(p, res[j]), kind[j]), "stall%", &x) > 0) {
			d->psi[j][i] = x;
			d->has_psi = true;
		}
	}
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
		if (sev > row->peak || !row->reason) {
			row->peak = sev;
			row->peak_at = i;
			if (set_str(&row->reason, f->reason) < 0 ||
			    set_str(&row->culprit, f->culprit) < 0 ||
			    set_str(&row->who, f->who) < 0)
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
 * The members of a document the report reads, copied as they are before
 * json-c parses them: the processes' rows, interrupts, turbostat and the
 * rest are most of a document and would be most of the report's time
 * (doc/PERFORMANCE.md, "The incident report").
 */
struct pick {
	const char *key;
	const struct pick *sub; /* NULL: the whole value; else these of it */
};

static const struct pick pick_disk[] = {
	{ "disk_device", NULL }, { "whole", NULL },   { "valid", NULL },
	{ "util", NULL },	 { "aqu-sz", NULL },  { "r_await", NULL },
	{ "w_await", NULL },	 { "f_await", NULL }, { NULL, NULL },
};
static const struct pick pick_cpu[] = {
	{ "cpu", NULL }, { "valid", NULL }, { "irq", NULL }, { "soft", NULL }, { NULL, NULL },
};
static const struct pick pick_stage[] = { { "p99_us", NULL }, { "hist", NULL }, { NULL, NULL } };
static const struct pick pick_op[] = { { "device", pick_stage }, { NULL, NULL } };
static const struct pick pick_lat[] = {
	{ "read", pick_op },	{ "write", pick_op }, { "flush", pick_op },
	{ "discard", pick_op }, { NULL, NULL },
};
static const struct pick pick_tdisk[] = { { "disk", NULL }, { "lat", pick_lat }, { NULL, NULL } };
static const struct pick pick_trace[] = { { "disks", pick_tdisk }, { NULL, NULL } };
static const struct pick pick_procs[] = { { "delay_accounting", NULL },
					  { "top_delay", NULL },
					  { NULL, NULL } };
static const struct pick pick_doc[] = {
	{ "timestamp_ms", NULL },    { "interval_ms", NULL },	  { "host", NULL },
	{ "disks", pick_disk },	     { "cpu-load", pick_cpu },	  { "pressure", NULL },
	{ "trace", pick_trace },     { "findings", NULL },	  { "suggestions", NULL },
	{ "findings_rising", NULL }, { "processes", pick_procs }, { NULL, NULL },
};

/* The end of the string whose opening quote is at p, after its closing
 * quote; NULL when it has none. A byte loop: most strings are keys of a
 * few bytes, shorter than a memchr call's overhead. */
static const char *skip_str(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++; /* the escaped byte, whatever it is */
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* The end of the value at p (an object, array, string or scalar), NULL
 * when it does not end */
static const char *skip_value(const char *p, const char *end)
{
	/* the bytes that matter to nesting; the rest skipped a table lookup each */
	static const unsigned char special[256] = {
		['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1, [','] = 1,
	};
	int depth = 0;

	while (p < end) {
		char c;

		while (p < end && !special[(unsigned char)*p])
			p++;
		if (p >= end)
			break;
		c = *p;
		if (c == '"') {
			p = skip_str(p, end);
			if (!p)
				return NULL;
			if (!depth)
				return p;
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				return depth ? p : p + 1;
		} else if (!depth && c == ',') {
			return p;
		}
		p++;
	}
	return depth ? NULL : p;
}

static int json_pick(const char *s, const char *end, const struct pick *keys, struct strbuf *out);

/* json_pick() of each object of the array at s[0..end) */
static int json_pick_array(const char *p, const char *end, const struct pick *keys,
			   struct strbuf *out)
{
	sb_putc(out, '[');
	for (p = skip_ws(p + 1, end); p < end && *p != ']'; p = skip_ws(p, end)) {
		const char *e = skip_value(p, end);

		if (!e || json_pick(p, e, keys, out) < 0)
			return -EBADMSG;
		p = skip_ws(e, end);
		if (p < end && *p == ',') {
			p++;
			sb_putc(out, ',');
		}
	}
	sb_putc(out, ']');
	return out->err;
}

/* The members of the object at s[0..len) that keys names, as an object,
 * into out (an array: of each of its objects); -EBADMSG when it is not an
 * object as far as read */
static int json_pick(const char *s, const char *end, const struct pick *keys, struct strbuf *out)
{
	const char *p = skip_ws(s, end);
	bool first = true;

	if (p < end && *p == '[')
		return json_pick_array(p, end, keys, out);
	if (p >= end || *p != '{')
		return -EBADMSG;
	sb_putc(out, '{');
	for (p = skip_ws(p + 1, end); p < end && *p != '}'; p = skip_ws(p, end)) {
		const char *k = p, *ke = *p == '"' ? skip_str(p, end) : NULL, *v, *ve;
		const struct pick *w = keys;

		if (!ke)
			return -EBADMSG;
		v = skip_ws(ke, end);
		if (v >= end || *v != ':')
			return -EBADMSG;
		v = skip_ws(v + 1, end);
		ve = skip_value(v, end);
		if (!ve)
			return -EBADMSG;
		while (w->key && (strlen(w->key) != (size_t)(ke - k - 2) ||
				  memcmp(w->key, k + 1, (size_t)(ke - k - 2)) != 0))
			w++;
		if (w->key) {
			if (!first)
				sb_putc(out, ',');
			first = false;
			sb_append(out, k, (size_t)(v - k));
			if (!w->sub)
				sb_append(out, v, (size_t)(ve - v));
			else if (json_pick(v, ve, w->sub, out) < 0)
				return -EBADMSG;
		}
		p = skip_ws(ve, end);
		if (p < end && *p == ',')
			p++;
	}
	sb_putc(out, '}');
	return out->err;
}

int rd_add_text(struct report_data *d, const char *json, size_t len, struct strbuf *scratch)
{
	struct json_object *o;
	int r;

	sb_reset(scratch);
	r = json_pick(json, json + len, pick_doc, scratch);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || mj_parse(scratch->buf, scratch->len, &o) < 0) {
		d->skipped++;
		return 0;
	}
	r = rd_add(d, o);
	json_object_put(o);
	return r;
}

int rd_add(struct report_data *d, struct json_object *doc)
{
	int64_t ts;
	double itv;
	size_t i;

	if (mj_int(doc, "timestamp_ms", &ts) <= 0 || (d->n && ts <= d->t_ms[d->n - 1])) {
		d->skipped++;
		return 0;
	}
	if (rd_reserve(d) < 0)
		return -ENOMEM;
	i = d->n;
	d->t_ms[i] = ts;
	if (mj_num(doc, "interval_ms", &itv) > 0)
		d->itv_ms[i] = itv;
	if (!d->host[0])
		mj_str(doc, "host", d->host, sizeof(d->host));
	d->n++;
	take_disks(d, doc, i);
	take_trace(d, doc, i);
	take_cpus(d, doc, i);
	take_psi(d, doc, i);
	take_victims(d, doc, i);
	return take_findings(d, doc, i) < 0 ? -ENOMEM : 1;
}

void rd_free(struct report_data *d)
{
	if (!d)
		return;
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
	size_t best = 0, bfirst = 0, start = 0;
	int top = 0;

	for (size_t i = 0; i < d->n; i++)
		if (rd_sev_at(d, i) > top)
			top = rd_sev_at(d, i);
	if (top < 2)
		return false;
	for (size_t i = 0; i <= d->n; i++) {
		bool in = i < d->n && rd_sev_at(d, i) >= top;

		if (in && (i == 0 || rd_sev_at(d, i - 1) < top))
			start = i;
		if (!in && i > 0 && rd_sev_at(d, i - 1) >= top && i - start > best) {
			best = i - start;
			bfirst = start;
		}
	}
	*ret_first = bfirst;
	*ret_last = bfirst + best - 1;
	*ret_sev = top;
	return true;
}

int rd_columns(const struct report_data *d, size_t width, struct rd_cols *ret)
{
	struct rd_cols c = { 0 };
	size_t k = 0;

	c.n = d->n <= width ? d->n : width;
	c.reduced = d->n > width;
	c.first = calloc(c.n ? c.n : 1, sizeof(size_t));
	c.last = calloc(c.n ? c.n : 1, sizeof(size_t));
	if (!c.first || !c.last) {
		rd_cols_free(&c);
		return -ENOMEM;
	}
	for (size_t col = 0; col < c.n; col++) {
		/* column col: the samples in its share of the window's time */
		int64_t t0 = d->t_ms[0], span = d->t_ms[d->n - 1] - t0 + 1;
		int64_t end = t0 + (int64_t)((double)span * (double)(col + 1) / (double)c.n);

		if (!c.reduced) {
			c.first[col] = c.last[col] = col;
			continue;
		}
		c.first[col] = k;
		while (k < d->n && (d->t_ms[k] < end || col == c.n - 1))
			k++;
		c.last[col] = k - 1; /* first > last: empty (k unchanged) */
		if (k == c.first[col]) {
			c.first[col] = 1;
			c.last[col] = 0;
		}
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
