/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/uptime (uptime.c): "UPTIME IDLE" in centiseconds, as sysstat reads it.
 */
#ifndef IOTRIAGE_UPTIME_H
#define IOTRIAGE_UPTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "scan.h"

int uptime_parse(const char *buf, size_t len, struct uptime_raw *ret, struct parse_error *err);

#endif
