/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which cgroup path names a systemd unit an operator can act on: one rule
 * for the culprits (collect/procwho.c) and the victims
 * (metrics/metrics_cgroup.c). Pure over bytes.
 */
#ifndef IOTRIAGE_UNITNAME_H
#define IOTRIAGE_UNITNAME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * path[0..len) (with or without its leading '/') is a service or scope
 * directly in system.slice ("system.slice/NAME"), where only root can place
 * a process: *ret_name, *ret_len are NAME. False for anything else, a
 * user's delegated subtree ending in "system.slice/NAME" among them.
 */
bool unit_system_service(const char *path, size_t len, const char **ret_name, size_t *ret_len);

#endif
