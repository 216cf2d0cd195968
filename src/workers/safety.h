/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether the bench may touch a target, decided before anything is opened
 * for writing. Mounted or swap devices (partitions and holders included) are
 * never written; devices with holders, partitions or a signature only when
 * --allow-destroy names the same device; existing non-empty files only with
 * --overwrite. A loop device counts as a holder of what it is over, and
 * writing a loop writes what it is over: that device (or the other loops on
 * the same image file whose ranges overlap) is judged with it. Reads /proc
 * and /sys through a root so the rules are tested on recorded trees; never
 * prints, never writes (safety_claim opens devices read-only, for the
 * kernel's exclusive claim alone).
 */
#ifndef IOTRIAGE_WORKERS_SAFETY_H
#define IOTRIAGE_WORKERS_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "root.h"

#define SAFETY_FAMILY_MAX 64
#define SAFETY_WHY_MAX	  512

/* One block device related to the target: itself, a partition, a holder. */
struct safety_dev {
	char name[64]; /* kernel name: "sda1", "dm-0" */
	char dm_name[64];
	uint32_t major, minor;
	/* BACKING: a device a loop member writes into (what the loop is over) */
	enum { SAFETY_SELF, SAFETY_PARTITION, SAFETY_HOLDER, SAFETY_BACKING } role;
};

struct safety_family {
	struct safety_dev dev[SAFETY_FAMILY_MAX]; /* dev[0] is the target */
	unsigned n;
	unsigned npartitions;
	unsigned nholders;
	unsigned nbacking;
};

/* A bound loop device and what it writes into. */
struct safety_loop {
	char name[64];
	uint32_t major, minor;
	bool known;    /* the backing's identity is known (not a deleted file seen in sysfs) */
	bool blockdev; /* over a block device back_major:back_minor; else over a file */
	uint32_t back_major, back_minor;
	uint64_t back_dev, back_ino; /* the backing file's st_dev and st_ino */
	char back_path[256];	     /* sysfs backing_file, for messages and when !known */
	uint64_t offset, sizelimit;  /* bytes into the backing; sizelimit 0: to its end */
};

struct safety_loops {
	struct safety_loop *l;
	unsigned n;
};

/*
 * Every bound loop device of ROOT/sys/class/block: the backing's identity
 * from LOOP_GET_STATUS64 on ROOT/dev/NAME (lo_device, lo_inode, lo_rdevice:
 * a hard link or a renamed file is the same inode), else from
 * loop/backing_file stat()ed under the root; the range from lo_offset and
 * lo_sizelimit (loop/offset, loop/sizelimit). 0 or -errno.
 */
int safety_loops_load(const struct root *r, struct safety_loops *ret_loops);
void safety_loops_free(struct safety_loops *l);

/* Whether two loops over the same backing share bytes. */
bool safety_loop_overlap(const struct safety_loop *a, const struct safety_loop *b);

/*
 * Loads kname's family from ROOT/sys/class/block: its partitions, and the
 * holders (dm, md, LVM, and loop devices over it) of it and of its
 * partitions, transitively. When a member it writes into (itself, or a
 * backing) is a loop device: what the loop is over joins as a BACKING
 * member with its own partitions and holders, and the other loops over the
 * same file whose ranges overlap join as holders. 0, or -ENOENT when kname
 * is not a block device there, -E2BIG past SAFETY_FAMILY_MAX members,
 * other -errno.
 */
int safety_family_load(const struct root *r, const char *kname, struct safety_family *ret_family);

/*
 * Pure checks over the bytes of /proc/self/mountinfo and /proc/swaps: 1 when
 * a member of f is mounted (or swap), with why saying which and where; 0 when
 * none is; -EBADMSG for a malformed line. Matching is by major:minor, and by
 * the /dev/NAME or /dev/mapper/DMNAME a source names.
 */
int safety_mountinfo_find(const char *buf, size_t len, const struct safety_family *f, char *why,
			  size_t why_size);
int safety_swaps_find(const char *buf, size_t len, const struct safety_family *f, char *why,
		      size_t why_size);

/*
 * The block-device rules on a loaded family: mounted or swap (read from
 * ROOT/proc) is -EBUSY whatever was allowed; for a write, holders,
 * partitions or a non-empty signature (libblkid's TYPE or PTTYPE, "" for
 * none) are -EPERM unless allow_destroy. 0 when allowed. why says why.
 */
int safety_check_family(const struct root *r, const struct safety_family *f, bool write,
			bool allow_destroy, const char *signature, char *why, size_t why_size);

/* libblkid: 1 and the signature ("ext4", "gpt", "LVM2_member") in ret_type, 0 none, -errno. */
int safety_probe_signature(const char *devpath, char *ret_type, size_t size);

/*
 * Whether a new file may be made in the directory dir (its fstat) for a
 * caller running as euid: the directory must be owned by euid or root, and
 * nobody else may write to it unless it is sticky (/tmp, /dev/shm), where
 * others can neither rename nor remove a file they do not own. Otherwise
 * another user could swap the file or the name during the run. 0, or
 * -EPERM with why naming dirpath.
 */
int safety_dir_check(const struct stat *dir, unsigned euid, const char *dirpath, char *why,
		     size_t why_size);

struct safety_request {
	const char *target;	   /* as the user gave it */
	bool write;		   /* the job (or its precondition) writes */
	const char *allow_destroy; /* NULL, or the device the user named */
	bool overwrite;
};

struct safety_verdict {
	char path[4096]; /* resolved; for a file to create, as given */
	bool blockdev;
	bool create; /* regular file that does not exist yet: create it O_EXCL */
	uint64_t size_bytes;
	char kname[64];
	char signature[64];
	/* what was checked, for target_open to find again: st_rdev of a block
	 * device, st_dev and st_ino of an existing file */
	uint64_t rdev, dev, ino;
};

/*
 * The whole decision for the live host (r normally "/"). A file to create
 * must not exist and its directory must pass safety_dir_check. Returns 0 with
 * *ret filled when allowed; -EBUSY (mounted, swap, backing a loop device),
 * -EPERM (needs --allow-destroy or --overwrite), -ENOENT, -EINVAL (not a
 * file or block device) or another -errno, with why set.
 */
int safety_check(const struct root *r, const struct safety_request *req, struct safety_verdict *ret,
		 char *why, size_t why_size);

/* The claims safety_claim holds: read-only O_EXCL descriptors. */
struct safety_claims {
	int fd[SAFETY_FAMILY_MAX];
	unsigned n;
};

/*
 * For a write to the block device v allowed by safety_check(req), once the
 * caller holds the device itself open O_EXCL: claims every device the
 * write lands in or that shows its bytes (the backings of a loop target,
 * loops and other holders over it or them) the same way, through
 * ROOT/dev/NAME checked to be that major:minor, so that none can be
 * mounted, or taken by md/dm, until safety_claims_release. Then checks the
 * whole request again under the claims: a mount, a partition table, a
 * loop rebound or set up between the first check and the claims is seen
 * now, and a device that joined the family since must have been claimed.
 * 0 with *ret filled; -EBUSY (mounted, or held: why names the mount when
 * there is one), -ESTALE (changed since the check), or safety_check's
 * errors, with why set.
 */
int safety_claim(const struct root *r, const struct safety_request *req,
		 const struct safety_verdict *v, struct safety_claims *ret, char *why,
		 size_t why_size);

/* Closes the claims (accepts an empty or released set). */
void safety_claims_release(struct safety_claims *c);

#endif
