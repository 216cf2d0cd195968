// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Who a process is (procwho.h). Files are read once per process lifetime
 * and only for the processes that moved, because reading cmdline takes the
 * target's mmap lock: cheap, but not something to do 10,000 times a second.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "procwho.h"
#include "unitname.h"
#include "scan.h"
#include "rowfind.h"

/* etc/passwd bigger than this is not read: the uid's digits instead */
#define PASSWD_MAX (4u << 20)

/* Appends byte ch escaped as needed; false when it does not fit whole. */
static bool put_escaped(char *out, size_t size, size_t *k, unsigned char ch)
{
	static const char hex[] = "0123456789abcdef";

	if (ch >= 0x20 && ch < 0x7f && ch != '\\') {
		if (*k + 1 >= size)
			return false;
		out[(*k)++] = (char)ch;
		return true;
	}
	if (*k + 4 >= size)
		return false;
	out[(*k)++] = '\\';
	out[(*k)++] = 'x';
	out[(*k)++] = hex[ch >> 4];
	out[(*k)++] = hex[ch & 15];
	return true;
}

static size_t escape(const char *buf, size_t len, bool nul_space, char *out, size_t size)
{
	size_t k = 0;

	if (!size)
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (nul_space && ch == '\0')
			ch = ' ';
		if (!put_escaped(out, size, &k, ch))
			break;
	}
	out[k] = '\0';
	return k;
}

size_t procwho_cmdline(const char *buf, size_t len, char *out, size_t size)
{
	/* the arguments end in a NUL each; a process may rewrite its area
	 * (setproctitle) and leave trailing NULs or spaces */
	while (len && (buf[len - 1] == '\0' || buf[len - 1] == ' '))
		len--;
	return escape(buf, len, true, out, size);
}

/* Whether name is one of the comma-separated controllers in list[0..n). */
static bool has_controller(const char *list, size_t n, const char *name)
{
	size_t want = strlen(name);

	for (size_t i = 0; i < n;) {
		const char *comma = memchr(list + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - list) : n;

		if (end - i == want && memcmp(list + i, name, want) == 0)
			return true;
		i = end + 1;
	}
	return false;
}

/*
 * The unit text of a cgroup path: the unit's name when the path is a
 * system.slice service, else the path whole, so a user's delegated subtree
 * ending in "system.slice/postgresql@15-main.service" reads as the user's.
 * A path too long keeps its head (whose slice it is) and its tail (the
 * leaf), "..." between.
 */
static void unit_name(const char *path, size_t len, char *out, size_t size)
{
	const char *name;
	size_t nlen, k, head, tail;
	char tmp[4 * 512 + 1];

	if (unit_system_service(path, len, &name, &nlen)) {
		escape(name, nlen, false, out, size);
		return;
	}
	if (size < 16) {
		escape(path, len, false, out, size);
		return;
	}
	k = escape(path, len, false, tmp, sizeof(tmp));
	if (k < size && k < sizeof(tmp) - 1) {
		memcpy(out, tmp, k + 1);
		return;
	}
	/* a third for the head, the rest less "..." for the tail, each
	 * escaped on its own so no escape is cut */
	head = escape(path, len, false, out, (size - 1) / 3 + 1);
	memcpy(out + head, "...", 4);
	tail = size - 1 - head - 3;
	for (size_t from = len > tail ? len - tail : 0; from < len; from++) {
		k = escape(path + from, len - from, false, tmp, sizeof(tmp));
		if (k <= tail) {
			memcpy(out + head + 3, tmp, k + 1);
			return;
		}
	}
}

int procwho_cgroup_unit(const char *buf, size_t len, char *out, size_t size)
{
	static const char *const v1[] = { "cpu", "blkio", "name=systemd" };
	const char *best = NULL;
	size_t best_len = 0;
	int best_rank = 99;
	size_t i = 0;

	if (size)
		out[0] = '\0';
	while (i < len) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		const char *c1 = memchr(line, ':', n), *c2;
		int rank = 99;

		i += n + 1;
		if (!c1)
			continue;
		c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line));
		if (!c2)
			continue;
		/* "0::PATH" is cgroup v2's unified hierarchy */
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1)
			rank = 0;
		for (int k = 0; rank == 99 && k < 3; k++)
			if (has_controller(c1 + 1, (size_t)(c2 - c1 - 1), v1[k]))
				rank = 1 + k;
		if (rank < best_rank) {
			best_rank = rank;
			best = c2 + 1;
			best_len = n - (size_t)(c2 + 1 - line);
		}
	}
	if (!best)
		return -ENOENT;
	while (best_len > 1 && best[best_len - 1] == '/')
		best_len--;
	unit_name(best, best_len, out, size);
	return 0;
}

int procwho_status_uid(const char *buf, size_t len, uint32_t *ret_uid)
{
	struct cursor c;

	cursor_init(&c, buf, len);
	while (!cursor_eof(&c)) {
		const char *tok;
		size_t n = scan_token(&c, &tok);
		uint64_t v;

		if (n == 4 && memcmp(tok, "Uid:", 4) == 0) {
			if (scan_u64(&c, &v) < 0 || v > UINT32_MAX)
				return -EBADMSG;
			*ret_uid = (uint32_t)v;
			return 0;
		}
		scan_next_line(&c);
	}
	return -EBADMSG;
}

int procwho_passwd_name(const char *buf, size_t len, uint32_t uid, char *out, size_t size)
{
	size_t i = 0;

	while (i < len) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;
		const char *f[3];
		size_t nf = 0, k = 0;
		uint64_t v = 0;
		bool digits = true;

		i += n + 1;
		/* name:password:uid:... */
		f[nf++] = line;
		for (size_t j = 0; j < n && nf < 3; j++)
			if (line[j] == ':')
				f[nf++] = line + j + 1;
		if (nf < 3 || f[1] - line < 2)
			continue;
		for (k = 0; f[2] + k < line + n && f[2][k] != ':'; k++) {
			if (f[2][k] < '0' || f[2][k] > '9' || v > UINT32_MAX) {
				digits = false;
				break;
			}
			v = v * 10 + (uint64_t)(f[2][k] - '0');
		}
		if (!digits || !k || v != uid)
			continue;
		escape(line, (size_t)(f[1] - line - 1), false, out, size);
		return 0;
	}
	snprintf(out, size, "%u", uid);
	return -ENOENT;
}

/* ---- the cache ---- */

static void passwd_load(struct procwho_cache *c, const struct root *r)
{
	struct stat st;
	ssize_t got = 0, n;
	char *buf;
	int fd;

	if (c->passwd_checked)
		return;
	c->passwd_checked = true;
	fd = root_openat(r, "etc/passwd", O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 0 || (size_t)st.st_size > PASSWD_MAX) {
		if (fd >= 0)
			close(fd);
		free(c->passwd);
		c->passwd = NULL;
		return;
	}
	if (c->passwd && st.st_size == c->passwd_size &&
	    st.st_mtim.tv_sec == c->passwd_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == c->passwd_mtime.tv_nsec) {
		close(fd);
		return;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return;
	}
	while (got < st.st_size) {
		n = read(fd, buf + got, (size_t)(st.st_size - got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	free(c->passwd);
	c->passwd = buf;
	c->passwd_len = (size_t)got;
	c->passwd_size = st.st_size;
	c->passwd_mtime = st.st_mtim;
}

static void cmdline_read(const struct root *r, const struct proc_raw *p, struct procwho_entry *e)
{
	char rel[40], buf[2048];
	int n;

	snprintf(rel, sizeof(rel), "proc/%d/cmdline", p->pid);
	n = p->kthread ? 0 : root_read_small(r, rel, buf, sizeof(buf));
	if (n <= 0 || !procwho_cmdline(buf, (size_t)n, e->cmdline, sizeof(e->cmdline))) {
		/* a kernel thread (or a zombie): its name in brackets, as ps shows */
		char name[PROC_COMM_MAX + 2];

		snprintf(name, sizeof(name), "[%s]", p->comm);
		escape(name, strlen(name), false, e->cmdline, sizeof(e->cmdline));
	}
}

/* A PostgreSQL process says what it does now in its title ("idle",
 * "SELECT"): its command line is read again whenever it moved. */
static bool title_moves(const struct proc_raw *p)
{
	return strcmp(p->comm, "postgres") == 0;
}

/* mysqld/mariadbd --user=mysql start as root and change their uid after
 * exec: while a server's last read said root, it is read whole again when
 * it moved, so the first read does not keep root for its life. */
static bool uid_moves(const struct proc_raw *p, const struct procwho_entry *old)
{
	return old->uid == 0 &&
	       (strcmp(p->comm, "mysqld") == 0 || strcmp(p->comm, "mariadbd") == 0);
}

/* Reads one process's files into e. False when it is gone. */
static bool who_read(struct procwho_cache *c, const struct root *r, const struct proc_raw *p,
		     struct procwho_entry *e)
{
	char rel[40], buf[2048];
	int n;

	memset(e, 0, sizeof(*e));
	e->pid = p->pid;
	e->start_ticks = p->start_ticks;
	snprintf(rel, sizeof(rel), "proc/%d/status", p->pid);
	n = root_read_small(r, rel, buf, sizeof(buf));
	if (n == -ENOENT || n == -ESRCH)
		return false;
	if (n < 0 || procwho_status_uid(buf, (size_t)n, &e->uid) < 0)
		return false;
	passwd_load(c, r);
	if (c->passwd)
		(void)procwho_passwd_name(c->passwd, c->passwd_len, e->uid, e->user,
					  sizeof(e->user));
	else
		snprintf(e->user, sizeof(e->user), "%u", e->uid);
	cmdline_read(r, p, e);
	snprintf(rel, sizeof(rel), "proc/%d/cgroup", p->pid);
	n = root_read_small(r, rel, buf, sizeof(buf));
	if (n > 0)
		(void)procwho_cgroup_unit(buf, (size_t)n, e->unit, sizeof(e->unit));
	return true;
}

static const struct procwho_entry *cache_find(const struct procwho_cache *c, int32_t pid)
{
	return rowfind_i32(c->e, c->n, sizeof(*c->e), offsetof(struct procwho_entry, pid), pid);
}

static void apply(struct proc_raw *p, const struct procwho_entry *e)
{
	p->has_who = true;
	p->uid = e->uid;
	memcpy(p->user, e->user, sizeof(p->user));
	memcpy(p->cmdline, e->cmdline, sizeof(p->cmdline));
	memcpy(p->unit, e->unit, sizeof(p->unit));
}

int procwho_fill(struct procwho_cache *c, const struct root *r, struct proc_table *t,
		 bool (*moved)(const struct proc_raw *p, void *ctx), void *ctx)
{
	struct procwho_entry *tmp;
	size_t nn = 0, tcap;

	c->passwd_checked = false;
	c->reads = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct proc_raw *p = &t->rows[i];
		const struct procwho_entry *old;

		if (!p->has_stat || p->exited)
			continue;
		old = cache_find(c, p->pid);
		if (old && old->start_ticks != p->start_ticks)
			old = NULL; /* another process behind the number */
		if (!old && (c->reads >= PROCWHO_READS_MAX || !moved(p, ctx)))
			continue;
		if (grow((void **)&c->next, &c->next_cap, nn + 1, sizeof(*c->next)) < 0)
			return -ENOMEM;
		if (old && uid_moves(p, old) && c->reads < PROCWHO_READS_MAX && moved(p, ctx)) {
			c->reads++;
			if (!who_read(c, r, p, &c->next[nn]))
				continue;
		} else if (old) {
			c->next[nn] = *old;
			if (title_moves(p) && c->reads < PROCWHO_READS_MAX && moved(p, ctx)) {
				c->reads++;
				cmdline_read(r, p, &c->next[nn]);
			}
		} else {
			c->reads++;
			if (!who_read(c, r, p, &c->next[nn]))
				continue;
		}
		apply(p, &c->next[nn]);
		/* rows are ascending but an exited row may share a pid: keep one */
		if (nn && c->next[nn - 1].pid >= p->pid)
			continue;
		nn++;
	}
	tmp = c->e;
	tcap = c->cap;
	c->e = c->next;
	c->cap = c->next_cap;
	c->n = nn;
	c->next = tmp;
	c->next_cap = tcap;
	return 0;
}

void procwho_cache_free(struct procwho_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->next);
	free(c->passwd);
	memset(c, 0, sizeof(*c));
}
