/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One reusable reader per /proc or /sys file: the fd stays open, each read
 * starts again at offset 0 and runs to EOF, and the buffer only grows.
 */
#ifndef IOTRIAGE_PROCFILE_H
#define IOTRIAGE_PROCFILE_H

#include <stddef.h>

#include "root.h"

struct procfile {
	int fd;
	const char *rel; /* "proc/stat", owned by the caller (a literal) */
	char *buf;	 /* NUL-terminated after a successful read */
	size_t len;
	size_t cap;
	size_t max; /* bytes; more is -EFBIG (ROOT_FILE_MAX, smaller in tests) */
};

/* Initialises pf for rel; does not open. */
void procfile_init(struct procfile *pf, const char *rel);

/* Opens (if needed) and reads the whole file. Returns the length or -errno:
 * -ROOT_ENOTREG for anything but a regular file, -EFBIG for more than
 * pf->max bytes. On a read failure the fd is closed so the next call reopens
 * (a device that comes back). */
int procfile_read(struct procfile *pf, const struct root *r);

void procfile_close(struct procfile *pf);

/* Puts len bytes of buf in pf's buffer as if read from the file (a
 * recording replayed through the same parsers). 0, -EFBIG (more than
 * pf->max) or -ENOMEM. */
int procfile_set(struct procfile *pf, const void *buf, size_t len);

/* Closes and frees the buffer; safe on an initialised, never-read pf. */
void procfile_free(struct procfile *pf);

#endif
