// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_trace: the document's "trace" section (doc/json.md) onto the rows
 * the panels draw: % of a CPU by softirq vector and in hardirq handlers,
 * each IRQ line's handler time, each disk's latency percentiles (ms for the
 * p99 columns) and completion locality. Unit changes only (µs/s to %, µs
 * to ms) and the "all" row's average; never a rate, never I/O.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "model.h"
#include "str.h"

const char *const model_soft_vec_names[MODEL_SOFT_VECS] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

static const char *const probe_names[] = { "hardirq", "softirq", "block" };
static const char *const op_names[MT__OPS] = { "read", "write", "flush", "discard" };
static const char *const kind_names[MT__KINDS] = { "queued", "device" };

/* µs per second as % of one CPU (10^6 µs/s is 100 %) */
static double us_s_pct(double us_s)
{
	return us_s / 1e4;
}

static bool num(struct json_object *o, const char *key, double *ret)
{
	return mj_num(o, key, ret) > 0;
}

/* The probes: which are on, and "block (why)" for those that are off. */
static void decode_probes(struct json_object *probes, struct model_trace *t)
{
	bool *on[] = { &t->hard, &t->soft, &t->block };

	for (size_t k = 0; k < sizeof(probe_names) / sizeof(probe_names[0]); k++) {
		struct json_object *p = mj_get(probes, probe_names[k]);
		char why[MODEL_TRACE_LINE_MAX] = "";
		bool b = false;

		if (!p || !json_object_is_type(p, json_type_object))
			continue;
		if (mj_bool(p, "on", &b) > 0 && b) {
			double d = 0;

			*on[k] = true;
			if (on[k] == &t->block && mj_num(p, "lat_dropped", &d) > 0 && d >= 1)
				t->lat_dropped = (uint64_t)d;
			continue;
		}
		mj_str(p, "reason", why, sizeof(why));
		str_cat(t->off, sizeof(t->off), "%s%s off%s%s%s", t->off[0] ? ", " : "",
			probe_names[k], why[0] ? " (" : "", why, why[0] ? ")" : "");
	}
}

static struct model_cpu *cpu_row(struct model_cpu *cpus, size_t ncpus, int64_t cpu)
{
	/* the rows are in number order after "all": bisect */
	size_t lo = ncpus && cpus[0].cpu < 0 ? 1 : 0, hi = ncpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ncpus && cpus[lo].cpu == cpu ? &cpus[lo] : NULL;
}

static int decode_cpus(struct json_object *arr, const struct model_trace *t, struct model_cpu *cpus,
		       size_t ncpus)
{
	struct model_cpu *all = ncpus && cpus[0].cpu < 0 ? &cpus[0] : NULL;
	size_t n = arr ? json_object_array_length(arr) : 0, online = 0;

	/* a CPU the section leaves out took no time: 0, not unknown */
	for (size_t i = 0; i < ncpus; i++) {
		cpus[i].trace.has_soft = t->soft;
		cpus[i].trace.has_hard = t->hard;
		online += cpus[i].cpu >= 0 && cpus[i].valid;
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct json_object *soft = mj_get(o, "soft_us_s");
		struct model_cpu *c;
		int64_t cpu;
		double v;

		if (!o || !json_object_is_type(o, json_type_object) || mj_int(o, "cpu", &cpu) <= 0)
			return -EBADMSG;
		c = cpu_row(cpus, ncpus, cpu);
		if (!c)
			continue; /* offline or not in cpu-load: nowhere to show it */
		if (t->hard && num(o, "hard_us_s", &v)) {
			c->trace.hard_pct = us_s_pct(v);
			if (all && online)
				all->trace.hard_pct += us_s_pct(v) / (double)online;
		}
		if (!t->soft || !soft || !json_object_is_type(soft, json_type_object))
			continue;
		for (int k = 0; k < MODEL_SOFT_VECS; k++)
			if (num(soft, model_soft_vec_names[k], &v)) {
				c->trace.soft_pct[k] = us_s_pct(v);
				if (all && online)
					all->trace.soft_pct[k] += us_s_pct(v) / (double)online;
			}
	}
	return 0;
}

static void decode_irqs(struct json_object *arr, struct model_irq *irqs, size_t nirqs)
{
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		int64_t irq;
		double us;

		if (!o || mj_int(o, "irq", &irq) <= 0 || !num(o, "us_s", &us) || irq < 0)
			continue;
		for (size_t k = 0; k < nirqs; k++)
			if (irqs[k].numeric && irqs[k].irq == irq) {
				irqs[k].has_time = true;
				irqs[k].time_us_s = us;
				break;
			}
	}
}

static void decode_lat(struct json_object *o, struct model_lat *l)
{
	memset(l, 0, sizeof(*l));
	if (!o || !json_object_is_type(o, json_type_object) || !num(o, "count", &l->count) ||
	    l->count <= 0 || !num(o, "p99_us", &l->p99_us))
		return;
	num(o, "mean_us", &l->mean_us);
	num(o, "p50_us", &l->p50_us);
	num(o, "p90_us", &l->p90_us);
	num(o, "p99.9_us", &l->p999_us);
	num(o, "max_us", &l->max_us);
	l->has = true;
}

static void decode_disks(struct json_object *arr, struct model_disk *disks, size_t ndisks)
{
	size_t n = arr ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct json_object *lat = mj_get(o, "lat");
		char name[MODEL_NAME_MAX] = "";
		struct model_disk *d = NULL;
		struct model_disk_trace *dt;

		if (!o || mj_str(o, "disk", name, sizeof(name)) <= 0 || !name[0])
			continue;
		for (size_t k = 0; k < ndisks && !d; k++)
			if (strcmp(disks[k].name, name) == 0)
				d = &disks[k];
		if (!d)
			continue;
		dt = &d->trace;
		dt->has_remote = num(o, "remote_pct", &dt->remote_pct);
		for (int op = 0; op < MT__OPS; op++)
			for (int k = 0; k < MT__KINDS; k++) {
				decode_lat(mj_get(mj_get(lat, op_names[op]), kind_names[k]),
					   &dt->lat[op][k]);
				dt->has_lat |= dt->lat[op][k].has;
			}
		/* beside the mean await: the device's p99 (issue -> complete) */
		d->has[MD_RP99] = dt->lat[MT_READ][MT_DEVICE].has;
		d->v[MD_RP99] = dt->lat[MT_READ][MT_DEVICE].p99_us / 1e3;
		d->has[MD_WP99] = dt->lat[MT_WRITE][MT_DEVICE].has;
		d->v[MD_WP99] = dt->lat[MT_WRITE][MT_DEVICE].p99_us / 1e3;
	}
}

int model_trace_decode(struct json_object *doc, struct model_cpu *cpus, size_t ncpus,
		       struct model_irq *irqs, size_t nirqs, struct model_disk *disks,
		       size_t ndisks, struct model_trace *ret)
{
	struct json_object *tr = mj_get(doc, "trace");
	struct json_object *a;
	struct model_trace t = { 0 };
	bool b = false;

	if (!tr) {
		*ret = t;
		return 0;
	}
	t.present = true;
	if (!json_object_is_type(tr, json_type_object) || mj_bool(tr, "available", &b) <= 0) {
		t.malformed = true;
		*ret = t;
		return 0;
	}
	t.available = b;
	if (!b) {
		mj_str(tr, "reason", t.reason, sizeof(t.reason));
		*ret = t;
		return 0;
	}
	decode_probes(mj_get(tr, "probes"), &t);
	a = mj_get(tr, "cpus");
	if (a && !json_object_is_type(a, json_type_array))
		a = NULL;
	if ((t.soft || t.hard) && decode_cpus(a, &t, cpus, ncpus) < 0) {
		/* shown as absent: clear what was set */
		for (size_t i = 0; i < ncpus; i++)
			memset(&cpus[i].trace, 0, sizeof(cpus[i].trace));
		t.soft = t.hard = false;
		t.malformed = true;
	}
	a = mj_get(tr, "irqs");
	if (t.hard && a && json_object_is_type(a, json_type_array))
		decode_irqs(a, irqs, nirqs);
	a = mj_get(tr, "disks");
	if (t.block && a && json_object_is_type(a, json_type_array))
		decode_disks(a, disks, ndisks);
	*ret = t;
	return 0;
}

void model_trace_cause(const struct model_trace *t, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!t->present)
		return;
	if (t->malformed)
		snprintf(buf, size, "tracing: the trace section is malformed");
	else if (!t->available)
		snprintf(buf, size, "tracing: unavailable (%s)", t->reason[0] ? t->reason : "?");
	else if (t->off[0])
		snprintf(buf, size, "tracing: %s", t->off);
	if (t->available && !t->malformed && t->lat_dropped)
		str_cat(buf, size, "%s%llu IOs without a latency row",
			buf[0] ? ", " : "tracing: ", (unsigned long long)t->lat_dropped);
}

void model_trace_soft_split(const struct model_cpu_trace *c, int decimals, int width, char *buf,
			    size_t size)
{
	bool used[MODEL_SOFT_VECS] = { false };
	double least = decimals >= 2 ? 0.005 : 0.05; /* what rounds to more than 0 */
	size_t len = 0;

	buf[0] = '\0';
	if (!c->has_soft)
		return;
	for (;;) {
		int best = -1, n;
		char item[32];

		for (int k = 0; k < MODEL_SOFT_VECS; k++)
			if (!used[k] && c->soft_pct[k] >= least &&
			    (best < 0 || c->soft_pct[k] > c->soft_pct[best]))
				best = k;
		if (best < 0)
			return;
		used[best] = true;
		n = snprintf(item, sizeof(item), "%s%s %.*f", len ? " " : "",
			     model_soft_vec_names[best], decimals >= 2 ? 2 : 1, c->soft_pct[best]);
		if (n < 0 || len + (size_t)n > (size_t)(width > 0 ? width : 0) ||
		    len + (size_t)n >= size)
			return;
		memcpy(buf + len, item, (size_t)n + 1);
		len += (size_t)n;
	}
}

int model_trace_napi_decode(struct json_object *doc, struct model_napis *ret)
{
	struct json_object *a = mj_get(mj_get(doc, "trace"), "napi");
	struct model_napis n = { 0 };
	size_t len;

	if (!a || !json_object_is_type(a, json_type_array)) {
		*ret = n;
		return 0;
	}
	n.present = true;
	len = json_object_array_length(a);
	if (len) {
		n.v = calloc(len, sizeof(*n.v));
		if (!n.v)
			return -ENOMEM;
	}
	for (size_t i = 0; i < len; i++) {
		struct json_object *o = json_object_array_get_idx(a, i);
		struct model_napi *q = &n.v[n.n];
		int64_t id, v, ns;
		char dev[sizeof(q->dev)];
		double us;

		if (!o || !json_object_is_type(o, json_type_object) ||
		    mj_int(o, "napi_id", &id) <= 0 || id < 0 || id > UINT32_MAX ||
		    mj_str(o, "dev", q->dev, sizeof(q->dev)) < 0 || !num(o, "us_s", &us) || us < 0)
			continue;
		q->napi_id = (uint32_t)id;
		q->ifindex =
		    mj_int(o, "ifindex", &v) > 0 && v > 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
		q->host = true;
		if (json_object_is_type(json_object_object_get(o, "host"), json_type_boolean) &&
		    !json_object_get_boolean(json_object_object_get(o, "host"))) {
			q->host = false;
			if (mj_int(o, "netns", &ns) <= 0 || ns < 0)
				ns = 0;
			memcpy(dev, q->dev, sizeof(dev));
			snprintf(q->dev, sizeof(q->dev), "netns %lld %.16s", (long long)ns, dev);
		}
		q->pct = us_s_pct(us);
		q->irq = mj_int(o, "irq", &v) > 0 && v >= 0 && v <= INT32_MAX ? (int)v : -1;
		q->queue = mj_int(o, "queue", &v) > 0 && v >= 0 && v <= INT32_MAX ? (int)v : -1;
		num(o, "polls_s", &q->polls_s);
		num(o, "packets_s", &q->packets_s);
		n.n++;
	}
	*ret = n;
	return 0;
}

void model_trace_napi_free(struct model_napis *n)
{
	if (!n)
		return;
	free(n->v);
	memset(n, 0, sizeof(*n));
}

bool model_napi_of(const struct model_napi *q, const char *dev, uint64_t ifindex)
{
	if (!q->napi_id || !q->host)
		return false;
	if (ifindex && q->ifindex)
		return q->ifindex == ifindex;
	return strcmp(q->dev, dev) == 0;
}

bool model_trace_napi_dev(const struct model_napis *n, const char *dev, uint64_t ifindex, int irq,
			  double *ret_pct)
{
	double pct = 0;
	bool any = false;

	for (size_t i = 0; i < n->n; i++)
		if (model_napi_of(&n->v[i], dev, ifindex) && (irq < 0 || n->v[i].irq == irq)) {
			pct += n->v[i].pct;
			any = true;
		}
	if (any)
		*ret_pct = pct;
	return any;
}
