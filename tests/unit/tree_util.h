/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Temporary trees for the unit tests: a fresh directory under /tmp, files
 * put into it with their directories made on the way (mkdir -p), read back,
 * and the whole removed without following a link the test planted. Every
 * failure is the test's (a cmocka assert), so callers check nothing.
 */
#ifndef IOTRIAGE_TREE_UTIL_H
#define IOTRIAGE_TREE_UTIL_H

#include <stddef.h>

/* A new empty directory "/tmp/iotr-NAME-XXXXXX" into buf[size]. */
void tree_new(char *buf, size_t size, const char *name);

/* mkdir -p DIR/REL (0755): DIR's own directories too; any already there
 * (or a link to one) is fine. */
void tree_mkdirs(const char *dir, const char *rel);

/* DIR/REL holding len bytes of buf (created or truncated), its
 * directories made first as tree_mkdirs() makes them. */
void tree_put_bytes(const char *dir, const char *rel, const void *buf, size_t len);

/* tree_put_bytes() of a C string. */
void tree_put(const char *dir, const char *rel, const char *text);

/* The whole file at path into buf (NUL-terminated); it must fit in size - 1
 * bytes. Returns its length. */
size_t tree_slurp(const char *path, void *buf, size_t size);

/* A char major no driver holds here (/proc/devices), or 0 when none of the
 * local/experimental ones is free: its node's open fails with ENXIO, so
 * code that opened such a node where a file belongs would say so. */
unsigned tree_free_char_major(void);

/* rm -rf DIR: links are removed, never followed. */
void tree_remove(const char *dir);

#endif
