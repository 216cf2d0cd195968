/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the TUI's source (source.h): the one struct every kind fills, the
 * table of operations each kind gives (source_daemon.c, source_embedded.c,
 * source_replay.c) and what they share (source.c: the state line;
 * source_past.c: the samples kept for the live time keys).
 * source.c dispatches through src->ops; nothing outside tui/source*.c
 * includes this.
 */
#ifndef IOTRIAGE_TUI_SOURCE_INT_H
#define IOTRIAGE_TUI_SOURCE_INT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "daemon_conn.h"
#include "root.h"
#include "source.h"
#include "strbuf.h"

struct model_advice;

/* The time keys (source.h source_time_*). */
struct source_time_ops {
	unsigned (*step)(struct source *src, int dir, struct model *m);
	unsigned (*jump)(struct source *src, int64_t real_ns, struct model *m);
	unsigned (*widen)(struct source *src, struct model *m);
	unsigned (*now)(struct source *src, struct model *m);
};

/*
 * What one kind of source does, its entries in this order (the kinds'
 * tables are positional: kind, dispatch, deadline_ns, step_interval,
 * interval_ms, time, apply). Every entry is set; what a kind has no
 * use for returns 0 (the live kinds share the past's time keys).
 */
struct source_ops {
	enum source_kind kind;
	unsigned (*dispatch)(struct source *src, short revents, int64_t now_ns, struct model *m,
			     bool paused);
	int64_t (*deadline_ns)(const struct source *src);
	/* +/-: a longer or shorter interval; UI_REDRAW or 0 at a limit */
	unsigned (*step_interval)(struct source *src, int dir, int64_t now_ns);
	/* the interval of the samples themselves (not a widened one) */
	long (*interval_ms)(const struct source *src);
	/* the time keys: the past's (live) or the recording's */
	const struct source_time_ops *time;
	/* source_apply(): 0 done, -1 failed, msg says which */
	int (*apply)(const struct source *src, const struct model_advice *advice,
		     const char *root_dir, const char *id, bool undo, char *msg, size_t size);
};

extern const struct source_ops source_daemon_ops;
extern const struct source_ops source_embedded_ops;
extern const struct source_ops source_replay_ops;

/* One sample kept for the time keys: its document as received (or as the
 * embedded sampler encoded it) and, embedded, its packed snapshot
 * (sampler_pack, the flight recorder's payload) for wider intervals. */
struct past_entry {
	uint64_t id;
	int64_t mono_ns, real_ns;
	char *doc;
	size_t len;
	char *payload; /* NULL: none (the daemon's samples) */
	size_t plen;
};

struct source {
	const struct source_ops *ops;
	bool auto_mode; /* no --socket: fall back to embedded if the daemon refuses us */
	char state[256];
	char host[256];

	/* embedded (source_embedded.c) */
	struct sampler *sampler;
	bool trace;		 /* --trace */
	double trace_budget_pct; /* --trace-budget; < 0 the default */
	long interval_ms;
	int64_t next_tick_ns;

	/* daemon (source_daemon.c) */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int fd;
	bool hello_ok;	     /* this connection's hello was accepted */
	bool ever_connected; /* some hello was accepted: stay a daemon client */
	long daemon_itv_ms;
	unsigned every;
	unsigned want; /* 1u << CAD_*: the views open ask the daemon to read these every sample */
	int64_t next_connect_ns;
	bool history_pending;	       /* the history reply may be IOT_PROTO_MAX_HISTORY_REPLY */
	int64_t rx_ns;		       /* connected, or the last whole line received */
	char why[DAEMON_CONN_WHY_MAX]; /* why the last connect was refused */
	char *rbuf;
	size_t rlen, rcap;
	size_t rscan; /* rbuf[0, rscan) holds no newline: a long line is scanned once */
	char *wbuf;
	size_t wlen, wcap;
	struct json_tokener *tok;

	/* replay (source_replay.c) */
	struct sampler_replay *rp;
	int rp_steps; /* pending: samples forward (> 0) or back (< 0) */
	bool rp_jump; /* pending: to rp_target first */
	int64_t rp_target;
	int64_t rp_cur;	  /* real ns of the sample shown, 0 none */
	uint64_t rp_id;	  /* its sample id */
	int64_t rp_first; /* the recording's span */
	int64_t rp_last;
	uint32_t rp_itv_ms;
	int64_t rp_step_ns; /* each interval this long (i), 0 one sample */

	/* the past (source_past.c, live only): the samples kept here, oldest
	 * first; the tables show the one at past_ns while past is set */
	struct past_entry *pe;
	size_t pn, pcap, pbytes;
	bool past;
	int64_t past_ns;
	int64_t past_base_ns;	/* the start of its interval shown, 0: the sample's own */
	int64_t past_step_ns;	/* i: each interval this long, 0 one sample */
	bool past_fetch;	/* a history request reaching into the recording is out */
	int64_t past_want;	/* the time it is for */
	struct sampler *past_s; /* embedded: wider intervals from the packed snapshots */
	/* a daemon: wider intervals asked of it (history "at", "step_ms"),
	 * made from its recording; one request out at a time */
	bool daemon_records; /* its status says --record */
	bool wide_fetch;     /* a request is out, for: */
	int64_t wide_at_ns;
	int64_t wide_step_ns;
	struct strbuf pack;
	char past_note[160];

	/* --root: the tree the embedded sampler reads (also a daemon's
	 * fallback when it refuses us) */
	bool root_given;
	struct root root;
};

/* source.c */
void source_set_state(struct source *src, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* i's intervals (atop's habit of widening): the one after cur, 0 after
 * the widest */
int64_t source_wider_ns(int64_t cur_ns);
/* Of steps[0, n) ascending, the next after (dir > 0) or before cur; cur
 * itself at the end */
long source_step_long(const long *steps, size_t n, long cur, int dir);

/* source_embedded.c: starts the embedded sampler on root (NULL "/") and
 * makes src an embedded source; 0 or -errno with err set */
int source_embedded_start(struct source *src, const char *root, char *err, size_t errsz);

/* source_daemon.c */
int source_daemon_open(struct source *src, const struct source_opts *o, char *err, size_t errsz);
void source_daemon_close(struct source *src);
void source_daemon_want(struct source *src);
/* The history reaching back to t asked of the daemon (past_older): true
 * when asked (or already asking: *ret_flags), false when the daemon
 * cannot be asked now */
bool source_daemon_ask_past(struct source *src, int64_t t, unsigned *ret_flags);
/* The interval of step_ns ending at the kept sample at at_ns, asked of the
 * daemon (made from its recording; past_wide_fetched() takes the answer):
 * false when it cannot be asked now (not connected) */
bool source_daemon_ask_wide(struct source *src, int64_t at_ns, int64_t step_ns);

/* source_replay.c */
int source_replay_start(struct source *src, const struct source_opts *o, char *err, size_t errsz);

/* source_past.c: the live time keys (the ops of the daemon and embedded) */
void past_add(struct source *src, const struct past_entry *tmpl, const char *doc, size_t len,
	      const void *payload, size_t plen);
void past_clear(struct source *src);
unsigned past_fetched(struct source *src, struct json_object *samples, struct model *m);
/* The daemon's answer to source_daemon_ask_wide(): samples (its one
 * document, or none when not recorded), or why it refused (ok false) */
unsigned past_wide_fetched(struct source *src, bool ok, struct json_object *samples,
			   const char *why, struct model *m);
extern const struct source_time_ops source_past_time;

#endif
