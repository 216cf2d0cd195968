// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Applying a suggestion and undoing it. The journal is written (fsync,
 * rename) before the first write, so a crash mid-apply still leaves the
 * values to restore. Only paths of the allowed set are ever written; the
 * one setting that is not a file, a NIC's combined channel count, goes
 * through ethtool_nl.c (netlink live, the recorded answer under --root).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "apply.h"
#include "ethtool_nl.h"
#include "treewrite.h"
#include "root.h"
#include "str.h"

#define JOURNAL_MAGIC  "iotriage-undo 1"
#define JOURNAL_SUFFIX ".undo"

const char *apply_errno_meaning(int err, bool is_irq)
{
	switch (err < 0 ? -err : err) {
	case EIO:
		return is_irq
			   ? "the kernel manages this IRQ's affinity (a managed IRQ: its driver "
			     "asked the kernel to spread its queue vectors; or a chip that "
			     "cannot move it): leave it alone, see doc/advise.md \"Managed IRQs\""
			   : "the driver refused the value";
	case ENOSPC:
		return "no interrupt vector left on the target CPU (x86 has about 200 per CPU): "
		       "pick another CPU";
	case EPERM:
	case EACCES:
		return is_irq
			   ? "not permitted: run as root (CAP_SYS_ADMIN), outside a container, "
			     "or through iotriaged; if already root, the IRQ may be "
			     "kernel-managed (its driver asked the kernel to spread its "
			     "vectors): leave it alone"
			   : "not permitted: run as root (CAP_SYS_ADMIN), outside a container, or "
			     "through iotriaged";
	case EINVAL:
		return is_irq ? "the kernel rejected the CPU list (offline CPU, or none left "
				"after removing isolated ones)"
			      : "the kernel rejected the value (out of range for this device)";
	case EROFS:
		return "read-only filesystem: /proc or /sys is mounted read-only here (a "
		       "container, or iotriaged's unit ReadOnlyPaths): apply embedded as root";
	case ENOENT:
		return "the file is gone: the device or IRQ disappeared since the advice";
	case ELOOP:
	case ENOTDIR:
		return "a symbolic link on the way: refused (in a recorded tree apply and undo "
		       "follow none)";
	case EXDEV:
		return "not a plain file of /proc or /sys (or of the recorded tree): refused";
	default:
		return "write failed";
	}
}

/* ETHTOOL_MSG_CHANNELS_SET's refusals (net/ethtool/channels.c and the drivers). */
static const char *ethtool_meaning(int err)
{
	switch (err < 0 ? -err : err) {
	case EINVAL:
		return "the driver refused the count: above its maximum, or (fewer channels) "
		       "queues still used by an RSS indirection table (ethtool -x), an ntuple "
		       "filter or an AF_XDP socket";
	case EOPNOTSUPP:
		return "the driver cannot change its channel count";
	case EPERM:
	case EACCES:
		return "not permitted: needs CAP_NET_ADMIN (run as root, or through iotriaged)";
	case ENODEV:
	case ENOENT:
		return "no such interface now (renamed or removed), or, in a recorded tree, no "
		       "recorded channels answer";
	case EBUSY:
		return "the device is busy (being reconfigured): try again";
	case ENOMEM:
	case ENOSPC:
		return "the driver could not allocate the new queues or their interrupt vectors";
	default:
		return "ethtool request failed";
	}
}

static bool is_irq_path(const char *path, unsigned *ret_irq);

/* What a failed write's errno means for the thing at path. */
static const char *meaning(int err, const char *path)
{
	unsigned irq;

	if (advise_ethtool_path(path, NULL, 0))
		return ethtool_meaning(err);
	return apply_errno_meaning(err, is_irq_path(path, &irq));
}

/* The command a person would type for writing v to path. */
static void command_text(const char *path, const char *v, char *buf, size_t size)
{
	struct strbuf sb = { 0 };

	advise_command_text(path, v, &sb);
	snprintf(buf, size, "%s", sb.err ? "(out of memory)" : sb_cstr(&sb));
	sb_free(&sb);
}

/* What path names, for messages: "/sys/block/sdb/queue/scheduler", or
 * "the channels of eth0 (ethtool -l eth0)". */
static void target_text(const char *path, char *buf, size_t size)
{
	char ifname[IOT_NAME_MAX];

	if (advise_ethtool_path(path, ifname, sizeof(ifname)))
		snprintf(buf, size, "the channels of %s (ethtool -l %s)", ifname, ifname);
	else
		snprintf(buf, size, "/%s", path);
}

bool apply_path_allowed(const char *p)
{
	/* the one allow-list, shared with every printed command */
	return advise_path_allowed(p);
}

/*
 * Opens a file of the allowed set under r, for reading or writing (no
 * O_CREAT). Live ("/"): resolved beneath "/" without magic links, the file
 * itself no symlink, and on procfs or sysfs: nothing else is a setting.
 * A recorded tree is someone's files: no symlink anywhere on the way
 * (treewrite_openat()). Either way a regular file (sysfs attributes are).
 * Returns an fd or -errno (-ELOOP/-ENOTDIR a symlink, -EXDEV not a plain
 * /proc or /sys file).
 */
static int open_target(const struct root *r, const char *path, int flags)
{
	struct stat st;
	int fd;

	if (!apply_path_allowed(path))
		return -EINVAL;
	if (r->path[0] == '\0') {
		struct open_how how = {
			.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
		};
		struct statfs sf;

		fd = (int)syscall(SYS_openat2, r->dirfd, path, &how, sizeof(how));
		if (fd < 0 && errno == ENOSYS) /* before Linux 5.6 */
			fd = openat(r->dirfd, path, flags | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (fstatfs(fd, &sf) < 0 ||
		    (sf.f_type != PROC_SUPER_MAGIC && sf.f_type != SYSFS_MAGIC)) {
			close(fd);
			return -EXDEV;
		}
	} else {
		fd = treewrite_openat(r->dirfd, path, flags);
		if (fd < 0)
			return fd;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EXDEV;
	}
	return fd;
}

/* Reads a small file through open_target(): NUL-terminated, trailing
 * newlines and blanks stripped, as root_read_small(). Length or -errno. */
static int read_target(const struct root *r, const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open_target(r, path, O_RDONLY);

	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return (int)n;
}

static bool value_ok(const char *v)
{
	if (strlen(v) >= TOPO_LIST_MAX)
		return false;
	for (; *v; v++)
		if (*v == '\t' || *v == '\n' || *v == '\r')
			return false;
	return true;
}

/* Reads a file's current value as it can be written back: the bracketed
 * word of a choice file ("[none] mq-deadline" -> "none"). */
static int read_value(const struct root *r, const char *path, char *buf, size_t size)
{
	char raw[512], ifname[IOT_NAME_MAX];
	int n;

	if (advise_ethtool_path(path, ifname, sizeof(ifname))) {
		struct nic_channels ch;

		n = ethtool_nl_channels_get(r, ifname, &ch);
		if (n < 0)
			return n;
		n = snprintf(buf, size, "%u", ch.combined);
		return n < 0 || (size_t)n >= size ? -EOVERFLOW : 0;
	}
	n = read_target(r, path, raw, sizeof(raw));
	if (n < 0)
		return n;
	if (strchr(raw, '['))
		return topology_parse_scheduler(raw, buf, size) < 0 ? -EBADMSG : 0;
	if ((size_t)n >= size)
		return -EOVERFLOW;
	memcpy(buf, raw, (size_t)n + 1);
	return 0;
}

/* A channel count as `ethtool -L` takes it: 1 .. UINT32_MAX, digits only. */
static int parse_count(const char *v, uint32_t *ret)
{
	unsigned long long x = 0;

	if (!*v || strlen(v) > 10)
		return -EINVAL;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -EINVAL;
		x = x * 10 + (unsigned)(*v - '0');
	}
	if (x == 0 || x > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)x;
	return 0;
}

static int write_value(const struct root *r, const char *path, const char *v)
{
	char buf[TOPO_LIST_MAX + 1], ifname[IOT_NAME_MAX];
	size_t len = strlen(v);
	ssize_t n;
	int fd, e = 0;

	if (advise_ethtool_path(path, ifname, sizeof(ifname))) {
		uint32_t count;

		e = parse_count(v, &count);
		return e < 0 ? e : ethtool_nl_channels_set_combined(r, ifname, count);
	}
	/* O_TRUNC: a no-op for /proc and /sys, needed for recorded trees */
	fd = open_target(r, path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	memcpy(buf, v, len);
	buf[len++] = '\n';
	/* one write: sysfs and procfs take the value from a single write() */
	n = write(fd, buf, len);
	if (n < 0)
		e = -errno;
	else if ((size_t)n != len)
		e = -EIO;
	if (close(fd) < 0 && !e)
		e = -errno;
	return e;
}

static bool same_value(const char *path, const char *want, const char *got)
{
	struct cpuset a, b;
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strcmp(base, "smp_affinity_list") == 0)
		return cpuset_parse_list(want, strlen(want), &a) == 0 &&
		       cpuset_parse_list(got, strlen(got), &b) == 0 && cpuset_equal(&a, &b);
	if (strcmp(base, "rps_cpus") == 0)
		return cpuset_parse_mask(want, strlen(want), &a) == 0 &&
		       cpuset_parse_mask(got, strlen(got), &b) == 0 && cpuset_equal(&a, &b);
	return strcmp(want, got) == 0;
}

static bool is_irq_path(const char *path, unsigned *ret_irq)
{
	unsigned irq;
	char tail[32];

	if (sscanf(path, "proc/irq/%u/%31s", &irq, tail) != 2 ||
	    strcmp(tail, "smp_affinity_list") != 0)
		return false;
	*ret_irq = irq;
	return true;
}

/* ---- journal ---- */

static void journal_name(const char *id, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s%s", ADV_ID_MAX - 1, id, JOURNAL_SUFFIX);
}

static bool id_ok(const char *id)
{
	if (!*id || strlen(id) >= ADV_ID_MAX || id[0] == '.')
		return false;
	for (; *id; id++)
		if (!((*id >= 'a' && *id <= 'z') || (*id >= 'A' && *id <= 'Z') ||
		      (*id >= '0' && *id <= '9') || *id == '-' || *id == '_' || *id == '.' ||
		      *id == ':' || *id == '@'))
			return false;
	return true;
}

/* A boot id as the kernel writes it: 8-4-4-4-12 lower-case hex digits. */
static bool boot_id_ok(const char *b)
{
	if (strlen(b) != APPLY_BOOT_ID_MAX - 1)
		return false;
	for (size_t i = 0; b[i]; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? b[i] != '-'
			 : !((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f')))
			return false;
	}
	return true;
}

/* The boot id of the host (or tree) r, "" when it cannot be read: what a
 * journal is stamped with, since every setting apply writes lasts one boot. */
static void boot_id(const struct root *r, char *buf, size_t size)
{
	char raw[64];
	int n = root_read_small(r, "proc/sys/kernel/random/boot_id", raw, sizeof(raw));

	if (n <= 0 || !boot_id_ok(raw) || size < APPLY_BOOT_ID_MAX) {
		if (size)
			buf[0] = '\0';
		return;
	}
	memcpy(buf, raw, APPLY_BOOT_ID_MAX);
}

/* A journal written in another boot than now (boot_id()'s): what it set is gone. */
static bool journal_stale(const struct apply_journal *j, const char *now)
{
	return j->boot[0] && now[0] && strcmp(j->boot, now) != 0;
}

int apply_journal_parse(const char *buf, size_t len, struct apply_journal *ret)
{
	struct apply_journal *j;
	const char *p = buf, *end = buf + len;
	unsigned line = 0;
	bool have_id = false;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char l[600];

		if (n >= sizeof(l) || memchr(p, '\0', n))
			goto bad;
		memcpy(l, p, n);
		l[n] = '\0';
		p += n + (nl ? 1 : 0);
		line++;
		if (line == 1) {
			if (strcmp(l, JOURNAL_MAGIC) != 0)
				goto bad;
			continue;
		}
		if (strncmp(l, "id ", 3) == 0 && !have_id) {
			if (!id_ok(l + 3))
				goto bad;
			str_copy(j->id, sizeof(j->id), l + 3);
			have_id = true;
		} else if (strncmp(l, "boot ", 5) == 0 && !j->boot[0]) {
			if (!boot_id_ok(l + 5))
				goto bad;
			str_copy(j->boot, sizeof(j->boot), l + 5);
		} else if (strncmp(l, "write ", 6) == 0) {
			char *f1 = l + 6, *f2, *f3;
			struct apply_write *w;

			f2 = strchr(f1, '\t');
			if (!f2 || j->n >= APPLY_MAX_WRITES)
				goto bad;
			*f2++ = '\0';
			f3 = strchr(f2, '\t');
			if (!f3)
				goto bad;
			*f3++ = '\0';
			if (strchr(f3, '\t') || !apply_path_allowed(f1) ||
			    strlen(f1) >= sizeof(w->path) || !value_ok(f2) || !value_ok(f3))
				goto bad;
			w = &j->writes[j->n++];
			str_copy(w->path, sizeof(w->path), f1);
			str_copy(w->undo, sizeof(w->undo), f2);
			str_copy(w->value, sizeof(w->value), f3);
		} else if (l[0] != '\0') {
			goto bad;
		}
	}
	if (line == 0 || !have_id || j->n == 0)
		goto bad;
	*ret = *j;
	free(j);
	return 0;
bad:
	free(j);
	return -EBADMSG;
}

static int journal_write(int dfd, const struct apply_journal *j)
{
	char name[ADV_ID_MAX + 16], tmp[ADV_ID_MAX + 24];
	FILE *f;
	int fd, e = 0;

	journal_name(j->id, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	/* a stale temporary file of a crash, or a planted link: replaced, never followed */
	fd = treewrite_create(dfd, tmp, 0600);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "w");
	if (!f) {
		e = -errno;
		close(fd);
		unlinkat(dfd, tmp, 0);
		return e;
	}
	fprintf(f, "%s\nid %s\n", JOURNAL_MAGIC, j->id);
	if (j->boot[0])
		fprintf(f, "boot %s\n", j->boot);
	for (size_t i = 0; i < j->n; i++)
		fprintf(f, "write %s\t%s\t%s\n", j->writes[i].path, j->writes[i].undo,
			j->writes[i].value);
	if (fflush(f) != 0 || fsync(fileno(f)) < 0)
		e = -errno;
	if (fclose(f) != 0 && !e)
		e = -errno;
	if (!e && renameat(dfd, tmp, dfd, name) < 0)
		e = -errno;
	if (e)
		unlinkat(dfd, tmp, 0);
	else
		fsync(dfd);
	return e;
}

static int journal_read(int dfd, const char *id, struct apply_journal *ret)
{
	/* a journal line is at most "write " + path + 2 values + tabs */
	const size_t cap = 64 + (size_t)APPLY_MAX_WRITES * 600;
	char name[ADV_ID_MAX + 16], *buf;
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if (!id_ok(id))
		return -ENOENT;
	journal_name(id, name, sizeof(name));
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a journal is a file root (or the caller) wrote: not a link, a FIFO or
	 * a device someone placed there */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return -EPERM;
	}
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	e = n < 0 ? -errno : 0;
	close(fd);
	if (!e && len == cap)
		e = -EBADMSG;
	if (!e)
		e = apply_journal_parse(buf, len, ret);
	if (e == 0 && strcmp(ret->id, id) != 0)
		e = -EBADMSG;
	free(buf);
	return e;
}

static const struct treewrite_dir_words journal_words = {
	.what = "the undo journal",
	.risk = "or whoever else can write there can plant a journal that undo replays; "
		"check its *.undo files, then",
	.option = "--state-dir",
};

int apply_state_open(const struct root *r, const char *state_dir, char *why, size_t why_size)
{
	char rel[4096], shown[4096];
	int cur, e;

	if (state_dir && *state_dir) {
		/* a host path: from "/" or the working directory */
		if (strlen(state_dir) >= sizeof(rel)) {
			snprintf(why, why_size, "%.64s...: %s", state_dir, strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
		snprintf(rel, sizeof(rel), "%s", state_dir);
		snprintf(shown, sizeof(shown), "%s", state_dir[0] == '/' ? "/" : ".");
		cur = open(shown, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else {
		/* under the root: ROOT itself is the caller's choice, checked as a step */
		snprintf(rel, sizeof(rel), "%s", APPLY_STATE_DIR);
		snprintf(shown, sizeof(shown), "%s", r->path[0] ? r->path : "/");
		cur = fcntl(r->dirfd, F_DUPFD_CLOEXEC, 0);
	}
	if (cur < 0) {
		e = -errno;
		snprintf(why, why_size, "%s: %s", shown, strerror(-e));
		return e;
	}
	e = treewrite_private_dir(cur, shown, rel, &journal_words, why, why_size);
	close(cur);
	return e;
}

/* Writes undo values of j->writes[0..n) back in reverse. Returns the first error. */
static int rollback(const struct root *r, const struct apply_journal *j, size_t n, char *msg,
		    size_t size)
{
	int first = 0;

	while (n-- > 0) {
		int e = write_value(r, j->writes[n].path, j->writes[n].undo);

		if (e < 0 && !first) {
			char what[160];

			first = e;
			target_text(j->writes[n].path, what, sizeof(what));
			/* a message: a long cpulist may be cut */
			snprintf(msg, size, "; rollback of %.130s to '%.40s' failed too: %s", what,
				 j->writes[n].undo, strerror(-e));
		}
	}
	return first;
}

static void verify_irq(const struct root *r, unsigned irq, const char *value,
		       struct apply_result *res)
{
	char rel[64], buf[TOPO_LIST_MAX];
	struct cpuset want, eff;
	int n;

	snprintf(rel, sizeof(rel), "proc/irq/%u/effective_affinity_list", irq);
	n = root_read_small(r, rel, buf, sizeof(buf));
	if (n < 0 || cpuset_parse_list(buf, (size_t)n, &eff) < 0) {
		res->unverified++;
		return;
	}
	if (cpuset_parse_list(value, strlen(value), &want) < 0 || !cpuset_subset(&eff, &want) ||
	    cpuset_empty(&eff))
		res->pending++;
}

/* Fills j's writes from s: each path checked, its value now read as the
 * undo value (the host may have changed since the advice). 0 or -errno,
 * with res saying what failed. */
static int journal_fill(const struct root *r, const struct suggestion *s, struct apply_journal *j,
			struct apply_result *res)
{
	char what[TOPO_LIST_MAX + 160];
	int e;

	for (size_t i = 0; i < s->nactions; i++) {
		const struct advise_action *a = &s->actions[i];
		struct apply_write *w = &j->writes[i];

		if (!apply_path_allowed(a->path) || !value_ok(a->value)) {
			target_text(a->path, what, sizeof(what));
			snprintf(res->message, sizeof(res->message), "%s: refusing to write %s",
				 s->id, what);
			return -EINVAL;
		}
		str_copy(w->path, sizeof(w->path), a->path);
		str_copy(w->value, sizeof(w->value), a->value);
		/* the value now, not the advice's: the host may have changed since */
		e = read_value(r, a->path, w->undo, sizeof(w->undo));
		if (e < 0) {
			target_text(a->path, what, sizeof(what));
			snprintf(res->message, sizeof(res->message),
				 "%s: cannot read %s to record its undo value: %s; nothing written",
				 s->id, what, strerror(-e));
			return e;
		}
		if (!value_ok(w->undo)) {
			target_text(a->path, what, sizeof(what));
			snprintf(res->message, sizeof(res->message),
				 "%s: %s holds a value that cannot be journaled; nothing written",
				 s->id, what);
			return -EBADMSG;
		}
	}
	return 0;
}

/* Writes j's values in order, each read back (an IRQ's effective affinity
 * checked too); on a failure rolls back what was written, and removes the
 * journal name under state_fd when that worked. 0 or -errno, res says. */
static int journal_apply(const struct root *r, int state_fd, const char *name,
			 const struct suggestion *s, const struct apply_journal *j,
			 struct apply_result *res)
{
	char extra[256] = "", what[TOPO_LIST_MAX + 160];
	int e;

	for (size_t i = 0; i < j->n; i++) {
		const struct apply_write *w = &j->writes[i];
		char got[TOPO_LIST_MAX];
		unsigned irq;
		int n;
		bool irq_path = is_irq_path(w->path, &irq);

		e = write_value(r, w->path, w->value);
		if (e == 0) {
			e = read_value(r, w->path, got, sizeof(got));
			if (e == 0 && !same_value(w->path, w->value, got)) {
				/* roll back this one too: it may have taken a part */
				i++;
				rollback(r, j, i, extra, sizeof(extra));
				target_text(w->path, what, sizeof(what));
				n = snprintf(
				    res->message, sizeof(res->message),
				    "%s: %s reads back '%s' after writing '%s'; rolled back "
				    "%zu writes%s",
				    s->id, what, got, w->value, i, extra);
				/* a long list read back cuts the message: say so */
				if (n >= (int)sizeof(res->message))
					memcpy(res->message + sizeof(res->message) - 4, "...", 4);
				unlinkat(state_fd, name, 0);
				return -EIO;
			}
		}
		if (e < 0) {
			int re = rollback(r, j, i, extra, sizeof(extra));

			command_text(w->path, w->value, what, sizeof(what));
			snprintf(res->message, sizeof(res->message),
				 "%s: %s: %s: %s; %s%zu earlier writes rolled back%s", s->id, what,
				 strerror(-e), meaning(e, w->path), i ? "" : "nothing written, ", i,
				 extra);
			if (re == 0)
				unlinkat(state_fd, name, 0);
			return e;
		}
		if (irq_path)
			verify_irq(r, irq, w->value, res);
	}
	return 0;
}

/* The message of s applied: what was verified, what is pending, the undo. */
static void applied_message(const struct suggestion *s, const struct apply_journal *j,
			    struct apply_result *res)
{
	res->written = j->n;
	snprintf(res->message, sizeof(res->message),
		 "%s applied: %zu writes verified by reading back", s->id, j->n);
	if (res->pending)
		snprintf(res->message + strlen(res->message),
			 sizeof(res->message) - strlen(res->message),
			 "; %u IRQs move at their next interrupt (effective_affinity_list not yet "
			 "updated)",
			 res->pending);
	if (res->unverified)
		snprintf(res->message + strlen(res->message),
			 sizeof(res->message) - strlen(res->message),
			 "; %u IRQs without effective_affinity_list (kernel < 4.15)",
			 res->unverified);
	/* id_ok() let only shell-plain bytes through */
	snprintf(res->message + strlen(res->message), sizeof(res->message) - strlen(res->message),
		 "; undo with: iotriage undo %s", s->id);
}

int apply_suggestion(const struct root *r, int state_fd, const struct suggestion *s,
		     struct apply_result *ret)
{
	struct apply_result res = { 0 };
	struct apply_journal *j;
	char name[ADV_ID_MAX + 16], now[APPLY_BOOT_ID_MAX];
	int e = 0;

	if (!id_ok(s->id) || s->nactions == 0 || s->nactions > APPLY_MAX_WRITES) {
		snprintf(res.message, sizeof(res.message), "%s: not a valid suggestion", s->id);
		*ret = res;
		return -EINVAL;
	}
	journal_name(s->id, name, sizeof(name));
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	boot_id(r, now, sizeof(now));
	e = journal_read(state_fd, s->id, j);
	if (e != -ENOENT) {
		/* one of an earlier boot describes settings that are gone: replaced;
		 * any other, even one that cannot be read, is refused */
		if (e < 0 || !journal_stale(j, now)) {
			snprintf(res.message, sizeof(res.message),
				 "%s is already applied (journal %s): undo it first", s->id, name);
			free(j);
			*ret = res;
			return -EEXIST;
		}
		memset(j, 0, sizeof(*j));
	}
	e = 0;
	str_copy(j->id, sizeof(j->id), s->id);
	memcpy(j->boot, now, sizeof(now));
	e = journal_fill(r, s, j, &res);
	if (e < 0)
		goto out;
	j->n = s->nactions;
	e = journal_write(state_fd, j);
	if (e < 0) {
		snprintf(res.message, sizeof(res.message),
			 "%s: cannot write the undo journal: %s; nothing written", s->id,
			 strerror(-e));
		goto out;
	}
	e = journal_apply(r, state_fd, name, s, j, &res);
	if (e < 0)
		goto out;
	applied_message(s, j, &res);
out:
	free(j);
	*ret = res;
	return e;
}

int apply_undo(const struct root *r, int state_fd, const char *id, struct apply_result *ret)
{
	struct apply_result res = { 0 };
	struct apply_journal *j;
	char name[ADV_ID_MAX + 16], now[APPLY_BOOT_ID_MAX];
	int e;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	e = journal_read(state_fd, id, j);
	if (e < 0) {
		snprintf(res.message, sizeof(res.message), "%s: %s", id,
			 e == -ENOENT	 ? "nothing applied under this id"
			 : e == -EBADMSG ? "the undo journal is corrupt; left in place"
			 : e == -EPERM || e == -ELOOP
			     ? "the undo journal is not a regular file of root's (or yours): "
			       "refused, left in place"
			     : strerror(-e));
		goto out;
	}
	boot_id(r, now, sizeof(now));
	if (journal_stale(j, now)) {
		/* the host restarted since: every value apply wrote is gone, and the
		 * values to restore were another boot's (an IRQ number, sdb, may now
		 * be another device): nothing is written */
		journal_name(id, name, sizeof(name));
		e = unlinkat(state_fd, name, 0) < 0 ? -errno : 0;
		snprintf(res.message, sizeof(res.message),
			 "%s: applied in an earlier boot (%.8s...); what it set did not survive "
			 "the restart, so nothing was written%s",
			 id, j->boot,
			 e < 0 ? "; the journal could not be removed" : "; journal removed");
		goto out;
	}
	for (size_t i = j->n; i-- > 0;) {
		const struct apply_write *w = &j->writes[i];
		char what[TOPO_LIST_MAX + 160];

		e = write_value(r, w->path, w->undo);
		if (e < 0) {
			command_text(w->path, w->undo, what, sizeof(what));
			snprintf(res.message, sizeof(res.message),
				 "%s: %s: %s: %s; journal kept, %zu of %zu restored", id, what,
				 strerror(-e), meaning(e, w->path), j->n - 1 - i, j->n);
			goto out;
		}
		res.written++;
	}
	journal_name(id, name, sizeof(name));
	if (unlinkat(state_fd, name, 0) < 0) {
		e = -errno;
		snprintf(res.message, sizeof(res.message),
			 "%s: values restored but the journal could not be removed: %s", id,
			 strerror(-e));
		goto out;
	}
	snprintf(res.message, sizeof(res.message), "%s undone: %zu values restored", id,
		 res.written);
	e = 0;
out:
	free(j);
	*ret = res;
	return e;
}

struct entry {
	char id[ADV_ID_MAX];
	struct timespec mtime;
};

static int cmp_newest(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec > y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec > y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->id, y->id);
}

struct journal_list {
	struct entry *v;
	size_t n, cap;
};

/* A journal: ID.SUFFIX, a regular file (a link is not ours). */
static int add_journal(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct journal_list *l = ctx;
	size_t len = strlen(name), sl = strlen(JOURNAL_SUFFIX);
	struct stat st;

	if (name[0] == '.' || len <= sl || len - sl >= ADV_ID_MAX ||
	    strcmp(name + len - sl, JOURNAL_SUFFIX) != 0)
		return 0;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct entry *nv = realloc(l->v, cap * sizeof(*l->v));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	memcpy(l->v[l->n].id, name, len - sl);
	l->v[l->n].id[len - sl] = '\0';
	l->v[l->n].mtime = st.st_mtim;
	l->n++;
	return 0;
}

int apply_list(int state_fd, char (*ret_ids)[ADV_ID_MAX], size_t max)
{
	struct journal_list l = { 0 };
	struct entry *v;
	size_t n;
	int fd, e;

	fd = openat(state_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = root_for_each_entry_fd(fd, add_journal, &l);
	if (e < 0) {
		free(l.v);
		return e;
	}
	v = l.v;
	n = l.n;
	if (n)
		qsort(v, n, sizeof(*v), cmp_newest);
	for (size_t i = 0; i < n && i < max; i++)
		memcpy(ret_ids[i], v[i].id, ADV_ID_MAX);
	free(v);
	return (int)(n < max ? n : max);
}

/* Whether s writes exactly expect[0..n), in order. */
static bool writes_match(const struct suggestion *s, const struct advise_action *expect, size_t n)
{
	if (s->nactions != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s->actions[i].path, expect[i].path) != 0 ||
		    strcmp(s->actions[i].value, expect[i].value) != 0)
			return false;
	return true;
}

/* root_open() of root_dir ("/" when NULL), its failure said in res. */
static int root_open_said(const char *root_dir, struct root *r, struct apply_result *res)
{
	int e = root_open(root_dir, r);

	if (e < 0)
		snprintf(res->message, sizeof(res->message), "%s: %s", root_dir ? root_dir : "/",
			 strerror(-e));
	return e;
}

/* apply_state_open(), its failure said in res. */
static int state_open_said(const struct root *r, const char *state_dir, struct apply_result *res)
{
	char why[600];
	int fd = apply_state_open(r, state_dir, why, sizeof(why));

	if (fd < 0)
		snprintf(res->message, sizeof(res->message), "undo journal directory: %s", why);
	return fd;
}

/* s applied under r, its undo journal in state_dir; failures said in res. */
static int apply_journaled(struct root *r, const char *state_dir, const struct suggestion *s,
			   struct apply_result *res)
{
	int e, fd = state_open_said(r, state_dir, res);

	if (fd < 0)
		return fd;
	e = apply_suggestion(r, fd, s, res);
	close(fd);
	return e;
}

/* -ESTALE, said in res: s's writes are not those the caller was shown. */
static int said_changed(const struct suggestion *s, struct apply_result *res)
{
	struct strbuf now = { 0 };

	if (s->nactions)
		advise_command(&s->actions[0], false, &now);
	snprintf(res->message, sizeof(res->message),
		 "%s changed since it was shown (now %zu writes, the first: %s); nothing "
		 "written: look at it again",
		 s->id, s->nactions, now.err || !now.len ? "?" : sb_cstr(&now));
	sb_free(&now);
	return -ESTALE;
}

/* A person's words for what changed at path since the advice read was:
 * "IRQ 24's affinity", "/sys/block/sda/queue/nr_requests". */
static void changed_text(const char *path, char *buf, size_t size)
{
	unsigned irq;

	if (is_irq_path(path, &irq))
		snprintf(buf, size, "IRQ %u's affinity", irq);
	else
		target_text(path, buf, size);
}

/* 0 when every action's file holds the value the advice read (an action
 * without one is not checked), else -ESTALE or the read's -errno, res
 * saying which file and what it holds now. */
static int still_as_read(const struct root *r, const struct suggestion *s, struct apply_result *res)
{
	char now[TOPO_LIST_MAX], what[TOPO_LIST_MAX + 160];
	int e;

	for (size_t i = 0; i < s->nactions; i++) {
		const struct advise_action *a = &s->actions[i];

		if (!a->undo[0] || !apply_path_allowed(a->path))
			continue; /* refused by apply_suggestion() with its reason */
		e = read_value(r, a->path, now, sizeof(now));
		if (e < 0) {
			target_text(a->path, what, sizeof(what));
			snprintf(res->message, sizeof(res->message),
				 "%s: cannot read %s to check it against the suggestion: %s; "
				 "nothing written",
				 s->id, what, strerror(-e));
			return e;
		}
		if (!same_value(a->path, a->undo, now)) {
			changed_text(a->path, what, sizeof(what));
			snprintf(res->message, sizeof(res->message),
				 "%s: %s changed since the suggestion (now %.64s, it read %.64s); "
				 "nothing written: look at it again (iotriage suggest)",
				 s->id, what, now, a->undo);
			return -ESTALE;
		}
	}
	return 0;
}

int apply_shown(const char *root_dir, const char *state_dir, const struct suggestion *s,
		const struct advise_action *expect, size_t nexpect, struct apply_result *ret)
{
	struct apply_result res = { 0 };
	struct root r;
	int e;

	if (expect && !writes_match(s, expect, nexpect)) {
		e = said_changed(s, &res);
		*ret = res;
		return e;
	}
	e = root_open_said(root_dir, &r, &res);
	if (e < 0) {
		*ret = res;
		return e;
	}
	e = still_as_read(&r, s, &res);
	if (e >= 0)
		e = apply_journaled(&r, state_dir, s, &res);
	root_close(&r);
	*ret = res;
	return e;
}

int apply_undo_by_id(const char *root_dir, const char *state_dir, const char *id,
		     struct apply_result *ret)
{
	struct apply_result res = { 0 }, one;
	char(*ids)[ADV_ID_MAX] = NULL;
	struct root r;
	int e, fd, n;

	e = root_open_said(root_dir, &r, &res);
	if (e < 0) {
		*ret = res;
		return e;
	}
	fd = state_open_said(&r, state_dir, &res);
	if (fd < 0) {
		e = fd;
		goto out;
	}
	if (id) {
		e = apply_undo(&r, fd, id, &res);
		goto out;
	}
	ids = calloc(64, sizeof(*ids));
	if (!ids) {
		e = -ENOMEM;
		goto out;
	}
	n = apply_list(fd, ids, 64);
	e = n < 0 ? n : 0;
	snprintf(res.message, sizeof(res.message), n > 0 ? "" : "nothing to undo");
	for (int i = 0; i < n; i++) {
		int ue = apply_undo(&r, fd, ids[i], &one);
		size_t len = strlen(res.message);

		if (len + 3 < sizeof(res.message)) {
			if (len) {
				memcpy(res.message + len, "; ", 3);
				len += 2;
			}
			str_copy(res.message + len, sizeof(res.message) - len, one.message);
		}
		res.written += one.written;
		if (ue < 0 && e == 0)
			e = ue;
	}
out:
	free(ids);
	if (fd >= 0)
		close(fd);
	root_close(&r);
	*ret = res;
	return e;
}
