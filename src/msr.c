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
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msr.h"

int msr_open(const struct root *r, int cpu, struct msr_dev *ret_dev)
{
	char rel[48];
	struct stat st;
	int fd;

	if (cpu < 0)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "dev/cpu/%d/msr", cpu);
	fd = root_openat(r, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode)) {
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
		return "msr is neither a character device nor a recorded file";
	default:
		return strerror(-err);
	}
}
