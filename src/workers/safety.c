// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The bench's data-loss guard (rules in safety.h). Family and mount/swap
 * facts come from ROOT/sys and ROOT/proc so recorded trees test them;
 * signatures come from libblkid on the live device, opened read-only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <blkid.h>

#include "procfile.h"
#include "safety.h"

static int why_set(char *why, size_t size, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t size, int err, const char *fmt, ...)
{
	va_list ap;

	if (why && size) {
		va_start(ap, fmt);
		vsnprintf(why, size, fmt, ap);
		va_end(ap);
	}
	return err;
}

static bool name_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len < sizeof(((struct safety_dev *)0)->name) && !strchr(name, '/') &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int parse_devnum(const char *s, uint32_t *ret_major, uint32_t *ret_minor)
{
	char *end;
	unsigned long ma, mi;

	errno = 0;
	ma = strtoul(s, &end, 10);
	if (errno || end == s || *end != ':' || ma > UINT32_MAX)
		return -EINVAL;
	s = end + 1;
	mi = strtoul(s, &end, 10);
	if (errno || end == s || *end || mi > UINT32_MAX)
		return -EINVAL;
	*ret_major = (uint32_t)ma;
	*ret_minor = (uint32_t)mi;
	return 0;
}

static int family_add(const struct root *r, struct safety_family *f, const char *name, int role)
{
	struct safety_dev *d;
	char rel[PATH_MAX], val[128];
	int n;

	if (!name_ok(name))
		return -EINVAL;
	for (unsigned i = 0; i < f->n; i++)
		if (strcmp(f->dev[i].name, name) == 0)
			return 0; /* reached twice (a holder of two partitions) */
	if (f->n == SAFETY_FAMILY_MAX)
		return -E2BIG;
	d = &f->dev[f->n];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(rel, sizeof(rel), "sys/class/block/%s/dev", name);
	n = root_read_small(r, rel, val, sizeof(val));
	if (n < 0)
		return n;
	if (parse_devnum(val, &d->major, &d->minor) < 0)
		return -EBADMSG;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/dm/name", name);
	if (root_read_small(r, rel, val, sizeof(val)) > 0)
		snprintf(d->dm_name, sizeof(d->dm_name), "%.63s", val);
	d->role = role;
	f->n++;
	if (role == SAFETY_PARTITION)
		f->npartitions++;
	else if (role == SAFETY_HOLDER)
		f->nholders++;
	else if (role == SAFETY_BACKING)
		f->nbacking++;
	return 0;
}

struct family_scan {
	const struct root *r;
	struct safety_family *f;
	const char *dir;
	int role;
};

static int family_entry(int dfd, const char *name, unsigned char type, void *ctx)
{
	const struct family_scan *c = ctx;
	char rel[PATH_MAX];

	(void)dfd;
	(void)type;
	if (name[0] == '.')
		return 0;
	if (c->role == SAFETY_PARTITION) {
		snprintf(rel, sizeof(rel), "%s/%s/partition", c->dir, name);
		if (faccessat(c->r->dirfd, rel, F_OK, 0) < 0)
			return 0;
	}
	return family_add(c->r, c->f, name, c->role);
}

/* Calls family_add for each entry of ROOT/dir (for partitions: entries with a "partition" file). */
static int family_scan(const struct root *r, struct safety_family *f, const char *dir, int role)
{
	struct family_scan c = { r, f, dir, role };
	int fd;

	fd = root_openat(r, dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd; /* no holders/ directory: none */
	return root_for_each_entry_fd(fd, family_entry, &c);
}

static int read_u64(const struct root *r, const char *rel, uint64_t *ret)
{
	char val[32], *end;
	unsigned long long v;
	int n;

	n = root_read_small(r, rel, val, sizeof(val));
	if (n < 0)
		return n;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || end == val || *end)
		return -EBADMSG;
	*ret = v;
	return 0;
}

/* The kernel's huge_encode_dev() (lo_device, lo_rdevice) back to major and minor. */
static void loop_decode_dev(uint64_t v, uint32_t *ret_major, uint32_t *ret_minor)
{
	*ret_major = (uint32_t)((v & 0xfff00) >> 8);
	*ret_minor = (uint32_t)((v & 0xff) | ((v >> 12) & 0xfff00));
}

/*
 * LOOP_GET_STATUS64 on ROOT/dev/NAME, which must be the block device
 * major:minor. The kernel's own record of the backing inode: no path in it
 * can be renamed, linked or deleted away. 0, or -errno (no such node).
 */
static int loop_status(const struct root *r, struct safety_loop *l)
{
	struct loop_info64 info;
	char rel[80];
	struct stat st;
	int fd, ret = 0;

	snprintf(rel, sizeof(rel), "dev/%s", l->name);
	/* a device node: root_openat() opens regular files only */
	fd = root_openat_stat(r, rel, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, &st);
	if (fd < 0)
		return fd;
	if (!S_ISBLK(st.st_mode) || st.st_rdev != makedev(l->major, l->minor))
		ret = -ENODEV;
	else if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
		ret = -errno;
	close(fd);
	if (ret < 0)
		return ret;
	l->offset = info.lo_offset;
	l->sizelimit = info.lo_sizelimit;
	l->blockdev = info.lo_rdevice != 0;
	if (l->blockdev) {
		loop_decode_dev(info.lo_rdevice, &l->back_major, &l->back_minor);
	} else {
		uint32_t ma, mi;

		loop_decode_dev(info.lo_device, &ma, &mi);
		l->back_dev = makedev(ma, mi);
		l->back_ino = info.lo_inode;
	}
	l->known = true;
	return 0;
}

/* The same from sysfs, when the node cannot be opened (a recorded tree). */
static void loop_sysfs(const struct root *r, struct safety_loop *l)
{
	char rel[PATH_MAX], *deleted;
	struct stat st;

	snprintf(rel, sizeof(rel), "sys/class/block/%s/loop/offset", l->name);
	if (read_u64(r, rel, &l->offset) < 0)
		l->offset = 0;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/loop/sizelimit", l->name);
	if (read_u64(r, rel, &l->sizelimit) < 0)
		l->sizelimit = 0;
	deleted = strstr(l->back_path, " (deleted)");
	if (deleted || l->back_path[0] != '/' || fstatat(r->dirfd, l->back_path + 1, &st, 0) < 0)
		return; /* unlinked since, or out of reach: identity unknown */
	if (S_ISBLK(st.st_mode)) {
		l->blockdev = true;
		l->back_major = major(st.st_rdev);
		l->back_minor = minor(st.st_rdev);
	} else {
		l->back_dev = st.st_dev;
		l->back_ino = st.st_ino;
	}
	l->known = true;
}

struct loops_scan {
	const struct root *r;
	struct safety_loops ls;
	unsigned cap;
};

/* A loop device of sys/class/block bound to a backing file joins c->ls. */
static int loop_entry(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct loops_scan *c = ctx;
	struct safety_loop *l;
	char rel[PATH_MAX], val[32];

	(void)dfd;
	(void)type;
	if (strncmp(name, "loop", 4) != 0 || !name_ok(name))
		return 0;
	/* loop/ exists while the device is bound to a backing */
	snprintf(rel, sizeof(rel), "sys/class/block/%s/loop/backing_file", name);
	if (faccessat(c->r->dirfd, rel, F_OK, 0) < 0)
		return 0;
	if (c->ls.n == c->cap) {
		unsigned ncap = c->cap ? c->cap * 2 : 16;
		struct safety_loop *n = realloc(c->ls.l, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->ls.l = n;
		c->cap = ncap;
	}
	l = &c->ls.l[c->ls.n];
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%.63s", name);
	if (root_read_small(c->r, rel, l->back_path, sizeof(l->back_path)) < 0)
		l->back_path[0] = '\0';
	snprintf(rel, sizeof(rel), "sys/class/block/%s/dev", name);
	if (root_read_small(c->r, rel, val, sizeof(val)) < 0 ||
	    parse_devnum(val, &l->major, &l->minor) < 0)
		return 0; /* detached meanwhile */
	if (loop_status(c->r, l) < 0)
		loop_sysfs(c->r, l);
	c->ls.n++;
	return 0;
}

int safety_loops_load(const struct root *r, struct safety_loops *ret_loops)
{
	struct loops_scan c = { .r = r };
	int fd, ret;

	fd = root_openat(r, "sys/class/block", O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		*ret_loops = c.ls;
		return fd == -ENOENT ? 0 : fd;
	}
	ret = root_for_each_entry_fd(fd, loop_entry, &c);
	if (ret < 0) {
		free(c.ls.l);
		return ret;
	}
	*ret_loops = c.ls;
	return 0;
}

void safety_loops_free(struct safety_loops *l)
{
	if (!l)
		return;
	free(l->l);
	l->l = NULL;
	l->n = 0;
}

bool safety_loop_overlap(const struct safety_loop *a, const struct safety_loop *b)
{
	uint64_t a_end = a->sizelimit ? a->offset + a->sizelimit : UINT64_MAX;
	uint64_t b_end = b->sizelimit ? b->offset + b->sizelimit : UINT64_MAX;

	if (a_end < a->offset)
		a_end = UINT64_MAX; /* overflow: to the end */
	if (b_end < b->offset)
		b_end = UINT64_MAX;
	return a->offset < b_end && b->offset < a_end;
}

static bool loop_same_backing(const struct safety_loop *a, const struct safety_loop *b)
{
	if (!a->known || !b->known || a->blockdev != b->blockdev)
		return false;
	if (a->blockdev)
		return a->back_major == b->back_major && a->back_minor == b->back_minor;
	return a->back_dev == b->back_dev && a->back_ino == b->back_ino;
}

static const struct safety_loop *loops_find(const struct safety_loops *ls, const char *name)
{
	for (unsigned i = 0; i < ls->n; i++)
		if (strcmp(ls->l[i].name, name) == 0)
			return &ls->l[i];
	return NULL;
}

/* Kernel name of block device major:minor from ROOT/sys/dev/block/MAJ:MIN. */
static int kname_of_devnum(const struct root *r, uint32_t ma, uint32_t mi, char *buf, size_t size)
{
	char rel[64], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(rel, sizeof(rel), "sys/dev/block/%u:%u", ma, mi);
	n = readlinkat(r->dirfd, rel, link, sizeof(link) - 1);
	if (n < 0)
		return -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (!name_ok(base))
		return -EINVAL;
	snprintf(buf, size, "%.63s", base);
	return 0;
}

/*
 * The loops member i brings in. Loops over it read what we write: holders.
 * When we write into it (itself, or a backing) and it is a loop: what it is
 * over joins as a backing, and other loops on the same file whose ranges
 * overlap its own as holders (they show the bytes we write).
 */
static int family_loops(const struct root *r, struct safety_family *f, unsigned i,
			const struct safety_loops *ls)
{
	const struct safety_loop *self;
	char name[64];
	int ret;

	for (unsigned k = 0; k < ls->n; k++) {
		const struct safety_loop *l = &ls->l[k];

		if (l->known && l->blockdev && l->back_major == f->dev[i].major &&
		    l->back_minor == f->dev[i].minor) {
			ret = family_add(r, f, l->name, SAFETY_HOLDER);
			if (ret < 0)
				return ret;
		}
	}
	if (f->dev[i].role != SAFETY_SELF && f->dev[i].role != SAFETY_BACKING)
		return 0;
	self = loops_find(ls, f->dev[i].name);
	if (!self || !self->known)
		return 0;
	if (self->blockdev) {
		ret = kname_of_devnum(r, self->back_major, self->back_minor, name, sizeof(name));
		if (ret < 0)
			return ret;
		return family_add(r, f, name, SAFETY_BACKING);
	}
	for (unsigned k = 0; k < ls->n; k++) {
		const struct safety_loop *l = &ls->l[k];

		if (l != self && loop_same_backing(l, self) && safety_loop_overlap(l, self)) {
			ret = family_add(r, f, l->name, SAFETY_HOLDER);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

int safety_family_load(const struct root *r, const char *kname, struct safety_family *ret_family)
{
	struct safety_loops ls = { 0 };
	struct safety_family *f;
	char rel[PATH_MAX];
	int ret;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = family_add(r, f, kname, SAFETY_SELF);
	if (ret < 0)
		goto out;
	ret = safety_loops_load(r, &ls);
	/*
	 * Grows while it is walked: the partitions of what we write into, the
	 * holders of every member (LVM on md on sda1), the loops over them, and
	 * what a loop we write through is over.
	 */
	for (unsigned i = 0; ret >= 0 && i < f->n; i++) {
		int role = f->dev[i].role;

		if (role == SAFETY_SELF || role == SAFETY_BACKING) {
			snprintf(rel, sizeof(rel), "sys/class/block/%s", f->dev[i].name);
			ret = family_scan(r, f, rel, SAFETY_PARTITION);
		}
		if (ret >= 0) {
			snprintf(rel, sizeof(rel), "sys/class/block/%s/holders", f->dev[i].name);
			ret = family_scan(r, f, rel, SAFETY_HOLDER);
		}
		if (ret >= 0)
			ret = family_loops(r, f, i, &ls);
	}
	if (ret >= 0)
		*ret_family = *f;
out:
	safety_loops_free(&ls);
	free(f);
	return ret < 0 ? ret : 0;
}

/* The member a "/dev/NAME" or "/dev/mapper/DMNAME" path names, or NULL. */
static const struct safety_dev *family_by_path(const struct safety_family *f, const char *p,
					       size_t len)
{
	if (len <= 5 || strncmp(p, "/dev/", 5) != 0)
		return NULL;
	p += 5;
	len -= 5;
	for (unsigned i = 0; i < f->n; i++) {
		const struct safety_dev *d = &f->dev[i];

		if (strlen(d->name) == len && strncmp(d->name, p, len) == 0)
			return d;
		if (d->dm_name[0] && len > 7 && strncmp(p, "mapper/", 7) == 0 &&
		    strlen(d->dm_name) == len - 7 && strncmp(d->dm_name, p + 7, len - 7) == 0)
			return d;
	}
	return NULL;
}

static const struct safety_dev *family_by_devnum(const struct safety_family *f, const char *s,
						 size_t len)
{
	char buf[32];
	uint32_t ma, mi;

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (parse_devnum(buf, &ma, &mi) < 0)
		return NULL;
	for (unsigned i = 0; i < f->n; i++)
		if (f->dev[i].major == ma && f->dev[i].minor == mi)
			return &f->dev[i];
	return NULL;
}

#define TOK_MAX 64

/* Splits [p, end) at blanks into at most TOK_MAX tokens; returns the count. */
static unsigned tokenize(const char *p, const char *end, const char **tok, size_t *len)
{
	unsigned n = 0;

	while (p < end && n < TOK_MAX) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		tok[n] = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		len[n] = (size_t)(p - tok[n]);
		n++;
	}
	return n;
}

/* The line at *p (up to end) tokenized, *p moved past it: its tokens */
static unsigned next_line(const char **p, const char *end, const char **tok, size_t *len)
{
	const char *eol = memchr(*p, '\n', (size_t)(end - *p));
	unsigned n;

	if (!eol)
		eol = end;
	n = tokenize(*p, eol, tok, len);
	*p = eol + 1;
	return n;
}

static const char *role_name(const struct safety_dev *d)
{
	return d->role == SAFETY_SELF	     ? "the device"
	       : d->role == SAFETY_PARTITION ? "its partition"
	       : d->role == SAFETY_BACKING   ? "the device it writes into"
					     : "its holder";
}

/* What a line of a /proc table is checked against, and where a refusal says why. */
struct line_check {
	const struct safety_family *f;
	char *why;
	size_t why_size;
};

/*
 * Calls fn on each non-empty line of buf, split into tokens, with its
 * number (from 1); the first non-zero return is returned: 1 when a device
 * of the family is in use, -EBADMSG for a malformed line (why set).
 */
static int each_line(const char *buf, size_t len, const struct line_check *c,
		     int (*fn)(const struct line_check *c, const char *const *tok, const size_t *tl,
			       unsigned n, unsigned line))
{
	const char *p = buf, *end = buf + len;
	unsigned line = 0;
	int r;

	while (p < end) {
		const char *tok[TOK_MAX];
		size_t tl[TOK_MAX];
		unsigned n;

		line++;
		n = next_line(&p, end, tok, tl);
		if (!n)
			continue;
		r = fn(c, tok, tl, n, line);
		if (r)
			return r;
	}
	return 0;
}

static int mountinfo_line(const struct line_check *c, const char *const *tok, const size_t *tl,
			  unsigned n, unsigned line)
{
	const struct safety_dev *d;
	unsigned sep;

	/* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
	for (sep = 5; sep < n; sep++)
		if (tl[sep] == 1 && tok[sep][0] == '-')
			break;
	if (n < 6 || sep + 2 >= n)
		return why_set(c->why, c->why_size, -EBADMSG, "mountinfo line %u: malformed", line);
	d = family_by_devnum(c->f, tok[2], tl[2]);
	if (!d)
		d = family_by_path(c->f, tok[sep + 2], tl[sep + 2]);
	if (d)
		return why_set(c->why, c->why_size, 1, "%s %s (/dev/%s) is mounted on %.*s (%.*s)",
			       role_name(d), d->name, d->name, (int)(tl[4] > 200 ? 200 : tl[4]),
			       tok[4], (int)(tl[sep + 1] > 32 ? 32 : tl[sep + 1]), tok[sep + 1]);
	return 0;
}

int safety_mountinfo_find(const char *buf, size_t len, const struct safety_family *f, char *why,
			  size_t why_size)
{
	const struct line_check c = { f, why, why_size };

	return each_line(buf, len, &c, mountinfo_line);
}

static int swaps_line(const struct line_check *c, const char *const *tok, const size_t *tl,
		      unsigned n, unsigned line)
{
	const struct safety_dev *d;

	if (line == 1 && tl[0] == 8 && strncmp(tok[0], "Filename", 8) == 0)
		return 0;
	if (n < 2)
		return why_set(c->why, c->why_size, -EBADMSG, "swaps line %u: malformed", line);
	d = family_by_path(c->f, tok[0], tl[0]);
	if (d)
		return why_set(c->why, c->why_size, 1, "%s %s is in use as swap (/proc/swaps)",
			       role_name(d), d->name);
	return 0;
}

int safety_swaps_find(const char *buf, size_t len, const struct safety_family *f, char *why,
		      size_t why_size)
{
	const struct line_check c = { f, why, why_size };

	return each_line(buf, len, &c, swaps_line);
}

/* Reads ROOT/rel whole into pf; -errno with why set. */
static int read_proc(const struct root *r, struct procfile *pf, const char *rel, char *why,
		     size_t why_size)
{
	char shown[PATH_MAX];
	int n;

	procfile_init(pf, rel);
	n = procfile_read(pf, r);
	if (n < 0) {
		root_display(r, rel, shown, sizeof(shown));
		procfile_free(pf);
		return why_set(why, why_size, n, "read %s: %s", shown, strerror(-n));
	}
	return 0;
}

static void list_role(const struct safety_family *f, int role, char *out, size_t size)
{
	size_t o = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < f->n && o + 1 < size; i++) {
		const struct safety_dev *d = &f->dev[i];
		int w;

		if ((int)d->role != role)
			continue;
		w = snprintf(out + o, size - o, "%s%s%s%s%s", o ? ", " : "", d->name,
			     d->dm_name[0] ? " (" : "", d->dm_name, d->dm_name[0] ? ")" : "");
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

int safety_check_family(const struct root *r, const struct safety_family *f, bool write,
			bool allow_destroy, const char *signature, char *why, size_t why_size)
{
	const char *self = f->dev[0].name;
	struct procfile pf;
	char list[200];
	int ret;

	if (!write)
		return 0; /* reading never loses data */
	ret = read_proc(r, &pf, "proc/self/mountinfo", why, why_size);
	if (ret < 0)
		return ret;
	ret = safety_mountinfo_find(pf.buf, pf.len, f, why, why_size);
	procfile_free(&pf);
	if (ret)
		return ret > 0 ? -EBUSY : ret;
	procfile_init(&pf, "proc/swaps");
	ret = procfile_read(&pf, r);
	if (ret >= 0) {
		ret = safety_swaps_find(pf.buf, pf.len, f, why, why_size);
		procfile_free(&pf);
		if (ret)
			return ret > 0 ? -EBUSY : ret;
	} else {
		procfile_free(&pf);
		if (ret != -ENOENT) /* no /proc/swaps: a kernel without swap */
			return why_set(why, why_size, ret, "read /proc/swaps: %s", strerror(-ret));
	}
	if (allow_destroy)
		return 0;
	if (f->nholders) {
		list_role(f, SAFETY_HOLDER, list, sizeof(list));
		return why_set(why, why_size, -EPERM,
			       "%s is in use by %s (LVM, md, dm or loop); writing destroys their "
			       "data: pass --allow-destroy=/dev/%s to go ahead",
			       self, list, self);
	}
	if (f->npartitions) {
		list_role(f, SAFETY_PARTITION, list, sizeof(list));
		return why_set(why, why_size, -EPERM,
			       "%s has partitions (%s); writing destroys them: pass "
			       "--allow-destroy=/dev/%s to go ahead",
			       self, list, self);
	}
	if (signature && signature[0])
		return why_set(why, why_size, -EPERM,
			       "%s holds a %s signature; writing destroys it: pass "
			       "--allow-destroy=/dev/%s to go ahead",
			       self, signature, self);
	return 0;
}

/* Runs pr (a device set); 1 with the signature in ret_type, 0 none, -errno. */
static int probe_run(blkid_probe pr, char *ret_type, size_t size)
{
	const char *v = NULL;
	int r;

	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) < 0)
			blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL);
		snprintf(ret_type, size, "%s", v ? v : "unknown");
		return 1;
	}
	if (r == -2) {
		/* several signatures disagree: still something to lose */
		snprintf(ret_type, size, "ambivalent (several)");
		return 1;
	}
	return r < 0 ? -EIO : 0;
}

int safety_probe_signature(const char *devpath, char *ret_type, size_t size)
{
	blkid_probe pr;
	int ret;

	pr = blkid_new_probe_from_filename(devpath);
	if (!pr)
		return errno ? -errno : -EIO;
	ret = probe_run(pr, ret_type, size);
	blkid_free_probe(pr);
	return ret;
}

/*
 * Family member d opened through ROOT/dev/NAME with flags (O_NOFOLLOW and
 * O_NONBLOCK added), checked to be d: the fd, or -errno (-ENODEV: the node
 * is not d). With O_EXCL it is the kernel's exclusive claim, held while
 * the fd is open (-EBUSY: mounted, held by md/dm or another claim).
 */
static int member_open(const struct root *r, const struct safety_dev *d, int flags)
{
	char rel[80];
	struct stat st;
	int fd;

	snprintf(rel, sizeof(rel), "dev/%s", d->name);
	fd = root_openat_stat(r, rel, flags | O_NONBLOCK | O_NOFOLLOW, &st);
	if (fd < 0)
		return fd;
	if (!S_ISBLK(st.st_mode) || st.st_rdev != makedev(d->major, d->minor)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/*
 * The signature of family member d, read through ROOT/dev/NAME once that
 * node is checked to be d (major:minor): 1, 0 or -errno as above.
 */
static int probe_member(const struct root *r, const struct safety_dev *d, char *ret_type,
			size_t size)
{
	blkid_probe pr;
	int fd, ret;

	fd = member_open(r, d, O_RDONLY);
	if (fd < 0)
		return fd;
	pr = blkid_new_probe();
	if (!pr) {
		close(fd);
		return -ENOMEM;
	}
	ret = blkid_probe_set_device(pr, fd, 0, 0) < 0 ? -EIO : probe_run(pr, ret_type, size);
	blkid_free_probe(pr);
	close(fd);
	return ret;
}

/*
 * The devices a loop target writes into: a signature on any of them is
 * destroyed as surely as one on the loop itself (a loop at an offset shows
 * none of its own). -EPERM unless allowed, with why; 0.
 */
static int check_backing(const struct root *r, const struct safety_family *f, bool allowed,
			 char *why, size_t why_size)
{
	char sig[64];
	int ret;

	for (unsigned i = 0; i < f->n && !allowed; i++) {
		const struct safety_dev *d = &f->dev[i];

		if (d->role != SAFETY_BACKING)
			continue;
		ret = probe_member(r, d, sig, sizeof(sig));
		if (ret < 0)
			return why_set(why, why_size, ret,
				       "%s writes into %s: cannot probe /dev/%s for signatures: %s",
				       f->dev[0].name, d->name, d->name, strerror(-ret));
		if (ret > 0)
			return why_set(why, why_size, -EPERM,
				       "%s writes into %s, which holds a %s signature; writing "
				       "destroys it: pass --allow-destroy=/dev/%s to go ahead",
				       f->dev[0].name, d->name, sig, f->dev[0].name);
	}
	return 0;
}

/*
 * -EBUSY when the file st backs a loop device: writing it would change that
 * device under its user. Compared by inode (a hard link, or the file
 * renamed since, is the same file); by path only for a loop whose backing
 * could not be identified (no node to ask, and a deleted image in sysfs:
 * then a file with other links is refused too, as it may be that image).
 */
static int file_backs_loop(const struct root *r, const char *path, const struct stat *st, char *why,
			   size_t why_size)
{
	struct safety_loops ls;
	size_t plen = strlen(path);
	int ret;

	ret = safety_loops_load(r, &ls);
	if (ret < 0)
		return why_set(why, why_size, ret, "list the loop devices: %s", strerror(-ret));
	for (unsigned i = 0; i < ls.n; i++) {
		const struct safety_loop *l = &ls.l[i];
		bool same;

		if (l->known)
			same =
			    !l->blockdev && l->back_dev == st->st_dev && l->back_ino == st->st_ino;
		else
			same = strncmp(l->back_path, path, plen) == 0 &&
			       (l->back_path[plen] == '\0' ||
				strcmp(l->back_path + plen, " (deleted)") == 0);
		if (same) {
			ret = why_set(why, why_size, -EBUSY,
				      "%s backs /dev/%s (%s); writing it changes that device under "
				      "its user: write to /dev/%s instead, or detach it",
				      path, l->name, l->back_path, l->name);
			break;
		}
		/* a deleted image seen only in sysfs may live on as another link: this one? */
		if (!l->known && st->st_nlink > 1 && strstr(l->back_path, " (deleted)")) {
			ret = why_set(
			    why, why_size, -EBUSY,
			    "%s has %lu links and /dev/%s is over a deleted file (%s) "
			    "that cannot be told apart from it here: detach /dev/%s first",
			    path, (unsigned long)st->st_nlink, l->name, l->back_path, l->name);
			break;
		}
	}
	safety_loops_free(&ls);
	return ret;
}

static int file_is_swap(const struct root *r, uint64_t dev, uint64_t ino, char *why,
			size_t why_size)
{
	struct procfile pf;
	const char *p, *end;
	int ret = 0;

	procfile_init(&pf, "proc/swaps");
	if (procfile_read(&pf, r) < 0) {
		procfile_free(&pf);
		return 0;
	}
	p = pf.buf;
	end = pf.buf + pf.len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char name[PATH_MAX];
		struct stat sst;
		size_t n = 0;

		if (!eol)
			eol = end;
		while (p + n < eol && p[n] != ' ' && p[n] != '\t' && n + 1 < sizeof(name))
			n++;
		memcpy(name, p, n);
		name[n] = '\0';
		p = eol + 1;
		if (name[0] != '/' || stat(name, &sst) < 0)
			continue;
		if (S_ISREG(sst.st_mode) && sst.st_dev == dev && sst.st_ino == ino) {
			ret = why_set(why, why_size, -EBUSY, "%s is in use as swap (/proc/swaps)",
				      name);
			break;
		}
	}
	procfile_free(&pf);
	return ret;
}

static int check_blockdev(const struct root *r, const struct safety_request *req,
			  const struct stat *st, struct safety_verdict *v, char *why,
			  size_t why_size)
{
	struct safety_family *f;
	bool allowed = false;
	int ret;

	v->rdev = st->st_rdev;
	ret =
	    kname_of_devnum(r, major(st->st_rdev), minor(st->st_rdev), v->kname, sizeof(v->kname));
	if (ret < 0)
		return why_set(why, why_size, ret, "%s: no /sys/dev/block/%u:%u: %s", v->path,
			       major(st->st_rdev), minor(st->st_rdev), strerror(-ret));
	if (req->allow_destroy) {
		char apath[PATH_MAX];
		struct stat ast;

		if (!realpath(req->allow_destroy, apath) || stat(apath, &ast) < 0)
			return why_set(why, why_size, -EPERM, "--allow-destroy=%s: %s",
				       req->allow_destroy, strerror(errno));
		if (!S_ISBLK(ast.st_mode) || ast.st_rdev != st->st_rdev)
			return why_set(why, why_size, -EPERM,
				       "--allow-destroy=%s is %s, not the target %s: it must name "
				       "the same device",
				       req->allow_destroy, apath, v->path);
		allowed = true;
	}
	if (req->write) {
		ret = safety_probe_signature(v->path, v->signature, sizeof(v->signature));
		if (ret < 0)
			return why_set(why, why_size, ret, "%s: cannot probe for signatures: %s",
				       v->path, strerror(-ret));
		if (!ret)
			v->signature[0] = '\0';
	}
	f = malloc(sizeof(*f));
	if (!f)
		return -ENOMEM;
	ret = safety_family_load(r, v->kname, f);
	if (ret < 0) {
		free(f);
		return why_set(why, why_size, ret, "%s: cannot list its partitions and holders: %s",
			       v->kname, strerror(-ret));
	}
	ret = safety_check_family(r, f, req->write, allowed, v->signature, why, why_size);
	if (!ret && req->write)
		ret = check_backing(r, f, allowed, why, why_size);
	free(f);
	return ret;
}

int safety_dir_check(const struct stat *dir, unsigned euid, const char *dirpath, char *why,
		     size_t why_size)
{
	if (!S_ISDIR(dir->st_mode))
		return why_set(why, why_size, -ENOTDIR, "%s is not a directory", dirpath);
	if (dir->st_uid != euid && dir->st_uid != 0)
		return why_set(why, why_size, -EPERM,
			       "directory %s belongs to uid %u, who could swap the file during the "
			       "run: create it in a directory of your own",
			       dirpath, (unsigned)dir->st_uid);
	if ((dir->st_mode & (S_IWGRP | S_IWOTH)) && !(dir->st_mode & S_ISVTX))
		return why_set(why, why_size, -EPERM,
			       "directory %s (mode %04o) may be written by others and is not "
			       "sticky: another user could swap the file during the run; create it "
			       "in a directory of your own, or a sticky one like /tmp",
			       dirpath, (unsigned)(dir->st_mode & 07777));
	return 0;
}

/* The directory part of path ("." for none, "/" for a file at the top). */
static void dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, size, ".");
	else if (slash == path)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

int safety_check(const struct root *r, const struct safety_request *req, struct safety_verdict *ret,
		 char *why, size_t why_size)
{
	struct safety_verdict v;
	char dir[PATH_MAX];
	struct stat st;
	int err;

	memset(&v, 0, sizeof(v));
	if (!req->target || !req->target[0])
		return why_set(why, why_size, -EINVAL, "no target given");
	if (!realpath(req->target, v.path)) {
		err = -errno;
		if (err != -ENOENT)
			return why_set(why, why_size, err, "%s: %s", req->target, strerror(-err));
		/* A new file: the O_EXCL create is the guard against a race. */
		if (req->allow_destroy)
			return why_set(why, why_size, -EINVAL,
				       "--allow-destroy names a block device; %s does not exist",
				       req->target);
		if (strlen(req->target) >= sizeof(v.path))
			return why_set(why, why_size, -ENAMETOOLONG, "%s: path too long",
				       req->target);
		snprintf(v.path, sizeof(v.path), "%s", req->target);
		/* target_open checks again on the directory it holds open */
		dir_of(v.path, dir, sizeof(dir));
		if (stat(dir, &st) < 0)
			return why_set(why, why_size, -errno, "%s: %s", dir, strerror(errno));
		err = safety_dir_check(&st, (unsigned)geteuid(), dir, why, why_size);
		if (err < 0)
			return err;
		v.create = true;
		*ret = v;
		return 0;
	}
	if (stat(v.path, &st) < 0)
		return why_set(why, why_size, -errno, "%s: %s", v.path, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		v.blockdev = true;
		err = check_blockdev(r, req, &st, &v, why, why_size);
		if (err < 0)
			return err;
		*ret = v;
		return 0;
	}
	if (!S_ISREG(st.st_mode))
		return why_set(why, why_size, -EINVAL, "%s is not a regular file or a block device",
			       v.path);
	if (req->allow_destroy)
		return why_set(
		    why, why_size, -EINVAL,
		    "--allow-destroy names a block device; %s is a file (use --overwrite)", v.path);
	v.size_bytes = (uint64_t)st.st_size;
	v.dev = st.st_dev;
	v.ino = st.st_ino;
	if (req->write) {
		err = file_is_swap(r, st.st_dev, st.st_ino, why, why_size);
		if (!err)
			err = file_backs_loop(r, v.path, &st, why, why_size);
		if (err < 0)
			return err;
		if (st.st_size > 0 && !req->overwrite)
			return why_set(why, why_size, -EPERM,
				       "%s exists and holds %llu bytes; pass --overwrite to write "
				       "over it",
				       v.path, (unsigned long long)st.st_size);
	}
	*ret = v;
	return 0;
}

static bool claims_cover(const struct safety_family *claimed, const struct safety_dev *d)
{
	for (unsigned i = 0; i < claimed->n; i++)
		if (claimed->dev[i].major == d->major && claimed->dev[i].minor == d->minor)
			return true;
	return false;
}

static bool claim_wanted(const struct safety_dev *d)
{
	return d->role == SAFETY_BACKING || d->role == SAFETY_HOLDER;
}

int safety_claim(const struct root *r, const struct safety_request *req,
		 const struct safety_verdict *v, struct safety_claims *ret, char *why,
		 size_t why_size)
{
	struct safety_claims c = { .n = 0 };
	struct safety_family *f, *now = NULL;
	struct safety_verdict again;
	int fd, err;

	f = malloc(sizeof(*f));
	if (!f)
		return why_set(why, why_size, -ENOMEM, "%s", strerror(ENOMEM));
	err = safety_family_load(r, v->kname, f);
	if (err < 0) {
		why_set(why, why_size, err, "%s: cannot list its partitions and holders: %s",
			v->kname, strerror(-err));
		goto out;
	}
	for (unsigned i = 1; i < f->n; i++) {
		const struct safety_dev *d = &f->dev[i];

		if (!claim_wanted(d))
			continue;
		fd = member_open(r, d, O_RDONLY | O_EXCL);
		if (fd == -EBUSY) {
			/* a mount is the likely holder: name it when it is one */
			err = safety_check_family(r, f, true, true, NULL, why, why_size);
			if (err == -EBUSY)
				goto out;
			err = why_set(why, why_size, -EBUSY,
				      "%s of %s, /dev/%s, cannot be claimed exclusively: busy "
				      "(md, dm, or another program holds it)",
				      role_name(d), f->dev[0].name, d->name);
			goto out;
		}
		if (fd < 0) {
			err = why_set(why, why_size, fd, "cannot claim /dev/%s (%s of %s): %s",
				      d->name, role_name(d), f->dev[0].name, strerror(-fd));
			goto out;
		}
		c.fd[c.n++] = fd;
	}
	/* everything again, now that nothing we claimed can change under us */
	err = safety_check(r, req, &again, why, why_size);
	if (err < 0)
		goto out;
	if (!again.blockdev || again.rdev != v->rdev) {
		err = why_set(why, why_size, -ESTALE, "%s changed since it was checked", v->path);
		goto out;
	}
	now = malloc(sizeof(*now));
	if (!now) {
		err = why_set(why, why_size, -ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	err = safety_family_load(r, v->kname, now);
	if (err < 0) {
		why_set(why, why_size, err, "%s: cannot list its partitions and holders: %s",
			v->kname, strerror(-err));
		goto out;
	}
	for (unsigned i = 1; i < now->n; i++)
		if (claim_wanted(&now->dev[i]) && !claims_cover(f, &now->dev[i])) {
			err = why_set(why, why_size, -ESTALE,
				      "%s (/dev/%s) joined %s since it was checked: run again",
				      role_name(&now->dev[i]), now->dev[i].name, f->dev[0].name);
			goto out;
		}
	*ret = c;
	c.n = 0;
out:
	safety_claims_release(&c);
	free(now);
	free(f);
	return err < 0 ? err : 0;
}

void safety_claims_release(struct safety_claims *c)
{
	for (unsigned i = 0; i < c->n; i++)
		close(c->fd[i]);
	c->n = 0;
}
