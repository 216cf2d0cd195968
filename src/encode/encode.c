// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON form of a sample. Key names for disks and CPUs are sysstat's
 * (iostat -x -o JSON, mpstat -o JSON) so scripts written for those work.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encode_advice.h"
#include "encode_blkmq.h"
#include "encode.h"
#include "encode_workload.h"
#include "snapshot.h"
#include "encode_turbo.h"
#include "topology.h"

/* "key":v, with the quoted key and its colon as one literal: one copy of a
 * length known at compile time (35 of them per disk and CPU row) */
static inline void kv_quoted(struct strbuf *sb, const char *qkey, size_t qlen, double v)
{
	sb_append(sb, qkey, qlen);
	sb_fixed2(sb, v);
	sb_putc(sb, ',');
}
#define kv_num(sb, key, v) kv_quoted((sb), "\"" key "\":", sizeof("\"" key "\":") - 1, (v))

void encode_sources_object(struct strbuf *sb, const struct snapshot *s)
{
	sb_putc(sb, '{');
	for (int i = 0; i < SRC__COUNT; i++) {
		const struct src_status *st = &s->status[i];

		sb_json_key(sb, snapshot_source_name((enum src_id)i));
		sb_puts(sb, st->err ? "{\"available\":false,\"reason\":" : "{\"available\":true");
		if (st->err)
			sb_json_str(sb, st->reason);
		sb_puts(sb, "},");
	}
	encode_turbo_sources(sb, s->turbo);
	encode_workload_sources(sb, s);
	sb_json_close(sb, '}');
}

static void encode_sources(struct strbuf *sb, const struct snapshot *s)
{
	sb_json_key(sb, "sources");
	encode_sources_object(sb, s);
	sb_putc(sb, ',');
}

/* "slaves":["sdb","sdc"] from the comma-separated /sys/block/X/slaves list */
static void encode_slaves(struct strbuf *sb, const char *list)
{
	char name[IOT_NAME_MAX];

	sb_puts(sb, ",\"slaves\":[");
	while (*list) {
		size_t n = strcspn(list, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, list);
		sb_json_str(sb, name);
		list += n;
		if (*list == ',') {
			list++;
			sb_putc(sb, ',');
		}
	}
	sb_putc(sb, ']');
}

static void encode_disk(struct strbuf *sb, const struct disk_metrics *d, const struct disk_raw *raw)
{
	sb_putc(sb, '{');
	sb_json_key(sb, "disk_device");
	sb_json_str(sb, d->name);
	sb_kv_u64(sb, ",\"major\":", d->major);
	sb_kv_u64(sb, ",\"minor\":", d->minor);
	if (d->dm_name[0]) {
		sb_puts(sb, ",\"dm_name\":");
		sb_json_str(sb, d->dm_name);
	}
	sb_puts(sb, d->whole ? ",\"whole\":true" : ",\"whole\":false");
	if (raw && raw->slaves[0])
		encode_slaves(sb, raw->slaves);
	if (raw && raw->iostats == 0)
		sb_puts(sb, ",\"iostats\":false");
	sb_kv_u64(sb, ",\"in_flight\":", d->in_flight);
	if (!d->valid) {
		sb_puts(sb, ",\"valid\":false,\"reason\":");
		sb_json_str(sb, d->reason);
		sb_putc(sb, '}');
		return;
	}
	sb_puts(sb, ",\"valid\":true,");
	if (d->new_in_interval)
		sb_puts(sb, "\"new\":true,");
	kv_num(sb, "r/s", d->r_s);
	kv_num(sb, "w/s", d->w_s);
	if (d->has_discard)
		kv_num(sb, "d/s", d->d_s);
	if (d->has_flush)
		kv_num(sb, "f/s", d->f_s);
	kv_num(sb, "rkB/s", d->rkb_s);
	kv_num(sb, "wkB/s", d->wkb_s);
	if (d->has_discard)
		kv_num(sb, "dkB/s", d->dkb_s);
	kv_num(sb, "rrqm/s", d->rrqm_s);
	kv_num(sb, "wrqm/s", d->wrqm_s);
	if (d->has_discard)
		kv_num(sb, "drqm/s", d->drqm_s);
	kv_num(sb, "rrqm", d->rrqm_pct);
	kv_num(sb, "wrqm", d->wrqm_pct);
	if (d->has_discard)
		kv_num(sb, "drqm", d->drqm_pct);
	kv_num(sb, "r_await", d->r_await);
	kv_num(sb, "w_await", d->w_await);
	if (d->has_discard)
		kv_num(sb, "d_await", d->d_await);
	if (d->has_flush)
		kv_num(sb, "f_await", d->f_await);
	kv_num(sb, "rareq-sz", d->rareq_sz);
	kv_num(sb, "wareq-sz", d->wareq_sz);
	if (d->has_discard)
		kv_num(sb, "dareq-sz", d->dareq_sz);
	kv_num(sb, "aqu-sz", d->aqu_sz);
	kv_num(sb, "util", d->util);
	kv_num(sb, "svctm", d->svctm);
	sb_json_close(sb, '}');
}

static void cpu_name(struct strbuf *sb, int cpu)
{
	if (cpu == IOT_CPU_ALL) {
		sb_json_str(sb, "all");
	} else {
		sb_putc(sb, '"');
		sb_i64(sb, cpu);
		sb_putc(sb, '"');
	}
}

static void encode_cpu(struct strbuf *sb, const struct cpu_metrics *c, bool with_intr)
{
	sb_puts(sb, "{\"cpu\":");
	cpu_name(sb, c->cpu);
	if (!c->valid) {
		sb_puts(sb, ",\"valid\":false,\"reason\":");
		sb_json_str(sb, c->reason);
		/* /proc/interrupts does not depend on the /proc/stat row */
		if (with_intr && c->has_intr_s)
			sb_kv_fixed2(sb, ",\"intr/s\":", c->intr_s);
		sb_putc(sb, '}');
		return;
	}
	sb_puts(sb, ",\"valid\":true,");
	kv_num(sb, "usr", c->usr);
	kv_num(sb, "nice", c->nice);
	kv_num(sb, "sys", c->sys);
	kv_num(sb, "iowait", c->iowait);
	kv_num(sb, "irq", c->irq);
	kv_num(sb, "soft", c->soft);
	kv_num(sb, "steal", c->steal);
	kv_num(sb, "guest", c->guest);
	kv_num(sb, "gnice", c->gnice);
	kv_num(sb, "idle", c->idle);
	if (with_intr)
		kv_num(sb, "intr/s", c->intr_s);
	sb_json_close(sb, '}');
}

/* Rates per CPU, sparse: only CPUs with a non-zero rate, {"cpu": rate}. */
/* An interrupts[] line's IRQ number, when its label is one. */
static bool irq_number(const char *label, uint32_t *ret_irq)
{
	unsigned long v;
	char *end;

	if (label[0] < '0' || label[0] > '9')
		return false;
	v = strtoul(label, &end, 10);
	if (*end || v > UINT32_MAX)
		return false;
	*ret_irq = (uint32_t)v;
	return true;
}

static bool aff_candidate(const struct rate_row *rr)
{
	uint32_t irq;

	return rr->valid && rr->total_s > 0 && irq_number(rr->label, &irq);
}

static int cmp_double_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/*
 * Which lines get their affinity: those that fired, with an IRQ number, at
 * most ENCODE_AFFINITY_MAX of them, the busiest. *ret_min: the rate a line
 * needs; *ret_ties: how many lines at exactly that rate may still have it
 * (in the table's order). False when none may (out of memory: none).
 */
static bool aff_bound(const struct rate_table *rt, double *ret_min, size_t *ret_ties)
{
	size_t n = 0, above = 0;
	double *v;

	for (size_t i = 0; i < rt->n; i++)
		n += aff_candidate(&rt->rows[i]);
	*ret_min = 0;
	*ret_ties = SIZE_MAX;
	if (n <= ENCODE_AFFINITY_MAX)
		return n > 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return false;
	n = 0;
	for (size_t i = 0; i < rt->n; i++)
		if (aff_candidate(&rt->rows[i]))
			v[n++] = rt->rows[i].total_s;
	qsort(v, n, sizeof(*v), cmp_double_desc);
	*ret_min = v[ENCODE_AFFINITY_MAX - 1];
	for (size_t i = 0; i < ENCODE_AFFINITY_MAX; i++)
		above += v[i] > *ret_min;
	*ret_ties = ENCODE_AFFINITY_MAX - above;
	free(v);
	return true;
}

/* ,"affinity":"0-3","effective":"0" of rr's IRQ as t read it (either
 * absent when the kernel did not offer the file) */
static void encode_affinity(struct strbuf *sb, const struct rate_row *rr, const struct topology *t)
{
	const struct topo_irq *ti;
	char list[TOPO_LIST_MAX];
	uint32_t irq;

	if (!irq_number(rr->label, &irq) || !(ti = topology_irq(t, irq)))
		return;
	if (ti->has_smp) {
		sb_puts(sb, ",\"affinity\":");
		sb_json_str(sb, ti->smp_list);
	}
	if (ti->has_eff && cpuset_format_list(&ti->effective, list, sizeof(list)) >= 0) {
		sb_puts(sb, ",\"effective\":");
		sb_json_str(sb, list);
	}
}

static void encode_rates(struct strbuf *sb, const char *key, const struct rate_table *rt,
			 const struct irq_table *cur, bool describe, const struct topology *aff)
{
	size_t ties = 0;
	double aff_min = 0;

	if (aff && !aff_bound(rt, &aff_min, &ties))
		aff = NULL;
	sb_json_key(sb, key);
	sb_putc(sb, '[');
	for (size_t i = 0; i < rt->n; i++) {
		const struct rate_row *rr = &rt->rows[i];
		const struct irq_row *row = &cur->rows[rr->cur_index];
		const double *rates = rt->rates + rr->rates_off;

		/* a big host has thousands of vectors, most idle in any second:
		 * interrupt lines with no interrupt in the interval are left out */
		if (describe && rr->valid && rr->total_s == 0)
			continue;
		sb_puts(sb, "{\"name\":");
		sb_json_str(sb, rr->label);
		if (describe) {
			if (row->chip[0]) {
				sb_puts(sb, ",\"chip\":");
				sb_json_str(sb, row->chip);
			}
			if (row->hwirq[0]) {
				sb_puts(sb, ",\"hwirq\":");
				sb_json_str(sb, row->hwirq);
			}
			if (row->actions[0]) {
				sb_puts(sb, ",\"actions\":");
				sb_json_str(sb, row->actions);
			}
		}
		if (!rr->valid) {
			sb_puts(sb, ",\"valid\":false},");
			continue;
		}
		sb_kv_fixed2(sb, ",\"total/s\":", rr->total_s);
		if (row->percpu_counts) {
			sb_puts(sb, ",\"cpus\":{");
			for (size_t k = 0; k < rt->ncpu; k++) {
				if (rates[k] == 0)
					continue;
				sb_putc(sb, '"');
				sb_i64(sb, rt->cpu_ids[k]);
				sb_append(sb, "\":", 2);
				sb_fixed2(sb, rates[k]);
				sb_putc(sb, ',');
			}
			sb_json_close(sb, '}');
		}
		if (aff && aff_candidate(rr) &&
		    (rr->total_s > aff_min || (rr->total_s == aff_min && ties && ties--)))
			encode_affinity(sb, rr, aff);
		sb_puts(sb, "},");
	}
	sb_json_end(sb, ']');
}

static const char *const cad_key[CAD__COUNT] = {
	[CAD_PROCS] = "processes", [CAD_TURBO] = "turbostat",	[CAD_NICS] = "nics",
	[CAD_CGROUPS] = "cgroups", [CAD_PRESSURE] = "pressure",
};

const char *encode_cadence_name(enum cad_src k)
{
	return (unsigned)k < CAD__COUNT ? cad_key[k] : "?";
}

/*
 * "cadence": how each optional section's rows were read (the sampler's CPU
 * budget): every N samples, read by this one or age samples old (then its
 * rates are the last read's). Absent for sections not in the document and
 * in documents the sampler did not make (compute, a replay).
 */
static void encode_cadence(struct strbuf *sb, const struct snapshot *cur)
{
	bool any = false;

	for (int k = 0; k < CAD__COUNT; k++) {
		const struct src_cadence *c = &cur->cadence[k];

		if (!c->every || !(k == CAD_TURBO ? cur->turbo != NULL : cur->workload != NULL))
			continue;
		sb_puts(sb, any ? "," : "\"cadence\":{");
		any = true;
		sb_json_key(sb, cad_key[k]);
		sb_printf(sb, "{\"every\":%u,\"age\":%u,\"read\":%s", c->every, c->age,
			  c->carried ? "false" : "true");
		if (c->why[0]) {
			sb_puts(sb, ",\"reason\":");
			sb_json_str(sb, c->why);
		}
		sb_printf(sb, ",\"read_uptime_cs\":%llu,\"cpu_us\":%llu}",
			  (unsigned long long)c->read_uptime_cs,
			  (unsigned long long)(c->cpu_ns / 1000));
	}
	if (any)
		sb_puts(sb, "},");
}

/* "events": what an operator did through the daemon in the interval */
static void encode_events(struct strbuf *sb, const struct encode_event *ev, size_t n)
{
	sb_json_key(sb, "events");
	sb_putc(sb, '[');
	for (size_t i = 0; i < n; i++) {
		sb_puts(sb, "{\"kind\":");
		sb_json_str(sb, ev[i].kind);
		sb_puts(sb, ",\"id\":");
		sb_json_str(sb, ev[i].id);
		sb_puts(sb, ",\"by\":");
		sb_json_str(sb, ev[i].by);
		sb_puts(sb, "},");
	}
	sb_json_end(sb, ']');
}

void encode_sample(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m,
		   const struct encode_opts *o)
{
	sb_kv_u64(sb, "{\"version\":", IOT_JSON_VERSION);
	if (o && o->host) {
		sb_puts(sb, ",\"host\":");
		sb_json_str(sb, o->host);
	}
	if (o && o->mode) {
		sb_puts(sb, ",\"mode\":");
		sb_json_str(sb, o->mode);
	}
	sb_kv_u64(sb, ",\"sample\":", cur->id);
	sb_kv_i64(sb, ",\"timestamp_ms\":", cur->real_ns / 1000000);
	sb_kv_u64(sb, ",\"uptime_cs\":", cur->uptime.uptime_cs);
	sb_putc(sb, ',');
	encode_sources(sb, cur);
	encode_cadence(sb, cur);
	if (o && o->nevents)
		encode_events(sb, o->events, o->nevents);
	if (!m) {
		sb_json_close(sb, '}');
		return;
	}
	sb_kv_u64(sb, "\"interval_ms\":", m->itv_cs * 10);
	sb_putc(sb, ',');
	sb_json_key(sb, "disks");
	sb_putc(sb, '[');
	for (size_t i = 0; i < m->ndisks; i++) {
		const struct disk_raw *raw;

		/* like iostat -x: whole disks that have done IO since boot */
		if (o && o->whole_only && (!m->disks[i].whole || m->disks[i].unused))
			continue;
		/* metrics_compute keeps disks[i] in step with the current table */
		raw = i < cur->disks.n && cur->disks.rows[i].major == m->disks[i].major &&
			      cur->disks.rows[i].minor == m->disks[i].minor
			  ? &cur->disks.rows[i]
			  : NULL;
		encode_disk(sb, &m->disks[i], raw);
		sb_putc(sb, ',');
	}
	sb_json_end(sb, ']');
	if (m->cpu_valid) {
		sb_json_key(sb, "cpu-load");
		sb_putc(sb, '[');
		encode_cpu(sb, &m->all, false);
		for (size_t i = 0; i < m->ncpu; i++) {
			sb_putc(sb, ',');
			encode_cpu(sb, &m->cpus[i], m->irq_valid);
		}
		sb_puts(sb, "],");
	}
	if (m->intr_valid) {
		sb_json_key(sb, "intr/s");
		sb_fixed2(sb, m->intr_all_s);
		sb_putc(sb, ',');
	}
	if (m->irq_valid)
		encode_rates(sb, "interrupts", &m->irq, &cur->irqs, true, o ? o->irq_topo : NULL);
	if (m->softirq_valid)
		encode_rates(sb, "softirqs", &m->softirq, &cur->softirqs, false, NULL);
	encode_blkmq(sb, cur, m);
	/* the NUMA nodes' CPUs: the live view groups its CPU heat map by them */
	if (cur->numa.n) {
		sb_json_key(sb, "numa");
		sb_putc(sb, '[');
		for (size_t i = 0; i < cur->numa.n; i++) {
			sb_kv_i64(sb, "{\"node\":", cur->numa.rows[i].node);
			sb_puts(sb, ",\"cpus\":");
			sb_json_str(sb, cur->numa.rows[i].cpu_list);
			sb_puts(sb, "},");
		}
		sb_json_end(sb, ']');
	}
	encode_turbo(sb, m->turbo);
	encode_workload_sections(sb, cur, m);
	if (o && o->advice)
		encode_advice(sb, o->advice);
	sb_json_close(sb, '}');
}
