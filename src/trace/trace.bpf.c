// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage's programs: time per hardirq line and per softirq vector
 * on each CPU, and block IO latency as log2 histograms per disk, op and
 * stage (queued, device). Everything lands in per-CPU maps that user space
 * reads once a sample (trace.c); nothing is sent per event, nothing pinned.
 * Built with clang -target bpf against the build host's vmlinux.h (CO-RE).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "trace_abi.h"

char LICENSE[] SEC("license") = "GPL";

/* the handler or softirq running on this CPU: its start, 0 none; and inside
 * a softirq, its vector + 1 and the end of the time already handed to a
 * queue (NAPI or disk hardware queue) */
#define START_HARD	0
#define START_SOFT	1
#define START_SOFT_MARK 2
#define START_SOFT_VEC1 3
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TRACE_MAX_IRQS);
	__type(key, __u32);
	__type(value, struct trace_time);
} hard_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_NR_SOFTIRQS);
	__type(key, __u32);
	__type(value, struct trace_time);
} soft_time SEC(".maps");

/*
 * A request between insert/issue and completion, in the slot its address
 * maps to (rq_slot): an array, so the issue probe writes its own slot
 * with no hash map's lock, allocation or lookup helper. Two requests in
 * flight at once that share a slot: the later one wins, the earlier one's
 * completion finds another request there and is not counted. blk-mq's
 * requests are preallocated in chunks of up to 64 KiB at equal stride,
 * and a chunk's requests take consecutive slots, one each, so this is
 * rare (measured in doc/trace.md).
 */
struct inflight {
	__u64 rq; /* the request's address; 0 free */
	__u64 insert_ns;
	__u64 issue_ns;
	__u32 cpu;    /* where the request was first seen: its submitter */
	__u32 weight; /* block_sample when it was chosen: the IOs it stands for */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TRACE_MAX_NAPI);
	__type(key, __u32);
	__type(value, struct trace_napi_val);
} napi_time SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, TRACE_MAX_BLKQ);
	__type(key, struct trace_blkq_key);
	__type(value, struct trace_blkq_val);
} blkq_time SEC(".maps");

/* per CPU: the queue of the last request completed inside BLOCK, with
 * the time and requests of its stretch not yet handed to blkq_time (held
 * across runs, handed over when another queue's request comes or at a
 * run's end at most once a millisecond); and the last NAPI polled inside
 * this NET_RX run */
#define BLKQ_FLUSH_NS 1000000
struct blkq_last {
	struct trace_blkq_key k;
	__u64 ns;	  /* the stretch's time held */
	__u64 count;	  /* its requests held */
	__u64 flushed_ns; /* when last handed over */
	__u32 valid;	  /* a stretch is held */
	__u32 run;	  /* a request completed in this BLOCK run */
	__u32 napi_valid;
	__u32 napi_id;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkq_last);
} blkq_last SEC(".maps");

static __always_inline struct blkq_last *blkq_last_of(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&blkq_last, &zero);
}

/* the histograms: per CPU, a slot per (disk, op) found from its hash, so
 * an IO's is an inlined array lookup or few, no hash map's */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_MAX_LAT);
	__type(key, __u32);
	__type(value, struct trace_lat_row);
} lat_rows SEC(".maps");

/* the slots some CPU took: the reader reads only those */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_LAT);
	__type(key, __u32);
	__type(value, __u32);
} lat_used SEC(".maps");

/* the same per (cgroup that owns the bio, disk) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TRACE_MAX_CG);
	__type(key, __u32);
	__type(value, struct trace_cg_row);
} cg_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACE_MAX_CG);
	__type(key, __u32);
	__type(value, __u32);
} cg_used SEC(".maps");

/* the tables' sizes as log2 of their slots, set with the maps' sizes
 * before loading (trace.c: from the disk count and the CPUs) */
const volatile __u32 lat_bits = TRACE_LAT_BITS;
const volatile __u32 cg_bits = TRACE_CG_BITS_MAX;
/* IOs that found no row: of (disk, op), of (cgroup, disk) */
__u64 lat_dropped;
__u64 cg_dropped;

/*
 * The device stage per (disk, hardware queue, op): one array shared by
 * the CPUs, not per CPU (a per-CPU array of rows x CPUs would be hundreds
 * of MB on a 256-CPU host with 128 queues a disk), updated with atomic
 * adds: a queue's completions come mostly from its own few CPUs, so its
 * cache lines rarely move. A global: an array lookup the verifier checks
 * by bounds, no helper call, and user space reads it where it is (the
 * skeleton's mapping of .bss), 2.3 MiB.
 */
struct trace_hlat_row hlat[TRACE_MAX_HLAT];
/* IOs whose row found no slot (or whose queue number is past TRACE_HCTX_MAX) */
__u64 hlat_dropped;

static __always_inline __u64 *start_of(__u32 which)
{
	return bpf_map_lookup_elem(&start, &which);
}

static __always_inline void time_add(struct trace_time *t, __u64 delta)
{
	t->ns += delta;
	t->count++;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(hard_entry, int irq, struct irqaction *action)
{
	__u64 *ts = start_of(START_HARD);

	if (ts)
		*ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(hard_exit, int irq, struct irqaction *action, int ret)
{
	struct trace_time zero = {}, *t;
	__u64 *ts = start_of(START_HARD), now = bpf_ktime_get_ns();
	__u32 key = irq;

	if (!ts || !*ts || now < *ts)
		return 0;
	t = bpf_map_lookup_elem(&hard_time, &key);
	if (!t) {
		bpf_map_update_elem(&hard_time, &key, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&hard_time, &key);
	}
	if (t)
		time_add(t, now - *ts);
	*ts = 0;
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(soft_entry, unsigned int vec)
{
	__u64 *ts = start_of(START_SOFT), *mark = start_of(START_SOFT_MARK);
	__u64 *vec1 = start_of(START_SOFT_VEC1), now = bpf_ktime_get_ns();
	struct blkq_last *l = blkq_last_of();

	if (l) {
		l->run = 0;
		l->napi_valid = 0;
	}
	if (ts)
		*ts = now;
	if (mark)
		*mark = now;
	if (vec1)
		*vec1 = vec + 1;
	return 0;
}

static __always_inline void blkq_add(struct trace_blkq_key *k, __u64 d, __u32 n)
{
	struct trace_blkq_val *v = bpf_map_lookup_elem(&blkq_time, k);

	if (!v) {
		struct trace_blkq_val z = {};

		bpf_map_update_elem(&blkq_time, k, &z, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&blkq_time, k);
		if (!v)
			return;
	}
	v->ns += d;
	v->count += n;
}

static __always_inline void napi_add(__u32 id, __u64 d, __u32 polls)
{
	struct trace_napi_val *v = bpf_map_lookup_elem(&napi_time, &id);

	if (v) {
		v->ns += d;
		v->polls += polls;
	}
}

/* Inside softirq vec on this CPU: the time since its entry or the last
 * queue's share (now - mark), and moves the mark to now; 0 elsewhere. Time
 * of hardirqs taken meanwhile is in it, as it is in the vector's. */
static __always_inline __u64 soft_share(__u32 vec, __u64 now)
{
	__u64 *mark = start_of(START_SOFT_MARK), *vec1 = start_of(START_SOFT_VEC1), d;

	if (!mark || !vec1 || *vec1 != vec + 1 || !*mark || now < *mark)
		return 0;
	d = now - *mark;
	*mark = now;
	return d;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(soft_exit, unsigned int vec)
{
	__u64 *ts = start_of(START_SOFT), now = bpf_ktime_get_ns();
	struct trace_time *t;
	__u32 key = vec;

	__u64 *vec1 = start_of(START_SOFT_VEC1);
	struct blkq_last *l = blkq_last_of();

	/* the rest of the run (a NAPI's GRO flush, deferred frees; the last
	 * request's bio completions) to the last queue */
	if (l && l->valid && l->run && vec == TRACE_SOFTIRQ_BLOCK) {
		l->ns += soft_share(TRACE_SOFTIRQ_BLOCK, now);
		if (now - l->flushed_ns >= BLKQ_FLUSH_NS) {
			blkq_add(&l->k, l->ns, l->count);
			l->ns = 0;
			l->count = 0;
			l->flushed_ns = now;
		}
	}
	if (l && l->napi_valid) {
		if (vec == TRACE_SOFTIRQ_NET_RX)
			napi_add(l->napi_id, soft_share(TRACE_SOFTIRQ_NET_RX, now), 0);
		l->napi_valid = 0;
	}
	if (vec1)
		*vec1 = 0;
	if (!ts || !*ts || now < *ts)
		return 0;
	t = bpf_map_lookup_elem(&soft_time, &key);
	if (t)
		time_add(t, now - *ts);
	*ts = 0;
	return 0;
}

static __always_inline struct trace_napi_val *napi_val(struct napi_struct *napi)
{
	__u32 key = napi->napi_id;
	struct trace_napi_val *v = bpf_map_lookup_elem(&napi_time, &key);
	struct trace_napi_val n = { .irq = -1, .index = -1, .named = 1 };
	struct net_device *dev;

	if (v)
		return v;
	/* the backlog has no device, and no IRQ or queue of its own */
	dev = napi->dev;
	if (dev) {
		if (bpf_core_field_exists(napi->irq))
			n.irq = napi->irq;
		if (bpf_core_field_exists(napi->index))
			n.index = napi->index;
		n.ifindex = dev->ifindex;
		bpf_probe_read_kernel_str(n.dev, sizeof(n.dev), dev->name);
		/* a name says nothing outside its namespace: any user's veth
		 * in its own namespace may be called eth0 (doc/trace.md) */
		n.netns = BPF_CORE_READ(dev, nd_net.net, ns.inum);
	}
	bpf_map_update_elem(&napi_time, &key, &n, BPF_NOEXIST);
	return bpf_map_lookup_elem(&napi_time, &key);
}

/* One NAPI poll inside NET_RX: the softirq's time since its entry or the
 * previous poll's end is this NAPI's (the rest after the last poll too,
 * at softirq_exit). Named soft_*: part of the softirq probe (switched with
 * it). Polls outside NET_RX (threaded NAPI, busy polling) are not counted. */
SEC("tp_btf/napi_poll")
int BPF_PROG(soft_napi, struct napi_struct *napi, int work, int budget)
{
	__u64 d = soft_share(TRACE_SOFTIRQ_NET_RX, bpf_ktime_get_ns());
	struct blkq_last *l = blkq_last_of();
	struct trace_napi_val *v;

	if (!d)
		return 0;
	v = napi_val(napi);
	if (!v)
		return 0;
	v->ns += d;
	v->polls++;
	v->work += work > 0 ? work : 0;
	if (l) {
		l->napi_id = napi->napi_id;
		l->napi_valid = 1;
	}
	return 0;
}

/* the disk of a request on kernels before and after 5.17 (rq_disk went to q->disk) */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

struct request_queue___new {
	struct gendisk *disk;
} __attribute__((preserve_access_index));

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct gendisk *disk;

	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk)) {
		disk = BPF_CORE_READ((struct request___old *)rq, rq_disk);
	} else {
		/* plain loads through BTF pointers (the verifier guards them) */
		disk = ((struct request_queue___new *)rq->q)->disk;
	}
	if (!disk)
		return 0;
	return (disk->major << 20) | disk->first_minor;
}

/* libbpf-tools' bits.bpf.h log2l, so the buckets are biolatency's */
static __always_inline __u64 log2_32(__u32 v)
{
	__u32 shift, r;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u64 log2l(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? log2_32(hi) + 32 : log2_32(v);
}

/* This CPU's row of (dev, op): its own slot or the first free one of
 * TRACE_LAT_PROBES from its hash; NULL when they are all others' (that
 * IO is not counted). */
static __always_inline struct trace_lat_row *lat_row(__u32 dev, __u32 op)
{
	__u32 bits = lat_bits & 31, h = ((dev ^ (op << 28)) * 0x9E3779B1u) >> (32 - bits);

	for (__u32 i = 0; i < TRACE_LAT_PROBES; i++) {
		__u32 k = (h + i) & ((1u << bits) - 1), *u;
		struct trace_lat_row *r = bpf_map_lookup_elem(&lat_rows, &k);

		if (!r)
			return NULL;
		if (r->op1 == op + 1 && r->dev == dev)
			return r;
		if (r->op1)
			continue;
		r->dev = dev;
		r->op1 = op + 1;
		u = bpf_map_lookup_elem(&lat_used, &k);
		if (u && !*u)
			*u = 1;
		return r;
	}
	return NULL;
}

/* The cgroup that owns the request: its first bio's blkg's (the
 * blkcg's cgroup, in the hierarchy the io controller is on: v1 blkio or
 * v2), as its kernfs node id, the directory's inode number; 0 when it has
 * no bio (a flush) or the kernel no blk-cgroup. Read at completion: the
 * tracepoint fires before the bios are ended. Plain loads through BTF
 * pointers (a NULL on the way reads as 0). */
static __always_inline __u64 rq_cgid(struct request *rq)
{
	struct blkcg_gq *blkg;
	struct bio *bio = rq->bio;

	if (!bio || !bpf_core_field_exists(bio->bi_blkg))
		return 0;
	blkg = bio->bi_blkg;
	if (!blkg || !blkg->blkcg)
		return 0;
	return blkg->blkcg->css.cgroup->kn->id;
}

/* This CPU's row of (cgroup, disk), as lat_row; NULL when none */
static __always_inline struct trace_cg_row *cg_row(__u64 cgid, __u32 dev)
{
	__u32 bits = cg_bits & 31;
	__u32 h =
	    (__u32)(((cgid ^ ((__u64)dev << 32)) * 0x9E3779B97F4A7C15ull) >> 32) >> (32 - bits);

	for (__u32 i = 0; i < TRACE_CG_PROBES; i++) {
		__u32 k = (h + i) & ((1u << bits) - 1), *u;
		struct trace_cg_row *r = bpf_map_lookup_elem(&cg_rows, &k);

		if (!r)
			return NULL;
		if (r->cgid == cgid && r->dev == dev)
			return r;
		if (r->cgid)
			continue;
		r->cgid = cgid;
		r->dev = dev;
		u = bpf_map_lookup_elem(&cg_used, &k);
		if (u && !*u)
			*u = 1;
		return r;
	}
	return NULL;
}

/*
 * Who took each slot of hlat: an insert with BPF_NOEXIST succeeds for one
 * CPU only, so two CPUs that find a slot free at once cannot both take it
 * (a compare-and-swap would need BPF atomics of Linux >= 5.12). Only the
 * first IO of a row comes here; the others find their key in the row.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TRACE_MAX_HLAT);
	__type(key, __u32);
	__type(value, __u64);
} hlat_claim SEC(".maps");

/* The shared row of (dev, hctx, op): its own slot or the first free one
 * of TRACE_HLAT_PROBES from its hash, taken through hlat_claim (a row is
 * never given back, so a key is in one slot only); NULL when none is (the
 * IOs are counted in hlat_dropped). */
static __always_inline struct trace_hlat_row *hlat_row(__u32 dev, __u32 hctx, __u32 op)
{
	__u64 key = trace_hlat_key(dev, hctx, op), k, *owner;
	__u32 h = (__u32)((key * 0x9E3779B97F4A7C15ull) >> (64 - TRACE_HLAT_BITS));

	if (hctx >= TRACE_HCTX_MAX)
		return NULL;
	for (__u32 i = 0; i < TRACE_HLAT_PROBES; i++) {
		__u32 slot = (h + i) & (TRACE_MAX_HLAT - 1);
		struct trace_hlat_row *r = &hlat[slot];

		k = *(volatile __u64 *)&r->key;
		if (k == key)
			return r;
		if (k)
			continue;
		if (!bpf_map_update_elem(&hlat_claim, &slot, &key, BPF_NOEXIST)) {
			r->key = key;
			return r;
		}
		/* taken a moment ago: by this key (its key not yet written) or another */
		owner = bpf_map_lookup_elem(&hlat_claim, &slot);
		if (owner && *owner == key)
			return r;
	}
	return NULL;
}

/* a latency's log2 µs bucket */
static __always_inline __u32 hist_slot(__u64 delta_ns)
{
	__u64 slot = log2l(delta_ns / 1000);

	return slot < TRACE_HIST_SLOTS ? (__u32)slot : TRACE_HIST_SLOTS - 1;
}

/* an IO of delta_ns in bucket slot (hist_slot: one division an IO's
 * stage, shared by its rows) */
static __always_inline void lat_add(struct trace_lat_val *v, __u32 slot, __u64 delta_ns, __u32 w,
				    __u32 remote)
{
	v->slots[slot & (TRACE_HIST_SLOTS - 1)] += w;
	v->count += w;
	v->sum_ns += delta_ns * w;
	v->remote += remote;
}

/* 1 in block_sample requests is timed (a power of two, at most
 * TRACE_SAMPLE_MAX; trace.c lowers the rate when the probe is over its
 * budget), and each timed one counts as block_sample IOs */
__u32 block_sample = 1;

/* a word to turn a pointer into a number (rq_slot) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} scratch SEC(".maps");

/* The request's slot: its address in units of the smallest stride blk-mq
 * can give a request (struct request and the driver's command, rounded up
 * to a cache line: 256 bytes when struct request is over 192, as on 6.x),
 * so two requests of a chunk never share a slot, the chunk's 64 KiB
 * block placed by the Fibonacci hash of its address. A chunk's requests
 * in flight then lie on two or three pages of the array, not scattered
 * over its 2 MiB: measured 0.43-0.67x (median 0.48x) biolatency -D where
 * the hash of each address gave 0.64-0.71x in the same runs
 * (doc/PERFORMANCE.md), the difference likely the TLB's and caches'
 * misses on the slots. */
static __always_inline __u32 rq_shift(void)
{
	__u32 size = bpf_core_type_size(struct request);

	if (size > 192)
		return 8;
	return size > 128 ? 7 : 6;
}

static __always_inline __u32 rq_slot(struct request *rq)
{
	__u32 zero = 0, shift = rq_shift();
	volatile __u64 *s = bpf_map_lookup_elem(&scratch, &zero);
	__u64 a;

	if (!s)
		return 0;
	/* the verifier forbids arithmetic on a pointer (and reading part of
	 * its spill on the stack); a pointer stored in a map and read back is
	 * a plain number (allowed to CAP_PERFMON, which loading needs) */
	*s = (__u64)rq;
	a = *s;
	return ((a >> shift) + ((a >> 16) * 0x9E3779B97F4A7C15ull >> (64 - TRACE_INFLIGHT_BITS))) &
	       (TRACE_MAX_INFLIGHT - 1);
}

/* Whether this life of the request is timed: the same answer at its insert,
 * issue and completion from two numbers fixed for that life (its first
 * sector and blk-mq's allocation stamp, 0 without iostats), spread by a
 * Fibonacci hash. Two plain loads and a multiply: what an IO that is not
 * timed costs beyond the program's entry. */
static __always_inline bool sampled(struct request *rq, __u32 n)
{
	__u64 h;

	if (n <= 1)
		return true;
	h = (rq->__sector ^ rq->start_time_ns) * 0x9E3779B97F4A7C15ull;
	return ((h >> 40) & (n - 1)) == 0;
}

static __always_inline struct inflight *inflight_of(struct request *rq)
{
	__u32 k = rq_slot(rq);

	return bpf_map_lookup_elem(&inflight, &k);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(blk_insert, struct request *rq)
{
	__u32 n = block_sample;
	struct inflight *f;

	if (!sampled(rq, n))
		return 0;
	f = inflight_of(rq);
	if (!f)
		return 0;
	f->rq = (__u64)rq;
	f->insert_ns = bpf_ktime_get_ns();
	f->issue_ns = 0;
	f->cpu = bpf_get_smp_processor_id();
	f->weight = n;
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(blk_issue, struct request *rq)
{
	__u32 n = block_sample;
	struct inflight *f;
	__u64 now;

	if (!sampled(rq, n))
		return 0;
	f = inflight_of(rq);
	if (!f)
		return 0;
	now = bpf_ktime_get_ns();
	/* inserted and not yet issued: this life of the request. Anything
	 * else (blk-mq's direct issue, never inserted; an earlier life whose
	 * completion we missed; another request in the slot) starts anew */
	if (f->rq == (__u64)rq && f->insert_ns && !f->issue_ns) {
		f->issue_ns = now;
		return 0;
	}
	f->rq = (__u64)rq;
	f->insert_ns = 0;
	f->issue_ns = now;
	f->cpu = bpf_get_smp_processor_id();
	f->weight = n;
	return 0;
}

/* A request completed inside BLOCK: the softirq's time from its
 * completion's start to the next queue's (or the softirq's end) is its
 * queue's, the work after the tracepoint (bio completions) included; the
 * time from a run's entry to its first completion too. A stretch of one
 * queue's requests is held on this CPU (struct blkq_last): a request like
 * the one before costs a few loads, no clock, no map. */
static __always_inline void blkq_complete(struct request *rq)
{
	struct trace_blkq_key k = { .dev = rq_dev(rq) };
	struct blk_mq_hw_ctx *h = rq->mq_hctx;
	struct blkq_last *l = blkq_last_of();
	__u64 d, now;

	if (!l)
		return;
	if (h)
		k.hctx = h->queue_num;
	if (l->valid && l->k.dev == k.dev && l->k.hctx == k.hctx) {
		l->count++;
		l->run = 1;
		return;
	}
	now = bpf_ktime_get_ns();
	d = soft_share(TRACE_SOFTIRQ_BLOCK, now);
	if (l->valid) {
		/* the run's time so far: the held queue's if it had a request
		 * in this run, else this one's (from the run's entry) */
		blkq_add(&l->k, l->ns + (l->run ? d : 0), l->count);
		if (l->run)
			d = 0;
	}
	l->k = k;
	l->ns = d;
	l->count = 1;
	l->flushed_ns = now;
	l->valid = 1;
	l->run = 1;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(blk_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 now, issue_ns, insert_ns, delta, qdelta, cgid, *vec1 = start_of(START_SOFT_VEC1);
	__u32 dslot, qslot;
	bool queued;
	struct blk_mq_hw_ctx *hctx;
	struct trace_hlat_row *hrow;
	struct trace_lat_row *row;
	__u32 op, cpu, w, dev, remote;
	struct inflight *f;

	/* every completion inside BLOCK (not only sampled ones): its queue */
	if (vec1 && *vec1 == TRACE_SOFTIRQ_BLOCK + 1)
		blkq_complete(rq);
	if (!sampled(rq, block_sample))
		return 0;
	f = inflight_of(rq);
	if (!f || f->rq != (__u64)rq)
		return 0;
	now = bpf_ktime_get_ns();
	issue_ns = f->issue_ns;
	insert_ns = f->insert_ns;
	cpu = f->cpu;
	w = f->weight;
	f->rq = 0;
	/* REQ_OP_READ 0, WRITE 1, FLUSH 2, DISCARD 3 (include/linux/blk_types.h);
	 * tp_btf's rq is a trusted pointer: plain loads, no probe-read helper */
	op = rq->cmd_flags & 0xff;
	if (op >= TRACE_OP__COUNT || !issue_ns || now < issue_ns)
		return 0;
	dev = rq_dev(rq);
	delta = now - issue_ns;
	remote = cpu != bpf_get_smp_processor_id() ? w : 0;
	dslot = hist_slot(delta);
	queued = insert_ns && issue_ns >= insert_ns;
	qdelta = queued ? issue_ns - insert_ns : 0;
	qslot = queued ? hist_slot(qdelta) : 0;
	row = lat_row(dev, op);
	if (row) {
		lat_add(&row->kind[TRACE_LAT_DEVICE], dslot, delta, w, remote);
		if (queued)
			lat_add(&row->kind[TRACE_LAT_QUEUED], qslot, qdelta, w, 0);
	} else {
		__sync_fetch_and_add(&lat_dropped, w);
	}
	/* the same IO by the cgroup that owns it */
	cgid = op == TRACE_OP_FLUSH ? 0 : rq_cgid(rq);
	if (cgid) {
		struct trace_cg_row *g = cg_row(cgid, dev);

		if (g) {
			lat_add(&g->kind[TRACE_LAT_DEVICE], dslot, delta, w, remote);
			if (queued)
				lat_add(&g->kind[TRACE_LAT_QUEUED], qslot, qdelta, w, 0);
		} else {
			__sync_fetch_and_add(&cg_dropped, w);
		}
	}
	/* the same IO on its hardware queue's shared row */
	hctx = rq->mq_hctx;
	hrow = hctx ? hlat_row(dev, hctx->queue_num, op) : NULL;
	if (!hrow) {
		__sync_fetch_and_add(&hlat_dropped, w);
		return 0;
	}
	/* a disk of one queue: its disk's rows are the queue's, the row only
	 * says so (TRACE_HLAT_MIRROR), no atomic add on a line the CPUs share;
	 * a disk whose queues grew from one (a reset): its row counts again */
	if (rq->q->nr_hw_queues == 1) {
		if (hrow->count != TRACE_HLAT_MIRROR)
			hrow->count = TRACE_HLAT_MIRROR;
		return 0;
	}
	if (hrow->count == TRACE_HLAT_MIRROR)
		hrow->count = 0;
	/* no count: the reader takes the buckets' sum (trace_hlat_take) */
	__sync_fetch_and_add(&hrow->slots[dslot & (TRACE_HIST_SLOTS - 1)], w);
	__sync_fetch_and_add(&hrow->sum_ns, delta * w);
	if (remote)
		__sync_fetch_and_add(&hrow->remote, remote);
	return 0;
}
