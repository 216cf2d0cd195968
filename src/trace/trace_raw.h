/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One read of the tracing stage's maps (trace.c): cumulative time per
 * softirq vector and per IRQ line on each CPU, and IO latency histograms per
 * disk, op and stage, as the programs counted them since they were loaded.
 * Raw counters only: the rates and percentiles are metrics_trace.c's. Plain
 * C, no libbpf, so the pure stages can include it on any build.
 */
#ifndef IOTRIAGE_TRACE_RAW_H
#define IOTRIAGE_TRACE_RAW_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "trace_abi.h"

/* The probes, each switched on and off as one (its programs). */
enum trace_probe {
	TRACE_HARDIRQ, /* irq:irq_handler_entry/exit */
	TRACE_SOFTIRQ, /* irq:softirq_entry/exit */
	TRACE_BLOCK,   /* block:block_rq_insert/issue/complete */
	TRACE__COUNT,
};

struct trace_probe_status {
	bool on;		     /* attached (after this read's budget check) */
	bool read;		     /* its maps were read this sample */
	char reason[IOT_REASON_MAX]; /* why off; "" when on */
	bool has_run;		     /* run_ns/run_cnt measured (kernel BPF stats) */
	uint64_t run_ns;	     /* its programs' run time since loaded */
	uint64_t run_cnt;	     /* their runs since loaded */
	/* the budget (doc/trace.md): times over it since loaded; while off
	 * over it (backing_off), how long it has been off and how long until
	 * it is attached again, at this read */
	uint32_t over_budget;
	bool backing_off;
	uint64_t off_ns;
	uint64_t back_in_ns;
};

/* One (disk, op, stage) histogram, summed over the CPUs; or, in
 * trace_raw.hlat, one (disk, hardware queue, op)'s device stage. */
struct trace_lat_raw {
	uint32_t major;
	uint32_t minor;
	uint32_t hctx; /* blk-mq hardware queue number (hlat; 0 in lat) */
	uint8_t op;    /* TRACE_OP_* */
	uint8_t kind;  /* TRACE_LAT_* */
	uint64_t slots[TRACE_HIST_SLOTS];
	uint64_t count;
	uint64_t sum_ns;
	uint64_t remote;
};

#define TRACE_CG_PATH_MAX 256 /* a cgroup's path below its hierarchy's top */
#define TRACE_CG_TOP_MAX  64  /* the hierarchy's mount point */

/* One (cgroup, disk, stage) histogram, summed over the CPUs: the IOs
 * (every op but flush) whose bio the cgroup owns. */
struct trace_cg_raw {
	uint64_t cgid;		      /* kernfs node id: the directory's inode */
	char path[TRACE_CG_PATH_MAX]; /* "/system.slice/x.service"; "" not found */
	uint32_t major;
	uint32_t minor;
	uint8_t kind; /* TRACE_LAT_* */
	uint64_t slots[TRACE_HIST_SLOTS];
	uint64_t count;
	uint64_t sum_ns;
};

/* One NAPI's share of NET_RX time (napi:napi_poll inside NET_RX), summed
 * over the CPUs. */
struct trace_napi_raw {
	uint32_t napi_id; /* 0: the per-CPU backlog (loopback, netif_rx) */
	int32_t irq;	  /* its IRQ line, -1 none */
	int32_t index;	  /* its queue's index, -1 unknown */
	uint32_t ifindex; /* in its namespace */
	uint32_t netns;	  /* the device's network namespace inode; 0 unknown */
	char dev[16];	  /* "" backlog */
	uint64_t ns;
	uint64_t polls;
	uint64_t work; /* packets */
};

/* One (disk, blk-mq hardware queue)'s share of BLOCK time: completions
 * inside the BLOCK softirq, summed over the CPUs. */
struct trace_blkq_raw {
	uint32_t major;
	uint32_t minor;
	uint32_t hctx;
	uint64_t ns;
	uint64_t count; /* requests completed inside BLOCK */
};

struct trace_raw {
	bool valid;	 /* read; false: nothing below is meaningful */
	int64_t mono_ns; /* CLOCK_MONOTONIC of the read */
	bool stats;	 /* the kernel's BPF run-time stats are on (probe run_ns) */
	char stats_reason[IOT_REASON_MAX]; /* why not */
	double budget_pct;		   /* per probe, % of one CPU; 0 none */
	/* the block probe times 1 in block_sample requests (a power of two,
	 * set by the budget; 1: every one) and counts each as block_sample
	 * IOs: the histograms below are already scaled */
	uint32_t block_sample;
	struct trace_probe_status probe[TRACE__COUNT];
	uint32_t ncpu; /* possible CPUs: the per-CPU rows below */
	/* [cpu * TRACE_NR_SOFTIRQS + vector] */
	uint64_t *soft_ns;
	uint64_t *soft_count;
	/* IRQ lines by ascending number; time and handler runs [i * ncpu + cpu] */
	size_t nirq;
	uint32_t *irq;
	uint64_t *irq_ns;
	uint64_t *irq_count;
	/* by ascending (major, minor, op, kind) */
	size_t nlat;
	struct trace_lat_raw *lat;
	/* the device stage per (disk, hardware queue, op), kind
	 * TRACE_LAT_DEVICE, by ascending (major, minor, hctx, op): read while
	 * the block probe is on (hlat_read); hlat_dropped: IOs the probe could
	 * not keep a row for since loaded */
	bool hlat_read;
	uint64_t hlat_dropped;
	size_t nhlat;
	struct trace_lat_raw *hlat;
	/* IOs the probe found no (disk, op) row for since loaded (they are in
	 * no histogram), and the rows' table's slots; read with lat */
	uint64_t lat_dropped;
	uint32_t lat_slots;
	/* per (cgroup, disk, stage), by ascending (cgid, major, minor, kind):
	 * read while the block probe is on (cg_read); cg_dropped: IOs the
	 * probe found no (cgroup, disk) row for since loaded; cg_top: the
	 * hierarchy the ids are of ("" unknown) */
	bool cg_read;
	uint64_t cg_dropped;
	char cg_top[TRACE_CG_TOP_MAX];
	size_t ncg;
	struct trace_cg_raw *cg;
	/* per-queue softirq load: read while the softirq probe is on (NAPI),
	 * and the block probe too (hardware queues); by ascending napi_id,
	 * (major, minor, hctx) */
	bool napi_read, blkq_read;
	/* the daemon's own network namespace (/proc/self/ns/net's inode; 0
	 * unknown): only NAPI rows in it are the host's NICs */
	uint32_t host_netns;
	/* rows of this read left out as impossible (trace_lat_check): a
	 * recorded read's damaged lines, a live read's rows */
	uint64_t rows_dropped;
	size_t nnapi;
	struct trace_napi_raw *napi;
	size_t nblkq;
	struct trace_blkq_raw *blkq;
};

/*
 * What a read of the maps can say (doc/trace.md, "What a read may say"):
 * one set of checks for the live reads (trace.c, trace_hlat_take), the
 * recorded ones (rec_trace.c) and the difference of two
 * (metrics_trace.c). A row that fails is left out and counted, never
 * shown.
 */
/* a row completes at most one IO per TRACE_IO_MIN_NS of an interval (10^8
 * a second), each counted as its sampling weight */
#define TRACE_IO_MIN_NS 10
/* a CPU spends at most dt + dt/4 + TRACE_TIME_SLACK_NS of an interval of
 * dt in one vector or IRQ line: a run that straddles a read is counted
 * whole at its end */
#define TRACE_TIME_SLACK_NS 2000000

/* *a += b, saturating at UINT64_MAX: false when it did */
static inline bool trace_add_sat(uint64_t *a, uint64_t b)
{
	if (*a + b < *a) {
		*a = UINT64_MAX;
		return false;
	}
	*a += b;
	return true;
}

/* what trace_lat_check found, or'ed */
enum {
	TRACE_CHECK_COUNT = 1,	/* count was not its buckets' sum: set so */
	TRACE_CHECK_REMOTE = 2, /* remote was above its count: set to it */
	TRACE_CHECK_BAD = 4,	/* impossible: leave it out */
};

/* A histogram (one read's, or the difference of two): BAD when its
 * buckets' sum overflows 64 bits or its sum of latencies is past what its
 * highest bucket allows (a mean above that bucket's bound; the last bucket
 * has none); COUNT, REMOTE when its count is not its buckets' sum or its
 * remote count above it, both set so (a live read may catch an IO's adds
 * half done). A recorded row was written checked: REMOTE there is damage
 * too (rec_trace.c). Returns 0 when it is as it should be. */
unsigned trace_lat_check(struct trace_lat_raw *l);

/* trace_lat_check of a cgroup's histogram (it has no remote count) */
unsigned trace_cg_check(struct trace_cg_raw *g);

/* d_ns of one CPU's time in one vector or line over dt_ns: possible */
bool trace_time_ok(uint64_t d_ns, uint64_t dt_ns);

/* n IOs of one row over dt_ns, each timed IO counted as weight: possible */
bool trace_ios_ok(uint64_t n, uint64_t dt_ns, uint32_t weight);

/*
 * Takes the probe's shared per-queue rows (n of them, as the map holds
 * them: a map is input too) into r->hlat, replacing it: free slots, an op
 * or a queue number out of range and rows whose buckets overflow a
 * counter are left out; a row's count is its buckets' sum and its remote
 * at most that; two slots of one key are merged (saturating); sorted.
 * A disk of one queue's row (TRACE_HLAT_MIRROR) takes the device stage
 * of the disk's row in r->lat, which must have been read before.
 * Returns the rows kept, or -ENOMEM (r->hlat then empty).
 */
int trace_hlat_take(const struct trace_hlat_row *rows, size_t n, struct trace_raw *r);

/*
 * Takes the probe's (cgroup, disk) rows (n slots' per-CPU copies, as the
 * map holds them: a map is input too) into r->cg, replacing it: free
 * slots, empty stages and stages whose buckets overflow a counter are left
 * out, a row's count is its buckets' sum, the copies of one key are merged
 * (saturating), sorted by trace_cg_cmp; paths left "". At most
 * TRACE_MAX_CG * TRACE_CG_CPUS_MAX copies are read. Returns the rows kept,
 * or -ENOMEM (r->cg then empty).
 */
#define TRACE_CG_CPUS_MAX 8192
int trace_cg_take(const struct trace_cg_row *rows, size_t n, struct trace_raw *r);

/* (cgid, major, minor, kind) order of two cgroup histograms, as qsort wants */
int trace_cg_cmp(const void *a, const void *b);

/*
 * The size of the block probe's per-CPU tables, as log2 of their slots,
 * chosen at load: (disk, op) rows for ndisk disks (three ops each, at most
 * a quarter full, which leaves room for disks plugged in later),
 * TRACE_LAT_BITS .. TRACE_LAT_BITS_MAX; (cgroup, disk) rows
 * TRACE_CG_BITS_MIN .. TRACE_CG_BITS_MAX; both shrunk (not below their
 * minimum) until ncpu copies fit in TRACE_ROWS_BYTES_MAX.
 */
unsigned trace_lat_bits(unsigned ndisk, unsigned ncpu);
unsigned trace_cg_bits(unsigned ncpu);

/*
 * rows (n of size bytes) sorted by cmp and each run of equal keys made one
 * row, add(d, x) adding x into d (trace_rows.c). Returns the rows left.
 */
size_t trace_rows_merge(void *rows, size_t n, size_t size, int (*cmp)(const void *, const void *),
			void (*add)(void *d, const void *x));

/* napi_id order of two NAPI rows, as qsort wants */
int trace_napi_cmp(const void *a, const void *b);

/* (major, minor, hctx) order of two hardware queues' rows, as qsort wants */
int trace_blkq_cmp(const void *a, const void *b);

/* (major, minor, hctx, op, kind) order of two histograms, as qsort wants */
int trace_lat_cmp(const void *a, const void *b);

/* Frees the arrays and zeroes r; accepts NULL. */
void trace_raw_free(struct trace_raw *r);

/* "hardirq", "softirq", "block" */
const char *trace_probe_name(enum trace_probe p);

/* "HI", "TIMER", "NET_TX", ... as /proc/softirqs names the vectors */
const char *trace_softirq_name(unsigned vec);

/* "read", "write", "flush", "discard" */
const char *trace_op_name(unsigned op);

#endif
