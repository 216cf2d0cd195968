// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One sample as a Prometheus exposition (text 0.0.4 or OpenMetrics 1.0):
 * the kernel's own counters, never our rates, wherever rate() can do the
 * arithmetic (so Prometheus's rate() over them is iostat's number for the
 * same interval), gauges where the kernel gives a level, and the findings.
 * Pure: reads the snapshot, the metrics and the advice, writes a strbuf.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diskstats.h"
#include "encode.h"
#include "encode_openmetrics.h"
#include "irqtab.h"
#include "metrics_proc.h"
#include "metrics_turbo.h"
#include "text.h"

#define SECTOR_BYTES 512 /* /proc/diskstats sectors are 512 bytes whatever the device */
#define USER_HZ	     100 /* /proc/stat ticks: USER_HZ is 100 on every Linux ABI */

const char *om_content_type(enum om_format f)
{
	return f == OM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				   : "text/plain; version=0.0.4; charset=utf-8";
}

/* The q of one Accept element ("...;q=0.5"); 1 when absent, 0 when malformed. */
static double accept_q(const char *p, const char *end)
{
	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));

		if (!semi)
			break;
		p = semi + 1;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
			char num[8];
			size_t n = (size_t)(end - p - 2);
			char *e;
			double q;

			if (n == 0 || n >= sizeof(num))
				return 0;
			memcpy(num, p + 2, n);
			num[n] = '\0';
			q = strtod(num, &e);
			while (*e == ' ' || *e == '\t')
				e++;
			return *e || !(q >= 0 && q <= 1) ? 0 : q;
		}
	}
	return 1;
}

enum om_format om_negotiate(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	const char *p = accept;

	if (!p)
		return OM_PROMETHEUS;
	while (*p) {
		const char *end = strchr(p, ',');
		const char *s = p;

		if (!end)
			end = p + strlen(p);
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if ((size_t)(end - s) >= sizeof(om) - 1 &&
		    strncasecmp(s, om, sizeof(om) - 1) == 0 &&
		    (s + sizeof(om) - 1 == end || s[sizeof(om) - 1] == ';' ||
		     s[sizeof(om) - 1] == ' ') &&
		    accept_q(s, end) > 0)
			return OM_OPENMETRICS;
		p = *end ? end + 1 : end;
	}
	return OM_PROMETHEUS;
}

/* ---- writing ---- */

struct om {
	struct strbuf *sb;
	enum om_format f;
	const regex_t *exclude; /* devices left out; NULL: none */
};

int om_exclude_compile(const char *pattern, regex_t **ret_re)
{
	regex_t *re;

	if (!*pattern) {
		*ret_re = NULL;
		return 0;
	}
	re = malloc(sizeof(*re));
	if (!re)
		return -ENOMEM;
	if (regcomp(re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
		free(re);
		return -EINVAL;
	}
	*ret_re = re;
	return 0;
}

void om_exclude_free(regex_t *re)
{
	if (!re)
		return;
	regfree(re);
	free(re);
}

/*
 * A family's header. name is the sample name without "_total"; counters
 * get the suffix on their samples (both formats) and OpenMetrics names the
 * family without it, 0.0.4 with it.
 */
static void family(struct om *o, const char *name, const char *type, const char *help)
{
	bool counter = strcmp(type, "counter") == 0;
	const char *sfx = counter && o->f == OM_PROMETHEUS ? "_total" : "";

	sb_printf(o->sb, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help, name, sfx, type);
}

/* A label value: \\, \" and \n escaped (both formats' rules), control bytes
 * and invalid UTF-8 (a hostile recorded tree's device name) as U+FFFD. */
static void label_value(struct strbuf *sb, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t left = strlen(v);
	uint32_t cp;

	while (left) {
		size_t run = 0, n;

		/* the common case: a run of plain ASCII, appended at once */
		while (run < left && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '\\' &&
		       s[run] != '"')
			run++;
		if (run) {
			sb_append(sb, (const char *)s, run);
			s += run;
			left -= run;
			continue;
		}
		n = text_utf8_seq((const char *)s, left, &cp);

		if (n == 0 || (n == 1 && (s[0] < 0x20 || s[0] == 0x7f))) {
			if (n == 1 && s[0] == '\n')
				sb_append(sb, "\\n", 2);
			else
				sb_append(sb, "\xef\xbf\xbd", 3);
			n = 1;
		} else if (n == 1 && (s[0] == '\\' || s[0] == '"')) {
			sb_putc(sb, '\\');
			sb_putc(sb, (char)s[0]);
		} else {
			sb_append(sb, (const char *)s, n);
		}
		s += n;
		left -= n;
	}
}

/* name{k="v",...}: labels as pairs, NULL-terminated. */
static void sample_start(struct om *o, const char *name, bool counter, const char *const *labels)
{
	sb_puts(o->sb, name);
	if (counter)
		sb_puts(o->sb, "_total");
	if (labels && labels[0]) {
		sb_putc(o->sb, '{');
		for (size_t i = 0; labels[i]; i += 2) {
			if (i)
				sb_putc(o->sb, ',');
			sb_puts(o->sb, labels[i]);
			sb_append(o->sb, "=\"", 2);
			label_value(o->sb, labels[i + 1] ? labels[i + 1] : "");
			sb_putc(o->sb, '"');
		}
		sb_putc(o->sb, '}');
	}
	sb_putc(o->sb, ' ');
}

static void sample_u64(struct om *o, const char *name, bool counter, const char *const *labels,
		       uint64_t v)
{
	sample_start(o, name, counter, labels);
	sb_u64(o->sb, v);
	sb_putc(o->sb, '\n');
}

static void sample_f(struct om *o, const char *name, bool counter, const char *const *labels,
		     double v)
{
	if (!isfinite(v))
		return; /* an unavailable value is no sample, never a NaN or a zero */
	sample_start(o, name, counter, labels);
	sb_printf(o->sb, "%.15g\n", v);
}

/* "whole.frac\n" with frac zero-padded to digits (1..6): exact decimal
 * seconds from integer counters, without printf on the hot path. */
static void sample_fixed(struct strbuf *sb, uint64_t whole, unsigned frac, unsigned digits)
{
	char f[8];

	sb_u64(sb, whole);
	f[0] = '.';
	for (unsigned i = digits; i > 0; i--) {
		f[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	f[digits + 1] = '\n';
	sb_append(sb, f, digits + 2);
}

/* A counter of milliseconds as seconds, exactly (no float rounding). */
static void sample_ms(struct om *o, const char *name, const char *const *labels, uint64_t ms)
{
	sample_start(o, name, true, labels);
	sample_fixed(o->sb, ms / 1000, (unsigned)(ms % 1000), 3);
}

/* Ticks of USER_HZ as seconds, exactly. */
static void sample_ticks(struct om *o, const char *name, const char *const *labels, uint64_t ticks)
{
	sample_start(o, name, true, labels);
	sample_fixed(o->sb, ticks / USER_HZ, (unsigned)(ticks % USER_HZ), 2);
}

/* ---- families ---- */

static void meta(struct om *o, const struct snapshot *cur)
{
	static const char *const build[] = { "version", IOTRIAGE_VERSION, NULL };

	family(o, "iotriage_build_info", "gauge", "iotriage's version; always 1.");
	sample_u64(o, "iotriage_build_info", false, build, 1);
	family(o, "iotriage_sample_number", "gauge",
	       "The daemon's sample number this exposition was rendered from.");
	sample_u64(o, "iotriage_sample_number", false, NULL, cur->id);
	family(o, "iotriage_sample_timestamp_seconds", "gauge",
	       "When that sample was taken (CLOCK_REALTIME).");
	sample_f(o, "iotriage_sample_timestamp_seconds", false, NULL, (double)cur->real_ns / 1e9);
	if (!cur->status[SRC_UPTIME].err) {
		/* the host's own clock: increase(counter) / delta(this) over a
		 * window is the counter's rate per second exactly as iostat
		 * takes it, whatever the scrape timing */
		family(o, "iotriage_host_uptime_seconds", "gauge",
		       "/proc/uptime of the sample: the interval sysstat divides by.");
		sample_start(o, "iotriage_host_uptime_seconds", false, NULL);
		sb_printf(o->sb, "%llu.%02u\n", (unsigned long long)(cur->uptime.uptime_cs / 100),
			  (unsigned)(cur->uptime.uptime_cs % 100));
	}
	family(o, "iotriage_source_up", "gauge",
	       "1 when the source was read in the sample, 0 when it is unavailable (the reason is "
	       "in iotriage status).");
	for (int s = 0; s < SRC__COUNT; s++) {
		const char *l[] = { "source", snapshot_source_name((enum src_id)s), NULL };

		sample_u64(o, "iotriage_source_up", false, l, cur->status[s].err == 0);
	}
	/* the CPU budget reads the optional sources every N samples: their
	 * counters here may be that old (doc/daemon.md, "CPU budget") */
	for (int k = 0, first = 1; k < CAD__COUNT; k++) {
		const struct src_cadence *c = &cur->cadence[k];
		const char *l[] = { "source", encode_cadence_name((enum cad_src)k), NULL };

		if (!c->every || !(k == CAD_TURBO ? cur->turbo != NULL : cur->workload != NULL) ||
		    !c->read_uptime_cs || c->read_uptime_cs > cur->uptime.uptime_cs)
			continue;
		if (first)
			family(o, "iotriage_source_age_seconds", "gauge",
			       "How old the optional source's counters are: the budget read it "
			       "that long before the sample.");
		first = 0;
		sample_f(o, "iotriage_source_age_seconds", false, l,
			 (double)(cur->uptime.uptime_cs - c->read_uptime_cs) / 100);
	}
}

struct disk_counter {
	const char *name;
	const char *help;
	int field;
	int min_counters; /* the diskstats width that has it */
	enum { DC_COUNT, DC_SECTORS, DC_MS } unit;
};

static const struct disk_counter disk_counters[] = {
	{ "iotriage_disk_reads_completed", "Reads completed (diskstats field 1).", DF_RD_IOS, 11,
	  DC_COUNT },
	{ "iotriage_disk_reads_merged", "Adjacent reads merged (field 2).", DF_RD_MERGES, 11,
	  DC_COUNT },
	{ "iotriage_disk_read_bytes", "Bytes read (field 3, sectors of 512 bytes).", DF_RD_SECTORS,
	  11, DC_SECTORS },
	{ "iotriage_disk_read_time_seconds", "Time spent by reads (field 4).", DF_RD_TICKS, 11,
	  DC_MS },
	{ "iotriage_disk_writes_completed", "Writes completed (field 5).", DF_WR_IOS, 11,
	  DC_COUNT },
	{ "iotriage_disk_writes_merged", "Adjacent writes merged (field 6).", DF_WR_MERGES, 11,
	  DC_COUNT },
	{ "iotriage_disk_written_bytes", "Bytes written (field 7).", DF_WR_SECTORS, 11,
	  DC_SECTORS },
	{ "iotriage_disk_write_time_seconds", "Time spent by writes (field 8).", DF_WR_TICKS, 11,
	  DC_MS },
	{ "iotriage_disk_io_time_seconds",
	  "Time the device had IO in flight (field 10): rate() is iostat's %util / 100.",
	  DF_IO_TICKS, 11, DC_MS },
	{ "iotriage_disk_io_time_weighted_seconds",
	  "IO time weighted by the IOs in flight (field 11): rate() is iostat's aqu-sz.",
	  DF_RQ_TICKS, 11, DC_MS },
	{ "iotriage_disk_discards_completed", "Discards completed (field 12).", DF_DC_IOS, 15,
	  DC_COUNT },
	{ "iotriage_disk_discards_merged", "Adjacent discards merged (field 13).", DF_DC_MERGES, 15,
	  DC_COUNT },
	{ "iotriage_disk_discarded_bytes", "Bytes discarded (field 14).", DF_DC_SECTORS, 15,
	  DC_SECTORS },
	{ "iotriage_disk_discard_time_seconds", "Time spent by discards (field 15).", DF_DC_TICKS,
	  15, DC_MS },
	{ "iotriage_disk_flush_requests", "Flush requests completed (field 16).", DF_FL_IOS, 17,
	  DC_COUNT },
	{ "iotriage_disk_flush_requests_time_seconds", "Time spent by flushes (field 17).",
	  DF_FL_TICKS, 17, DC_MS },
};

/* The disk families, without the excluded devices (each matched once). */
static int disks(struct om *o, const struct snapshot *cur)
{
	const struct disk_table *t = &cur->disks;
	bool *skip;

	if (cur->status[SRC_DISKSTATS].err || !t->n)
		return 0;
	skip = calloc(t->n, sizeof(*skip));
	if (!skip)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		skip[i] = o->exclude && regexec(o->exclude, t->rows[i].name, 0, NULL, 0) == 0;
	for (size_t k = 0; k < sizeof(disk_counters) / sizeof(disk_counters[0]); k++) {
		const struct disk_counter *dc = &disk_counters[k];
		bool any = false;

		for (size_t i = 0; i < t->n && !any; i++)
			any = !skip[i] && t->rows[i].ncounters >= dc->min_counters;
		if (!any)
			continue;
		family(o, dc->name, "counter", dc->help);
		for (size_t i = 0; i < t->n; i++) {
			const struct disk_raw *d = &t->rows[i];
			const char *l[] = { "device", d->name, NULL };
			uint64_t v = d->v[dc->field];

			if (skip[i] || d->ncounters < dc->min_counters)
				continue;
			if (dc->unit == DC_MS)
				sample_ms(o, dc->name, l, v);
			else
				sample_u64(o, dc->name, true, l,
					   dc->unit == DC_SECTORS ? v * SECTOR_BYTES : v);
		}
	}
	for (size_t i = 0, first = 1; i < t->n; i++) {
		const char *l[] = { "device", t->rows[i].name, NULL };

		if (skip[i])
			continue;
		if (first)
			family(o, "iotriage_disk_io_now", "gauge",
			       "IOs in flight (diskstats field 9).");
		first = 0;
		sample_u64(o, "iotriage_disk_io_now", false, l, t->rows[i].v[DF_IN_FLIGHT]);
	}
	free(skip);
	return 0;
}

static const char *const cpu_modes[CF__COUNT] = {
	[CF_USER] = "user",	[CF_NICE] = "nice", [CF_SYSTEM] = "system",   [CF_IDLE] = "idle",
	[CF_IOWAIT] = "iowait", [CF_IRQ] = "irq",   [CF_SOFTIRQ] = "softirq", [CF_STEAL] = "steal",
};

static void cpus(struct om *o, const struct snapshot *cur, const struct metrics *m)
{
	const struct stat_raw *st = &cur->stat;
	char num[16];

	if (cur->status[SRC_STAT].err || !st->ncpu)
		return;
	family(o, "iotriage_cpu_seconds", "counter",
	       "Time per CPU and mode, as /proc/stat counts it (user and nice include guest "
	       "time, as the kernel's do).");
	for (size_t i = 0; i < st->ncpu; i++) {
		const struct cpu_raw *c = &st->cpus[i];

		snprintf(num, sizeof(num), "%d", c->cpu);
		for (int f = 0; f <= CF_STEAL; f++) {
			const char *l[] = { "cpu", num, "mode", cpu_modes[f], NULL };

			if (f < c->ncounters)
				sample_ticks(o, "iotriage_cpu_seconds", l, c->v[f]);
		}
	}
	family(o, "iotriage_cpu_guest_seconds", "counter",
	       "Time per CPU running guests (mode user) and niced guests (mode nice).");
	for (size_t i = 0; i < st->ncpu; i++) {
		const struct cpu_raw *c = &st->cpus[i];

		snprintf(num, sizeof(num), "%d", c->cpu);
		for (int f = CF_GUEST; f <= CF_GUEST_NICE; f++) {
			const char *l[] = { "cpu", num, "mode", f == CF_GUEST ? "user" : "nice",
					    NULL };

			if (f < c->ncounters)
				sample_ticks(o, "iotriage_cpu_guest_seconds", l, c->v[f]);
		}
	}
	if (!m || !m->cpu_valid)
		return;
	family(o, "iotriage_cpu_irq_soft_ratio", "gauge",
	       "(%irq + %soft) / 100 of each CPU over the last interval (mpstat's numbers): the "
	       "share of a core spent in interrupt handlers and softirqs.");
	for (size_t i = 0; i < m->ncpu; i++) {
		const struct cpu_metrics *c = &m->cpus[i];
		const char *l[] = { "cpu", num, NULL };

		if (!c->valid)
			continue;
		snprintf(num, sizeof(num), "%d", c->cpu);
		sample_f(o, "iotriage_cpu_irq_soft_ratio", false, l, (c->irq + c->soft) / 100);
	}
}

/* Per-CPU sums of /proc/interrupts (mpstat -I SUM's per-CPU counts). The
 * table is row-major: summed row by row into one array, not column by
 * column across 2,000 rows (a cache miss each on a big host). */
static int interrupts(struct om *o, const struct snapshot *cur)
{
	const struct irq_table *t = &cur->irqs;
	uint64_t *sum;
	char num[16];

	if (cur->status[SRC_INTERRUPTS].err || !t->ncpu)
		return 0;
	sum = calloc(t->ncpu, sizeof(*sum));
	if (!sum)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const uint64_t *c = &t->counts[t->rows[i].counts_off];

		if (t->rows[i].percpu_counts)
			for (size_t col = 0; col < t->ncpu; col++)
				sum[col] += c[col];
	}
	family(o, "iotriage_cpu_interrupts", "counter",
	       "Interrupts taken by each CPU: the sum of its /proc/interrupts column.");
	for (size_t col = 0; col < t->ncpu; col++) {
		const char *l[] = { "cpu", num, NULL };

		snprintf(num, sizeof(num), "%d", t->cpu_ids[col]);
		sample_u64(o, "iotriage_cpu_interrupts", true, l, sum[col]);
	}
	free(sum);
	return 0;
}

static void softirqs(struct om *o, const struct snapshot *cur)
{
	const struct irq_table *t = &cur->softirqs;
	char num[16];

	if (cur->status[SRC_SOFTIRQS].err || !t->ncpu)
		return;
	family(o, "iotriage_softirqs", "counter",
	       "Softirqs run per CPU and type (/proc/softirqs).");
	for (size_t i = 0; i < t->n; i++) {
		const struct irq_row *r = &t->rows[i];

		if (!r->percpu_counts)
			continue;
		for (size_t col = 0; col < t->ncpu; col++) {
			const char *l[] = { "cpu", num, "type", r->label, NULL };

			snprintf(num, sizeof(num), "%d", t->cpu_ids[col]);
			sample_u64(o, "iotriage_softirqs", true, l, t->counts[r->counts_off + col]);
		}
	}
}

/*
 * Every IRQ line's count summed over CPUs, as a counter keyed by the line
 * and its actions only: the set of series is the set of lines in
 * /proc/interrupts, whatever the load (no ranking, no "which CPU" label
 * that would make series come and go with each scrape). rate() of it is
 * mpstat -I's per-line number; per CPU the load is in
 * iotriage_cpu_interrupts_total and the softirq counters, and one series
 * per line and CPU (node_exporter's interrupts collector, off by default
 * for it) would be lines x CPUs.
 */
static void irq_lines(struct om *o, const struct snapshot *cur)
{
	const struct irq_table *t = &cur->irqs;

	if (cur->status[SRC_INTERRUPTS].err || !t->n)
		return;
	family(o, "iotriage_irq_interrupts", "counter",
	       "Interrupts of each /proc/interrupts line, summed over CPUs (devices: its "
	       "actions, as node_exporter labels them).");
	for (size_t i = 0; i < t->n; i++) {
		const struct irq_row *r = &t->rows[i];
		const char *l[] = { "irq", r->label, "devices", r->actions, NULL };

		sample_u64(o, "iotriage_irq_interrupts", true, l, r->total);
	}
}

static void findings(struct om *o, const struct advice *a)
{
	unsigned count[ADV_CRITICAL + 1] = { 0 };

	family(o, "iotriage_finding", "gauge",
	       "1 while a finding stands (doc/advise.md): a hot core, a saturated or slow disk, "
	       "writeback throttling, ...");
	for (size_t i = 0; i < a->nfindings; i++) {
		const struct finding *f = &a->findings[i];
		const char *l[] = { "id",	f->id,
				    "kind",	advise_kind_name(f->kind),
				    "severity", advise_severity_name(f->severity),
				    "subject",	f->subject,
				    NULL };

		sample_u64(o, "iotriage_finding", false, l, 1);
		if (f->severity <= ADV_CRITICAL)
			count[f->severity]++;
	}
	family(o, "iotriage_findings", "gauge", "Findings standing, per severity.");
	for (int s = 0; s <= ADV_CRITICAL; s++) {
		const char *l[] = { "severity", advise_severity_name((enum advise_severity)s),
				    NULL };

		sample_u64(o, "iotriage_findings", false, l, count[s]);
	}
}

/* The hot cores' share: the cpu_irq_soft_ratio of the CPUs a hot-cpu
 * finding names, so an alert needs no threshold of its own. */
/* The irq+soft share of cpu the advisor judged by: measured by the tracing
 * stage when its hardirq and softirq probes ran (advise_run() with trace),
 * else mpstat's. */
static double judged_share(const struct cpu_metrics *c, const struct trace_metrics *tm)
{
	double us;

	if (!tm || !tm->on[TRACE_HARDIRQ] || !tm->on[TRACE_SOFTIRQ] || !tm->hard_us_s ||
	    !tm->soft_us_s || c->cpu < 0 || (uint32_t)c->cpu >= tm->ncpu)
		return (c->irq + c->soft) / 100;
	us = tm->hard_us_s[c->cpu];
	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		us += tm->soft_us_s[(size_t)c->cpu * TRACE_NR_SOFTIRQS + v];
	return us / 1e6;
}

static void hot_cores(struct om *o, const struct metrics *m, const struct advice *a,
		      const struct trace_metrics *tm)
{
	bool header = false;

	for (size_t i = 0; i < a->nfindings; i++) {
		const struct finding *f = &a->findings[i];
		char *end;
		long cpu;

		if (f->kind != FIND_HOT_CPU || strncmp(f->subject, "cpu", 3) != 0)
			continue;
		cpu = strtol(f->subject + 3, &end, 10);
		if (*end || end == f->subject + 3)
			continue;
		for (size_t k = 0; k < m->ncpu; k++) {
			const struct cpu_metrics *c = &m->cpus[k];
			const char *l[] = { "cpu", f->subject + 3, NULL };

			if (c->cpu != cpu || !c->valid)
				continue;
			if (!header) {
				family(o, "iotriage_hot_cpu_irq_soft_ratio", "gauge",
				       "(%irq + %soft) / 100 of each CPU a hot-cpu finding names "
				       "(with --trace, its measured hardirq + softirq time).");
				header = true;
			}
			sample_f(o, "iotriage_hot_cpu_irq_soft_ratio", false, l,
				 judged_share(c, tm));
		}
	}
}

static void pressure(struct om *o, const struct snapshot *cur)
{
	const struct pressure_raw *p = cur->workload ? &cur->workload->pressure : NULL;
	bool header = false;

	if (!p)
		return;
	for (int r = 0; r < PSI__COUNT; r++) {
		const struct psi_raw *pr = &p->res[r];

		if (pr->status.err)
			continue;
		for (int k = 0; k < 2; k++) {
			const struct psi_line *ln = k ? &pr->full : &pr->some;
			const char *l[] = { "resource", pressure_name((enum psi_res)r), "kind",
					    k ? "full" : "some", NULL };

			if (!ln->present)
				continue;
			if (!header) {
				family(o, "iotriage_pressure_stalled_seconds", "counter",
				       "Stall time from /proc/pressure (PSI): some or all "
				       "non-idle tasks waiting on the resource.");
				header = true;
			}
			sample_start(o, "iotriage_pressure_stalled_seconds", true, l);
			sb_printf(o->sb, "%llu.%06u\n",
				  (unsigned long long)(ln->total_us / 1000000),
				  (unsigned)(ln->total_us % 1000000));
		}
	}
}

static void writeback(struct om *o, const struct snapshot *cur, const struct metrics *m)
{
	const struct writeback_raw *w = cur->workload ? &cur->workload->writeback : NULL;

	if (!w || !w->has_vmstat || !w->page_size)
		return;
	family(o, "iotriage_writeback_dirty_bytes", "gauge",
	       "Dirty page cache waiting for writeback (vmstat nr_dirty).");
	sample_u64(o, "iotriage_writeback_dirty_bytes", false, NULL, w->nr_dirty * w->page_size);
	family(o, "iotriage_writeback_writeback_bytes", "gauge",
	       "Page cache under writeback now (vmstat nr_writeback).");
	sample_u64(o, "iotriage_writeback_writeback_bytes", false, NULL,
		   w->nr_writeback * w->page_size);
	if (w->has_thresholds) {
		family(o, "iotriage_writeback_dirty_threshold_bytes", "gauge",
		       "Dirty level where writers block (vm.dirty_ratio/bytes applied).");
		sample_u64(o, "iotriage_writeback_dirty_threshold_bytes", false, NULL,
			   w->nr_dirty_threshold * w->page_size);
		family(o, "iotriage_writeback_dirty_background_threshold_bytes", "gauge",
		       "Dirty level where background writeback starts.");
		sample_u64(o, "iotriage_writeback_dirty_background_threshold_bytes", false, NULL,
			   w->nr_dirty_bg_threshold * w->page_size);
	}
	if (!m || !m->workload || m->workload->wb_state == WB_UNKNOWN)
		return;
	/* an enum as one 0/1 series per state (the 0.0.4 habit; OpenMetrics'
	 * stateset would not parse in the text format) */
	family(o, "iotriage_writeback_state", "gauge",
	       "1 for the state dirty page cache is in (below-background, background, throttled: "
	       "writers sleep in balance_dirty_pages, blocked), 0 for the others.");
	for (int st = WB_BELOW_BACKGROUND; st <= WB_BLOCKED; st++) {
		const char *l[] = { "state", metrics_proc_wb_state_name((enum wb_state)st), NULL };

		sample_u64(o, "iotriage_writeback_state", false, l,
			   (int)m->workload->wb_state == st);
	}
}

/* turbostat's columns in base units: MHz as hertz, % as ratios. */
struct om_turbo_col {
	const char *name;
	double scale;
	const char *help;
};

static const struct om_turbo_col om_turbo_cols[TC__COUNT] = {
	[TC_AVG_MHZ] = { "iotriage_turbostat_avg_hertz", 1e6, "turbostat Avg_MHz." },
	[TC_BUSY] = { "iotriage_turbostat_busy_ratio", 0.01, "turbostat Busy% / 100." },
	[TC_BZY_MHZ] = { "iotriage_turbostat_busy_hertz", 1e6, "turbostat Bzy_MHz." },
	[TC_TSC_MHZ] = { "iotriage_turbostat_tsc_hertz", 1e6, "turbostat TSC_MHz." },
	/* IRQ and SMI are counts, exported as counters (rate() is turbostat's
	 * number): iotriage_cpu_interrupts_total, iotriage_turbostat_smi_total */
	[TC_C1] = { "iotriage_turbostat_cpu_c1_ratio", 0.01, "turbostat CPU%c1 / 100." },
	[TC_C3] = { "iotriage_turbostat_cpu_c3_ratio", 0.01, "turbostat CPU%c3 / 100." },
	[TC_C6] = { "iotriage_turbostat_cpu_c6_ratio", 0.01, "turbostat CPU%c6 / 100." },
	[TC_C7] = { "iotriage_turbostat_cpu_c7_ratio", 0.01, "turbostat CPU%c7 / 100." },
	[TC_CORETMP] = { "iotriage_turbostat_core_temperature_celsius", 1, "turbostat CoreTmp." },
	[TC_PKGTMP] = { "iotriage_turbostat_pkg_temperature_celsius", 1, "turbostat PkgTmp." },
	[TC_PC2] = { "iotriage_turbostat_pkg_pc2_ratio", 0.01, "turbostat Pkg%pc2 / 100." },
	[TC_PC3] = { "iotriage_turbostat_pkg_pc3_ratio", 0.01, "turbostat Pkg%pc3 / 100." },
	[TC_PC6] = { "iotriage_turbostat_pkg_pc6_ratio", 0.01, "turbostat Pkg%pc6 / 100." },
	[TC_PC7] = { "iotriage_turbostat_pkg_pc7_ratio", 0.01, "turbostat Pkg%pc7 / 100." },
	[TC_PKGWATT] = { "iotriage_turbostat_pkg_watts", 1, "turbostat PkgWatt." },
	[TC_CORWATT] = { "iotriage_turbostat_core_watts", 1, "turbostat CorWatt." },
	[TC_RAMWATT] = { "iotriage_turbostat_ram_watts", 1, "turbostat RAMWatt." },
	[TC_PKG_PCT] = { "iotriage_turbostat_pkg_throttled_ratio", 0.01,
			 "turbostat PKG_% / 100: time the package was power-limited." },
	[TC_RAM_PCT] = { "iotriage_turbostat_ram_throttled_ratio", 0.01,
			 "turbostat RAM_% / 100: time DRAM was power-limited." },
};

/* MSR_SMI_COUNT of each CPU as read, a counter (32 bits wide: rate() takes
 * its wrap for a reset), labelled as the turbostat gauges. */
static void turbo_smi(struct om *o, const struct turbo_raw *t)
{
	bool header = false;

	for (size_t i = 0; i < t->ncpu; i++) {
		const struct turbo_cpu_raw *c = &t->cpus[i];
		char cpu[16], core[16], pkg[16];
		const char *l[] = { "cpu", cpu, "core", core, "package", pkg, NULL };

		if (!(c->have & TR_SMI))
			continue;
		if (!header)
			family(o, "iotriage_turbostat_smi", "counter",
			       "System management interrupts (MSR_SMI_COUNT, 32 bits): each stalls "
			       "every core; rate() is turbostat SMI per second.");
		header = true;
		snprintf(cpu, sizeof(cpu), "%d", c->cpu);
		snprintf(core, sizeof(core), "%d", c->core_id);
		snprintf(pkg, sizeof(pkg), "%d", c->pkg_id);
		sample_u64(o, "iotriage_turbostat_smi", true, l, (uint32_t)c->smi);
	}
}

/* Gauges per CPU row (a package or core column only on the row turbostat
 * prints it on), labelled with the row's cpu, core and package. */
static void turbo(struct om *o, const struct turbo_metrics *t)
{
	if (!t->available)
		return;
	for (int c = 0; c < TC__COUNT; c++) {
		const struct om_turbo_col *tf = &om_turbo_cols[c];
		bool header = false;

		if (!(t->cols & (1u << c)) || !tf->name)
			continue;
		for (size_t i = 0; i < t->nrows; i++) {
			const struct turbo_row *row = &t->rows[i];
			char cpu[16], core[16], pkg[16];
			const char *l[] = { "cpu", cpu, "core", core, "package", pkg, NULL };
			double v;

			if (!row->valid || !(row->have & (1u << c)))
				continue;
			v = row->v[c] * tf->scale;
			if (!header) {
				family(o, tf->name, "gauge", tf->help);
				header = true;
			}
			snprintf(cpu, sizeof(cpu), "%d", row->cpu);
			snprintf(core, sizeof(core), "%d", row->core);
			snprintf(pkg, sizeof(pkg), "%d", row->pkg);
			sample_f(o, tf->name, false, l, v);
		}
	}
}

/* ---- the tracing stage (--trace, doc/trace.md) ---- */

/* Nanoseconds as seconds, exactly to the microsecond. */
static void sample_ns(struct om *o, const char *name, bool counter, const char *const *labels,
		      uint64_t ns)
{
	uint64_t us = ns / 1000;

	sample_start(o, name, counter, labels);
	sample_fixed(o->sb, us / 1000000, (unsigned)(us % 1000000), 6);
}

/*
 * The histogram's bucket bounds: a fixed subset of the stage's log2
 * buckets, every fourfold from 16 µs to 4.19 s (doc/prometheus.md), the
 * same for every series whatever the load. Bucket le = 2^k µs counts the
 * slots below k (slot i holds [2^i, 2^(i+1)) µs), exactly.
 */
static const struct om_le {
	unsigned k;
	const char *le;
} om_lat_le[] = {
	{ 4, "1.6e-05" },   { 6, "6.4e-05" },	{ 8, "0.000256" },  { 10, "0.001024" },
	{ 12, "0.004096" }, { 14, "0.016384" }, { 16, "0.065536" }, { 18, "0.262144" },
	{ 20, "1.048576" }, { 22, "4.194304" },
};

static void trace_probes(struct om *o, const struct trace_raw *r, const struct trace_metrics *m)
{
	family(o, "iotriage_trace_probe_on", "gauge",
	       "1 while the tracing probe is attached and read, 0 when it is off (the reason is in "
	       "the sample's trace.probes).");
	for (int k = 0; k < TRACE__COUNT; k++) {
		const char *l[] = { "probe", trace_probe_name((enum trace_probe)k), NULL };

		sample_u64(o, "iotriage_trace_probe_on", false, l,
			   r->probe[k].on && r->probe[k].read);
	}
	for (int k = 0, first = 1; m && k < TRACE__COUNT; k++) {
		const char *l[] = { "probe", trace_probe_name((enum trace_probe)k), NULL };

		if (m->probe_cpu_pct[k] < 0)
			continue; /* not measured: no BPF run-time stats */
		if (first)
			family(
			    o, "iotriage_trace_probe_cpu_ratio", "gauge",
			    "Share of one CPU the probe's BPF programs ran over the last interval "
			    "(its cpu_pct / 100; the budget switches it off above "
			    "--trace-budget).");
		first = 0;
		sample_f(o, "iotriage_trace_probe_cpu_ratio", false, l, m->probe_cpu_pct[k] / 100);
	}
}

/* Softirq time per CPU and vector, labelled as iotriage_softirqs_total: the
 * CPUs of the sample's /proc/softirqs (its online CPUs), else every CPU the
 * stage counted time on. */
static void trace_softirqs(struct om *o, const struct snapshot *cur, const struct trace_raw *r)
{
	const struct irq_table *t = &cur->softirqs;
	bool table = !cur->status[SRC_SOFTIRQS].err && t->ncpu;
	size_t n = table ? t->ncpu : r->ncpu;
	char num[16];

	if (!r->probe[TRACE_SOFTIRQ].read || !r->soft_ns)
		return;
	family(o, "iotriage_trace_softirq_seconds", "counter",
	       "Time spent in softirq handlers per CPU and type (irq:softirq_entry/exit), since "
	       "the tracing stage was loaded: rate() is the share of the CPU.");
	for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
		for (size_t i = 0; i < n; i++) {
			int cpu = table ? t->cpu_ids[i] : (int)i;
			const char *l[] = { "cpu", num, "type", trace_softirq_name(v), NULL };
			uint64_t ns;

			if (cpu < 0 || (uint32_t)cpu >= r->ncpu)
				continue;
			ns = r->soft_ns[(size_t)cpu * TRACE_NR_SOFTIRQS + v];
			if (!table && !ns)
				continue;
			snprintf(num, sizeof(num), "%d", cpu);
			sample_ns(o, "iotriage_trace_softirq_seconds", true, l, ns);
		}
}

/* Hardirq time per IRQ line summed over CPUs, keyed as
 * iotriage_irq_interrupts_total (the line and its actions). */
static void trace_hardirqs(struct om *o, const struct snapshot *cur, const struct trace_raw *r)
{
	char num[16];

	if (!r->probe[TRACE_HARDIRQ].read || !r->nirq)
		return;
	family(o, "iotriage_trace_hardirq_seconds", "counter",
	       "Time spent in each IRQ line's handlers, summed over CPUs "
	       "(irq:irq_handler_entry/exit), since the tracing stage was loaded.");
	for (size_t i = 0; i < r->nirq; i++) {
		const struct irq_row *row;
		const char *l[] = { "irq", num, "devices", "", NULL };
		uint64_t ns = 0;

		snprintf(num, sizeof(num), "%u", r->irq[i]);
		row =
		    cur->status[SRC_INTERRUPTS].err ? NULL : irq_table_find(&cur->irqs, num, NULL);
		if (row)
			l[3] = row->actions;
		for (size_t k = 0; k < r->ncpu; k++)
			ns += r->irq_ns[i * r->ncpu + k];
		sample_ns(o, "iotriage_trace_hardirq_seconds", true, l, ns);
	}
}

/* IO latency per disk, op and stage as a Prometheus histogram. */
static void trace_latency(struct om *o, const struct snapshot *cur, const struct trace_raw *r)
{
	static const char *const stage[TRACE_LAT__COUNT] = { "queued", "device" };
	const char *const name = "iotriage_trace_io_latency_seconds";
	bool first = true;

	if (!r->probe[TRACE_BLOCK].read)
		return;
	for (size_t i = 0; i < r->nlat; i++) {
		const struct trace_lat_raw *h = &r->lat[i];
		const struct disk_raw *d = disk_table_find(&cur->disks, h->major, h->minor, NULL);
		const char *l[] = { "device", "",
				    "op",     trace_op_name(h->op),
				    "stage",  stage[h->kind < TRACE_LAT__COUNT ? h->kind : 0],
				    "le",     "",
				    NULL };
		uint64_t cum = 0, total = 0;
		size_t slot = 0;
		char bucket[80];

		/* a disk the sample does not list has no name to join on */
		if (!d || (o->exclude && regexec(o->exclude, d->name, 0, NULL, 0) == 0))
			continue;
		l[1] = d->name;
		if (first)
			family(o, name, "histogram",
			       "IO latency per device, op (read, write, flush, discard) and stage "
			       "(queued: insert to issue; device: issue to completion), since the "
			       "tracing stage was loaded (block:block_rq_insert/issue/complete).");
		first = false;
		for (size_t k = 0; k < TRACE_HIST_SLOTS; k++)
			total += h->slots[k];
		snprintf(bucket, sizeof(bucket), "%s_bucket", name);
		for (size_t b = 0; b < sizeof(om_lat_le) / sizeof(om_lat_le[0]); b++) {
			for (; slot < om_lat_le[b].k; slot++)
				cum += h->slots[slot];
			l[7] = om_lat_le[b].le;
			sample_u64(o, bucket, false, l, cum);
		}
		l[7] = "+Inf";
		sample_u64(o, bucket, false, l, total);
		l[6] = NULL; /* _sum and _count without le */
		snprintf(bucket, sizeof(bucket), "%s_sum", name);
		sample_ns(o, bucket, false, l, h->sum_ns);
		snprintf(bucket, sizeof(bucket), "%s_count", name);
		sample_u64(o, bucket, false, l, total);
	}
}

static void trace_families(struct om *o, const struct snapshot *cur, const struct trace_raw *r,
			   const struct trace_metrics *m)
{
	if (!r || !r->valid)
		return;
	trace_probes(o, r, m);
	trace_softirqs(o, cur, r);
	trace_hardirqs(o, cur, r);
	trace_latency(o, cur, r);
}

int om_render(struct strbuf *sb, const struct snapshot *cur, const struct metrics *m,
	      const struct advice *a, const struct om_opts *opts)
{
	struct om o = { sb, opts->format, opts->device_exclude };
	int r = 0;

	meta(&o, cur);
	r = disks(&o, cur);
	cpus(&o, cur, m);
	if (r >= 0)
		r = interrupts(&o, cur);
	softirqs(&o, cur);
	irq_lines(&o, cur);
	if (r >= 0 && a) {
		findings(&o, a);
		if (m)
			hot_cores(&o, m, a, opts->trace_m);
	}
	pressure(&o, cur);
	writeback(&o, cur, m);
	if (cur->turbo)
		turbo_smi(&o, cur->turbo);
	if (r >= 0 && m && m->turbo)
		turbo(&o, m->turbo);
	trace_families(&o, cur, opts->trace, opts->trace_m);
	if (o.f == OM_OPENMETRICS)
		sb_puts(sb, "# EOF\n");
	if (r >= 0 && sb->err)
		r = sb->err;
	return r;
}
