/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether the bench may touch a target, decided before anything is opened
 * for writing. Mounted or swap devices (partitions and holders included) are
 * never written; devices with holders, partitions or a signature only when
 * --allow-destroy names the same device; existing non-empty files only with
 * --overwrite. Reads /proc and /sys through a root so the rules are tested
 * on recorded trees; never prints, never writes.
 */
#ifndef IOTRIAGE_WORKERS_SAFETY_H
#define IOTRIAGE_WORKERS_SAFETY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "root.h"

#define SAFETY_FAMILY_MAX 64
#define SAFETY_WHY_MAX	  512

/* One block device related to the target: itself, a partition, a holder. */
struct safety_dev {
	char name[64]; /* kernel name: "sda1", "dm-0" */
	char dm_name[64];
	uint32_t major, minor;
	enum { SAFETY_SELF, SAFETY_PARTITION, SAFETY_HOLDER } role;
};

struct safety_family {
	struct safety_dev dev[SAFETY_FAMILY_MAX]; /* dev[0] is the target */
	unsigned n;
	unsigned npartitions;
	unsigned nholders;
};

/*
 * Loads kname's family from ROOT/sys/class/block: its partitions, and the
 * holders (dm, md, LVM) of it and of its partitions, transitively. 0, or
 * -ENOENT when kname is not a block device there, -E2BIG past
 * SAFETY_FAMILY_MAX members, other -errno.
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
};

/*
 * The whole decision for the live host (r normally "/"). Returns 0 with
 * *ret filled when allowed; -EBUSY (mounted, swap, backing a loop device),
 * -EPERM (needs --allow-destroy or --overwrite), -ENOENT, -EINVAL (not a
 * file or block device) or another -errno, with why set.
 */
int safety_check(const struct root *r, const struct safety_request *req, struct safety_verdict *ret,
		 char *why, size_t why_size);

#endif
