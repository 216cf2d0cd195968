// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model: the one decoder from the sample document (doc/json.md) to what the
 * views draw, and the sparkline history. Used the same way for the daemon's
 * samples and the embedded sampler's, so both modes show the same numbers.
 * It never reads /proc and never computes a rate.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "grow.h"
#include "json_get.h"
#include "model.h"
#include "str.h"

#define MODEL_JSON_VERSION 1 /* doc/json.md version this client reads */

/*
 * Widths fit "99999.99"; larger values lose decimals, then get k/M/G.
 * Priorities (lower kept first as the terminal narrows, doc/tui.md): what
 * says "saturated or slow, reads or writes" first (%util, aqu-sz, r_await,
 * w_await, r/s, w/s, rkB/s, wkB/s: all eight fit at 80 columns), then the
 * tracing stage's r_p99 and w_p99 (only with a "trace" section: from 100
 * columns), svctm, the merges, the request sizes, discards and flushes.
 */
const struct model_col model_disk_cols[MD__COUNT] = {
	[MD_RS] = { "r/s", "r/s", 8, 4, "reads completed per second (after merging)" },
	[MD_WS] = { "w/s", "w/s", 8, 5, "writes completed per second (after merging)" },
	[MD_RKBS] = { "rkB/s", "rkB/s", 8, 6, "kilobytes read per second (1 kB = 1024 bytes)" },
	[MD_WKBS] = { "wkB/s", "wkB/s", 8, 7, "kilobytes written per second" },
	[MD_RRQMS] = { "rrqm/s", "rrqm/s", 7, 11,
		       "read requests merged per second before going to the device; non-zero "
		       "means sequential reads the block layer could batch" },
	[MD_WRQMS] = { "wrqm/s", "wrqm/s", 7, 12, "write requests merged per second" },
	[MD_RRQM] = { "rrqm", "%rrqm", 6, 15, "percentage of read requests that were merged" },
	[MD_WRQM] = { "wrqm", "%wrqm", 6, 16, "percentage of write requests that were merged" },
	[MD_RAWAIT] = { "r_await", "r_await", 7, 2,
			"average time of a read, queueing included (ms); coloured above "
			"--await-ms" },
	[MD_RP99] = { NULL, "r_p99", 7, 8,
		      "--trace: 99th percentile of a read's time at the device (issue to "
		      "complete, ms; BPF, doc/trace.md); the time queued before issue is in "
		      "the queue chain view (Enter)" },
	[MD_WAWAIT] = { "w_await", "w_await", 7, 3,
			"average time of a write, queueing included (ms); coloured above "
			"--await-ms" },
	[MD_WP99] = { NULL, "w_p99", 7, 9,
		      "--trace: 99th percentile of a write's time at the device (ms)" },
	[MD_AQU] = { "aqu-sz", "aqu-sz", 6, 1,
		     "average queue length (requests in flight); a sustained high value "
		     "means the device is the bottleneck" },
	[MD_RAREQ] = { "rareq-sz", "rareq-sz", 8, 13, "average size of a read (kB)" },
	[MD_WAREQ] = { "wareq-sz", "wareq-sz", 8, 14, "average size of a write (kB)" },
	[MD_SVCTM] = { "svctm", "svctm", 6, 10,
		       "ms of device busy time per completed IO; await close to svctm: little "
		       "queueing, await far above it: requests wait in the queue" },
	[MD_UTIL] = { "util", "%util", 6, 0,
		      "percentage of time the device had IO in flight; near 100% a "
		      "single-queue disk is saturated (NVMe/RAID may still have headroom: check "
		      "aqu-sz and await); coloured at 80% and above" },
	[MD_DS] = { "d/s", "d/s", 7, 17, "discards completed per second" },
	[MD_DKBS] = { "dkB/s", "dkB/s", 8, 18, "kilobytes discarded per second" },
	[MD_DRQMS] = { "drqm/s", "drqm/s", 7, 21, "discard requests merged per second" },
	[MD_DRQM] = { "drqm", "%drqm", 6, 22, "percentage of discard requests merged" },
	[MD_DAWAIT] = { "d_await", "d_await", 7, 19, "average time of a discard (ms)" },
	[MD_DAREQ] = { "dareq-sz", "dareq-sz", 8, 23, "average size of a discard (kB)" },
	[MD_FS] = { "f/s", "f/s", 7, 20, "flush requests completed per second" },
	[MD_FAWAIT] = { "f_await", "f_await", 7, 24, "average time of a flush (ms)" },
};

const char *const model_cpu_help[][2] = {
	{ "CPU", "CPU number, \"all\" is the whole machine; HOT marks the core that stands out" },
	{ "%usr %nice %sys", "time in user space (niced apart) and in the kernel (mpstat -u); "
			     "the eight percentages up to %idle add up to 100" },
	{ "%steal", "time a hypervisor ran something else while this virtual CPU waited" },
	{ "%guest", "time running a guest (guest + gnice), shown when a CPU ran one" },
	{ "%iowait", "idle while IO was outstanding: a symptom, not a load" },
	{ "%irq", "time servicing hardware interrupts" },
	{ "%soft", "time in softirqs (network receive, block completion, timers)" },
	{ "%idle", "idle time without outstanding IO" },
	{ "intr/s", "interrupts per second delivered to this CPU (mpstat -I SUM)" },
	{ "softirq", "the softirq with the highest rate on this CPU, per second" },
	{ "%soft by vector", "--trace: the CPU's softirq time by vector (NET_RX, BLOCK, TIMER, "
			     "RCU, SCHED ...), % of its time, busiest first, in place of "
			     "softirq; the selected CPU's in full on the line under the header, "
			     "with its hardirq time" },
	{ "load", "u/s user+system, i irq, S softirq, w iowait, as a bar of the CPU's time" },
	{ "HOT", "the advisor finds this core hot (a hot_cpu finding stands: doc/advise.md)" },
	{ NULL, NULL },
};

const char *const model_irq_help[][2] = {
	{ "IRQ", "the /proc/interrupts label: an IRQ number, or LOC, RES, CAL..." },
	{ "total/s", "interrupts per second of this line, all CPUs (mpstat -I CPU)" },
	{ "%cpu", "--trace: time in this line's handlers, all CPUs, % of one CPU (BPF: "
		  "µs per second / 10 000)" },
	{ "device", "the handler (actions), e.g. nvme0q1, eth0-rx-0" },
	{ "affinity", "/proc/irq/N/smp_affinity_list: the CPUs it may be sent to" },
	{ "effective", "/proc/irq/N/effective_affinity_list: where the kernel sends it now" },
	{ "on CPUs", "CPUs it actually landed on in this interval, busiest first, per second" },
	{ NULL, NULL },
};

/* ---- json-c (json_get.h): absent or mistyped keys are "not present" ---- */

static bool jnum(struct json_object *o, const char *key, double *ret)
{
	return mj_num(o, key, ret) > 0;
}

static bool jint(struct json_object *o, const char *key, int64_t *ret)
{
	return mj_int(o, key, ret) > 0;
}

static bool jbool(struct json_object *o, const char *key, bool dflt)
{
	bool b;

	return mj_bool(o, key, &b) > 0 ? b : dflt;
}

/* A CPU number as the document writes it ("3"); -1 for "all", -2 if invalid. */
static int parse_cpu(const char *s)
{
	char *end;
	long v;

	if (strcmp(s, "all") == 0)
		return -1;
	v = strtol(s, &end, 10);
	if (end == s || *end || v < 0 || v > 1 << 20)
		return -2;
	return (int)v;
}

/* ---- tables ---- */

struct tables {
	struct model_disk *disks;
	size_t ndisks, disks_cap;
	struct model_cpu *cpus;
	size_t ncpus, cpus_cap;
	struct model_irq *irqs;
	size_t nirqs, irqs_cap;
};

static void tables_free(struct tables *t)
{
	for (size_t i = 0; i < t->nirqs; i++)
		free(t->irqs[i].cpus);
	free(t->disks);
	free(t->cpus);
	free(t->irqs);
	memset(t, 0, sizeof(*t));
}

static int decode_disks(struct json_object *arr, struct tables *t)
{
	size_t n = json_object_array_length(arr);
	int r;

	r = grow((void **)&t->disks, &t->disks_cap, n ? n : 1, sizeof(*t->disks));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct model_disk *d = &t->disks[t->ndisks];
		int64_t fl = 0;

		if (!json_object_is_type(o, json_type_object))
			return -EBADMSG;
		memset(d, 0, sizeof(*d));
		mj_str(o, "disk_device", d->name, sizeof(d->name));
		if (!d->name[0])
			return -EBADMSG;
		mj_str(o, "dm_name", d->dm_name, sizeof(d->dm_name));
		d->valid = jbool(o, "valid", false);
		mj_str(o, "reason", d->reason, sizeof(d->reason));
		if (jint(o, "in_flight", &fl) && fl >= 0)
			d->in_flight = (uint64_t)fl;
		for (int c = 0; c < MD__COUNT; c++)
			d->has[c] =
			    model_disk_cols[c].key && jnum(o, model_disk_cols[c].key, &d->v[c]);
		if (!d->has[MD_UTIL])
			d->valid = false;
		t->ndisks++;
	}
	return 0;
}

static int decode_cpus(struct json_object *arr, struct tables *t)
{
	size_t n = json_object_array_length(arr);
	int r;

	r = grow((void **)&t->cpus, &t->cpus_cap, n ? n : 1, sizeof(*t->cpus));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct model_cpu *c = &t->cpus[t->ncpus];
		char id[16];

		if (!json_object_is_type(o, json_type_object))
			return -EBADMSG;
		memset(c, 0, sizeof(*c));
		mj_str(o, "cpu", id, sizeof(id));
		c->cpu = parse_cpu(id);
		if (c->cpu == -2)
			return -EBADMSG;
		snprintf(c->name, sizeof(c->name), "%s", id);
		c->valid = jbool(o, "valid", true) && jnum(o, "idle", &c->idle);
		mj_str(o, "reason", c->reason, sizeof(c->reason));
		jnum(o, "usr", &c->usr);
		jnum(o, "nice", &c->nice);
		jnum(o, "sys", &c->sys);
		jnum(o, "iowait", &c->iowait);
		jnum(o, "irq", &c->irq);
		jnum(o, "soft", &c->soft);
		jnum(o, "steal", &c->steal);
		jnum(o, "guest", &c->guest);
		jnum(o, "gnice", &c->gnice);
		c->has_intr = jnum(o, "intr/s", &c->intr_s);
		t->ncpus++;
	}
	return 0;
}

static int cmp_irq_cpu(const void *a, const void *b)
{
	const struct model_irq_cpu *x = a, *y = b;

	if (x->rate_s != y->rate_s)
		return x->rate_s < y->rate_s ? 1 : -1;
	return x->cpu - y->cpu;
}

/* The "cpus" object {"0": rate, ...} of one interrupts[] or softirqs[] line. */
static int decode_irq_cpus(struct json_object *o, struct model_irq *q)
{
	struct json_object_iterator it, end;
	struct json_object *cpus = mj_get(o, "cpus");
	size_t n;
	int r;

	if (!cpus || !json_object_is_type(cpus, json_type_object))
		return 0;
	n = (size_t)json_object_object_length(cpus);
	if (n == 0)
		return 0;
	r = grow((void **)&q->cpus, &q->cpus_cap, n, sizeof(*q->cpus));
	if (r < 0)
		return r;
	it = json_object_iter_begin(cpus);
	end = json_object_iter_end(cpus);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		struct json_object *v = json_object_iter_peek_value(&it);
		int cpu = parse_cpu(json_object_iter_peek_name(&it));

		if (cpu < 0 || !v ||
		    !(json_object_is_type(v, json_type_double) ||
		      json_object_is_type(v, json_type_int)))
			return -EBADMSG;
		q->cpus[q->ncpus].cpu = cpu;
		q->cpus[q->ncpus].rate_s = json_object_get_double(v);
		q->ncpus++;
	}
	if (q->ncpus > 1)
		qsort(q->cpus, q->ncpus, sizeof(*q->cpus), cmp_irq_cpu);
	return 0;
}

static int decode_irqs(struct json_object *arr, struct tables *t)
{
	size_t n = json_object_array_length(arr);
	int r;

	r = grow((void **)&t->irqs, &t->irqs_cap, n ? n : 1, sizeof(*t->irqs));
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct model_irq *q = &t->irqs[t->nirqs];
		char *end;
		unsigned long v;

		if (!json_object_is_type(o, json_type_object))
			return -EBADMSG;
		memset(q, 0, sizeof(*q));
		t->nirqs++; /* counted now so tables_free() frees q->cpus on error */
		mj_str(o, "name", q->name, sizeof(q->name));
		if (!q->name[0])
			return -EBADMSG;
		v = strtoul(q->name, &end, 10);
		q->numeric = q->name[0] >= '0' && q->name[0] <= '9' && !*end && v <= UINT32_MAX;
		q->irq = q->numeric ? (uint32_t)v : 0;
		mj_str(o, "chip", q->chip, sizeof(q->chip));
		mj_str(o, "actions", q->actions, sizeof(q->actions));
		/* as the sampler's topology read them (doc/json.md): the
		 * document is the only source, whichever kind sent it */
		q->has_smp = mj_str(o, "affinity", q->smp_list, sizeof(q->smp_list)) > 0;
		q->has_eff = mj_str(o, "effective", q->eff_list, sizeof(q->eff_list)) > 0;
		q->valid = jbool(o, "valid", true) && jnum(o, "total/s", &q->total_s);
		r = decode_irq_cpus(o, q);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The hottest softirq of each CPU, from softirqs[].cpus. */
static int decode_softirqs(struct json_object *arr, struct tables *t)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		struct model_irq q = { 0 };
		int r;

		if (!json_object_is_type(o, json_type_object))
			return -EBADMSG;
		mj_str(o, "name", q.name, sizeof(q.name));
		r = decode_irq_cpus(o, &q);
		for (size_t k = 0; r >= 0 && k < q.ncpus; k++)
			for (size_t c = 0; c < t->ncpus; c++)
				if (t->cpus[c].cpu == q.cpus[k].cpu &&
				    q.cpus[k].rate_s > t->cpus[c].hot_soft_s) {
					t->cpus[c].hot_soft_s = q.cpus[k].rate_s;
					snprintf(t->cpus[c].hot_soft, sizeof(t->cpus[c].hot_soft),
						 "%s", q.name);
				}
		free(q.cpus);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Which CPU is on which NUMA node, from "numa":[{"node":N,"cpus":"0-3,8"}].
 * CPUs not listed (or no section) keep node -1; a malformed entry is
 * skipped: the heat map then groups by package or by 64. */
static void decode_numa(struct json_object *arr, struct tables *t)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < t->ncpus; i++)
		t->cpus[i].node = -1;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);
		char list[MODEL_LIST_MAX], *p;
		int64_t node;

		if (!json_object_is_type(o, json_type_object) || !jint(o, "node", &node) ||
		    node < 0 || node > 1 << 20 || mj_str(o, "cpus", list, sizeof(list)) <= 0)
			continue;
		for (p = list; *p;) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p || a < 0)
				break;
			if (*end == '-') {
				p = end + 1;
				b = strtol(p, &end, 10);
				if (end == p || b < a)
					break;
			}
			/* the rows are in number order after "all": from the first
			 * >= a, while <= b (an interleaved list has hundreds of ranges) */
			{
				size_t lo = t->ncpus && t->cpus[0].cpu < 0 ? 1 : 0, hi = t->ncpus;

				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;

					if (t->cpus[mid].cpu < a)
						lo = mid + 1;
					else
						hi = mid;
				}
				for (; lo < t->ncpus && t->cpus[lo].cpu <= b; lo++)
					if (t->cpus[lo].cpu >= a)
						t->cpus[lo].node = (int)node;
			}
			if (*end != ',')
				break;
			p = end + 1;
		}
	}
}

/*
 * HOT marks the cores of the document's standing hot_cpu findings: the
 * advisor's one judgement (doc/advise.md), so the mark, the headline and
 * suggest never disagree. A document without advice marks none.
 */
static void mark_hot(struct tables *t, struct json_object *doc)
{
	struct json_object *a = mj_get(doc, "findings");
	size_t n;

	if (!a || !json_object_is_type(a, json_type_array))
		return;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(a, i);
		struct json_object *kind = f ? mj_get(f, "kind") : NULL;
		struct json_object *subj = f ? mj_get(f, "subject") : NULL;
		const char *k, *sj;
		char *end;
		long cpu;

		if (!kind || !subj || !json_object_is_type(kind, json_type_string) ||
		    !json_object_is_type(subj, json_type_string))
			continue;
		k = json_object_get_string(kind);
		sj = json_object_get_string(subj);
		if (!k || !sj || strcmp(k, "hot_cpu") != 0 || strncmp(sj, "cpu", 3) != 0 ||
		    !isdigit((unsigned char)sj[3]))
			continue;
		errno = 0;
		cpu = strtol(sj + 3, &end, 10);
		if (errno || *end || cpu < 0 || cpu > INT32_MAX)
			continue;
		for (size_t c = 0; c < t->ncpus; c++)
			if (t->cpus[c].cpu == (int)cpu)
				t->cpus[c].hot = true;
	}
}

/* What a reason says after its path: "busy/t1/proc/vmstat: No such file"
 * is "No such file"; the first of "; "-separated reasons only. */
static void reason_tail(const char *reason, char *buf, size_t size)
{
	size_t n = strcspn(reason, ";");
	const char *t = reason;

	for (const char *p = reason; p < reason + n; p++)
		if (p[0] == ':' && p[1] == ' ')
			t = p + 2;
	snprintf(buf, size, "%.*s", (int)(reason + n - t), t);
}

static bool name_in(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(name, *set) == 0)
			return true;
	return false;
}

size_t model_unavailable_group(const char *const *names, const char *const *reasons,
			       const bool *avail, size_t n,
			       char causes[MODEL_CAUSES_MAX][MODEL_CAUSE_MAX])
{
	static const char *const turbo[] = { "msr",	 "perf",  "cpufreq", "cpuidle",
					     "powercap", "hwmon", NULL };
	static const char *const psi[] = { "pressure_io", "pressure_cpu", "pressure_irq", NULL };
	char tails[MODEL_CAUSES_MAX][MODEL_CAUSE_MAX];
	size_t nc = 0;

	/* the families first: each is one cause however many files it has */
	for (int fam = 0; fam < 2; fam++) {
		const char *const *set = fam ? psi : turbo;
		char no[MODEL_CAUSE_MAX] = "", shown[MODEL_CAUSE_MAX] = "";
		char why[MODEL_CAUSE_MAX] = "";

		for (size_t i = 0; i < n; i++) {
			const char *short_name = fam ? names[i] + strlen("pressure_") : names[i];

			if (!name_in(names[i], set))
				continue;
			if (avail[i]) {
				str_cat(shown, sizeof(shown), "%s%s", shown[0] ? " " : "",
					short_name);
				continue;
			}
			str_cat(no, sizeof(no), "%s%s", no[0] ? " " : "", short_name);
			if (!why[0])
				reason_tail(reasons[i], why, sizeof(why));
		}
		if (!no[0] || nc == MODEL_CAUSES_MAX)
			continue;
		/* none of the family: the names say nothing more than "no source" */
		snprintf(causes[nc], MODEL_CAUSE_MAX, "%s: no %s%s%s%s", fam ? "PSI" : "turbostat",
			 shown[0] ? no : "source", why[0] ? " (" : "", why, why[0] ? ")" : "");
		if (shown[0] && !fam)
			str_cat(causes[nc], MODEL_CAUSE_MAX, "; %s shown", shown);
		tails[nc][0] = '\0';
		nc++;
	}
	/* the others: one line per reason, naming every source it stops */
	for (size_t i = 0; i < n; i++) {
		char why[MODEL_CAUSE_MAX - 40]; /* room for the names before it */
		size_t k;

		if (avail[i] || name_in(names[i], turbo) || name_in(names[i], psi))
			continue;
		reason_tail(reasons[i], why, sizeof(why));
		for (k = 0; k < nc; k++)
			if (tails[k][0] && strcmp(tails[k], why) == 0)
				break;
		if (k < nc) {
			/* "vmstat: why" becomes "vmstat rtnetlink: why" */
			char *colon = strstr(causes[k], ": ");
			char tmp[MODEL_CAUSE_MAX];

			if (!colon)
				continue;
			snprintf(tmp, sizeof(tmp), "%.*s %s%s", (int)(colon - causes[k]), causes[k],
				 names[i], colon);
			snprintf(causes[k], MODEL_CAUSE_MAX, "%s", tmp);
			continue;
		}
		if (nc == MODEL_CAUSES_MAX)
			break;
		snprintf(tails[nc], MODEL_CAUSE_MAX, "%s", why);
		snprintf(causes[nc], MODEL_CAUSE_MAX, "%s: %s", names[i],
			 why[0] ? why : "unavailable");
		nc++;
	}
	return nc;
}

#define SOURCES_MAX 64 /* the document has two dozen */

static void decode_sources(struct json_object *src, struct model *m)
{
	struct json_object_iterator it, end;
	const char *names[SOURCES_MAX], *reasons[SOURCES_MAX];
	char reason_buf[SOURCES_MAX][MODEL_REASON_MAX];
	bool avail[SOURCES_MAX];
	size_t n = 0;

	m->nunavailable = 0;
	if (!src || !json_object_is_type(src, json_type_object))
		return;
	it = json_object_iter_begin(src);
	end = json_object_iter_end(src);
	for (; !json_object_iter_equal(&it, &end) && n < SOURCES_MAX; json_object_iter_next(&it)) {
		struct json_object *o = json_object_iter_peek_value(&it);

		names[n] = json_object_iter_peek_name(&it);
		avail[n] = jbool(o, "available", true);
		reason_buf[n][0] = '\0';
		mj_str(o, "reason", reason_buf[n], sizeof(reason_buf[n]));
		reasons[n] = reason_buf[n];
		n++;
	}
	m->nunavailable = model_unavailable_group(names, reasons, avail, n, m->unavailable);
}

/* ---- history ---- */

static struct model_series *series_get(struct model_history *h, const char *prefix,
				       const char *name)
{
	char key[MODEL_NAME_MAX + 2];
	struct model_series *s;

	snprintf(key, sizeof(key), "%s%s", prefix, name);
	for (size_t i = 0; i < h->nseries; i++)
		if (strcmp(h->series[i].key, key) == 0)
			return &h->series[i];
	if (h->nseries >= MODEL_SERIES_MAX)
		return NULL;
	if (grow((void **)&h->series, &h->series_cap, h->nseries + 1, sizeof(*h->series)) < 0)
		return NULL;
	s = &h->series[h->nseries++];
	memcpy(s->key, key, sizeof(key));
	for (size_t i = 0; i < MODEL_HIST_MAX; i++)
		s->v[i] = NAN;
	return s;
}

static void series_put(struct model_history *h, size_t slot, const char *prefix, const char *name,
		       double v)
{
	struct model_series *s = series_get(h, prefix, name);

	if (s)
		s->v[slot] = (float)v;
}

static void history_record(struct model_history *h, int64_t ts_ms, const struct tables *t)
{
	size_t slot = h->head;

	if (ts_ms <= h->last_ts_ms)
		return;
	h->last_ts_ms = ts_ms;
	h->ts_ms[slot] = ts_ms;
	for (size_t i = 0; i < h->nseries; i++)
		h->series[i].v[slot] = NAN;
	h->head = (h->head + 1) % MODEL_HIST_MAX;
	if (h->n < MODEL_HIST_MAX)
		h->n++;
	for (size_t i = 0; i < t->ndisks; i++)
		if (t->disks[i].valid)
			series_put(h, slot, "d:", t->disks[i].name, t->disks[i].v[MD_UTIL]);
	for (size_t i = 0; i < t->ncpus; i++) {
		if (t->cpus[i].valid)
			series_put(h, slot, "c:", t->cpus[i].name, 100.0 - t->cpus[i].idle);
	}
	for (size_t i = 0; i < t->nirqs; i++)
		if (t->irqs[i].valid)
			series_put(h, slot, "i:", t->irqs[i].name, t->irqs[i].total_s);
}

const struct model_series *model_series_find(const struct model *m, const char *key)
{
	for (size_t i = 0; i < m->hist.nseries; i++)
		if (strcmp(m->hist.series[i].key, key) == 0)
			return &m->hist.series[i];
	return NULL;
}

/* ---- the document ---- */

/* The tables and the trace section of doc; on failure t is freed. */
static int decode_tables(struct json_object *doc, struct tables *t, struct model_trace *ret_trace)
{
	struct json_object *a;
	int r = 0;

	a = mj_get(doc, "disks");
	if (a && json_object_is_type(a, json_type_array))
		r = decode_disks(a, t);
	a = mj_get(doc, "cpu-load");
	if (r >= 0 && a && json_object_is_type(a, json_type_array))
		r = decode_cpus(a, t);
	a = mj_get(doc, "numa");
	for (size_t i = 0; i < t->ncpus; i++)
		t->cpus[i].node = -1;
	if (r >= 0 && a && json_object_is_type(a, json_type_array))
		decode_numa(a, t);
	a = mj_get(doc, "interrupts");
	if (r >= 0 && a && json_object_is_type(a, json_type_array))
		r = decode_irqs(a, t);
	a = mj_get(doc, "softirqs");
	if (r >= 0 && a && json_object_is_type(a, json_type_array))
		r = decode_softirqs(a, t);
	if (r >= 0)
		r = model_trace_decode(doc, t->cpus, t->ncpus, t->irqs, t->nirqs, t->disks,
				       t->ndisks, ret_trace);
	if (r < 0)
		tables_free(t);
	return r;
}

/* The blk-mq section into m: a malformed one costs the chain view, not
 * the tables (0, with blkmq_bad saying so); -ENOMEM leaves m as it was. */
static int apply_blkmq(struct model *m, struct json_object *doc)
{
	struct model_blkmq mq;
	int e = model_blkmq_decode(doc, &mq);

	if (e == -ENOMEM)
		return e;
	model_blkmq_free(&m->blkmq);
	if (e < 0)
		memset(&m->blkmq, 0, sizeof(m->blkmq));
	else
		m->blkmq = mq;
	snprintf(m->blkmq_bad, sizeof(m->blkmq_bad), "%s",
		 e < 0 ? "the blk-mq section is malformed" : "");
	return 0;
}

/* The NAPI section into m: 0, or -ENOMEM with m as it was. */
static int apply_napi(struct model *m, struct json_object *doc)
{
	struct model_napis napi;

	if (model_trace_napi_decode(doc, &napi) < 0)
		return -ENOMEM;
	model_trace_napi_free(&m->napi);
	m->napi = napi;
	return 0;
}

/* tracing asked for (--trace) but not running whole: one cause, the
 * first, so the line's "+N more" never hides what was asked for */
static void put_trace_cause(struct model *m, const struct model_trace *trace)
{
	char cause[MODEL_CAUSE_MAX];
	size_t keep;

	model_trace_cause(trace, cause, sizeof(cause));
	if (!cause[0])
		return;
	keep = m->nunavailable < MODEL_CAUSES_MAX ? m->nunavailable : MODEL_CAUSES_MAX - 1;
	memmove(m->unavailable[1], m->unavailable[0], keep * sizeof(m->unavailable[0]));
	memcpy(m->unavailable[0], cause, sizeof(cause));
	m->nunavailable = keep + 1;
}

/* t's tables become m's (which are freed); t is then m's. */
static void put_tables(struct model *m, const struct tables *t)
{
	struct tables old = {
		.disks = m->disks,
		.ndisks = m->ndisks,
		.disks_cap = m->disks_cap,
		.cpus = m->cpus,
		.ncpus = m->ncpus,
		.cpus_cap = m->cpus_cap,
		.irqs = m->irqs,
		.nirqs = m->nirqs,
		.irqs_cap = m->irqs_cap,
	};

	tables_free(&old);
	m->disks = t->disks;
	m->ndisks = t->ndisks;
	m->disks_cap = t->disks_cap;
	m->cpus = t->cpus;
	m->ncpus = t->ncpus;
	m->cpus_cap = t->cpus_cap;
	m->irqs = t->irqs;
	m->nirqs = t->nirqs;
	m->irqs_cap = t->irqs_cap;
}

int model_apply(struct model *m, struct json_object *doc, unsigned flags)
{
	struct tables t = { 0 };
	struct model_advice adv;
	struct model_sections sections;
	struct model_trace trace;
	int64_t version = 0, sample = 0, ts = 0, itv = 0;
	int r;

	if (!doc || !json_object_is_type(doc, json_type_object) ||
	    !jint(doc, "version", &version) || version != MODEL_JSON_VERSION ||
	    !jint(doc, "sample", &sample) || !jint(doc, "timestamp_ms", &ts))
		return -EBADMSG;
	r = decode_tables(doc, &t, &trace);
	if (r < 0)
		return r;
	mark_hot(&t, doc);
	if (flags & MODEL_HISTORY)
		history_record(&m->hist, ts, &t);
	if (!(flags & MODEL_VIEW)) {
		tables_free(&t);
		return 0;
	}
	r = model_findings_decode(doc, &adv);
	if (r < 0)
		goto out_tables;
	r = model_sections_decode(doc, &sections);
	if (r < 0)
		goto out_advice;
	r = apply_blkmq(m, doc);
	if (r >= 0)
		r = apply_napi(m, doc);
	if (r < 0) {
		model_sections_free(&sections);
		goto out_advice;
	}
	m->have_sample = true;
	m->has_rates = jint(doc, "interval_ms", &itv);
	m->interval_ms = m->has_rates ? (long)itv : 0;
	m->sample = (uint64_t)sample;
	m->timestamp_ms = ts;
	mj_str(doc, "host", m->host, sizeof(m->host));
	mj_str(doc, "mode", m->mode, sizeof(m->mode));
	decode_sources(mj_get(doc, "sources"), m);
	m->trace = trace;
	put_trace_cause(m, &trace);
	m->has_intr_all = jnum(doc, "intr/s", &m->intr_all_s);
	put_tables(m, &t);
	model_findings_free(&m->advice);
	m->advice = adv;
	model_sections_free(&m->sections);
	m->sections = sections;
	return 0;
out_advice:
	model_findings_free(&adv);
out_tables:
	tables_free(&t);
	return r;
}

int model_apply_text(struct model *m, const char *json, size_t len, unsigned flags)
{
	struct json_object *doc;
	int r = mj_parse(json, len, &doc);

	if (r < 0)
		return r;
	r = model_apply(m, doc, flags);
	json_object_put(doc);
	return r;
}

void model_free(struct model *m)
{
	struct tables t;

	if (!m)
		return;
	t = (struct tables){
		.disks = m->disks,
		.ndisks = m->ndisks,
		.cpus = m->cpus,
		.ncpus = m->ncpus,
		.irqs = m->irqs,
		.nirqs = m->nirqs,
	};
	tables_free(&t);
	model_findings_free(&m->advice);
	model_sections_free(&m->sections);
	model_blkmq_free(&m->blkmq);
	model_trace_napi_free(&m->napi);
	free(m->hist.series);
	free(m->worker); /* flat: no pointers inside */
	memset(m, 0, sizeof(*m));
}
