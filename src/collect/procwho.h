/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who a process is: its real uid and login name, its command line and its
 * cgroup (the unit), read from world-readable /proc/PID/{status,cmdline,
 * cgroup} and the tree's /etc/passwd, once per process lifetime (pid +
 * starttime) and only for processes that moved. Parsers are pure over bytes.
 */
#ifndef IOTRIAGE_PROCWHO_H
#define IOTRIAGE_PROCWHO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "root.h"
#include "taskstats.h"

/* New processes whose files are read per scan: the rest wait for the next */
#define PROCWHO_READS_MAX 128

/*
 * /proc/PID/cmdline bytes into out (size >= 8): NULs as spaces, trailing
 * NULs dropped, bytes outside printable ASCII and '\' as \xHH, cut to
 * size - 1 bytes at a character (never inside an escape). Returns the
 * length written; 0 for an empty command line (a kernel thread, a zombie).
 */
size_t procwho_cmdline(const char *buf, size_t len, char *out, size_t size);

/*
 * /proc/PID/cgroup: the path of the cgroup v2 line ("0::"), else of the v1
 * hierarchy carrying cpu, else blkio, else name=systemd, into out, escaped
 * as procwho_cmdline does: the unit's name when the path is exactly
 * "/system.slice/NAME" (a service or scope systemd started:
 * "postgresql@15-main.service"), else the whole path, with its leading '/'
 * ("/user.slice/user-1000.slice/user@1000.service/app.slice/x.service"), so
 * a user's delegated subtree never reads as a system service; a path longer
 * than out keeps its head and its tail with "..." between. 0, or -ENOENT
 * (no such line; out is "").
 */
int procwho_cgroup_unit(const char *buf, size_t len, char *out, size_t size);

/* The real uid of /proc/PID/status's "Uid:" line. 0 or -EBADMSG. */
int procwho_status_uid(const char *buf, size_t len, uint32_t *ret_uid);

/* The login name of uid in /etc/passwd text into out (escaped, cut);
 * 0, or -ENOENT with out the uid's digits. */
int procwho_passwd_name(const char *buf, size_t len, uint32_t uid, char *out, size_t size);

struct procwho_entry {
	int32_t pid;
	uint64_t start_ticks;
	uint32_t uid;
	char user[PROC_USER_MAX];
	char cmdline[PROC_CMDLINE_MAX];
	char unit[PROC_UNIT_MAX];
};

struct procwho_cache {
	struct procwho_entry *e, *next; /* ascending pid */
	size_t n, cap, next_cap;
	char *passwd; /* the tree's etc/passwd, NUL-terminated; NULL: not read */
	size_t passwd_len;
	struct timespec passwd_mtime;
	off_t passwd_size;
	bool passwd_checked; /* this scan */
	unsigned reads;	     /* processes whose files were read, this scan */
};

/*
 * After a scan of t (ascending pid, has_stat rows carry start_ticks):
 * every row of a process known to the cache gets its who; rows for which
 * moved(row) is true and that are not known are read (at most
 * PROCWHO_READS_MAX a scan) and kept. Entries of processes not in t go.
 * 0 or -ENOMEM.
 */
int procwho_fill(struct procwho_cache *c, const struct root *r, struct proc_table *t,
		 bool (*moved)(const struct proc_raw *p, void *ctx), void *ctx);
void procwho_cache_free(struct procwho_cache *c);

#endif
