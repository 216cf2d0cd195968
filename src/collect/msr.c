// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * /dev/cpu/N/msr by pread. The kernel's msr driver maps the file offset to
 * the register address and fails rdmsr with EIO; a recorded tree stores each
 * register as 8 little-endian bytes at 8 x address, because 0xE7 and 0xE8
 * (MPERF, APERF) would overlap at offset = address. fstat tells them apart.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "grow.h"
#include "msr.h"

#define MSR_MAJOR 202 /* arch/x86/kernel/msr.c: register_chrdev(MSR_MAJOR, "cpu/msr") */

int msr_open(const struct root *r, int cpu, struct msr_dev *ret_dev)
{
	char rel[48];
	struct stat st;
	int fd;

	if (cpu < 0)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "dev/cpu/%d/msr", cpu);
	fd = root_openat_stat(r, rel, O_RDONLY, &st);
	if (fd < 0)
		return fd;
	/* the host's file is the msr driver's device; a tree's is a recorded
	 * file (the root refuses anything else there before opening it) */
	if (r->host ? !S_ISCHR(st.st_mode) || major(st.st_rdev) != MSR_MAJOR
		    : !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	ret_dev->fd = fd;
	ret_dev->cpu = cpu;
	ret_dev->is_file = S_ISREG(st.st_mode);
	return 0;
}

int msr_read(const struct msr_dev *d, uint32_t addr, uint64_t *ret_val)
{
	uint64_t le;
	ssize_t n;

	if (!d || d->fd < 0)
		return -EBADF;
	do
		n = pread(d->fd, &le, sizeof(le), (off_t)msr_offset(d->is_file, addr));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* the device returns 8 bytes or fails; only a file can end early */
	if (n != (ssize_t)sizeof(le))
		return -ENODATA;
	/* the device hands out the register in host order; files are little-endian */
	*ret_val = d->is_file ? le64toh(le) : le;
	return 0;
}

void msr_close(struct msr_dev *d)
{
	if (!d)
		return;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

const char *msr_strerror(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		return "no such device: msr module not loaded, or a VM without MSR access";
	case -EACCES:
	case -EPERM:
		return "needs root (CAP_SYS_RAWIO)";
	case -EIO:
		return "register not implemented by this CPU (rdmsr faulted)";
	case -ENODATA:
		return "recorded msr file is truncated before this register";
	case -EINVAL:
		return "neither the msr driver's device (on the host) nor a regular file (in a "
		       "recorded tree)";
	default:
		return root_strerror(err);
	}
}

/* ---- batches ---- */

#define MSR_RING_ENTRIES 256 /* ops per submission; a big host takes a few rounds */

int msr_batch_init(struct msr_batch *b)
{
	struct io_uring *ring;
	int r;

	memset(b, 0, sizeof(*b));
	ring = calloc(1, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	r = io_uring_queue_init(MSR_RING_ENTRIES, ring, 0);
	if (r < 0) {
		/* io_uring disabled or absent: pread one by one still works */
		free(ring);
		b->ring_err = r;
		return 0;
	}
	b->ring = ring;
	b->ring_entries = MSR_RING_ENTRIES;
	return 0;
}

int msr_batch_add(struct msr_batch *b, const struct msr_dev *d, uint32_t addr)
{
	struct msr_op *op;

	if (grow((void **)&b->ops, &b->cap, b->n + 1, sizeof(*b->ops)) < 0)
		return -ENOMEM;
	op = &b->ops[b->n];
	op->d = d;
	op->addr = addr;
	op->err = -EINPROGRESS;
	op->val = 0;
	return (int)b->n++;
}

/* The same decoding as msr_read() for a completed read of n bytes. */
static void op_done(struct msr_op *op, long n)
{
	if (n < 0) {
		op->err = (int)n;
	} else if (n != (long)sizeof(op->buf)) {
		op->err = -ENODATA;
	} else {
		op->err = 0;
		op->val = op->d->is_file ? le64toh(op->buf) : op->buf;
	}
}

static void run_pread(struct msr_batch *b, size_t from)
{
	for (size_t i = from; i < b->n; i++) {
		struct msr_op *op = &b->ops[i];

		if (op->err != -EINPROGRESS)
			continue;
		op->err = msr_read(op->d, op->addr, &op->val);
	}
}

int msr_batch_run(struct msr_batch *b)
{
	struct io_uring *ring = b->ring;
	size_t i = 0;

	if (!ring) {
		run_pread(b, 0);
		return 0;
	}
	while (i < b->n) {
		size_t first = i;
		unsigned queued = 0;
		int r;

		for (; i < b->n && queued < b->ring_entries; i++) {
			struct msr_op *op = &b->ops[i];
			struct io_uring_sqe *sqe;

			if (!op->d || op->d->fd < 0) {
				op->err = -EBADF;
				continue;
			}
			sqe = io_uring_get_sqe(ring);
			if (!sqe)
				break;
			io_uring_prep_read(sqe, op->d->fd, &op->buf, sizeof(op->buf),
					   msr_offset(op->d->is_file, op->addr));
			io_uring_sqe_set_data64(sqe, i);
			queued++;
		}
		r = io_uring_submit_and_wait(ring, queued);
		if (r < 0) {
			run_pread(b, first);
			return r;
		}
		for (unsigned done = 0; done < queued;) {
			struct io_uring_cqe *cqe;
			unsigned head, seen = 0;

			r = io_uring_wait_cqe(ring, &cqe);
			if (r < 0) {
				run_pread(b, first);
				return r;
			}
			io_uring_for_each_cqe(ring, head, cqe)
			{
				uint64_t k = io_uring_cqe_get_data64(cqe);

				if (k < b->n)
					op_done(&b->ops[k], cqe->res);
				seen++;
			}
			io_uring_cq_advance(ring, seen);
			done += seen;
		}
	}
	return 0;
}

void msr_batch_free(struct msr_batch *b)
{
	if (!b)
		return;
	if (b->ring) {
		io_uring_queue_exit(b->ring);
		free(b->ring);
	}
	free(b->ops);
	memset(b, 0, sizeof(*b));
}
