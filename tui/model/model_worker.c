// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_worker: the daemon's bench job (doc/protocol.md, the "worker"
 * object) for the TUI: decoded as sent, timed by the caller's clock, and
 * tied to the CPUs its device's interrupts landed on in the sample. Never
 * reads /proc or the clock, never computes a rate.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_get.h"
#include "model_worker.h"

static const char *const state_keys[] = {
	[MW_STARTING] = "starting", [MW_RUNNING] = "running", [MW_COMPLETED] = "completed",
	[MW_FAILED] = "failed",	    [MW_STOPPED] = "stopped",
};

static const char *const state_words[] = {
	[MW_STARTING] = "starting", [MW_RUNNING] = "running", [MW_COMPLETED] = "done",
	[MW_FAILED] = "failed",	    [MW_STOPPED] = "stopped",
};

/* ---- json-c: absent or mistyped keys are "not present" (json_get.h) ---- */

static bool jnum(struct json_object *o, const char *key, double *ret)
{
	return mj_num(o, key, ret) > 0;
}

static bool juint(struct json_object *o, const char *key, uint64_t *ret)
{
	return mj_uint(o, key, ret) > 0;
}

/* ---- decoding ---- */

static void decode_dir(struct json_object *o, struct model_worker_dir *d)
{
	struct json_object *clat = mj_get(o, "clat_ns");

	memset(d, 0, sizeof(*d));
	juint(o, "ios", &d->ios);
	juint(o, "bytes", &d->bytes);
	jnum(o, "iops", &d->iops);
	jnum(o, "bw_bytes", &d->bw_bytes);
	jnum(o, "iops_now", &d->iops_now);
	jnum(o, "bw_bytes_now", &d->bw_bytes_now);
	juint(clat, "N", &d->clat_n);
	jnum(clat, "mean", &d->clat_mean_ns);
	/* the key as the daemon (and fio) spell it */
	d->has_p99 = jnum(mj_get(clat, "percentile"), "99.000000", &d->clat_p99_ns);
}

static int parse_state(const char *s, enum model_worker_state *ret)
{
	for (size_t i = 0; i < sizeof(state_keys) / sizeof(state_keys[0]); i++)
		if (strcmp(s, state_keys[i]) == 0) {
			*ret = (enum model_worker_state)i;
			return 0;
		}
	return -EBADMSG;
}

int model_worker_apply(struct model *m, struct json_object *o, int64_t now_ns, unsigned flags)
{
	struct model_worker w = { 0 };
	struct model_worker *old = m->worker;
	struct json_object *v;
	char state[32];
	bool same;
	uint64_t n = 0;

	if (!o || !json_object_is_type(o, json_type_object))
		return -EBADMSG;
	mj_str(o, "state", state, sizeof(state));
	if (strcmp(state, "idle") == 0) {
		free(m->worker);
		m->worker = NULL;
		return 0;
	}
	if (parse_state(state, &w.state) < 0 || !juint(o, "id", &w.id))
		return -EBADMSG;
	same = old && old->id == w.id;
	if (w.state >= MW_COMPLETED && (flags & MODEL_WORKER_STATUS) && !same) {
		/* an ended job this client never watched: not news, and whatever
		 * it showed before is over */
		free(m->worker);
		m->worker = NULL;
		return 0;
	}
	mj_str(o, "filename", w.filename, sizeof(w.filename));
	mj_str(o, "device", w.device, sizeof(w.device)); /* null: "" */
	mj_str(o, "name", w.name, sizeof(w.name));
	mj_str(o, "rw", w.rw, sizeof(w.rw));
	mj_str(o, "ioengine", w.engine, sizeof(w.engine));
	juint(o, "bs", &w.bs);
	if (juint(o, "iodepth", &n) && n <= UINT32_MAX)
		w.iodepth = (unsigned)n;
	if (juint(o, "numjobs", &n) && n <= UINT32_MAX)
		w.numjobs = (unsigned)n;
	v = mj_get(o, "phase");
	if (v && json_object_is_type(v, json_type_string)) {
		const char *ph = json_object_get_string(v);

		w.precondition = strcmp(ph, "precondition") == 0;
		if (strcmp(ph, "sweep") == 0) {
			struct json_object *sw = mj_get(o, "sweep");
			uint64_t k = 0, all = 0;

			if (sw && juint(sw, "point", &k) && juint(sw, "points", &all) && k >= 1 &&
			    k <= all && all <= 1024) {
				w.sweep_point = (unsigned)k;
				w.sweep_points = (unsigned)all;
			}
		}
	}
	jnum(o, "elapsed_s", &w.elapsed_s);
	jnum(o, "runtime_s", &w.runtime_s);
	jnum(o, "planned_s", &w.planned_s); /* null: stays 0 */
	v = mj_get(o, "read");
	decode_dir(v, &w.dir[MW_READ]);
	v = mj_get(o, "write");
	decode_dir(v, &w.dir[MW_WRITE]);
	mj_str(o, "error", w.error, sizeof(w.error));
	w.seen_ns = now_ns;
	if (w.state >= MW_COMPLETED)
		w.ended_ns = same && old->ended_ns ? old->ended_ns : now_ns;
	if (!m->worker) {
		m->worker = malloc(sizeof(*m->worker));
		if (!m->worker)
			return -ENOMEM;
	}
	*m->worker = w;
	return 0;
}

int model_worker_apply_text(struct model *m, const char *json, size_t len, int64_t now_ns,
			    unsigned flags)
{
	struct json_object *o;
	int r = mj_parse(json, len, &o);

	if (r < 0)
		return r;
	r = model_worker_apply(m, o, now_ns, flags);
	json_object_put(o);
	return r;
}

bool model_worker_expire(struct model *m, int64_t now_ns, int64_t stale_ns)
{
	const struct model_worker *w = m->worker;

	if (!w)
		return false;
	if (w->ended_ns ? now_ns - w->ended_ns < MODEL_WORKER_KEEP_NS
			: now_ns - w->seen_ns < stale_ns)
		return false;
	free(m->worker);
	m->worker = NULL;
	return true;
}

const struct model_worker *model_worker_get(const struct model *m)
{
	return m->worker;
}

bool model_worker_active(const struct model_worker *w)
{
	return w && (w->state == MW_STARTING || w->state == MW_RUNNING);
}

const char *model_worker_state_word(enum model_worker_state s)
{
	if ((unsigned)s >= sizeof(state_words) / sizeof(state_words[0]))
		return "?";
	return state_words[s];
}

/* ---- the device's interrupts ---- */

/*
 * The name the device's interrupt handlers carry: an NVMe namespace's
 * controller ("nvme0n1", "nvme0n1p2", "nvme0c1n1" -> "nvme0", whose queues
 * are nvme0q0, nvme0q1 ...), else the device name itself. Returns false when
 * there is no device.
 */
static bool irq_owner(const char *dev, char *buf, size_t size)
{
	size_t i = 4;

	if (!dev[0])
		return false;
	snprintf(buf, size, "%s", dev);
	if (strncmp(dev, "nvme", 4) != 0)
		return true;
	while (dev[i] >= '0' && dev[i] <= '9')
		i++;
	if (i > 4 && i < size)
		buf[i] = '\0';
	return true;
}

/* One handler of an actions list ("nvme0q1" or "i801_smbus, nvme0q3")
 * names owner: owner itself, or owner followed by a non-digit (so nvme1 is
 * not nvme10q1). */
static bool actions_name(const char *actions, const char *owner)
{
	size_t n = strlen(owner);
	const char *p = actions;

	while (*p) {
		while (*p == ' ' || *p == ',')
			p++;
		if (strncmp(p, owner, n) == 0 &&
		    (p[n] == '\0' || p[n] == ',' || !(p[n] >= '0' && p[n] <= '9')))
			return true;
		p += strcspn(p, ",");
	}
	return false;
}

/* Calls back for each CPU (with a non-zero rate) of each interrupts line of
 * the job's device until fn returns true; returns whether it did. */
static bool each_irq_cpu(const struct model *m, bool (*fn)(int cpu, void *arg), void *arg)
{
	const struct model_worker *w = m->worker;
	char owner[MODEL_NAME_MAX];

	if (!w || !irq_owner(w->device, owner, sizeof(owner)))
		return false;
	for (size_t i = 0; i < m->nirqs; i++) {
		const struct model_irq *q = &m->irqs[i];

		if (!q->valid || !actions_name(q->actions, owner))
			continue;
		for (size_t k = 0; k < q->ncpus; k++)
			if (q->cpus[k].rate_s > 0 && fn(q->cpus[k].cpu, arg))
				return true;
	}
	return false;
}

static bool is_cpu(int cpu, void *arg)
{
	return cpu == *(const int *)arg;
}

static bool any_cpu(int cpu, void *arg)
{
	(void)cpu;
	(void)arg;
	return true;
}

bool model_worker_irq_on_cpu(const struct model *m, int cpu)
{
	return cpu >= 0 && each_irq_cpu(m, is_cpu, &cpu);
}

bool model_worker_has_irq_cpus(const struct model *m)
{
	return each_irq_cpu(m, any_cpu, NULL);
}
