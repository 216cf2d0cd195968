/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the TUI's samples come from, behind one interface: the daemon
 * (hello, history, subscribe over its socket; reconnects by itself), the
 * embedded sampler (src/sampler.c, in-process, on the loop's timer) or a
 * flight recording; each a table of operations (source_int.h, one file a
 * kind). All hand the same sample document to the model. Each active
 * IRQ's affinity, which the document does not carry, comes from the
 * embedded sampler (sampler_irq_affinity), else from /proc/irq under
 * --root or the daemon's root.
 */
#ifndef IOTRIAGE_TUI_SOURCE_H
#define IOTRIAGE_TUI_SOURCE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "model.h"

enum source_kind {
	SOURCE_EMBEDDED,
	SOURCE_DAEMON,
	SOURCE_REPLAY, /* a flight recording, stepped by keys (iotriage replay) */
};

struct source_opts {
	const char *socket;	 /* a daemon's socket: daemon only, waits for it */
	bool embedded;		 /* never try a daemon */
	long interval_ms;	 /* embedded interval, 0 = 1000; replay: its step, 0 a sample */
	const char *root;	 /* --root: sampled tree, /proc/irq; replay: the topology */
	const char *replay;	 /* a flight recording (DIR or FILE): replay it, nothing live */
	int64_t replay_at;	 /* its first sample shown: at or after this real ns */
	bool trace;		 /* --trace: the embedded sampler runs the BPF stage */
	double trace_budget_pct; /* per probe, % of one CPU; < 0 the default, 0 none */
};

struct source;

/*
 * Picks and opens the source: embedded when asked; else the daemon at
 * o->socket, or at the default socket if one answers there, else embedded.
 * Returns 0, or -errno with a message in err (the root cannot be opened,
 * the socket path is too long, out of memory). *ret_src is written only on
 * success.
 */
int source_open(const struct source_opts *o, struct source **ret_src, char *err, size_t errsz);

/* --trace: why tracing is unavailable in the embedded sampler, else NULL. */
const char *source_trace_unavailable(const struct source *src);

/* Closes the connection or the sampler; accepts NULL. */
void source_close(struct source *src);

/* The fd and events to poll (fd -1: nothing to wait for). */
void source_pollfd(const struct source *src, struct pollfd *ret_pfd);

/* CLOCK_MONOTONIC ns when source_dispatch() must run even without events
 * (the next embedded sample, the next reconnect attempt); INT64_MAX none. */
int64_t source_deadline_ns(const struct source *src);

/*
 * Does what is due: reads and decodes what the daemon sent, writes pending
 * requests, (re)connects, or takes an embedded sample; now_ns is
 * CLOCK_MONOTONIC. Decoded samples update the model's history always and
 * its tables unless paused. Returns UI_* flags (UI_REDRAW when the model or
 * the source's state changed).
 */
unsigned source_dispatch(struct source *src, short revents, int64_t now_ns, struct model *m,
			 bool paused);

/* Longer (dir > 0) or shorter (dir < 0) interval: the embedded sampler's,
 * or a daemon subscription's decimation. Returns UI_REDRAW or 0 at a limit. */
unsigned source_step_interval(struct source *src, int dir, int64_t now_ns);

/* The optional sources the open views show (1u << CAD_*, iotriage/types.h):
 * a daemon subscription then asks for them read every sample ("procs",
 * "turbostat", "nics", "cgroups", "pressure": true, doc/protocol.md). */
void source_want(struct source *src, unsigned cad_mask);

enum source_kind source_kind(const struct source *src);
/* Replay: the next (dir > 0) or previous (dir < 0) sample, or the one at
 * (at or after) real_ns; shown at the next dispatch. UI_REDRAW. */
unsigned source_replay_step(struct source *src, int dir);
unsigned source_replay_jump(struct source *src, int64_t real_ns);
/* Replay: the next interval (i): one sample, 10 s, 1 min, 10 min, then one
 * sample again; the sample shown is recomputed over it. UI_REDRAW. */
unsigned source_replay_widen(struct source *src);
/* Replay: a timeline of width w ("03:12:05 [----|-----] 2d 4h") into buf. */
void source_replay_timeline(const struct source *src, char *buf, size_t size, int w);
/*
 * The time keys, live and replay alike (replay: as source_replay_*; now is
 * the recording's end). Live, they move over the samples kept here: the
 * daemon's history and pushes as received, the embedded sampler's each with
 * its packed snapshot (PAST_MAX of them, PAST_BYTES_MAX of bytes); the
 * tables show the chosen one until source_time_now(), while new samples go
 * on into the sparkline. Back past the oldest kept, a daemon is asked for
 * its history that far back, which reaches into its flight recording when
 * it records. Widen (i): one sample, 10 s, 1 min, 10 min, the metrics and
 * findings recomputed over the interval (embedded: from the packed
 * snapshots; a daemon: from its flight recording, read here, when its
 * status names one; else the note says why not). Each returns
 * UI_REDRAW or 0 (nothing to do).
 */
unsigned source_time_step(struct source *src, int dir, struct model *m);
unsigned source_time_jump(struct source *src, int64_t real_ns, struct model *m);
unsigned source_time_widen(struct source *src, struct model *m);
unsigned source_time_now(struct source *src, struct model *m);
/* Live, looking at the past: true with the time of the sample shown and of
 * the newest; false showing now (and in a replay). */
bool source_past(const struct source *src, int64_t *ret_shown_ns, int64_t *ret_newest_ns);
/* What the last time key met ("the oldest sample kept here"; a daemon's
 * answer comes later), once: true with it in buf, then forgotten. */
bool source_past_note_take(struct source *src, char *buf, size_t size);
/* The interval the tables show, in ms (0 unknown yet). */
long source_interval_ms(const struct source *src);
/* True when samples flow: always for embedded, a live daemon connection. */
bool source_connected(const struct source *src);
/* The socket path in daemon mode, "" in embedded mode. */
const char *source_socket(const struct source *src);
/* What the header shows besides the mode: "", "disconnected: ...", a note. */
const char *source_state(const struct source *src);

/*
 * Applies (or undoes) suggestion id where the samples come from: through
 * iotriaged on a connection of its own, or here, embedded, with exactly the
 * writes advice showed (under root_dir; NULL "/"). 0 done, -1 failed; msg
 * says what happened either way.
 */
struct model_advice;
/* Why a replay refuses apply (undo false) or undo: the recording is the past. */
const char *source_replay_refusal(bool undo);
int source_apply(const struct source *src, const struct model_advice *advice, const char *root_dir,
		 const char *id, bool undo, char *msg, size_t size);

#endif
