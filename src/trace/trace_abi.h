/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the BPF programs (trace.bpf.c) and their reader (trace.c) agree on:
 * map keys, values and sizes. Included by both sides, so it uses only the
 * kernel's __u* types and no libc.
 */
#ifndef IOTRIAGE_TRACE_ABI_H
#define IOTRIAGE_TRACE_ABI_H

#define TRACE_NR_SOFTIRQS 10   /* NR_SOFTIRQS: HI .. RCU (include/linux/interrupt.h) */
#define TRACE_MAX_IRQS	  4096 /* IRQ lines kept; a line past it is not timed */
/* (disk, op) rows of histograms per CPU, a row's slot by hash (trace.bpf.c),
 * TRACE_LAT_PROBES slots tried from it. The table's size is set at load
 * from the disk count (trace_lat_bits): 2^TRACE_LAT_BITS slots at least,
 * 2^TRACE_LAT_BITS_MAX at most; an IO whose row finds no slot is counted
 * in lat_dropped. */
#define TRACE_LAT_BITS	   9
#define TRACE_LAT_BITS_MAX 14
#define TRACE_MAX_LAT	   (1 << TRACE_LAT_BITS_MAX)
#define TRACE_LAT_PROBES   8
/* (cgroup, disk) rows of histograms per CPU (the cgroup that owns the
 * request's bio: its blkg's), the same scheme: 2^TRACE_CG_BITS_MIN ..
 * 2^TRACE_CG_BITS_MAX slots (trace_cg_bits), an IO without a row counted
 * in cg_dropped */
#define TRACE_CG_BITS_MIN 6
#define TRACE_CG_BITS_MAX 10
#define TRACE_MAX_CG	  (1 << TRACE_CG_BITS_MAX)
#define TRACE_CG_PROBES	  8
/* per-CPU rows of both tables together take at most this many bytes */
#define TRACE_ROWS_BYTES_MAX (64u << 20)
/* requests between insert/issue and completion, a slot by address */
#define TRACE_INFLIGHT_BITS 16
#define TRACE_MAX_INFLIGHT  (1 << TRACE_INFLIGHT_BITS)
/* log2 buckets of microseconds as libbpf-tools' biolatency: bucket i holds
 * [2^i, 2^(i+1)) us, bucket 0 also 0 us; the last one everything above */
#define TRACE_HIST_SLOTS 32

enum {
	TRACE_OP_READ,
	TRACE_OP_WRITE,
	TRACE_OP_FLUSH,
	TRACE_OP_DISCARD,
	TRACE_OP__COUNT,
};

enum {
	TRACE_LAT_QUEUED, /* block_rq_insert -> block_rq_issue: in the kernel's queue */
	TRACE_LAT_DEVICE, /* block_rq_issue -> block_rq_complete: at the device */
	TRACE_LAT__COUNT,
};

/* (disk, blk-mq hardware queue, op) rows of the device stage: one array
 * shared by the CPUs (atomic adds; an hctx's completions come mostly from
 * its own few CPUs), a row's slot by hash, TRACE_HLAT_PROBES slots tried
 * from it; a row that finds none taken by it or free is not kept
 * (hlat_dropped). Hardware queue numbers from TRACE_HCTX_MAX on are not
 * kept either. */
#define TRACE_HLAT_BITS	  13
#define TRACE_MAX_HLAT	  (1 << TRACE_HLAT_BITS)
#define TRACE_HLAT_PROBES 8
#define TRACE_HCTX_MAX	  (1 << 16)

#define TRACE_MAX_NAPI	     1024 /* NAPI instances timed inside NET_RX */
#define TRACE_MAX_BLKQ	     4096 /* (disk, hardware queue) timed inside BLOCK */
#define TRACE_SOFTIRQ_NET_RX 3
#define TRACE_SOFTIRQ_BLOCK  4

/* hard_time (by IRQ line) and soft_time (by vector): per CPU */
struct trace_time {
	__u64 ns;
	__u64 count;
};

struct trace_lat_val {
	__u64 slots[TRACE_HIST_SLOTS];
	__u64 count;
	__u64 sum_ns;
	__u64 remote; /* DEVICE only: completed on another CPU than submitted on */
};

/* lat_rows: a per-CPU array; a (disk, op) takes the first free or its own
 * slot of TRACE_LAT_PROBES from its hash, on each CPU on its own (so one
 * row may sit in different slots on different CPUs: the reader merges) */
struct trace_lat_row {
	__u32 dev; /* major << 20 | first minor, the kernel's dev_t */
	__u32 op1; /* TRACE_OP_* + 1; 0: a free slot */
	struct trace_lat_val kind[TRACE_LAT__COUNT];
};

/* cg_rows: per CPU as lat_rows, a (cgroup, disk) in the first free or its
 * own slot of TRACE_CG_PROBES from its hash; every op but flush (a flush
 * request has no bio, so no owner) */
struct trace_cg_row {
	__u64 cgid; /* the cgroup's kernfs node id (its directory's inode); 0 free */
	__u32 dev;  /* major << 20 | first minor */
	__u32 pad;
	struct trace_lat_val kind[TRACE_LAT__COUNT];
};

/* hlat (trace.bpf.c's global array, read through the skeleton's mapping):
 * a (disk, hctx, op)'s device-stage histogram (issue -> complete) */
struct trace_hlat_row {
	__u64 key; /* dev << 32 | hctx << 8 | (op + 1); 0: a free slot */
	__u64 count;
	__u64 sum_ns;
	__u64 remote; /* completed on another CPU than submitted on */
	__u64 slots[TRACE_HIST_SLOTS];
};

/* hlat's count on a disk of one hardware queue: the row stands for the
 * disk's (dev, op) row's device stage, which has the same IOs, and is
 * not updated (the reader copies that row: trace_hlat_take) */
#define TRACE_HLAT_MIRROR (~0ull)

static inline __u64 trace_hlat_key(__u32 dev, __u32 hctx, __u32 op)
{
	return (__u64)dev << 32 | (__u64)hctx << 8 | (op + 1);
}

/* napi_time: per CPU, by napi_id (0: the per-CPU backlog of netif_rx,
 * loopback's, and any NAPI not registered) */
struct trace_napi_val {
	__u64 ns;    /* NET_RX time up to the end of its polls */
	__u64 polls; /* napi_poll runs */
	__u64 work;  /* packets they handled */
	__s32 irq;   /* the NAPI's IRQ line, -1 none */
	__s32 index; /* its queue's index, -1 unknown */
	__u32 ifindex;
	__u32 named;  /* 1 on the CPU that filled irq .. netns (the others: 0) */
	char dev[16]; /* IFNAMSIZ; "" backlog */
	__u32 netns;  /* the device's network namespace (its ns.inum, as
		       * /proc/PID/ns/net's inode); 0 backlog */
	__u32 pad;
};

struct trace_blkq_key {
	__u32 dev;  /* major << 20 | first minor */
	__u32 hctx; /* blk-mq hardware queue number */
};

/* blkq_time: per CPU */
struct trace_blkq_val {
	__u64 ns;    /* BLOCK time up to the start of its completions */
	__u64 count; /* requests completed inside BLOCK */
};

#endif
