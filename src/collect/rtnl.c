// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rtnetlink link dump, as `ip -s link` asks it. Only the decoding of
 * RTM_NEWLINK and the request live here; sending goes through netlink.c.
 */
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "grow.h"
#include "rtnl.h"

static const struct nla_policy link_policy[IFLA_MAX + 1] = {
	[IFLA_IFNAME] = { .type = NLA_STRING, .maxlen = IFNAMSIZ },
	[IFLA_STATS64] = { .type = NLA_UNSPEC },
	[IFLA_NUM_RX_QUEUES] = { .type = NLA_U32 },
	[IFLA_NUM_TX_QUEUES] = { .type = NLA_U32 },
};

/* rx_packets .. tx_dropped: the first eight u64 of rtnl_link_stats64 */
#define STATS64_MIN (8 * sizeof(uint64_t))

static int parse_link(const struct nlmsghdr *h, struct nic_raw *ret, bool *ret_skip,
		      const char **what)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct nic_raw n = { 0 };
	struct ifinfomsg ifi;
	uint64_t st[8];
	int r;

	if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(ifi))
		return netlink_bad(what, "RTM_NEWLINK shorter than struct ifinfomsg");
	memcpy(&ifi, (const char *)h + NLMSG_HDRLEN, sizeof(ifi));
	r = nlmsg_parse((struct nlmsghdr *)h, sizeof(ifi), tb, IFLA_MAX, link_policy);
	if (r < 0)
		return netlink_bad(what, "link attribute of a wrong size");
	if (!tb[IFLA_IFNAME])
		return netlink_bad(what, "link without IFLA_IFNAME");
	*ret_skip = ifi.ifi_flags & IFF_LOOPBACK;
	nla_strlcpy(n.ifname, tb[IFLA_IFNAME], sizeof(n.ifname));
	if (!n.ifname[0])
		return netlink_bad(what, "empty IFLA_IFNAME");
	n.ifindex = (uint32_t)ifi.ifi_index;
	n.up = ifi.ifi_flags & IFF_UP;
	n.running = ifi.ifi_flags & IFF_RUNNING;
	if (tb[IFLA_NUM_RX_QUEUES])
		n.num_rx_queues = nla_get_u32(tb[IFLA_NUM_RX_QUEUES]);
	if (tb[IFLA_NUM_TX_QUEUES])
		n.num_tx_queues = nla_get_u32(tb[IFLA_NUM_TX_QUEUES]);
	if (tb[IFLA_STATS64]) {
		if ((size_t)nla_len(tb[IFLA_STATS64]) < STATS64_MIN)
			return netlink_bad(what, "IFLA_STATS64 shorter than 8 counters");
		memcpy(st, nla_data(tb[IFLA_STATS64]), sizeof(st));
		n.has_stats = true;
		n.stats.rx_packets = st[0];
		n.stats.tx_packets = st[1];
		n.stats.rx_bytes = st[2];
		n.stats.tx_bytes = st[3];
		n.stats.rx_errors = st[4];
		n.stats.tx_errors = st[5];
		n.stats.rx_dropped = st[6];
		n.stats.tx_dropped = st[7];
	}
	*ret = n;
	return 0;
}

int rtnl_links_parse(const void *buf, size_t len, struct nic_table *t, const char **what)
{
	const struct nlmsghdr *h;
	size_t off = 0;
	int r;

	t->n = 0;
	while ((r = netlink_walk(buf, len, &off, &h)) > 0) {
		struct nic_raw n;
		bool skip = false;

		if (h->nlmsg_type != RTM_NEWLINK)
			return netlink_bad(what, "not an RTM_NEWLINK message");
		r = parse_link(h, &n, &skip, what);
		if (r < 0)
			return r;
		if (skip)
			continue;
		for (size_t i = 0; i < t->n; i++)
			if (strcmp(t->rows[i].ifname, n.ifname) == 0)
				return netlink_bad(what, "the same link twice");
		if (grow((void **)&t->rows, &t->cap, t->n + 1, sizeof(*t->rows)) < 0)
			return -ENOMEM;
		t->rows[t->n++] = n;
	}
	if (r == -EBADMSG)
		return netlink_bad(what, "truncated netlink message");
	if (r == 0 && off != SIZE_MAX)
		return netlink_bad(what, "dump ends without NLMSG_DONE");
	return r;
}

struct nl_msg *rtnl_links_request(void)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg;

	msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_DUMP);
	if (msg && nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}
