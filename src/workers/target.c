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

/* Clears the O_NONBLOCK a target was opened with (so that its open could
 * not wait): the engines expect blocking files (io_uring would answer
 * EAGAIN instead of waiting on one). 0 or -errno. */
static int blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/*
 * The claim on the device alone leaves what it writes into free: a loop
 * target's backing device could be mounted under the run. safety_claim
 * claims those too and checks the request again under the claims.
 */
static int target_claim(const struct job_spec *s, const struct safety_verdict *v, struct target *tg,
			char *why, size_t n)
{
	struct safety_request req = { .target = v->path,
				      .write = true,
				      .allow_destroy =
					  s->allow_destroy[0] ? s->allow_destroy : NULL,
				      .overwrite = s->overwrite };
	struct root root;
	int ret;

	ret = root_open("/", &root);
	if (ret < 0)
		return why_fmt(why, n, ret, "/: %s", strerror(-ret));
	ret = safety_claim(&root, &req, v, &tg->claims, why, n);
	root_close(&root);
	return ret;
}

static int target_open_blockdev(const struct job_spec *s, const struct safety_verdict *v,
				bool write, struct target *tg, char *why, size_t n)
{
	struct job_target *t = &tg->t;
	struct stat st;
	uint64_t size;
	int fd, lbs = 512, ret;

	/*
	 * O_EXCL on a block device is the kernel's own claim: it fails with
	 * EBUSY while the device is mounted or held by md/dm, and keeps them
	 * out until we close it. It closes the window between our checks and
	 * the first write.
	 */
	fd = open(t->path,
		  (write ? O_RDWR | O_EXCL : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && write)
		return why_fmt(why, n, -errno,
			       "%s: cannot claim it exclusively (%s): "
			       "mounted or in use by another program?",
			       t->path, strerror(errno));
	if (fd < 0)
		return why_fmt(why, n, -errno, "open %s: %s", t->path, strerror(errno));
	t->fd = fd;
	/* the node checked, not one put in its place since */
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != (dev_t)v->rdev)
		return why_fmt(why, n, -ESTALE, "%s changed since it was checked", t->path);
	ret = blocking(fd);
	if (ret < 0)
		return why_fmt(why, n, ret, "%s: %s", t->path, strerror(-ret));
	if (write) {
		ret = target_claim(s, v, tg, why, n);
		if (ret < 0)
			return ret;
	}
	if (ioctl(fd, BLKGETSIZE64, &size) < 0) {
		ret = -errno;
		return why_fmt(why, n, ret, "%s: BLKGETSIZE64: %s", t->path, strerror(-ret));
	}
	if (ioctl(fd, BLKSSZGET, &lbs) < 0 || lbs <= 0)
		lbs = 512;
	t->blockdev = true;
	t->size_bytes = size;
	t->logical_block = (unsigned)lbs;
	return target_region(s, t, why, n);
}

/* Removes the created file's name, only while it still is that file. */
static int target_unlink(struct target *tg, char *why, size_t n)
{
	struct stat st;

	if (!tg->linked)
		return 0;
	tg->linked = false;
	if (fstatat(tg->dirfd, tg->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return why_fmt(why, n, -errno, "remove %s: %s", tg->t.path, strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_dev != (dev_t)tg->dev || st.st_ino != (ino_t)tg->ino)
		return why_fmt(why, n, -ESTALE,
			       "%s was not removed: it is no longer the file the bench created",
			       tg->t.path);
	if (unlinkat(tg->dirfd, tg->name, 0) < 0)
		return why_fmt(why, n, -errno, "remove %s: %s", tg->t.path, strerror(errno));
	return 0;
}

/*
 * Creates the new file v names in its directory, held open from here on:
 * O_EXCL and O_NOFOLLOW, so nothing already there (a symlink planted under
 * the name) is followed or reused.
 */
static int target_create(const struct job_spec *s, struct target *tg, char *why, size_t n)
{
	const char *path = tg->t.path, *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char dir[JOB_PATH_MAX];
	struct stat st;
	int ret;

	if (!s->size)
		return why_fmt(why, n, -EINVAL,
			       "%s does not exist: give --size in bytes to create it", path);
	if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    strlen(base) >= sizeof(tg->name))
		return why_fmt(why, n, -EINVAL, "%s: not a file name to create", path);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	tg->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tg->dirfd < 0)
		return why_fmt(why, n, -errno, "open %s: %s", dir, strerror(errno));
	/* again on the directory held: safety_check looked at a path */
	if (fstat(tg->dirfd, &st) < 0)
		return why_fmt(why, n, -errno, "%s: %s", dir, strerror(errno));
	ret = safety_dir_check(&st, (unsigned)geteuid(), dir, why, n);
	if (ret < 0)
		return ret;
	snprintf(tg->name, sizeof(tg->name), "%s", base);
	tg->t.fd =
	    openat(tg->dirfd, tg->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (tg->t.fd < 0)
		return why_fmt(why, n, -errno, "create %s: %s", path, strerror(errno));
	tg->created = tg->linked = true;
	if (fstat(tg->t.fd, &st) < 0)
		return why_fmt(why, n, -errno, "%s: %s", path, strerror(errno));
	tg->dev = st.st_dev;
	tg->ino = st.st_ino;
	if (!tg->keep)
		return target_unlink(tg, why, n); /* see target.h: nothing to leave behind */
	return 0;
}

static int target_open_file(const struct job_spec *s, const struct safety_verdict *v, bool write,
			    struct target *tg, char *why, size_t n)
{
	struct job_target *t = &tg->t;
	uint64_t need, have = v->size_bytes;
	struct stat st;
	int ret;

	if (v->create) {
		ret = target_create(s, tg, why, n);
		if (ret < 0)
			return ret;
		have = 0;
	} else {
		/* realpath()ed by safety_check: a symlink here now was put in
		 * since; O_NONBLOCK until checked: a FIFO put in its place (by
		 * whoever owns the directory) must not hang the open */
		t->fd = open(t->path,
			     (write ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (t->fd < 0)
			return why_fmt(why, n, -errno, "open %s: %s", t->path, strerror(errno));
		if (fstat(t->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_dev != (dev_t)v->dev ||
		    st.st_ino != (ino_t)v->ino)
			return why_fmt(why, n, -ESTALE, "%s changed since it was checked", t->path);
		ret = blocking(t->fd);
		if (ret < 0)
			return why_fmt(why, n, ret, "%s: %s", t->path, strerror(-ret));
		have = (uint64_t)st.st_size;
	}
	need = s->offset_pct ? 0 : s->offset + s->size;
	if (!s->size && !have)
		return why_fmt(why, n, -EINVAL, "%s is empty: give --size", t->path);
	if (need > have) {
		if (!tg->created && !write)
			return why_fmt(
			    why, n, -EINVAL,
			    "%s holds %llu bytes, fewer than offset + size (%llu) to read", t->path,
			    (unsigned long long)have, (unsigned long long)need);
		/* as fio does: lay the file out so reads and rewrites hit allocated blocks */
		ret = target_layout(t->fd, have, need);
		if (ret < 0)
			return why_fmt(why, n, ret, "lay out %s: %s", t->path, strerror(-ret));
		have = need;
	}
	t->size_bytes = have;
	t->logical_block = 512;
	return target_region(s, t, why, n);
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

	if (fstat(t->fd, &st) < 0)
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
	char ignored[8];
	int r;

	memset(&tg, 0, sizeof(tg));
	tg.t.fd = tg.dirfd = -1;
	tg.keep = spec->keep;
	snprintf(tg.t.path, sizeof(tg.t.path), "%s", v->path);
	if (v->blockdev)
		r = target_open_blockdev(spec, v, write, &tg, why, why_size);
	else
		r = target_open_file(spec, v, write, &tg, why, why_size);
	if (r >= 0 && spec->hipri)
		r = target_check_poll(&tg.t, why, why_size);
	if (r < 0) {
		tg.keep = false; /* nothing left behind, --keep or not */
		target_close(&tg, ignored, sizeof(ignored));
		return r;
	}
	*ret = tg;
	return 0;
}

int target_close(struct target *t, char *why, size_t why_size)
{
	int ret = 0;

	if (t->t.fd >= 0) {
		close(t->t.fd);
		t->t.fd = -1;
	}
	safety_claims_release(&t->claims);
	if (t->linked && !t->keep)
		ret = target_unlink(t, why, why_size);
	if (t->dirfd >= 0) {
		close(t->dirfd);
		t->dirfd = -1;
	}
	t->created = t->linked = false;
	return ret;
}
