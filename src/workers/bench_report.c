// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Formatting of bench results (see bench_report.h). fio's JSON keys and
 * units: bw in KiB/s, bw_bytes in bytes/s, runtime in ms, latencies in ns,
 * percentile keys printed "%f". Text follows fio's normal output layout.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench_report.h"

static const char *const ddir_key[DDIR__COUNT] = { "read", "write" };

double bench_result_lat_ms(const struct job_result *r, int ddir)
{
	struct histogram_summary s;

	histogram_summary_init(&s);
	for (int d = 0; d < DDIR__COUNT; d++)
		if (ddir < 0 || ddir == d)
			histogram_summary_merge(&s, &r->dir[d].lat);
	return s.n ? s.mean_ns / 1e6 : 0.0;
}

static double total_iops(const struct job_result *r)
{
	return job_result_iops(r, DDIR_READ) + job_result_iops(r, DDIR_WRITE);
}

static double total_bw(const struct job_result *r)
{
	return job_result_bw(r, DDIR_READ) + job_result_bw(r, DDIR_WRITE);
}

static void json_num(struct strbuf *sb, const char *key, double v)
{
	sb_json_key(sb, key);
	if (!isfinite(v))
		sb_puts(sb, "null");
	else
		sb_printf(sb, "%.6f", v);
}

static void json_u64(struct strbuf *sb, const char *key, uint64_t v)
{
	sb_json_key(sb, key);
	sb_u64(sb, v);
}

static void json_summary(struct strbuf *sb, const char *key, const struct histogram_summary *s,
			 const struct histogram *h)
{
	sb_json_key(sb, key);
	sb_putc(sb, '{');
	json_u64(sb, "min", s->n ? s->min_ns : 0);
	sb_putc(sb, ',');
	json_u64(sb, "max", s->max_ns);
	sb_putc(sb, ',');
	json_num(sb, "mean", s->n ? s->mean_ns : 0.0);
	sb_putc(sb, ',');
	json_num(sb, "stddev", histogram_summary_stddev(s));
	sb_putc(sb, ',');
	json_u64(sb, "N", s->n);
	if (h && s->n) {
		sb_puts(sb, ",\"percentile\":{");
		for (int i = 0; i < HISTOGRAM_NPCT; i++) {
			sb_printf(sb, "%s\"%f\":", i ? "," : "", histogram_default_pcts[i]);
			sb_u64(sb, histogram_percentile(h, histogram_default_pcts[i]));
		}
		sb_putc(sb, '}');
	}
	sb_putc(sb, '}');
}

/* Per-second samples of one direction: min, max, mean, population stdev. */
struct samples {
	double min, max, mean, dev;
	unsigned n;
};

static void sec_samples(const struct job_result *r, enum job_ddir d, bool bytes,
			struct samples *ret)
{
	struct samples s = { 0 };
	double sum = 0, sq = 0;
	/* the last second is partial: leave it out unless it is the only one */
	unsigned n = r->nsec > 1 ? r->nsec - 1 : r->nsec;

	for (unsigned i = 0; i < n; i++) {
		double v = bytes ? (double)r->sec[i].bytes[d] / 1024.0 : (double)r->sec[i].ios[d];

		if (!s.n || v < s.min)
			s.min = v;
		if (!s.n || v > s.max)
			s.max = v;
		sum += v;
		sq += v * v;
		s.n++;
	}
	if (s.n) {
		s.mean = sum / s.n;
		s.dev = s.n > 1 ? sqrt(fmax(0.0, sq / s.n - s.mean * s.mean)) : 0.0;
	}
	*ret = s;
}

/* fio's per-second statistics of one kind (prefix "bw" or "iops"): _min,
 * _max, the group share (bw_agg) when given, _mean, the deviation (_dev
 * or _stddev, as fio names each) and _samples. */
static void json_samples(struct strbuf *sb, const char *prefix, const struct samples *s,
			 const double *agg, const char *dev)
{
	char key[32];

	snprintf(key, sizeof(key), "%s_min", prefix);
	json_u64(sb, key, (uint64_t)llround(s->min));
	sb_putc(sb, ',');
	snprintf(key, sizeof(key), "%s_max", prefix);
	json_u64(sb, key, (uint64_t)llround(s->max));
	sb_putc(sb, ',');
	if (agg) {
		snprintf(key, sizeof(key), "%s_agg", prefix);
		json_num(sb, key, *agg);
		sb_putc(sb, ',');
	}
	snprintf(key, sizeof(key), "%s_mean", prefix);
	json_num(sb, key, s->mean);
	sb_putc(sb, ',');
	snprintf(key, sizeof(key), "%s_%s", prefix, dev);
	json_num(sb, key, s->dev);
	sb_putc(sb, ',');
	snprintf(key, sizeof(key), "%s_samples", prefix);
	json_u64(sb, key, s->n);
}

static void json_dir(struct strbuf *sb, const struct job_result *r, enum job_ddir d,
		     double group_bw)
{
	const struct job_dir_stats *st = &r->dir[d];
	struct samples bw, io;
	double b = job_result_bw(r, d), agg;

	sec_samples(r, d, true, &bw);
	sec_samples(r, d, false, &io);
	sb_json_key(sb, ddir_key[d]);
	sb_putc(sb, '{');
	json_u64(sb, "io_bytes", st->bytes);
	sb_putc(sb, ',');
	json_u64(sb, "io_kbytes", st->bytes / 1024);
	sb_putc(sb, ',');
	json_u64(sb, "bw_bytes", (uint64_t)llround(b));
	sb_putc(sb, ',');
	json_u64(sb, "bw", (uint64_t)llround(b / 1024.0));
	sb_putc(sb, ',');
	json_num(sb, "iops", job_result_iops(r, d));
	sb_putc(sb, ',');
	json_u64(sb, "runtime", st->ios ? (r->runtime_ns + 500000) / 1000000 : 0);
	sb_putc(sb, ',');
	json_u64(sb, "total_ios", st->ios);
	sb_putc(sb, ',');
	json_u64(sb, "short_ios", st->short_ios);
	sb_puts(sb, ",\"drop_ios\":0,");
	json_summary(sb, "slat_ns", &st->slat, NULL);
	sb_putc(sb, ',');
	json_summary(sb, "clat_ns", &st->clat.sum, &st->clat);
	sb_putc(sb, ',');
	json_summary(sb, "lat_ns", &st->lat, NULL);
	sb_putc(sb, ',');
	agg = group_bw > 0 ? b / group_bw * 100.0 : 0.0;
	json_samples(sb, "bw", &bw, &agg, "dev");
	sb_putc(sb, ',');
	json_samples(sb, "iops", &io, NULL, "stddev");
	sb_putc(sb, '}');
}

static void json_str_kv(struct strbuf *sb, const char *key, const char *v)
{
	sb_json_key(sb, key);
	sb_json_str(sb, v);
}

static void json_job_options(struct strbuf *sb, const struct job_spec *s, unsigned iodepth)
{
	char v[64];

	sb_puts(sb, "\"job options\":{");
	json_str_kv(sb, "name", s->name);
	sb_putc(sb, ',');
	json_str_kv(sb, "filename", s->filename);
	sb_putc(sb, ',');
	json_str_kv(sb, "ioengine", job_engine_name(s->engine));
	sb_putc(sb, ',');
	json_str_kv(sb, "rw", job_rw_name(s->rw));
	snprintf(v, sizeof(v), "%llu", (unsigned long long)s->bs);
	sb_putc(sb, ',');
	json_str_kv(sb, "bs", v);
	snprintf(v, sizeof(v), "%u", iodepth);
	sb_putc(sb, ',');
	json_str_kv(sb, "iodepth", v);
	snprintf(v, sizeof(v), "%u", s->numjobs);
	sb_putc(sb, ',');
	json_str_kv(sb, "numjobs", v);
	snprintf(v, sizeof(v), "%d", s->direct);
	sb_putc(sb, ',');
	json_str_kv(sb, "direct", v);
	if (s->rw == RW_RW || s->rw == RW_RANDRW) {
		snprintf(v, sizeof(v), "%u", s->rwmixread);
		sb_putc(sb, ',');
		json_str_kv(sb, "rwmixread", v);
	}
	if (s->runtime_ns) {
		snprintf(v, sizeof(v), "%llums", (unsigned long long)(s->runtime_ns / 1000000));
		sb_putc(sb, ',');
		json_str_kv(sb, "runtime", v);
	}
	if (s->time_based)
		sb_puts(sb, ",\"time_based\":\"\"");
	sb_putc(sb, '}');
}

static void json_timeline(struct strbuf *sb, const struct job_result *r)
{
	sb_puts(sb, "\"timeline\":[");
	for (unsigned i = 0; i < r->nsec; i++) {
		const struct job_second *s = &r->sec[i];

		sb_printf(sb, "%s{\"second\":%u,", i ? "," : "", i + 1);
		json_u64(sb, "read_ios", s->ios[DDIR_READ]);
		sb_putc(sb, ',');
		json_u64(sb, "write_ios", s->ios[DDIR_WRITE]);
		sb_putc(sb, ',');
		json_u64(sb, "read_bytes", s->bytes[DDIR_READ]);
		sb_putc(sb, ',');
		json_u64(sb, "write_bytes", s->bytes[DDIR_WRITE]);
		sb_putc(sb, '}');
	}
	sb_putc(sb, ']');
}

static void json_job(struct strbuf *sb, const struct job_spec *s, const struct job_result *r,
		     double group_bw)
{
	double rt = (double)r->runtime_ns;

	sb_putc(sb, '{');
	json_str_kv(sb, "jobname", r->name);
	sb_puts(sb, ",\"groupid\":0,");
	sb_json_key(sb, "error");
	sb_i64(sb, -r->error);
	sb_putc(sb, ',');
	json_job_options(sb, s, r->iodepth);
	for (int d = 0; d < DDIR__COUNT; d++) {
		sb_putc(sb, ',');
		json_dir(sb, r, d, group_bw);
	}
	sb_puts(sb, ",\"sync\":{");
	json_u64(sb, "total_ios", r->sync.n);
	sb_putc(sb, ',');
	json_summary(sb, "lat_ns", &r->sync, NULL);
	sb_puts(sb, "},");
	json_u64(sb, "job_runtime", (r->runtime_ns + 500000) / 1000000);
	sb_putc(sb, ',');
	/* fio: CPU time over the job's runtime, summed over the job's threads */
	json_num(sb, "usr_cpu", rt > 0 ? (double)r->usr_ns * 100.0 / rt : 0.0);
	sb_putc(sb, ',');
	json_num(sb, "sys_cpu", rt > 0 ? (double)r->sys_ns * 100.0 / rt : 0.0);
	sb_putc(sb, ',');
	json_u64(sb, "ctx", r->ctx);
	sb_putc(sb, ',');
	json_u64(sb, "majf", r->majf);
	sb_putc(sb, ',');
	json_u64(sb, "minf", r->minf);
	sb_puts(sb, ",\"iotriage\":{");
	json_u64(sb, "threads", r->njobs);
	sb_putc(sb, ',');
	json_u64(sb, "iodepth", r->iodepth);
	if (r->error) {
		sb_putc(sb, ',');
		json_str_kv(sb, "error_what", r->error_what);
		sb_putc(sb, ',');
		json_str_kv(sb, "error_message", strerror(-r->error));
	}
	sb_putc(sb, ',');
	json_num(sb, "clat_percentile_rel_error", HISTOGRAM_REL_ERROR);
	sb_putc(sb, ',');
	json_timeline(sb, r);
	sb_puts(sb, "}}");
}

static double group_bw_of(const struct job_result *rs, unsigned n)
{
	double bw = 0;

	for (unsigned i = 0; i < n; i++)
		bw += total_bw(&rs[i]);
	return bw;
}

/* Sum of every result's IOPS and bytes/s: what the whole run delivered. */
static void run_totals(const struct job_result *rs, unsigned n, double *ret_iops, double *ret_bw)
{
	double iops = 0;

	for (unsigned i = 0; i < n; i++)
		iops += total_iops(&rs[i]);
	*ret_iops = iops;
	*ret_bw = group_bw_of(rs, n);
}

struct expectation {
	bool any;
	double iops, mbps; /* 0 = not expected */
	char source[96];
};

static void expectation_of(const struct job_spec *s, struct expectation *ret)
{
	struct expectation e = { 0 };
	struct expect_limits l;

	if (s->cloud != CLOUD_NONE && expect_cloud_limits(s->cloud, s->cloud_gb, &l) == 0) {
		e.any = true;
		e.iops = l.iops;
		e.mbps = l.mbps;
		snprintf(e.source, sizeof(e.source), "cloud-disk %s, %g GB",
			 expect_cloud_name(s->cloud), s->cloud_gb);
	} else if (s->expect_iops > 0 || s->expect_mbps > 0) {
		e.any = true;
		e.iops = s->expect_iops;
		e.mbps = s->expect_mbps;
		snprintf(e.source, sizeof(e.source), "--expect-iops/--expect-mbps");
	}
	*ret = e;
}

static void json_expect(struct strbuf *sb, const struct job_spec *s, double iops, double bw)
{
	struct expectation e;

	expectation_of(s, &e);
	if (!e.any)
		return;
	sb_puts(sb, ",\"expect\":{");
	json_str_kv(sb, "source", e.source);
	sb_putc(sb, ',');
	json_num(sb, "measured_iops", iops);
	sb_putc(sb, ',');
	json_num(sb, "measured_mbps", bw / 1e6);
	if (e.iops > 0) {
		sb_putc(sb, ',');
		json_num(sb, "expected_iops", e.iops);
		sb_putc(sb, ',');
		json_num(sb, "iops_fraction", iops / e.iops);
	}
	if (e.mbps > 0) {
		sb_putc(sb, ',');
		json_num(sb, "expected_mbps", e.mbps);
		sb_putc(sb, ',');
		json_num(sb, "mbps_fraction", bw / 1e6 / e.mbps);
	}
	sb_putc(sb, '}');
}

static void json_header(struct strbuf *sb, int64_t real_ns)
{
	time_t t = (time_t)(real_ns / 1000000000);
	char tbuf[64] = "";
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", &tm);
	sb_puts(sb, "{\"iotriage version\":");
	sb_json_str(sb, "iotriage-" IOTRIAGE_VERSION);
	sb_kv_i64(sb, ",\"timestamp\":", real_ns / 1000000000);
	sb_kv_i64(sb, ",\"timestamp_ms\":", real_ns / 1000000);
	sb_puts(sb, ",\"time\":");
	sb_json_str(sb, tbuf);
}

static void json_precondition(struct strbuf *sb, const struct job_result *p)
{
	if (!p)
		return;
	sb_puts(sb, ",\"precondition\":{");
	json_u64(sb, "write_bytes", p->dir[DDIR_WRITE].bytes);
	sb_putc(sb, ',');
	json_u64(sb, "runtime", (p->runtime_ns + 500000) / 1000000);
	sb_putc(sb, ',');
	json_u64(sb, "bw_bytes", (uint64_t)llround(job_result_bw(p, DDIR_WRITE)));
	sb_putc(sb, '}');
}

/* fio's disk_util members: the diskstats fields' deltas, in its order */
static const struct {
	const char *name;
	enum disk_field field;
} util_fields[] = {
	{ "read_ios", DF_RD_IOS },	 { "write_ios", DF_WR_IOS },
	{ "read_merges", DF_RD_MERGES }, { "write_merges", DF_WR_MERGES },
	{ "read_ticks", DF_RD_TICKS },	 { "write_ticks", DF_WR_TICKS },
	{ "in_queue", DF_RQ_TICKS },
};

static void json_disk_util(struct strbuf *sb, const struct bench_report *r)
{
	const struct disk_raw *a = r->disk_before, *b = r->disk_after;
	double ms = (double)r->disk_elapsed_ns / 1e6;

	if (!a || !b)
		return;
	sb_puts(sb, ",\"disk_util\":[{");
	json_str_kv(sb, "name", b->name);
	sb_putc(sb, ',');
	for (size_t i = 0; i < sizeof(util_fields) / sizeof(util_fields[0]); i++) {
		json_u64(sb, util_fields[i].name,
			 b->v[util_fields[i].field] - a->v[util_fields[i].field]);
		sb_putc(sb, ',');
	}
	json_num(sb, "util",
		 ms > 0 ? fmin(100.0, (double)(b->v[DF_IO_TICKS] - a->v[DF_IO_TICKS]) * 100.0 / ms)
			: 0.0);
	sb_puts(sb, "}]");
}

void bench_report_json(struct strbuf *sb, const struct bench_report *r)
{
	double gbw = group_bw_of(r->results, r->nresults), iops, bw;

	json_header(sb, r->time_real_ns);
	sb_puts(sb, ",\"jobs\":[");
	for (unsigned i = 0; i < r->nresults; i++) {
		if (i)
			sb_putc(sb, ',');
		json_job(sb, r->spec, &r->results[i], gbw);
	}
	sb_putc(sb, ']');
	json_disk_util(sb, r);
	run_totals(r->results, r->nresults, &iops, &bw);
	sb_puts(sb, ",\"iotriage\":{");
	json_str_kv(sb, "target", r->target->path);
	sb_putc(sb, ',');
	json_u64(sb, "region_offset", r->target->region_off);
	sb_putc(sb, ',');
	json_u64(sb, "region_bytes", r->target->region_len);
	json_precondition(sb, r->precondition);
	json_expect(sb, r->spec, iops, bw);
	sb_puts(sb, "}}\n");
}

/* fio's num2str for rates: plain below 10000, else 3 significant digits and k/M/G. */
static void fmt_count(char *buf, size_t n, double v)
{
	static const char sfx[] = " kMGTP";
	int i = 0;

	if (v < 10000) {
		snprintf(buf, n, "%.0f", v);
		return;
	}
	while (v >= 1000 && i < 5) {
		v /= 1000;
		i++;
	}
	snprintf(buf, n, v < 10 ? "%.2f%c" : v < 100 ? "%.1f%c" : "%.0f%c", v, sfx[i]);
}

/* Bytes (or bytes/s) in 1024 units "KiB".."TiB" (binary) or 1000 units "kB".."TB". */
static void fmt_bytes(char *buf, size_t n, double v, bool binary)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	static const char *const dec[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	double base = binary ? 1024.0 : 1000.0;
	int i = 0;

	while (v >= 10000 && i < 5) {
		v /= base;
		i++;
	}
	if (i == 0 || v >= 100)
		snprintf(buf, n, "%.0f%s", v, binary ? bin[i] : dec[i]);
	else
		snprintf(buf, n, "%.*f%s", v < 10 ? 2 : 1, v, binary ? bin[i] : dec[i]);
}

/* fio picks the latency unit from the minimum: nsec, usec or msec. */
static double lat_unit(uint64_t min_ns, const char **ret_name)
{
	if (min_ns >= 10000000) {
		*ret_name = "msec";
		return 1e6;
	}
	if (min_ns >= 1000) {
		*ret_name = "usec";
		return 1e3;
	}
	*ret_name = "nsec";
	return 1.0;
}

static void text_summary(struct strbuf *sb, const char *label, const struct histogram_summary *s)
{
	const char *u;
	double div;

	if (!s->n)
		return;
	div = lat_unit(s->min_ns, &u);
	sb_printf(sb, "    %4s (%s): min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f\n", label, u,
		  (double)s->min_ns / div, (double)s->max_ns / div, s->mean_ns / div,
		  histogram_summary_stddev(s) / div);
}

static void text_percentiles(struct strbuf *sb, const struct histogram *h)
{
	const char *u;
	double div;

	if (!h->sum.n)
		return;
	div = lat_unit(h->sum.min_ns, &u);
	sb_printf(sb, "    clat percentiles (%s):\n", u);
	for (int i = 0; i < HISTOGRAM_NPCT; i++) {
		double v = (double)histogram_percentile(h, histogram_default_pcts[i]) / div;

		if (i % 4 == 0)
			sb_puts(sb, "     |");
		sb_printf(sb, " %5.2fth=[%6.0f]%s", histogram_default_pcts[i], v,
			  i == HISTOGRAM_NPCT - 1 ? "\n"
			  : i % 4 == 3		  ? ",\n"
						  : ",");
	}
}

static void text_dir(struct strbuf *sb, const struct job_result *r, enum job_ddir d,
		     double group_bw, bool synchronous)
{
	const struct job_dir_stats *st = &r->dir[d];
	char iops[32], bwb[32], bwd[32], iob[32], iod[32];
	double b = job_result_bw(r, d);
	struct samples sbw, sio;

	if (!st->ios)
		return;
	fmt_count(iops, sizeof(iops), job_result_iops(r, d));
	fmt_bytes(bwb, sizeof(bwb), b, true);
	fmt_bytes(bwd, sizeof(bwd), b, false);
	fmt_bytes(iob, sizeof(iob), (double)st->bytes, true);
	fmt_bytes(iod, sizeof(iod), (double)st->bytes, false);
	sb_printf(sb, "  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%llumsec)\n", ddir_key[d], iops, bwb, bwd,
		  iob, (unsigned long long)((r->runtime_ns + 500000) / 1000000));
	if (!synchronous)
		text_summary(sb, "slat", &st->slat);
	text_summary(sb, "clat", &st->clat.sum);
	text_summary(sb, "lat", &st->lat);
	text_percentiles(sb, &st->clat);
	sec_samples(r, d, true, &sbw);
	sec_samples(r, d, false, &sio);
	if (sbw.n) {
		sb_printf(sb,
			  "   bw (  KiB/s): min=%.0f, max=%.0f, per=%.2f%%, avg=%.2f, stdev=%.2f, "
			  "samples=%u\n",
			  sbw.min, sbw.max, group_bw > 0 ? b / group_bw * 100.0 : 0.0, sbw.mean,
			  sbw.dev, sbw.n);
		sb_printf(sb,
			  "   iops        : min=%.0f, max=%.0f, avg=%.2f, stdev=%.2f, samples=%u\n",
			  sio.min, sio.max, sio.mean, sio.dev, sio.n);
	}
}

static void text_timeline(struct strbuf *sb, const struct job_result *r)
{
	unsigned shown = r->nsec < 120 ? r->nsec : 120;

	if (!r->nsec)
		return;
	sb_puts(sb, "  per second     read IOPS    write IOPS     read MB/s    write MB/s\n");
	for (unsigned i = 0; i < shown; i++) {
		const struct job_second *s = &r->sec[i];

		sb_printf(sb, "  %10u %13llu %13llu %13.2f %13.2f%s\n", i + 1,
			  (unsigned long long)s->ios[DDIR_READ],
			  (unsigned long long)s->ios[DDIR_WRITE], (double)s->bytes[DDIR_READ] / 1e6,
			  (double)s->bytes[DDIR_WRITE] / 1e6,
			  i + 1 == r->nsec && r->nsec > 1 ? "  (partial)" : "");
	}
	if (shown < r->nsec)
		sb_printf(sb, "  ... %u more seconds in --output-format=json\n", r->nsec - shown);
}

static void text_job(struct strbuf *sb, const struct job_spec *s, const struct job_result *r,
		     double group_bw)
{
	double rt = (double)r->runtime_ns;
	bool sync = s->engine == ENGINE_PSYNC;

	sb_printf(sb,
		  "%s: (groupid=0, jobs=%u): err=%3d: rw=%s, bs=%llu, ioengine=%s, iodepth=%u\n",
		  r->name, r->njobs, -r->error, job_rw_name(s->rw), (unsigned long long)s->bs,
		  job_engine_name(s->engine), r->iodepth);
	if (r->error)
		sb_printf(sb, "  error: %s: %s\n", r->error_what, strerror(-r->error));
	for (int d = 0; d < DDIR__COUNT; d++)
		text_dir(sb, r, d, group_bw, sync);
	if (r->sync.n) {
		sb_puts(sb, "  fsync/fdatasync/sync_file_range:\n");
		text_summary(sb, "sync", &r->sync);
	}
	sb_printf(sb, "  cpu          : usr=%.2f%%, sys=%.2f%%, ctx=%llu, majf=%llu, minf=%llu\n",
		  rt > 0 ? (double)r->usr_ns * 100.0 / rt : 0.0,
		  rt > 0 ? (double)r->sys_ns * 100.0 / rt : 0.0, (unsigned long long)r->ctx,
		  (unsigned long long)r->majf, (unsigned long long)r->minf);
	text_timeline(sb, r);
	sb_putc(sb, '\n');
}

static void text_expect(struct strbuf *sb, const struct job_spec *s, double iops, double bw)
{
	struct expectation e;

	expectation_of(s, &e);
	if (!e.any)
		return;
	sb_printf(sb, "Expected vs measured (%s):\n", e.source);
	if (e.iops > 0)
		sb_printf(sb, "  IOPS: measured %.0f of %.0f expected = %.1f%%\n", iops, e.iops,
			  iops / e.iops * 100.0);
	if (e.mbps > 0)
		sb_printf(sb, "  MB/s: measured %.2f of %.2f expected = %.1f%%\n", bw / 1e6, e.mbps,
			  bw / 1e6 / e.mbps * 100.0);
	if (s->cloud != CLOUD_NONE && s->bs < 16384 && e.mbps > 0)
		sb_puts(sb,
			"  (small blocks measure IOPS; use bs >= 16k to reach the MB/s limit)\n");
	sb_putc(sb, '\n');
}

static void text_precondition(struct strbuf *sb, const struct job_result *p)
{
	char io[32], bw[32];

	if (!p)
		return;
	fmt_bytes(io, sizeof(io), (double)p->dir[DDIR_WRITE].bytes, true);
	fmt_bytes(bw, sizeof(bw), job_result_bw(p, DDIR_WRITE), true);
	sb_printf(sb,
		  "precondition: wrote %s sequentially in 1MiB blocks at %s/s (%llu ms)%s%s\n\n",
		  io, bw, (unsigned long long)(p->runtime_ns / 1000000), p->error ? ": " : "",
		  p->error ? p->error_what : "");
}

void bench_report_text(struct strbuf *sb, const struct bench_report *r)
{
	double gbw = group_bw_of(r->results, r->nresults), iops, bw;
	char bwb[32], bwd[32], iob[32], iod[32];

	text_precondition(sb, r->precondition);
	for (unsigned i = 0; i < r->nresults; i++)
		text_job(sb, r->spec, &r->results[i], gbw);
	sb_puts(sb, "Run status group 0 (all jobs):\n");
	for (int d = 0; d < DDIR__COUNT; d++) {
		uint64_t bytes = 0, rt = 0;

		for (unsigned i = 0; i < r->nresults; i++) {
			bytes += r->results[i].dir[d].bytes;
			if (r->results[i].runtime_ns > rt)
				rt = r->results[i].runtime_ns;
		}
		if (!bytes || !rt)
			continue;
		fmt_bytes(bwb, sizeof(bwb), (double)bytes * 1e9 / (double)rt, true);
		fmt_bytes(bwd, sizeof(bwd), (double)bytes * 1e9 / (double)rt, false);
		fmt_bytes(iob, sizeof(iob), (double)bytes, true);
		fmt_bytes(iod, sizeof(iod), (double)bytes, false);
		sb_printf(sb, "  %5s: bw=%s/s (%s/s), io=%s (%s), run=%llumsec\n",
			  d == DDIR_READ ? "READ" : "WRITE", bwb, bwd, iob, iod,
			  (unsigned long long)((rt + 500000) / 1000000));
	}
	if (r->disk_before && r->disk_after) {
		const struct disk_raw *a = r->disk_before, *b = r->disk_after;
		double ms = (double)r->disk_elapsed_ns / 1e6;

		sb_printf(sb,
			  "\nDisk stats (read/write):\n  %s: ios=%llu/%llu, merge=%llu/%llu, "
			  "ticks=%llu/%llu, in_queue=%llu, util=%.2f%%\n",
			  b->name, (unsigned long long)(b->v[DF_RD_IOS] - a->v[DF_RD_IOS]),
			  (unsigned long long)(b->v[DF_WR_IOS] - a->v[DF_WR_IOS]),
			  (unsigned long long)(b->v[DF_RD_MERGES] - a->v[DF_RD_MERGES]),
			  (unsigned long long)(b->v[DF_WR_MERGES] - a->v[DF_WR_MERGES]),
			  (unsigned long long)(b->v[DF_RD_TICKS] - a->v[DF_RD_TICKS]),
			  (unsigned long long)(b->v[DF_WR_TICKS] - a->v[DF_WR_TICKS]),
			  (unsigned long long)(b->v[DF_RQ_TICKS] - a->v[DF_RQ_TICKS]),
			  ms > 0 ? fmin(100.0, (double)(b->v[DF_IO_TICKS] - a->v[DF_IO_TICKS]) *
						   100.0 / ms)
				 : 0.0);
	}
	run_totals(r->results, r->nresults, &iops, &bw);
	sb_putc(sb, '\n');
	text_expect(sb, r->spec, iops, bw);
}

int bench_sweep_knee(const struct bench_sweep *s)
{
	struct expect_point p[JOB_SWEEP_MAX];
	unsigned n = s->npoints < JOB_SWEEP_MAX ? s->npoints : JOB_SWEEP_MAX;

	for (unsigned i = 0; i < n; i++) {
		p[i].iodepth = s->spec->sweep[i];
		p[i].iops = total_iops(&s->points[i]);
		p[i].lat_ms = bench_result_lat_ms(&s->points[i], -1);
	}
	return expect_knee(p, n);
}

void bench_sweep_json(struct strbuf *sb, const struct bench_sweep *s)
{
	int knee = bench_sweep_knee(s);
	double iops = 0, bw = 0;

	json_header(sb, s->time_real_ns);
	sb_puts(sb, ",\"iotriage\":{");
	json_str_kv(sb, "target", s->target->path);
	json_precondition(sb, s->precondition);
	sb_puts(sb, ",\"sweep\":{\"points\":[");
	for (unsigned i = 0; i < s->npoints; i++) {
		const struct job_result *r = &s->points[i];

		sb_printf(sb, "%s{\"iodepth\":%u,", i ? "," : "", s->spec->sweep[i]);
		json_num(sb, "iops", total_iops(r));
		sb_putc(sb, ',');
		json_num(sb, "read_iops", job_result_iops(r, DDIR_READ));
		sb_putc(sb, ',');
		json_num(sb, "write_iops", job_result_iops(r, DDIR_WRITE));
		sb_putc(sb, ',');
		json_num(sb, "bw_bytes", total_bw(r));
		sb_putc(sb, ',');
		json_num(sb, "lat_ms", bench_result_lat_ms(r, -1));
		sb_putc(sb, ',');
		json_num(sb, "read_lat_ms", bench_result_lat_ms(r, DDIR_READ));
		sb_putc(sb, ',');
		json_num(sb, "write_lat_ms", bench_result_lat_ms(r, DDIR_WRITE));
		sb_putc(sb, ',');
		json_u64(sb, "clat_p99_ns",
			 histogram_percentile(&r->dir[DDIR_READ].clat, 99.0) >
				 histogram_percentile(&r->dir[DDIR_WRITE].clat, 99.0)
			     ? histogram_percentile(&r->dir[DDIR_READ].clat, 99.0)
			     : histogram_percentile(&r->dir[DDIR_WRITE].clat, 99.0));
		sb_putc(sb, ',');
		sb_json_key(sb, "error");
		sb_i64(sb, -r->error);
		sb_putc(sb, '}');
		if (knee == (int)i) {
			iops = total_iops(r);
			bw = total_bw(r);
		}
	}
	sb_puts(sb, "],\"knee_iodepth\":");
	if (knee >= 0)
		sb_printf(sb, "%u", s->spec->sweep[knee]);
	else
		sb_puts(sb, "null");
	sb_putc(sb, '}');
	if (knee < 0 && s->npoints) {
		iops = total_iops(&s->points[s->npoints - 1]);
		bw = total_bw(&s->points[s->npoints - 1]);
	}
	json_expect(sb, s->spec, iops, bw);
	sb_puts(sb, "}}\n");
}

/* One row of the sweep's table: a label, then per depth the IOPS (or with
 * lat the mean latency in ms) of direction d, or of both for -1. */
static void sweep_row(struct strbuf *sb, const struct bench_sweep *s, const char *label, bool lat,
		      int d)
{
	sb_printf(sb, "\n%-18s", label);
	for (unsigned i = 0; i < s->npoints; i++) {
		const struct job_result *p = &s->points[i];

		if (lat)
			sb_printf(sb, " %9.3f", bench_result_lat_ms(p, d));
		else
			sb_printf(sb, " %9.0f",
				  d < 0 ? total_iops(p) : job_result_iops(p, (enum job_ddir)d));
	}
}

void bench_sweep_text(struct strbuf *sb, const struct bench_sweep *s)
{
	int knee = bench_sweep_knee(s);
	const struct job_result *best;

	text_precondition(sb, s->precondition);
	sb_printf(sb, "Queue-depth sweep: %s %s bs=%llu on %s, %s per depth\n\n",
		  job_engine_name(s->spec->engine), job_rw_name(s->spec->rw),
		  (unsigned long long)s->spec->bs, s->target->path,
		  s->spec->runtime_ns ? "runtime" : "size");
	sb_printf(sb, "%-18s", "Outstanding IOs");
	for (unsigned i = 0; i < s->npoints; i++)
		sb_printf(sb, " %9u", s->spec->sweep[i]);
	sweep_row(sb, s, "IOPS", false, -1);
	sweep_row(sb, s, "read IOPS", false, DDIR_READ);
	sweep_row(sb, s, "write IOPS", false, DDIR_WRITE);
	sweep_row(sb, s, "latency (ms)", true, -1);
	sweep_row(sb, s, "read latency (ms)", true, DDIR_READ);
	sweep_row(sb, s, "write latency (ms)", true, DDIR_WRITE);
	sb_puts(sb, "\n\n");
	for (unsigned i = 0; i < s->npoints; i++)
		if (s->points[i].error)
			sb_printf(sb, "depth %u failed: %s: %s\n", s->spec->sweep[i],
				  s->points[i].error_what, strerror(-s->points[i].error));
	if (knee >= 0) {
		sb_printf(sb,
			  "Knee: iodepth=%u. Deeper queues add less than 10%% IOPS while latency "
			  "keeps rising: recommended depth %u.\n\n",
			  s->spec->sweep[knee], s->spec->sweep[knee]);
		best = &s->points[knee];
	} else {
		sb_printf(sb,
			  "No knee up to iodepth=%u: IOPS still grows by 10%% or more (or latency "
			  "does not rise); sweep deeper.\n\n",
			  s->npoints ? s->spec->sweep[s->npoints - 1] : 0);
		best = s->npoints ? &s->points[s->npoints - 1] : NULL;
	}
	if (best)
		text_expect(sb, s->spec, total_iops(best), total_bw(best));
}
