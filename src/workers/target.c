// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Target setup and teardown for the bench (see target.h). The only place
 * that creates or removes files, and only files it created itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "target.h"

#define LAYOUT_CHUNK (1u << 20)

static int why_fmt(char *why, size_t size, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int why_fmt(char *why, size_t size, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return err;
}

/* Writes [from, to) of fd with non-zero data so reads later hit real blocks, then fsyncs. */
static int target_layout(int fd, uint64_t from, uint64_t to)
{
	uint64_t *buf, x = 0x9e3779b97f4a7c15ULL;
	int ret = 0;

	buf = malloc(LAYOUT_CHUNK);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < LAYOUT_CHUNK / sizeof(*buf); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = x;
	}
	while (from < to) {
		size_t n = to - from < LAYOUT_CHUNK ? (size_t)(to - from) : LAYOUT_CHUNK;
		ssize_t w = pwrite(fd, buf, n, (off_t)from);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ret = w < 0 ? -errno : -EIO;
			break;
		}
		from += (uint64_t)w;
	}
	free(buf);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	return ret;
}

static int target_region(const struct job_spec *s, struct job_target *t, char *why, size_t n)
{
	uint64_t total = t->size_bytes, off, len;

	off = s->offset_pct ? total / 100 * s->offset_pct : s->offset;
	off -= off % s->bs; /* fio aligns a percentage offset to the block size */
	if (off >= total)
		return why_fmt(why, n, -EINVAL, "offset %llu is beyond the end of %s (%llu bytes)",
			       (unsigned long long)off, t->path, (unsigned long long)total);
	if (s->size)
		len = s->size;
	else if (s->size_pct)
		len = total / 100 * s->size_pct;
	else
		len = total - off;
	if (len > total - off)
		return why_fmt(why, n, -EINVAL,
			       "offset %llu + size %llu is beyond the end of %s (%llu bytes)",
			       (unsigned long long)off, (unsigned long long)len, t->path,
			       (unsigned long long)total);
	len -= len % s->bs;
	if (!len)
		return why_fmt(why, n, -EINVAL, "the region holds no whole %llu-byte block",
			       (unsigned long long)s->bs);
	if (s->direct && (s->bs % t->logical_block || off % t->logical_block))
		return why_fmt(why, n, -EINVAL,
			       "--direct=1 needs bs and offset in multiples of %u (the logical "
			       "block size of %s)",
			       t->logical_block, t->path);
	t->region_off = off;
	t->region_len = len;
	return 0;
}

static int target_open_blockdev(const struct job_spec *s, bool write, struct target *tg, char *why,
				size_t n)
{
	struct job_target *t = &tg->t;
	uint64_t size;
	int fd, lbs = 512, ret;

	fd = open(t->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return why_fmt(why, n, -errno, "open %s: %s", t->path, strerror(errno));
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		ret = -errno;
		close(fd);
		return why_fmt(why, n, ret, "%s: BLKGETSIZE64: %s", t->path, strerror(-ret));
	}
	if (ioctl(fd, BLKSSZGET, &lbs) < 0 || lbs <= 0)
		lbs = 512;
	close(fd);
	t->blockdev = true;
	t->size_bytes = size;
	t->logical_block = (unsigned)lbs;
	if (write) {
		/*
		 * O_EXCL on a block device is the kernel's own claim: it fails
		 * with EBUSY while the device is mounted or held by md/dm, and
		 * keeps them out until we close it. It closes the window between
		 * our checks and the first write.
		 */
		tg->claim_fd = open(t->path, O_RDWR | O_EXCL | O_CLOEXEC);
		if (tg->claim_fd < 0)
			return why_fmt(why, n, -errno,
				       "%s: cannot claim it exclusively (%s): "
				       "mounted or in use by another program?",
				       t->path, strerror(errno));
	}
	return target_region(s, t, why, n);
}

static int target_open_file(const struct job_spec *s, const struct safety_verdict *v, bool write,
			    struct target *tg, char *why, size_t n)
{
	struct job_target *t = &tg->t;
	uint64_t need, have = v->size_bytes;
	struct stat st;
	int fd, ret;

	if (v->create) {
		if (!s->size)
			return why_fmt(why, n, -EINVAL,
				       "%s does not exist: give --size in bytes to create it",
				       t->path);
		fd = open(t->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return why_fmt(why, n, -errno, "create %s: %s", t->path, strerror(errno));
		tg->created = true;
		have = 0;
	} else {
		fd = open(t->path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd < 0)
			return why_fmt(why, n, -errno, "open %s: %s", t->path, strerror(errno));
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return why_fmt(why, n, -EINVAL, "%s changed under us", t->path);
		}
		have = (uint64_t)st.st_size;
	}
	need = s->offset_pct ? 0 : s->offset + s->size;
	if (!s->size && !have) {
		ret = why_fmt(why, n, -EINVAL, "%s is empty: give --size", t->path);
		goto fail;
	}
	if (need > have) {
		if (!tg->created && !write) {
			ret =
			    why_fmt(why, n, -EINVAL,
				    "%s holds %llu bytes, fewer than offset + size (%llu) to read",
				    t->path, (unsigned long long)have, (unsigned long long)need);
			goto fail;
		}
		/* as fio does: lay the file out so reads and rewrites hit allocated blocks */
		ret = target_layout(fd, have, need);
		if (ret < 0) {
			why_fmt(why, n, ret, "lay out %s: %s", t->path, strerror(-ret));
			goto fail;
		}
		have = need;
	}
	close(fd);
	t->size_bytes = have;
	t->logical_block = 512;
	ret = target_region(s, t, why, n);
	if (ret < 0)
		goto fail_closed;
	return 0;
fail:
	close(fd);
fail_closed:
	if (tg->created)
		unlink(t->path);
	tg->created = false;
	return ret;
}

/*
 * --hipri (IOPOLL) reaps completions only by polling the device's queue: on
 * a queue without poll support (loop, virtio, NVMe without poll_queues) the
 * kernel takes the IO but nothing ever polls it complete, and the job
 * spins. The queue says so in queue/io_poll; a partition's is its disk's.
 * Unreadable (old kernel, no sysfs): the kernel decides, as before.
 */
static int target_check_poll(const struct job_target *t, char *why, size_t n)
{
	static const char *const rel[] = { "queue/io_poll", "../queue/io_poll" };
	struct stat st;
	char path[96], v[4] = "";
	dev_t dev;

	if (stat(t->path, &st) < 0)
		return 0;
	dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		ssize_t len;
		int fd;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", major(dev), minor(dev),
			 rel[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, v, sizeof(v) - 1);
		close(fd);
		if (len > 0 && v[0] == '0')
			return why_fmt(why, n, -EOPNOTSUPP,
				       "--hipri: its block queue does not poll (%s is 0), so "
				       "polled completions would never be reaped; NVMe polls "
				       "with the nvme.poll_queues=N module parameter",
				       path);
		return 0;
	}
	return 0;
}

int target_open(const struct job_spec *spec, const struct safety_verdict *v, bool write,
		struct target *ret, char *why, size_t why_size)
{
	struct target tg;
	int r;

	memset(&tg, 0, sizeof(tg));
	tg.claim_fd = -1;
	tg.keep = spec->keep;
	snprintf(tg.t.path, sizeof(tg.t.path), "%s", v->path);
	if (v->blockdev)
		r = target_open_blockdev(spec, write, &tg, why, why_size);
	else
		r = target_open_file(spec, v, write, &tg, why, why_size);
	if (r >= 0 && spec->hipri) {
		char ignored[8];

		r = target_check_poll(&tg.t, why, why_size);
		if (r < 0) {
			tg.keep = false; /* nothing left behind, --keep or not */
			target_close(&tg, ignored, sizeof(ignored));
		}
	}
	if (r < 0) {
		if (tg.claim_fd >= 0)
			close(tg.claim_fd);
		return r;
	}
	*ret = tg;
	return 0;
}

int target_close(struct target *t, char *why, size_t why_size)
{
	int ret = 0;

	if (t->claim_fd >= 0) {
		close(t->claim_fd);
		t->claim_fd = -1;
	}
	if (t->created && !t->keep && unlink(t->t.path) < 0)
		ret = why_fmt(why, why_size, -errno, "remove %s: %s", t->t.path, strerror(errno));
	t->created = false;
	return ret;
}
