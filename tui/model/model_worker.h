/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's bench job as the TUI shows it: decoded from the "worker"
 * object of iotriaged's worker events and worker.status replies
 * (doc/protocol.md), kept in struct model's worker field. Like model.c it
 * computes no rates and never reads the clock: the caller passes the time,
 * every number is the daemon's.
 */
#ifndef IOTRIAGE_TUI_MODEL_WORKER_H
#define IOTRIAGE_TUI_MODEL_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

struct json_object;

/* How long a finished job's result line stays, unless another job starts. */
#define MODEL_WORKER_KEEP_NS (30 * 1000000000LL)
/* A running job not heard of for this long (or 3 daemon intervals, if more)
 * is forgotten: the daemon went away, or this client was cut off. */
#define MODEL_WORKER_STALE_NS (5 * 1000000000LL)

enum model_worker_state {
	MW_STARTING, /* the target is being opened (a new file laid out first) */
	MW_RUNNING,
	MW_COMPLETED,
	MW_FAILED,
	MW_STOPPED, /* worker.stop or daemon exit: results up to then */
};

enum { MW_READ, MW_WRITE, MW__DIRS };

/* One direction of the job, as the daemon's "read"/"write" objects. */
struct model_worker_dir {
	uint64_t ios, bytes;	       /* completed so far */
	double iops, bw_bytes;	       /* over runtime_s; fio's measured values once ended */
	double iops_now, bw_bytes_now; /* over the daemon's last sample interval */
	uint64_t clat_n;	       /* completions in the latency histogram */
	double clat_mean_ns;
	bool has_p99;
	double clat_p99_ns;
};

struct model_worker {
	uint64_t id; /* counts starts since the daemon began */
	enum model_worker_state state;
	char filename[256];	     /* the target as started (clipped) */
	char device[MODEL_NAME_MAX]; /* its /proc/diskstats row; "" unknown */
	char name[64], rw[16], engine[16];
	uint64_t bs;
	unsigned iodepth, numjobs; /* iodepth: the current sweep point's during a sweep */
	bool precondition;	   /* phase "precondition": the write pass before measuring */
	unsigned sweep_point, sweep_points; /* phase "sweep": point (1-based) of points */
	double elapsed_s;		    /* since worker.start (to the end once ended) */
	double runtime_s;		    /* since the IO began */
	double planned_s;		    /* --ramp_time + --runtime; 0: until --size is done */
	struct model_worker_dir dir[MW__DIRS];
	char error[MODEL_REASON_MAX]; /* when failed */
	int64_t seen_ns;	      /* caller's clock: last event or reply */
	int64_t ended_ns;	      /* caller's clock: the end first seen; 0 while active */
};

enum {
	MODEL_WORKER_EVENT = 0,	 /* a pushed "worker" event: always news */
	MODEL_WORKER_STATUS = 1, /* a worker.status reply: an ended job is shown only if
				  * it is the one already known (it may be hours old) */
};

/*
 * Decodes a "worker" object into m->worker (allocated on first use; a
 * struct without pointers, so model_free()'s free() releases it). "idle"
 * forgets the job. now_ns is the caller's CLOCK_MONOTONIC, used only to
 * time the result line's stay. flags: MODEL_WORKER_*. Returns 0, -EBADMSG
 * (not a worker object: m->worker untouched), -ENOMEM.
 */
int model_worker_apply(struct model *m, struct json_object *worker, int64_t now_ns, unsigned flags);

/* The same from text (len bytes, need not be NUL-terminated). */
int model_worker_apply_text(struct model *m, const char *json, size_t len, int64_t now_ns,
			    unsigned flags);

/*
 * Forgets a job that ended MODEL_WORKER_KEEP_NS ago, or an active one not
 * heard of for stale_ns. Returns true when it forgot one (redraw).
 */
bool model_worker_expire(struct model *m, int64_t now_ns, int64_t stale_ns);

/* The job to show, NULL when none. */
const struct model_worker *model_worker_get(const struct model *m);

/* True while starting or running. */
bool model_worker_active(const struct model_worker *w);

/* "starting", "running", "done", "failed", "stopped": the word the TUI shows. */
const char *model_worker_state_word(enum model_worker_state s);

/*
 * Whether the job device's interrupts landed on cpu in the sample: the
 * interrupts lines whose handler names the device's controller (nvme0n1 ->
 * nvme0, nvme0q3), CPUs with a non-zero rate. Devices without interrupts of
 * their own (loop, dm, md) or whose handler does not carry the name (ahci,
 * virtio) have none: nothing is guessed.
 */
bool model_worker_irq_on_cpu(const struct model *m, int cpu);

/* True when some CPU would be marked by model_worker_irq_on_cpu(). */
bool model_worker_has_irq_cpus(const struct model *m);

#endif
