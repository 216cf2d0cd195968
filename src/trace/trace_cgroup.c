// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block probe's cgroup ids as paths: the probe keys an IO by the
 * cgroup that owns its bio (its blkg's blkcg), as the kernfs node id of
 * the cgroup's directory, which is that directory's inode number in the
 * hierarchy the io controller is bound to: the cgroup v1 blkio hierarchy
 * where it is mounted with blkio (hybrid and v1 hosts), else cgroup v2.
 * Found in /proc/self/mountinfo; walked (directories only, never a
 * symbolic link, bounded) when an id is not known yet, at most once every
 * TRACE_CG_WALK_NS. Never prints.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_cgroup.h"

#define TRACE_CG_WALK_NS    (5LL * 1000000000)
#define TRACE_CG_WALK_DEPTH 32

/* Whether the comma-separated list opts holds word. */
static bool has_opt(const char *opts, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = opts; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !memcmp(p, word, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

int trace_cg_hierarchy(const char *mountinfo, char *top, size_t top_size)
{
	char v1[TRACE_CG_TOP_MAX] = "", v2[TRACE_CG_TOP_MAX] = "";
	FILE *f = fopen(mountinfo, "re");
	char line[4096];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS */
		char *save = NULL, *mp = NULL, *fstype = NULL, *super = NULL, *tok;
		int field = 0;
		bool dash = false;

		line[strcspn(line, "\n")] = '\0';
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			if (dash) {
				if (!fstype)
					fstype = tok;
				else if (field++ == 1)
					super = tok;
				continue;
			}
			if (!strcmp(tok, "-") && field >= 6) {
				dash = true;
				field = 0;
				continue;
			}
			if (field++ == 4)
				mp = tok;
		}
		/* a mount point with an escaped character (\040) is left out */
		if (!mp || !fstype || !super || strchr(mp, '\\') || strlen(mp) >= sizeof(v1))
			continue;
		if (!strcmp(fstype, "cgroup") && has_opt(super, "blkio") && !v1[0])
			snprintf(v1, sizeof(v1), "%s", mp);
		else if (!strcmp(fstype, "cgroup2") && !v2[0])
			snprintf(v2, sizeof(v2), "%s", mp);
	}
	fclose(f);
	if (!v1[0] && !v2[0])
		return -ENOENT;
	snprintf(top, top_size, "%s", v1[0] ? v1 : v2);
	return v1[0] ? 1 : 2;
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct trace_cg_path *)a)->id,
		 y = ((const struct trace_cg_path *)b)->id;

	return x < y ? -1 : x > y;
}

/* One directory's id and path, and its subdirectories', into c->rows. */
static int walk(struct trace_cgpaths *c, int dfd, char *path, size_t len, int depth)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (fstat(dfd, &st) < 0) {
		close(dfd);
		return 0;
	}
	if (c->n >= TRACE_CG_PATHS_MAX) {
		c->skipped++;
		close(dfd);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		void *a = realloc(c->rows, cap * sizeof(*c->rows));

		if (!a) {
			close(dfd);
			return -ENOMEM;
		}
		c->rows = a;
		c->cap = cap;
	}
	c->rows[c->n].id = (uint64_t)st.st_ino;
	snprintf(c->rows[c->n].path, sizeof(c->rows[c->n].path), "%s", len ? path : "/");
	c->n++;
	if (depth >= TRACE_CG_WALK_DEPTH) {
		close(dfd);
		return 0;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		int sub, r;

		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		if (len + 1 + n >= TRACE_CG_PATH_MAX) {
			c->skipped++;
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, e->d_name, n + 1);
		r = walk(c, sub, path, len + 1 + n, depth + 1);
		path[len] = '\0';
		if (r < 0) {
			closedir(d);
			return r;
		}
	}
	closedir(d);
	return 0;
}

int trace_cgpaths_walk(struct trace_cgpaths *c, int64_t now_ns)
{
	char path[TRACE_CG_PATH_MAX] = "";
	int fd, r;

	if (c->walked && now_ns - c->walked_ns < TRACE_CG_WALK_NS)
		return 0;
	c->walked = true;
	c->walked_ns = now_ns;
	if (!c->top[0]) {
		r = trace_cg_hierarchy("/proc/self/mountinfo", c->top, sizeof(c->top));
		if (r < 0)
			return r;
		c->v1 = r == 1;
	}
	fd = open(c->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	c->n = 0;
	c->skipped = 0;
	r = walk(c, fd, path, 0, 0);
	if (r < 0)
		return r;
	qsort(c->rows, c->n, sizeof(*c->rows), cmp_id);
	return 0;
}

int trace_cgpaths_forget(struct trace_cgpaths *c, uint64_t id)
{
	if (c->n >= TRACE_CG_PATHS_MAX + TRACE_MAX_CG * TRACE_LAT__COUNT)
		return -E2BIG;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		void *a = realloc(c->rows, cap * sizeof(*c->rows));

		if (!a)
			return -ENOMEM;
		c->rows = a;
		c->cap = cap;
	}
	c->rows[c->n].id = id;
	c->rows[c->n].path[0] = '\0';
	c->n++;
	qsort(c->rows, c->n, sizeof(*c->rows), cmp_id);
	return 0;
}

const char *trace_cgpaths_find(const struct trace_cgpaths *c, uint64_t id)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->rows[mid].id == id)
			return c->rows[mid].path;
		if (c->rows[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void trace_cgpaths_free(struct trace_cgpaths *c)
{
	if (!c)
		return;
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
