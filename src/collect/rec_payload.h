/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rec_payload: the flight recorder's payload beyond the core files
 * (doc/recording.md, "Payload"): the turbostat counters, the workload sources (processes,
 * cgroups, NICs, pressure, writeback), the blk-mq queues, the NUMA nodes
 * and the advisor's topology, each a record of tab-separated text lines
 * of the raw counters the collector read. Pack and unpack only; a recorded
 * payload is hostile input: every count is bounded, every index checked.
 */
#ifndef IOTRIAGE_REC_PAYLOAD_H
#define IOTRIAGE_REC_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "strbuf.h"
#include "topology.h"

/* Record tags: the file format's, append-only (1-6: snapshot.c's core files). */
enum {
	REC_TAG_TURBO = 7,
	REC_TAG_PROCS = 8,
	REC_TAG_CGROUPS = 9,
	REC_TAG_NICS = 10,
	REC_TAG_PRESSURE = 11,
	REC_TAG_WRITEBACK = 12,
	REC_TAG_BLKMQ = 13,
	REC_TAG_NUMA = 14,
	REC_TAG_TOPOLOGY = 15,
	REC_TAG_CADENCE = 16,
	/* format 6: the tracing stage's read (src/trace/rec_trace.c), packed
	 * and unpacked by the sampler; collect skips it */
	REC_TAG_TRACE = 17,
	/* what an operator did through the daemon in the interval (apply,
	 * undo): "KIND\tID\tBY" lines, sampler.c; a reader before it skips it */
	REC_TAG_EVENTS = 18,
};

/* Bounds on what a recording may make us allocate, a hostile one included:
 * a row is a line of a few bytes, its struct up to a few KB, so each
 * table is capped (worst case some tens of MB a payload, not its 192 MiB
 * times the struct's size), well above what a real host has. */
#define REC_PAYLOAD_PROCS_MAX	(1u << 18) /* processes (and exited ones) a scan */
#define REC_PAYLOAD_NICS_MAX	1024
#define REC_PAYLOAD_TURBO_MAX	CPUSET_MAX /* CPUs, packages */
#define REC_PAYLOAD_CGIO_MAX	(1u << 18) /* io.stat lines of all cgroups */
#define REC_PAYLOAD_TOPO_MAX	16384	   /* IRQs, devices, nets, blocks each */
#define REC_PAYLOAD_DEVIRQS_MAX 65536	   /* MSI vectors of all PCI functions */
#define REC_PAYLOAD_BLKMQ_MAX	16384	   /* hardware queues of all disks */

/* One record: 12-byte header (u16 tag, u16 0, i32 err, u32 length, LE), then the bytes. */
void rec_payload_put(struct strbuf *out, uint16_t tag, int32_t err, const char *buf, size_t len);

/* A record whose bytes are appended in place: rec_payload_begin() puts its
 * header with length 0 and returns where it starts, rec_payload_end()
 * writes the length of what was appended since (nothing after out->err). */
size_t rec_payload_begin(struct strbuf *out, uint16_t tag);
void rec_payload_end(struct strbuf *out, size_t at);

/*
 * Records packed once and appended again while what they pack is
 * unchanged, for a recorder packing every second: the topology (re-read
 * every few minutes; its owner clears topo_ok whenever it changes) and a
 * turbo reading (known by the time it was read: a reading the sampler
 * carried over skipped samples is the same bytes). Zeroed to start;
 * released by rec_payload_memo_free().
 */
struct rec_payload_memo {
	struct strbuf topo;
	bool topo_ok;
	struct strbuf turbo;
	bool turbo_ok;
	int64_t turbo_mono_ns;
	size_t turbo_ncpu, turbo_npkg;
};
void rec_payload_memo_free(struct rec_payload_memo *m);

/*
 * Appends the records of s's optional sections: turbo, the workload but
 * its processes, blk-mq and NUMA, and their cadence (s->cadence: which were
 * read, every how many samples, why). A section s lacks is left out.
 * memo (may be NULL) keeps the turbo record between calls. Returns out->err.
 */
int rec_payload_pack_sections(const struct snapshot *s, struct rec_payload_memo *memo,
			      struct strbuf *out);
/*
 * The processes' record: the rows only on a sample that scanned (a carried
 * table is its header line). Packed last: the rows come and go with the
 * scans, and the frame codec compares lines by position, so nothing after
 * them shifts. Returns out->err.
 */
int rec_payload_pack_procs(const struct snapshot *s, struct strbuf *out);

/*
 * Unpacking a payload's sections into s (storage reused): begin, each
 * record of a tag above but the topology through unpack_section (0,
 * -ENOMEM, or -EBADMSG: a malformed record, its source then unavailable),
 * then end, told whether a turbo and a workload record came: a section
 * the payload lacks is absent from s (NULL), never zeros.
 */
void rec_payload_unpack_begin(struct snapshot *s);
int rec_payload_unpack_section(uint16_t tag, const char *p, size_t len, struct snapshot *s);
void rec_payload_unpack_end(struct snapshot *s, bool had_turbo, bool had_workload);

/* The advisor's topology as a record. Returns out->err. */
int rec_payload_pack_topology(const struct topology *t, struct strbuf *out);
/* The same through memo (may be NULL): packed only when !memo->topo_ok. */
int rec_payload_pack_topology_memo(const struct topology *t, struct rec_payload_memo *memo,
				   struct strbuf *out);
/* The reverse into *ret (freed by topology_free, also on failure): 0,
 * -ENOMEM or -EBADMSG. */
int rec_payload_unpack_topology(const char *p, size_t len, struct topology *ret);

/* The record at *pos (before end): 1 (its tag, err, bytes and length set,
 * *pos past it), 0 at the end (less than a header left), -EBADMSG (its
 * length overruns the payload). */
int rec_payload_next(const char **pos, const char *end, uint16_t *ret_tag, int32_t *ret_err,
		     const char **ret_p, size_t *ret_len);

/* The first record of tag in a payload: 1 (*ret_p, *ret_len, *ret_err
 * set), 0 none, -EBADMSG (a record overruns the payload). */
int rec_payload_find(const void *buf, size_t len, uint16_t tag, const char **ret_p, size_t *ret_len,
		     int32_t *ret_err);

#endif
