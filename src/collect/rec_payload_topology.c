// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's topology record: IRQs, devices, NICs, block
 * queues, CPU sets and irqbalance as text lines, written when the topology
 * changes and read back (doc/recording.md). Pure: bytes in, a topology out;
 * never trusts a count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_payload.h"
#include "rec_payload_int.h"
#include "rec_text.h"
#include "turbo.h"
#include "workload.h"

/* A 'd' line: a PCI device and its vectors. */
static void w_topo_dev(struct strbuf *o, const struct topo_dev *d)
{
	sb_puts(o, "d\t");
	w_s(o, d->pci);
	w_s(o, d->driver);
	w_u(o, d->kind);
	w_s(o, d->name);
	w_i(o, d->numa_node);
	w_u(o, d->has_numa);
	w_u(o, d->has_local);
	w_set(o, &d->local_cpus);
	w_u(o, d->nirqs);
	for (size_t k = 0; k < d->nirqs; k++)
		w_u(o, d->irqs[k]);
	w_end(o, 0);
}

/* A 'q' line: an IRQ, its affinities and whether it is managed. */
static void w_topo_irq(struct strbuf *o, const struct topo_irq *q)
{
	sb_puts(o, "q\t");
	w_u(o, q->irq);
	w_u(o, q->has_smp);
	w_u(o, q->has_eff);
	w_u(o, q->has_hint);
	w_u(o, q->has_node);
	w_set(o, &q->smp_affinity);
	w_s(o, q->smp_list);
	w_set(o, &q->effective);
	w_set(o, &q->hint);
	w_i(o, q->node);
	w_s(o, q->actions);
	w_s(o, q->chip_name);
	w_s(o, q->hwirq);
	w_u(o, q->managed);
	w_u(o, q->managed_known);
	w_s(o, q->managed_why);
	w_i(o, q->dev);
	w_end(o, 0);
}

/* An 'n' line: a NIC's queues and RPS. */
static void w_topo_net(struct strbuf *o, const struct topo_net *n)
{
	sb_puts(o, "n\t");
	w_s(o, n->ifname);
	w_i(o, n->dev);
	w_u(o, n->rx_queues);
	w_u(o, n->has_rps);
	w_set(o, &n->rps_cpus);
	w_s(o, n->rps_cpus_raw);
	w_u(o, n->has_flow_cnt);
	w_u(o, n->rps_flow_cnt);
	w_end(o, 0);
}

/* A 'k' line: a block device's queue settings. */
static void w_topo_block(struct strbuf *o, const struct topo_block *b)
{
	sb_puts(o, "k\t");
	w_s(o, b->name);
	w_i(o, b->dev);
	w_s(o, b->scheduler);
	w_s(o, b->schedulers);
	w_i(o, b->nr_requests);
	w_i(o, b->read_ahead_kb);
	w_i(o, b->rotational);
	w_u(o, b->nr_hw_queues);
	w_end(o, 0);
}

int rec_payload_pack_topology(const struct topology *t, struct strbuf *o)
{
	size_t at = rec_open(o, REC_TAG_TOPOLOGY);
	const struct topo_irqbalance *ib = &t->irqbalance;

	sb_puts(o, "h\t");
	w_u(o, t->has_online);
	w_u(o, t->has_isolated);
	w_u(o, t->has_nohz_full);
	w_u(o, t->isolated_from_cmdline);
	w_u(o, t->nohz_full_from_cmdline);
	w_set(o, &t->online);
	w_set(o, &t->isolated);
	w_set(o, &t->nohz_full);
	w_i(o, t->nr_nodes);
	w_u(o, t->has_irqbalance);
	w_i(o, t->rps_sock_flow_entries);
	w_end(o, 0);
	sb_puts(o, "b\t");
	w_u(o, ib->running);
	w_i(o, ib->pid);
	w_set(o, &ib->banned_cpus);
	w_s(o, ib->config);
	w_u(o, ib->nbanned_irqs);
	for (size_t i = 0; i < ib->nbanned_irqs && i < 64; i++)
		w_u(o, ib->banned_irqs[i]);
	w_end(o, 0);
	for (size_t i = 0; i < t->ndevs; i++)
		w_topo_dev(o, &t->devs[i]);
	for (size_t i = 0; i < t->nirqs; i++)
		w_topo_irq(o, &t->irqs[i]);
	for (size_t i = 0; i < t->nnets; i++)
		w_topo_net(o, &t->nets[i]);
	for (size_t i = 0; i < t->nblocks; i++)
		w_topo_block(o, &t->blocks[i]);
	for (size_t i = 0; i < t->nmissing && i < TOPO_MISSING_MAX; i++) {
		sb_puts(o, "m\t");
		w_s(o, t->missing[i]);
		w_end(o, 0);
	}
	rec_payload_end(o, at);
	return o->err;
}

int rec_payload_pack_topology_memo(const struct topology *t, struct rec_payload_memo *m,
				   struct strbuf *out)
{
	if (!m)
		return rec_payload_pack_topology(t, out);
	/* formatting every IRQ's affinity each second: a tenth of the
	 * recorder's CPU a sample, for a topology re-read every few minutes */
	if (!m->topo_ok) {
		sb_reset(&m->topo);
		if (rec_payload_pack_topology(t, &m->topo) < 0) {
			sb_reset(&m->topo);
			return rec_payload_pack_topology(t, out);
		}
		m->topo_ok = true;
	}
	sb_append(out, m->topo.buf, m->topo.len);
	return out->err;
}

/* A 'd' line: a device and its vectors (bounded across the record). 0 or -errno. */
static int unpack_topo_dev(struct rec_text *r, struct topology *t)
{
	struct topo_dev *d;
	uint64_t n;

	d = rec_row(r, (void **)&t->devs, &t->ndevs, &t->devs_cap, sizeof(*t->devs),
		    REC_PAYLOAD_TOPO_MAX);
	if (!d)
		return r->bad ? -EBADMSG : -ENOMEM;
	rec_text_s(r, d->pci, sizeof(d->pci));
	rec_text_s(r, d->driver, sizeof(d->driver));
	d->kind = (enum topo_dev_kind)(rec_text_u(r) % (TOPO_DEV_SCSI + 1));
	rec_text_s(r, d->name, sizeof(d->name));
	d->numa_node = r_int(r);
	d->has_numa = r_b(r);
	d->has_local = r_b(r);
	r_set(r, &d->local_cpus);
	n = rec_text_u(r);
	/* all devices' vectors, bounded together */
	if (n > REC_PAYLOAD_DEVIRQS_MAX - r->total) {
		r->bad = true;
		return -EBADMSG;
	}
	r->total += (size_t)n;
	if (n) {
		d->irqs = calloc((size_t)n, sizeof(*d->irqs));
		if (!d->irqs)
			return -ENOMEM;
		d->nirqs = (size_t)n;
		for (size_t k = 0; k < d->nirqs; k++)
			d->irqs[k] = r_u32(r);
	}
	return 0;
}

/* A 'q' line: an IRQ; their numbers must ascend. 0 or -errno. */
static int unpack_topo_irq(struct rec_text *r, struct topology *t)
{
	struct topo_irq *q;

	q = rec_row(r, (void **)&t->irqs, &t->nirqs, &t->irqs_cap, sizeof(*t->irqs),
		    REC_PAYLOAD_TOPO_MAX);
	if (!q)
		return r->bad ? -EBADMSG : -ENOMEM;
	q->irq = r_u32(r);
	q->has_smp = r_b(r);
	q->has_eff = r_b(r);
	q->has_hint = r_b(r);
	q->has_node = r_b(r);
	r_set(r, &q->smp_affinity);
	rec_text_s(r, q->smp_list, sizeof(q->smp_list));
	r_set(r, &q->effective);
	r_set(r, &q->hint);
	q->node = r_int(r);
	rec_text_s(r, q->actions, sizeof(q->actions));
	rec_text_s(r, q->chip_name, sizeof(q->chip_name));
	rec_text_s(r, q->hwirq, sizeof(q->hwirq));
	q->managed = r_b(r);
	q->managed_known = r_b(r);
	rec_text_s(r, q->managed_why, sizeof(q->managed_why));
	q->dev = r_int(r);
	/* topology_irq() searches by number: they must ascend */
	if (t->nirqs > 1 && q->irq <= q[-1].irq)
		r->bad = true;
	return 0;
}

/* An 'n' line: a NIC. 0 or -errno. */
static int unpack_topo_net(struct rec_text *r, struct topology *t)
{
	struct topo_net *n;

	n = rec_row(r, (void **)&t->nets, &t->nnets, &t->nets_cap, sizeof(*t->nets),
		    REC_PAYLOAD_TOPO_MAX);
	if (!n)
		return r->bad ? -EBADMSG : -ENOMEM;
	rec_text_s(r, n->ifname, sizeof(n->ifname));
	n->dev = r_int(r);
	n->rx_queues = r_u32(r);
	n->has_rps = r_b(r);
	r_set(r, &n->rps_cpus);
	rec_text_s(r, n->rps_cpus_raw, sizeof(n->rps_cpus_raw));
	n->has_flow_cnt = r_b(r);
	n->rps_flow_cnt = rec_text_u(r);
	return 0;
}

/* A 'k' line: a block device. 0 or -errno. */
static int unpack_topo_block(struct rec_text *r, struct topology *t)
{
	struct topo_block *b;

	b = rec_row(r, (void **)&t->blocks, &t->nblocks, &t->blocks_cap, sizeof(*t->blocks),
		    REC_PAYLOAD_TOPO_MAX);
	if (!b)
		return r->bad ? -EBADMSG : -ENOMEM;
	rec_text_s(r, b->name, sizeof(b->name));
	b->dev = r_int(r);
	rec_text_s(r, b->scheduler, sizeof(b->scheduler));
	rec_text_s(r, b->schedulers, sizeof(b->schedulers));
	b->nr_requests = (long)r_i(r);
	b->read_ahead_kb = (long)r_i(r);
	b->rotational = r_int(r);
	b->nr_hw_queues = r_u32(r);
	return 0;
}

static int unpack_topo_line(struct rec_text *r, struct topology *t)
{
	struct topo_irqbalance *ib = &t->irqbalance;

	switch (rec_text_kind(r)) {
	case 'h':
		t->has_online = r_b(r);
		t->has_isolated = r_b(r);
		t->has_nohz_full = r_b(r);
		t->isolated_from_cmdline = r_b(r);
		t->nohz_full_from_cmdline = r_b(r);
		r_set(r, &t->online);
		r_set(r, &t->isolated);
		r_set(r, &t->nohz_full);
		t->nr_nodes = r_int(r);
		t->has_irqbalance = r_b(r);
		t->rps_sock_flow_entries = (long)r_i(r);
		return 0;
	case 'b':
		ib->running = r_b(r);
		ib->pid = r_int(r);
		r_set(r, &ib->banned_cpus);
		rec_text_s(r, ib->config, sizeof(ib->config));
		ib->nbanned_irqs = rec_text_u(r);
		if (ib->nbanned_irqs > 64) {
			ib->nbanned_irqs = 0;
			r->bad = true;
		}
		for (size_t i = 0; i < ib->nbanned_irqs; i++)
			ib->banned_irqs[i] = r_u32(r);
		return 0;
	case 'd':
		return unpack_topo_dev(r, t);
	case 'q':
		return unpack_topo_irq(r, t);
	case 'n':
		return unpack_topo_net(r, t);
	case 'k':
		return unpack_topo_block(r, t);
	case 'm':
		if (t->nmissing >= TOPO_MISSING_MAX) {
			r->bad = true;
			return -EBADMSG;
		}
		rec_text_s(r, t->missing[t->nmissing], sizeof(t->missing[0]));
		t->nmissing++;
		return 0;
	default:
		return 0; /* a later version's line */
	}
}

int rec_payload_unpack_topology(const char *p, size_t len, struct topology *ret)
{
	struct topology t = { 0 };
	struct rec_text r;
	int e = 0;

	t.rps_sock_flow_entries = -1;
	rec_text_init(&r, p, len);
	while (e >= 0 && !r.bad && rec_text_line(&r))
		e = unpack_topo_line(&r, &t);
	if (e >= 0 && r.bad)
		e = -EBADMSG;
	/* indexes into devs: a recording may not point outside */
	for (size_t i = 0; e >= 0 && i < t.nirqs; i++)
		if (t.irqs[i].dev < -1 || t.irqs[i].dev >= (int)t.ndevs)
			e = -EBADMSG;
	for (size_t i = 0; e >= 0 && i < t.nnets; i++)
		if (t.nets[i].dev < -1 || t.nets[i].dev >= (int)t.ndevs)
			e = -EBADMSG;
	for (size_t i = 0; e >= 0 && i < t.nblocks; i++)
		if (t.blocks[i].dev < -1 || t.blocks[i].dev >= (int)t.ndevs)
			e = -EBADMSG;
	if (e < 0) {
		topology_free(&t);
		return e;
	}
	*ret = t;
	return 0;
}
