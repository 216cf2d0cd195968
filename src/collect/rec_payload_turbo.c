// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's turbo record: the raw table of turbostat's
 * counters (the probe's sources and units once, a row a CPU and a package)
 * as text lines, written and read back (doc/recording.md). Pure: bytes in,
 * a table out; never trusts a count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_payload.h"
#include "rec_payload_int.h"
#include "rec_text.h"
#include "turbo.h"
#include "workload.h"

void rec_payload_turbo_pack(const struct turbo_raw *t, struct strbuf *o)
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
	rec_payload_end(o, at);
}

/* The 'i' line: the probe's vendor, model, units and idle states. */
static void unpack_turbo_info(struct rec_text *r, struct turbo_info *in)
{
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
}

/* A 'c' line: one CPU's counters appended. 0 or -ENOMEM (r->bad past the bound). */
static int unpack_turbo_cpu(struct rec_text *r, struct turbo_raw *t)
{
	struct turbo_cpu_raw *c;

	c = rec_row(r, (void **)&t->cpus, &t->ncpu, &t->cpu_cap, sizeof(*t->cpus),
		    REC_PAYLOAD_TURBO_MAX);
	if (!c)
		return r->bad ? 0 : -ENOMEM;
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
	return 0;
}

/* A 'p' line: one package's counters appended. 0 or -ENOMEM (r->bad past the bound). */
static int unpack_turbo_pkg(struct rec_text *r, struct turbo_raw *t)
{
	struct turbo_pkg_raw *p;

	p = rec_row(r, (void **)&t->pkgs, &t->npkg, &t->pkg_cap, sizeof(*t->pkgs),
		    REC_PAYLOAD_TURBO_MAX);
	if (!p)
		return r->bad ? 0 : -ENOMEM;
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
	return 0;
}

int rec_payload_turbo_unpack(struct rec_text *r, struct turbo_raw **pt)
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
			unpack_turbo_info(r, in);
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
		case 'c':
			if (unpack_turbo_cpu(r, t) < 0)
				return -ENOMEM;
			break;
		case 'p':
			if (unpack_turbo_pkg(r, t) < 0)
				return -ENOMEM;
			break;
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
