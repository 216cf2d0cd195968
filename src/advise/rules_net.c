// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NIC suggestions for a core that takes NET_RX: more channels (ethtool -L),
 * RPS for a single-queue NIC, spreading its vectors.
 */
#include "advise_int.h"

/* The interrupts/s that NIC n's IRQs put on column col of the IRQ rate
 * table: its PCI function's vectors, else IRQs whose actions start with its
 * name. Their numbers go to irqs[0..*ret_n), at most max. */
static double nic_irq_rate(const struct ctx *c, const struct topo_net *n, int col, uint32_t *irqs,
			   size_t max, size_t *ret_n)
{
	const struct rate_table *rt = &c->m->irq;
	double rate = 0;
	size_t nn = 0;

	for (size_t k = 0; k < rt->n; k++) {
		const struct rate_row *rr = &rt->rows[k];
		const struct irq_row *row = rate_irq_row(c, rr);
		const struct topo_irq *ti;
		const char *act;
		bool mine;

		if (!row || !row->numeric || !rr->valid)
			continue;
		ti = topology_irq(c->t, row->irq);
		act = irq_actions(c, row, ti);
		mine = (ti && n->dev >= 0 && ti->dev == n->dev) ||
		       (strncmp(act, n->ifname, strlen(n->ifname)) == 0);
		if (!mine)
			continue;
		rate += rt->rates[rr->rates_off + (size_t)col];
		if (nn < max)
			irqs[nn++] = row->irq;
	}
	*ret_n = nn;
	return rate;
}

/* Why the channel counts of ifname are not known: the status that refused.
 * No host path in it: the same tree captured elsewhere advises the same. */
static void channels_missing(const struct snapshot *cur, const char *ifname, char *buf, size_t size)
{
	const struct nic_table *nt = cur->workload ? &cur->workload->nics : NULL;
	const struct nic_raw *nr;

	if (!nt) {
		str_fmt(buf, size, "NIC settings not sampled");
	} else if (nt->rtnl.err) {
		str_fmt(buf, size, "no link list: %s",
			nt->rtnl.err == -ENOENT ? "netlink/rtnl/links.bin not recorded"
						: netlink_hint(nt->rtnl.err));
	} else if (!(nr = nic_table_find(nt, ifname))) {
		str_fmt(buf, size, "%s is not in the link list", ifname);
	} else if (nt->ethtool.err) {
		str_fmt(buf, size, "ethtool netlink: %s",
			nt->ethtool.err == -ENOENT
			    ? "family not offered (kernel < 5.6), or netlink/ethtool/ not recorded"
			    : netlink_hint(nt->ethtool.err));
	} else {
		str_fmt(buf, size, "%s",
			nr->channels_status.reason[0] ? nr->channels_status.reason
						      : "channels: no answer");
	}
}

/* True when an irq-spread suggestion already made moves one of irqs. */
static const struct suggestion *spread_of(const struct ctx *c, const uint32_t *irqs, size_t n)
{
	for (size_t i = 0; i < c->a->nsuggestions; i++) {
		const struct suggestion *s = &c->a->suggestions[i];

		if (strncmp(s->id, "irq-spread-", 11) != 0)
			continue;
		for (size_t k = 0; k < s->nactions; k++)
			for (size_t j = 0; j < n; j++)
				if (s->actions[k].is_irq && s->actions[k].irq == irqs[j])
					return s;
	}
	return NULL;
}

/* The notes of n's channels suggestion s: note (what device_cpus() said)
 * and what a change of channels does to the IRQs and their affinity. */
static void channels_notes(const struct ctx *c, struct suggestion *s, const struct topo_net *n,
			   const uint32_t *irqs, size_t nirqs, char *note, size_t size)
{
	const struct suggestion *spread = spread_of(c, irqs, nirqs);
	const struct topology *t = c->t;

	str_cat(note, size,
		"Most drivers rebuild their rings to change channels: a short traffic interruption "
		"(a link flap on some). The new queues get new IRQs: run iotriage suggest again "
		"afterwards to see where they landed. ");
	if (spread)
		str_cat(
		    note, size,
		    "Apply this before %s, or undo that first: affinity written to %s's old IRQs "
		    "does not survive the change. ",
		    spread->id, n->ifname);
	if (t->irqbalance.running)
		str_cat(note, size, "irqbalance (pid %d) is running: it places the new IRQs. ",
			t->irqbalance.pid);
	str_cat(note, size,
		"Not persistent: the driver's default returns at reboot or driver reload; "
		"systemd.link's CombinedChannels= (or a udev rule running ethtool) keeps it.");
	str_copy(s->notes, sizeof(s->notes), note);
}

/*
 * `ethtool -L IF combined N` for NIC n, whose interrupts and most NET_RX work
 * land on the hot CPU, when it has fewer combined channels than min(its
 * maximum, usable CPUs of its node) = N. Only from the channels the sample
 * recorded: without them, why says what was missing. Returns 1 when
 * suggested, 0 when not, -ENOMEM.
 */
static int suggest_channels(struct ctx *c, const struct finding *hot, int cpu,
			    const struct topo_net *n, double netrx, double netrx_share,
			    double nic_rate, const uint32_t *irqs, size_t nirqs, char *why,
			    size_t why_size)
{
	const struct topology *t = c->t;
	char note[2 * ADV_TEXT_MAX] = "", id[ADV_ID_MAX], path[128], v[16], u[16];
	char list[TOPO_LIST_MAX], miss[IOT_REASON_MAX + 96];
	struct nic_channels ch;
	struct cpuset targets;
	struct suggestion *s;
	unsigned k, want;
	bool local;

	if (!c->cur->workload || nic_table_channels(&c->cur->workload->nics, n->ifname, &ch) < 0) {
		channels_missing(c->cur, n->ifname, miss, sizeof(miss));
		str_cat(why, why_size,
			"no ethtool -L suggestion for %s: its channel counts are unknown (%s). ",
			n->ifname, miss);
		return 0;
	}
	if (ch.combined_max <= 1 && ch.rx_max <= 1) {
		str_cat(why, why_size, "%s cannot have more than one channel (ethtool -l). ",
			n->ifname);
		return 0;
	}
	if (ch.combined_max == 0 || ch.combined == 0 || ch.rx || ch.tx) {
		/* separate rx/tx channels: `combined N` alone would be refused or
		 * change the wrong kind */
		str_cat(why, why_size,
			"no ethtool -L suggestion for %s: it uses separate channels (rx %u of %u, "
			"tx %u of %u, combined %u of %u). ",
			n->ifname, ch.rx, ch.rx_max, ch.tx, ch.tx_max, ch.combined,
			ch.combined_max);
		return 0;
	}
	if (!t->has_online) {
		str_cat(
		    why, why_size,
		    "no ethtool -L suggestion for %s: CPU online list missing, so the usable CPUs "
		    "are unknown. ",
		    n->ifname);
		return 0;
	}
	device_cpus(t, n->dev, &targets, note, sizeof(note));
	/* device_cpus() notes a fallback to all CPUs; no note: the node's own */
	local = n->dev >= 0 && t->devs[n->dev].has_local && !note[0];
	k = cpuset_count(&targets);
	want = ch.combined_max < k ? ch.combined_max : k;
	cpuset_format_list(&targets, list, sizeof(list));
	if (ch.combined >= want) {
		str_cat(why, why_size,
			"%s already has %u combined channels (at most %u) for %u usable %sCPUs. ",
			n->ifname, ch.combined, ch.combined_max, k, local ? "local " : "");
		return 0;
	}
	if (!device_path(path, sizeof(path), ADV_ETHTOOL_PREFIX, KNAME_IFACE, n->ifname,
			 ADV_ETHTOOL_COMBINED)) {
		str_cat(why, why_size,
			"no ethtool -L suggestion for %s: not a name the kernel gives an "
			"interface. ",
			n->ifname);
		return 0;
	}
	str_fmt(id, sizeof(id), "channels-%s", n->ifname);
	s = add_suggestion(c->a, id, ADV_WARNING, hot->id);
	if (!s)
		return -ENOMEM;
	str_fmt(v, sizeof(v), "%u", want);
	str_fmt(u, sizeof(u), "%u", ch.combined);
	if (!add_action(s, path, v, u))
		return -ENOMEM;
	snprintf(s->reason, sizeof(s->reason),
		 "%s has %u of at most %u combined channels for %u usable %sCPUs (%s); its "
		 "interrupts (%.0f/s) and %.1f%% of all NET_RX softirq work (%.0f/s) land on "
		 "cpu%d: raise its channels to %u",
		 n->ifname, ch.combined, ch.combined_max, k, local ? "local " : "", list, nic_rate,
		 netrx_share, netrx, cpu, want);
	snprintf(s->effect, sizeof(s->effect),
		 "RSS hashes %s's flows over %u receive queues instead of %u, each with its own "
		 "interrupt: NET_RX work (%.0f/s on cpu%d) can spread over up to %u CPUs; one "
		 "flow still stays on one queue",
		 n->ifname, want, ch.combined, netrx, cpu, want);
	channels_notes(c, s, n, irqs, nirqs, note, sizeof(note));
	return 1;
}

/* RPS for NIC n, which has one receive queue, its interrupt (nic_rate/s) and
 * netrx_share % of all NET_RX on the hot CPU. 0 or -ENOMEM. */
static int suggest_rps(struct ctx *c, const struct finding *hot, int cpu, const struct topo_net *n,
		       double netrx_share, double nic_rate, char *why, size_t why_size)
{
	const struct topology *t = c->t;
	struct cpuset targets;
	char note[2 * ADV_TEXT_MAX] = "", id[ADV_ID_MAX], path[160], mask[TOPO_LIST_MAX];
	char list[TOPO_LIST_MAX];
	struct suggestion *s;

	if (!n->has_rps) {
		str_cat(why, why_size,
			"no RPS suggestion for %s: queues/rx-0/rps_cpus missing (kernel "
			"without CONFIG_RPS, or no /sys). ",
			n->ifname);
		return 0;
	}
	if (!cpuset_empty(&n->rps_cpus)) {
		str_cat(why, why_size, "%s already steers packets (rps_cpus %s). ", n->ifname,
			n->rps_cpus_raw);
		return 0;
	}
	if (!t->has_online) {
		str_cat(why, why_size, "no RPS suggestion for %s: CPU online list missing. ",
			n->ifname);
		return 0;
	}
	if (!device_path(path, sizeof(path), "sys/class/net/", KNAME_IFACE, n->ifname,
			 "/queues/rx-0/rps_cpus")) {
		str_cat(why, why_size,
			"no RPS suggestion for %s: not a name the kernel gives an interface. ",
			n->ifname);
		return 0;
	}
	device_cpus(t, n->dev, &targets, note, sizeof(note));
	if (cpuset_count(&targets) < 2)
		return 0;
	str_fmt(id, sizeof(id), "rps-%s", n->ifname);
	s = add_suggestion(c->a, id, ADV_WARNING, hot->id);
	if (!s)
		return -ENOMEM;
	cpuset_format_mask(&targets, mask, sizeof(mask));
	cpuset_format_list(&targets, list, sizeof(list));
	{
		struct advise_action *ac = add_action(s, path, mask, n->rps_cpus_raw);

		if (!ac)
			return -ENOMEM;
		ac->value_is_mask = true;
	}
	if (n->has_flow_cnt && n->rps_flow_cnt < ADV_RPS_FLOWS) {
		char v[24], u[24];

		if (!device_path(path, sizeof(path), "sys/class/net/", KNAME_IFACE, n->ifname,
				 "/queues/rx-0/rps_flow_cnt"))
			return -EINVAL; /* the same name passed for rps_cpus */
		snprintf(v, sizeof(v), "%d", ADV_RPS_FLOWS);
		snprintf(u, sizeof(u), "%llu", (unsigned long long)n->rps_flow_cnt);
		if (!add_action(s, path, v, u))
			return -ENOMEM;
	}
	if (t->rps_sock_flow_entries >= 0 && t->rps_sock_flow_entries < ADV_RPS_FLOWS) {
		char v[24], u[24];

		snprintf(v, sizeof(v), "%d", ADV_RPS_FLOWS);
		snprintf(u, sizeof(u), "%ld", t->rps_sock_flow_entries);
		if (!add_action(s, "proc/sys/net/core/rps_sock_flow_entries", v, u))
			return -ENOMEM;
	} else if (t->rps_sock_flow_entries < 0) {
		str_cat(note, sizeof(note),
			"RFS left off: /proc/sys/net/core/rps_sock_flow_entries missing. ");
	}
	snprintf(s->reason, sizeof(s->reason),
		 "%s has one receive queue; its interrupt (%.0f/s) and %.1f%% of all "
		 "NET_RX softirq work land on cpu%d: steer packets to CPUs %s (RPS, RFS)",
		 n->ifname, nic_rate, netrx_share, cpu, list);
	snprintf(s->effect, sizeof(s->effect),
		 "protocol processing of %s spread over %u CPUs (Documentation/networking/"
		 "scaling.rst); NET_RX on cpu%d should drop, the interrupt itself stays",
		 n->ifname, cpuset_count(&targets), cpu);
	irqbalance_note(t, NULL, 0, note, sizeof(note));
	str_cat(note, sizeof(note), "Not persistent: a udev rule or sysctl.d makes it permanent.");
	str_copy(s->notes, sizeof(s->notes), note);
	return 0;
}

/*
 * The hot CPU runs most NET_RX work: for each NIC whose interrupts land on
 * it, more hardware channels when the NIC can have them (they spread the
 * interrupt too), else RPS when it has a single receive queue.
 */
int suggest_net(struct ctx *c, const struct finding *hot, int cpu, double netrx, double netrx_share,
		char *why, size_t why_size)
{
	int col = rate_col(&c->m->irq, cpu);

	if (col < 0)
		return 0;
	for (size_t i = 0; i < c->t->nnets; i++) {
		const struct topo_net *n = &c->t->nets[i];
		uint32_t irqs[NIC_IRQ_MAX];
		size_t nirqs = 0;
		double nic_rate = nic_irq_rate(c, n, col, irqs, NIC_IRQ_MAX, &nirqs);
		int r;

		if (nic_rate <= 0)
			continue;
		r = suggest_channels(c, hot, cpu, n, netrx, netrx_share, nic_rate, irqs, nirqs, why,
				     why_size);
		if (r < 0)
			return r;
		if (r > 0) {
			if (n->rx_queues == 1)
				str_cat(why, why_size,
					"no RPS suggestion for %s: channels-%s gives it hardware "
					"receive queues, which spread the interrupt as well as the "
					"protocol work. ",
					n->ifname, n->ifname);
			continue;
		}
		if (n->rx_queues == 1 &&
		    suggest_rps(c, hot, cpu, n, netrx_share, nic_rate, why, why_size) < 0)
			return -ENOMEM;
	}
	return 0;
}
