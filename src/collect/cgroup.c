// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup v2 io.stat and io.pressure, every cgroup, every sample: one small
 * kernfs file each, so the cost grows with the cgroup count (tens to a few
 * thousand), not the process count. Where the io controller is bound to
 * cgroup v1 instead (RHEL 8's default), the blkio hierarchy's
 * blkio.throttle.io_service_bytes and io_serviced in the same rows. The walk
 * opens one directory level at a time with O_NOFOLLOW below the hierarchy's
 * top, so a recorded tree cannot lead it elsewhere; the parsers are pure
 * over bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "grow.h"
#include "treewrite.h"
#include "scan.h"
#include "src_status.h"

/* ---- pure parsing ---- */

static int scan_u32_until(const char **p, const char *end, char stop, uint32_t *ret)
{
	uint64_t v = 0;
	const char *q = *p;

	if (q >= end || *q < '0' || *q > '9')
		return -EBADMSG;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (uint64_t)(*q - '0');
		if (v > UINT32_MAX)
			return -EBADMSG;
	}
	if (stop && (q >= end || *q != stop))
		return -EBADMSG;
	*p = q;
	*ret = (uint32_t)v;
	return 0;
}

/* "MAJ:MIN" as the whole token */
static int parse_dev(const char *tok, size_t n, struct cgroup_io *io)
{
	const char *p = tok, *end = tok + n;

	if (scan_u32_until(&p, end, ':', &io->major) < 0)
		return -EBADMSG;
	p++;
	if (scan_u32_until(&p, end, 0, &io->minor) < 0 || p != end)
		return -EBADMSG;
	return 0;
}

/* "key=decimal" into *ret: 1 when key matched, 0 another key, <0 malformed */
static int keyval(const char *tok, size_t n, const char *key, uint64_t *ret)
{
	size_t k = strlen(key);
	struct cursor c;
	uint64_t v;

	if (n <= k || memcmp(tok, key, k) != 0 || tok[k] != '=')
		return 0;
	cursor_init(&c, tok + k + 1, n - k - 1);
	if (c.p >= c.end || *c.p == ' ' || scan_u64(&c, &v) < 0 || !cursor_eof(&c))
		return -EBADMSG;
	*ret = v;
	return 1;
}

int cgroup_iostat_parse(const char *buf, size_t len, struct cgroup_io *ret, size_t max,
			size_t *ret_n)
{
	static const char *const keys[] = { "rbytes", "wbytes", "rios", "wios", "dbytes", "dios" };
	size_t n = 0;
	struct cursor c;

	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		struct cgroup_io io = { 0 };
		uint64_t *dst[6] = { &io.rbytes, &io.wbytes, &io.rios,
				     &io.wios,	 &io.dbytes, &io.dios };
		unsigned seen = 0;
		const char *tok;
		size_t tn = scan_token(&c, &tok);

		if (!tn) { /* an empty line */
			scan_next_line(&c);
			continue;
		}
		if (parse_dev(tok, tn, &io) < 0)
			return -EBADMSG;
		while ((tn = scan_token(&c, &tok)) > 0) {
			for (unsigned i = 0; i < 6; i++) {
				int r = keyval(tok, tn, keys[i], dst[i]);

				if (r < 0 || (r > 0 && (seen & (1u << i))))
					return -EBADMSG;
				if (r > 0) {
					seen |= 1u << i;
					break;
				}
			}
		}
		if ((seen & 0xf) != 0xf)
			return -EBADMSG;
		io.has_discard = (seen & 0x30) == 0x30;
		if (!io.has_discard)
			io.dbytes = io.dios = 0;
		if (n == max)
			return -E2BIG;
		ret[n++] = io;
		scan_next_line(&c);
	}
	*ret_n = n;
	return 0;
}

/* The row of dev in ret[0..n): lines of one device come together, so the
 * last row is looked at first. */
static struct cgroup_io *blkio_row(struct cgroup_io *ret, size_t n, const struct cgroup_io *dev)
{
	for (size_t i = n; i > 0; i--)
		if (ret[i - 1].major == dev->major && ret[i - 1].minor == dev->minor)
			return &ret[i - 1];
	return NULL;
}

/*
 * One blkio.throttle file into ret: which (0 bytes, 1 IOs), seen[] the
 * Read/Write/Discard bits per row (3 per file). "MAJ:MIN Read|Write|Sync|
 * Async|Discard|Total N" per device, then "Total N" once.
 */
static int blkio_file(const char *buf, size_t len, unsigned which, struct cgroup_io *ret,
		      unsigned char *seen, size_t max, size_t *n)
{
	static const char *const keys[] = { "Read", "Write", "Discard" };
	bool total = false;
	struct cursor c;

	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		struct cgroup_io dev = { 0 }, *io;
		const char *tok;
		size_t tn = scan_token(&c, &tok);
		uint64_t v;
		unsigned k;

		if (!tn) { /* an empty line */
			scan_next_line(&c);
			continue;
		}
		if (tn == 5 && memcmp(tok, "Total", 5) == 0) { /* the cgroup's sum, once */
			if (total || scan_u64(&c, &v) < 0 || !scan_at_eol(&c))
				return -EBADMSG;
			total = true;
			scan_next_line(&c);
			continue;
		}
		if (total || parse_dev(tok, tn, &dev) < 0)
			return -EBADMSG;
		tn = scan_token(&c, &tok);
		if (!tn || scan_u64(&c, &v) < 0 || !scan_at_eol(&c))
			return -EBADMSG;
		for (k = 0; k < 3; k++)
			if (strlen(keys[k]) == tn && memcmp(tok, keys[k], tn) == 0)
				break;
		io = blkio_row(ret, *n, &dev);
		if (!io) {
			if (*n == max)
				return -E2BIG;
			io = &ret[*n];
			*io = dev;
			seen[(*n)++] = 0;
		}
		if (k < 3) { /* Sync, Async and Total are sums of these */
			uint64_t *dst[2][3] = { { &io->rbytes, &io->wbytes, &io->dbytes },
						{ &io->rios, &io->wios, &io->dios } };
			unsigned bit = 1u << (which * 3 + k);
			unsigned char *s = &seen[io - ret];

			if (*s & bit)
				return -EBADMSG;
			*s |= (unsigned char)bit;
			*dst[which][k] = v;
		}
		scan_next_line(&c);
	}
	return 0;
}

int cgroup_blkio_parse(const char *bytes, size_t bytes_len, const char *ios, size_t ios_len,
		       struct cgroup_io *ret, size_t max, size_t *ret_n)
{
	unsigned char seen[CGROUP_DEVS_MAX];
	size_t n = 0;
	int r;

	if (max > CGROUP_DEVS_MAX)
		max = CGROUP_DEVS_MAX;
	r = blkio_file(bytes, bytes_len, 0, ret, seen, max, &n);
	if (r >= 0)
		r = blkio_file(ios, ios_len, 1, ret, seen, max, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		/* Read and Write in both files; Discard (4.19 on) in both or neither */
		if ((seen[i] & 0x1b) != 0x1b || ((seen[i] & 0x24) != 0 && (seen[i] & 0x24) != 0x24))
			return -EBADMSG;
		ret[i].has_discard = (seen[i] & 0x24) == 0x24;
	}
	*ret_n = n;
	return 0;
}

/* ---- tables ---- */

void cgroup_table_free(struct cgroup_table *t)
{
	if (!t)
		return;
	grow_free((void **)&t->rows, &t->n, &t->cap);
	grow_free((void **)&t->io, &t->nio, &t->io_cap);
}

int cgroup_table_copy(struct cgroup_table *dst, const struct cgroup_table *src)
{
	struct cgroup_table t = *src;

	/* src's fields, dst's storage */
	t.rows = dst->rows;
	t.cap = dst->cap;
	t.io = dst->io;
	t.io_cap = dst->io_cap;
	/* room for the rows before anything is copied, so that the rows' copy
	 * cannot fail: on -ENOMEM dst's rows still index its own io lines */
	if (grow((void **)&t.rows, &t.cap, src->n, sizeof(*t.rows)) < 0 ||
	    grow_copy((void **)&t.io, &t.io_cap, src->io, src->nio, sizeof(*t.io)) < 0 ||
	    grow_copy((void **)&t.rows, &t.cap, src->rows, src->n, sizeof(*t.rows)) < 0) {
		/* grown arrays may have moved: dst keeps owning them */
		dst->rows = t.rows;
		dst->cap = t.cap;
		dst->io = t.io;
		dst->io_cap = t.io_cap;
		return -ENOMEM;
	}
	*dst = t;
	return 0;
}

const struct cgroup_raw *cgroup_table_find(const struct cgroup_table *t, const char *path)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->rows[mid].path, path);

		if (c == 0)
			return &t->rows[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- collect ---- */

/* One file of a cgroup directory, whole, NUL-terminated. Length or -errno
 * (-ROOT_ENOTREG not a regular file, -EFBIG too big for buf). In a tree
 * (not the host's cgroupfs) the file is looked at before it is opened: a
 * device node there never has its driver's open run. */
static ssize_t read_at(int dfd, const char *name, char *buf, size_t size, bool tree)
{
	struct stat st;
	ssize_t n, got = 0;
	int fd;

	if (tree) {
		fd = treewrite_open_regular(dfd, name, O_RDONLY | O_NOFOLLOW, &st);
		if (fd == -EXDEV || fd == -ELOOP)
			return -ROOT_ENOTREG;
		if (fd < 0)
			return fd;
	} else {
		fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			return -ROOT_ENOTREG;
		}
	}
	for (;;) {
		if ((size_t)got + 1 >= size) {
			close(fd);
			return -EFBIG;
		}
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

struct walk {
	struct cgroup_table *t;
	char *buf; /* CGROUP_FILE_MAX */
	char path[CGROUP_PATH_MAX];
	unsigned depth; /* of the directory being read, the top's 0 */
	bool tree;	/* a recorded tree, not the host's cgroupfs */
	bool blkio;	/* the cgroup v1 blkio hierarchy */
	bool psi_only;	/* the v2 tree of a hybrid host: its *.pressure files only */
};

/* A v1 blkio cgroup's two throttle files into row (a new row of w->t):
 * its own IO, not its children's; no pressure file in v1. 0. */
static int read_blkio(struct walk *w, int dfd, struct cgroup_raw *row)
{
	struct cgroup_table *t = w->t;
	size_t half = CGROUP_FILE_MAX / 2, nio = 0;
	ssize_t nb, ni;

	nb = read_at(dfd, CGROUP_BLKIO_BYTES, w->buf, half, w->tree);
	ni = nb < 0 ? nb : read_at(dfd, CGROUP_BLKIO_IOS, w->buf + half, half, w->tree);
	if (ni >= 0 && cgroup_blkio_parse(w->buf, (size_t)nb, w->buf + half, (size_t)ni,
					  &t->io[t->nio], CGROUP_DEVS_MAX, &nio) >= 0) {
		row->has_stat = true;
		row->io_off = t->nio;
		row->nio = nio;
		t->nio += nio;
		t->n++;
	} else if (nb != -ENOENT && ni != -ENOENT) {
		t->skipped++; /* malformed, too big, not a file: this cgroup's problem */
	}
	return 0;
}

/* One *.pressure file of the cgroup at dfd into some/full; true when read. */
static bool read_psi(struct walk *w, int dfd, const char *name, struct psi_line *some,
		     struct psi_line *full)
{
	struct psi_raw psi;
	ssize_t n = read_at(dfd, name, w->buf, CGROUP_FILE_MAX, w->tree);

	if (n < 0 || pressure_parse(w->buf, (size_t)n, &psi) < 0)
		return false;
	*some = psi.some;
	*full = psi.full;
	return true;
}

/* The three pressure files of a cgroup v2 cgroup: who waits on io, cpu and
 * memory (the victims). */
static void read_pressure(struct walk *w, int dfd, struct cgroup_raw *row)
{
	row->has_psi = read_psi(w, dfd, "io.pressure", &row->some, &row->full);
	row->has_cpu_psi = read_psi(w, dfd, "cpu.pressure", &row->cpu_some, &row->cpu_full);
	row->has_mem_psi = read_psi(w, dfd, "memory.pressure", &row->mem_some, &row->mem_full);
}

static bool row_read(const struct cgroup_raw *row)
{
	return row->has_stat || row->has_psi || row->has_cpu_psi || row->has_mem_psi;
}

/* Reads the cgroup at dfd (path w->path) into a new row. 0 or -ENOMEM. */
static int read_cgroup(struct walk *w, int dfd)
{
	struct cgroup_table *t = w->t;
	struct cgroup_raw *row;
	size_t nio = 0;
	ssize_t n;

	if (t->n >= CGROUP_MAX) {
		t->skipped++;
		return 0;
	}
	if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0 ||
	    grow((void **)&t->io, &t->io_cap, t->nio + CGROUP_DEVS_MAX, sizeof(*t->io)) < 0)
		return -ENOMEM;
	row = &t->rows[t->n];
	memset(row, 0, sizeof(*row));
	memcpy(row->path, w->path, sizeof(row->path));
	if (w->blkio)
		return read_blkio(w, dfd, row);
	if (!w->psi_only) {
		n = read_at(dfd, "io.stat", w->buf, CGROUP_FILE_MAX, w->tree);
		if (n >= 0 && cgroup_iostat_parse(w->buf, (size_t)n, &t->io[t->nio],
						  CGROUP_DEVS_MAX, &nio) >= 0) {
			row->has_stat = true;
			row->io_off = t->nio;
			row->nio = nio;
			t->nio += nio;
		} else if (n != -ENOENT) {
			t->skipped++; /* malformed, too big, not a file: this cgroup's problem */
		}
	}
	read_pressure(w, dfd, row);
	if (row_read(row))
		t->n++;
	return 0;
}

static int walk_dir(struct walk *w, int dfd);

/* A child cgroup: its directory, never a link to one. */
static int walk_entry(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct walk *w = ctx;
	size_t plen = strlen(w->path);
	int cfd, e;

	if (name[0] == '.' || (type != DT_DIR && type != DT_UNKNOWN))
		return 0;
	if (plen + 1 + strlen(name) + 1 > sizeof(w->path)) {
		w->t->skipped++;
		return 0;
	}
	cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (cfd < 0)
		return 0; /* a file (DT_UNKNOWN), a link, or removed since */
	snprintf(w->path + plen, sizeof(w->path) - plen, "%s%s", plen ? "/" : "", name);
	w->depth++;
	e = walk_dir(w, cfd);
	w->depth--;
	w->path[plen] = '\0';
	return e;
}

/* Depth-first over the directory dfd (consumed). 0 or -ENOMEM. */
static int walk_dir(struct walk *w, int dfd)
{
	int e;

	e = read_cgroup(w, dfd);
	if (e < 0 || w->depth >= CGROUP_DEPTH_MAX) {
		close(dfd);
		return e;
	}
	return root_for_each_entry_fd(dfd, walk_entry, w);
}

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct cgroup_raw *)a)->path, ((const struct cgroup_raw *)b)->path);
}

/* "io" as a word of cgroup.controllers */
static bool has_io(const char *s)
{
	for (const char *p = s; (p = strstr(p, "io")); p += 2)
		if ((p == s || p[-1] == ' ') && (p[2] == '\0' || p[2] == ' ' || p[2] == '\n'))
			return true;
	return false;
}

bool cgroup_top_is_blkio(const char *top)
{
	return strcmp(top, CGROUP_BLKIO_TOP) == 0;
}

/* The v1 blkio hierarchy's top, with its throttle counters: the fd or
 * -errno. */
static int blkio_top(const struct root *r)
{
	char buf[64];
	int e = root_read_small(r, CGROUP_BLKIO_TOP "/" CGROUP_BLKIO_BYTES, buf, sizeof(buf));

	if (e < 0)
		return e;
	return root_openat(r, CGROUP_BLKIO_TOP, O_RDONLY | O_DIRECTORY);
}

/* Finds and opens the hierarchy's top into cc: cgroup v2 with the io
 * controller, else v1 blkio, else v2 without io (pressure only). Where io
 * is v1 blkio beside a v2 tree (hybrid), the v2 tree stays open for its
 * pressure files. */
static void find_top(struct cgroup_collector *cc, const struct root *r)
{
	static const char *const tops[] = { "sys/fs/cgroup", "sys/fs/cgroup/unified" };
	char ctl[512], disp[256];
	int dfd = -ENOENT, bfd;

	if (cc->opened && cc->top_fd >= 0)
		close(cc->top_fd);
	if (cc->opened && cc->psi_fd >= 0)
		close(cc->psi_fd);
	cc->opened = true;
	cc->top_fd = cc->psi_fd = -1;
	cc->top[0] = cc->psi_top[0] = '\0';
	cc->io_enabled = false;
	memset(&cc->status, 0, sizeof(cc->status));
	/* the top of a v2 hierarchy is where cgroup.controllers is */
	for (size_t i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "%s/cgroup.controllers", tops[i]);
		if (root_read_small(r, rel, ctl, sizeof(ctl)) < 0)
			continue;
		dfd = root_openat(r, tops[i], O_RDONLY | O_DIRECTORY);
		if (dfd >= 0) {
			snprintf(cc->top, sizeof(cc->top), "%s", tops[i]);
			snprintf(cc->psi_top, sizeof(cc->psi_top), "%s", tops[i]);
			cc->io_enabled = has_io(ctl);
			break;
		}
	}
	if (dfd < 0 || !cc->io_enabled) {
		bfd = blkio_top(r);
		if (bfd >= 0) {
			cc->psi_fd = dfd; /* the v2 tree's pressure, or -errno */
			if (dfd < 0)
				cc->psi_fd = -1;
			dfd = bfd;
			snprintf(cc->top, sizeof(cc->top), "%s", CGROUP_BLKIO_TOP);
			cc->io_enabled = true;
		} else if (dfd < 0) {
			root_display(r, "sys/fs/cgroup", disp, sizeof(disp));
			src_status_set(
			    &cc->status, dfd,
			    "%s: no cgroup v2 hierarchy (cgroup.controllers): %s; no cgroup "
			    "v1 blkio (blkio/" CGROUP_BLKIO_BYTES "): %s",
			    disp, strerror(-dfd), strerror(-bfd));
			return;
		}
	}
	cc->top_fd = dfd;
}

void cgroup_collector_free(struct cgroup_collector *cc)
{
	if (cc && cc->opened && cc->top_fd >= 0)
		close(cc->top_fd);
	if (cc && cc->opened && cc->psi_fd >= 0)
		close(cc->psi_fd);
	if (cc)
		memset(cc, 0, sizeof(*cc));
}

/* Walks the hierarchy at top_fd (a descriptor of its own is opened). 0,
 * or -ENOMEM; an unreadable top is a status. */
static int walk_top(struct walk *w, const struct root *r, int top_fd, const char *top)
{
	char disp[256];
	int dfd, e;

	/* a description of its own: the walk's readdir must start at the top */
	dfd = openat(top_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		e = -errno;
		root_display(r, top, disp, sizeof(disp));
		src_status_set(&w->t->status, e, "%s: %s", disp, strerror(-e));
		return 0;
	}
	w->path[0] = '\0';
	w->depth = 0;
	return walk_dir(w, dfd);
}

/* Rows of one path from the two walks of a hybrid host (sorted): the v1
 * blkio row's counters and the v2 row's pressure in one row. */
static void merge_rows(struct cgroup_table *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct cgroup_raw *a = k ? &t->rows[k - 1] : NULL, *b = &t->rows[i];

		if (!a || strcmp(a->path, b->path) != 0) {
			if (k != i)
				t->rows[k] = *b;
			k++;
			continue;
		}
		if (b->has_stat) { /* a holds the pressure: b's counters into a */
			a->has_stat = true;
			a->io_off = b->io_off;
			a->nio = b->nio;
		} else {
			a->has_psi = b->has_psi;
			a->some = b->some;
			a->full = b->full;
			a->has_cpu_psi = b->has_cpu_psi;
			a->cpu_some = b->cpu_some;
			a->cpu_full = b->cpu_full;
			a->has_mem_psi = b->has_mem_psi;
			a->mem_some = b->mem_some;
			a->mem_full = b->mem_full;
		}
	}
	t->n = k;
}

int cgroup_collect_cc(struct cgroup_collector *cc, const struct root *r, struct cgroup_table *t)
{
	struct walk w = { .t = t, .tree = !r->host };
	char disp[256];
	int e;

	t->n = t->nio = 0;
	t->skipped = 0;
	if (!cc->opened || cc->samples % CGROUP_TOP_EVERY == 0)
		find_top(cc, r);
	cc->samples++;
	memcpy(t->top, cc->top, sizeof(t->top));
	memcpy(t->psi_top, cc->psi_top, sizeof(t->psi_top));
	t->io_enabled = cc->io_enabled;
	t->status = cc->status;
	if (cc->top_fd < 0)
		return 0;
	w.blkio = cgroup_top_is_blkio(t->top);
	w.buf = malloc(CGROUP_FILE_MAX);
	if (!w.buf)
		return -ENOMEM;
	e = walk_top(&w, r, cc->top_fd, cc->top);
	if (e >= 0 && cc->psi_fd >= 0) {
		w.blkio = false;
		w.psi_only = true;
		e = walk_top(&w, r, cc->psi_fd, cc->psi_top);
	}
	free(w.buf);
	if (e < 0)
		return e;
	if (t->n > 1)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_row);
	merge_rows(t);
	root_display(r, t->top, disp, sizeof(disp));
	if (!t->io_enabled)
		src_status_set(
		    &t->status, 0,
		    "%s: the io controller is neither in cgroup v2 nor a cgroup v1 blkio "
		    "hierarchy: io.pressure only",
		    disp);
	else if (t->skipped)
		src_status_set(
		    &t->status, 0,
		    "%s: %u cgroup(s) or file(s) not read (limits: %d cgroups, depth %d)", disp,
		    t->skipped, CGROUP_MAX, CGROUP_DEPTH_MAX);
	return 0;
}

int cgroup_collect(const struct root *r, struct cgroup_table *t)
{
	struct cgroup_collector cc = { 0 };
	int e = cgroup_collect_cc(&cc, r, t);

	cgroup_collector_free(&cc);
	return e;
}
