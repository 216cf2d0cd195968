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
 * This file frames the records and packs and unpacks a snapshot's sections
 * by tag; each family's codec is in rec_payload_turbo.c, _workload.c and
 * _topology.c, the fields of a line in rec_payload_int.h.
 *
 * One of the flight recorder's files, rec_*: collect/rec_payload*.c packs a
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
#include "rec_payload_int.h"
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
	rec_payload_end(o, at);
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
		rec_payload_turbo_pack(t, out);
		return;
	}
	if (!m->turbo_ok || m->turbo_mono_ns != t->mono_ns || m->turbo_ncpu != t->ncpu ||
	    m->turbo_npkg != t->npkg) {
		sb_reset(&m->turbo);
		rec_payload_turbo_pack(t, &m->turbo);
		m->turbo_ok = !m->turbo.err;
		m->turbo_mono_ns = t->mono_ns;
		m->turbo_ncpu = t->ncpu;
		m->turbo_npkg = t->npkg;
		if (!m->turbo_ok) {
			sb_reset(&m->turbo);
			rec_payload_turbo_pack(t, out); /* out says -ENOMEM if it is one */
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
		rec_payload_cgroups_pack(&w->cgroups, out);
		rec_payload_nics_pack(&w->nics, out);
		rec_payload_pressure_pack(&w->pressure, out);
		rec_payload_writeback_pack(&w->writeback, out);
	}
	if (s->mq.n)
		rec_payload_blkmq_pack(&s->mq, out);
	if (s->numa.n)
		rec_payload_numa_pack(&s->numa, out);
	if (s->turbo || w)
		pack_cadence(s->cadence, out);
	return out->err;
}

int rec_payload_pack_procs(const struct snapshot *s, struct strbuf *out)
{
	if (s->workload)
		rec_payload_procs_pack(&s->workload->procs, out);
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
		return rec_payload_turbo_unpack(&r, &s->turbo);
	case REC_TAG_PROCS:
		e = rec_payload_procs_unpack(&r, &w->procs);
		if (e == -EBADMSG) {
			w->procs.n = 0;
			w->procs.carried = false;
			not_recorded(&w->procs.procfs);
			not_recorded(&w->procs.taskstats);
		}
		return e;
	case REC_TAG_CGROUPS:
		e = rec_payload_cgroups_unpack(&r, &w->cgroups);
		if (e == -EBADMSG) {
			w->cgroups.n = w->cgroups.nio = 0;
			not_recorded(&w->cgroups.status);
		}
		return e;
	case REC_TAG_NICS:
		e = rec_payload_nics_unpack(&r, &w->nics);
		if (e == -EBADMSG) {
			w->nics.n = 0;
			not_recorded(&w->nics.rtnl);
			not_recorded(&w->nics.ethtool);
		}
		return e;
	case REC_TAG_PRESSURE:
		e = rec_payload_pressure_unpack(&r, &w->pressure);
		if (e == -EBADMSG)
			for (int i = 0; i < PSI__COUNT; i++) {
				memset(&w->pressure.res[i], 0, sizeof(w->pressure.res[i]));
				not_recorded(&w->pressure.res[i].status);
			}
		return e;
	case REC_TAG_WRITEBACK:
		e = rec_payload_writeback_unpack(&r, &w->writeback);
		if (e == -EBADMSG) {
			memset(&w->writeback, 0, sizeof(w->writeback));
			not_recorded(&w->writeback.vmstat_status);
			not_recorded(&w->writeback.sysctl_status);
		}
		return e;
	case REC_TAG_BLKMQ:
		e = rec_payload_blkmq_unpack(&r, &s->mq);
		if (e == -EBADMSG)
			s->mq.n = 0;
		return e;
	case REC_TAG_NUMA:
		e = rec_payload_numa_unpack(&r, &s->numa);
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
