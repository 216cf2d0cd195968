// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decoder of the "cgroups" section (src/encode/encode_workload.c): the rows in
 * the order sent, their devices flattened into one array. A malformed row
 * drops the section with the place named, never the sample.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "json_get.h"
#include "model_cgroup.h"

const char *const model_cgroup_help[][2] = {
	{ "cgroups", "cgroup v2: each cgroup's io.stat and io.pressure, read every sample "
		     "(c opens the view)" },
	{ "rkB/s wkB/s", "kilobytes per second read and written by the cgroup's tasks "
			 "(io.stat rbytes, wbytes)" },
	{ "r/s w/s", "read and write IOs per second (rios, wios)" },
	{ "dkB/s d/s", "discards (dbytes, dios; kernel >= 4.19)" },
	{ "some% full%",
	  "io.pressure: share of the interval some / all of its tasks stalled on IO" },
	{ "nesting", "io.stat is hierarchical: a slice's rows include its services'" },
	{ NULL, NULL },
};

static int rates(struct json_object *o, struct model_cg_rates *v)
{
	if (mj_num(o, "rkB/s", &v->rkb_s) <= 0 || mj_num(o, "wkB/s", &v->wkb_s) <= 0 ||
	    mj_num(o, "r/s", &v->r_s) <= 0 || mj_num(o, "w/s", &v->w_s) <= 0 ||
	    mj_num(o, "dkB/s", &v->dkb_s) < 0 || mj_num(o, "d/s", &v->d_s) < 0)
		return -EBADMSG;
	return 0;
}

static int decode_row(struct json_object *o, struct model_cgroups *x, struct model_cg *g)
{
	struct json_object *p, *devs;
	int n;

	memset(g, 0, sizeof(*g));
	if (!json_object_is_type(o, json_type_object) ||
	    mj_str(o, "path", g->path, sizeof(g->path)) <= 0)
		return -EBADMSG;
	g->has_io = mj_get(o, "rkB/s") != NULL;
	if (g->has_io && rates(o, &g->v) < 0)
		return -EBADMSG;
	p = mj_get(o, "pressure");
	if (p) {
		n = mj_num(p, "some%", &g->some_pct);
		if (n < 0)
			return -EBADMSG;
		g->has_some = n > 0;
		n = mj_num(p, "full%", &g->full_pct);
		if (n < 0)
			return -EBADMSG;
		g->has_full = n > 0;
	}
	g->dev_off = x->ndevs;
	devs = mj_get(o, "devices");
	if (devs) {
		size_t len;

		if (!json_object_is_type(devs, json_type_array))
			return -EBADMSG;
		len = json_object_array_length(devs);
		if (grow((void **)&x->devs, &x->devs_cap, x->ndevs + len, sizeof(*x->devs)) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < len; i++) {
			struct json_object *d = json_object_array_get_idx(devs, i);
			struct model_cg_dev *m = &x->devs[x->ndevs];

			memset(m, 0, sizeof(*m));
			if (!json_object_is_type(d, json_type_object) ||
			    mj_str(d, "dev", m->dev, sizeof(m->dev)) <= 0 ||
			    mj_str(d, "disk", m->disk, sizeof(m->disk)) < 0 || rates(d, &m->v) < 0)
				return -EBADMSG;
			x->ndevs++;
		}
	}
	g->ndev = x->ndevs - g->dev_off;
	return 0;
}

static void reason_of(struct json_object *doc, struct model_cgroups *x)
{
	struct json_object *s = mj_get(mj_get(doc, "sources"), "cgroup_io");
	bool avail = true;

	x->reason[0] = '\0';
	if (!s || !json_object_is_type(s, json_type_object))
		return;
	if (mj_bool(s, "available", &avail) < 0)
		avail = true;
	mj_str(s, avail ? "note" : "reason", x->reason, sizeof(x->reason));
}

void model_cgroups_free(struct model_cgroups *x)
{
	if (!x)
		return;
	free(x->v);
	free(x->devs);
	memset(x, 0, sizeof(*x));
}

int model_cgroups_decode(struct json_object *doc, struct model_cgroups *ret)
{
	struct model_cgroups x = { 0 };
	struct json_object *o = mj_get(doc, "cgroups"), *top;
	int r = 0;

	reason_of(doc, &x);
	x.version = 2; /* older daemons: v2 only */
	if (!o) {
		*ret = x;
		return 0;
	}
	if (!json_object_is_type(o, json_type_object) ||
	    mj_str(o, "hierarchy", x.hierarchy, sizeof(x.hierarchy)) < 0 ||
	    mj_bool(o, "io_controller", &x.io_controller) < 0 ||
	    mj_uint(o, "version", &x.version) < 0 || (x.version != 1 && x.version != 2) ||
	    mj_uint(o, "count", &x.count) < 0 || mj_uint(o, "active", &x.active) < 0) {
		r = -EBADMSG;
		goto bad;
	}
	top = mj_get(o, "top");
	x.has_rows = top != NULL;
	if (top) {
		size_t len;

		if (!json_object_is_type(top, json_type_array)) {
			r = -EBADMSG;
			goto bad;
		}
		len = json_object_array_length(top);
		if (len && grow((void **)&x.v, &x.cap, len, sizeof(*x.v)) < 0) {
			r = -ENOMEM;
			goto bad;
		}
		for (size_t i = 0; i < len; i++) {
			r = decode_row(json_object_array_get_idx(top, i), &x, &x.v[x.n]);
			if (r < 0) {
				if (r == -EBADMSG)
					snprintf(x.reason, sizeof(x.reason),
						 "malformed sample: cgroups.top[%zu]", i);
				goto bad;
			}
			x.n++;
		}
	}
	x.present = true;
	*ret = x;
	return 0;
bad:
	free(x.v);
	free(x.devs);
	if (r == -EBADMSG) {
		struct model_cgroups e = { 0 };

		if (!x.reason[0] || !strstr(x.reason, "malformed"))
			snprintf(e.reason, sizeof(e.reason), "malformed sample: cgroups");
		else
			memcpy(e.reason, x.reason, sizeof(e.reason));
		*ret = e;
	}
	return r;
}
