// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The listening socket and its directory's policy: every directory from /
 * walked with O_PATH|O_NOFOLLOW and checked (owner, mode, sticky), the
 * stale-socket check, bind() by name in the checked directory under umask
 * 0117, the group set through the socket's own O_PATH descriptor, and the
 * removal at exit through the held directory descriptor after a (dev, ino)
 * check. Nothing names the socket's path twice (doc/daemon.md, Socket).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "daemon.h"
#include "encode.h"
#include "grow.h"
#include "encode_turbo.h"
#include "text.h"
#include "server.h"

/*
 * The socket is made without naming a path twice (issue 12). Whoever can
 * write a directory on the socket's path can put something else there
 * between two system calls that name it: the daemon used to bind(), then
 * chown() and chmod() the path, and a member of --group allowed to write
 * the directory could swap in a symlink and have any file of the host
 * (/etc/shadow) given to its group, mode 0660. Now:
 *
 *  - socket_dir_open() walks the path from "/" one component at a time
 *    with openat(O_PATH | O_NOFOLLOW | O_DIRECTORY) and checks each
 *    directory on the descriptor it will use: owned by root or the
 *    daemon's user, and writable by nobody else unless sticky; the
 *    socket's own directory not even sticky-writable by a group. A symlink
 *    is followed only when root or the daemon's user owns it. Clients
 *    reach the socket by the same path, so whoever controls a component
 *    controls where root's "apply" goes: nobody else may.
 *  - The stale-socket check, its removal and bind() name the socket
 *    relative to that descriptor (fchdir), not by its path.
 *  - The socket is born 0660 (umask 0117 around bind()); its group is set
 *    on a descriptor of the inode bind() made (openat O_PATH | O_NOFOLLOW
 *    in that directory, checked to be a socket of ours, then fchownat
 *    AT_EMPTY_PATH), before listen(), so nobody connects before the group
 *    is right. Nobody else can write the directory (or, sticky, remove our
 *    entry), so the name still holds what bind() made.
 *
 * fchown() or fchmod() on the socket's own descriptor would not do: on
 * Linux they change the socket, not the inode bind() creates.
 */

/* 1: something answers on name (relative to the current directory, a live
 * daemon), 0: nobody (stale), -errno. */
static int socket_answers(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	/* non-blocking: a wedged daemon with a full backlog must not hang us */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	memcpy(sa.sun_path, name, strlen(name) + 1);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (r == 0)
		r = 1;
	else if (errno == ECONNREFUSED)
		r = 0;
	else if (errno == EAGAIN)
		r = 1; /* its backlog is full: alive, just busy */
	else
		r = -errno;
	close(fd);
	return r;
}

/* "uid 65534 (nobody)" or "group 50 (staff)" (kind, id, name), or the
 * number alone for an id without a name (NULL). */
static const char *id_name(const char *kind, unsigned id, const char *name, char *buf, size_t size)
{
	if (name)
		snprintf(buf, size, "%s %u (%s)", kind, id, name);
	else
		snprintf(buf, size, "%s %u", kind, id);
	return buf;
}

static const char *uid_name(uid_t uid, char *buf, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	return id_name("uid", (unsigned)uid, pw ? pw->pw_name : NULL, buf, size);
}

static const char *gid_name(gid_t gid, char *buf, size_t size)
{
	struct group *gr = getgrgid(gid);

	return id_name("group", (unsigned)gid, gr ? gr->gr_name : NULL, buf, size);
}

/* The group the socket is given to: --group, else "iotriage"; NULL (errno
 * set when the lookup failed) when there is no such group. */
static struct group *socket_group(const struct daemon *d)
{
	return getgrnam(d->args.group ? d->args.group : "iotriage");
}

/* What an administrator types to make dir fit; a user's daemon cannot chown.
 * last: dir is the socket's own directory, else one on the way to it. */
static const char *dir_fix(const struct daemon *d, const char *dir, bool last, char *buf,
			   size_t size)
{
	struct group *gr = socket_group(d);
	const char *group = gr ? gr->gr_name : NULL;

	if (geteuid() != 0)
		snprintf(buf, size,
			 "use a directory only uid %u can write (mkdir -m 0700), such as "
			 "$XDG_RUNTIME_DIR, under directories of root or yours",
			 (unsigned)geteuid());
	else if (last)
		snprintf(buf, size,
			 "fix it with chown root:%s %s && chmod %s %s, or let systemd's "
			 "RuntimeDirectory= create it",
			 group ? group : "root", dir, group ? "0750" : "0700", dir);
	else
		snprintf(buf, size,
			 "every directory above the socket must belong to root and be writable "
			 "by nobody else (or be sticky, as /tmp): fix it with chown root %s && "
			 "chmod go-w %s, or choose another --socket",
			 dir, dir);
	return buf;
}

static bool uid_trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/*
 * Checks the directory open as fd, shown as dir: refuses (-EPERM, logged)
 * one owned by another user, or writable by group or others without the
 * sticky bit; for the socket's own directory (last) also one that a group
 * may write even with it (its members could plant a socket before us).
 * Warns about a sticky one that everyone may write (/tmp).
 */
static int check_dir(const struct daemon *d, const char *path, int fd, const char *dir, bool last)
{
	char fix[400], who[80], owner[80];
	struct stat st;
	unsigned mode;
	bool by_all, by_group;

	if (fstat(fd, &st) < 0) {
		int r = -errno;

		daemon_log(LOG_ERR, "%s: directory %s: %s", path, dir, strerror(-r));
		return r;
	}
	mode = (unsigned)(st.st_mode & 07777);
	uid_name(st.st_uid, owner, sizeof(owner));
	if (!uid_trusted(st.st_uid)) {
		char self[40] = "root, the daemon's user";

		if (geteuid() != 0)
			snprintf(self, sizeof(self), "root or uid %u, the daemon's",
				 (unsigned)geteuid());
		daemon_log(LOG_ERR,
			   "%s: directory %s (mode %04o) belongs to %s, not to %s: its owner could "
			   "replace the socket; %s",
			   path, dir, mode, owner, self, dir_fix(d, dir, last, fix, sizeof(fix)));
		return -EPERM;
	}
	by_all = st.st_mode & S_IWOTH;
	by_group = st.st_mode & S_IWGRP;
	if (!by_all && !by_group)
		return 0;
	if (by_all)
		snprintf(who, sizeof(who), "everyone");
	else
		gid_name(st.st_gid, who, sizeof(who));
	if (!(st.st_mode & S_ISVTX) || (last && !by_all)) {
		daemon_log(LOG_ERR,
			   "%s: directory %s is writable by %s (owner %s, mode %04o%s): %s could "
			   "replace the socket; %s",
			   path, dir, who, owner, mode,
			   st.st_mode & S_ISVTX ? ", sticky" : ", no sticky bit",
			   by_all ? "anybody" : "its members",
			   dir_fix(d, dir, last, fix, sizeof(fix)));
		return -EPERM;
	}
	if (last)
		daemon_log(LOG_WARNING,
			   "%s: directory %s is writable by everyone (sticky): a socket another "
			   "user put there first cannot be replaced; prefer a private directory",
			   path, dir);
	return 0;
}

#define WALK_MAX_DEPTH 64 /* directories from "/" to the socket's */
#define WALK_MAX_LINKS 40 /* symlinks followed, as the kernel's MAXSYMLINKS */

/* socket_dir_open()'s walk: the directories open so far, from "/". */
struct walk {
	const struct daemon *d;
	const char *path;    /* the socket's, for messages */
	const char *dir;     /* the directory asked for */
	char rest[PATH_MAX]; /* what is left to walk, from p */
	const char *p;
	char shown[PATH_MAX]; /* the directories walked, for messages */
	int stack[WALK_MAX_DEPTH];
	size_t depth, shown_len[WALK_MAX_DEPTH], checked;
	unsigned links;
};

/* Logs "PATH: WHAT SHOWN/NAME: ERROR"; returns r. */
static int walk_fail(const struct walk *w, const char *what, const char *name, int r)
{
	daemon_log(LOG_ERR, "%s: %s %s%s%s: %s", w->path, what, w->shown, w->depth > 1 ? "/" : "",
		   name, strerror(-r));
	return r;
}

/* Logs "PATH: directory DIR: ERROR"; returns r. */
static int walk_fail_dir(const struct walk *w, int r)
{
	daemon_log(LOG_ERR, "%s: directory %s: %s", w->path, w->dir, strerror(-r));
	return r;
}

/* Back to the directory at depth (>= 1): the ones above are closed. */
static void walk_pop(struct walk *w, size_t depth)
{
	while (w->depth > depth)
		close(w->stack[--w->depth]);
	w->checked = w->checked < w->depth ? w->checked : w->depth;
}

/* name is a symlink (st) in the current directory: its target is walked
 * instead, from "/" if absolute. 0, or -errno (logged). */
static int walk_symlink(struct walk *w, const char *name, const struct stat *st)
{
	char target[PATH_MAX], tmp[PATH_MAX], who[80];
	ssize_t n;
	int r;

	if (!uid_trusted(st->st_uid)) {
		daemon_log(LOG_ERR,
			   "%s: %s%s%s is a symlink of %s: its owner chose where the socket goes; "
			   "give --socket a path without it",
			   w->path, w->shown, w->depth > 1 ? "/" : "", name,
			   uid_name(st->st_uid, who, sizeof(who)));
		return -EPERM;
	}
	n = readlinkat(w->stack[w->depth - 1], name, target, sizeof(target));
	if (n < 0 || (size_t)n >= sizeof(target) || ++w->links > WALK_MAX_LINKS) {
		r = n < 0 ? -errno : w->links > WALK_MAX_LINKS ? -ELOOP : -ENAMETOOLONG;
		return walk_fail(w, "symlink", name, r);
	}
	target[n] = '\0';
	if (snprintf(tmp, sizeof(tmp), "%s%s", target, w->p) >= (int)sizeof(tmp))
		return walk_fail_dir(w, -ENAMETOOLONG);
	/* rest is rewritten: p pointed into it */
	memcpy(w->rest, tmp, strlen(tmp) + 1);
	w->p = w->rest;
	if (target[0] == '/') {
		walk_pop(w, 1);
		w->shown[1] = '\0';
	}
	return 0;
}

/* One name below the current directory: checks that directory (once),
 * then follows a symlink or opens a directory. 0, or -errno (logged). */
static int walk_step(struct walk *w, const char *name)
{
	struct stat st;
	size_t len;
	int fd, r;

	/* a directory is checked as an ancestor once a name is looked
	 * up in it; the last one, at the end, as the socket's */
	if (w->checked < w->depth) {
		r = check_dir(w->d, w->path, w->stack[w->depth - 1], w->shown, false);
		if (r < 0)
			return r;
		w->checked = w->depth;
	}
	if (fstatat(w->stack[w->depth - 1], name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return walk_fail(w, "directory", name, -errno);
	if (S_ISLNK(st.st_mode))
		return walk_symlink(w, name, &st);
	if (w->depth == WALK_MAX_DEPTH)
		return walk_fail_dir(w, -ENAMETOOLONG);
	fd = openat(w->stack[w->depth - 1], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return walk_fail(w, "directory", name, -errno);
	len = strlen(w->shown);
	w->shown_len[w->depth] = len;
	snprintf(w->shown + len, sizeof(w->shown) - len, "%s%s", w->depth > 1 ? "/" : "", name);
	w->stack[w->depth++] = fd;
	return 0;
}

/*
 * Opens the socket's directory dir (absolute) as an O_PATH descriptor,
 * walking from "/" and checking every directory on the way (check_dir)
 * and every symlink followed. Returns the descriptor or -errno (logged).
 * The kernel's own walk is never used: each step opens one name relative
 * to an already checked descriptor, without following a symlink.
 */
static int socket_dir_open(const struct daemon *d, const char *path, const char *dir)
{
	struct walk w = { .d = d, .path = path, .dir = dir };
	char name[NAME_MAX + 1];
	int fd, r = 0;

	if (snprintf(w.rest, sizeof(w.rest), "%s", dir) >= (int)sizeof(w.rest))
		return -ENAMETOOLONG;
	w.stack[0] = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w.stack[0] < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: directory /: %s", path, strerror(-r));
		return r;
	}
	w.depth = 1;
	snprintf(w.shown, sizeof(w.shown), "/");
	w.p = w.rest;
	for (;;) {
		const char *end;
		size_t len;

		while (*w.p == '/')
			w.p++;
		if (!*w.p)
			break;
		end = strchrnul(w.p, '/');
		len = (size_t)(end - w.p);
		if (len > NAME_MAX) {
			r = walk_fail_dir(&w, -ENAMETOOLONG);
			break;
		}
		memcpy(name, w.p, len);
		name[len] = '\0';
		w.p = end;
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			/* each entry was opened from the one below it: its parent */
			if (w.depth > 1) {
				walk_pop(&w, w.depth - 1);
				w.shown[w.shown_len[w.depth] > 1 ? w.shown_len[w.depth] : 1] = '\0';
			}
			continue;
		}
		r = walk_step(&w, name);
		if (r < 0)
			break;
	}
	/* the socket's own directory, also when it is "/" or came after ".." */
	if (r >= 0)
		r = check_dir(d, path, w.stack[w.depth - 1], w.shown, true);
	fd = w.stack[w.depth - 1];
	for (size_t i = 0; i + 1 < w.depth; i++)
		close(w.stack[i]);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/* With the current directory at the socket's: a stale socket at name is
 * removed; anything else there is an error (logged). */
static int prepare_name(struct daemon *d, int dfd, const char *name)
{
	const char *path = d->socket_path;
	struct stat st;
	int r;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		r = -errno;
		daemon_log(LOG_ERR, "%s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISSOCK(st.st_mode)) {
		daemon_log(LOG_ERR, "%s: exists and is not a socket; not replacing it", path);
		return -EEXIST;
	}
	r = socket_answers(name);
	if (r < 0) {
		daemon_log(LOG_ERR, "%s: cannot tell whether a daemon is listening: %s", path,
			   strerror(-r));
		return r;
	}
	if (r > 0) {
		daemon_log(LOG_ERR, "%s: another iotriaged is running (it answers on this socket)",
			   path);
		return -EADDRINUSE;
	}
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: stale socket cannot be removed: %s", path, strerror(-r));
		return r;
	}
	daemon_log(LOG_NOTICE, "%s: replaced a stale socket (nobody answered on it)", path);
	return 0;
}

/*
 * Creates the socket as name in the directory open as dfd: the stale check,
 * bind() and the group, all relative to dfd. Returns the listening fd, not
 * yet listening, or -errno (logged).
 */
static int bind_in(struct daemon *d, int dfd, const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = d->socket_path;
	int cwd, fd = -1, r;
	mode_t old;

	/* a relative sun_path is resolved from the current directory: make it
	 * the checked one for the stale check and bind(), then go back */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fchdir(dfd) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: cannot enter its directory: %s", path, strerror(-r));
		goto out;
	}
	r = prepare_name(d, dfd, name);
	if (r < 0)
		goto out;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "socket: %s", strerror(-r));
		goto out;
	}
	memcpy(sa.sun_path, name, strlen(name) + 1);
	/* born 0660: no window in which others could connect */
	old = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: bind: %s", path, strerror(-r));
		goto out;
	}
	r = 0;
out:
	/* back where we were (a relative --root is opened again by apply) */
	if ((cwd >= 0 ? fchdir(cwd) : chdir("/")) < 0 && r >= 0) {
		r = -errno;
		daemon_log(LOG_ERR, "cannot return to the working directory: %s", strerror(-r));
	}
	if (cwd >= 0)
		close(cwd);
	if (r < 0) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

/*
 * Gives the socket bind() just made to the socket's group, through a
 * descriptor of its inode, and records its (st_dev, st_ino). Nobody else
 * may write the directory (socket_dir_open), so name is still our socket;
 * it is checked to be one, owned by us, all the same.
 */
static int set_group(struct daemon *d, int dfd, const char *name)
{
	const char *gname = d->args.group ? d->args.group : "iotriage";
	struct group *gr;
	struct stat st;
	int fd, r = 0;

	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: cannot open the socket just made: %s", d->socket_path,
			   strerror(-r));
		goto out;
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
		daemon_log(LOG_ERR, "%s: is no longer the socket just made; not touching it",
			   d->socket_path);
		r = -EPERM;
		goto out;
	}
	d->socket_dev = st.st_dev;
	d->socket_ino = st.st_ino;
	d->socket_made = true;
	errno = 0;
	gr = socket_group(d);
	if (!gr) {
		if (!d->args.group)
			goto out; /* the default group is optional */
		r = errno ? -errno : -ENOENT;
		daemon_log(LOG_ERR, "--group %s: %s", gname,
			   errno ? strerror(errno) : "no such group");
		goto out;
	}
	if (st.st_gid != gr->gr_gid && fchownat(fd, "", (uid_t)-1, gr->gr_gid, AT_EMPTY_PATH) < 0) {
		r = -errno;
		daemon_log(d->args.group ? LOG_ERR : LOG_WARNING,
			   "%s: cannot give it to group %s: %s", d->socket_path, gname,
			   strerror(-r));
		if (!d->args.group)
			r = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int server_listen(struct daemon *d)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &d->listen };
	char dir[PATH_MAX], cwd[PATH_MAX];
	size_t plen = strlen(d->socket_path);
	const char *slash, *name;
	int dfd, fd, r;

	d->comma = blob_new(",", 1);
	d->list_end = blob_new("]", 1);
	if (!d->comma || !d->list_end) {
		daemon_log(LOG_ERR, "startup: out of memory");
		return -ENOMEM;
	}
	if (plen == 0 || plen >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		daemon_log(LOG_ERR, "--socket %s: a socket path is 1 to %zu bytes", d->socket_path,
			   sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return -ENAMETOOLONG;
	}
	if (!d->args.socket_path && strcmp(d->socket_path, IOT_PROTO_SYSTEM_SOCKET) == 0) {
		if (mkdir(IOT_PROTO_SYSTEM_DIR, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			daemon_log(LOG_ERR, "%s: %s", IOT_PROTO_SYSTEM_DIR, strerror(-r));
			return r;
		}
	}
	slash = strrchr(d->socket_path, '/');
	name = slash ? slash + 1 : d->socket_path;
	if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		daemon_log(LOG_ERR, "--socket %s: names a directory, not a socket", d->socket_path);
		return -EISDIR;
	}
	/* the directory, absolute: its every ancestor is checked */
	if (d->socket_path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: working directory: %s", d->socket_path, strerror(-r));
		return r;
	}
	dir[0] = '\0';
	if (d->socket_path[0] != '/' && strlen(cwd) + plen + 2 > sizeof(dir)) {
		daemon_log(LOG_ERR, "%s: working directory: %s", d->socket_path,
			   strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	if (d->socket_path[0] != '/') {
		strcat(dir, cwd);
		strcat(dir, "/");
	}
	if (slash)
		strncat(dir, d->socket_path, (size_t)(slash - d->socket_path));
	if (!dir[0])
		strcat(dir, "/");
	dfd = socket_dir_open(d, d->socket_path, dir);
	if (dfd < 0)
		return dfd;
	d->socket_dirfd = dfd;
	memcpy(d->socket_name, name, strlen(name) + 1);
	fd = bind_in(d, dfd, name);
	if (fd < 0)
		return fd;
	d->listen.kind = WATCH_LISTEN;
	d->listen.fd = fd;
	r = set_group(d, dfd, name);
	/* only now may anybody connect: the socket has its group */
	if (r >= 0 && listen(fd, 128) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "%s: listen: %s", d->socket_path, strerror(-r));
	}
	if (r >= 0 && epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		r = -errno;
		daemon_log(LOG_ERR, "epoll_ctl: %s", strerror(-r));
	}
	return r;
}

void server_shutdown(struct daemon *d)
{
	struct stat st;

	for (struct client *c = d->clients; c; c = c->next)
		c->dead = true;
	server_reap(d);
	if (d->listen.fd >= 0) {
		close(d->listen.fd);
		d->listen.fd = -1;
	}
	if (d->socket_dirfd >= 0) {
		/* only our own socket: a newer daemon may have taken the name */
		if (d->socket_made &&
		    fstatat(d->socket_dirfd, d->socket_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_ino == d->socket_ino && st.st_dev == d->socket_dev)
			unlinkat(d->socket_dirfd, d->socket_name, 0);
		close(d->socket_dirfd);
		d->socket_dirfd = -1;
	}
	blob_unref(d->comma);
	blob_unref(d->list_end);
	d->comma = d->list_end = NULL;
}
