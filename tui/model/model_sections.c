// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_sections: the "turbostat" (src/encode/encode_turbo.c) and
 * "processes", "nics", "pressure", "writeback" (src/encode/encode_workload.c) sections
 * of a sample document, decoded for the TUI with the keys those encoders
 * write. An absent section is "not available" with its source's reason
 * from "sources"; a malformed one is reported and left out. No I/O, and
 * every number is the document's.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "json_get.h"
#include "model_sections.h"
#include "metrics_turbo.h"

const char *const model_turbo_col_names[MT__COUNT] = {
	[MT_BUSY] = "Busy%",	  [MT_BZY_MHZ] = "Bzy_MHz", [MT_C3] = "CPU%c3",
	[MT_C6] = "CPU%c6",	  [MT_C7] = "CPU%c7",	    [MT_PKGWATT] = "PkgWatt",
	[MT_CORWATT] = "CorWatt", [MT_RAMWATT] = "RAMWatt", [MT_PKGTMP] = "PkgTmp",
	[MT_CORETMP] = "CoreTmp",
};

_Static_assert(MODEL_TURBO_FAMILIES == TURBO_NSOURCES, "one family per turbo source");

const char *const model_psi_names[MP__COUNT] = { "io", "cpu", "irq" };

const char *const model_turbo_help[][2] = {
	{ "Busy%",
	  "turbostat: percent of the interval the CPU was not idle (C0), 100 * dMPERF / dTSC" },
	{ "Bzy_MHz", "turbostat: average clock while busy, base MHz * dAPERF / dMPERF" },
	{ "deepest C",
	  "(deepest C-state) the deepest idle state the CPU has and its share of the interval: "
	  "turbostat's CPU%c7, c6 or c3 (of the core), else the deepest cpuidle state (sysfs). "
	  "Columns shown only when the sample has them; narrow terminals drop them first" },
	{ NULL, NULL },
};

const char *const model_nic_help[][2] = {
	{ "nic", "one line per network interface (not loopback) that is up or has interrupt "
		 "vectors: link (up, no-carrier, down), rx and tx kB/s and packets/s (sar -n "
		 "DEV), drops and errors when any, channels combined/max (ethtool -l) or why "
		 "not, where its vectors landed (IRQ:cpuN, busiest CPU first; idle ones), "
		 "coalescing (ethtool -c); the others share one \"also\" line" },
	{ NULL, NULL },
};

const char *const model_header_help[][2] = {
	{ "turbostat", "package watts (PkgWatt, CorWatt, RAMWatt, summed) and the hottest "
		       "package and core (PkgTmp, CoreTmp), or \"unavailable (why)\": no MSR "
		       "access in a VM, not root, an iotriaged --core-only; t lists every column's "
		       "source, or why it is unavailable" },
	{ "PSI", "/proc/pressure avg10 of io, cpu and irq: percent of the last 10 s some task "
		 "(some) or all of them (full) stalled on the resource" },
	{ "dirty", "dirty and writeback page cache, and the writeback state: below background, "
		   "background writeback, THROTTLED (writers sleep in balance_dirty_pages), "
		   "BLOCKED at the dirty limit" },
	{ "one line", "below 30 rows PSI, writeback and turbostat share one line (n/a: not "
		      "available); below 16 rows, none" },
	{ NULL, NULL },
};

const char *const model_proc_help[][2] = {
	{ "bytes", "where the bytes come from: /proc/PID/io of each process (read_bytes, "
		   "write_bytes, cancelled_write_bytes)" },
	{ "delay", "taskstats (netlink), asked about the processes whose IO moved; \"delay "
		   "accounting off\" when sysctl kernel.task_delayacct=0 (bytes only)" },
	{ "kB_rd/s", "kilobytes per second the process read from storage (pidstat -d)" },
	{ "kB_wr/s", "kilobytes per second it wrote (dirtied) to storage" },
	{ "kB_ccwr/s", "kilobytes per second of writes cancelled (dirtied, then truncated)" },
	{ "io_delay%", "percent of the interval it waited for synchronous block IO (iotop's IO>)" },
	{ "blkio/s", "such waits per second" },
	{ "%CPU", "percent of one CPU the process used in the interval, its threads included "
		  "(pidstat -u %CPU: utime + stime)" },
	{ "USER", "the process's real user (its name in /etc/passwd, else the uid)" },
	{ "COMMAND", "its command line (escaped, 160 bytes; [name] for a kernel thread), "
		     "else its name" },
	{ "UNIT", "its cgroup: the last two components (the systemd unit or container)" },
	{ "started", "the process began during the interval: all its IO is this interval's" },
	{ "exited", "it also ended before the sample: seen through the kernel's exit notices" },
	{ NULL, NULL },
};

/* Where decoding stopped: "nics[1].irqs[0]: irq". */
struct ctx {
	char *bad;
	size_t size;
};

static int bad(struct ctx *c, const char *what, const char *key)
{
	snprintf(c->bad, c->size, "%s: %s", what, key);
	return -EBADMSG;
}

/* ---- sources ---- */

/* A source's status: false when the document says unavailable; its reason
 * (or the note of an available one) into buf. present: sources names it. */
static bool source_status(struct json_object *doc, const char *name, bool *present, char *buf,
			  size_t size)
{
	struct json_object *s = mj_get(mj_get(doc, "sources"), name);
	bool avail = true;

	buf[0] = '\0';
	*present = s && json_object_is_type(s, json_type_object);
	if (!*present)
		return false;
	if (mj_bool(s, "available", &avail) < 0)
		avail = true;
	if (!avail)
		mj_str(s, "reason", buf, size);
	else
		mj_str(s, "note", buf, size);
	return avail;
}

/* ---- turbostat ---- */

/* "<state>%" keys that are not turbostat's own columns: cpuidle residencies. */
static bool turbo_known_key(const char *key)
{
	for (int c = 0; c < TC__COUNT; c++)
		if (strcmp(key, turbo_col_name((enum turbo_col)c)) == 0)
			return true;
	return false;
}

/* One entry of "columns": {"available", "source", "detail"} and a caveat,
 * or {"available": false, "reason"}. */
static int decode_turbo_status(struct json_object *o, struct model_turbo_status *s)
{
	char caveat[MODEL_SECTIONS_REASON_MAX];

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(o, json_type_object) ||
	    mj_bool(o, "available", &s->available) < 0 ||
	    mj_str(o, "source", s->source, sizeof(s->source)) < 0 ||
	    mj_str(o, "detail", s->detail, sizeof(s->detail)) < 0 ||
	    mj_str(o, "reason", s->reason, sizeof(s->reason)) < 0 ||
	    mj_str(o, "caveat", caveat, sizeof(caveat)) < 0)
		return -EBADMSG;
	s->known = true;
	if (s->available && caveat[0])
		memcpy(s->reason, caveat, sizeof(s->reason));
	return 0;
}

static int decode_turbo_columns(struct json_object *cols, struct model_turbo *t, struct ctx *c)
{
	struct json_object_iterator it, end;
	size_t n;

	if (!cols)
		return 0;
	if (!json_object_is_type(cols, json_type_object))
		return bad(c, "turbostat", "columns");
	n = (size_t)json_object_object_length(cols);
	if (n && grow((void **)&t->cols, &t->cols_cap, n, sizeof(*t->cols)) < 0)
		return -ENOMEM;
	/* the encoder's order is turbostat's print order: keep it */
	it = json_object_iter_begin(cols);
	end = json_object_iter_end(cols);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		struct model_turbo_column *col = &t->cols[t->ncols];

		if (decode_turbo_status(json_object_iter_peek_value(&it), &col->st) < 0)
			return bad(c, "turbostat.columns", key);
		snprintf(col->name, sizeof(col->name), "%s", key);
		t->ncols++;
		for (int k = 0; k < MT__COUNT; k++)
			if (strcmp(key, model_turbo_col_names[k]) == 0)
				t->col[k] = col->st;
	}
	return 0;
}

/* "Package"/"Core"/"CPU": a number, or "-" on the summary row. */
static int row_id(struct json_object *o, const char *key, int *ret)
{
	struct json_object *v = mj_get(o, key);
	int64_t x;

	if (v && json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), "-") == 0) {
		*ret = -1;
		return 0;
	}
	if (!v || !json_object_is_type(v, json_type_int))
		return -EBADMSG;
	x = json_object_get_int64(v);
	if (x < 0 || x > 1 << 20)
		return -EBADMSG;
	*ret = (int)x;
	return 0;
}

static int decode_turbo_row(struct json_object *o, struct model_turbo_cpu *r, struct model_turbo *t,
			    bool first)
{
	struct json_object_iterator it, end;
	int busy, bzy;
	double v;

	memset(r, 0, sizeof(*r));
	if (!json_object_is_type(o, json_type_object))
		return -EBADMSG;
	if (row_id(o, "Package", &r->pkg) < 0 || row_id(o, "Core", &r->core) < 0 ||
	    row_id(o, "CPU", &r->cpu) < 0)
		return -EBADMSG;
	/* the summary row is first and only first */
	if ((r->cpu < 0) != first)
		return -EBADMSG;
	r->valid = true;
	if (mj_bool(o, "valid", &r->valid) < 0)
		return -EBADMSG;
	if (mj_str(o, "reason", r->reason, sizeof(r->reason)) < 0)
		return -EBADMSG;
	if (!r->valid)
		return 0;
	if (mj_str(o, "note", r->reason, sizeof(r->reason)) < 0)
		return -EBADMSG;
	busy = mj_num(o, "Busy%", &r->busy_pct);
	bzy = mj_num(o, "Bzy_MHz", &r->bzy_mhz);
	if (busy < 0 || bzy < 0)
		return -EBADMSG;
	r->has_busy = busy > 0;
	r->has_bzy = bzy > 0;
	for (int k = MT_C7; k >= MT_C3; k--) {
		int n = mj_num(o, model_turbo_col_names[k], &v);

		if (n < 0)
			return -EBADMSG;
		if (n && !r->has_deep) {
			r->has_deep = true;
			r->deep_pct = v;
			snprintf(r->deep_name, sizeof(r->deep_name), "%s",
				 model_turbo_col_names[k]);
		}
	}
	if (first) {
		struct json_object *s = mj_get(o, "suspect");

		for (int k = MT_PKGWATT; k <= MT_CORETMP; k++) {
			int n = mj_num(o, model_turbo_col_names[k], &t->v[k]);

			if (n < 0)
				return -EBADMSG;
			t->has[k] = n > 0;
		}
		if (s && !json_object_is_type(s, json_type_array))
			return -EBADMSG;
		t->suspect = s && json_object_array_length(s) > 0;
	}
	if (r->has_deep)
		return 0;
	/* the sysfs idle residencies, in the encoder's order: shallowest first */
	it = json_object_iter_begin(o);
	end = json_object_iter_end(o);
	for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
		const char *key = json_object_iter_peek_name(&it);
		struct json_object *val = json_object_iter_peek_value(&it);
		size_t len = strlen(key);

		if (len < 2 || key[len - 1] != '%' || turbo_known_key(key))
			continue;
		if (!mj_is_num(val))
			return -EBADMSG;
		r->deep_cpuidle = true;
		r->deep_pct = json_object_get_double(val);
		snprintf(r->deep_name, sizeof(r->deep_name), "%.*s", (int)(len - 1), key);
	}
	r->has_deep = r->deep_cpuidle;
	return 0;
}

/* A core's C-states are on its first thread's row: its siblings share them. */
static void share_core_cstates(struct model_turbo *t)
{
	for (size_t i = 0; i < t->ncpus; i++) {
		struct model_turbo_cpu *r = &t->cpus[i];

		if (!r->valid || (r->has_deep && !r->deep_cpuidle))
			continue;
		for (size_t k = 0; k < t->ncpus; k++) {
			const struct model_turbo_cpu *f = &t->cpus[k];

			if (k == i || !f->valid || !f->has_deep || f->deep_cpuidle ||
			    f->pkg != r->pkg || f->core != r->core)
				continue;
			r->has_deep = true;
			r->deep_cpuidle = false;
			r->deep_pct = f->deep_pct;
			memcpy(r->deep_name, f->deep_name, sizeof(r->deep_name));
			break;
		}
	}
}

/* The source families' status: whether or not the section is there (the
 * first sample has no turbostat section, yet its sources were probed). */
static void decode_turbo_families(struct json_object *doc, struct model_turbo *t)
{
	for (unsigned i = 0; i < MODEL_TURBO_FAMILIES; i++) {
		struct model_turbo_family *f = &t->fam[i];

		f->name = turbo_source_name(i);
		f->available =
		    source_status(doc, f->name, &f->listed, f->reason, sizeof(f->reason));
		if (f->available)
			f->reason[0] = '\0'; /* a note, not a reason: the columns carry caveats */
	}
}

static int decode_turbo(struct json_object *doc, struct model_turbo *t, struct ctx *c)
{
	struct json_object *o = mj_get(doc, "turbostat"), *rows;
	char why[8];
	size_t n;
	int r;

	source_status(doc, "msr", &t->sampled, why, sizeof(why));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(c, "turbostat", "not an object");
	if (mj_num(o, "interval_s", &t->interval_s) < 0)
		return bad(c, "turbostat", "interval_s");
	r = decode_turbo_columns(mj_get(o, "columns"), t, c);
	if (r < 0)
		return r;
	rows = mj_get(o, "rows");
	if (rows && !json_object_is_type(rows, json_type_array))
		return bad(c, "turbostat", "rows");
	n = rows ? json_object_array_length(rows) : 0;
	if (n > 1 && grow((void **)&t->cpus, &t->cpus_cap, n - 1, sizeof(*t->cpus)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct model_turbo_cpu row;

		if (decode_turbo_row(json_object_array_get_idx(rows, i), &row, t, i == 0) < 0) {
			snprintf(c->bad, c->size, "turbostat.rows[%zu]", i);
			return -EBADMSG;
		}
		if (i == 0) {
			t->summary = row;
			t->has_summary = true;
			continue;
		}
		t->cpus[t->ncpus++] = row;
	}
	share_core_cstates(t);
	for (size_t i = 0; i < t->ncpus; i++) {
		t->any_busy |= t->cpus[i].has_busy;
		t->any_bzy |= t->cpus[i].has_bzy;
		t->any_deep |= t->cpus[i].has_deep;
	}
	t->present = true;
	return 0;
}

/* ---- processes ---- */

static int decode_proc(struct json_object *o, void *ret)
{
	struct model_proc *p = ret;
	uint64_t pid = 0;
	int n;

	memset(p, 0, sizeof(*p));
	if (!json_object_is_type(o, json_type_object) || mj_uint(o, "pid", &pid) <= 0 ||
	    pid > INT32_MAX || mj_str(o, "comm", p->comm, sizeof(p->comm)) < 0 ||
	    mj_bool(o, "started", &p->started) < 0 || mj_bool(o, "exited", &p->exited) < 0 ||
	    mj_num(o, "kB_rd/s", &p->rd_kbs) <= 0 || mj_num(o, "kB_wr/s", &p->wr_kbs) <= 0 ||
	    mj_num(o, "kB_ccwr/s", &p->ccwr_kbs) < 0)
		return -EBADMSG;
	p->pid = (int)pid;
	n = mj_num(o, "io_delay%", &p->io_delay_pct);
	if (n < 0 || mj_num(o, "blkio/s", &p->blkio_s) < 0)
		return -EBADMSG;
	p->has_delay = n > 0;
	n = mj_num(o, "cpu_pct", &p->cpu_pct);
	if (n < 0 || mj_num(o, "usr_pct", &p->usr_pct) < 0 ||
	    mj_num(o, "sys_pct", &p->sys_pct) < 0 ||
	    mj_str(o, "user", p->user, sizeof(p->user)) < 0 ||
	    mj_str(o, "cmdline", p->cmdline, sizeof(p->cmdline)) < 0 ||
	    mj_str(o, "unit", p->unit, sizeof(p->unit)) < 0 ||
	    mj_str(o, "db", p->db, sizeof(p->db)) < 0 ||
	    mj_str(o, "role", p->role, sizeof(p->role)) < 0 ||
	    mj_str(o, "state", p->state, sizeof(p->state)) < 0 ||
	    mj_bool(o, "role_claimed", &p->role_claimed) < 0)
		return -EBADMSG;
	if (!p->db[0])
		p->role[0] = p->state[0] = '\0'; /* a role is only ever the database's */
	p->has_cpu = n > 0;
	return 0;
}

static int cmp_proc_cpu(const void *a, const void *b)
{
	const struct model_proc *x = a, *y = b;

	if (x->cpu_pct != y->cpu_pct)
		return x->cpu_pct < y->cpu_pct ? 1 : -1;
	return x->pid - y->pid;
}

static int cmp_proc_io(const void *a, const void *b)
{
	const struct model_proc *x = a, *y = b;
	double vx = x->rd_kbs + x->wr_kbs, vy = y->rd_kbs + y->wr_kbs;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->pid - y->pid;
}

static int cmp_proc_delay(const void *a, const void *b)
{
	const struct model_proc *x = a, *y = b;

	if (x->io_delay_pct != y->io_delay_pct)
		return x->io_delay_pct < y->io_delay_pct ? 1 : -1;
	return x->pid - y->pid;
}

static int decode_group(struct json_object *o, void *ret)
{
	struct model_proc_group *g = ret;
	uint64_t pid = 0;

	memset(g, 0, sizeof(*g));
	if (!json_object_is_type(o, json_type_object) || mj_uint(o, "pid", &pid) < 0 ||
	    pid > INT32_MAX || mj_uint(o, "count", &g->count) <= 0 ||
	    mj_str(o, "db", g->db, sizeof(g->db)) < 0 ||
	    mj_str(o, "role", g->role, sizeof(g->role)) < 0 ||
	    mj_str(o, "comm", g->comm, sizeof(g->comm)) < 0 ||
	    mj_str(o, "user", g->user, sizeof(g->user)) < 0 ||
	    mj_str(o, "unit", g->unit, sizeof(g->unit)) < 0 ||
	    mj_bool(o, "users_differ", &g->users_differ) < 0 ||
	    mj_num(o, "kB_rd/s", &g->rd_kbs) < 0 || mj_num(o, "kB_wr/s", &g->wr_kbs) < 0 ||
	    mj_num(o, "cpu_pct", &g->cpu_pct) < 0)
		return -EBADMSG;
	if (!g->db[0])
		g->role[0] = '\0';
	g->pid = (int)pid;
	return 0;
}

/*
 * The array processes.KEY into *v (n of them, cap allocated), each item by
 * one (0 or -EBADMSG, the item written whole) into an element of size
 * bytes; absent is none. 0, -ENOMEM, or -EBADMSG with c->bad naming the
 * array or the item.
 */
static int decode_list(struct json_object *o, const char *key, void **v, size_t size, size_t *n,
		       size_t *cap, int (*one)(struct json_object *, void *), struct ctx *c)
{
	struct json_object *a = mj_get(o, key);
	size_t len;

	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return bad(c, "processes", key);
	len = json_object_array_length(a);
	if (len && grow(v, cap, len, size) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		if (one(json_object_array_get_idx(a, i), (char *)*v + *n * size) < 0) {
			snprintf(c->bad, c->size, "processes.%s[%zu]", key, i);
			return -EBADMSG;
		}
		(*n)++;
	}
	return 0;
}

static int decode_db_thread(struct json_object *t, void *ret)
{
	struct model_db_thread *m = ret;
	uint64_t pid = 0, tid = 0;

	memset(m, 0, sizeof(*m));
	if (!json_object_is_type(t, json_type_object) || mj_uint(t, "pid", &pid) <= 0 ||
	    mj_uint(t, "tid", &tid) < 0 || pid > INT32_MAX || tid > INT32_MAX ||
	    mj_str(t, "db", m->db, sizeof(m->db)) < 0 ||
	    mj_str(t, "role", m->role, sizeof(m->role)) < 0 || mj_uint(t, "count", &m->count) < 0 ||
	    mj_num(t, "kB_rd/s", &m->rd_kbs) < 0 || mj_num(t, "kB_wr/s", &m->wr_kbs) < 0)
		return -EBADMSG;
	m->pid = (int)pid;
	m->tid = (int)tid;
	return 0;
}

static int decode_db_threads(struct json_object *o, struct model_procs *p, struct ctx *c)
{
	if (mj_str(o, "db_threads_note", p->db_threads_note, sizeof(p->db_threads_note)) < 0)
		return bad(c, "processes", "db_threads_note");
	return decode_list(o, "db_threads", (void **)&p->db_threads, sizeof(*p->db_threads),
			   &p->nthreads, &p->threads_cap, decode_db_thread, c);
}

static int decode_procs(struct json_object *doc, struct model_procs *p, struct ctx *c)
{
	struct json_object *o = mj_get(doc, "processes");
	bool listed;
	int r;

	if (!source_status(doc, "procfs_io", &listed, p->note, sizeof(p->note))) {
		memcpy(p->reason, p->note, sizeof(p->reason));
		p->note[0] = '\0';
	}
	source_status(doc, "taskstats", &listed, p->taskstats_why, sizeof(p->taskstats_why));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object) ||
	    mj_str(o, "bytes_source", p->bytes_source, sizeof(p->bytes_source)) < 0 ||
	    mj_str(o, "delay_source", p->delay_source, sizeof(p->delay_source)) < 0 ||
	    mj_str(o, "delay_accounting", p->delay_accounting, sizeof(p->delay_accounting)) < 0 ||
	    mj_uint(o, "count", &p->count) < 0 ||
	    mj_uint(o, "taskstats_queries", &p->queries) < 0 ||
	    mj_uint(o, "taskstats_answers", &p->answers) < 0 ||
	    mj_uint(o, "vanished", &p->vanished) < 0 || mj_uint(o, "exited", &p->exited) < 0)
		return bad(c, "processes", "a key of the wrong type");
	if (mj_get(o, "scan")) {
		struct json_object *sc = mj_get(o, "scan");

		if (!json_object_is_type(sc, json_type_object) ||
		    mj_uint(sc, "every", &p->scan_every) <= 0 ||
		    mj_uint(sc, "age", &p->scan_age) < 0 ||
		    mj_bool(sc, "scanned", &p->scanned) < 0 ||
		    mj_str(sc, "reason", p->scan_reason, sizeof(p->scan_reason)) < 0)
			return bad(c, "processes", "scan");
		p->has_scan = true;
	}
	p->has_rows = mj_get(o, "top_io") != NULL;
	r = decode_list(o, "top_io", (void **)&p->top_io, sizeof(*p->top_io), &p->nio, &p->io_cap,
			decode_proc, c);
	if (r >= 0)
		r = decode_list(o, "top_delay", (void **)&p->top_delay, sizeof(*p->top_delay),
				&p->ndelay, &p->delay_cap, decode_proc, c);
	if (r >= 0)
		r = decode_list(o, "top_cpu", (void **)&p->top_cpu, sizeof(*p->top_cpu), &p->ncpu,
				&p->cpu_cap, decode_proc, c);
	if (r >= 0)
		r = decode_list(o, "groups_io", (void **)&p->groups_io, sizeof(*p->groups_io),
				&p->ngio, &p->gio_cap, decode_group, c);
	if (r >= 0)
		r = decode_list(o, "groups_cpu", (void **)&p->groups_cpu, sizeof(*p->groups_cpu),
				&p->ngcpu, &p->gcpu_cap, decode_group, c);
	if (r >= 0)
		r = decode_db_threads(o, p, c);
	if (r < 0)
		return r;
	if (p->ncpu > 1)
		qsort(p->top_cpu, p->ncpu, sizeof(*p->top_cpu), cmp_proc_cpu);
	/* the encoder sends them in this order; a view must not depend on it */
	if (p->nio > 1)
		qsort(p->top_io, p->nio, sizeof(*p->top_io), cmp_proc_io);
	if (p->ndelay > 1)
		qsort(p->top_delay, p->ndelay, sizeof(*p->top_delay), cmp_proc_delay);
	p->reason[0] = '\0';
	p->present = true;
	return 0;
}

/* ---- NICs ---- */

static int decode_nic_irq(struct json_object *o, struct model_nic_irq *q)
{
	uint64_t irq = 0, cpu = 0;
	int n;

	memset(q, 0, sizeof(*q));
	q->busiest_cpu = -1;
	if (!json_object_is_type(o, json_type_object) || mj_uint(o, "irq", &irq) <= 0 ||
	    irq > UINT32_MAX || mj_str(o, "actions", q->actions, sizeof(q->actions)) < 0)
		return -EBADMSG;
	q->irq = (uint32_t)irq;
	n = mj_num(o, "total/s", &q->total_s);
	if (n < 0)
		return -EBADMSG;
	q->has_rate = n > 0;
	n = mj_uint(o, "busiest_cpu", &cpu);
	if (n < 0 || cpu > 1 << 20 || mj_num(o, "busiest_cpu/s", &q->busiest_cpu_s) < 0)
		return -EBADMSG;
	if (n > 0)
		q->busiest_cpu = (int)cpu;
	return 0;
}

/* "channels"/"coalesce": absent, {"available": false, "reason"}, or values. */
static int nic_part(struct json_object *o, enum model_nic_part *ret, char *reason, size_t size)
{
	bool avail = true;

	*ret = MN_ABSENT;
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object) || mj_bool(o, "available", &avail) < 0)
		return -EBADMSG;
	if (avail) {
		*ret = MN_SET;
		return 0;
	}
	*ret = MN_UNAVAILABLE;
	return mj_str(o, "reason", reason, size) < 0 ? -EBADMSG : 0;
}

static int decode_nic(struct json_object *o, struct model_nic *n)
{
	static const char *const rate_keys[] = { "rxpck/s", "txpck/s", "rxkB/s",   "txkB/s",
						 "rxerr/s", "txerr/s", "rxdrop/s", "txdrop/s" };
	double *rates[] = { &n->rxpck_s, &n->txpck_s, &n->rxkb_s,   &n->txkb_s,
			    &n->rxerr_s, &n->txerr_s, &n->rxdrop_s, &n->txdrop_s };
	struct json_object *ch = mj_get(o, "channels"), *co = mj_get(o, "coalesce");
	struct json_object *irqs = mj_get(o, "irqs");
	int got = 0;

	if (!json_object_is_type(o, json_type_object) ||
	    mj_str(o, "name", n->name, sizeof(n->name)) <= 0 || mj_bool(o, "up", &n->up) < 0 ||
	    mj_bool(o, "carrier", &n->carrier) < 0 || mj_uint(o, "rx_queues", &n->rx_queues) < 0 ||
	    mj_uint(o, "tx_queues", &n->tx_queues) < 0 || mj_uint(o, "ifindex", &n->ifindex) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < sizeof(rate_keys) / sizeof(rate_keys[0]); i++) {
		int r = mj_num(o, rate_keys[i], rates[i]);

		if (r < 0)
			return -EBADMSG;
		got += r;
	}
	n->has_rates = got == (int)(sizeof(rate_keys) / sizeof(rate_keys[0]));
	if (nic_part(ch, &n->channels, n->channels_reason, sizeof(n->channels_reason)) < 0 ||
	    nic_part(co, &n->coalesce, n->coalesce_reason, sizeof(n->coalesce_reason)) < 0)
		return -EBADMSG;
	if (n->channels == MN_SET &&
	    (mj_uint(ch, "rx", &n->ch_rx) < 0 || mj_uint(ch, "tx", &n->ch_tx) < 0 ||
	     mj_uint(ch, "other", &n->ch_other) < 0 ||
	     mj_uint(ch, "combined", &n->ch_combined) < 0 ||
	     mj_uint(ch, "rx_max", &n->ch_rx_max) < 0 || mj_uint(ch, "tx_max", &n->ch_tx_max) < 0 ||
	     mj_uint(ch, "other_max", &n->ch_other_max) < 0 ||
	     mj_uint(ch, "combined_max", &n->ch_combined_max) < 0))
		return -EBADMSG;
	if (n->coalesce == MN_SET) {
		int a = mj_uint(co, "rx-usecs", &n->rx_usecs),
		    b = mj_uint(co, "rx-frames", &n->rx_frames);
		int d = mj_uint(co, "tx-usecs", &n->tx_usecs),
		    e = mj_uint(co, "tx-frames", &n->tx_frames);
		int f = mj_bool(co, "adaptive-rx", &n->adaptive_rx);
		int g = mj_bool(co, "adaptive-tx", &n->adaptive_tx);

		if (a < 0 || b < 0 || d < 0 || e < 0 || f < 0 || g < 0)
			return -EBADMSG;
		n->has_rx_usecs = a;
		n->has_rx_frames = b;
		n->has_tx_usecs = d;
		n->has_tx_frames = e;
		n->has_adaptive_rx = f;
		n->has_adaptive_tx = g;
	}
	if (!irqs)
		return 0;
	if (!json_object_is_type(irqs, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; i < json_object_array_length(irqs); i++) {
		if (grow((void **)&n->irqs, &n->irqs_cap, n->nirqs + 1, sizeof(*n->irqs)) < 0)
			return -ENOMEM;
		if (decode_nic_irq(json_object_array_get_idx(irqs, i), &n->irqs[n->nirqs]) < 0)
			return -EBADMSG;
		n->nirqs++;
	}
	return 0;
}

static void nics_free(struct model_nics *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->v[i].irqs);
	grow_free((void **)&x->v, &x->n, &x->cap);
}

static int decode_nics(struct json_object *doc, struct model_nics *x, struct ctx *c)
{
	struct json_object *a = mj_get(doc, "nics");
	bool listed;

	source_status(doc, "rtnetlink", &listed, x->reason, sizeof(x->reason));
	/* an available ethtool's note is not a reason */
	if (source_status(doc, "ethtool", &listed, x->ethtool_reason, sizeof(x->ethtool_reason)))
		x->ethtool_reason[0] = '\0';
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return bad(c, "nics", "not an array");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		int r;

		if (grow((void **)&x->v, &x->cap, x->n + 1, sizeof(*x->v)) < 0)
			return -ENOMEM;
		memset(&x->v[x->n], 0, sizeof(x->v[x->n]));
		x->n++; /* counted now so nics_free() frees its irqs on error */
		r = decode_nic(json_object_array_get_idx(a, i), &x->v[x->n - 1]);
		if (r == -EBADMSG) {
			snprintf(c->bad, c->size, "nics[%zu]", i);
			return r;
		}
		if (r < 0)
			return r;
	}
	x->reason[0] = '\0';
	x->present = true;
	return 0;
}

/* ---- pressure, writeback ---- */

static int decode_psi_line(struct json_object *o, struct model_psi_line *l)
{
	int n;

	memset(l, 0, sizeof(*l));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object) || mj_num(o, "avg10", &l->avg10) <= 0 ||
	    mj_num(o, "avg60", &l->avg60) < 0 || mj_num(o, "avg300", &l->avg300) < 0 ||
	    mj_uint(o, "total", &l->total_us) < 0)
		return -EBADMSG;
	n = mj_num(o, "stall%", &l->stall_pct);
	if (n < 0)
		return -EBADMSG;
	l->has_stall = n > 0;
	l->present = true;
	return 0;
}

static int decode_pressure(struct json_object *doc, struct model_psi *psi, struct ctx *c)
{
	struct json_object *o = mj_get(doc, "pressure");

	if (o && !json_object_is_type(o, json_type_object))
		return bad(c, "pressure", "not an object");
	for (int i = 0; i < MP__COUNT; i++) {
		struct json_object *res = mj_get(o, model_psi_names[i]);
		char key[32];
		bool listed;

		snprintf(key, sizeof(key), "pressure_%s", model_psi_names[i]);
		source_status(doc, key, &listed, psi[i].reason, sizeof(psi[i].reason));
		if (!res)
			continue;
		if (!json_object_is_type(res, json_type_object) ||
		    decode_psi_line(mj_get(res, "some"), &psi[i].some) < 0 ||
		    decode_psi_line(mj_get(res, "full"), &psi[i].full) < 0)
			return bad(c, "pressure", model_psi_names[i]);
		psi[i].reason[0] = '\0';
		psi[i].present = true;
	}
	return 0;
}

static int decode_writeback(struct json_object *doc, struct model_writeback *w, struct ctx *c)
{
	struct json_object *o = mj_get(doc, "writeback");
	bool listed;
	int a, b, d, e, f;

	source_status(doc, "vmstat", &listed, w->reason, sizeof(w->reason));
	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(c, "writeback", "not an object");
	a = mj_uint(o, "dirty_kB", &w->dirty_kb);
	b = mj_uint(o, "writeback_kB", &w->writeback_kb);
	d = mj_uint(o, "dirty_background_threshold_kB", &w->bg_threshold_kb);
	e = mj_uint(o, "dirty_threshold_kB", &w->threshold_kb);
	f = mj_uint(o, "freerun_ceiling_kB", &w->freerun_kb);
	if (a < 0 || b < 0 || d < 0 || e < 0 || f < 0 ||
	    mj_str(o, "state", w->state, sizeof(w->state)) < 0)
		return bad(c, "writeback", "a key of the wrong type");
	w->has_dirty = a > 0 && b > 0;
	w->has_thresholds = d > 0 && e > 0;
	w->has_freerun = f > 0;
	if (w->has_dirty)
		w->reason[0] = '\0';
	w->present = true;
	return 0;
}

/* ---- the document ---- */

static void turbo_free(struct model_turbo *t)
{
	free(t->cpus);
	free(t->cols);
	memset(t, 0, sizeof(*t));
}

static void procs_free(struct model_procs *p)
{
	free(p->top_io);
	free(p->top_delay);
	free(p->top_cpu);
	free(p->groups_io);
	free(p->groups_cpu);
	free(p->db_threads);
	memset(p, 0, sizeof(*p));
}

void model_sections_free(struct model_sections *x)
{
	if (!x)
		return;
	turbo_free(&x->turbo);
	procs_free(&x->procs);
	nics_free(&x->nics);
	model_cgroups_free(&x->cgroups);
	memset(x, 0, sizeof(*x));
}

int model_sections_decode(struct json_object *doc, struct model_sections *ret)
{
	static const char *const core_sources[] = { "uptime",	  "stat",     "diskstats",
						    "interrupts", "softirqs", "sysblock" };
	struct model_sections *x = calloc(1, sizeof(*x));
	struct ctx c;
	bool listed;
	char why[8];
	int r;

	if (!x)
		return -ENOMEM;
	c = (struct ctx){ x->bad, sizeof(x->bad) };
	source_status(doc, "procfs_io", &listed, why, sizeof(why));
	x->sampled = listed;
	for (size_t i = 0; i < sizeof(core_sources) / sizeof(core_sources[0]); i++)
		if (!source_status(doc, core_sources[i], &listed, why, sizeof(why)) && listed)
			x->core_unavailable = true;

	/* each section on its own: a bad one is dropped, the others stay */
	r = decode_turbo(doc, &x->turbo, &c);
	if (r == -EBADMSG)
		turbo_free(&x->turbo);
	decode_turbo_families(doc, &x->turbo);
	if (r != -ENOMEM)
		r = decode_procs(doc, &x->procs, &c);
	if (r == -EBADMSG)
		procs_free(&x->procs);
	if (r != -ENOMEM)
		r = decode_nics(doc, &x->nics, &c);
	if (r == -EBADMSG) {
		nics_free(&x->nics);
		memset(&x->nics, 0, sizeof(x->nics));
	}
	if (r != -ENOMEM)
		r = decode_pressure(doc, x->psi, &c);
	if (r == -EBADMSG)
		memset(x->psi, 0, sizeof(x->psi));
	if (r != -ENOMEM)
		r = decode_writeback(doc, &x->wb, &c);
	if (r == -EBADMSG)
		memset(&x->wb, 0, sizeof(x->wb));
	if (r != -ENOMEM)
		r = model_cgroups_decode(doc, &x->cgroups); /* a bad one says so in its reason */
	if (r == -ENOMEM) {
		model_sections_free(x);
		free(x);
		return r;
	}
	*ret = *x;
	free(x);
	return 0;
}

const struct model_turbo_cpu *model_sections_turbo_cpu(const struct model_sections *x, int cpu)
{
	if (!x->turbo.present)
		return NULL;
	if (cpu < 0)
		return x->turbo.has_summary ? &x->turbo.summary : NULL;
	for (size_t i = 0; i < x->turbo.ncpus; i++)
		if (x->turbo.cpus[i].cpu == cpu)
			return &x->turbo.cpus[i];
	return NULL;
}

void model_sections_short_reason(const char *reason, char *buf, size_t size)
{
	const char *semi = strstr(reason, "; ");
	size_t n = semi ? (size_t)(semi - reason) : strlen(reason);

	snprintf(buf, size, "%.*s", (int)n, reason);
}

void model_sections_turbo_why(const struct model_sections *x, bool has_rates, char *buf,
			      size_t size)
{
	const struct model_turbo *t = &x->turbo;
	static const int order[] = { MT_PKGWATT, MT_PKGTMP, MT_BUSY };

	buf[0] = '\0';
	if (!t->present) {
		snprintf(buf, size, "%s",
			 !has_rates   ? "waiting for a second sample"
			 : t->sampled ? "not in this sample"
				      : "not in the sample: iotriaged --core-only, or older");
		return;
	}
	for (int k = MT_PKGWATT; k <= MT_CORETMP; k++)
		if (t->has[k])
			return;
	if (t->has_summary && !t->summary.valid) {
		snprintf(buf, size, "%s", t->summary.reason);
		return;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct model_turbo_status *s = &t->col[order[i]];

		if (s->known && !s->available && s->reason[0]) {
			model_sections_short_reason(s->reason, buf, size);
			return;
		}
	}
	snprintf(buf, size, "no power or temperature column in this sample");
}
