/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply: carry out one suggestion's writes under the root, all or nothing,
 * with an undo journal written before the first write; and undo it later.
 * The only module of the core that writes to /proc and /sys, or changes a
 * NIC's channels (an action whose path is advise_ethtool_path()'s). It
 * never prints; results carry a message for the caller to show.
 */
#ifndef IOTRIAGE_APPLY_H
#define IOTRIAGE_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "advise.h"
#include "root.h"

#define APPLY_STATE_DIR	 "var/lib/iotriage" /* under the root */
#define APPLY_MAX_WRITES 256

struct apply_write {
	char path[128];		   /* root-relative, validated */
	char undo[TOPO_LIST_MAX];  /* value before apply */
	char value[TOPO_LIST_MAX]; /* value apply wrote */
};

/* An undo journal: what one `apply` changed. */
/* /proc/sys/kernel/random/boot_id: 36 characters */
#define APPLY_BOOT_ID_MAX 37

struct apply_journal {
	char id[ADV_ID_MAX];
	char boot[APPLY_BOOT_ID_MAX]; /* the boot it was applied in; "" unknown */
	struct apply_write writes[APPLY_MAX_WRITES];
	size_t n;
};

struct apply_result {
	size_t written;	     /* writes that took effect (and stayed) */
	unsigned pending;    /* IRQs whose effective affinity moves at their next interrupt */
	unsigned unverified; /* IRQs without effective_affinity_list */
	char message[768];   /* what failed and what it means, or a summary */
};

/*
 * Opens (creating it, mode 0700, and its missing parents 0755) the journal
 * directory: state_dir when given (a host path, walked from "/" or the
 * working directory), else APPLY_STATE_DIR under the root (walked from the
 * root). Undo replays what it finds there as root, so each step is opened
 * with O_NOFOLLOW (a symlink is -ELOOP, ".." -EINVAL), each directory on
 * the way must be owned by root or the caller and writable by no one else
 * unless sticky, and the journal directory itself owned by root or the
 * caller with mode 0700 (-EPERM). Returns an fd (O_DIRECTORY, O_CLOEXEC) or
 * -errno with why set: the directory at fault, what is wrong and the fix
 * ("chown root:root DIR && chmod 0700 DIR").
 */
int apply_state_open(const struct root *r, const char *state_dir, char *why, size_t why_size);

/*
 * Applies s: reads each file's current value (the undo value, even if it
 * changed since the advice), writes the journal <id>.undo, writes each value
 * and reads it back (a channel count: set and read back over the ethtool
 * family live, or in the recorded answer under any other root). IRQ writes are verified through smp_affinity_list and
 * effective_affinity_list (an effective affinity not yet inside the new set
 * is "pending": x86 moves an IRQ at its next interrupt). On any failure the
 * writes already done are rolled back in reverse and the journal removed.
 * Returns 0, -EEXIST (already applied: undo first), -EINVAL (a path outside
 * the allowed set), or the failed write's -errno; *ret always says what
 * happened.
 */
int apply_suggestion(const struct root *r, int state_fd, const struct suggestion *s,
		     struct apply_result *ret);

/* Restores the values journaled for id, in reverse order, then removes the
 * journal. The journal is opened O_NOFOLLOW under state_fd and must be a
 * regular file owned by root or the caller; every path in it must be one
 * apply_path_allowed() admits (else the whole journal is corrupt and nothing
 * is written). Returns 0, -ENOENT (nothing applied under that id),
 * -EBADMSG (a corrupt journal, left in place), -EPERM (not such a file,
 * left in place) or a write's -errno (journal kept). */
int apply_undo(const struct root *r, int state_fd, const char *id, struct apply_result *ret);

/* Ids with a journal, newest first; at most max. Returns the count or -errno. */
int apply_list(int state_fd, char (*ret_ids)[ADV_ID_MAX], size_t max);

/*
 * Applies s, a suggestion its caller has already judged and shown (the
 * daemon's published advice, the one its clients saw), without reading the
 * topology or advising again: only if each action's file still holds the
 * value the advice read there (its undo value), else -ESTALE, nothing
 * written, the message naming the first that changed ("IRQ 24's affinity
 * changed since the suggestion (now 0-3, it read 0-7)"). With expect
 * (nexpect writes: path, root-relative, and value), only if s writes
 * exactly those, in that order: what a person confirmed on a screen is
 * what is written, or nothing (-ESTALE, "changed since it was shown",
 * the message says what it is now). state_dir as in
 * apply_state_open(). *ret always says what happened.
 */
int apply_shown(const char *root_dir, const char *state_dir, const struct suggestion *s,
		const struct advise_action *expect, size_t nexpect, struct apply_result *ret);
/* Undoes id, or every journaled suggestion (newest first) when id is NULL. */
int apply_undo_by_id(const char *root_dir, const char *state_dir, const char *id,
		     struct apply_result *ret);

/* What a failed write's errno means for that file. */
const char *apply_errno_meaning(int err, bool is_irq);

/* Journal text <-> struct. parse returns 0 or -EBADMSG (bad header, field,
 * path outside the allowed set, too many writes). */
int apply_journal_parse(const char *buf, size_t len, struct apply_journal *ret);
/* True for the root-relative paths apply may write, whole paths of the
 * files advise suggests writing (proc/irq/N/smp_affinity_list,
 * sys/class/net/IF/queues/rx-N/{rps_cpus,rps_flow_cnt},
 * proc/sys/net/core/rps_sock_flow_entries,
 * sys/block/DEV/queue/{scheduler,nr_requests,read_ahead_kb,iostats}), and
 * for the pseudo path "netlink/ethtool/IF/channels/combined" (advise.h).
 * Anything else is false: sys/block/DEV/device/delete, "..", a leading '/'.
 * Written files are opened without following a symlink in a recorded tree,
 * and must be on procfs or sysfs on the live host. */
bool apply_path_allowed(const char *path);

#endif
