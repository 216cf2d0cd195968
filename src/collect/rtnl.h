/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtnetlink link dump (ip -s link): names, flags, queue counts and
 * rtnl_link_stats64 counters. Pure decoding plus the request.
 */
#ifndef IOTRIAGE_RTNL_H
#define IOTRIAGE_RTNL_H

#include <stddef.h>

#include "ethtool_nl.h"

/*
 * Decodes an RTM_GETLINK dump answer (RTM_NEWLINK messages up to
 * NLMSG_DONE) into t->rows (storage reused; loopback skipped). 0, the
 * kernel's -errno, or -EBADMSG with *what. -ENOMEM.
 */
int rtnl_links_parse(const void *buf, size_t len, struct nic_table *t, const char **what);

/* Where a recorded tree keeps the dump's answer (netlink_fetch's rel). */
#define RTNL_LINKS_REL "netlink/rtnl/links.bin"

/* The dump request, for netlink_fetch(); NULL when out of memory. */
struct nl_msg *rtnl_links_request(void);

#endif
