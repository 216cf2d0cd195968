// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reads a whole /proc file with pread from offset 0. seq_file files hand out
 * at most a page or so per read, so a short read is not EOF: loop until 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "procfile.h"

/* Big enough that one pread returns a whole /proc/interrupts of a mid-size
 * host: every further pread at an offset makes seq_file walk the IRQs again. */
#define PROCFILE_MIN_CAP 65536

void procfile_init(struct procfile *pf, const char *rel)
{
	pf->fd = -1;
	pf->rel = rel;
	pf->buf = NULL;
	pf->len = 0;
	pf->cap = 0;
	pf->max = ROOT_FILE_MAX;
}

static int procfile_grow(struct procfile *pf)
{
	size_t ncap = pf->cap ? pf->cap * 2 : PROCFILE_MIN_CAP;
	char *nbuf;

	/* max bytes, one more to see there is more, and the NUL */
	if (ncap > pf->max + 2)
		ncap = pf->max + 2;
	if (ncap <= pf->cap)
		return -EFBIG;
	nbuf = realloc(pf->buf, ncap);

	if (!nbuf)
		return -ENOMEM;
	pf->buf = nbuf;
	pf->cap = ncap;
	return 0;
}

int procfile_read(struct procfile *pf, const struct root *r)
{
	size_t len = 0;
	int ret;

	if (pf->fd < 0) {
		struct stat st;

		ret = root_openat_stat(r, pf->rel, O_RDONLY, &st);
		if (ret < 0)
			return ret;
		/* a recorded file tells its size: refuse it before reading
		 * (procfs and sysfs files say 0 and are caught while read) */
		if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > pf->max) {
			close(ret);
			return S_ISREG(st.st_mode) ? -EFBIG : -ROOT_ENOTREG;
		}
		pf->fd = ret;
	}
	for (;;) {
		ssize_t n;

		/* keep one byte for the terminating NUL, and room for the whole
		 * file in one read once its size is known */
		if (pf->cap - len < 2 ||
		    (len == 0 && pf->cap < pf->len * 2 + 2 && pf->cap < pf->max + 2)) {
			ret = procfile_grow(pf);
			if (ret < 0)
				return ret;
		}
		n = pread(pf->fd, pf->buf + len, pf->cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			procfile_close(pf);
			return ret;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > pf->max) {
			/* a file that grows while read, or /proc gone mad */
			procfile_close(pf);
			return -EFBIG;
		}
	}
	pf->buf[len] = '\0';
	pf->len = len;
	return (int)(len > (size_t)0x7fffffff ? 0x7fffffff : len);
}

int procfile_set(struct procfile *pf, const void *buf, size_t len)
{
	if (len > pf->max)
		return -EFBIG;
	while (pf->cap < len + 2) {
		int r = procfile_grow(pf);

		if (r < 0)
			return r;
	}
	memcpy(pf->buf, buf, len);
	pf->buf[len] = '\0';
	pf->len = len;
	return 0;
}

void procfile_close(struct procfile *pf)
{
	if (!pf)
		return;
	if (pf->fd >= 0)
		close(pf->fd);
	pf->fd = -1;
}

void procfile_free(struct procfile *pf)
{
	if (!pf)
		return;
	procfile_close(pf);
	free(pf->buf);
	pf->buf = NULL;
	pf->len = 0;
	pf->cap = 0;
}
