// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One sample of every source. Keeps the procfile readers and the /sys/block
 * cache between samples; never computes a rate.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blkmq.h"
#include "extsrc.h"
#include "grow.h"
#include "diskstats.h"
#include "irqtab.h"
#include "stat.h"
#include "uptime.h"
#include "numa.h"
#include "snapshot.h"
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

int collector_open(const char *root_dir, struct collector *ret_c)
{
	struct collector c = { 0 };
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

void collector_close(struct collector *c)
{
	if (!c)
		return;
	for (int i = 0; i < SRC__COUNT; i++)
		if (c->pf[i].rel)
			procfile_free(&c->pf[i]);
	free(c->blk);
	c->blk = NULL;
	blkmq_table_free(&c->mq);
	numa_table_free(&c->numa);
	turbo_collector_free(c->turbo);
	c->turbo = NULL;
	extsrc_collector_free(c->ext);
	c->ext = NULL;
	c->nblk = c->blk_cap = 0;
	root_close(&c->root);
}

static void set_status(struct collector *c, struct snapshot *s, enum src_id id, int err,
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

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* /sys/block uses '!' where the device name has '/' (cciss/c0d0). */
static void sysfs_name(const char *name, char *buf, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < size; i++)
		buf[i] = name[i] == '/' ? '!' : name[i];
	buf[i] = '\0';
}

static void read_slaves(const struct root *r, const char *sname, char *buf, size_t size)
{
	char rel[IOT_NAME_MAX + 32];
	struct dirent *de;
	size_t len = 0;
	DIR *d;
	int fd;

	buf[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/block/%s/slaves", sname);
	fd = root_openat(r, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		size_t n;

		if (de->d_name[0] == '.')
			continue;
		n = strlen(de->d_name);
		if (len + n + 2 > size)
			break;
		if (len)
			buf[len++] = ',';
		memcpy(buf + len, de->d_name, n);
		len += n;
		buf[len] = '\0';
	}
	closedir(d);
}

static void blockinfo_fill(const struct root *r, struct blockinfo *b)
{
	char sname[IOT_NAME_MAX], rel[IOT_NAME_MAX + 32], val[16];
	int fd;

	sysfs_name(b->name, sname, sizeof(sname));
	snprintf(rel, sizeof(rel), "sys/block/%s", sname);
	/* partitions live under their disk, not directly in /sys/block */
	fd = root_openat(r, rel, O_RDONLY | O_DIRECTORY);
	b->whole = fd >= 0;
	if (fd >= 0)
		close(fd);
	b->dm_name[0] = '\0';
	b->slaves[0] = '\0';
	b->iostats = -1;
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
static int refresh_blockinfo(struct collector *c, struct disk_table *t)
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
			sysfs_name(b->name, sname, sizeof(sname));
			if (b->whole &&
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

static int read_source(struct collector *c, struct snapshot *s, enum src_id id)
{
	struct procfile *pf = &c->pf[id];
	struct parse_error pe = { 0 };
	int r;

	r = procfile_read(pf, &c->root);
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
	return now_ns(CLOCK_THREAD_CPUTIME_ID);
}

int collector_sample(struct collector *c, struct snapshot *s)
{
	int first_err = 0, r;

	s->id = c->next_id++;
	s->mono_ns = now_ns(CLOCK_MONOTONIC);
	s->real_ns = now_ns(CLOCK_REALTIME);
	for (int i = 0; i < SRC__COUNT; i++) {
		if (i == SRC_SYSBLOCK)
			continue;
		r = read_source(c, s, (enum src_id)i);
		if (r < 0 && !first_err)
			first_err = r;
	}
	/* turbostat counters of the CPUs /proc/stat lists as online; never fails the sample */
	if (!(c->skip & COLLECT_SKIP_TURBO) &&
	    turbo_collect(&c->turbo, &c->root, &s->stat, &s->turbo) < 0 && !first_err)
		first_err = -ENOMEM;
	/* processes, NICs, pressure, writeback: statuses inside, never fails the sample */
	if (!(c->skip & COLLECT_SKIP_EXT)) {
		r = c->noscan && s->ext ? extsrc_sample_noscan(&c->ext, &c->root, &s->ext)
					: extsrc_sample(&c->ext, &c->root, &s->ext);
		if (r < 0 && !first_err)
			first_err = -ENOMEM;
		/* the scan's own time, for the rates of the next scan */
		if (s->ext && !s->ext->procs.carried)
			s->ext->procs.scan_uptime_cs =
			    s->status[SRC_UPTIME].err ? 0 : s->uptime.uptime_cs;
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
	extsrc_raw_free(s->ext);
	s->ext = NULL;
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
		r = extsrc_raw_copy(&dst->ext, src->ext);
	if (r >= 0)
		r = blkmq_table_copy(&dst->mq, &src->mq);
	if (r >= 0)
		r = numa_table_copy(&dst->numa, &src->numa);
	return r;
}

int snapshot_load_tree(const char *dir, struct snapshot *s)
{
	struct collector c;
	int r;

	r = collector_open(dir, &c);
	if (r < 0)
		return r;
	r = collector_sample(&c, s);
	collector_close(&c);
	return r;
}
