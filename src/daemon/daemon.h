/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iotriaged's one context struct and the functions its modules share: main.c
 * (arguments, start-up), log.c (logging, sd_notify), loop.c (the epoll loop),
 * the server (listen.c the socket, conn.c the clients' connections and
 * queues, commands.c the requests), history.c (the sample ring), worker.c, topo.c and
 * metrics_http.c.
 */
#ifndef IOTRIAGED_DAEMON_H
#define IOTRIAGED_DAEMON_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "clock.h"
#include "history.h"
#include "iotriage/protocol.h"
#include "rec_file.h"
#include "sampler.h"
#include "strbuf.h"

enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
};

/* A pushed sample's line is this, the sample document, then "}\n". */
#define IOTRIAGED_EVENT_PREFIX "{\"ok\":true,\"event\":\"sample\",\"sample\":"

/* What an epoll event's data.ptr points at: the first member of each owner. */
enum watch_kind {
	WATCH_TIMER,
	WATCH_SIGNAL,
	WATCH_LISTEN,
	WATCH_CLIENT,
	WATCH_WORKER,	       /* worker.c's eventfd: a bench job ended */
	WATCH_WORKER_DEADLINE, /* worker.c's timerfd: a stopped job's deadline passed */
	WATCH_TOPOLOGY,	       /* topo.c's eventfd: the advisor's topology was read */
	WATCH_METRICS,	       /* metrics_http.c: libmicrohttpd's epoll fd */
	WATCH_REC_HISTORY,     /* rec.c's eventfd: a history reply's recorded part is made */
};

struct watch {
	enum watch_kind kind;
	int fd;
};

/* A slice of a blob waiting to be written to a client. */
struct oseg {
	struct blob *b;
	size_t off;
	size_t len;
	bool push;     /* a pushed sample: counts against IOT_PROTO_MAX_PUSH_BACKLOG */
	bool owned;    /* a history chunk made for this reply: counts in hist_queued */
	bool recorded; /* a history reply's part from the recording: counts in rec_bytes */
};

struct rec_job; /* rec.c: a history reply's recorded part being made */

struct client {
	struct watch w; /* first: epoll's data.ptr */
	unsigned serial;
	struct ucred cred; /* SO_PEERCRED at accept: who may ask privileged requests */
	char *in;	   /* request bytes not yet processed */
	size_t in_len, in_cap;
	struct oseg *q; /* output queue: segments [q_head, q_head + q_n) */
	size_t q_head, q_n, q_cap;
	size_t q_bytes;	   /* unwritten bytes in the queue */
	size_t push_bytes; /* of which pushed samples */
	uint32_t events;   /* the epoll interest currently registered */
	bool subscribed;
	uint32_t every;	       /* push every Nth sample */
	unsigned want;	       /* 1u << CAD_*: subscribed with "procs", "turbostat", ...: true */
	uint64_t sub_counter;  /* samples seen since subscribing */
	int64_t line_start_ns; /* a request line is due since then (0: none pending) */
	int64_t reply_wait_ns; /* replies unwritten, none written since then */
	/* a history reply being written as the socket drains (history_step):
	 * samples with ids in (hist_after, hist_last] still to send */
	bool hist_active;
	bool hist_wait; /* waiting for the daemon-wide budget (HIST_QUEUED_MAX) */
	uint64_t hist_after, hist_last;
	uint64_t hist_first_sent;
	size_t hist_count;    /* samples sent so far */
	size_t hist_recorded; /* of which, before them, from the flight recording */
	/* the reply reaches into the recording: its part from there is made
	 * when rec_history_ready() says so (rec.c), from this real time on */
	bool rec_pending;
	int64_t rec_from_ns;
	/* history "at": the one interval this long ending at the recorded
	 * sample at rec_from_ns; 0: the samples from rec_from_ns on */
	int64_t rec_step_ns;
	struct rec_job *rec_job; /* that part, being made by rec.c's replay thread */
	size_t rec_bytes;	 /* of q_bytes, that part, not yet written */
	size_t owned_bytes;	 /* of q_bytes, history chunks made for it */
	struct blob **held;	 /* events pushed while a history reply is written */
	size_t held_n, held_cap, held_bytes;
	bool eof;     /* the peer shut down its side */
	bool closing; /* no more requests: close once the queue is written */
	bool dead;    /* freed by the loop after the current batch */
	struct client *next;
};

struct daemon_args {
	const char *socket_path; /* NULL: iot_proto_default_socket() */
	const char *root;	 /* NULL: "/" */
	const char *group;	 /* NULL: "iotriage" if it exists */
	long interval_ms;
	long history_s;
	long max_clients;
	long max_clients_per_uid; /* for uids other than 0 and the daemon's */
	bool foreground;
	bool core_only; /* --core-only: no turbostat, no processes/NICs/pressure/writeback */
	const char *metrics_listen; /* --metrics-listen ADDR:PORT; NULL: no /metrics */
	long metrics_top_irqs;	    /* --metrics-top-irqs: accepted, no effect (every line) */
	double cpu_budget_pct;	    /* --cpu-budget: the per-process scan's cadence, 0 off */
	bool trace;		    /* --trace: the BPF tracing stage (doc/trace.md) */
	double trace_budget_pct;    /* --trace-budget: per probe, % of one CPU, 0 none */
	const char *record_dir;	    /* --record DIR; NULL: no flight recorder */
	uint64_t record_max_bytes;  /* --record-max-bytes */
	int64_t record_max_age_s;   /* --record-max-age; 0: no limit */
	uint64_t record_min_free;   /* --record-min-free: the free-space floor */
	int64_t record_compact_s;   /* --record-compact-after; 0: never */
	unsigned record_keep;	    /* --record-compact-keep: one sample in N */

	const char *metrics_device_exclude; /* --metrics-device-exclude REGEX; "": none */
	regex_t *metrics_exclude_re;	    /* compiled from it; NULL: every device */
};

/* --record's state: rec.c's alone (below, rec_*). */
struct recorder;

struct daemon {
	struct daemon_args args;
	char socket_path[108];
	int socket_dirfd;      /* O_PATH: the checked directory the socket is made in */
	char socket_name[108]; /* the socket's name in it */
	bool socket_made;      /* socket_dev, socket_ino are those of the socket we bound */
	ino_t socket_ino;      /* to remove only our own socket at exit */
	dev_t socket_dev;
	int epfd;
	struct watch timer;
	struct watch sig;
	struct watch listen;
	struct sampler *sampler;
	struct history hist;
	struct json_tokener *tok;
	struct strbuf sb;      /* reply scratch */
	struct blob *comma;    /* "," between history samples */
	struct blob *list_end; /* "]" closing a history reply's samples */
	size_t hist_queued;    /* history chunks in all queues, bytes */
	bool hist_waiting;     /* some client waits for hist_queued to fall */
	bool rec_waiting;      /* some client waits for its turn to replay the recording */
	int64_t sweep_ns;      /* the last server_timeouts() */
	struct client *clients;
	struct worker_run *worker;    /* worker.c: NULL until the first worker.start */
	struct topo_reader *topo;     /* topo.c: NULL with --core-only */
	struct metrics_http *metrics; /* metrics_http.c: NULL without --metrics-listen */
	struct recorder *rec;	      /* rec.c's, opaque: NULL without --record */
	unsigned nclients;
	unsigned nsubscribers;
	uint64_t busy_refused;	/* clients refused since the last "refused" log line */
	int64_t busy_logged_ns; /* when that line was logged */
	uint64_t too_long;	/* clients closed for too long a line since the last such line */
	int64_t too_long_logged_ns;
	unsigned next_serial;
	uint64_t samples;
	uint64_t overruns;
	uint64_t sample_errors;
	int last_sample_err;  /* to log a source failure once, not every sample */
	int64_t tick_last_ns; /* wall time of the last collect + encode + publish */
	int64_t tick_max_ns;
	int64_t tick_sum_ns;
	int64_t start_mono_ns;
	bool ready_sent;
	bool quit;
	int exit_code;
};

/* ---- log.c: logging and sd_notify ---- */

/* Logs to the journal with "<N>" priorities when stderr is its stream. */
void daemon_log_init(void);
/* --verbose: debug lines too (client connections). */
void daemon_log_verbose(void);
/* Detached: stderr is /dev/null, lines go to syslog. */
void daemon_log_to_syslog(void);

/* One log line "iotriaged: ..." on stderr; "<N>" first under journald.
 * prio is a syslog level (LOG_ERR...). */
void daemon_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends state ("READY=1") to $NOTIFY_SOCKET. 0 when sent or not under
 * systemd (no NOTIFY_SOCKET), else -errno. */
int daemon_notify(const char *state);

/* ---- the server: listen.c, conn.c, commands.c (server.h inside) ---- */

/* Binds and listens on d->socket_path (stale-socket check, mode, group).
 * Logs its own errors; returns 0 or -errno. */
int server_listen(struct daemon *d);
/* Removes the socket file if it is still ours, closes everything. */
void server_shutdown(struct daemon *d);
/* Accepts every pending connection. */
void server_accept(struct daemon *d);
/* epoll said something about client c. */
void server_client_event(struct daemon *d, struct client *c, uint32_t events);
/* A new sample was pushed into the history: queue it to subscribers. */
void server_publish(struct daemon *d, const struct hist_entry *e);
/* Frees the clients marked dead. */
void server_reap(struct daemon *d);
/* After each batch: resumes history replies that waited for memory or for
 * their turn to replay the recording. */
void server_resume(struct daemon *d);
/* Closes clients past IOT_PROTO_REQUEST_TIMEOUT_MS or
 * IOT_PROTO_REPLY_TIMEOUT_MS. Returns the epoll_wait timeout (ms, -1: none)
 * until it should run again. */
int server_timeouts(struct daemon *d);
/* Queues b (a whole event line that is not a sample) to every subscriber,
 * whatever its "every": the same bytes for all, counted as pushed data. */
void server_publish_event(struct daemon *d, struct blob *b);

/*
 * The request dispatch: commands.c's table of these, one entry per "cmd".
 * A handler replies exactly once (server_reply_* below) and returns 0, or
 * returns -errno without replying and the dispatcher answers "internal".
 * privileged: only uid 0 and the daemon's own uid may ask (SO_PEERCRED).
 */
struct request;
struct server_cmd {
	const char *name;
	bool privileged;
	int (*run)(struct daemon *d, struct client *c, const struct request *rq);
};

/* Starts a success reply in d->sb: {"ok":true and the echoed id. The handler
 * appends ,"key":value members, then calls server_reply_finish(). */
struct strbuf *server_reply_start(struct daemon *d, const struct request *rq);
/* Closes the object, adds the newline and queues it. 0 or -ENOMEM. */
int server_reply_finish(struct daemon *d, struct client *c);
/* Queues {"ok":false,"id":..,"error":{"code":..,"message":..}}. id is JSON
 * text or NULL. 0 or -ENOMEM (the client is then dropped). */
int server_reply_error(struct daemon *d, struct client *c, const char *id,
		       enum iot_proto_error code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Whether the peer may make privileged requests: uid 0 or our own uid. */
bool server_client_privileged(const struct client *c);

/* ---- request.c: one request line -> a parsed object (fuzzed) ---- */

struct request {
	json_object *root; /* owned; json_object_put() via request_free() */
	const char *cmd;   /* into root */
	char *id;	   /* the "id" value as JSON text we wrote, NULL if absent; owned */
};

/*
 * Parses one request line (no '\n'; trailing '\r' and blanks allowed).
 * Returns 0, or -EBADMSG with *ret_code/msg saying why. On failure
 * *ret_req still carries the id when one could be read (so the error reply
 * echoes it) and must be released with request_free().
 */
int request_parse(struct json_tokener *tok, const char *line, size_t len, struct request *ret_req,
		  enum iot_proto_error *ret_code, char *msg, size_t msg_size);
void request_free(struct request *rq);

/* Reads an optional integer member: 0 absent (v untouched), 1 read, -EINVAL
 * wrong type, beyond +-(2^63 - 1) (json-c would clamp) or outside [min, max]. */
/* A boolean key: 1 true, 0 false or absent, -EINVAL another type. */
int request_get_bool(const struct request *rq, const char *key);
/* ,"cpu_budget":{...} of the status reply (loop.c: the sampler's costs). */
void loop_status_cost(struct daemon *d, struct strbuf *sb);
int request_get_int(const struct request *rq, const char *key, int64_t min, int64_t max,
		    int64_t *v);
/* A JSON integer within +-(2^63 - 1): 0, -EINVAL not an integer, -ERANGE
 * beyond (json-c clamps silently). */
int request_json_int(json_object *v, int64_t *ret);
/* Whether a JSON string is UTF-8 text without NUL (json-c keeps both). */
bool request_text_ok(json_object *v);

/*
 * The reply envelopes (always valid UTF-8 JSON, see sb_json_str): start
 * resets sb to {"ok":true and the echoed id (JSON text from request_parse,
 * or NULL); error resets sb to a whole error line, '\n' included, msg cut
 * to 511 bytes on a character boundary.
 */
void request_reply_start(struct strbuf *sb, const char *id);
void request_reply_error(struct strbuf *sb, const char *id, enum iot_proto_error code,
			 const char *msg);

/* ---- metrics_http.c: /metrics for Prometheus (--metrics-listen) ---- */

struct sockaddr_storage;
/* "PORT" (127.0.0.1), "ADDR:PORT" or "[ADDR6]:PORT". 0 or -EINVAL. */
int metrics_http_parse_addr(const char *s, struct sockaddr_storage *ret, socklen_t *ret_len);
/* Binds and starts serving when --metrics-listen is given (0 otherwise);
 * logs its own errors; 0 or -errno. */
int metrics_http_start(struct daemon *d);
/* Lets libmicrohttpd work (its epoll fd is readable) and closes the
 * requests past their deadline. */
void metrics_http_run(struct daemon *d);
/* The loop's epoll_wait timeout (ms, -1: none) shortened to what MHD and
 * the earliest request deadline need. */
int metrics_http_timeout(struct daemon *d, int timeout_ms);
/* After each loop batch: runs MHD when MHD_get_timeout() says it is due
 * (work it holds that no fd will signal) and closes late requests. */
void metrics_http_due(struct daemon *d);
/* status's "http": connections, scrapes answered, bodies rendered, shed
 * and late connections, throttled windows; null without the port. */
void metrics_http_status(const struct daemon *d, struct strbuf *sb);
void metrics_http_stop(struct daemon *d);

/* ---- topo.c: the advisor's topology, read on a thread ---- */

struct topo_reader;
/* Starts the thread (after loop_setup); the first topology comes at once. */
int topo_reader_start(struct daemon *d);
/* Read it again now (after apply/undo wrote to /proc/irq). */
void topo_reader_request(struct daemon *d);
/* After a sample: the reads' period follows sampler_topo_period_ns(). */
void topo_reader_pace(struct daemon *d);
/* The eventfd is readable: give the new topology to the sampler. */
void topo_reader_event(struct daemon *d);
/* Stops the thread and frees everything; accepts a daemon without one.
 * A thread still in a read after TOPO_STOP_DEADLINE_MS (2 s) is left
 * behind, detached, to free itself: true then (exit as main.c does for a
 * worker left behind), else false. */
bool topo_reader_stop(struct daemon *d);

/* ---- worker.c: worker.start/stop/status, one bench job on a thread ---- */

struct worker_run;
int worker_cmd_start(struct daemon *d, struct client *c, const struct request *rq);
int worker_cmd_stop(struct daemon *d, struct client *c, const struct request *rq);
int worker_cmd_status(struct daemon *d, struct client *c, const struct request *rq);
/* After each sample: the running job's progress to subscribers. */
void worker_tick(struct daemon *d);
/* The worker's eventfd is readable: the job ended. */
void worker_event(struct daemon *d);
/* The worker's timerfd is readable: a job asked to stop has had
 * WORKER_STOP_DEADLINE_MS; if it still runs, its thread is left behind. */
void worker_deadline(struct daemon *d);
/* Stops a running job and waits for it, WORKER_STOP_DEADLINE_MS at most
 * (then its thread is left behind, logged), frees what is not the thread's.
 * Returns true when a thread left behind (now or by an earlier worker.stop)
 * still runs: the process must then end with _exit(), not exit(). */
bool worker_shutdown(struct daemon *d);

/* ---- rec.c: --record, the flight recorder ---- */

/* Opens the record directory (root-owned 0700, refused otherwise with the
 * fix) and the writer; 0 without --record. Logs its own errors; 0 or -errno. */
int rec_start(struct daemon *d);
/* After a sample: its bytes to the recording (logs a stop or a resume once). */
void rec_sample(struct daemon *d);
/* Starts --record's compaction thread: after detach() (a thread does not
 * survive fork) and after capabilities are dropped (new threads inherit
 * the caller's). Logs and goes on without it on failure. */
void rec_compact_start(struct daemon *d);
void rec_stop(struct daemon *d);
/* ,"record":{...} for status. */
void rec_status(struct daemon *d, struct strbuf *sb);
/* history with "seconds" reaching past the ring: c's reply gets the
 * recorded samples of those seconds first (rec_pending), without --record
 * none. */
void rec_history_ask(struct daemon *d, struct client *c, int64_t seconds);
/* history with "at" and "step_ms": c's reply gets the one document of the
 * step_ns ending at the recorded sample at at_ns (real time, within half
 * an interval), made from the recording as replay --step makes it; none
 * when not recorded or without --record. Paced as the recorded parts. */
void rec_history_ask_at(struct daemon *d, struct client *c, int64_t at_ns, int64_t step_ns);
/* Whether c's recorded part may be made now: always for root and the
 * daemon's uid; for another uid, once its previous replay's pause is over
 * (REC_HISTORY_CPU_PCT) and no other client of that uid has such a part
 * unwritten. */
bool rec_history_ready(struct daemon *d, const struct client *c);
/* c's history reply's part from the recording: the documents of the
 * recorded samples since c->rec_from_ns that the ring no longer holds,
 * joined by ',': the newest, at most REC_HISTORY_MAX of them and
 * REC_HISTORY_MAX_BYTES (but one). Made by the replay thread, off the
 * loop: 1 when handed to it (c->rec_job set; client_history_part()
 * delivers it); 0 when made now (no thread), in *ret_b (NULL: none) and
 * *ret_count; -ENOMEM. Its CPU time is charged to c's uid. */
int rec_history_submit(struct daemon *d, struct client *c, struct blob **ret_b, size_t *ret_count);
/* c is freed: the part being made for it is dropped. */
void rec_history_forget(struct daemon *d, struct client *c);
/* WATCH_REC_HISTORY: hands the parts made to their clients. */
void rec_history_event(struct daemon *d);
/* The ring's first sample is now id: where the replay thread's parts stop
 * (those after it the ring holds). */
void rec_ring_first(struct daemon *d, uint64_t id);

/* ---- loop.c ---- */

/* Takes one sample, stores it, publishes it. 0 or -ENOMEM. */
int loop_sample(struct daemon *d);
/* Runs until SIGTERM/SIGINT; returns the exit code. */
int loop_run(struct daemon *d);
/* Creates epoll, the timer and the signalfd (signals must be blocked). */
int loop_setup(struct daemon *d);
/* In a forked child: a signalfd of its own (the parent's never fires). */
int loop_reopen_signals(struct daemon *d);
/* pthread_create(ret, fn, arg) with every signal blocked in the new thread:
 * signals stay the loop's (signalfd). 0 or -errno. */
int loop_thread_start(pthread_t *ret, void *(*fn)(void *), void *arg);

#endif
