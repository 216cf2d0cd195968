// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One sample of every source. Keeps the procfile readers and the /sys/block
 * cache between samples; never computes a rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkmq.h"
#include "clock.h"
#include "workload.h"
#include "grow.h"
#include "diskstats.h"
#include "irqtab.h"
#include "stat.h"
#include "uptime.h"
#include "numa.h"
#include "rec_payload.h"
#include "snapshot.h"
#include "kname.h"
#include "strbuf.h"
#include "turbo.h"

static const char *const source_path[SRC__COUNT] = {
	[SRC_UPTIME] = "proc/uptime",	    [SRC_STAT] = "proc/stat",
	[SRC_DISKSTATS] = "proc/diskstats", [SRC_INTERRUPTS] = "proc/interrupts",
	[SRC_SOFTIRQS] = "proc/softirqs",   [SRC_SYSBLOCK] = NULL,
};

static const char *const source_name[SRC__COUNT] = {
	[SRC_UPTIME] = "uptime",	 [SRC_STAT] = "stat",	      [SRC_DISKSTATS] = "diskstats",
	[SRC_INTERRUPTS] = "interrupts", [SRC_SOFTIRQS] = "softirqs", [SRC_SYSBLOCK] = "sysblock",
};

const char *snapshot_source_path(enum src_id id)
{
	return id < SRC__COUNT ? source_path[id] : NULL;
}

const char *snapshot_source_name(enum src_id id)
{
	return id < SRC__COUNT ? source_name[id] : "?";
}

int snapshot_collector_open(const char *root_dir, struct snapshot_collector *ret_c)
{
	struct snapshot_collector c = { 0 };
	int r;

	r = root_open(root_dir, &c.root);
	if (r < 0)
		return r;
	for (int i = 0; i < SRC__COUNT; i++)
		procfile_init(&c.pf[i], source_path[i]);
	c.next_id = 1;
	*ret_c = c;
	return 0;
}

void snapshot_collector_close(struct snapshot_collector *c)
{
	if (!c)
		return;
	for (int i = 0; i < SRC__COUNT; i++)
		if (c->pf[i].rel)
			procfile_free(&c->pf[i]);
	grow_free((void **)&c->blk, &c->nblk, &c->blk_cap);
	blkmq_table_free(&c->mq);
	numa_table_free(&c->numa);
	turbo_collector_free(c->turbo);
	c->turbo = NULL;
	workload_collector_free(c->workload);
	c->workload = NULL;
	root_close(&c->root);
}

static void set_status(struct snapshot_collector *c, struct snapshot *s, enum src_id id, int err,
		       const struct parse_error *pe)
{
	struct src_status *st = &s->status[id];
	char path[192];

	st->err = err;
	st->reason[0] = '\0';
	if (err == 0)
		return;
	root_display(&c->root, source_path[id] ? source_path[id] : "sys/block", path, sizeof(path));
	if (err == -EBADMSG && pe)
		snprintf(st->reason, sizeof(st->reason), "%s:%u: %s", path, pe->line, pe->what);
	else
		snprintf(st->reason, sizeof(st->reason), "%s: %s", path, root_strerror(err));
}

struct name_list {
	char *buf;
	size_t size, len;
};

/* Appends name to a comma-separated list; stops when it would not fit. */
static int add_slave(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct name_list *l = ctx;
	size_t n = strlen(name);

	if (name[0] == '.')
		return 0;
	if (l->len + n + 2 > l->size)
		return 1;
	if (l->len)
		l->buf[l->len++] = ',';
	memcpy(l->buf + l->len, name, n);
	l->len += n;
	l->buf[l->len] = '\0';
	return 0;
}

static void read_slaves(const struct root *r, const char *sname, char *buf, size_t size)
{
	char rel[IOT_NAME_MAX + 32];
	struct name_list l = { buf, size, 0 };

	buf[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/block/%s/slaves", sname);
	root_for_each_entry(r, rel, add_slave, &l);
}

static void blockinfo_fill(const struct root *r, struct blockinfo *b)
{
	char sname[IOT_NAME_MAX], rel[IOT_NAME_MAX + 32], val[16];
	int fd;

	b->dm_name[0] = '\0';
	b->slaves[0] = '\0';
	b->iostats = -1;
	/* /sys/block's name ('!' for '/': cciss!c0d0), and only for a name
	 * the kernel gives: a recorded "../x" is put in no path (kname.h) */
	if (kname_sysfs(KNAME_DISK, b->name, sname, sizeof(sname)) < 0) {
		b->whole = false;
		return;
	}
	snprintf(rel, sizeof(rel), "sys/block/%s", sname);
	/* partitions live under their disk, not directly in /sys/block */
	fd = root_openat(r, rel, O_RDONLY | O_DIRECTORY);
	b->whole = fd >= 0;
	if (fd >= 0)
		close(fd);
	if (!b->whole)
		return;
	snprintf(rel, sizeof(rel), "sys/block/%s/dm/name", sname);
	if (root_read_small(r, rel, b->dm_name, sizeof(b->dm_name)) < 0)
		b->dm_name[0] = '\0';
	read_slaves(r, sname, b->slaves, sizeof(b->slaves));
	snprintf(rel, sizeof(rel), "sys/block/%s/queue/iostats", sname);
	if (root_read_small(r, rel, val, sizeof(val)) > 0)
		b->iostats = val[0] == '0' ? 0 : 1;
}

/* Re-reads /sys/block only when the set of devices changed: it costs a
 * dozen syscalls per device, the counters themselves cost one read. */
static int refresh_blockinfo(struct snapshot_collector *c, struct disk_table *t)
{
	bool same = c->nblk == t->n;

	for (size_t i = 0; same && i < t->n; i++)
		same = c->blk[i].major == t->rows[i].major && c->blk[i].minor == t->rows[i].minor &&
		       strcmp(c->blk[i].name, t->rows[i].name) == 0;
	if (!same) {
		if (grow((void **)&c->blk, &c->blk_cap, t->n, sizeof(*c->blk)) < 0)
			return -ENOMEM;
		c->mq.n = 0;
		for (size_t i = 0; i < t->n; i++) {
			struct blockinfo *b = &c->blk[i];
			char sname[IOT_NAME_MAX];

			b->major = t->rows[i].major;
			b->minor = t->rows[i].minor;
			memcpy(b->name, t->rows[i].name, sizeof(b->name));
			blockinfo_fill(&c->root, b);
			/* the hardware queues: as static as the rest of /sys/block */
			if (b->whole &&
			    kname_sysfs(KNAME_DISK, b->name, sname, sizeof(sname)) == 0 &&
			    blkmq_read_disk(&c->root, b->name, sname, &c->mq) == -ENOMEM)
				return -ENOMEM;
		}
		c->nblk = t->n;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct disk_raw *d = &t->rows[i];
		const struct blockinfo *b = &c->blk[i];

		d->whole = b->whole;
		d->iostats = b->iostats;
		memcpy(d->dm_name, b->dm_name, sizeof(d->dm_name));
		memcpy(d->slaves, b->slaves, sizeof(d->slaves));
	}
	return 0;
}

/* Parses what pf holds (r: the read's result) into s; a failure leaves the
 * source's table empty and its status says why. */
static int parse_source(struct snapshot_collector *c, struct snapshot *s, enum src_id id, int r)
{
	struct procfile *pf = &c->pf[id];
	struct parse_error pe = { 0 };

	if (r >= 0) {
		switch (id) {
		case SRC_UPTIME:
			r = uptime_parse(pf->buf, pf->len, &s->uptime, &pe);
			break;
		case SRC_STAT:
			r = stat_parse(pf->buf, pf->len, &s->stat, &pe);
			break;
		case SRC_DISKSTATS:
			r = diskstats_parse(pf->buf, pf->len, &s->disks, &pe);
			break;
		case SRC_INTERRUPTS:
			r = irqtab_parse(pf->buf, pf->len, false, &s->irqs, &pe);
			break;
		case SRC_SOFTIRQS:
			r = irqtab_parse(pf->buf, pf->len, true, &s->softirqs, &pe);
			break;
		default:
			r = -EINVAL;
			break;
		}
	}
	if (r < 0) {
		/* never half a table: a failed source is empty, not zeros */
		switch (id) {
		case SRC_UPTIME:
			memset(&s->uptime, 0, sizeof(s->uptime));
			break;
		case SRC_STAT:
			s->stat.ncpu = 0;
			s->stat.has_intr = s->stat.has_softirq = false;
			break;
		case SRC_DISKSTATS:
			s->disks.n = 0;
			break;
		case SRC_INTERRUPTS:
			s->irqs.n = s->irqs.ncpu = 0;
			break;
		case SRC_SOFTIRQS:
			s->softirqs.n = s->softirqs.ncpu = 0;
			break;
		default:
			break;
		}
	}
	set_status(c, s, id, r < 0 ? r : 0, &pe);
	return r < 0 ? r : 0;
}

int64_t snapshot_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static int read_source(struct snapshot_collector *c, struct snapshot *s, enum src_id id)
{
	return parse_source(c, s, id, procfile_read(&c->pf[id], &c->root));
}

int snapshot_collector_sample(struct snapshot_collector *c, struct snapshot *s)
{
	int first_err = 0, r;

	s->id = c->next_id++;
	s->mono_ns = clock_ns(CLOCK_MONOTONIC);
	s->real_ns = clock_ns(CLOCK_REALTIME);
	for (int i = 0; i < SRC__COUNT; i++) {
		if (i == SRC_SYSBLOCK)
			continue;
		r = read_source(c, s, (enum src_id)i);
		if (r < 0 && !first_err)
			first_err = r;
	}
	for (int k = 0; k < CAD__COUNT; k++) {
		struct src_cadence *cd = &s->cadence[k];

		/* the first sample of a source reads it whatever was asked */
		cd->carried = (c->noread & (1u << k)) &&
			      (k == CAD_TURBO ? s->turbo != NULL : s->workload != NULL);
		if (cd->carried)
			continue; /* the sampler puts the last read's rows and times */
		cd->cpu_ns = 0;
		cd->read_uptime_cs = s->status[SRC_UPTIME].err ? 0 : s->uptime.uptime_cs;
	}
	/* turbostat counters of the CPUs /proc/stat lists as online; never fails the sample */
	if (!(c->skip & COLLECT_SKIP_TURBO) && !s->cadence[CAD_TURBO].carried) {
		int64_t t0 = snapshot_thread_cpu_ns();

		if (turbo_collect(&c->turbo, &c->root, &s->stat, &s->turbo) < 0 && !first_err)
			first_err = -ENOMEM;
		s->cadence[CAD_TURBO].cpu_ns = (uint64_t)(snapshot_thread_cpu_ns() - t0);
	}
	/* processes, NICs, pressure, writeback: statuses inside, never fails the sample */
	if (!(c->skip & COLLECT_SKIP_EXT)) {
		r = workload_sample_some(&c->workload, &c->root, s->cadence, &s->workload);
		if (r < 0 && !first_err)
			first_err = -ENOMEM;
		/* the scan's own time, for the rates of the next scan */
		if (s->workload && !s->workload->procs.carried)
			s->workload->procs.scan_uptime_cs = s->cadence[CAD_PROCS].read_uptime_cs;
	}
	r = s->status[SRC_DISKSTATS].err ? 0 : refresh_blockinfo(c, &s->disks);
	if (r >= 0 && !s->status[SRC_DISKSTATS].err)
		r = blkmq_table_copy(&s->mq, &c->mq);
	else
		s->mq.n = 0;
	set_status(c, s, SRC_SYSBLOCK, r, NULL);
	/* NUMA nodes: read again only when the CPU count changes (hotplug) */
	if ((!c->numa_read || c->numa_ncpu != s->stat.ncpu) && numa_read(&c->root, &c->numa) == 0) {
		c->numa_read = true;
		c->numa_ncpu = s->stat.ncpu;
	}
	if (numa_table_copy(&s->numa, &c->numa) < 0)
		s->numa.n = 0;
	if (s->status[SRC_STAT].err && s->status[SRC_DISKSTATS].err)
		return first_err;
	return 0;
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	stat_raw_free(&s->stat);
	disk_table_free(&s->disks);
	irq_table_free(&s->irqs);
	irq_table_free(&s->softirqs);
	turbo_raw_free(s->turbo);
	s->turbo = NULL;
	workload_raw_free(s->workload);
	s->workload = NULL;
	blkmq_table_free(&s->mq);
	numa_table_free(&s->numa);
}

int snapshot_copy(struct snapshot *dst, const struct snapshot *src)
{
	int r;

	dst->id = src->id;
	dst->mono_ns = src->mono_ns;
	dst->real_ns = src->real_ns;
	dst->uptime = src->uptime;
	memcpy(dst->status, src->status, sizeof(src->status));
	memcpy(dst->cadence, src->cadence, sizeof(src->cadence));
	r = stat_raw_copy(&dst->stat, &src->stat);
	if (r >= 0)
		r = disk_table_copy(&dst->disks, &src->disks);
	if (r >= 0)
		r = irq_table_copy(&dst->irqs, &src->irqs);
	if (r >= 0)
		r = irq_table_copy(&dst->softirqs, &src->softirqs);
	if (r >= 0)
		r = turbo_raw_copy(&dst->turbo, src->turbo);
	if (r >= 0)
		r = workload_raw_copy(&dst->workload, src->workload);
	if (r >= 0)
		r = blkmq_table_copy(&dst->mq, &src->mq);
	if (r >= 0)
		r = numa_table_copy(&dst->numa, &src->numa);
	return r;
}

int snapshot_load_tree(const char *dir, struct snapshot *s)
{
	struct snapshot_collector c;
	int r;

	r = snapshot_collector_open(dir, &c);
	if (r < 0)
		return r;
	r = snapshot_collector_sample(&c, s);
	snapshot_collector_close(&c);
	return r;
}

/*
 * The flight recorder's payload (doc/recording.md): records of a 12-byte
 * header (u16 tag, u16 zero, i32 err, u32 length, little-endian) and the
 * bytes. err 0: the file's bytes exactly as read; err < 0: the source
 * failed and the bytes are the status reason. Tags are the file format's,
 * not enum src_id's, so the enum may change; unknown tags are skipped.
 */
enum {
	REC_TAG_UPTIME = 1,
	REC_TAG_STAT = 2,
	REC_TAG_DISKSTATS = 3,
	REC_TAG_INTERRUPTS = 4,
	REC_TAG_SOFTIRQS = 5,
	REC_TAG_SYSBLOCK = 6, /* the /sys/block facts, one line a disk */
};

static const uint16_t rec_tag[SRC__COUNT] = {
	[SRC_UPTIME] = REC_TAG_UPTIME,	     [SRC_STAT] = REC_TAG_STAT,
	[SRC_DISKSTATS] = REC_TAG_DISKSTATS, [SRC_INTERRUPTS] = REC_TAG_INTERRUPTS,
	[SRC_SOFTIRQS] = REC_TAG_SOFTIRQS,   [SRC_SYSBLOCK] = REC_TAG_SYSBLOCK,
};

int snapshot_collector_pack(const struct snapshot_collector *c, const struct snapshot *s,
			    const struct topology *topo, struct rec_payload_memo *memo,
			    const struct strbuf *extra, struct strbuf *out)
{
	for (int i = 0; i < SRC__COUNT; i++) {
		const struct src_status *st = &s->status[i];

		if (st->err) {
			rec_payload_put(out, rec_tag[i], st->err, st->reason, strlen(st->reason));
		} else if (i != SRC_SYSBLOCK) {
			rec_payload_put(out, rec_tag[i], 0, c->pf[i].buf, c->pf[i].len);
		} else {
			size_t at = rec_payload_begin(out, REC_TAG_SYSBLOCK);

			for (size_t k = 0; !s->status[SRC_DISKSTATS].err && k < c->nblk; k++) {
				const struct blockinfo *b = &c->blk[k];

				/* "%u\t%u\t%d\t%d\t%s\t%s\n" without printf's parsing,
				 * every second for every disk */
				sb_u64(out, b->major);
				sb_putc(out, '\t');
				sb_u64(out, b->minor);
				sb_putc(out, '\t');
				sb_putc(out, b->whole ? '1' : '0');
				sb_putc(out, '\t');
				sb_i64(out, b->iostats);
				sb_putc(out, '\t');
				sb_puts(out, b->dm_name);
				sb_putc(out, '\t');
				sb_puts(out, b->slaves);
				sb_putc(out, '\n');
			}
			rec_payload_end(out, at);
		}
	}
	/* turbo, cgroups, NICs, pressure, writeback, blk-mq, NUMA, the topology,
	 * the caller's (the trace), and last the processes (rec_payload.c) */
	rec_payload_pack_sections(s, memo, out);
	if (topo)
		rec_payload_pack_topology_memo(topo, memo, out);
	if (extra && extra->len)
		sb_append(out, extra->buf, extra->len);
	return rec_payload_pack_procs(s, out);
}

/* A field of a sysblock line up to the next tab or newline into dst. */
static const char *rec_field(const char *p, const char *end, char *dst, size_t size)
{
	size_t n = 0;

	while (p < end && *p != '\t' && *p != '\n') {
		if (n + 1 < size)
			dst[n++] = *p;
		p++;
	}
	dst[n] = '\0';
	return p < end && *p == '\t' ? p + 1 : p;
}

/* The recorded /sys/block facts onto the disk rows, as refresh_blockinfo()
 * puts the live ones: by position, checked by major:minor. */
static int rec_sysblock(struct snapshot_collector *c, struct snapshot *s, const char *p, size_t len)
{
	/* an empty record may come with no buffer at all: no pointer arithmetic on NULL */
	const char *end = p ? p + len : p;
	struct disk_table *t = &s->disks;
	size_t k = 0;

	if (grow((void **)&c->blk, &c->blk_cap, t->n ? t->n : 1, sizeof(*c->blk)) < 0)
		return -ENOMEM;
	while (p < end && k < t->n) {
		struct blockinfo *b = &c->blk[k];
		char num[24];

		memset(b, 0, sizeof(*b));
		p = rec_field(p, end, num, sizeof(num));
		b->major = (uint32_t)strtoul(num, NULL, 10);
		p = rec_field(p, end, num, sizeof(num));
		b->minor = (uint32_t)strtoul(num, NULL, 10);
		p = rec_field(p, end, num, sizeof(num));
		b->whole = num[0] == '1';
		p = rec_field(p, end, num, sizeof(num));
		b->iostats = (int8_t)(num[0] == '-' ? -1 : num[0] == '0' ? 0 : 1);
		p = rec_field(p, end, b->dm_name, sizeof(b->dm_name));
		p = rec_field(p, end, b->slaves, sizeof(b->slaves));
		while (p < end && *p != '\n')
			p++;
		if (p < end)
			p++;
		memcpy(b->name, t->rows[k].name, sizeof(b->name));
		k++;
	}
	c->nblk = k;
	for (size_t i = 0; i < t->n; i++) {
		struct disk_raw *d = &t->rows[i];
		const struct blockinfo *b =
		    i < k && c->blk[i].major == d->major && c->blk[i].minor == d->minor ? &c->blk[i]
											: NULL;

		d->whole = b && b->whole;
		d->iostats = b ? b->iostats : -1;
		snprintf(d->dm_name, sizeof(d->dm_name), "%s", b ? b->dm_name : "");
		snprintf(d->slaves, sizeof(d->slaves), "%s", b ? b->slaves : "");
	}
	return 0;
}

static void rec_status(struct snapshot *s, enum src_id id, int32_t err, const char *p, size_t len)
{
	struct src_status *st = &s->status[id];

	st->err = err;
	snprintf(st->reason, sizeof(st->reason), "%.*s", (int)(len < 4096 ? len : 4096), p);
}

int snapshot_collector_unpack(struct snapshot_collector *c, const void *buf, size_t len,
			      struct snapshot *s)
{
	const char *pos = buf, *end = pos + len, *p, *sysblock = NULL;
	size_t l, sysblock_len = 0;
	int32_t e, sysblock_err = 0;
	uint16_t tag;
	bool seen[SRC__COUNT] = { false };
	bool had_turbo = false, had_workload = false;
	int r;

	rec_payload_unpack_begin(s);
	while ((r = rec_payload_next(&pos, end, &tag, &e, &p, &l)) > 0) {
		int id = -1;

		for (int i = 0; i < SRC__COUNT; i++)
			if (rec_tag[i] == tag)
				id = i;
		if (tag >= REC_TAG_TURBO && tag != REC_TAG_TOPOLOGY) {
			/* the optional sections (rec_payload.c); a malformed one is absent */
			r = rec_payload_unpack_section(tag, p, l, s);
			if (r == -ENOMEM)
				return r;
			if (tag == REC_TAG_TURBO)
				had_turbo = r == 0;
			else if (tag <= REC_TAG_WRITEBACK)
				had_workload = true;
		} else if (id == SRC_SYSBLOCK) {
			sysblock = p;
			sysblock_len = l;
			sysblock_err = (int32_t)e;
			seen[id] = true;
		} else if (id >= 0 && !seen[id]) {
			seen[id] = true;
			if ((int32_t)e < 0) {
				parse_source(c, s, (enum src_id)id, (int32_t)e);
				rec_status(s, (enum src_id)id, (int32_t)e, (const char *)p, l);
			} else {
				r = procfile_set(&c->pf[id], p, l);
				parse_source(c, s, (enum src_id)id, r);
			}
		}
	}
	if (r < 0)
		return r; /* a record overruns the payload */
	for (int i = 0; i < SRC__COUNT; i++) {
		if (seen[i] || i == SRC_SYSBLOCK)
			continue;
		parse_source(c, s, (enum src_id)i, -ENODATA);
		rec_status(s, (enum src_id)i, -ENODATA, "not in the recording", 20);
	}
	if (sysblock_err < 0) {
		rec_status(s, SRC_SYSBLOCK, sysblock_err, (const char *)sysblock, sysblock_len);
	} else {
		r = s->status[SRC_DISKSTATS].err
			? 0
			: rec_sysblock(c, s, (const char *)sysblock, sysblock ? sysblock_len : 0);
		set_status(c, s, SRC_SYSBLOCK, r, NULL);
	}
	rec_payload_unpack_end(s, had_turbo, had_workload);
	if (s->status[SRC_STAT].err && s->status[SRC_DISKSTATS].err)
		return s->status[SRC_STAT].err;
	return 0;
}
