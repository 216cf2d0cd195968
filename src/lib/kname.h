/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names the kernel gives devices and interfaces, read from /proc, /sys, a
 * recorded tree or a recording: the one rule that decides whether such a
 * name may become part of a path (a /sys file iotriage reads, a printed
 * command, a file apply writes). A name that fails it is still shown
 * (escaped, as all text is) but never put in a path or a command.
 */
#ifndef IOTRIAGE_KNAME_H
#define IOTRIAGE_KNAME_H

#include <stdbool.h>
#include <stddef.h>

enum kname_kind {
	/* a block device as /proc/diskstats shows it ("sda", "nvme0n1p2",
	 * "cciss/c0d0") or /sys/block lists it ("cciss!c0d0"): 1 to 31 bytes
	 * (DISK_NAME_LEN 32), printable ASCII, '/' (or sysfs's '!') only
	 * between parts, no part empty, "." or ".." */
	KNAME_DISK,
	/* a network interface (dev_valid_name()): 1 to 15 bytes (IFNAMSIZ
	 * 16), no '/', ':' or white space, not "." or "..", and here no
	 * control byte either; UTF-8 is taken */
	KNAME_IFACE,
};

#define KNAME_DISK_MAX	31
#define KNAME_IFACE_MAX 15

/* Whether name[0..n) is a name of that kind the kernel can produce. */
bool kname_valid(enum kname_kind kind, const char *name, size_t n);

/* kname_valid() of a NUL-terminated name. */
bool kname_ok(enum kname_kind kind, const char *name);

/*
 * The directory name of a valid name under /sys (/sys/block, /sys/class/net):
 * '/' becomes '!' as the kernel's sysfs does (cciss/c0d0 is
 * /sys/block/cciss!c0d0). 0, or -EINVAL for a name kname_ok() refuses,
 * -ENAMETOOLONG when buf (size bytes, NUL included) is too small; buf is
 * written only on success.
 */
int kname_sysfs(enum kname_kind kind, const char *name, char *buf, size_t size);

/*
 * Whether a block device's IO is another device's or memory's: loop (a file
 * on another disk), zram (compressed RAM) and ram (brd). Such a disk is
 * listed under the real ones on screen, never makes the process scan urgent,
 * and turns its own accounting off by design. /metrics leaves them out by
 * its own regex (OM_DEVICE_EXCLUDE_DEFAULT), which a user may change.
 */
bool kname_virtual_disk(const char *name);

#endif
