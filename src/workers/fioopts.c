// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fio option parsing: one table of the fio options iotriage implements, one
 * list of fio options it knows it does not (refused with that reason), and
 * iotriage's own options. Values follow fio's HOWTO "Parameter types":
 * sizes with case-insensitive k/m/g/t/p (1024-based; ki/mi... 1000-based as
 * in fio's default kb_base=1024), times in seconds unless suffixed, bools 0/1.
 */
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fioopts.h"

enum opt_id {
	O_NAME,
	O_FILENAME,
	O_IOENGINE,
	O_RW,
	O_RWMIXREAD,
	O_RWMIXWRITE,
	O_BS,
	O_IODEPTH,
	O_NUMJOBS,
	O_SIZE,
	O_OFFSET,
	O_RUNTIME,
	O_TIME_BASED,
	O_RAMP_TIME,
	O_DIRECT,
	O_BUFFERED,
	O_FSYNC,
	O_RATE_IOPS,
	O_GROUP_REPORTING,
	O_OUTPUT_FORMAT,
	O_THREAD,
	O_SQTHREAD_POLL,
	O_HIPRI,
	O_FIXEDBUFS,
	O_REGISTERFILES,
	O_SWEEP,
	O_EXPECT_IOPS,
	O_EXPECT_MBPS,
	O_CLOUD_DISK,
	O_PRECONDITION,
	O_ALLOW_DESTROY,
	O_OVERWRITE,
	O_KEEP,
	O_HELP,
};

enum opt_kind {
	K_VALUE, /* needs a value: =V or the next argument */
	K_FLAG,	 /* no value, or =0/=1 (fio's FIO_OPT_STR_SET) */
};

struct opt_def {
	const char *name;
	enum opt_id id;
	enum opt_kind kind;
	/* sets the option in the spec from val (NULL: a flag given without one) */
	int (*apply)(const struct opt_def *o, const char *name, const char *val, struct job_spec *s,
		     struct fioopts_error *err);
};

/*
 * fio options a pasted command line may carry that iotriage does not
 * implement. Refusing them by name beats silently measuring something else.
 */
static const char *const fio_unsupported[] = {
	"allow_file_create",
	"atomic",
	"blockalign",
	"bsrange",
	"bs_unaligned",
	"bssplit",
	"buffer_compress_percentage",
	"buffer_pattern",
	"clat_percentiles",
	"cpus_allowed",
	"cpumask",
	"create_on_open",
	"directory",
	"do_verify",
	"end_fsync",
	"eta",
	"exitall",
	"fallocate",
	"fdatasync",
	"file_service_type",
	"filesize",
	"flow",
	"gtod_reduce",
	"invalidate",
	"iodepth_batch",
	"iodepth_batch_complete",
	"iodepth_batch_complete_max",
	"iodepth_batch_complete_min",
	"iodepth_batch_submit",
	"iodepth_low",
	"io_size",
	"ioscheduler",
	"kb_base",
	"latency_target",
	"lat_percentiles",
	"log_avg_msec",
	"loops",
	"minimal",
	"nice",
	"norandommap",
	"nrfiles",
	"numa_cpu_nodes",
	"offset_increment",
	"output",
	"percentile_list",
	"prio",
	"prioclass",
	"random_distribution",
	"random_generator",
	"randrepeat",
	"randseed",
	"rate",
	"rate_min",
	"rate_iops_min",
	"rate_process",
	"refill_buffers",
	"scramble_buffers",
	"section",
	"slat_percentiles",
	"startdelay",
	"status-interval",
	"stonewall",
	"sync",
	"thinktime",
	"unit_base",
	"uncached",
	"verify",
	"write_bw_log",
	"write_hist_log",
	"write_iops_log",
	"write_lat_log",
	"zero_buffers",
	"zonemode",
	"zonesize",
	"iomem",
	"mem",
	"iomem_align",
	"lockmem",
	"unlink",
	"per_job_logs",
	"disable_lat",
	"disable_clat",
	"disable_slat",
	"disable_bw_measurement",
	"cmdprio_percentage",
	"nowait",
	"force_async",
	"sqthread_poll_cpu",
	"uncached",
	"write_barrier",
	"pre_read",
	"overwrite_file",
	"fadvise_hint",
	"job_max_open_zones",
	"serialize_overlap",
	"io_submit_mode",
	"experimental_verify",
	"trim_percentage",
};

static bool opt_is_fio_unsupported(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(fio_unsupported) / sizeof(fio_unsupported[0]); i++)
		if (strlen(fio_unsupported[i]) == len &&
		    strncmp(fio_unsupported[i], name, len) == 0)
			return true;
	return false;
}

static int opt_err(struct fioopts_error *err, const char *opt, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int opt_err(struct fioopts_error *err, const char *opt, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		snprintf(err->option, sizeof(err->option), "--%.60s", opt);
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Leading decimal digits of s as a uint64; *ret_end points past them. */
static int parse_digits(const char *s, uint64_t *ret, const char **ret_end)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*ret = v;
	*ret_end = p;
	return 0;
}

static int mul_check(uint64_t v, uint64_t m, uint64_t *ret)
{
	if (m && v > UINT64_MAX / m)
		return -ERANGE;
	*ret = v * m;
	return 0;
}

int fioopts_parse_size(const char *s, uint64_t *ret_bytes)
{
	static const char units[] = "kmgtp";
	const char *p, *u;
	uint64_t v, mul = 1;
	int r;

	r = parse_digits(s, &v, &p);
	if (r < 0)
		return r;
	if ((*p | 0x20) == 'b' && !p[1])
		p++; /* "4096b": plain bytes */
	if (*p) {
		u = strchr(units, p[0] | 0x20);
		if (!u || !p[0])
			return -EINVAL;
		p++;
		/* kb_base=1024: "k" is 1024; the IEC-looking "ki" is 1000 (fio's compat rule) */
		bool decimal = (*p | 0x20) == 'i';
		uint64_t base = decimal ? 1000 : 1024;

		if (decimal)
			p++;
		if ((*p | 0x20) == 'b')
			p++;
		if (*p)
			return -EINVAL;
		for (long i = 0; i <= u - units; i++)
			mul *= base;
	}
	return mul_check(v, mul, ret_bytes);
}

int fioopts_parse_time(const char *s, uint64_t *ret_ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} units[] = {
		{ "", 1000000000ULL },	   { "s", 1000000000ULL },     { "sec", 1000000000ULL },
		{ "ms", 1000000ULL },	   { "msec", 1000000ULL },     { "us", 1000ULL },
		{ "usec", 1000ULL },	   { "m", 60000000000ULL },    { "min", 60000000000ULL },
		{ "h", 3600000000000ULL }, { "d", 86400000000000ULL },
	};
	const char *p;
	uint64_t v;
	int r;

	r = parse_digits(s, &v, &p);
	if (r < 0)
		return r;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(p, units[i].suffix) == 0)
			return mul_check(v, units[i].ns, ret_ns);
	return -EINVAL;
}

static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r;

	r = parse_digits(s, &v, &end);
	if (r < 0)
		return r;
	if (*end || v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

static int parse_bool(const char *s, bool *ret)
{
	if (strcmp(s, "1") == 0 || strcasecmp(s, "true") == 0) {
		*ret = true;
		return 0;
	}
	if (strcmp(s, "0") == 0 || strcasecmp(s, "false") == 0) {
		*ret = false;
		return 0;
	}
	return -EINVAL;
}

static int parse_double(const char *s, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e15)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* "N%" with 1 <= N <= 100, or a size. */
static int parse_size_or_pct(const char *s, uint64_t *ret_bytes, unsigned *ret_pct)
{
	size_t len = strlen(s);
	uint64_t v;
	char num[24]; /* 20 digits of UINT64_MAX + '%' + NUL, with room */

	if (len && s[len - 1] == '%') {
		if (len >= sizeof(num))
			return -EINVAL;
		memcpy(num, s, len - 1);
		num[len - 1] = '\0';
		if (parse_uint(num, 1, 100, &v) < 0)
			return -EINVAL;
		*ret_pct = (unsigned)v;
		*ret_bytes = 0;
		return 0;
	}
	if (fioopts_parse_size(s, &v) < 0)
		return -EINVAL;
	*ret_bytes = v;
	*ret_pct = 0;
	return 0;
}

static int parse_sweep(const char *s, struct job_spec *spec)
{
	const char *p = s;
	unsigned n = 0;

	while (*p) {
		const char *end;
		uint64_t v;

		if (n == JOB_SWEEP_MAX)
			return -E2BIG;
		if (parse_digits(p, &v, &end) < 0 || v < 1 || v > JOB_DEPTH_MAX)
			return -EINVAL;
		if (n && v <= spec->sweep[n - 1])
			return -EDOM; /* increasing, so "after the knee" means deeper */
		spec->sweep[n++] = (unsigned)v;
		if (*end == ',' && end[1])
			p = end + 1;
		else if (*end)
			return -EINVAL;
		else
			p = end;
	}
	if (n < 2)
		return -EINVAL;
	spec->nsweep = n;
	return 0;
}

static int parse_cloud(const char *s, struct job_spec *spec)
{
	static const struct {
		const char *name;
		enum cloud_tier tier;
	} tiers[] = {
		{ "common", CLOUD_COMMON }, { "sata", CLOUD_COMMON }, { "high", CLOUD_HIGH },
		{ "sas", CLOUD_HIGH },	    { "gpssd", CLOUD_GPSSD }, { "ssd", CLOUD_GPSSD },
	};
	const char *comma = strchr(s, ',');
	double gb;

	if (!comma || parse_double(comma + 1, &gb) < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(tiers) / sizeof(tiers[0]); i++)
		if (strlen(tiers[i].name) == (size_t)(comma - s) &&
		    strncasecmp(s, tiers[i].name, (size_t)(comma - s)) == 0) {
			spec->cloud = tiers[i].tier;
			spec->cloud_gb = gb;
			return 0;
		}
	return -ENOENT;
}

/* fio's filename: ':' separates several files, "\:" is a literal colon. */
static int parse_filename(const char *s, char *dst, size_t size)
{
	size_t o = 0;

	for (const char *p = s; *p; p++) {
		char c = *p;

		if (c == '\\' && p[1] == ':')
			c = *++p;
		else if (c == ':')
			return -ENOTSUP;
		if (o + 1 >= size)
			return -ENAMETOOLONG;
		dst[o++] = c;
	}
	if (!o)
		return -EINVAL;
	dst[o] = '\0';
	return 0;
}

void fioopts_defaults(struct job_spec *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "bench");
	s->engine = ENGINE_PSYNC;
	s->rw = RW_READ;
	s->rwmixread = 50;
	s->bs = 4096;
	s->iodepth = 1;
	s->numjobs = 1;
	s->output = OUTPUT_NORMAL;
	/* iotriage registers file and buffers unless told not to (fio: off by default) */
	s->fixedbufs = true;
	s->registerfiles = true;
}

/* The K_FLAG options' fields in struct job_spec (--thread sets none:
 * workers are always threads; --help none: it is answered). */
static const struct {
	enum opt_id id;
	size_t field; /* offsetof a bool */
} flag_fields[] = {
	{ O_TIME_BASED, offsetof(struct job_spec, time_based) },
	{ O_GROUP_REPORTING, offsetof(struct job_spec, group_reporting) },
	{ O_SQTHREAD_POLL, offsetof(struct job_spec, sqpoll) },
	{ O_HIPRI, offsetof(struct job_spec, hipri) },
	{ O_FIXEDBUFS, offsetof(struct job_spec, fixedbufs) },
	{ O_REGISTERFILES, offsetof(struct job_spec, registerfiles) },
	{ O_PRECONDITION, offsetof(struct job_spec, precondition) },
	{ O_OVERWRITE, offsetof(struct job_spec, overwrite) },
	{ O_KEEP, offsetof(struct job_spec, keep) },
};

/* A K_FLAG option: no value, or =0/=1. 0, 1 for --help, or opt_err's -EINVAL. */
static int apply_flag(const struct opt_def *o, const char *name, const char *val,
		      struct job_spec *s, struct fioopts_error *err)
{
	bool b = true;

	if (val && parse_bool(val, &b) < 0)
		return opt_err(err, name, "takes no value, or 0 or 1 (got '%s')", val);
	if (o->id == O_HELP)
		return b ? 1 : 0;
	for (size_t i = 0; i < sizeof(flag_fields) / sizeof(flag_fields[0]); i++)
		if (flag_fields[i].id == o->id)
			*(bool *)((char *)s + flag_fields[i].field) = b;
	return 0;
}

/* The values of the options that take one word from a list. */
static const struct opt_word {
	enum opt_id id;
	const char *word;
	int value;
} opt_words[] = {
	{ O_IOENGINE, "io_uring", ENGINE_IO_URING },
	{ O_IOENGINE, "libaio", ENGINE_LIBAIO },
	{ O_IOENGINE, "psync", ENGINE_PSYNC },
	{ O_RW, "read", RW_READ },
	{ O_RW, "write", RW_WRITE },
	{ O_RW, "randread", RW_RANDREAD },
	{ O_RW, "randwrite", RW_RANDWRITE },
	{ O_RW, "rw", RW_RW },
	{ O_RW, "readwrite", RW_RW },
	{ O_RW, "randrw", RW_RANDRW },
	{ O_OUTPUT_FORMAT, "normal", OUTPUT_NORMAL },
	{ O_OUTPUT_FORMAT, "json", OUTPUT_JSON },
};

/* --ioengine, --rw and --output-format: a word of opt_words. */
static int apply_word(const struct opt_def *o, const char *name, const char *val,
		      struct job_spec *s, struct fioopts_error *err)
{
	if (o->id == O_RW && strchr(val, ':'))
		return opt_err(err, name, "'%s': the ':N' offset modifier is not supported", val);
	for (size_t i = 0; i < sizeof(opt_words) / sizeof(opt_words[0]); i++) {
		if (opt_words[i].id != o->id || strcmp(val, opt_words[i].word) != 0)
			continue;
		if (o->id == O_IOENGINE)
			s->engine = (enum job_engine)opt_words[i].value;
		else if (o->id == O_RW)
			s->rw = (enum job_rw)opt_words[i].value;
		else
			s->output = (enum job_output)opt_words[i].value;
		return 0;
	}
	return opt_err(err, name, "'%s' is not supported (%s)", val,
		       o->id == O_IOENGINE ? "io_uring, libaio or psync"
		       : o->id == O_RW	   ? "read, write, randread, randwrite, rw, randrw"
					   : "normal or json");
}

/* The whole numbers with a range: --rwmix*, --iodepth, --numjobs, --fsync, --rate_iops. */
static int apply_count(const struct opt_def *o, const char *name, const char *val,
		       struct job_spec *s, struct fioopts_error *err)
{
	uint64_t v;

	switch (o->id) {
	case O_RWMIXREAD:
	case O_RWMIXWRITE:
		if (parse_uint(val, 0, 100, &v) < 0)
			return opt_err(err, name, "'%s' is not a percentage (0..100)", val);
		s->rwmixread = o->id == O_RWMIXREAD ? (unsigned)v : 100 - (unsigned)v;
		return 0;
	case O_IODEPTH:
		if (parse_uint(val, 1, JOB_DEPTH_MAX, &v) < 0)
			return opt_err(err, name, "'%s' is not a queue depth (1..%u)", val,
				       JOB_DEPTH_MAX);
		s->iodepth = (unsigned)v;
		return 0;
	case O_NUMJOBS:
		if (parse_uint(val, 1, JOB_NUMJOBS_MAX, &v) < 0)
			return opt_err(err, name, "'%s' is not a job count (1..%u)", val,
				       JOB_NUMJOBS_MAX);
		s->numjobs = (unsigned)v;
		return 0;
	case O_FSYNC:
		if (parse_uint(val, 0, UINT32_MAX, &v) < 0)
			return opt_err(err, name, "'%s' is not a count of writes", val);
		s->fsync_every = (unsigned)v;
		return 0;
	default: /* O_RATE_IOPS */
		if (strchr(val, ','))
			return opt_err(err, name, "'%s': per-direction rates are not supported",
				       val);
		if (parse_uint(val, 1, 100000000, &v) < 0)
			return opt_err(err, name, "'%s' is not an IOPS rate (1..100000000)", val);
		s->rate_iops = v;
		return 0;
	}
}

/* Sizes, offsets, durations and the direct/buffered switch. */
static int apply_extent(const struct opt_def *o, const char *name, const char *val,
			struct job_spec *s, struct fioopts_error *err)
{
	uint64_t v;
	bool b;

	switch (o->id) {
	case O_BS:
		if (strpbrk(val, ",/"))
			return opt_err(err, name,
				       "'%s': separate read/write block sizes are not supported",
				       val);
		if (strpbrk(val, "-:"))
			return opt_err(err, name, "'%s': block size ranges are not supported", val);
		if (fioopts_parse_size(val, &v) < 0 || v < 1 || v > (64ULL << 20))
			return opt_err(err, name, "'%s' is not a block size (1 byte .. 64m)", val);
		s->bs = v;
		return 0;
	case O_SIZE:
		if (parse_size_or_pct(val, &s->size, &s->size_pct) < 0 ||
		    (!s->size_pct && !s->size))
			return opt_err(err, name, "'%s' is not a size (4k, 1g, 100%%...)", val);
		return 0;
	case O_OFFSET:
		if (parse_size_or_pct(val, &s->offset, &s->offset_pct) < 0)
			return opt_err(err, name, "'%s' is not an offset (0, 1m, 20%%...)", val);
		return 0;
	case O_RUNTIME:
	case O_RAMP_TIME:
		if (fioopts_parse_time(val, &v) < 0 || v > 365ULL * 86400 * 1000000000ULL)
			return opt_err(err, name, "'%s' is not a duration (30, 500ms, 2m...)", val);
		if (o->id == O_RUNTIME)
			s->runtime_ns = v;
		else
			s->ramp_ns = v;
		return 0;
	default: /* O_DIRECT, O_BUFFERED */
		if (parse_bool(val, &b) < 0)
			return opt_err(err, name, "'%s' is not 0 or 1", val);
		s->direct = o->id == O_DIRECT ? b : !b;
		return 0;
	}
}

/* iotriage's own options: --sweep-iodepth, --expect-*, --cloud-disk. */
static int apply_bench(const struct opt_def *o, const char *name, const char *val,
		       struct job_spec *s, struct fioopts_error *err)
{
	int r;

	switch (o->id) {
	case O_SWEEP:
		if (parse_sweep(val, s) < 0)
			return opt_err(
			    err, name,
			    "'%s' is not an increasing list of 2..%d depths (1,2,4,8,16,32)", val,
			    JOB_SWEEP_MAX);
		return 0;
	case O_EXPECT_IOPS:
		if (parse_double(val, &s->expect_iops) < 0)
			return opt_err(err, name, "'%s' is not a positive IOPS figure", val);
		return 0;
	case O_EXPECT_MBPS:
		if (parse_double(val, &s->expect_mbps) < 0)
			return opt_err(err, name, "'%s' is not a positive MB/s figure", val);
		return 0;
	default: /* O_CLOUD_DISK */
		r = parse_cloud(val, s);
		if (r == -ENOENT)
			return opt_err(err, name,
				       "'%s': unknown tier (common|sata, high|sas, gpssd|ssd)",
				       val);
		if (r < 0)
			return opt_err(err, name, "'%s' is not TIER,SIZE_GB (e.g. high,500)", val);
		return 0;
	}
}

/* --name, --filename and --allow-destroy: text kept as given. */
static int apply_text(const struct opt_def *o, const char *name, const char *val,
		      struct job_spec *s, struct fioopts_error *err)
{
	int r;

	switch (o->id) {
	case O_NAME:
		if (!*val || strlen(val) >= sizeof(s->name))
			return opt_err(err, name, "'%s': give 1 to %zu characters", val,
				       sizeof(s->name) - 1);
		snprintf(s->name, sizeof(s->name), "%s", val);
		return 0;
	case O_FILENAME:
		r = parse_filename(val, s->filename, sizeof(s->filename));
		if (r == -ENOTSUP)
			return opt_err(err, name,
				       "'%s': several files (':') are not supported; write a "
				       "literal colon as \\:",
				       val);
		if (r < 0)
			return opt_err(err, name, "'%s' is not a usable path", val);
		return 0;
	default: /* O_ALLOW_DESTROY */
		if (!*val || strlen(val) >= sizeof(s->allow_destroy))
			return opt_err(err, name, "needs a device path (/dev/sdX)");
		snprintf(s->allow_destroy, sizeof(s->allow_destroy), "%s", val);
		return 0;
	}
}

static int check(struct job_spec *s, bool uring_opts, struct fioopts_error *err)
{
	if (!s->filename[0])
		return opt_err(err, "filename", "is required (a block device or a file)");
	if (uring_opts && s->engine != ENGINE_IO_URING)
		return opt_err(err, s->sqpoll ? "sqthread_poll" : "hipri",
			       "is an io_uring option; the engine is %s",
			       job_engine_name(s->engine));
	if (s->hipri && !s->direct)
		return opt_err(err, "hipri", "polled IO needs --direct=1");
	if (s->nsweep && s->engine == ENGINE_PSYNC)
		return opt_err(err, "sweep-iodepth",
			       "psync keeps one IO in flight; use --ioengine=io_uring or libaio");
	if (s->cloud != CLOUD_NONE && (s->expect_iops || s->expect_mbps))
		return opt_err(
		    err, "cloud-disk",
		    "sets the expected IOPS and MB/s itself; drop --expect-iops/--expect-mbps");
	if (s->time_based && !s->runtime_ns)
		return opt_err(err, "time_based", "needs --runtime");
	if (s->direct && s->bs % 512)
		return opt_err(err, "bs", "%llu is not a multiple of 512, which --direct=1 needs",
			       (unsigned long long)s->bs);
	if (s->direct && !s->offset_pct && s->offset % 512)
		return opt_err(err, "offset",
			       "%llu is not a multiple of 512, which --direct=1 needs",
			       (unsigned long long)s->offset);
	return 0;
}

static const struct opt_def opts[] = {
	{ "name", O_NAME, K_VALUE, apply_text },
	{ "filename", O_FILENAME, K_VALUE, apply_text },
	{ "ioengine", O_IOENGINE, K_VALUE, apply_word },
	{ "rw", O_RW, K_VALUE, apply_word },
	{ "readwrite", O_RW, K_VALUE, apply_word },
	{ "rwmixread", O_RWMIXREAD, K_VALUE, apply_count },
	{ "rwmixwrite", O_RWMIXWRITE, K_VALUE, apply_count },
	{ "bs", O_BS, K_VALUE, apply_extent },
	{ "blocksize", O_BS, K_VALUE, apply_extent },
	{ "iodepth", O_IODEPTH, K_VALUE, apply_count },
	{ "numjobs", O_NUMJOBS, K_VALUE, apply_count },
	{ "size", O_SIZE, K_VALUE, apply_extent },
	{ "offset", O_OFFSET, K_VALUE, apply_extent },
	{ "runtime", O_RUNTIME, K_VALUE, apply_extent },
	{ "timeout", O_RUNTIME, K_VALUE, apply_extent },
	{ "time_based", O_TIME_BASED, K_FLAG, apply_flag },
	{ "ramp_time", O_RAMP_TIME, K_VALUE, apply_extent },
	{ "direct", O_DIRECT, K_VALUE, apply_extent },
	{ "buffered", O_BUFFERED, K_VALUE, apply_extent },
	{ "fsync", O_FSYNC, K_VALUE, apply_count },
	{ "rate_iops", O_RATE_IOPS, K_VALUE, apply_count },
	{ "group_reporting", O_GROUP_REPORTING, K_FLAG, apply_flag },
	{ "output-format", O_OUTPUT_FORMAT, K_VALUE, apply_word },
	{ "thread", O_THREAD, K_FLAG, apply_flag },
	{ "sqthread_poll", O_SQTHREAD_POLL, K_FLAG, apply_flag },
	{ "hipri", O_HIPRI, K_FLAG, apply_flag },
	{ "fixedbufs", O_FIXEDBUFS, K_FLAG, apply_flag },
	{ "registerfiles", O_REGISTERFILES, K_FLAG, apply_flag },
	{ "sweep-iodepth", O_SWEEP, K_VALUE, apply_bench },
	{ "expect-iops", O_EXPECT_IOPS, K_VALUE, apply_bench },
	{ "expect-mbps", O_EXPECT_MBPS, K_VALUE, apply_bench },
	{ "cloud-disk", O_CLOUD_DISK, K_VALUE, apply_bench },
	{ "precondition", O_PRECONDITION, K_FLAG, apply_flag },
	{ "allow-destroy", O_ALLOW_DESTROY, K_VALUE, apply_text },
	{ "overwrite", O_OVERWRITE, K_FLAG, apply_flag },
	{ "keep", O_KEEP, K_FLAG, apply_flag },
	{ "help", O_HELP, K_FLAG, apply_flag },
};

static const struct opt_def *opt_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

int fioopts_parse(int argc, const char *const *argv, int first, struct job_spec *ret_spec,
		  struct fioopts_error *err)
{
	struct job_spec s;
	bool uring_opts = false;
	int r;

	fioopts_defaults(&s);
	for (int i = first; i < argc; i++) {
		const char *arg = argv[i], *name, *eq, *val = NULL;
		char shown[64];
		const struct opt_def *o;
		size_t len;

		if (arg[0] != '-' || !arg[1])
			return opt_err(err, arg,
				       "fio job files and positional arguments are not supported; "
				       "give --options");
		name = arg + (arg[1] == '-' ? 2 : 1);
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		snprintf(shown, sizeof(shown), "%.*s", (int)(len < 60 ? len : 60), name);
		o = opt_find(name, len);
		if (!o) {
			if (opt_is_fio_unsupported(name, len))
				return opt_err(err, shown,
					       "is a fio option iotriage bench does not implement");
			return opt_err(err, shown, "unknown option (see iotriage bench --help)");
		}
		if (eq) {
			val = eq + 1;
		} else if (o->kind == K_VALUE) {
			if (i + 1 >= argc)
				return opt_err(err, shown, "needs a value");
			val = argv[++i];
		}
		r = o->apply(o, shown, val, &s, err);
		if (r)
			return r;
		if ((o->id == O_SQTHREAD_POLL && s.sqpoll) || (o->id == O_HIPRI && s.hipri))
			uring_opts = true;
	}
	r = check(&s, uring_opts, err);
	if (r < 0)
		return r;
	*ret_spec = s;
	return 0;
}
