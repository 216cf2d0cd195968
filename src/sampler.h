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
#include "rec_payload.h"
#include "snapshot.h"
#include "strbuf.h"
#include "topology.h"
#include "encode.h"
#include "metrics_trace.h"

struct sampler_opts {
	const char *root; /* --root DIR; NULL or "" = "/" */
	const char *host; /* hostname written in each document; NULL = none */
	const char *mode; /* "daemon", "live"; NULL = none */
	bool all_disks;	  /* partitions too (iostat -p ALL); whole disks only when false */
	unsigned skip;	  /* COLLECT_SKIP_* (snapshot.h): optional sources left out */
	bool advise;	  /* findings and suggestions in each document (doc/advise.md) */
	bool topo_given;  /* advise: the caller reads the topology (sampler_put_topology) */
	bool steady;	  /* advise: findings rise and clear with hysteresis (advise_hold) */
	/* The CPU budget (doc/PERFORMANCE.md, "Daemon cost"): percent of one
	 * CPU; > 0 makes the per-process scan adapt its cadence to stay in it,
	 * 0 scans every sample. interval_ms: the caller's tick (0: 1000). */
	double cpu_budget_pct;
	long interval_ms;
	/* --trace (doc/trace.md): the BPF tracing stage; trace_budget_pct per
	 * probe in % of one CPU (<= 0 none), trace_btf the kernel BTF (NULL:
	 * the default) */
	bool trace;
	double trace_budget_pct;
	const char *trace_btf;
};

/* At most this many samples between two reads of an optional source (5 min
 * at 1 Hz): with 2 000 processes a scan (~9 ms here) every 120 samples was
 * still 0.4x of the core sample, so the cap, not the budget, set the cost;
 * up to ~5 000 processes the cadence now follows the count. */
#define SAMPLER_EVERY_MAX 300
/* The optional sources read at their cadence may cost together on average
 * at most 1/SAMPLER_OPT_SHARE of the rest of the sample. */
#define SAMPLER_OPT_SHARE 4

/* One optional source's cadence (enum cad_src). */
struct sampler_cad {
	uint32_t every;	 /* samples between two reads, from the costs */
	uint32_t age;	 /* samples since the last read */
	const char *why; /* why the current sample read it, NULL: it did not */
	int64_t cost_ns; /* CPU time of the last read */
};

/* The advisor's topology (/proc/irq, /sys) is re-read at most this often:
 * reading it costs milliseconds on a big host, the samples microseconds. */
#define SAMPLER_TOPO_NS (10 * INT64_C(1000000000))
/* ... and only this often while no finding stands: then nothing uses it
 * (~1-2 ms a read on the development VM, 4 000 IRQ lines cost more); a
 * finding that comes makes the thread read it at once (topo_reader_pace),
 * so only that first sample's advice is on the older one. */
#define SAMPLER_TOPO_IDLE_NS (300 * INT64_C(1000000000))

/* The sampler is opaque: sampler.c alone knows its fields; its callers
 * go through the functions below. */
struct sampler;

/*
 * Opens the root and prepares an empty sampler; takes no sample. Returns 0 or
 * -errno (-ENOENT/-EACCES/-ENOTDIR: the root cannot be opened, -ENOMEM).
 * *ret_s is written only on success; release it with sampler_close().
 */
int sampler_open(const struct sampler_opts *o, struct sampler **ret_s);

/* Frees everything; accepts NULL. */
void sampler_close(struct sampler *s);

/* With --trace: why tracing is unavailable ("no BTF: ..."), NULL when it
 * runs or was not asked for. The caller prints it once as
 * "tracing: unavailable (WHY)". */
const char *sampler_trace_unavailable(const struct sampler *s);

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
int sampler_pack(struct sampler *s, struct strbuf *out);

/* Notes what an operator did (kind "apply" or "undo", the suggestion's id,
 * who asked) for the next sample: its document's "events" and its record
 * (REC_TAG_EVENTS), so the past and a report show it. At most
 * ENCODE_EVENTS_MAX a sample; more are dropped. */
void sampler_note_event(struct sampler *s, const char *kind, const char *id, const char *by);

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

/* The advisor's topology the current advice is made on (a replay's: the
 * one recorded with its sample), NULL when none is held. */
const struct topology *sampler_topology(const struct sampler *s);

/* For samples fed by sampler_tick_recorded() outside a replay (the live
 * view's past): steady, findings rise and clear with hysteresis across
 * ticks (as sampler_opts.steady); topo_recorded, the payloads are of
 * format 3 or later, so a sample's topology is the one recorded with it
 * or none, never one read here. */
void sampler_set_steady(struct sampler *s, bool steady);
void sampler_set_topo_recorded(struct sampler *s, bool topo_recorded);

/* Replayed trace rows left out as impossible, summed over the frames
 * since the sampler opened (trace.rows_dropped: a damaged recording). */
uint64_t sampler_trace_rows_dropped(const struct sampler *s);

/* The advice encoded in the current document, NULL when advice is off, not
 * computed yet (one sample) or failed (out of memory). */
const struct advice *sampler_advice(const struct sampler *s);

/* How often the advisor's topology is read now: SAMPLER_TOPO_NS while a
 * finding stands (its suggestions and undo values come from it) or when the
 * sampler reads it itself (a live view: its IRQ lines' affinities come
 * from it), else SAMPLER_TOPO_IDLE_NS (the daemon's thread also reads it
 * every SAMPLER_TOPO_NS while a subscriber watches). */
int64_t sampler_topo_period_ns(const struct sampler *s);

/* The next tick re-reads the topology (after a write to /proc/irq, say);
 * with topo_given, advice stops until sampler_put_topology() gives a new one. */
void sampler_topology_stale(struct sampler *s);

/* With topo_given: the topology to advise on from now, read by the caller
 * (iotriaged reads it on a thread: on a big host it takes longer than a
 * sample). Takes *t over, leaving it empty. */
void sampler_put_topology(struct sampler *s, struct topology *t);

/*
 * The optional sources a client is looking at (iotriaged: a subscriber
 * asked for them), 1u << CAD_* bits: every sample reads them, whatever the
 * cadence.
 */
void sampler_want(struct sampler *s, unsigned cad_mask);

/* "processes", "turbostat", "nics", "cgroups", "pressure": the JSON's names. */
const char *sampler_cad_name(enum cad_src k);

/*
 * The CPU budget's rule, pure: from each optional source's cost per read
 * (cost_ns), the sources read every sample anyway (pinned, 1u << CAD_*
 * bits: their cost is not weighed), the average CPU of the rest of the
 * sample (base_ns) and the budget per sample (budget_ns), the cadence of
 * each source in ret_every: the unpinned ones together cost on average at
 * most min(base_ns / SAMPLER_OPT_SHARE, budget_ns - base_ns), shared out
 * cheapest first (a source cheaper than its share is read every sample and
 * leaves the rest of its share to the others); 1 when budget_ns is 0 or
 * nothing is measured yet, at most SAMPLER_EVERY_MAX.
 */
void sampler_cadence(const int64_t cost_ns[CAD__COUNT], unsigned pinned, int64_t base_ns,
		     int64_t budget_ns, uint32_t ret_every[CAD__COUNT]);

/* The metrics of (previous, current), NULL until two samples exist. */
/* The root every source is read under (the daemon's recorder and
 * topology thread read the same tree). */
const struct root *sampler_root(const struct sampler *s);
/* Whether the caller hands the topology in (sampler_put_topology) or the
 * sampler reads it itself between samples (the daemon's thread failed). */
void sampler_set_topo_given(struct sampler *s, bool given);
/* Whether the last interval came from CLOCK_MONOTONIC (/proc/uptime did
 * not move, as in a recorded tree). */
bool sampler_interval_from_clock(const struct sampler *s);
/* What the samples cost (the daemon's status, cpu_budget): the last
 * sample's CPU time, the moving average without the optional reads, the
 * sources read every sample now (1u << CAD_*) and each source's cadence. */
struct sampler_cost {
	int64_t tick_cpu_ns, base_cpu_ns;
	unsigned pinned;
	const struct sampler_cad *cad; /* [CAD__COUNT] */
};
void sampler_cost(const struct sampler *s, struct sampler_cost *ret);
const struct metrics *sampler_metrics(const struct sampler *s);

/* With --trace: the stage's read of the current sample (counters since it
 * was loaded), NULL when not tracing or the read failed; and the metrics
 * of its last interval (what the advice judged by), NULL until two reads. */
const struct trace_raw *sampler_trace_raw(const struct sampler *s);
const struct trace_metrics *sampler_trace_metrics(const struct sampler *s);

/* 0, or snapshot_collector_sample()'s -errno when neither /proc/stat nor
 * /proc/diskstats could be read for the current sample. */
int sampler_last_error(const struct sampler *s);

/*
 * Replay of a flight recording (doc/recording.md): a reader on DIR or one

 * segment file and a sampler fed the recorded bytes (the optional
 * sections, their cadence and the advisor's topology when recorded). Each
 * sample's document is the one the recording daemon sent (doc/recording.md
 * says where it cannot be); findings only after sampler_replay_advise().
 */
struct recframe;
struct sampler_replay;

/* 0 or -errno with why set; *ret_r only on success. */
int sampler_replay_open(const char *path, struct sampler_replay **ret_r, char *why,
			size_t why_size);
/* The record directory dirfd (iotriaged's own, held since it was checked:
 * never its path again), shown as shown. */
int sampler_replay_open_dir(int dirfd, const char *shown, struct sampler_replay **ret_r, char *why,
			    size_t why_size);
void sampler_replay_close(struct sampler_replay *r);

/*
 * Findings and suggestions in the replayed documents, as iotriaged (without
 * --core-only) and the embedded sampler put them: the same advisor on the
 * replayed snapshot and metrics, on the topology recorded with each sample
 * (format version 3); for samples that recorded none (an older recording)
 * on the one read once, now, under root (NULL "/"), as the embedded
 * sampler reads it. Call before the first seek or next. 0 or -errno (the root cannot be
 * opened, -ENOMEM; nothing changed).
 */
int sampler_replay_advise(struct sampler_replay *r, const char *root);
/* The same on the recorded topologies only (a sample that recorded none
 * has no advice): what the daemon's history sends of its own recording.
 * 0 or -ENOMEM. */
int sampler_replay_advise_recorded(struct sampler_replay *r);

/*
 * The interval of the documents (atop's wider interval): 0, each sample's
 * metrics against the sample before it; else against the last sample
 * step_ns (within half the recording's interval) before it, the samples in
 * between decoded but not sampled (counters are cumulative: the rates are
 * the step's means), and sampler_replay_next() goes a step on. Takes
 * effect at the next seek.
 */
void sampler_replay_step(struct sampler_replay *r, int64_t step_ns);

/* The next sample is the first one taken at or after real_ns (before: the
 * last one taken before it), its metrics from the sample before it (when
 * of the same run; with a step, from the sample a step before it). 1, 0
 * when there is no such sample, or -errno. */
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
