/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * collect: read every source once, timestamped, into a struct snapshot.
 * No arithmetic beyond parsing. The only module of the core that reads
 * the clock.
 */
#ifndef IOTRIAGE_SNAPSHOT_H
#define IOTRIAGE_SNAPSHOT_H

#include "iotriage/types.h"
#include "procfile.h"
#include "root.h"

/* Per-device /sys/block facts, cached until the device set changes. */
struct blockinfo {
	uint32_t major, minor;
	char name[IOT_NAME_MAX];
	bool whole;
	int8_t iostats;
	char dm_name[IOT_NAME_MAX];
	char slaves[256];
};

struct snapshot_collector {
	struct root root;
	struct procfile pf[SRC__COUNT];
	uint64_t next_id;
	struct blockinfo *blk;
	size_t nblk, blk_cap;
	struct blkmq_table mq;	/* hardware queues of the disks in blk (blkmq.c) */
	struct numa_table numa; /* NUMA nodes (numa.c), read at numa_ncpu CPUs */
	bool numa_read;
	size_t numa_ncpu;
	struct turbo_collector
	    *turbo; /* src/collect/turbo.c: MSR/perf/sysfs fds, chosen at first sample */
	struct workload_collector
	    *workload; /* src/collect/workload.c: netlink sockets, per-process memory */
	unsigned skip; /* COLLECT_SKIP_*: sources the caller does not want */
	/* bits 1u << CAD_*: optional sources the next sample leaves out
	 * (sampler.c, the CPU budget); their snapshot.cadence says carried */
	unsigned noread;
};

/* collector.skip bits: leave out the optional sources (their sections are
 * then absent from the sample), e.g. to measure the core sources alone. */
#define COLLECT_SKIP_TURBO 0x1u
#define COLLECT_SKIP_EXT   0x2u

/* Relative path of a source under the root ("proc/stat"); NULL for SRC_SYSBLOCK. */
const char *snapshot_source_path(enum src_id id);
/* Short name of a source for status output ("diskstats"). */
const char *snapshot_source_name(enum src_id id);

/* CLOCK_THREAD_CPUTIME_ID in ns (0 if unreadable): what a sample cost. */
int64_t snapshot_thread_cpu_ns(void);

/* Opens the root. 0 or -errno (the root itself cannot be opened). */
int snapshot_collector_open(const char *root_dir, struct snapshot_collector *ret_c);
void snapshot_collector_close(struct snapshot_collector *c);

/*
 * Reads every source into s, reusing s's storage. A source that fails is
 * marked in s->status (err, reason naming the file and line) and its table
 * left empty; the others are still read. Returns 0 if at least /proc/stat or
 * /proc/diskstats was read, else the first error.
 */
int snapshot_collector_sample(struct snapshot_collector *c, struct snapshot *s);

/*
 * The flight recorder: the bytes the last snapshot_collector_sample() read for s
 * (each core source's file as the kernel gave it, or its failure and
 * reason; the /sys/block facts), the raw tables of its optional
 * sections (rec_payload.c: turbo, the workload sources, blk-mq, NUMA) and
 * topo (the advisor's, may be NULL), then extra (whole records the caller
 * packed: the sampler's trace record; may be NULL) and last the processes,
 * appended to out in the payload format of doc/recording.md; memo (may be
 * NULL) keeps records of unchanged parts between calls (struct
 * rec_payload_memo). Returns out->err (0 or -ENOMEM).
 */
struct strbuf;
struct topology;
struct rec_payload_memo;
int snapshot_collector_pack(const struct snapshot_collector *c, const struct snapshot *s,
			    const struct topology *topo, struct rec_payload_memo *memo,
			    const struct strbuf *extra, struct strbuf *out);

/*
 * The reverse: fills s from a packed payload through the same parsers, as
 * snapshot_collector_sample() fills it from the files (s->id and the times are the
 * caller's to set). A source absent from the payload is unavailable ("not
 * in the recording"); an optional section absent from the payload (a
 * version-1 recording, a --core-only daemon) is absent from s. A carried
 * process table (a sample that skipped the scan) comes back with no rows
 * and procs.carried set: the caller puts the last scan's there.
 * Returns 0, -ENOMEM, -EBADMSG (a record overruns the payload) or the
 * status rule of snapshot_collector_sample().
 */
int snapshot_collector_unpack(struct snapshot_collector *c, const void *buf, size_t len,
			      struct snapshot *s);

void snapshot_free(struct snapshot *s);
/* Deep copy into dst (storage reused). 0 or -ENOMEM. */
int snapshot_copy(struct snapshot *dst, const struct snapshot *src);

/*
 * Loads one recorded tree (BEFORE or AFTER of `compute`) once: a collector
 * on DIR, one sample. Same status rules as snapshot_collector_sample.
 */
int snapshot_load_tree(const char *dir, struct snapshot *s);

#endif
