// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NIC settings over the ethtool generic netlink family (kernel >= 5.6):
 * channels (ethtool -l) and coalescing (ethtool -c), per interface of the
 * rtnetlink link list, plus the MSI vectors of the interface's PCI function.
 * Answers are decoded from bytes; the same bytes are what a recorded tree
 * keeps under netlink/ethtool/IFACE/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "kname.h"
#include "ethtool_nl.h"
#include "grow.h"
#include "rtnl.h"
#include "str.h"

static const struct nla_policy channels_policy[ETHTOOL_A_CHANNELS_MAX + 1] = {
	[ETHTOOL_A_CHANNELS_HEADER] = { .type = NLA_NESTED },
	[ETHTOOL_A_CHANNELS_RX_MAX] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_TX_MAX] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_OTHER_MAX] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_COMBINED_MAX] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_RX_COUNT] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_TX_COUNT] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_OTHER_COUNT] = { .type = NLA_U32 },
	[ETHTOOL_A_CHANNELS_COMBINED_COUNT] = { .type = NLA_U32 },
};

static uint32_t u32_or_0(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

int ethtool_nl_channels_parse(const void *buf, size_t len, struct nic_channels *ret,
			      const char **what)
{
	struct nlattr *tb[ETHTOOL_A_CHANNELS_MAX + 1];
	const struct nlmsghdr *h;
	struct nic_channels c;
	int r;

	r = netlink_genl_first(buf, len, ETHTOOL_MSG_CHANNELS_GET_REPLY, &h, what);
	if (r < 0)
		return r;
	if (genlmsg_parse((struct nlmsghdr *)h, 0, tb, ETHTOOL_A_CHANNELS_MAX, channels_policy) < 0)
		return netlink_bad(what, "channels attribute of a wrong size");
	if (!tb[ETHTOOL_A_CHANNELS_HEADER])
		return netlink_bad(what, "no ETHTOOL_A_CHANNELS_HEADER");
	/* the kernel sends a kind only when its maximum is not 0 */
	c.rx_max = u32_or_0(tb[ETHTOOL_A_CHANNELS_RX_MAX]);
	c.tx_max = u32_or_0(tb[ETHTOOL_A_CHANNELS_TX_MAX]);
	c.other_max = u32_or_0(tb[ETHTOOL_A_CHANNELS_OTHER_MAX]);
	c.combined_max = u32_or_0(tb[ETHTOOL_A_CHANNELS_COMBINED_MAX]);
	c.rx = u32_or_0(tb[ETHTOOL_A_CHANNELS_RX_COUNT]);
	c.tx = u32_or_0(tb[ETHTOOL_A_CHANNELS_TX_COUNT]);
	c.other = u32_or_0(tb[ETHTOOL_A_CHANNELS_OTHER_COUNT]);
	c.combined = u32_or_0(tb[ETHTOOL_A_CHANNELS_COMBINED_COUNT]);
	if (c.rx > c.rx_max || c.tx > c.tx_max || c.other > c.other_max ||
	    c.combined > c.combined_max)
		return netlink_bad(what, "channel count above its maximum");
	*ret = c;
	return 0;
}

static const struct nla_policy coalesce_policy[ETHTOOL_A_COALESCE_MAX + 1] = {
	[ETHTOOL_A_COALESCE_HEADER] = { .type = NLA_NESTED },
	[ETHTOOL_A_COALESCE_RX_USECS] = { .type = NLA_U32 },
	[ETHTOOL_A_COALESCE_RX_MAX_FRAMES] = { .type = NLA_U32 },
	[ETHTOOL_A_COALESCE_TX_USECS] = { .type = NLA_U32 },
	[ETHTOOL_A_COALESCE_TX_MAX_FRAMES] = { .type = NLA_U32 },
	[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX] = { .type = NLA_U8 },
	[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX] = { .type = NLA_U8 },
};

int ethtool_nl_coalesce_parse(const void *buf, size_t len, struct nic_coalesce *ret,
			      const char **what)
{
	struct nlattr *tb[ETHTOOL_A_COALESCE_MAX + 1];
	const struct nlmsghdr *h;
	struct nic_coalesce c = { 0 };
	int r;

	r = netlink_genl_first(buf, len, ETHTOOL_MSG_COALESCE_GET_REPLY, &h, what);
	if (r < 0)
		return r;
	if (genlmsg_parse((struct nlmsghdr *)h, 0, tb, ETHTOOL_A_COALESCE_MAX, coalesce_policy) < 0)
		return netlink_bad(what, "coalesce attribute of a wrong size");
	if (!tb[ETHTOOL_A_COALESCE_HEADER])
		return netlink_bad(what, "no ETHTOOL_A_COALESCE_HEADER");
	/* the kernel sends only the parameters the driver supports */
	if ((c.has_rx_usecs = tb[ETHTOOL_A_COALESCE_RX_USECS]))
		c.rx_usecs = nla_get_u32(tb[ETHTOOL_A_COALESCE_RX_USECS]);
	if ((c.has_rx_frames = tb[ETHTOOL_A_COALESCE_RX_MAX_FRAMES]))
		c.rx_frames = nla_get_u32(tb[ETHTOOL_A_COALESCE_RX_MAX_FRAMES]);
	if ((c.has_tx_usecs = tb[ETHTOOL_A_COALESCE_TX_USECS]))
		c.tx_usecs = nla_get_u32(tb[ETHTOOL_A_COALESCE_TX_USECS]);
	if ((c.has_tx_frames = tb[ETHTOOL_A_COALESCE_TX_MAX_FRAMES]))
		c.tx_frames = nla_get_u32(tb[ETHTOOL_A_COALESCE_TX_MAX_FRAMES]);
	if ((c.has_adaptive_rx = tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]))
		c.adaptive_rx = nla_get_u8(tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX]);
	if ((c.has_adaptive_tx = tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX]))
		c.adaptive_tx = nla_get_u8(tb[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX]);
	*ret = c;
	return 0;
}

struct nl_msg *ethtool_nl_request(int family, uint8_t cmd, const char *ifname)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *hdr;

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, cmd, ETHTOOL_GENL_VERSION))
		goto fail;
	/* every ethtool request's attribute 1 is its header nest */
	hdr = nla_nest_start(msg, ETHTOOL_A_CHANNELS_HEADER);
	if (!hdr || nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0)
		goto fail;
	nla_nest_end(msg, hdr);
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

struct nl_msg *ethtool_nl_channels_set_request(int family, const char *ifname, uint32_t combined)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *hdr;

	if (!msg)
		return NULL;
	/* the socket's auto-ACK is off (netlink.c): ask for the ACK here, it
	 * is the only answer a SET gets */
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
			 ETHTOOL_MSG_CHANNELS_SET, ETHTOOL_GENL_VERSION))
		goto fail;
	hdr = nla_nest_start(msg, ETHTOOL_A_CHANNELS_HEADER);
	if (!hdr || nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0)
		goto fail;
	nla_nest_end(msg, hdr);
	if (nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_COUNT, combined) < 0)
		goto fail;
	return msg;
fail:
	nlmsg_free(msg);
	return NULL;
}

int ethtool_nl_channels_patch(void *buf, size_t len, uint32_t combined)
{
	const struct nlmsghdr *h;
	struct nic_channels c;
	struct nlattr *a;
	int r;

	r = ethtool_nl_channels_parse(buf, len, &c, NULL);
	if (r < 0)
		return r;
	/* ethnl_set_channels(): a count above its maximum, or no channel at all */
	if (combined == 0 || combined > c.combined_max)
		return c.combined_max ? -EINVAL : -ENODATA;
	r = netlink_genl_first(buf, len, ETHTOOL_MSG_CHANNELS_GET_REPLY, &h, NULL);
	if (r < 0)
		return r;
	/* the parse above checked every attribute's size against the policy */
	a = nlmsg_find_attr((struct nlmsghdr *)h, GENL_HDRLEN, ETHTOOL_A_CHANNELS_COMBINED_COUNT);
	if (!a)
		return -ENODATA;
	memcpy(nla_data(a), &combined, sizeof(combined));
	return 0;
}

static int channels_rel(const char *ifname, char *buf, size_t size)
{
	int n;

	if (!kname_ok(KNAME_IFACE, ifname))
		return -EINVAL; /* a recorded "../x" is put in no path (kname.h) */
	n = snprintf(buf, size, "netlink/ethtool/%s/channels.bin", ifname);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ethtool_nl_channels_get(const struct root *r, const char *ifname, struct nic_channels *ret)
{
	struct nlreply reply = { 0 };
	struct nic_channels c;
	struct nlconn conn;
	char rel[IOT_NAME_MAX + 48];
	int e;

	if (r->path[0] != '\0') {
		e = channels_rel(ifname, rel, sizeof(rel));
		if (e == 0)
			e = netlink_read_recorded(r, rel, &reply);
	} else {
		e = netlink_open_genl(ETHTOOL_GENL_NAME, &conn);
		if (e == 0) {
			struct nl_msg *msg =
			    ethtool_nl_request(conn.family, ETHTOOL_MSG_CHANNELS_GET, ifname);

			e = msg ? netlink_transact(&conn, msg, &reply) : -ENOMEM;
			netlink_close(&conn);
		}
	}
	if (e >= 0)
		e = ethtool_nl_channels_parse(reply.buf, reply.len, &c, NULL);
	nlreply_free(&reply);
	if (e < 0)
		return e;
	*ret = c;
	return 0;
}

int ethtool_nl_channels_set_combined(const struct root *r, const char *ifname, uint32_t combined)
{
	struct nlreply reply = { 0 };
	const struct nlmsghdr *h;
	struct nlconn conn;
	char rel[IOT_NAME_MAX + 48];
	size_t off = 0;
	int e;

	if (r->path[0] != '\0') {
		/* a recorded tree: the answer the kernel would give from now on */
		e = channels_rel(ifname, rel, sizeof(rel));
		if (e == 0)
			e = netlink_read_recorded(r, rel, &reply);
		if (e >= 0)
			e = ethtool_nl_channels_patch(reply.buf, reply.len, combined);
		if (e >= 0)
			e = netlink_record(r->dirfd, rel, &reply);
		nlreply_free(&reply);
		return e < 0 ? e : 0;
	}
	e = netlink_open_genl(ETHTOOL_GENL_NAME, &conn);
	if (e < 0)
		return e;
	{
		struct nl_msg *msg = ethtool_nl_channels_set_request(conn.family, ifname, combined);

		e = msg ? netlink_transact(&conn, msg, &reply) : -ENOMEM;
	}
	netlink_close(&conn);
	/* the ACK is skipped by the walk (0); a refusal is its -errno */
	if (e >= 0)
		e = netlink_walk(reply.buf, reply.len, &off, &h);
	if (e > 0)
		e = -EBADMSG; /* a SET answers with an ACK only */
	/* the driver could not allocate its queues or vectors; -ENOMEM from
	 * here would read as our own allocation failing */
	if (e == -ENOMEM && reply.len)
		e = -ENOSPC;
	nlreply_free(&reply);
	return e;
}

/* ---- tables ---- */

void nic_table_free(struct nic_table *t)
{
	if (!t)
		return;
	grow_free((void **)&t->rows, &t->n, &t->cap);
}

int nic_table_copy(struct nic_table *dst, const struct nic_table *src)
{
	struct nic_table t = *src;

	/* src's fields, dst's storage */
	t.rows = dst->rows;
	t.cap = dst->cap;
	if (grow_copy((void **)&t.rows, &t.cap, src->rows, src->n, sizeof(*t.rows)) < 0)
		return -ENOMEM;
	*dst = t;
	return 0;
}

int nic_table_channels(const struct nic_table *t, const char *ifname, struct nic_channels *ret)
{
	const struct nic_raw *n = t->rtnl.err ? NULL : nic_table_find(t, ifname);

	if (!n)
		return -ENOENT;
	if (t->ethtool.err)
		return t->ethtool.err;
	if (!n->has_channels)
		return n->channels_status.err ? n->channels_status.err : -ENODATA;
	*ret = n->channels;
	return 0;
}

const struct nic_raw *nic_table_find(const struct nic_table *t, const char *ifname)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->rows[i].ifname, ifname) == 0)
			return &t->rows[i];
	return NULL;
}

void ethtool_nl_collector_free(struct ethtool_nl_collector *ec)
{
	if (!ec)
		return;
	netlink_close(&ec->genl);
	netlink_close(&ec->route);
	nlreply_free(&ec->reply);
	nic_table_free(&ec->last);
	ec->opened = false;
}

/* ---- collect ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int add_irq(int dfd, const char *name, unsigned char type, void *ctx)
{
	struct nic_raw *n = ctx;
	uint32_t v;

	if (!str_u32(name, &v))
		return 0;
	n->irqs[n->nirqs++] = v;
	return n->nirqs < NIC_IRQ_MAX ? 0 : 1;
}

/* msi_irqs/ of the PCI function: on the netdev's device itself, or one
 * level up for virtio-net (device -> virtio2, whose parent is the PCI
 * function). Names only, so a recorded tree holds empty files. */
static void read_irqs(const struct root *r, struct nic_raw *n)
{
	static const char *const where[] = { "device/msi_irqs", "device/../msi_irqs" };
	char rel[IOT_NAME_MAX + 48];

	n->nirqs = 0;
	for (size_t i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "sys/class/net/%s/%s", n->ifname, where[i]);
		/* add_irq never fails: < 0 is the open's, nothing listed yet */
		if (root_for_each_entry(r, rel, add_irq, n) >= 0)
			break;
	}
	if (n->nirqs > 1)
		qsort(n->irqs, n->nirqs, sizeof(n->irqs[0]), cmp_u32);
}

static void status_msg(struct src_status *st, int err, const char *what, const char *label,
		       bool live)
{
	st->err = err;
	snprintf(st->reason, sizeof(st->reason), "%s: %s", label,
		 err == -EBADMSG && what   ? what
		 : err == -ENOENT && !live ? "not recorded in this tree"
					   : netlink_hint(err));
}

static int fetch(struct ethtool_nl_collector *ec, const struct root *r, const char *rel,
		 struct nl_msg *msg)
{
	return netlink_fetch(ec->live ? &ec->genl : NULL, msg, r, rel,
			     ec->record ? ec->record_dfd : -1, &ec->reply);
}

/* The settings of o (the same link at an earlier sample) into n. */
static void copy_settings(struct nic_raw *n, const struct nic_raw *o)
{
	n->has_channels = o->has_channels;
	n->channels = o->channels;
	n->channels_status = o->channels_status;
	n->has_coalesce = o->has_coalesce;
	n->coalesce = o->coalesce;
	n->coalesce_status = o->coalesce_status;
	memcpy(n->irqs, o->irqs, sizeof(n->irqs));
	n->nirqs = o->nirqs;
}

static int nic_settings(struct ethtool_nl_collector *ec, const struct root *r, struct nic_raw *n)
{
	char rel[IOT_NAME_MAX + 48];
	const char *what = NULL;
	int e;

	/* a link name from a recorded dump becomes part of a path only when it
	 * is one the kernel gives an interface (kname.h) */
	if (!kname_ok(KNAME_IFACE, n->ifname)) {
		static const char why[] = "not a name the kernel gives an interface";

		n->has_channels = n->has_coalesce = false;
		n->channels_status.err = n->coalesce_status.err = -EINVAL;
		snprintf(n->channels_status.reason, sizeof(n->channels_status.reason),
			 "channels: %s", why);
		snprintf(n->coalesce_status.reason, sizeof(n->coalesce_status.reason),
			 "coalesce: %s", why);
		return 0;
	}
	snprintf(rel, sizeof(rel), "netlink/ethtool/%s/channels.bin", n->ifname);
	e = fetch(ec, r, rel,
		  ec->live
		      ? ethtool_nl_request(ec->genl.family, ETHTOOL_MSG_CHANNELS_GET, n->ifname)
		      : NULL);
	if (e == -ENOMEM)
		return e;
	if (e >= 0)
		e = ethtool_nl_channels_parse(ec->reply.buf, ec->reply.len, &n->channels, &what);
	n->has_channels = e >= 0;
	if (e < 0)
		status_msg(&n->channels_status, e, what, "channels", ec->live);

	snprintf(rel, sizeof(rel), "netlink/ethtool/%s/coalesce.bin", n->ifname);
	what = NULL;
	e = fetch(ec, r, rel,
		  ec->live
		      ? ethtool_nl_request(ec->genl.family, ETHTOOL_MSG_COALESCE_GET, n->ifname)
		      : NULL);
	if (e == -ENOMEM)
		return e;
	if (e >= 0)
		e = ethtool_nl_coalesce_parse(ec->reply.buf, ec->reply.len, &n->coalesce, &what);
	n->has_coalesce = e >= 0;
	if (e < 0)
		status_msg(&n->coalesce_status, e, what, "coalesce", ec->live);
	return 0;
}

int ethtool_nl_collect(struct ethtool_nl_collector *ec, const struct root *r, struct nic_table *t)
{
	char disp[256];
	const char *what = NULL;
	bool refresh;
	int e;

	ec->live = r->path[0] == '\0';
	t->n = 0;
	memset(&t->rtnl, 0, sizeof(t->rtnl));
	memset(&t->ethtool, 0, sizeof(t->ethtool));
	if (ec->live && !ec->opened) {
		ec->opened = true;
		ec->route_err = netlink_open_route(&ec->route);
		ec->genl_err = netlink_open_genl(ETHTOOL_GENL_NAME, &ec->genl);
	}
	if (ec->live && ec->route_err)
		e = ec->route_err;
	else
		e = netlink_fetch(ec->live ? &ec->route : NULL,
				  ec->live ? rtnl_links_request() : NULL, r, RTNL_LINKS_REL,
				  ec->record ? ec->record_dfd : -1, &ec->reply);
	if (e == -ENOMEM)
		return e;
	if (e >= 0)
		e = rtnl_links_parse(ec->reply.buf, ec->reply.len, t, &what);
	if (e == -ENOMEM)
		return e;
	if (e < 0) {
		t->n = 0;
		t->rtnl.err = e;
		if (!ec->live) {
			root_display(r, RTNL_LINKS_REL, disp, sizeof(disp));
			snprintf(t->rtnl.reason, sizeof(t->rtnl.reason), "%s: %s", disp,
				 e == -EBADMSG && what ? what : strerror(-e));
		} else {
			snprintf(t->rtnl.reason, sizeof(t->rtnl.reason), "rtnetlink link dump: %s",
				 e == -EBADMSG && what ? what : netlink_hint(e));
		}
		return 0;
	}

	if (ec->live && ec->genl_err) {
		t->ethtool.err = ec->genl_err;
		snprintf(t->ethtool.reason, sizeof(t->ethtool.reason),
			 "genl family " ETHTOOL_GENL_NAME ": %s", netlink_hint(ec->genl_err));
	} else if (!ec->live) {
		int fd = root_openat(r, "netlink/ethtool", O_RDONLY | O_DIRECTORY);

		if (fd < 0) {
			root_display(r, "netlink/ethtool", disp, sizeof(disp));
			t->ethtool.err = fd;
			snprintf(t->ethtool.reason, sizeof(t->ethtool.reason),
				 "%s: no recorded answers (%s)", disp, strerror(-fd));
		} else {
			close(fd);
		}
	}
	refresh = ec->record || ec->samples++ % ETHTOOL_NL_SETTINGS_EVERY == 0;
	for (size_t i = 0; i < t->n; i++) {
		struct nic_raw *n = &t->rows[i];
		const struct nic_raw *o = refresh ? NULL : nic_table_find(&ec->last, n->ifname);

		if (o && o->ifindex == n->ifindex && !t->ethtool.err) {
			copy_settings(n, o);
			continue;
		}
		read_irqs(r, n);
		if (t->ethtool.err)
			continue;
		e = nic_settings(ec, r, n);
		if (e < 0)
			return e;
	}
	return nic_table_copy(&ec->last, t);
}
