// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_payload: the flight recorder's payload records beyond the core
 * files: the raw tables of turbo, the workload sources, blk-mq, NUMA and the topology as tab-separated
 * text lines, one row a line, numbers in decimal, so the frame codec
 * (lib/rec_diff.c) stores an unchanged row as a copy and a changed one as
 * the differences of its numbers. A missing trailing field reads as 0 or
 * "", an unknown one is ignored: a later version may append fields.
 * Never trusts a count: rows are the lines present, each table bounded.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload.c packs a
 * sample's sections, trace/rec_trace.c its trace read, lib/rec_diff.c
 * makes a frame the difference from the last, lib/recwriter*.c and recreader.c
 * write and read the segments, daemon/rec.c drives them from iotriaged's loop
 * (doc/recording.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "rec_payload.h"
#include "rec_text.h"
#include "turbo.h"
#include "workload.h"

void rec_payload_put(struct strbuf *out, uint16_t tag, int32_t err, const char *buf, size_t len)
{
	unsigned char h[12];
	uint32_t e = (uint32_t)err, l = (uint32_t)len;

	h[0] = (unsigned char)tag;
	h[1] = (unsigned char)(tag >> 8);
	h[2] = h[3] = 0;
	for (int i = 0; i < 4; i++) {
		h[4 + i] = (unsigned char)(e >> (8 * i));
		h[8 + i] = (unsigned char)(l >> (8 * i));
	}
	sb_append(out, (const char *)h, sizeof(h));
	if (len)
		sb_append(out, buf, len);
}

size_t rec_payload_begin(struct strbuf *out, uint16_t tag)
{
	size_t at = out->len;

	rec_payload_put(out, tag, 0, NULL, 0);
	return at;
}

void rec_payload_end(struct strbuf *out, size_t at)
{
	uint32_t n;

	if (out->err)
		return;
	n = (uint32_t)(out->len - at - 12);
	for (int k = 0; k < 4; k++)
		out->buf[at + 8 + k] = (char)(n >> (8 * k));
}

/* ---- writing ---- */

static void w_u(struct strbuf *o, uint64_t v)
{
	sb_u64(o, v);
	sb_putc(o, '\t');
}

static void w_i(struct strbuf *o, int64_t v)
{
	sb_i64(o, v);
	sb_putc(o, '\t');
}

/* A double exactly: its bits (turbo's units: set once, never diffed). */
static void w_d(struct strbuf *o, double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof(b));
	w_u(o, b);
}

/* A PSI average: centi-percent when that reads back exactly as pressure.c
 * parses the kernel's "%lu.%02lu" (always, for the kernel's text), else
 * 'x' and the bits. */
static void w_pct(struct strbuf *o, double v)
{
	if (v >= 0 && v < 1e9) {
		uint64_t c = (uint64_t)(v * 100.0 + 0.5);

		if ((double)(c / 100) + (double)(c % 100) / 100.0 == v) {
			w_u(o, c);
			return;
		}
	}
	sb_putc(o, 'x');
	w_d(o, v);
}

/* Text with tab, newline, other control bytes and '\' as \xHH. */
static void w_s(struct strbuf *o, const char *s)
{
	rec_text_put_s(o, s);
	sb_putc(o, '\t');
}

static void w_st(struct strbuf *o, const struct src_status *st)
{
	w_i(o, st->err);
	w_s(o, st->reason);
}

static void w_set(struct strbuf *o, const struct cpuset *c)
{
	size_t n = CPUSET_WORDS;

	while (n && !c->w[n - 1])
		n--;
	w_u(o, n);
	for (size_t i = 0; i < n; i++)
		w_u(o, c->w[i]);
}

/* Ends a line. keep > 0: the fields from that offset on are numbers, and
 * the trailing zeros among them go (they read back as 0). */
static void w_end(struct strbuf *o, size_t keep)
{
	if (o->err)
		return;
	while (keep && o->len >= keep + 2 && o->buf[o->len - 1] == '\t' &&
	       o->buf[o->len - 2] == '0' && (o->len - 2 == keep || o->buf[o->len - 3] == '\t'))
		o->len -= 2;
	if (o->len && o->buf[o->len - 1] == '\t')
		o->buf[o->len - 1] = '\n';
	else
		sb_putc(o, '\n');
}

/*
 * A record whose body is written after its header: returns where it
 * starts. The body begins with an empty line: the header's length changes
 * whenever a number gains a digit, and the frame codec compares lines, so
 * the header is a line of its own rather than part of the first row.
 */
static size_t rec_open(struct strbuf *o, uint16_t tag)
{
	size_t at = o->len;

	rec_payload_put(o, tag, 0, NULL, 0);
	sb_putc(o, '\n');
	return at;
}

static void rec_close(struct strbuf *o, size_t at)
{
	uint32_t n;

	if (o->err)
		return;
	n = (uint32_t)(o->len - at - 12);
	for (int k = 0; k < 4; k++)
		o->buf[at + 8 + k] = (char)(n >> (8 * k));
}

/* ---- reading ---- */
static int64_t r_i(struct rec_text *r)
{
	const char *s;
	size_t n;
	uint64_t v = 0;
	bool neg;

	if (r->f && r->f < r->lend && *r->f == '-') {
		r->f++;
		neg = true;
	} else {
		neg = false;
	}
	n = rec_text_field(r, &s);
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (uint64_t)INT64_MAX / 10) {
			r->bad = true;
			return 0;
		}
		v = v * 10 + d;
	}
	if (v > (uint64_t)INT64_MAX) {
		r->bad = true;
		return 0;
	}
	return neg ? -(int64_t)v : (int64_t)v;
}

/* Integers of a narrower type: out of its range is a malformed record. */
static int r_int(struct rec_text *r)
{
	int64_t v = r_i(r);

	if (v < INT32_MIN || v > INT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (int)v;
}

static uint32_t r_u32(struct rec_text *r)
{
	uint64_t v = rec_text_u(r);

	if (v > UINT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (uint32_t)v;
}

static bool r_b(struct rec_text *r)
{
	return rec_text_u(r) != 0;
}

static double r_d(struct rec_text *r)
{
	uint64_t b = rec_text_u(r);
	double v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

static double r_pct(struct rec_text *r)
{
	uint64_t c;

	if (r->f && r->f < r->lend && *r->f == 'x') {
		r->f++;
		return r_d(r);
	}
	c = rec_text_u(r);
	return (double)(c / 100) + (double)(c % 100) / 100.0;
}

/* A text written after numbers ('=' first): r_s without the '='. */
static void r_text(struct rec_text *r, char *dst, size_t size)
{
	if (r->f && r->f < r->lend && *r->f == '=')
		r->f++;
	else
		r->bad = r->bad || (r->f && r->f < r->lend);
	rec_text_s(r, dst, size);
}

static void r_st(struct rec_text *r, struct src_status *st)
{
	st->err = r_int(r);
	if (st->err > 0)
		st->err = -st->err;
	rec_text_s(r, st->reason, sizeof(st->reason));
}

static void r_set(struct rec_text *r, struct cpuset *c)
{
	uint64_t n = rec_text_u(r);

	memset(c, 0, sizeof(*c));
	if (n > CPUSET_WORDS) {
		r->bad = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		c->w[i] = rec_text_u(r);
}

/* ---- turbo ---- */

static void pack_turbo(const struct turbo_raw *t, struct strbuf *o)
{
	const struct turbo_info *in = &t->info;
	size_t at = rec_open(o, REC_TAG_TURBO), k;

	sb_puts(o, "t\t");
	w_u(o, t->has_time);
	w_i(o, t->mono_ns);
	w_u(o, t->energy_kind);
	w_end(o, 0);
	sb_puts(o, "i\t");
	w_s(o, in->vendor);
	w_u(o, in->family);
	w_u(o, in->model);
	w_u(o, in->intel_server);
	w_d(o, in->base_mhz);
	w_d(o, in->energy_unit_j);
	w_d(o, in->dram_energy_unit_j);
	w_d(o, in->time_unit_s);
	w_d(o, in->tdp_w);
	w_i(o, in->tj_max_c);
	for (int i = 0; i < 3; i++)
		w_d(o, in->perf_energy_scale_j[i]);
	for (int i = 0; i < 3; i++)
		w_u(o, in->powercap_range_uj[i]);
	w_u(o, in->nidle);
	for (int i = 0; i < TURBO_IDLE_MAX; i++)
		w_s(o, in->idle_names[i]);
	w_end(o, 0);
	for (int i = 0; i < TURBO_NSOURCES; i++) {
		sb_puts(o, "f\t");
		w_u(o, (uint64_t)i);
		w_i(o, in->sources[i].err);
		w_s(o, in->sources[i].reason);
		w_end(o, 0);
	}
	for (int i = 0; i < TC__COUNT; i++) {
		sb_puts(o, "s\t");
		w_u(o, (uint64_t)i);
		w_u(o, in->src[i].via);
		w_s(o, in->src[i].detail);
		w_s(o, in->src[i].reason);
		w_end(o, 0);
	}
	for (size_t i = 0; i < t->ncpu; i++) {
		const struct turbo_cpu_raw *c = &t->cpus[i];

		sb_puts(o, "c\t");
		w_i(o, c->cpu);
		w_i(o, c->core_id);
		w_i(o, c->pkg_id);
		w_u(o, c->first_in_core);
		w_u(o, c->first_in_pkg);
		w_i(o, c->core_idx);
		w_i(o, c->err);
		w_s(o, c->reason);
		k = o->len;
		w_u(o, c->have);
		w_u(o, c->tsc);
		w_u(o, c->aperf);
		w_u(o, c->mperf);
		w_u(o, c->smi);
		w_u(o, c->c3);
		w_u(o, c->c6);
		w_u(o, c->c7);
		w_u(o, c->core_energy);
		w_i(o, c->core_temp_mc);
		w_u(o, c->cur_khz);
		for (int j = 0; j < TURBO_IDLE_MAX; j++)
			w_u(o, c->idle_us[j]);
		w_end(o, k);
	}
	for (size_t i = 0; i < t->npkg; i++) {
		const struct turbo_pkg_raw *p = &t->pkgs[i];

		sb_puts(o, "p\t");
		w_i(o, p->pkg_id);
		w_i(o, p->cpu);
		w_i(o, p->err);
		w_s(o, p->reason);
		k = o->len;
		w_u(o, p->have);
		w_u(o, p->pc2);
		w_u(o, p->pc3);
		w_u(o, p->pc6);
		w_u(o, p->pc7);
		w_u(o, p->e_pkg);
		w_u(o, p->e_cores);
		w_u(o, p->e_dram);
		w_u(o, p->pkg_perf);
		w_u(o, p->dram_perf);
		w_i(o, p->pkg_temp_mc);
		w_end(o, k);
	}
	rec_close(o, at);
}

static int unpack_turbo(struct rec_text *r, struct turbo_raw **pt)
{
	struct turbo_raw *t = *pt;
	struct turbo_info *in;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		*pt = t;
	}
	in = &t->info;
	t->ncpu = t->npkg = 0;
	t->has_time = false;
	t->mono_ns = 0;
	t->energy_kind = TE_MSR32;
	memset(in, 0, sizeof(*in));
	while (!r->bad && rec_text_line(r)) {
		uint64_t i;

		switch (rec_text_kind(r)) {
		case 't':
			t->has_time = r_b(r);
			t->mono_ns = r_i(r);
			i = rec_text_u(r);
			t->energy_kind = i == TE_PERF	    ? TE_PERF
					 : i == TE_POWERCAP ? TE_POWERCAP
							    : TE_MSR32;
			break;
		case 'i':
			rec_text_s(r, in->vendor, sizeof(in->vendor));
			in->family = r_u32(r);
			in->model = r_u32(r);
			in->intel_server = r_b(r);
			in->base_mhz = r_d(r);
			in->energy_unit_j = r_d(r);
			in->dram_energy_unit_j = r_d(r);
			in->time_unit_s = r_d(r);
			in->tdp_w = r_d(r);
			in->tj_max_c = r_int(r);
			for (int k = 0; k < 3; k++)
				in->perf_energy_scale_j[k] = r_d(r);
			for (int k = 0; k < 3; k++)
				in->powercap_range_uj[k] = rec_text_u(r);
			in->nidle = r_u32(r);
			if (in->nidle > TURBO_IDLE_MAX)
				r->bad = true;
			for (int k = 0; k < TURBO_IDLE_MAX; k++)
				rec_text_s(r, in->idle_names[k], sizeof(in->idle_names[k]));
			break;
		case 'f':
			i = rec_text_u(r);
			if (i >= TURBO_NSOURCES) {
				r->bad = true;
				break;
			}
			in->sources[i].err = r_int(r);
			rec_text_s(r, in->sources[i].reason, sizeof(in->sources[i].reason));
			break;
		case 's':
			i = rec_text_u(r);
			if (i >= TC__COUNT) {
				r->bad = true;
				break;
			}
			in->src[i].via = (enum turbo_via)(rec_text_u(r) % (TV_PROC + 1));
			rec_text_s(r, in->src[i].detail, sizeof(in->src[i].detail));
			rec_text_s(r, in->src[i].reason, sizeof(in->src[i].reason));
			break;
		case 'c': {
			struct turbo_cpu_raw *c;

			if (t->ncpu >= REC_PAYLOAD_TURBO_MAX) {
				r->bad = true;
				break;
			}
			if (grow((void **)&t->cpus, &t->cpu_cap, t->ncpu + 1, sizeof(*t->cpus)) < 0)
				return -ENOMEM;
			c = &t->cpus[t->ncpu++];
			memset(c, 0, sizeof(*c));
			c->cpu = r_int(r);
			c->core_id = r_int(r);
			c->pkg_id = r_int(r);
			c->first_in_core = r_b(r);
			c->first_in_pkg = r_b(r);
			c->core_idx = r_int(r);
			c->err = r_int(r);
			rec_text_s(r, c->reason, sizeof(c->reason));
			c->have = r_u32(r);
			c->tsc = rec_text_u(r);
			c->aperf = rec_text_u(r);
			c->mperf = rec_text_u(r);
			c->smi = rec_text_u(r);
			c->c3 = rec_text_u(r);
			c->c6 = rec_text_u(r);
			c->c7 = rec_text_u(r);
			c->core_energy = rec_text_u(r);
			c->core_temp_mc = r_int(r);
			c->cur_khz = r_u32(r);
			for (int k = 0; k < TURBO_IDLE_MAX; k++)
				c->idle_us[k] = rec_text_u(r);
			break;
		}
		case 'p': {
			struct turbo_pkg_raw *p;

			if (t->npkg >= REC_PAYLOAD_TURBO_MAX) {
				r->bad = true;
				break;
			}
			if (grow((void **)&t->pkgs, &t->pkg_cap, t->npkg + 1, sizeof(*t->pkgs)) < 0)
				return -ENOMEM;
			p = &t->pkgs[t->npkg++];
			memset(p, 0, sizeof(*p));
			p->pkg_id = r_int(r);
			p->cpu = r_int(r);
			p->err = r_int(r);
			rec_text_s(r, p->reason, sizeof(p->reason));
			p->have = r_u32(r);
			p->pc2 = rec_text_u(r);
			p->pc3 = rec_text_u(r);
			p->pc6 = rec_text_u(r);
			p->pc7 = rec_text_u(r);
			p->e_pkg = rec_text_u(r);
			p->e_cores = rec_text_u(r);
			p->e_dram = rec_text_u(r);
			p->pkg_perf = rec_text_u(r);
			p->dram_perf = rec_text_u(r);
			p->pkg_temp_mc = r_int(r);
			break;
		}
		default:
			break; /* a later version's line */
		}
	}
	/* core_idx indexes cpus: a recording may not point outside */
	for (size_t i = 0; i < t->ncpu; i++)
		if (t->cpus[i].core_idx < 0 || (size_t)t->cpus[i].core_idx >= t->ncpu)
			t->cpus[i].core_idx = (int32_t)i;
	return r->bad ? -EBADMSG : 0;
}

/* ---- processes ---- */

static void pack_procs(const struct proc_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_PROCS);

	/* the numbers, then each text on its own line: a changed text makes
	 * its line a literal in the frame, the numbers stay differences */
	sb_puts(o, "h\t");
	w_u(o, t->carried);
	w_i(o, t->delayacct);
	w_u(o, t->unreadable);
	w_u(o, t->queried);
	w_u(o, t->answered);
	w_u(o, t->vanished);
	w_u(o, t->exited_rows);
	w_u(o, t->scan_uptime_cs);
	w_u(o, t->scan_cpu_ns);
	w_u(o, t->scan_every);
	w_u(o, t->scan_age);
	w_u(o, t->ts_io_rows);
	w_u(o, t->ts_io_asked);
	w_end(o, 0);
	sb_puts(o, "w\t");
	w_s(o, t->scan_why);
	w_end(o, 0);
	sb_puts(o, "s\t");
	w_st(o, &t->procfs);
	w_end(o, 0);
	sb_puts(o, "s\t");
	w_st(o, &t->taskstats);
	w_end(o, 0);
	/* a sample that skipped the scan carries the last scan's rows: recorded
	 * then. A row's pid is its distance from the row before: most rows are
	 * processes that did no IO ("1\t"), which zstd packs into almost nothing
	 * and which stay equal lines when a process before them comes or goes */
	for (size_t i = 0; !t->carried && i < t->n; i++) {
		const struct proc_raw *p = &t->rows[i];
		size_t k;

		w_i(o, (int64_t)p->pid - (i ? t->rows[i - 1].pid : 0));
		w_s(o, p->comm);
		k = o->len;
		/* most processes did no IO: their numbers would all be trimmed */
		if (!(p->exited | p->source | p->has_delay | p->read_bytes | p->write_bytes |
		      p->cancelled_write_bytes | p->blkio_count | p->blkio_delay_ns |
		      p->reaped_read_bytes | p->reaped_write_bytes | p->reaped_cancelled_bytes |
		      p->has_stat | p->io_unknown | p->io_taskstats | p->has_who)) {
			w_end(o, k);
			continue;
		}
		w_u(o, p->exited);
		w_u(o, p->source);
		w_u(o, p->read_bytes);
		w_u(o, p->write_bytes);
		w_u(o, p->cancelled_write_bytes);
		w_u(o, p->has_delay);
		w_u(o, p->blkio_count);
		w_u(o, p->blkio_delay_ns);
		w_u(o, p->reaped_read_bytes);
		w_u(o, p->reaped_write_bytes);
		w_u(o, p->reaped_cancelled_bytes);
		/* CPU time and who (later fields: an older reader stops before) */
		w_u(o, p->has_stat);
		w_u(o, p->kthread);
		w_u(o, p->io_unknown);
		w_u(o, p->utime_ticks);
		w_u(o, p->stime_ticks);
		w_u(o, p->gtime_ticks);
		w_u(o, p->start_ticks);
		w_u(o, p->io_taskstats);
		w_u(o, p->has_who);
		if (p->has_who) {
			/* texts after numbers: '=' keeps a "0" from being trimmed */
			w_u(o, p->uid);
			sb_putc(o, '=');
			w_s(o, p->user);
			sb_putc(o, '=');
			w_s(o, p->cmdline);
			sb_putc(o, '=');
			w_s(o, p->unit);
		}
		/* run-queue wait (appended later) */
		w_u(o, p->has_sched);
		w_u(o, p->runq_ns);
		w_end(o, k);
	}
	rec_close(o, at);
}

static int unpack_procs(struct rec_text *r, struct proc_table *t)
{
	int64_t d, gap, pid = 0;

	t->n = 0;
	if (!rec_text_line(r) || rec_text_kind(r) != 'h')
		return -EBADMSG;
	t->carried = r_b(r);
	d = r_i(r);
	t->delayacct = (int8_t)(d > 0 ? 1 : d < 0 ? -1 : 0);
	t->unreadable = r_u32(r);
	t->queried = r_u32(r);
	t->answered = r_u32(r);
	t->vanished = r_u32(r);
	t->exited_rows = r_u32(r);
	t->scan_uptime_cs = rec_text_u(r);
	t->scan_cpu_ns = rec_text_u(r);
	t->scan_every = r_u32(r);
	t->scan_age = r_u32(r);
	t->ts_io_rows = r_u32(r);
	t->ts_io_asked = r_u32(r);
	if (!rec_text_line(r) || rec_text_kind(r) != 'w')
		return -EBADMSG;
	rec_text_s(r, t->scan_why, sizeof(t->scan_why));
	if (!rec_text_line(r) || rec_text_kind(r) != 's')
		return -EBADMSG;
	r_st(r, &t->procfs);
	if (!rec_text_line(r) || rec_text_kind(r) != 's')
		return -EBADMSG;
	r_st(r, &t->taskstats);
	while (!r->bad && rec_text_line(r)) {
		struct proc_raw *p;

		if (t->carried || t->n >= REC_PAYLOAD_PROCS_MAX) {
			r->bad = true;
			break;
		}
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		p = &t->rows[t->n++];
		memset(p, 0, sizeof(*p));
		/* ascending but for a pid reused in the interval (an exited row
		 * and a live one): kept as recorded, only bounded */
		gap = r_i(r);
		if (gap < INT32_MIN - pid || gap > INT32_MAX - pid) {
			r->bad = true;
			break;
		}
		pid += gap;
		p->pid = (int32_t)pid;
		rec_text_s(r, p->comm, sizeof(p->comm));
		p->exited = r_b(r);
		p->source = rec_text_u(r) ? PROC_SRC_TASKSTATS : PROC_SRC_PROCFS;
		p->read_bytes = rec_text_u(r);
		p->write_bytes = rec_text_u(r);
		p->cancelled_write_bytes = rec_text_u(r);
		p->has_delay = r_b(r);
		p->blkio_count = rec_text_u(r);
		p->blkio_delay_ns = rec_text_u(r);
		p->reaped_read_bytes = rec_text_u(r);
		p->reaped_write_bytes = rec_text_u(r);
		p->reaped_cancelled_bytes = rec_text_u(r);
		p->has_stat = r_b(r);
		p->kthread = r_b(r);
		p->io_unknown = r_b(r);
		p->utime_ticks = rec_text_u(r);
		p->stime_ticks = rec_text_u(r);
		p->gtime_ticks = rec_text_u(r);
		p->start_ticks = rec_text_u(r);
		p->io_taskstats = r_b(r);
		p->has_who = r_b(r);
		if (p->has_who) {
			p->uid = r_u32(r);
			r_text(r, p->user, sizeof(p->user));
			r_text(r, p->cmdline, sizeof(p->cmdline));
			r_text(r, p->unit, sizeof(p->unit));
		}
		p->has_sched = r_b(r);
		p->runq_ns = rec_text_u(r);
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- pressure (the host's and each cgroup's) ---- */

static void w_psi(struct strbuf *o, const struct psi_line *l)
{
	w_u(o, l->present);
	w_pct(o, l->avg10);
	w_pct(o, l->avg60);
	w_pct(o, l->avg300);
	w_u(o, l->total_us);
}

static void r_psi(struct rec_text *r, struct psi_line *l)
{
	l->present = r_b(r);
	l->avg10 = r_pct(r);
	l->avg60 = r_pct(r);
	l->avg300 = r_pct(r);
	l->total_us = rec_text_u(r);
}

static void pack_pressure(const struct pressure_raw *p, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_PRESSURE);

	for (int i = 0; i < PSI__COUNT; i++) {
		w_u(o, (uint64_t)i);
		w_psi(o, &p->res[i].some);
		w_psi(o, &p->res[i].full);
		w_st(o, &p->res[i].status);
		w_end(o, 0);
	}
	rec_close(o, at);
}

static int unpack_pressure(struct rec_text *r, struct pressure_raw *p)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < PSI__COUNT; i++) {
		p->res[i].status.err = -ENODATA;
		snprintf(p->res[i].status.reason, sizeof(p->res[i].status.reason),
			 "not in the recording");
	}
	while (!r->bad && rec_text_line(r)) {
		uint64_t i = rec_text_u(r);
		struct psi_raw *x;

		if (i >= PSI__COUNT)
			continue; /* a later kernel's resource */
		x = &p->res[i];
		r_psi(r, &x->some);
		r_psi(r, &x->full);
		r_st(r, &x->status);
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- writeback ---- */

static void pack_writeback(const struct writeback_raw *w, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_WRITEBACK);

	w_u(o, w->has_vmstat);
	w_u(o, w->nr_dirty);
	w_u(o, w->nr_writeback);
	w_u(o, w->nr_dirty_threshold);
	w_u(o, w->nr_dirty_bg_threshold);
	w_u(o, w->has_thresholds);
	w_u(o, w->page_size);
	for (int i = 0; i < WB__COUNT; i++) {
		w_u(o, w->has_sysctl[i]);
		w_u(o, w->sysctl[i]);
	}
	w_st(o, &w->vmstat_status);
	w_st(o, &w->sysctl_status);
	w_end(o, 0);
	rec_close(o, at);
}

static int unpack_writeback(struct rec_text *r, struct writeback_raw *w)
{
	memset(w, 0, sizeof(*w));
	if (!rec_text_line(r))
		return -EBADMSG;
	w->has_vmstat = r_b(r);
	w->nr_dirty = rec_text_u(r);
	w->nr_writeback = rec_text_u(r);
	w->nr_dirty_threshold = rec_text_u(r);
	w->nr_dirty_bg_threshold = rec_text_u(r);
	w->has_thresholds = r_b(r);
	w->page_size = rec_text_u(r);
	for (int i = 0; i < WB__COUNT; i++) {
		w->has_sysctl[i] = r_b(r);
		w->sysctl[i] = rec_text_u(r);
	}
	r_st(r, &w->vmstat_status);
	r_st(r, &w->sysctl_status);
	return r->bad ? -EBADMSG : 0;
}

/* ---- cgroups ---- */

static void pack_cgroups(const struct cgroup_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_CGROUPS);

	sb_puts(o, "h\t");
	w_s(o, t->top);
	w_u(o, t->io_enabled);
	w_u(o, t->skipped);
	w_st(o, &t->status);
	w_s(o, t->psi_top); /* appended later: cpu and memory pressure */
	w_end(o, 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct cgroup_raw *g = &t->rows[i];

		sb_puts(o, "g\t");
		w_s(o, g->path);
		w_u(o, g->has_stat);
		w_u(o, g->has_psi);
		w_psi(o, &g->some);
		w_psi(o, &g->full);
		w_u(o, g->has_cpu_psi);
		w_psi(o, &g->cpu_some);
		w_psi(o, &g->cpu_full);
		w_u(o, g->has_mem_psi);
		w_psi(o, &g->mem_some);
		w_psi(o, &g->mem_full);
		w_end(o, 0);
		for (size_t k = 0; k < g->nio && g->io_off + k < t->nio; k++) {
			const struct cgroup_io *io = &t->io[g->io_off + k];

			sb_puts(o, "i\t");
			w_u(o, io->major);
			w_u(o, io->minor);
			w_u(o, io->has_discard);
			w_u(o, io->rbytes);
			w_u(o, io->wbytes);
			w_u(o, io->rios);
			w_u(o, io->wios);
			w_u(o, io->dbytes);
			w_u(o, io->dios);
			w_end(o, 0);
		}
	}
	rec_close(o, at);
}

static int unpack_cgroups(struct rec_text *r, struct cgroup_table *t)
{
	struct cgroup_raw *g = NULL;

	t->n = t->nio = 0;
	if (!rec_text_line(r) || rec_text_kind(r) != 'h')
		return -EBADMSG;
	rec_text_s(r, t->top, sizeof(t->top));
	t->io_enabled = r_b(r);
	t->skipped = r_u32(r);
	r_st(r, &t->status);
	rec_text_s(r, t->psi_top, sizeof(t->psi_top));
	while (!r->bad && rec_text_line(r)) {
		char k = rec_text_kind(r);

		if (k == 'g') {
			if (t->n >= CGROUP_MAX) {
				r->bad = true;
				break;
			}
			if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
				return -ENOMEM;
			g = &t->rows[t->n++];
			memset(g, 0, sizeof(*g));
			rec_text_s(r, g->path, sizeof(g->path));
			g->has_stat = r_b(r);
			g->has_psi = r_b(r);
			r_psi(r, &g->some);
			r_psi(r, &g->full);
			g->has_cpu_psi = r_b(r);
			r_psi(r, &g->cpu_some);
			r_psi(r, &g->cpu_full);
			g->has_mem_psi = r_b(r);
			r_psi(r, &g->mem_some);
			r_psi(r, &g->mem_full);
			g->io_off = t->nio;
			/* cgroup_table_find() searches by path: the rows must ascend */
			if (t->n > 1 && strcmp(g->path, g[-1].path) <= 0)
				r->bad = true;
		} else if (k == 'i') {
			struct cgroup_io *io;

			if (!g || g->nio >= CGROUP_DEVS_MAX || t->nio >= REC_PAYLOAD_CGIO_MAX) {
				r->bad = true;
				break;
			}
			if (grow((void **)&t->io, &t->io_cap, t->nio + 1, sizeof(*t->io)) < 0)
				return -ENOMEM;
			io = &t->io[t->nio++];
			g->nio++;
			io->major = r_u32(r);
			io->minor = r_u32(r);
			io->has_discard = r_b(r);
			io->rbytes = rec_text_u(r);
			io->wbytes = rec_text_u(r);
			io->rios = rec_text_u(r);
			io->wios = rec_text_u(r);
			io->dbytes = rec_text_u(r);
			io->dios = rec_text_u(r);
		}
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- NICs ---- */

static void pack_nics(const struct nic_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_NICS);

	sb_puts(o, "h\t");
	w_st(o, &t->rtnl);
	w_st(o, &t->ethtool);
	w_end(o, 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct nic_raw *n = &t->rows[i];
		const struct nic_link_stats *s = &n->stats;
		const struct nic_channels *ch = &n->channels;
		const struct nic_coalesce *co = &n->coalesce;

		sb_puts(o, "n\t");
		w_s(o, n->ifname);
		w_u(o, n->ifindex);
		w_u(o, n->up);
		w_u(o, n->running);
		w_u(o, n->num_rx_queues);
		w_u(o, n->num_tx_queues);
		w_u(o, n->has_channels);
		w_u(o, ch->rx);
		w_u(o, ch->tx);
		w_u(o, ch->other);
		w_u(o, ch->combined);
		w_u(o, ch->rx_max);
		w_u(o, ch->tx_max);
		w_u(o, ch->other_max);
		w_u(o, ch->combined_max);
		w_st(o, &n->channels_status);
		w_u(o, n->has_coalesce);
		w_u(o, (uint64_t)co->has_rx_usecs | (uint64_t)co->has_rx_frames << 1 |
			   (uint64_t)co->has_tx_usecs << 2 | (uint64_t)co->has_tx_frames << 3 |
			   (uint64_t)co->has_adaptive_rx << 4 | (uint64_t)co->has_adaptive_tx << 5 |
			   (uint64_t)co->adaptive_rx << 6 | (uint64_t)co->adaptive_tx << 7);
		w_u(o, co->rx_usecs);
		w_u(o, co->rx_frames);
		w_u(o, co->tx_usecs);
		w_u(o, co->tx_frames);
		w_st(o, &n->coalesce_status);
		w_u(o, n->nirqs);
		for (size_t k = 0; k < n->nirqs && k < NIC_IRQ_MAX; k++)
			w_u(o, n->irqs[k]);
		/* the counters last: a line whose text is unchanged but for them */
		w_u(o, n->has_stats);
		w_u(o, s->rx_packets);
		w_u(o, s->tx_packets);
		w_u(o, s->rx_bytes);
		w_u(o, s->tx_bytes);
		w_u(o, s->rx_errors);
		w_u(o, s->tx_errors);
		w_u(o, s->rx_dropped);
		w_u(o, s->tx_dropped);
		w_end(o, 0);
	}
	rec_close(o, at);
}

static int unpack_nics(struct rec_text *r, struct nic_table *t)
{
	t->n = 0;
	if (!rec_text_line(r) || rec_text_kind(r) != 'h')
		return -EBADMSG;
	r_st(r, &t->rtnl);
	r_st(r, &t->ethtool);
	while (!r->bad && rec_text_line(r)) {
		struct nic_raw *n;
		struct nic_link_stats *s;
		struct nic_channels *ch;
		struct nic_coalesce *co;
		uint64_t bits;

		if (rec_text_kind(r) != 'n')
			continue;
		if (t->n >= REC_PAYLOAD_NICS_MAX) {
			r->bad = true;
			break;
		}
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		n = &t->rows[t->n++];
		memset(n, 0, sizeof(*n));
		s = &n->stats;
		ch = &n->channels;
		co = &n->coalesce;
		rec_text_s(r, n->ifname, sizeof(n->ifname));
		n->ifindex = r_u32(r);
		n->up = r_b(r);
		n->running = r_b(r);
		n->num_rx_queues = r_u32(r);
		n->num_tx_queues = r_u32(r);
		n->has_channels = r_b(r);
		ch->rx = r_u32(r);
		ch->tx = r_u32(r);
		ch->other = r_u32(r);
		ch->combined = r_u32(r);
		ch->rx_max = r_u32(r);
		ch->tx_max = r_u32(r);
		ch->other_max = r_u32(r);
		ch->combined_max = r_u32(r);
		r_st(r, &n->channels_status);
		n->has_coalesce = r_b(r);
		bits = rec_text_u(r);
		co->has_rx_usecs = bits & 1;
		co->has_rx_frames = bits >> 1 & 1;
		co->has_tx_usecs = bits >> 2 & 1;
		co->has_tx_frames = bits >> 3 & 1;
		co->has_adaptive_rx = bits >> 4 & 1;
		co->has_adaptive_tx = bits >> 5 & 1;
		co->adaptive_rx = bits >> 6 & 1;
		co->adaptive_tx = bits >> 7 & 1;
		co->rx_usecs = r_u32(r);
		co->rx_frames = r_u32(r);
		co->tx_usecs = r_u32(r);
		co->tx_frames = r_u32(r);
		r_st(r, &n->coalesce_status);
		n->nirqs = rec_text_u(r);
		if (n->nirqs > NIC_IRQ_MAX) {
			n->nirqs = 0;
			r->bad = true;
			break;
		}
		for (size_t k = 0; k < n->nirqs; k++)
			n->irqs[k] = r_u32(r);
		n->has_stats = r_b(r);
		s->rx_packets = rec_text_u(r);
		s->tx_packets = rec_text_u(r);
		s->rx_bytes = rec_text_u(r);
		s->tx_bytes = rec_text_u(r);
		s->rx_errors = rec_text_u(r);
		s->tx_errors = rec_text_u(r);
		s->rx_dropped = rec_text_u(r);
		s->tx_dropped = rec_text_u(r);
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- blk-mq and NUMA ---- */

static void pack_blkmq(const struct blkmq_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_BLKMQ);

	for (size_t i = 0; i < t->n; i++) {
		w_s(o, t->rows[i].disk);
		w_u(o, t->rows[i].hctx);
		w_s(o, t->rows[i].cpu_list);
		w_end(o, 0);
	}
	rec_close(o, at);
}

static int unpack_blkmq(struct rec_text *r, struct blkmq_table *t)
{
	t->n = 0;
	while (!r->bad && rec_text_line(r)) {
		struct blkmq_queue *q;

		if (t->n >= REC_PAYLOAD_BLKMQ_MAX) {
			r->bad = true;
			break;
		}
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		q = &t->rows[t->n++];
		rec_text_s(r, q->disk, sizeof(q->disk));
		q->hctx = r_u32(r);
		rec_text_s(r, q->cpu_list, sizeof(q->cpu_list));
	}
	return r->bad ? -EBADMSG : 0;
}

static void pack_numa(const struct numa_table *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_NUMA);

	for (size_t i = 0; i < t->n; i++) {
		w_i(o, t->rows[i].node);
		w_s(o, t->rows[i].cpu_list);
		w_end(o, 0);
	}
	rec_close(o, at);
}

static int unpack_numa(struct rec_text *r, struct numa_table *t)
{
	t->n = 0;
	while (!r->bad && rec_text_line(r)) {
		struct numa_node *x;

		if (t->n >= 1024) { /* NUMA_NODES_MAX */
			r->bad = true;
			break;
		}
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		x = &t->rows[t->n++];
		x->node = r_int(r);
		rec_text_s(r, x->cpu_list, sizeof(x->cpu_list));
	}
	return r->bad ? -EBADMSG : 0;
}

/* ---- the snapshot's sections ---- */

/* ---- the optional sources' cadence ---- */

/* One line a source (enum cad_src's order): carried, every, age, the read's
 * uptime and CPU time, why it was read. Written after the sampler set them
 * (the document says them), so a replay says the same. */
static void pack_cadence(const struct src_cadence *cad, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_CADENCE);

	for (int k = 0; k < CAD__COUNT; k++) {
		const struct src_cadence *c = &cad[k];

		sb_puts(o, "c\t");
		w_u(o, c->carried);
		w_u(o, c->every);
		w_u(o, c->age);
		w_u(o, c->read_uptime_cs);
		w_u(o, c->cpu_ns);
		w_s(o, c->why);
		w_end(o, 0);
	}
	rec_close(o, at);
}

static int unpack_cadence(struct rec_text *r, struct src_cadence *cad)
{
	int k = 0;

	while (!r->bad && rec_text_line(r)) {
		struct src_cadence *c;

		if (rec_text_kind(r) != 'c')
			continue;
		if (k >= CAD__COUNT)
			break; /* a newer version's source: not ours */
		c = &cad[k++];
		c->carried = r_b(r);
		c->every = r_u32(r);
		c->age = r_u32(r);
		c->read_uptime_cs = rec_text_u(r);
		c->cpu_ns = rec_text_u(r);
		rec_text_s(r, c->why, sizeof(c->why));
	}
	if (r->bad) {
		memset(cad, 0, CAD__COUNT * sizeof(*cad));
		return -EBADMSG;
	}
	return 0;
}

void rec_payload_memo_free(struct rec_payload_memo *m)
{
	sb_free(&m->topo);
	sb_free(&m->turbo);
	memset(m, 0, sizeof(*m));
}

/* s's turbo record, from memo when it holds this reading's: turbostat is
 * read every few samples and its record (CPU names, sources, every
 * counter) was a tenth of the recorder's CPU a sample. */
static void pack_turbo_memo(const struct turbo_raw *t, struct rec_payload_memo *m,
			    struct strbuf *out)
{
	if (!m) {
		pack_turbo(t, out);
		return;
	}
	if (!m->turbo_ok || m->turbo_mono_ns != t->mono_ns || m->turbo_ncpu != t->ncpu ||
	    m->turbo_npkg != t->npkg) {
		sb_reset(&m->turbo);
		pack_turbo(t, &m->turbo);
		m->turbo_ok = !m->turbo.err;
		m->turbo_mono_ns = t->mono_ns;
		m->turbo_ncpu = t->ncpu;
		m->turbo_npkg = t->npkg;
		if (!m->turbo_ok) {
			sb_reset(&m->turbo);
			pack_turbo(t, out); /* out says -ENOMEM if it is one */
			return;
		}
	}
	sb_append(out, m->turbo.buf, m->turbo.len);
}

int rec_payload_pack_sections(const struct snapshot *s, struct rec_payload_memo *memo,
			      struct strbuf *out)
{
	const struct workload_raw *w = s->workload;

	if (s->turbo)
		pack_turbo_memo(s->turbo, memo, out);
	if (w) {
		pack_cgroups(&w->cgroups, out);
		pack_nics(&w->nics, out);
		pack_pressure(&w->pressure, out);
		pack_writeback(&w->writeback, out);
	}
	if (s->mq.n)
		pack_blkmq(&s->mq, out);
	if (s->numa.n)
		pack_numa(&s->numa, out);
	if (s->turbo || w)
		pack_cadence(s->cadence, out);
	return out->err;
}

int rec_payload_pack_procs(const struct snapshot *s, struct strbuf *out)
{
	if (s->workload)
		pack_procs(&s->workload->procs, out);
	return out->err;
}

/* A workload source the payload lacks: unavailable, not zeros. */
static void not_recorded(struct src_status *st)
{
	st->err = -ENODATA;
	snprintf(st->reason, sizeof(st->reason), "not in the recording");
}

/* Every workload source unavailable until its record comes; storage kept. */
static void workload_reset(struct workload_raw *w)
{
	w->procs.n = 0;
	w->procs.carried = false;
	w->procs.delayacct = -1;
	w->procs.unreadable = w->procs.queried = w->procs.answered = 0;
	w->procs.vanished = w->procs.exited_rows = 0;
	w->procs.scan_uptime_cs = w->procs.scan_cpu_ns = 0;
	w->procs.scan_every = w->procs.scan_age = 0;
	w->procs.scan_why[0] = '\0';
	not_recorded(&w->procs.procfs);
	not_recorded(&w->procs.taskstats);
	w->nics.n = 0;
	not_recorded(&w->nics.rtnl);
	not_recorded(&w->nics.ethtool);
	w->cgroups.n = w->cgroups.nio = 0;
	w->cgroups.top[0] = '\0';
	w->cgroups.io_enabled = false;
	w->cgroups.skipped = 0;
	not_recorded(&w->cgroups.status);
	memset(&w->writeback, 0, sizeof(w->writeback));
	not_recorded(&w->writeback.vmstat_status);
	not_recorded(&w->writeback.sysctl_status);
	memset(&w->pressure, 0, sizeof(w->pressure));
	for (int i = 0; i < PSI__COUNT; i++)
		not_recorded(&w->pressure.res[i].status);
}

void rec_payload_unpack_begin(struct snapshot *s)
{
	if (s->workload)
		workload_reset(s->workload);
	s->mq.n = 0;
	s->numa.n = 0;
	memset(s->cadence, 0, sizeof(s->cadence)); /* none recorded before version 3 */
}

void rec_payload_unpack_end(struct snapshot *s, bool had_turbo, bool had_workload)
{
	if (!had_turbo) {
		turbo_raw_free(s->turbo);
		s->turbo = NULL;
	}
	if (!had_workload) {
		workload_raw_free(s->workload);
		s->workload = NULL;
	}
}

static int workload_of(struct snapshot *s, struct workload_raw **ret)
{
	struct workload_raw *w = s->workload;

	if (!w) {
		w = calloc(1, sizeof(*w));
		if (!w)
			return -ENOMEM;
		workload_reset(w);
		s->workload = w;
	}
	*ret = w;
	return 0;
}

int rec_payload_unpack_section(uint16_t tag, const char *p, size_t len, struct snapshot *s)
{
	struct workload_raw *w = NULL;
	struct rec_text r;
	int e = 0;

	rec_text_init(&r, p, len);
	if (tag >= REC_TAG_PROCS && tag <= REC_TAG_WRITEBACK && workload_of(s, &w) < 0)
		return -ENOMEM;
	switch (tag) {
	case REC_TAG_TURBO:
		return unpack_turbo(&r, &s->turbo);
	case REC_TAG_PROCS:
		e = unpack_procs(&r, &w->procs);
		if (e == -EBADMSG) {
			w->procs.n = 0;
			w->procs.carried = false;
			not_recorded(&w->procs.procfs);
			not_recorded(&w->procs.taskstats);
		}
		return e;
	case REC_TAG_CGROUPS:
		e = unpack_cgroups(&r, &w->cgroups);
		if (e == -EBADMSG) {
			w->cgroups.n = w->cgroups.nio = 0;
			not_recorded(&w->cgroups.status);
		}
		return e;
	case REC_TAG_NICS:
		e = unpack_nics(&r, &w->nics);
		if (e == -EBADMSG) {
			w->nics.n = 0;
			not_recorded(&w->nics.rtnl);
			not_recorded(&w->nics.ethtool);
		}
		return e;
	case REC_TAG_PRESSURE:
		e = unpack_pressure(&r, &w->pressure);
		if (e == -EBADMSG)
			for (int i = 0; i < PSI__COUNT; i++) {
				memset(&w->pressure.res[i], 0, sizeof(w->pressure.res[i]));
				not_recorded(&w->pressure.res[i].status);
			}
		return e;
	case REC_TAG_WRITEBACK:
		e = unpack_writeback(&r, &w->writeback);
		if (e == -EBADMSG) {
			memset(&w->writeback, 0, sizeof(w->writeback));
			not_recorded(&w->writeback.vmstat_status);
			not_recorded(&w->writeback.sysctl_status);
		}
		return e;
	case REC_TAG_BLKMQ:
		e = unpack_blkmq(&r, &s->mq);
		if (e == -EBADMSG)
			s->mq.n = 0;
		return e;
	case REC_TAG_NUMA:
		e = unpack_numa(&r, &s->numa);
		if (e == -EBADMSG)
			s->numa.n = 0;
		return e;
	case REC_TAG_CADENCE:
		return unpack_cadence(&r, s->cadence);
	default:
		return 0;
	}
}

/* ---- the topology ---- */

int rec_payload_pack_topology(const struct topology *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_TOPOLOGY);
	const struct topo_irqbalance *ib = &t->irqbalance;

	sb_puts(o, "h\t");
	w_u(o, t->has_online);
	w_u(o, t->has_isolated);
	w_u(o, t->has_nohz_full);
	w_u(o, t->isolated_from_cmdline);
	w_u(o, t->nohz_full_from_cmdline);
	w_set(o, &t->online);
	w_set(o, &t->isolated);
	w_set(o, &t->nohz_full);
	w_i(o, t->nr_nodes);
	w_u(o, t->has_irqbalance);
	w_i(o, t->rps_sock_flow_entries);
	w_end(o, 0);
	sb_puts(o, "b\t");
	w_u(o, ib->running);
	w_i(o, ib->pid);
	w_set(o, &ib->banned_cpus);
	w_s(o, ib->config);
	w_u(o, ib->nbanned_irqs);
	for (size_t i = 0; i < ib->nbanned_irqs && i < 64; i++)
		w_u(o, ib->banned_irqs[i]);
	w_end(o, 0);
	for (size_t i = 0; i < t->ndevs; i++) {
		const struct topo_dev *d = &t->devs[i];

		sb_puts(o, "d\t");
		w_s(o, d->pci);
		w_s(o, d->driver);
		w_u(o, d->kind);
		w_s(o, d->name);
		w_i(o, d->numa_node);
		w_u(o, d->has_numa);
		w_u(o, d->has_local);
		w_set(o, &d->local_cpus);
		w_u(o, d->nirqs);
		for (size_t k = 0; k < d->nirqs; k++)
			w_u(o, d->irqs[k]);
		w_end(o, 0);
	}
	for (size_t i = 0; i < t->nirqs; i++) {
		const struct topo_irq *q = &t->irqs[i];

		sb_puts(o, "q\t");
		w_u(o, q->irq);
		w_u(o, q->has_smp);
		w_u(o, q->has_eff);
		w_u(o, q->has_hint);
		w_u(o, q->has_node);
		w_set(o, &q->smp_affinity);
		w_s(o, q->smp_list);
		w_set(o, &q->effective);
		w_set(o, &q->hint);
		w_i(o, q->node);
		w_s(o, q->actions);
		w_s(o, q->chip_name);
		w_s(o, q->hwirq);
		w_u(o, q->managed);
		w_u(o, q->managed_known);
		w_s(o, q->managed_why);
		w_i(o, q->dev);
		w_end(o, 0);
	}
	for (size_t i = 0; i < t->nnets; i++) {
		const struct topo_net *n = &t->nets[i];

		sb_puts(o, "n\t");
		w_s(o, n->ifname);
		w_i(o, n->dev);
		w_u(o, n->rx_queues);
		w_u(o, n->has_rps);
		w_set(o, &n->rps_cpus);
		w_s(o, n->rps_cpus_raw);
		w_u(o, n->has_flow_cnt);
		w_u(o, n->rps_flow_cnt);
		w_end(o, 0);
	}
	for (size_t i = 0; i < t->nblocks; i++) {
		const struct topo_block *b = &t->blocks[i];

		sb_puts(o, "k\t");
		w_s(o, b->name);
		w_i(o, b->dev);
		w_s(o, b->scheduler);
		w_s(o, b->schedulers);
		w_i(o, b->nr_requests);
		w_i(o, b->read_ahead_kb);
		w_i(o, b->rotational);
		w_u(o, b->nr_hw_queues);
		w_end(o, 0);
	}
	for (size_t i = 0; i < t->nmissing && i < TOPO_MISSING_MAX; i++) {
		sb_puts(o, "m\t");
		w_s(o, t->missing[i]);
		w_end(o, 0);
	}
	rec_close(o, at);
	return o->err;
}

int rec_payload_pack_topology_memo(const struct topology *t, struct rec_payload_memo *m,
				   struct strbuf *out)
{
	if (!m)
		return rec_payload_pack_topology(t, out);
	/* formatting every IRQ's affinity each second: a tenth of the
	 * recorder's CPU a sample, for a topology re-read every few minutes */
	if (!m->topo_ok) {
		sb_reset(&m->topo);
		if (rec_payload_pack_topology(t, &m->topo) < 0) {
			sb_reset(&m->topo);
			return rec_payload_pack_topology(t, out);
		}
		m->topo_ok = true;
	}
	sb_append(out, m->topo.buf, m->topo.len);
	return out->err;
}

/* Room for one more row of a topology table, bounded. */
static int topo_row(void **arr, size_t *n, size_t *cap, size_t size, struct rec_text *r)
{
	if (*n >= REC_PAYLOAD_TOPO_MAX) {
		r->bad = true;
		return -EBADMSG;
	}
	if (grow(arr, cap, *n + 1, size) < 0)
		return -ENOMEM;
	memset((char *)*arr + *n * size, 0, size);
	(*n)++;
	return 0;
}

static int unpack_topo_line(struct rec_text *r, struct topology *t)
{
	struct topo_irqbalance *ib = &t->irqbalance;
	int e;

	switch (rec_text_kind(r)) {
	case 'h':
		t->has_online = r_b(r);
		t->has_isolated = r_b(r);
		t->has_nohz_full = r_b(r);
		t->isolated_from_cmdline = r_b(r);
		t->nohz_full_from_cmdline = r_b(r);
		r_set(r, &t->online);
		r_set(r, &t->isolated);
		r_set(r, &t->nohz_full);
		t->nr_nodes = r_int(r);
		t->has_irqbalance = r_b(r);
		t->rps_sock_flow_entries = (long)r_i(r);
		return 0;
	case 'b':
		ib->running = r_b(r);
		ib->pid = r_int(r);
		r_set(r, &ib->banned_cpus);
		rec_text_s(r, ib->config, sizeof(ib->config));
		ib->nbanned_irqs = rec_text_u(r);
		if (ib->nbanned_irqs > 64) {
			ib->nbanned_irqs = 0;
			r->bad = true;
		}
		for (size_t i = 0; i < ib->nbanned_irqs; i++)
			ib->banned_irqs[i] = r_u32(r);
		return 0;
	case 'd': {
		struct topo_dev *d;
		uint64_t n;

		e = topo_row((void **)&t->devs, &t->ndevs, &t->devs_cap, sizeof(*t->devs), r);
		if (e < 0)
			return e;
		d = &t->devs[t->ndevs - 1];
		rec_text_s(r, d->pci, sizeof(d->pci));
		rec_text_s(r, d->driver, sizeof(d->driver));
		d->kind = (enum topo_dev_kind)(rec_text_u(r) % (TOPO_DEV_SCSI + 1));
		rec_text_s(r, d->name, sizeof(d->name));
		d->numa_node = r_int(r);
		d->has_numa = r_b(r);
		d->has_local = r_b(r);
		r_set(r, &d->local_cpus);
		n = rec_text_u(r);
		/* all devices' vectors, bounded together */
		if (n > REC_PAYLOAD_DEVIRQS_MAX - r->total) {
			r->bad = true;
			return -EBADMSG;
		}
		r->total += (size_t)n;
		if (n) {
			d->irqs = calloc((size_t)n, sizeof(*d->irqs));
			if (!d->irqs)
				return -ENOMEM;
			d->nirqs = (size_t)n;
			for (size_t k = 0; k < d->nirqs; k++)
				d->irqs[k] = r_u32(r);
		}
		return 0;
	}
	case 'q': {
		struct topo_irq *q;

		e = topo_row((void **)&t->irqs, &t->nirqs, &t->irqs_cap, sizeof(*t->irqs), r);
		if (e < 0)
			return e;
		q = &t->irqs[t->nirqs - 1];
		q->irq = r_u32(r);
		q->has_smp = r_b(r);
		q->has_eff = r_b(r);
		q->has_hint = r_b(r);
		q->has_node = r_b(r);
		r_set(r, &q->smp_affinity);
		rec_text_s(r, q->smp_list, sizeof(q->smp_list));
		r_set(r, &q->effective);
		r_set(r, &q->hint);
		q->node = r_int(r);
		rec_text_s(r, q->actions, sizeof(q->actions));
		rec_text_s(r, q->chip_name, sizeof(q->chip_name));
		rec_text_s(r, q->hwirq, sizeof(q->hwirq));
		q->managed = r_b(r);
		q->managed_known = r_b(r);
		rec_text_s(r, q->managed_why, sizeof(q->managed_why));
		q->dev = r_int(r);
		/* topology_irq() searches by number: they must ascend */
		if (t->nirqs > 1 && q->irq <= q[-1].irq)
			r->bad = true;
		return 0;
	}
	case 'n': {
		struct topo_net *n;

		e = topo_row((void **)&t->nets, &t->nnets, &t->nets_cap, sizeof(*t->nets), r);
		if (e < 0)
			return e;
		n = &t->nets[t->nnets - 1];
		rec_text_s(r, n->ifname, sizeof(n->ifname));
		n->dev = r_int(r);
		n->rx_queues = r_u32(r);
		n->has_rps = r_b(r);
		r_set(r, &n->rps_cpus);
		rec_text_s(r, n->rps_cpus_raw, sizeof(n->rps_cpus_raw));
		n->has_flow_cnt = r_b(r);
		n->rps_flow_cnt = rec_text_u(r);
		return 0;
	}
	case 'k': {
		struct topo_block *b;

		e = topo_row((void **)&t->blocks, &t->nblocks, &t->blocks_cap, sizeof(*t->blocks),
			     r);
		if (e < 0)
			return e;
		b = &t->blocks[t->nblocks - 1];
		rec_text_s(r, b->name, sizeof(b->name));
		b->dev = r_int(r);
		rec_text_s(r, b->scheduler, sizeof(b->scheduler));
		rec_text_s(r, b->schedulers, sizeof(b->schedulers));
		b->nr_requests = (long)r_i(r);
		b->read_ahead_kb = (long)r_i(r);
		b->rotational = r_int(r);
		b->nr_hw_queues = r_u32(r);
		return 0;
	}
	case 'm':
		if (t->nmissing >= TOPO_MISSING_MAX) {
			r->bad = true;
			return -EBADMSG;
		}
		rec_text_s(r, t->missing[t->nmissing], sizeof(t->missing[0]));
		t->nmissing++;
		return 0;
	default:
		return 0; /* a later version's line */
	}
}

int rec_payload_unpack_topology(const char *p, size_t len, struct topology *ret)
{
	struct topology t = { 0 };
	struct rec_text r;
	int e = 0;

	t.rps_sock_flow_entries = -1;
	rec_text_init(&r, p, len);
	while (e >= 0 && !r.bad && rec_text_line(&r))
		e = unpack_topo_line(&r, &t);
	if (e >= 0 && r.bad)
		e = -EBADMSG;
	/* indexes into devs: a recording may not point outside */
	for (size_t i = 0; e >= 0 && i < t.nirqs; i++)
		if (t.irqs[i].dev < -1 || t.irqs[i].dev >= (int)t.ndevs)
			e = -EBADMSG;
	for (size_t i = 0; e >= 0 && i < t.nnets; i++)
		if (t.nets[i].dev < -1 || t.nets[i].dev >= (int)t.ndevs)
			e = -EBADMSG;
	for (size_t i = 0; e >= 0 && i < t.nblocks; i++)
		if (t.blocks[i].dev < -1 || t.blocks[i].dev >= (int)t.ndevs)
			e = -EBADMSG;
	if (e < 0) {
		topology_free(&t);
		return e;
	}
	*ret = t;
	return 0;
}

int rec_payload_next(const char **pos, const char *end, uint16_t *ret_tag, int32_t *ret_err,
		     const char **ret_p, size_t *ret_len)
{
	const unsigned char *h = (const unsigned char *)*pos;
	uint32_t e = 0, l = 0;

	if (end - *pos < 12)
		return 0; /* a short tail is no record */
	for (int i = 0; i < 4; i++) {
		e |= (uint32_t)h[4 + i] << (8 * i);
		l |= (uint32_t)h[8 + i] << (8 * i);
	}
	if (l > (size_t)(end - *pos) - 12)
		return -EBADMSG;
	*ret_tag = (uint16_t)(h[0] | h[1] << 8);
	/* an error is -errno: anything below is damage, said as such (and
	 * never negated back: -INT32_MIN does not exist) */
	*ret_err = (int32_t)e < -4095 ? -EBADMSG : (int32_t)e;
	*ret_p = *pos + 12;
	*ret_len = l;
	*pos += 12 + (size_t)l;
	return 1;
}

int rec_payload_find(const void *buf, size_t len, uint16_t tag, const char **ret_p, size_t *ret_len,
		     int32_t *ret_err)
{
	const char *pos = buf, *end = pos + len, *p;
	uint16_t t;
	int32_t e;
	size_t l;
	int r;

	while ((r = rec_payload_next(&pos, end, &t, &e, &p, &l)) > 0)
		if (t == tag) {
			*ret_p = p;
			*ret_len = l;
			*ret_err = e;
			return 1;
		}
	return r;
}
