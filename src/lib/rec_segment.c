// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rec_segment: a segment file's name ("<13 digits of ms>-<16 hex of run
 * id>.iotr") and the listing of a directory's segments, oldest first,
 * regular files only: what the writer's retention, the reader and
 * compaction all walk.
 *
 * One of the flight recorder's files (doc/map.md, src/lib): rec_crc.c the
 * checksum, rec_segment.c the segments' names and listing, recwriter.c
 * writes, recwriter_thread.c the writer's thread, recwriter_compact.c
 * seals and compacts, recreader.c reads; rec_file_int.h is what they
 * share, rec_file.h the interface (doc/recording.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "rec_file_int.h"

bool rec_segment_name_ok(const char *n, uint64_t *ret_ms)
{
	uint64_t ms = 0;

	if (strlen(n) != SEG_NAME_LEN || n[13] != '-' || strcmp(n + 30, ".iotr") != 0)
		return false;
	for (int i = 0; i < 13; i++) {
		if (n[i] < '0' || n[i] > '9')
			return false;
		ms = ms * 10 + (uint64_t)(n[i] - '0');
	}
	for (int i = 14; i < 30; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return false;
	if (ret_ms)
		*ret_ms = ms;
	return true;
}

static int cmp_seg(const void *a, const void *b)
{
	return strcmp(((const struct seg_ent *)a)->name, ((const struct seg_ent *)b)->name);
}

/* A listing of dirfd's entries (its own descriptor: dirfd stays ours),
 * or NULL with errno set. */
DIR *rec_segment_dir(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		errno = ENOMEM;
	}
	return d;
}

/* The segments in dirfd, oldest first, regular files only (sizes from
 * fstatat without following). Returns the count or -errno. */
int rec_segment_list(int dirfd, struct seg_ent **ret)
{
	struct seg_ent *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = rec_segment_dir(dirfd);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		uint64_t ms;

		if (!rec_segment_name_ok(de->d_name, &ms))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (grow((void **)&v, &cap, n + 1, sizeof(*v)) < 0) {
			closedir(d);
			free(v);
			return -ENOMEM;
		}
		memcpy(v[n].name, de->d_name, SEG_NAME_LEN + 1);
		v[n].start_ms = ms;
		v[n].size = (uint64_t)st.st_size;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_seg);
	*ret = v;
	return (int)n;
}
