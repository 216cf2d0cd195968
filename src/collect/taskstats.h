/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process IO: /proc/PID/io for every process (cheap; the thread group's
 * read/write/cancelled bytes) and the taskstats generic netlink family for
 * the few processes that did IO (block-IO delay; the kernel's thread-group
 * answer carries no IO bytes). Collect only: no rates here (metrics_proc.c).
 */
#ifndef IOTRIAGE_TASKSTATS_H
#define IOTRIAGE_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "netlink.h"
#include "dbrole.h"
#include "root.h"

#define PROC_COMM_MAX	 32  /* TS_COMM_LEN; /proc/PID/comm is at most 16 */
#define PROC_USER_MAX	 33  /* a login name (32, useradd's bound) or a uid's digits, + NUL */
#define PROC_CMDLINE_MAX 161 /* 160 bytes of the escaped command line + NUL */
#define PROC_UNIT_MAX	 161 /* a system.slice unit's name, else the cgroup path: 160 bytes + NUL */
/* Taskstats questions per sample: each is one sendmsg + one recvmsg, and
 * the rest of the processes keep their /proc/PID/io bytes. */
#define TASKSTATS_MAX_QUERIES 64
/* Threads asked per scan for the bytes of processes whose /proc/PID/io is
 * refused (another user's, without CAP_SYS_PTRACE): only those that ran */
#define TASKSTATS_MAX_IO_THREADS 512

enum proc_io_source {
	PROC_SRC_PROCFS,    /* bytes from /proc/PID/io, no delay asked */
	PROC_SRC_TASKSTATS, /* bytes from /proc/PID/io, delays from taskstats */
};

/* One process (thread group), cumulative counters since it started. */
struct proc_raw {
	int32_t pid;
	char comm[PROC_COMM_MAX]; /* "" when not read this sample (no IO) */
	uint8_t source;		  /* enum proc_io_source: where the delays came from */
	bool has_delay;		  /* blkio_* are real (taskstats and delay accounting on) */
	uint64_t read_bytes;	  /* storage IO the process caused (task_io_accounting) */
	uint64_t write_bytes;
	uint64_t cancelled_write_bytes; /* dirtied then truncated: never written */
	uint64_t blkio_count;		/* sync block-IO waits */
	uint64_t blkio_delay_ns;	/* time spent in them */
	bool exited; /* started and ended since the last sample: from exit notices */
	/* IO of reaped children the kernel added to this row's counters at wait()
	 * (exit notices' ppid), cumulative since the collector started: the
	 * process's own IO is the counters less these (doc/netlink.md) */
	uint64_t reaped_read_bytes, reaped_write_bytes, reaped_cancelled_bytes;
	/* /proc/PID/stat (world-readable): the thread group's CPU time in
	 * clock ticks (USER_HZ), dead threads included, children not */
	bool has_stat;
	bool kthread;	      /* PF_KTHREAD in stat's flags */
	bool io_unknown;      /* IO bytes neither readable nor asked: zeros, not "no IO" */
	bool io_taskstats;    /* /proc/PID/io refused: bytes are its threads' taskstats sum */
	uint64_t utime_ticks; /* guest time included, as the kernel counts it */
	uint64_t stime_ticks;
	uint64_t gtime_ticks;
	uint64_t start_ticks; /* starttime: with pid, the process's identity */
	/* /proc/PID/schedstat's second field: ns its main thread waited on a
	 * run queue (a CPU it wanted was busy), read when its CPU time moved
	 * since the last scan (a process that did not run did not wait) */
	bool has_sched;
	uint64_t runq_ns;
	/* who (read for the processes that moved, cached per pid + start):
	 * has_who false leaves the rest empty */
	bool has_who;
	uint32_t uid; /* real uid (/proc/PID/status) */
	char user[PROC_USER_MAX];
	char cmdline[PROC_CMDLINE_MAX]; /* escaped; "[comm]" for a kernel thread */
	char unit[PROC_UNIT_MAX];	/* procwho_cgroup_unit(): unit name or whole path */
};

/* One thread of a database server, for its role (dbrole.h): the
 * thread's own bytes from taskstats (TASKSTATS_CMD_ATTR_PID). */
struct proc_thread {
	int32_t pid; /* its process */
	int32_t tid;
	char comm[PROC_COMM_MAX]; /* the thread's name: MySQL 8 names InnoDB's */
	char role[PROC_ROLE_MAX]; /* MariaDB's performance_schema NAME as a role, or "" */
	uint64_t read_bytes, write_bytes;
};

/* Database servers whose threads are read per scan (comm mysqld, mariadbd) */
#define PROC_DB_SERVERS_MAX 4

struct proc_table {
	struct proc_raw *rows; /* ascending pid */
	size_t n, cap;
	/* the threads of the database servers among rows, by pid then tid;
	 * threads_status says why there are none when a server's could not be
	 * read (no taskstats); not recorded */
	struct proc_thread *threads;
	size_t nthreads, threads_cap;
	struct src_status threads_status;
	char roles_why[IOT_REASON_MAX]; /* why a MariaDB server's threads have no roles */
	int8_t delayacct;		/* kernel.task_delayacct: 1, 0, -1 unknown (no sysctl) */
	unsigned unreadable;		/* /proc/PID/io refused (EACCES: not our process) */
	unsigned queried;		/* taskstats questions asked this sample */
	unsigned answered;
	unsigned vanished;    /* exited between listing and reading: dropped */
	unsigned exited_rows; /* rows of processes that started and ended in the interval */
	unsigned ts_io_rows;  /* rows whose bytes came from taskstats (io refused) */
	unsigned ts_io_asked; /* threads asked for them this scan */
	/* The scan's cadence (issue 17): on a sample that skips the scan the
	 * table is the last scan's, carried (the sampler moves it over) */
	bool carried;		 /* not scanned this sample: rows of the last scan */
	uint64_t scan_uptime_cs; /* /proc/uptime of the sample that scanned, 0 unknown */
	uint64_t scan_cpu_ns;	 /* thread CPU time of that scan */
	uint32_t scan_every;	 /* the sampler's cadence: a scan every N samples */
	uint32_t scan_age;	 /* samples since the scan (0: this one) */
	char scan_why[16];	 /* why this sample scanned, or "" */
	struct src_status procfs;
	struct src_status taskstats;
};

/* One decoded taskstats answer. */
struct taskstats_answer {
	uint32_t pid; /* TGID (or PID for a per-thread answer) */
	bool tgid;    /* TASKSTATS_TYPE_AGGR_TGID */
	uint16_t version;
	char comm[PROC_COMM_MAX];
	uint64_t read_bytes, write_bytes, cancelled_write_bytes;
	uint64_t blkio_count, blkio_delay_ns;
};

/*
 * Decodes the kernel's answer to TASKSTATS_CMD_GET: one generic netlink
 * message, or an NLMSG_ERROR. Pure over bytes (buf must be 4-byte aligned).
 * Returns 0, the kernel's -errno (-ESRCH: the process is gone, -EPERM), or
 * -EBADMSG with *what (may be NULL) naming the defect. Unknown attributes
 * are skipped, as the netlink rules ask of a reader; a known attribute of a
 * wrong size is an error.
 */
int taskstats_parse(const void *buf, size_t len, struct taskstats_answer *ret, const char **what);

/* /proc/PID/io text: read_bytes, write_bytes and cancelled_write_bytes are
 * required. 0 or -EBADMSG. Other keys are ignored. */
int taskstats_procio_parse(const char *buf, size_t len, struct proc_raw *ret);

/* The name in /proc/PID/stat's second field: the text between the first '('
 * and the last ')' (a name may hold ')' and spaces), cut to size - 1 bytes,
 * as pidstat takes it. Writes ret (NUL-terminated) and returns its length, or
 * -EBADMSG without the parentheses. */
int taskstats_stat_comm(const char *buf, size_t len, char *ret, size_t size);

/* /proc/PID/stat: fills ret's comm, kthread, utime_ticks, stime_ticks,
 * gtime_ticks (0 before field 43 existed), start_ticks and has_stat.
 * 0 or -EBADMSG (ret untouched). */
int taskstats_stat_parse(const char *buf, size_t len, struct proc_raw *ret);

/* /proc/PID/schedstat ("RUN_NS RUNQ_NS SLICES"): the run-queue wait into
 * ret->runq_ns, has_sched set. 0 or -EBADMSG. */
int taskstats_schedstat_parse(const char *buf, size_t len, struct proc_raw *ret);

/* One exit notice: the final counters of one task, and its group. */
struct taskstats_exit_msg {
	uint32_t pid, tgid;
	uint32_t ppid;	 /* ac_ppid: the parent's TGID, who reaps it; 0 unknown */
	bool group_dead; /* the last task of its group: the process ended */
	char comm[PROC_COMM_MAX];
	uint64_t read_bytes, write_bytes, cancelled_write_bytes;
};

/*
 * Decodes one exit notice (the TASKSTATS_CMD_NEW message the kernel sends to
 * sockets registered with TASKSTATS_CMD_ATTR_REGISTER_CPUMASK). Pure over
 * bytes (4-byte aligned). 0, or -EBADMSG with *what naming the defect.
 */
int taskstats_exit_parse(const void *buf, size_t len, struct taskstats_exit_msg *ret,
			 const char **what);

/* Threads of one process, asked one by one ("per thread where asked"). */
#define TASKSTATS_MAX_THREADS 1024
struct thread_table {
	int32_t pid;
	struct proc_raw *rows; /* pid = thread id, ascending; source TASKSTATS */
	size_t n, cap;
	unsigned vanished; /* threads that ended between listing and asking */
	bool truncated;	   /* more than TASKSTATS_MAX_THREADS threads */
	int8_t delayacct;
	struct src_status status;
};

/* What the collector remembers between samples to pick whom to ask. */
struct proc_seen {
	int32_t pid;
	uint64_t io_bytes;  /* read + write + cancelled at the last sample */
	uint64_t delay_ns;  /* blkio delay at the last answer */
	uint64_t cpu_ticks; /* utime + stime at the last sample */
	uint64_t start_ticks;
	bool io_taskstats; /* its bytes below came from taskstats: carried while idle */
	uint64_t rd, wr, cw;
	uint64_t blkio_count;
	bool delay_grew; /* keep asking while its delay keeps growing */
};

struct procwho_cache;
struct dbroles;
struct dbroles_thread;

struct taskstats_collector {
	struct procwho_cache *who; /* procwho.h: who each process is, per pid + start */
	bool live;		   /* root is "/": ask the kernel; else read netlink/taskstats/ */
	bool record;		   /* capture: also write each live answer under record_dfd */
	int record_dfd;
	bool opened;  /* the socket was tried */
	int open_err; /* netlink_open_genl()'s result */
	struct nlconn conn;
	struct nlreply reply;
	struct thread_table db_threads; /* scratch: one server's threads */
	struct dbroles *dbroles; /* MariaDB's thread roles (live only), NULL until one runs */
	struct dbroles_thread *dbr_scratch;
	size_t dbr_cap;
	struct proc_seen *seen; /* ascending pid */
	size_t nseen, seen_cap;
	struct proc_seen *next;
	size_t next_cap;
	struct ts_candidate {
		uint64_t priority; /* bytes moved since the last sample, or the total */
		size_t row;
	} * order; /* candidates, scratch */
	size_t order_cap;
	/* /proc/PID/io descriptors kept from the previous sample, ascending pid */
	struct io_fd {
		int32_t pid;
		int fd;	 /* /proc/PID/io; -1 once taken over by this sample */
		int sfd; /* /proc/PID/stat, the same */
		/* the last scan's CPU ticks and schedstat: read again only when
		 * the ticks moved */
		uint64_t ticks, runq_ns;
		bool has_sched;
	} * iofd, *iofd_next;
	size_t niofd, iofd_cap, niofd_next, iofd_next_cap;
	size_t iofd_budget; /* at most this many kept open */
	bool iofd_budget_set;
	/* exit notices (taskstats_exit.c): a second socket, registered for every CPU */
	bool exit_opened;
	int exit_err; /* why there are none: -EPERM without CAP_NET_ADMIN, ... */
	struct nlconn exit_conn;
	struct exit_group {
		uint32_t tgid;
		uint32_t ppid;
		bool dead; /* its last task's notice came */
		char comm[PROC_COMM_MAX];
		uint64_t read_bytes, write_bytes, cancelled_write_bytes;
	} * exits; /* this interval's, summed per group; scratch */
	size_t nexits, exits_cap;
	/* exits by tgid, open addressing: with the scan every N samples a
	 * fork-heavy host sums thousands of groups between two scans, and a
	 * linear search per notice made the drain quadratic */
	struct exit_slot {
		uint32_t gen; /* == exit_gen: in use this interval */
		uint32_t idx; /* in exits */
	} * exit_slots;
	uint32_t exit_gen; /* bumped when a new interval starts (nexits 0) */
	/* children's IO owed to each parent (parent/child double count):
	 * pending until the parent's counters grew by it (the reap), then
	 * applied; ascending pid, pruned to the processes alive at each scan */
	struct reap_credit {
		int32_t pid;
		uint64_t pend[3];    /* read, write, cancelled: noticed, not yet absorbed */
		uint64_t applied[3]; /* cumulative: proc_raw.reaped_* */
	} * credits;
	size_t ncredits, credits_cap;
	unsigned exit_lost; /* times the kernel dropped notices (socket full) */
	unsigned exit_bad;  /* notices that could not be decoded */
};

/* ---- exit notices: taskstats_exit.c (the same collector, its second socket) ---- */

/*
 * Live only: registers for exit notices on the first call, then adds to t a
 * row (exited = true, bytes = the group's totals) for each process that
 * started and ended since the previous call: not in t, not seen by the
 * previous call. Returns 0 (no notices is not an error: exit_err says why)
 * or -ENOMEM.
 */
int taskstats_exits_collect(struct taskstats_collector *tc, const struct root *r,
			    struct proc_table *t);
/*
 * Parent/child double count, pure over the collector's state: for each
 * group that ended (tc->exits), its bytes (and what it was owed by its own
 * children) become owed to its parent; then every row of t whose counters
 * grew at least by what it is owed since prev_io_bytes (its previous scan's
 * read + write + cancelled, via seen) absorbs it into reaped_*. Credits of
 * processes not in t are dropped. 0 or -ENOMEM.
 */
int taskstats_credit_apply(struct taskstats_collector *tc, struct proc_table *t);
void taskstats_exits_free(struct taskstats_collector *tc);
/* On a sample that skips the scan: reads the pending exit notices into
 * the collector (summed with those still unprocessed), so a burst between
 * two scans does not overflow the socket. 0 or -ENOMEM. */
int taskstats_exits_drain(struct taskstats_collector *tc);
/* Whether the previous taskstats_collect() saw pid. */
bool taskstats_was_seen(const struct taskstats_collector *tc, int32_t pid);
/* What the previous taskstats_collect() remembered of pid, or NULL. */
const struct proc_seen *taskstats_seen(const struct taskstats_collector *tc, int32_t pid);

/*
 * Reads every /proc/PID/io under r, then asks taskstats (or its recorded
 * answers) about at most TASKSTATS_MAX_QUERIES processes whose IO bytes
 * moved since the previous call (the biggest first; on the first call, the
 * biggest totals) or whose delay kept growing. Fills t (storage reused) and
 * its statuses. Returns 0, or -errno when /proc itself cannot be listed.
 */
int taskstats_collect(struct taskstats_collector *tc, const struct root *r, struct proc_table *t);
void taskstats_collector_free(struct taskstats_collector *tc);

/*
 * Lists /proc/PID/task and asks taskstats about each thread (live), or reads
 * netlink/taskstats/threads/TID.bin (recorded). Fills t; a refusal is
 * t->status (err, reason) with t->n = 0. Returns 0 or -ENOMEM.
 */
int taskstats_threads_collect(struct taskstats_collector *tc, const struct root *r, int32_t pid,
			      struct thread_table *t);
void thread_table_free(struct thread_table *t);

void proc_table_free(struct proc_table *t);
int proc_table_copy(struct proc_table *dst, const struct proc_table *src);
/* Sorts t's rows by ascending pid, as proc_table_find() needs them. */
void proc_table_sort(struct proc_table *t);
/* Row of pid or NULL; t ascending, binary search. */
const struct proc_raw *proc_table_find(const struct proc_table *t, int32_t pid);

#endif
