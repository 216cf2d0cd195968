/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What each NIC is set to: channels and interrupt coalescing through the
 * ethtool generic netlink family, link counters through rtnetlink (rtnl.c),
 * and the interrupt vectors of its PCI function (joined with
 * /proc/interrupts by metrics_proc.c). Collect and parse; the one setting
 * that apply.c changes (combined channels) is carried out here too, since
 * only this file knows how a recorded tree holds the ethtool answers.
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

/* `ethtool -L IFACE combined N`: ETHTOOL_MSG_CHANNELS_SET carrying only
 * ETHTOOL_A_CHANNELS_COMBINED_COUNT, with NLM_F_ACK (a SET has no reply
 * otherwise). NULL on ENOMEM. */
struct nl_msg *ethtool_nl_channels_set_request(int family, const char *ifname, uint32_t combined);

/*
 * A recorded CHANNELS_GET_REPLY (buf, len; 4-aligned) rewritten in place to
 * what the kernel answers after `ethtool -L IFACE combined N`: its
 * ETHTOOL_A_CHANNELS_COMBINED_COUNT becomes combined, every other byte
 * stays. Pure. 0, -EINVAL (combined 0 or above COMBINED_MAX: the kernel's
 * answer to such a SET), -ENODATA (no COMBINED_COUNT: the NIC has no
 * combined channels) or the parse's error.
 */
int ethtool_nl_channels_patch(void *buf, size_t len, uint32_t combined);

/*
 * The channels of ifname now, for apply: live (root "/") through the ethtool
 * family, else from netlink/ethtool/IFACE/channels.bin under r. 0 or -errno
 * (-ENOENT: no such recording or no ethtool family, -EOPNOTSUPP: the driver
 * has no channels). *ret written only on success.
 */
int ethtool_nl_channels_get(const struct root *r, const char *ifname, struct nic_channels *ret);

/*
 * Sets the combined channel count of ifname. Live: ETHTOOL_MSG_CHANNELS_SET
 * (CAP_NET_ADMIN); the kernel's refusal is returned (-EINVAL: out of range,
 * or queues still used by an RSS indirection table, ntuple filter or AF_XDP
 * socket; -EOPNOTSUPP: the driver cannot; -EPERM; -ENOSPC: the driver could
 * not allocate the queues, its -ENOMEM). Under any other root the
 * recorded answer is rewritten as the kernel would then answer (see
 * ethtool_nl_channels_patch), so apply and undo are testable on a recorded
 * tree as /proc/irq writes are on plain files. 0 or -errno.
 */
int ethtool_nl_channels_set_combined(const struct root *r, const char *ifname, uint32_t combined);

struct ethtool_nl_collector {
	bool live;
	bool opened;
	int genl_err, route_err;
	struct nlconn genl, route;
	struct nlreply reply;
	bool record; /* capture: also write every live answer under record_dfd */
	int record_dfd;
	/* channels, coalescing and MSI vectors are settings: asked every
	 * ETHTOOL_NL_SETTINGS_EVERY samples (two GETs and a readdir per NIC),
	 * in between copied from the last answers of the same link */
	unsigned samples;
	struct nic_table last;
};

#define ETHTOOL_NL_SETTINGS_EVERY 10

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
