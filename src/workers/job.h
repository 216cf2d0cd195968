/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one job model behind every engine: what to run (struct job_spec, filled
 * from fio-style options), the threads that run it, the IO loop they share
 * (offsets, mix, rate, fsync, ramp, deadline) and what they measured. An
 * engine only moves io_units to the kernel and back (engine.h). Never prints.
 */
#ifndef IOTRIAGE_WORKERS_JOB_H
#define IOTRIAGE_WORKERS_JOB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "histogram.h"

#define JOB_NAME_MAX	64
#define JOB_PATH_MAX	4096
#define JOB_SWEEP_MAX	16
#define JOB_DEPTH_MAX	4096 /* per thread; io_uring rings and aio contexts get this many */
#define JOB_NUMJOBS_MAX 64

enum job_engine { ENGINE_IO_URING, ENGINE_LIBAIO, ENGINE_PSYNC };

enum job_rw { RW_READ, RW_WRITE, RW_RANDREAD, RW_RANDWRITE, RW_RW, RW_RANDRW };

enum job_ddir { DDIR_READ, DDIR_WRITE, DDIR__COUNT };

enum job_output { OUTPUT_NORMAL, OUTPUT_JSON };

enum cloud_tier { CLOUD_NONE, CLOUD_COMMON, CLOUD_HIGH, CLOUD_GPSSD };

struct job_spec {
	char name[JOB_NAME_MAX];
	char filename[JOB_PATH_MAX];
	enum job_engine engine;
	enum job_rw rw;
	unsigned rwmixread; /* percent of reads in rw/randrw */
	uint64_t bs;
	unsigned iodepth;
	unsigned numjobs;
	uint64_t size;	   /* bytes; 0 = whole file/device (or size_pct of it) */
	unsigned size_pct; /* 1..100 when given as N% */
	uint64_t offset;
	unsigned offset_pct;
	uint64_t runtime_ns; /* 0 = until size bytes are done */
	bool time_based;
	uint64_t ramp_ns;
	bool direct;
	unsigned fsync_every; /* fsync after this many writes, 0 = never */
	uint64_t rate_iops;   /* per job thread, 0 = unlimited */
	bool group_reporting;
	enum job_output output;
	/* io_uring only (fio's engine options of the same names) */
	bool sqpoll;
	bool hipri;
	bool fixedbufs;
	bool registerfiles;
	/* iotriage's own */
	unsigned sweep[JOB_SWEEP_MAX];
	unsigned nsweep;
	double expect_iops; /* 0 = not given */
	double expect_mbps; /* MB/s, 10^6 bytes */
	enum cloud_tier cloud;
	double cloud_gb;
	bool precondition;
	bool overwrite;
	bool keep;
	char allow_destroy[JOB_PATH_MAX];
};

static inline bool job_rw_writes(enum job_rw rw)
{
	return rw == RW_WRITE || rw == RW_RANDWRITE || rw == RW_RW || rw == RW_RANDRW;
}

static inline bool job_rw_reads(enum job_rw rw)
{
	return rw == RW_READ || rw == RW_RANDREAD || rw == RW_RW || rw == RW_RANDRW;
}

static inline bool job_rw_random(enum job_rw rw)
{
	return rw == RW_RANDREAD || rw == RW_RANDWRITE || rw == RW_RANDRW;
}

const char *job_engine_name(enum job_engine e);
const char *job_rw_name(enum job_rw rw);

/* What one direction of one job (or of a merged group) measured. */
struct job_dir_stats {
	uint64_t ios;
	uint64_t bytes;
	uint64_t short_ios;
	struct histogram_summary slat; /* async engines only: prep -> submitted */
	struct histogram clat;	       /* submitted -> completed */
	struct histogram_summary lat;  /* prep -> completed */
};

/* One second of the timeline, counted from the end of ramp_time. */
struct job_second {
	uint64_t ios[DDIR__COUNT];
	uint64_t bytes[DDIR__COUNT];
};

struct job_result {
	char name[JOB_NAME_MAX];
	unsigned njobs;	  /* threads merged into this result */
	unsigned iodepth; /* effective (psync: 1) */
	int error;	  /* 0 or -errno of the first failure */
	char error_what[128];
	uint64_t runtime_ns; /* measured period (after ramp), longest thread */
	struct job_dir_stats dir[DDIR__COUNT];
	struct histogram_summary sync; /* fsync latencies */
	struct job_second *sec;
	unsigned nsec;
	unsigned sec_cap;
	uint64_t usr_ns, sys_ns; /* thread CPU during the measured period */
	uint64_t ctx, majf, minf;
};

/*
 * Completion latencies while a run goes on, for a caller that reports them
 * before the end (the daemon's worker.status): the clat histogram's buckets
 * per direction, added by the job threads with relaxed atomics and readable
 * at any time. One atomic add per measured IO, so only runs that ask for it
 * (job_control.live set) pay; the CLI does not.
 */
struct job_live {
	atomic_uint_fast64_t clat_sum_ns[DDIR__COUNT];
	atomic_uint_fast64_t bucket[DDIR__COUNT][HISTOGRAM_BUCKETS];
};

static inline void job_live_add(struct job_live *l, enum job_ddir d, uint64_t clat_ns)
{
	atomic_fetch_add_explicit(&l->clat_sum_ns[d], clat_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&l->bucket[d][histogram_index(clat_ns)], 1, memory_order_relaxed);
}

/* Live counters a caller may read while a run goes on (progress, stop). */
struct job_control {
	atomic_bool stop;		       /* set to end the run early (signal, worker.stop) */
	atomic_uint_fast64_t ios[DDIR__COUNT]; /* completed, whole run incl. ramp */
	atomic_uint_fast64_t bytes[DDIR__COUNT];
	/* units handed to an engine and not back yet, all threads: what a stop
	 * that does not end waits for (a psync call counts while it blocks) */
	atomic_uint_fast64_t inflight;
	struct job_live *live; /* NULL: no live latencies (set before job_run) */
};

/* The opened target every thread of a run works on. */
struct job_target {
	char path[JOB_PATH_MAX]; /* for messages: the name may lead elsewhere by now, or be gone */
	int fd; /* the target, opened once; threads reopen it through /proc/self/fd */
	bool blockdev;
	uint64_t size_bytes;	/* device or file size */
	unsigned logical_block; /* O_DIRECT alignment */
	uint64_t region_off;	/* [region_off, region_off + region_len) is used */
	uint64_t region_len;
};

/*
 * Runs spec on target over spec->numjobs threads (the sweep and the
 * precondition pass run a modified copy of the spec). *ret_results gets
 * spec->numjobs results, one per thread; job_results_merge makes fio's
 * group_reporting of them. Returns 0 (a thread's IO error is in its result's
 * error, not here) or -errno when the run could not start. The caller frees
 * with job_results_free.
 */
int job_run(const struct job_spec *spec, const struct job_target *t, struct job_control *ctl,
	    struct job_result **ret_results);

/* Merges n results into one (fio's group_reporting). 0 or -ENOMEM. */
int job_results_merge(const struct job_result *r, unsigned n, struct job_result *ret_merged);

void job_result_free(struct job_result *r);
void job_results_free(struct job_result *r, unsigned n);

/* IOPS and bytes/s of one direction (0 when runtime is 0). */
double job_result_iops(const struct job_result *r, enum job_ddir d);
double job_result_bw(const struct job_result *r, enum job_ddir d);

#endif
