/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one sampler: collect -> metrics -> encode, used by iotriaged and by the
 * client's embedded mode alike. It owns the collector, the previous and
 * current snapshots and the metrics, and encodes each sample once. It does no
 * I/O beyond collect, never prints and never sleeps: the caller owns the clock
 * that decides when to tick.
 */
#ifndef IOTRIAGE_SAMPLER_H
#define IOTRIAGE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advise.h"
#include "metrics.h"
#include "snapshot.h"
#include "strbuf.h"
#include "topology.h"

struct sampler_opts {
	const char *root; /* --root DIR; NULL or "" = "/" */
	const char *host; /* hostname written in each document; NULL = none */
	const char *mode; /* "daemon", "live"; NULL = none */
	bool all_disks;	  /* partitions too (iostat -p ALL); whole disks only when false */
	unsigned skip;	  /* COLLECT_SKIP_* (snapshot.h): optional sources left out */
	bool advise;	  /* findings and suggestions in each document (doc/advise.md) */
	bool topo_given;  /* advise: the caller reads the topology (sampler_put_topology) */
	/* The CPU budget (doc/PERFORMANCE.md, "Daemon cost"): percent of one
	 * CPU; > 0 makes the per-process scan adapt its cadence to stay in it,
	 * 0 scans every sample. interval_ms: the caller's tick (0: 1000). */
	double cpu_budget_pct;
	long interval_ms;
};

/* At most this many samples between two per-process scans. */
#define SAMPLER_SCAN_EVERY_MAX 120
/* Per-process scanning may cost on average at most 1/SAMPLER_SCAN_SHARE
 * of the rest of the sample. */
#define SAMPLER_SCAN_SHARE 4

/* The advisor's topology (/proc/irq, /sys) is re-read at most this often:
 * reading it costs milliseconds on a big host, the samples microseconds. */
#define SAMPLER_TOPO_NS (10 * INT64_C(1000000000))

struct sampler {
	struct snapshot_collector col;
	struct snapshot snap[2]; /* swapped each tick: no copy, storage reused */
	unsigned cur;		 /* index of the current snapshot in snap[] */
	uint64_t ticks;		 /* samples taken (successful or not) */
	int last_err;		 /* snapshot_collector_sample()'s result for the current sample */
	bool have_metrics;	 /* m is of (previous, current) */
	bool itv_from_clock;	 /* /proc/uptime unusable: interval from CLOCK_MONOTONIC */
	struct metrics m;
	struct strbuf json; /* the current sample's document, no newline */
	char *host;
	char *mode;
	bool all_disks;
	bool advise;
	bool topo_given;
	bool have_topo;	 /* topo holds a topology read at topo_ns */
	int64_t topo_ns; /* CLOCK_MONOTONIC of the snapshot it was read with */
	struct topology topo;
	struct topo_hint topo_hint; /* irqbalance between topology reads */
	struct advice adv;	    /* of the current sample when advise_ok */
	bool advise_ok;
	/* the per-process scan's cadence */
	double budget_pct;
	long interval_ms;
	bool want_procs;      /* a client looks at processes (sampler_want_procs) */
	uint32_t scan_every;  /* samples between two scans, from the costs below */
	uint32_t since_scan;  /* samples since the last scan */
	const char *scan_why; /* why the current sample scanned, NULL: it did not */
	int64_t scan_cpu_ns;  /* CPU time of the last scan */
	int64_t base_cpu_ns;  /* of a sample without the scan (moving average) */
	int64_t tick_cpu_ns;  /* of the last sample, scan included */
	/* replay: the cadence and the topology are the recording's */
	bool replaying;
	struct strbuf rec_topo; /* the topology record last put, to skip an unchanged one */
};

/*
 * Opens the root and prepares an empty sampler; takes no sample. Returns 0 or
 * -errno (-ENOENT/-EACCES/-ENOTDIR: the root cannot be opened, -ENOMEM).
 * *ret_s is written only on success; release it with sampler_close().
 */
int sampler_open(const struct sampler_opts *o, struct sampler **ret_s);

/* Frees everything; accepts NULL. */
void sampler_close(struct sampler *s);

/*
 * Takes one sample, computes metrics against the previous one (the first
 * sample has none) and encodes the document of doc/json.md. The interval is
 * the /proc/uptime difference, as sysstat takes it; when that is unusable
 * (missing, or unchanged as in a recorded tree) it is CLOCK_MONOTONIC's.
 *
 * Returns 0 when a new document is ready, even if some or all sources failed:
 * the document says which and why (sampler_last_error() tells whether
 * anything usable was read). Returns -ENOMEM when no document could be built;
 * the previous document is then gone too (sampler_json() returns NULL).
 */
int sampler_tick(struct sampler *s);

/*
 * sampler_tick() on a recorded sample: the snapshot comes from a flight
 * recorder payload (snapshot_collector_unpack) with the recorded id and times, and
 * goes through the same metrics and encoding, so the document is the one
 * the recording daemon sent. Same returns, plus -EBADMSG for a payload
 * whose records overrun it (nothing changed then).
 */
int sampler_tick_recorded(struct sampler *s, uint64_t id, int64_t mono_ns, int64_t real_ns,
			  const void *payload, size_t len);

/*
 * The flight recorder's payload of the current sample (doc/recording.md):
 * snapshot_collector_pack() and, when advising, the topology the advice
 * was computed on. Appended to out; returns out->err.
 */
int sampler_pack(const struct sampler *s, struct strbuf *out);

/* The "host" and "mode" written in the next documents (a replay writes the
 * recording's). 0 or -ENOMEM (nothing changed). */
int sampler_set_labels(struct sampler *s, const char *host, const char *mode);

/* Forgets the previous sample: the next tick has no metrics, as a daemon's
 * first sample (a recording's next run, or a jump in time). */
void sampler_restart(struct sampler *s);

/* The current document (NUL-terminated, no trailing newline) and its length
 * in *ret_len (may be NULL). NULL before the first successful tick. Valid
 * until the next sampler_tick() or sampler_close(). */
const char *sampler_json(const struct sampler *s, size_t *ret_len);

/* The current snapshot, NULL before the first tick. */
const struct snapshot *sampler_current(const struct sampler *s);

/* The advice encoded in the current document, NULL when advice is off, not
 * computed yet (one sample) or failed (out of memory). */
const struct advice *sampler_advice(const struct sampler *s);

/* The next tick re-reads the topology (after a write to /proc/irq, say);
 * with topo_given, advice stops until sampler_put_topology() gives a new one. */
void sampler_topology_stale(struct sampler *s);

/* With topo_given: the topology to advise on from now, read by the caller
 * (iotriaged reads it on a thread: on a big host it takes longer than a
 * sample). Takes *t over, leaving it empty. */
void sampler_put_topology(struct sampler *s, struct topology *t);

/*
 * Whether a client is looking at processes (iotriaged: a subscriber asked
 * for them): then every sample scans /proc/PID/io, whatever the cadence.
 */
void sampler_want_procs(struct sampler *s, bool want);

/*
 * The cadence of the per-process scan, pure: a scan every N samples so
 * that on average it costs at most 1/SAMPLER_SCAN_SHARE of the rest of the
 * sample (base_ns) and the whole stays under budget_ns per sample; 1 when
 * budget_ns is 0, at most SAMPLER_SCAN_EVERY_MAX.
 */
uint32_t sampler_scan_every(int64_t scan_ns, int64_t base_ns, int64_t budget_ns);

/* The metrics of (previous, current), NULL until two samples exist. */
const struct metrics *sampler_metrics(const struct sampler *s);

/* 0, or snapshot_collector_sample()'s -errno when neither /proc/stat nor
 * /proc/diskstats could be read for the current sample. */
int sampler_last_error(const struct sampler *s);

/*
 * Replay of a flight recording (doc/recording.md): a reader on DIR or one
 * segment file and a sampler fed the recorded bytes (the optional
 * sections and the advisor's topology when recorded). Each sample's
 * document is the one the recording daemon sent (doc/recording.md says
 * where it cannot be).
 */
struct recframe;
struct sampler_replay;

/* 0 or -errno with why set; *ret_r only on success. */
int sampler_replay_open(const char *path, struct sampler_replay **ret_r, char *why,
			size_t why_size);
void sampler_replay_close(struct sampler_replay *r);

/* The next sample is the first one taken at or after real_ns (before: the
 * last one taken before it), its metrics from the sample before it (when
 * of the same run). 1, 0 when there is no such sample, or -errno. */
int sampler_replay_seek(struct sampler_replay *r, int64_t real_ns, bool before);

/* The times of the recording's first and last samples: 1, or 0 when empty.
 * Rewinds to the first sample. */
int sampler_replay_span(struct sampler_replay *r, int64_t *ret_first, int64_t *ret_last);

/* Replays the next sample: 1 (its document in sampler_replay_sampler()'s
 * sampler_json(), its frame in *ret_f, valid until the next call), 0 at the
 * end, -errno (-ENOMEM). Damage met on the way is skipped: see
 * sampler_replay_problems(). */
int sampler_replay_next(struct sampler_replay *r, const struct recframe **ret_f);

struct sampler *sampler_replay_sampler(struct sampler_replay *r);

/* The reader's problems since the last call, one a line; NULL when none. */
const char *sampler_replay_problems(struct sampler_replay *r);

#endif
