// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The NIC lines at the top of the IRQs panel, from the model's nics
 * section: a line per NIC that is up or has vectors, the rest on one, the
 * idle ones hidden as idle disks are. A section the sample lacks is said
 * to be unavailable, with its reason, never drawn as zeros. Draws the
 * model only.
 */
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "str.h"
#include "ui.h"

/* The NICs with a line of their own: up, or with interrupt vectors; the
 * rest (down virtual links: ifb, veth of stopped containers) share one. */
static bool nic_own_line(const struct model_nic *n)
{
	return n->up || n->nirqs > 0;
}

/* No packet, drop or error in the interval: hidden as an idle disk is
 * (iostat -z) unless z shows the idle rows. A NIC without rates is not
 * idle: its line says why. */
static bool nic_idle(const struct model_nic *n)
{
	return n->has_rates &&
	       n->rxpck_s + n->txpck_s + n->rxdrop_s + n->txdrop_s + n->rxerr_s + n->txerr_s == 0;
}

static double nic_traffic(const struct model_nic *n)
{
	return n->has_rates ? n->rxkb_s + n->txkb_s : -1;
}

/*
 * The NICs with a line of their own, busiest (kB/s in and out) first, at
 * most NIC_LINES_MAX, as indexes into the model's list in own[]; *rest
 * those sharing the last line, *hidden the idle ones left out (z shows them).
 */
static size_t nic_pick(const struct ui *ui, size_t own[NIC_LINES_MAX], size_t *rest, size_t *hidden)
{
	const struct model_nics *x = &ui->model.sections.nics;
	size_t n = 0;

	*rest = *hidden = 0;
	for (size_t i = 0; i < x->n; i++) {
		const struct model_nic *c = &x->v[i];
		size_t k;

		if (!nic_own_line(c)) {
			(*rest)++;
			continue;
		}
		if (!ui->show_idle && nic_idle(c)) {
			(*hidden)++;
			continue;
		}
		/* insertion by traffic: the list is a handful long */
		for (k = n; k > 0 && nic_traffic(&x->v[own[k - 1]]) < nic_traffic(c); k--)
			if (k < NIC_LINES_MAX)
				own[k] = own[k - 1];
		if (k < NIC_LINES_MAX) {
			own[k] = i;
			if (n < NIC_LINES_MAX)
				n++;
			else
				(*rest)++; /* the least busy one went to the shared line */
		} else {
			(*rest)++;
		}
	}
	return n;
}

size_t view_nics_pick(const struct ui *ui, size_t own[NIC_LINES_MAX])
{
	size_t rest, hidden;

	if (!ui->model.have_sample || !ui->model.sections.nics.present)
		return 0;
	return nic_pick(ui, own, &rest, &hidden);
}

int view_nics_lines(const struct ui *ui)
{
	const struct model *m = &ui->model;
	size_t own[NIC_LINES_MAX], n, rest, hidden;

	if (!m->have_sample)
		return 0;
	/* why there are none, when rows are not scarce */
	if (!m->sections.nics.present)
		return m->sections.nics.reason[0] && LINES >= 30 ? 1 : 0;
	if (m->sections.nics.n == 0)
		return 0;
	n = nic_pick(ui, own, &rest, &hidden);
	return (int)n + (rest || hidden ? 1 : 0);
}

/* The CPUs the NIC's vectors landed on: "38:cpu0 39:cpu1, 37 idle", with
 * --trace each queue's NET_RX time: "38:cpu0(12.3%)". The busiest CPU of
 * each vector is the document's; the other CPUs a vector reached come from
 * the interrupts table (its "cpus"). */
static void nic_irqs(const struct model *m, const struct model_nic *n, char *buf, size_t size)
{
	char idle[128] = "";
	bool any = false;

	buf[0] = '\0';
	for (size_t k = 0; k < n->nirqs; k++) {
		const struct model_nic_irq *q = &n->irqs[k];
		const struct model_irq *line = NULL;
		char pct[24];
		double t;

		if (q->busiest_cpu < 0 || !q->has_rate || q->total_s <= 0) {
			str_cat(idle, sizeof(idle), "%s%u", idle[0] ? " " : "", q->irq);
			continue;
		}
		for (size_t i = 0; i < m->nirqs && !line; i++)
			if (m->irqs[i].numeric && m->irqs[i].irq == q->irq)
				line = &m->irqs[i];
		str_cat(buf, size, "%s%u:cpu%d", any ? " " : "", q->irq, q->busiest_cpu);
		/* the other CPUs it reached this interval, busiest first */
		for (size_t c = 0; line && c < line->ncpus; c++)
			if (line->cpus[c].cpu != q->busiest_cpu)
				str_cat(buf, size, ",%d", line->cpus[c].cpu);
		if (model_trace_napi_dev(&m->napi, n->name, n->ifindex, (int)q->irq, &t)) {
			draw_pct(pct, sizeof(pct), 0, t);
			str_cat(buf, size, "(%s%%)", pct);
		}
		any = true;
	}
	if (idle[0])
		str_cat(buf, size, "%s%s idle", any ? ", " : "", idle);
}

/* A field of a NIC line: shown whole, or cut at a space when it may be
 * (the IRQs list, then " ..."), or left out; lower prio stays first. */
struct nic_part {
	char text[512];
	int prio;
	bool cut;
};

/* parts joined by two spaces (the head by one) into width columns: the
 * lowest-priority parts go first, never a word cut. */
static void nic_fit(struct nic_part *parts, size_t n, int width, char *buf, size_t size)
{
	bool on[8] = { false }; /* n <= 8: nic_line's parts */
	int total = 0;

	for (size_t i = 0; i < n; i++) {
		on[i] = parts[i].text[0] != '\0';
		total += on[i] ? (int)strlen(parts[i].text) + (i ? 2 : 0) : 0;
	}
	while (total > width) {
		size_t worst = 0;

		for (size_t i = 1; i < n; i++)
			if (on[i] && (!worst || parts[i].prio > parts[worst].prio))
				worst = i;
		if (!worst)
			break; /* the head alone: ui_put clips it */
		if (parts[worst].cut) {
			/* its items up to the last space that leaves room for " ..." */
			char *t = parts[worst].text;
			int over = total - width, len = (int)strlen(t);

			while (len > 0 && (len > (int)strlen(t) - over - 4 || t[len] != ' '))
				len--;
			if (len > 0 && len > (int)strcspn(t, " ")) {
				total -= (int)strlen(t) - (len + 4);
				memcpy(t + len, " ...", 5);
				parts[worst].cut = false; /* once: next time it goes whole */
				continue;
			}
		}
		on[worst] = false;
		total -= (int)strlen(parts[worst].text) + 2;
	}
	buf[0] = '\0';
	for (size_t i = 0, shown = 0; i < n; i++)
		if (on[i])
			str_cat(buf, size, "%s%s",
				!shown++     ? ""
				: shown == 2 ? " "
					     : "  ",
				parts[i].text);
}

/* One NIC's line in width columns (doc/tui.md "NICs"). */
static void nic_line(const struct ui *ui, const struct model_nic *n, int width, char *buf,
		     size_t size)
{
	const struct model *m = &ui->model;
	/* display order; prio: the NET_RX time, where it runs and the drops
	 * before the rates, the channels and the coalescing */
	enum { P_HEAD, P_NETRX, P_RX, P_TX, P_DROP, P_CH, P_IRQS, P_COAL, P__N };
	static const int prio[P__N] = { 0, 1, 4, 5, 3, 6, 2, 7 };
	struct nic_part parts[P__N];
	char irqs[512], pct[24];
	double t;

	for (int i = 0; i < P__N; i++) {
		parts[i].text[0] = '\0';
		parts[i].prio = prio[i];
		parts[i].cut = i == P_IRQS;
	}
	snprintf(parts[P_HEAD].text, sizeof(parts[P_HEAD].text), "nic %-10s %-10s", n->name,
		 !n->up	      ? "down"
		 : n->carrier ? "up"
			      : "no-carrier");
	if (model_trace_napi_dev(&m->napi, n->name, n->ifindex, -1, &t)) {
		draw_pct(pct, sizeof(pct), 0, t);
		snprintf(parts[P_NETRX].text, sizeof(parts[P_NETRX].text), "NET_RX %s%%", pct);
	}
	if (n->has_rates) {
		snprintf(parts[P_RX].text, sizeof(parts[P_RX].text), "rx %.2f kB/s %.0f pk/s",
			 n->rxkb_s, n->rxpck_s);
		snprintf(parts[P_TX].text, sizeof(parts[P_TX].text), "tx %.2f kB/s %.0f pk/s",
			 n->txkb_s, n->txpck_s);
	} else {
		snprintf(parts[P_RX].text, sizeof(parts[P_RX].text), "(no rates: %s)",
			 m->has_rates ? "new in this sample" : "waiting for a second sample");
	}
	if (n->has_rates && (n->rxdrop_s + n->txdrop_s > 0 || n->rxerr_s + n->txerr_s > 0))
		snprintf(parts[P_DROP].text, sizeof(parts[P_DROP].text), "drop %.2f err %.2f/s",
			 n->rxdrop_s + n->txdrop_s, n->rxerr_s + n->txerr_s);
	if (n->channels == MN_SET) {
		if (n->ch_combined_max || !(n->ch_rx_max || n->ch_tx_max))
			snprintf(parts[P_CH].text, sizeof(parts[P_CH].text), "combined %llu/%llu",
				 (unsigned long long)n->ch_combined,
				 (unsigned long long)n->ch_combined_max);
		else
			snprintf(parts[P_CH].text, sizeof(parts[P_CH].text),
				 "rx %llu/%llu tx %llu/%llu", (unsigned long long)n->ch_rx,
				 (unsigned long long)n->ch_rx_max, (unsigned long long)n->ch_tx,
				 (unsigned long long)n->ch_tx_max);
	} else if (n->channels == MN_UNAVAILABLE) {
		/* "channels: not supported by the driver" */
		snprintf(parts[P_CH].text, sizeof(parts[P_CH].text), "%s",
			 n->channels_reason[0] ? n->channels_reason : "channels n/a");
	} else if (m->sections.nics.ethtool_reason[0]) {
		snprintf(parts[P_CH].text, sizeof(parts[P_CH].text),
			 "channels: ethtool unavailable");
	}
	nic_irqs(m, n, irqs, sizeof(irqs));
	if (irqs[0])
		snprintf(parts[P_IRQS].text, sizeof(parts[P_IRQS].text), "IRQs %s", irqs);
	if (n->coalesce == MN_SET) {
		str_cat(parts[P_COAL].text, sizeof(parts[P_COAL].text), "coalesce");
		if (n->has_rx_usecs)
			str_cat(parts[P_COAL].text, sizeof(parts[P_COAL].text), " rx-usecs %llu",
				(unsigned long long)n->rx_usecs);
		if (n->has_adaptive_rx)
			str_cat(parts[P_COAL].text, sizeof(parts[P_COAL].text), " adaptive-rx %s",
				n->adaptive_rx ? "on" : "off");
	}
	nic_fit(parts, P__N, width, buf, size);
}

void view_nics_draw(struct ui *ui, struct rect r)
{
	const struct model *m = &ui->model;
	const struct model_nics *x = &m->sections.nics;
	size_t own[NIC_LINES_MAX], n, rest, hidden;
	char line[1024];
	int row = 0;

	if (r.h <= 0)
		return;
	if (!x->present) {
		char why[MODEL_SECTIONS_REASON_MAX];

		model_sections_short_reason(x->reason, why, sizeof(why));
		snprintf(line, sizeof(line), "nic  unavailable (%s)", why);
		ui_put(r.y, r.x, r.w, A_DIM, line);
		return;
	}
	n = nic_pick(ui, own, &rest, &hidden);
	ui->nics_hidden = hidden;
	for (size_t k = 0; k < n; k++) {
		const struct model_nic *c = &x->v[own[k]];
		char buf[1024];

		if (row < r.h) {
			char key[64];
			int attr = c->up && c->carrier ? 0 : A_DIM;

			/* the IRQs panel's selection (Enter: its queue chain) */
			snprintf(key, sizeof(key), "nic %s", c->name);
			if (ui->focus == PANEL_IRQS &&
			    strcmp(view_selected(ui, PANEL_IRQS), key) == 0)
				attr = A_REVERSE;
			nic_line(ui, c, r.w, buf, sizeof(buf));
			draw_line(r.y + row++, r.x, r.w, attr, buf);
		}
	}
	line[0] = '\0';
	if (hidden)
		str_cat(line, sizeof(line), "nic  %zu idle hidden: z shows", hidden);
	for (size_t i = 0; i < x->n; i++) {
		const struct model_nic *c = &x->v[i];
		bool drawn = false;

		for (size_t k = 0; k < n; k++)
			drawn |= own[k] == i;
		if (drawn || (nic_own_line(c) && !ui->show_idle && nic_idle(c)))
			continue;
		str_cat(line, sizeof(line), "%s%s%s",
			!line[0]			   ? "nic  also: "
			: hidden && !strstr(line, "also:") ? "; also: "
							   : ", ",
			c->name, c->up ? "" : " (down)");
	}
	if (line[0] && row < r.h)
		ui_put(r.y + row, r.x, r.w, A_DIM, line);
}
