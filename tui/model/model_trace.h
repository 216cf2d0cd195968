/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "trace" section of the sample document (doc/json.md, doc/trace.md) as
 * the views draw it: softirq time by vector and hardirq time on each CPU
 * row, handler time on each IRQ line, IO latency percentiles and
 * completion locality on each disk, and whether tracing runs (one cause
 * for the header when it does not, or a probe is off). Decodes only: the
 * numbers are the document's, in the units the panels show (% of a CPU,
 * ms); no I/O, no rates.
 */
#ifndef IOTRIAGE_TUI_MODEL_TRACE_H
#define IOTRIAGE_TUI_MODEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct model_cpu;
struct model_irq;
struct model_disk;

/* The softirq vectors, as /proc/softirqs and the document name them. */
#define MODEL_SOFT_VECS 10
extern const char *const model_soft_vec_names[MODEL_SOFT_VECS];
#define MODEL_SOFT_NET_RX 3 /* "NET_RX" in model_soft_vec_names */
#define MODEL_SOFT_BLOCK  4 /* "BLOCK" */

enum model_lat_op { MT_READ, MT_WRITE, MT_FLUSH, MT_DISCARD, MT__OPS };
/* queued: insert -> issue (absent under blk-mq direct issue); device:
 * issue -> complete */
enum model_lat_kind { MT_QUEUED, MT_DEVICE, MT__KINDS };

struct model_lat {
	bool has; /* the document has it and it counted an IO */
	double count, mean_us, p50_us, p90_us, p99_us, p999_us, max_us;
};

struct model_disk_trace {
	bool has_lat; /* the block probe timed this disk's IO in the interval */
	struct model_lat lat[MT__OPS][MT__KINDS];
	bool has_remote;
	double remote_pct; /* % of completions on another CPU than the submitter */
};

struct model_cpu_trace {
	bool has_soft;			  /* the softirq probe is on */
	double soft_pct[MODEL_SOFT_VECS]; /* % of the CPU's time ("all": of all CPUs) */
	bool has_hard;			  /* the hardirq probe is on */
	double hard_pct;		  /* every IRQ line's handler time, % */
};

#define MODEL_TRACE_LINE_MAX 200

struct model_trace {
	bool present;		/* the sample has "trace" (--trace) */
	bool available;		/* it runs; else reason says why */
	bool malformed;		/* present but not decodable: shown as absent */
	bool soft, hard, block; /* each probe is on */
	char reason[MODEL_TRACE_LINE_MAX];
	char off[MODEL_TRACE_LINE_MAX]; /* the probes off and why, "" none */
	/* IOs of the interval the block probe found no latency row for
	 * ("probes"."block"."lat_dropped"): in no disk's histogram */
	uint64_t lat_dropped;
};

/* One NAPI instance's NET_RX time ("trace"."napi"), summed over the CPUs. */
struct model_napi {
	uint32_t napi_id; /* 0: the per-CPU backlog (loopback, netif_rx, RPS) */
	/* "" the backlog; a device in another network namespace than the
	 * daemon's ("host":false) as "netns INODE NAME": never a host NIC's
	 * name (a name has no space), so no match by name takes its time */
	char dev[48];
	int irq;	  /* its IRQ line, -1 none or unknown */
	int queue;	  /* its queue index, -1 unknown */
	uint32_t ifindex; /* its device's in its namespace; 0 unknown */
	bool host;	  /* in the daemon's namespace (or unknown: older documents) */
	double pct;	  /* NET_RX time, % of one CPU */
	double polls_s, packets_s;
};

struct model_napis {
	bool present; /* the section has "napi" (softirq probe on at both reads) */
	struct model_napi *v;
	size_t n;
};

/* Decodes doc's "trace"."napi" into *ret (overwritten, not freed): absent
 * means present false; a malformed row is left out. Returns 0 or -ENOMEM. */
int model_trace_napi_decode(struct json_object *doc, struct model_napis *ret);
void model_trace_napi_free(struct model_napis *n);
/* q is a NAPI of the host's NIC dev whose ifindex is ifindex (0 unknown):
 * in the host's namespace, and by ifindex when both know it, else by
 * name; never the backlog (doc/trace.md, "Per-queue softirq load"). */
bool model_napi_of(const struct model_napi *q, const char *dev, uint64_t ifindex);
/* A NIC's NET_RX time: the sum over its NAPIs (model_napi_of; irq >= 0:
 * those of that IRQ line only), % of one CPU; false when none of them
 * took time this interval (or no "napi"). */
bool model_trace_napi_dev(const struct model_napis *n, const char *dev, uint64_t ifindex, int irq,
			  double *ret_pct);

/*
 * Decodes doc's "trace" into *ret and the rows it times: cpus (the "all"
 * row, cpu -1, gets the average over the CPU rows), irqs (by IRQ number),
 * disks (by name; their MD_RP99 and MD_WP99 columns, ms). Absent: present
 * false, the rows untouched. A malformed section is shown as absent
 * (malformed true), never as zeros. Returns 0 or -ENOMEM.
 */
int model_trace_decode(struct json_object *doc, struct model_cpu *cpus, size_t ncpus,
		       struct model_irq *irqs, size_t nirqs, struct model_disk *disks,
		       size_t ndisks, struct model_trace *ret);

/* The header's one cause when tracing does not run or a probe is off:
 * "tracing: unavailable (no BTF: ...)", "tracing: block off (over budget:
 * ...)", or IOs in no latency row: "tracing: 37 IOs without a latency
 * row"; "" when it runs whole or is absent. */
void model_trace_cause(const struct model_trace *t, char *buf, size_t size);

/* A CPU's %soft by vector, the busiest first, "NET_RX 30.1 BLOCK 12.0"
 * with decimals (1 or 2) decimals, those that show as more than zero, as
 * many whole items as fit in width columns; "" when it has none. */
void model_trace_soft_split(const struct model_cpu_trace *c, int decimals, int width, char *buf,
			    size_t size);

#endif
