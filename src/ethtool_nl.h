/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What each NIC is set to: channels and interrupt coalescing through the
 * ethtool generic netlink family, link counters through rtnetlink (rtnl.c),
 * and the interrupt vectors of its PCI function (joined with
 * /proc/interrupts by metrics_proc.c). Collect and parse only.
 */
#ifndef IOTRIAGE_ETHTOOL_NL_H
#define IOTRIAGE_ETHTOOL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iotriage/types.h"
#include "netlink.h"
#include "root.h"

/*
 * `ethtool -l IFACE`: the advisor's `ethtool -L IFACE combined N` reads
 * combined / combined_max. A driver reports only the kinds it has; absent
 * kinds are 0 (as ethtool prints them).
 */
struct nic_channels {
	uint32_t rx, tx, other, combined;		  /* current */
	uint32_t rx_max, tx_max, other_max, combined_max; /* "Pre-set maximums" */
};

/* `ethtool -c IFACE`: only what the driver supports is present. */
struct nic_coalesce {
	bool has_rx_usecs, has_rx_frames, has_tx_usecs, has_tx_frames;
	bool has_adaptive_rx, has_adaptive_tx;
	uint32_t rx_usecs, rx_frames, tx_usecs, tx_frames;
	bool adaptive_rx, adaptive_tx;
};

/* struct rtnl_link_stats64's first counters (ip -s link). */
struct nic_link_stats {
	uint64_t rx_packets, tx_packets, rx_bytes, tx_bytes;
	uint64_t rx_errors, tx_errors, rx_dropped, tx_dropped;
};

#define NIC_IRQ_MAX 256 /* MSI-X vectors of one function we keep */

struct nic_raw {
	char ifname[IOT_NAME_MAX];
	uint32_t ifindex;
	bool up;			       /* IFF_UP */
	bool running;			       /* IFF_RUNNING: carrier */
	uint32_t num_rx_queues, num_tx_queues; /* IFLA_NUM_*_QUEUES, 0 unknown */
	bool has_stats;
	struct nic_link_stats stats;
	bool has_channels;
	struct nic_channels channels;
	struct src_status channels_status; /* "not supported by the driver" ... */
	bool has_coalesce;
	struct nic_coalesce coalesce;
	struct src_status coalesce_status;
	uint32_t irqs[NIC_IRQ_MAX]; /* msi_irqs of the PCI function, ascending */
	size_t nirqs;
};

struct nic_table {
	struct nic_raw *rows; /* in the kernel's ifindex order; loopback left out */
	size_t n, cap;
	struct src_status rtnl;	   /* link list and counters */
	struct src_status ethtool; /* the family itself (per-NIC refusals are per NIC) */
};

/*
 * Decode ETHTOOL_MSG_CHANNELS_GET_REPLY / ETHTOOL_MSG_COALESCE_GET_REPLY:
 * one generic netlink message or an NLMSG_ERROR. Pure over (4-aligned)
 * bytes. 0, the kernel's -errno (-EOPNOTSUPP: the driver has no such
 * operation), or -EBADMSG with *what. Unknown attributes are skipped.
 */
int ethtool_nl_channels_parse(const void *buf, size_t len, struct nic_channels *ret,
			      const char **what);
int ethtool_nl_coalesce_parse(const void *buf, size_t len, struct nic_coalesce *ret,
			      const char **what);

/* Requests: cmd is ETHTOOL_MSG_CHANNELS_GET or ETHTOOL_MSG_COALESCE_GET. NULL on ENOMEM. */
struct nl_msg *ethtool_nl_request(int family, uint8_t cmd, const char *ifname);

struct ethtool_nl_collector {
	bool live;
	bool opened;
	int genl_err, route_err;
	struct nlconn genl, route;
	struct nlreply reply;
	bool record; /* capture: also write every live answer under record_dfd */
	int record_dfd;
};

void ethtool_nl_collector_free(struct ethtool_nl_collector *ec);

/*
 * The link list with counters (rtnetlink dump), then channels, coalescing
 * and MSI vectors of each non-loopback link. Live on "/", from
 * netlink/rtnl/links.bin and netlink/ethtool/IFACE/{channels,coalesce}.bin
 * under any other root. Fills t and its statuses; returns 0 or -ENOMEM.
 */
int ethtool_nl_collect(struct ethtool_nl_collector *ec, const struct root *r, struct nic_table *t);

void nic_table_free(struct nic_table *t);
int nic_table_copy(struct nic_table *dst, const struct nic_table *src);
/* NIC by name, NULL if absent. */
const struct nic_raw *nic_table_find(const struct nic_table *t, const char *ifname);

/*
 * For the advisor's `ethtool -L IFACE combined N`: the channels of ifname.
 * 0, -ENOENT (no such link, or no link list), the ethtool family's error,
 * or the NIC's own refusal (-EOPNOTSUPP: the driver has no channels).
 * *ret written only on success.
 */
int nic_table_channels(const struct nic_table *t, const char *ifname, struct nic_channels *ret);

#endif
