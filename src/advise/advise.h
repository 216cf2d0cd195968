/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * advise: a pure function of (current snapshot, metrics, topology) ->
 * findings and suggestions. No I/O, no clock: every rule is unit-tested on
 * recorded trees. The thresholds and the rules are documented in
 * doc/advise.md; a suggestion is only made when every file it writes was
 * read (so its undo value is known) and no rule forbids it.
 */
#ifndef IOTRIAGE_ADVISE_H
#define IOTRIAGE_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"
#include "metrics_trace.h"
#include "strbuf.h"
#include "topology.h"

enum advise_severity {
	ADV_INFO,
	ADV_WARNING,
	ADV_CRITICAL,
};

enum finding_kind {
	FIND_HOT_CPU,		  /* one CPU far above its peers in %irq+%soft or intr/s */
	FIND_DISK_SATURATED,	  /* util high and requests queueing */
	FIND_DISK_SLOW,		  /* await high at low util */
	FIND_MEMBER_IMBALANCE,	  /* md/dm member much slower than the others */
	FIND_IOSTATS_OFF,	  /* queue/iostats = 0: counters frozen */
	FIND_MANAGED_IRQS,	  /* hot IRQs the kernel will not let us move */
	FIND_IRQBALANCE,	  /* irqbalance will undo manual affinity */
	FIND_TOPOLOGY_MISSING,	  /* advice lowered: files the kernel did not offer */
	FIND_WRITEBACK_THROTTLED, /* dirty page cache past the point writers are throttled */
	FIND_CPU_SATURATED,	  /* every CPU busy and tasks waiting for one (cpu pressure) */
	FIND_STEAL,		  /* the hypervisor takes the CPUs' time (a noisy neighbour) */
	FIND_IOWAIT,		  /* tasks wait on IO while no disk is saturated or slow */
	FIND_TRACE_OFF,		  /* --trace: a probe off, what is judged by counts meanwhile */
};

#define ADV_ID_MAX   64
#define ADV_TEXT_MAX 512
#define ADV_WHO_MAX  80

struct finding {
	char id[ADV_ID_MAX]; /* stable across samples: "hot-cpu-1", "disk-slow-sdb" */
	enum finding_kind kind;
	enum advise_severity severity;
	char subject[IOT_NAME_MAX];    /* "cpu1", "sda", "md0" */
	char reason[ADV_TEXT_MAX];     /* one line, with the measured numbers */
	char detail[3 * ADV_TEXT_MAX]; /* shares, who waits, why no suggestion, the fix to type */
	char culprit[ADV_TEXT_MAX];    /* who causes it: processes, cgroups ("" unknown) */
	/* the culprit's first in a few words, for a headline: "fio pid 31729
	 * 871 MB/s", "postgres: 15/main: checkpointer pid 812 40 MB/s" */
	char who[ADV_WHO_MAX];
	/* who suffers in a few words, for a headline: the cgroup that waited
	 * longest on the finding's resource ("postgresql@15-main.service io
	 * 61%"), "" none measured */
	char victim[ADV_WHO_MAX];
	double harm;   /* ranks findings of one severity: bigger first */
	unsigned rank; /* 1 = the headline; findings[] is in rank order */
	unsigned held; /* advise_hold: samples since it was last measured (0: now) */
};

/* One write of a suggestion. Paths are relative to the root ("proc/irq/107/smp_affinity_list"),
 * or the pseudo path of an ethtool setting (advise_ethtool_path()). */
#define ADV_PATH_MAX 128 /* an action's path, with its NUL */

struct advise_action {
	char path[ADV_PATH_MAX];
	char value[TOPO_LIST_MAX]; /* what apply writes */
	char undo[TOPO_LIST_MAX];  /* the value read now: what undo writes back */
	bool is_irq;		   /* verify through /proc/irq/N/effective_affinity_list */
	uint32_t irq;
	bool value_is_mask; /* value and undo are cpumasks (rps_cpus), else text/list */
};

struct suggestion {
	char id[ADV_ID_MAX]; /* "irq-spread-mpt2sas0", "rps-eth0", "nr-requests-sda" */
	enum advise_severity severity;
	char finding[ADV_ID_MAX]; /* the finding it answers */
	char reason[ADV_TEXT_MAX];
	char effect[ADV_TEXT_MAX];
	char notes[2 * ADV_TEXT_MAX]; /* irqbalance, skipped managed IRQs, persistence */
	struct advise_action *actions;
	size_t nactions;
};

struct advice {
	struct finding *findings;
	size_t nfindings, findings_cap;
	struct suggestion *suggestions;
	size_t nsuggestions, suggestions_cap;
	size_t nrising; /* advise_hold: findings measured but not shown yet (rising) */
	/* advise_hold_step's: the suggestions' actions are the hold's (valid
	 * until its next step or advise_hold_free); advice_free leaves them */
	bool actions_held;
};

/* What advise_run() judges: one interval. */
struct advise_input {
	const struct snapshot *cur; /* the current snapshot */
	const struct metrics *m;    /* the metrics of (previous, current) */
	/* the tracing stage's metrics of the same interval (doc/advise.md,
	 * "Measured time"): a core judged by its measured irq+softirq time and
	 * the lines that take it, rq_affinity by completion locality, disks by
	 * their latency tails. NULL, or its probes off: judged by the counters */
	const struct trace_metrics *trace;
	const struct topology *t; /* read with the current snapshot */
};

/*
 * The advisor's one entry point: fills *ret (an empty or freed advice)
 * from in, every rule of the table in turn: findings ranked by harm
 * (findings[0] is the headline: critical before warning before info, then
 * by harm). One interval, no memory: a live view steadies it with
 * advise_hold_step(). Returns 0 or -ENOMEM (*ret untouched).
 */
int advise_run(const struct advise_input *in, struct advice *ret);
void advice_free(struct advice *a);

const struct suggestion *advice_suggestion(const struct advice *a, const char *id);
const struct finding *advice_finding(const struct advice *a, const char *id);

const char *advise_severity_name(enum advise_severity s);
const char *advise_kind_name(enum finding_kind k);

/* Sorts a->findings by severity, then harm, and numbers their ranks. */
void advise_rank(struct advice *a);

/*
 * Hysteresis over a stream of advice (doc/advise.md, "Stable"): a finding
 * is shown once it stood ADV_RISE_SAMPLES samples in a row and stays until
 * it was absent ADV_CLEAR_SAMPLES samples in a row (shown then as last
 * seen, with its suggestions); a shown finding's severity moves up after
 * ADV_RISE_SAMPLES samples in a row measured above it, down after
 * ADV_CLEAR_SAMPLES below it. advise_hold_step() rewrites *a in place to
 * what is shown, taking its suggestions' actions (not copied: the shown
 * advice refers to the hold's, so release it before the next step); 0 or
 * -ENOMEM (then *a is only to be released with advice_free).
 */
#define ADV_RISE_SAMPLES  2
#define ADV_CLEAR_SAMPLES 5
struct advise_hold_entry;
struct advise_hold {
	struct advise_hold_entry *e;
	size_t n, cap;
};
int advise_hold_step(struct advise_hold *h, struct advice *a);
void advise_hold_free(struct advise_hold *h);
/* Deep copy of a suggestion (its actions too): 0 or -ENOMEM. */
int advise_suggestion_copy(const struct suggestion *s, struct suggestion *ret);

/*
 * `ethtool -L IFACE combined N` is not a file write: its action's path is
 * "netlink/ethtool/IFACE/channels/combined", the combined count of IFACE's
 * channels set through the ethtool netlink family (in a recorded tree, the
 * count inside netlink/ethtool/IFACE/channels.bin). True when path is such a
 * path with a valid interface name, copied to ret_ifname (NULL: not wanted;
 * size >= IOT_NAME_MAX).
 */
#define ADV_ETHTOOL_PREFIX   "netlink/ethtool/"
#define ADV_ETHTOOL_COMBINED "/channels/combined"
bool advise_ethtool_path(const char *path, char *ret_ifname, size_t size);

/* True for the root-relative paths a suggestion may write, whole paths
 * (apply.h's apply_path_allowed() is this list): every device or interface
 * name in them one kname_valid() takes, in its sysfs form ('!' for '/'). */
bool advise_path_allowed(const char *path);

/* The exact shell commands of s, one per line ("echo 3 > /proc/irq/107/smp_affinity_list"),
 * or its undo commands (in reverse order). Host paths, not --root ones. */
void advise_commands(const struct suggestion *s, bool undo, struct strbuf *sb);
/* One command line of action a: `echo V > /PATH`, or `ethtool -L IFACE combined N`. */
void advise_command(const struct advise_action *a, bool undo, struct strbuf *sb);
/* The command that writes v to path (an action's path): every name and value
 * in it one shell word (text_shell_word), since they may come from a tree.
 * A path advise_path_allowed() refuses prints as a shell comment saying so,
 * never as a command. Every printed command is built here. */
void advise_command_text(const char *path, const char *v, struct strbuf *sb);

/* Thresholds (doc/advise.md explains each). */
#define ADV_HOT_PCT_MIN	       25.0    /* %irq+%soft of a hot CPU ... */
#define ADV_HOT_PCT_ABOVE      15.0    /* ... and this many points above twice the peers' median */
#define ADV_HOT_INTR_MIN       10000.0 /* device intr/s of a hot CPU ... */
#define ADV_HOT_INTR_FACTOR    4.0     /* ... and this many times the peers' median ... */
#define ADV_HOT_INTR_PCT       10.0    /* ... and at least this %irq+%soft (time, not counts) */
#define ADV_HOT_CRIT_PCT       80.0    /* %irq+%soft of a core that is hurt now: critical */
#define ADV_PSI_CRIT	       20.0    /* % some-stall of a resource: the workload waits */
#define ADV_PSI_FULL_CRIT      10.0    /* % full-stall of a resource */
#define ADV_SAT_CRIT_UTIL      95.0    /* util near 100% ... */
#define ADV_SAT_CRIT_FACTOR    4.0     /* ... and await this many times svctm: critical */
#define ADV_CPU_BUSY	       90.0    /* % of all CPUs busy (not idle, not iowait) */
#define ADV_CPU_PSI	       10.0    /* cpu some-stall that makes it saturated */
#define ADV_STEAL_PCT	       10.0    /* %steal of all CPUs: the hypervisor's share */
#define ADV_STEAL_CRIT	       25.0    /* with cpu pressure: critical */
#define ADV_IOWAIT_PCT	       20.0    /* %iowait of all CPUs ... */
#define ADV_IOWAIT_PSI	       10.0    /* ... with io some-stall, and no disk finding */
#define ADV_SHARE_MIN	       5.0     /* % of a hot CPU's load to be named */
#define ADV_NAPI_SHARE_PCT     50.0    /* % of a hot CPU's NET_RX time: its queue named */
#define ADV_SINGLE_BLOCK_PCT   30.0    /* BLOCK share of a core's softirqs for rq_affinity=2 */
#define ADV_SINGLE_OTHER_PCT   10.0    /* %usr+%nice+%sys that makes a lone vector move */
#define ADV_VICTIM_PCT	       5.0 /* % some-stall of a cgroup or run-queue wait of a process named */
#define ADV_FLUSH_SLOW_MS      10.0 /* f_await of flushes slow beside writes ... */
#define ADV_FLUSH_SLOW_FACTOR  2.0  /* ... and this many times w_await */
#define ADV_SAT_UTIL	       90.0 /* util of a saturated disk ... */
#define ADV_SAT_AQU	       1.0  /* ... with at least this queue ... */
#define ADV_SAT_WAIT_FACTOR    2.0  /* ... and await this many times svctm */
#define ADV_SAT_SSD_AWAIT      5.0  /* ms: and, non-rotational, at least this await */
#define ADV_SLOW_UTIL	       60.0 /* util below which high await means "slow" */
#define ADV_SLOW_AWAIT_HDD     50.0 /* ms, rotational */
#define ADV_SLOW_AWAIT_SSD     10.0 /* ms, non-rotational */
#define ADV_SLOW_AWAIT_UNKNOWN 20.0
#define ADV_MIN_IOPS	       1.0   /* below this a disk is idle: no disk finding */
#define ADV_MEMBER_FACTOR      2.0   /* member await vs the median of the others ... */
#define ADV_MEMBER_MIN_MS      5.0   /* ... and at least this many ms more */
#define ADV_MEMBER_UTIL_GAP    25.0  /* or util this many points above the median */
#define ADV_RPS_FLOWS	       32768 /* scaling.rst's value for a moderately loaded server */
/* With --trace (measured time, doc/advise.md) */
#define ADV_RQ_REMOTE_PCT 25.0 /* % of a disk's completions away from the submitting CPU */
#define ADV_TAIL_MIN_IOS  100  /* IOs of an op in the interval for its p99 to mean anything */
#define ADV_TAIL_FACTOR	  4.0  /* p99 this many times the mean: a disk slow by its tail */

/* The workload waits on a resource: its pressure over the interval (some or
 * full stall %, < 0 unknown) past the thresholds. One rule for the advisor
 * (a finding's severity) and the views (no "OK" while it stands). */
static inline bool advise_psi_hurts_pct(double some, double full)
{
	return some >= ADV_PSI_CRIT || full >= ADV_PSI_FULL_CRIT;
}

/* A disk's flushes are slow beside its writes: every commit that waits on
 * a flush (fsync, fdatasync, O_DSYNC on a write-back cache) waits that long,
 * however small w_await reads. One rule for the advisor and the views. */
static inline bool advise_flush_slow(double f_s, double f_await_ms, double w_await_ms)
{
	return f_s > 0 && f_await_ms >= ADV_FLUSH_SLOW_MS &&
	       f_await_ms > ADV_FLUSH_SLOW_FACTOR * w_await_ms;
}

#endif
