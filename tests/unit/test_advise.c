// SPDX-License-Identifier: GPL-2.0-or-later
/* The advisor on the scenario trees of tests/fixtures/advise: each scenario's
 * findings and suggestions, exactly; and the pure helpers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "advise.h"
#include "dbrole.h"
#include "workload.h"
#include "metrics.h"
#include "metrics_proc.h"
#include "metrics_trace.h"
#include "snapshot.h"
#include "topology.h"

struct scenario {
	struct snapshot s0, s1;
	struct metrics m;
	struct topology t;
	struct advice a;
};

/* The pair dir/t0, dir/t1 (interval itv_cs) advised into sc. */
static void load_dir(const char *dir, uint64_t itv_cs, struct scenario *sc)
{
	char d0[512], d1[512];
	struct root r;
	uint64_t itv;

	memset(sc, 0, sizeof(*sc));
	snprintf(d0, sizeof(d0), "%s/t0", dir);
	snprintf(d1, sizeof(d1), "%s/t1", dir);
	assert_int_equal(snapshot_load_tree(d0, &sc->s0), 0);
	assert_int_equal(snapshot_load_tree(d1, &sc->s1), 0);
	itv = metrics_interval_cs(&sc->s0, &sc->s1);
	assert_int_equal(itv, itv_cs);
	assert_int_equal(metrics_compute(&sc->s0, &sc->s1, itv, &sc->m), 0);
	assert_int_equal(root_open(d1, &r), 0);
	assert_int_equal(topology_collect(&r, &sc->t), 0);
	root_close(&r);
	assert_int_equal(
	    advise_run(&(struct advise_input){ .cur = &sc->s1, .m = &sc->m, .t = &sc->t }, &sc->a),
	    0);
}

static void load(const char *name, struct scenario *sc)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/advise/%s", FIXTURES_DIR, name);
	load_dir(dir, 1000, sc);
}

static void unload(struct scenario *sc)
{
	advice_free(&sc->a);
	topology_free(&sc->t);
	metrics_free(&sc->m);
	snapshot_free(&sc->s0);
	snapshot_free(&sc->s1);
}

static const struct advise_action *action_for(const struct suggestion *s, const char *path)
{
	for (size_t i = 0; i < s->nactions; i++)
		if (strcmp(s->actions[i].path, path) == 0)
			return &s->actions[i];
	return NULL;
}

static void assert_action(const struct suggestion *s, const char *path, const char *value,
			  const char *undo)
{
	const struct advise_action *a = action_for(s, path);

	if (!a)
		fail_msg("%s: no write of %s", s->id, path);
	assert_string_equal(a->value, value);
	assert_string_equal(a->undo, undo);
}

static void test_mpt2sas(void **state)
{
	struct scenario sc;
	const struct suggestion *s;
	const struct finding *f;
	struct strbuf sb = { 0 };

	(void)state;
	load("mpt2sas", &sc);
	assert_int_equal(sc.a.nfindings, 1);
	f = advice_finding(&sc.a, "hot-cpu-cpu1");
	assert_non_null(f);
	assert_int_equal(f->kind, FIND_HOT_CPU);
	assert_non_null(strstr(f->reason, "%irq 35.00 + %soft 30.00 = 65.00%"));
	assert_non_null(strstr(f->reason, "81000 interrupts/s"));
	assert_non_null(strstr(f->detail, "IRQ 107 mpt2sas0-msix0 [host0 0000:03:00.0] 6.2%"));
	assert_non_null(strstr(f->detail, "device host0: 16 IRQs, 98.8%"));
	assert_non_null(strstr(f->detail, "BLOCK 99.3%"));
	assert_int_equal(sc.a.nsuggestions, 1);
	s = advice_suggestion(&sc.a, "irq-spread-host0");
	assert_non_null(s);
	assert_string_equal(s->finding, "hot-cpu-cpu1");
	assert_int_equal(s->nactions, 16);
	/* one per CPU over local_cpulist 0-7, in IRQ order, wrapping */
	for (unsigned i = 0; i < 16; i++) {
		char path[64], v[8];

		snprintf(path, sizeof(path), "proc/irq/%u/smp_affinity_list", 107 + i);
		snprintf(v, sizeof(v), "%u", i % 8);
		assert_action(s, path, v, "0-7");
		assert_true(s->actions[i].is_irq);
	}
	assert_non_null(strstr(s->reason, "80000 interrupts/s"));
	assert_non_null(strstr(s->effect, "10000 interrupts/s per CPU on 8 CPUs"));
	assert_null(strstr(s->notes, "irqbalance"));
	/* no debugfs in the tree: the old mpt2sas driver is not known to let the
	 * kernel manage its vectors (seed 002 spread them by hand), and the
	 * notes say it is a guess */
	assert_false(topology_irq(&sc.t, 107)->managed_known);
	assert_non_null(strstr(s->notes, "Managed or not is guessed"));
	assert_non_null(strstr(s->notes, "driver mpt2sas"));
	advise_commands(s, false, &sb);
	assert_non_null(strstr(sb_cstr(&sb), "echo 0 > /proc/irq/107/smp_affinity_list\n"));
	sb_reset(&sb);
	advise_commands(s, true, &sb);
	/* undo in reverse order */
	assert_memory_equal(sb_cstr(&sb), "echo 0-7 > /proc/irq/122/smp_affinity_list\n", 43);
	sb_free(&sb);
	unload(&sc);
}

static void test_nvme_managed(void **state)
{
	struct scenario sc;
	const struct finding *f;

	(void)state;
	load("nvme-managed", &sc);
	assert_non_null(advice_finding(&sc.a, "hot-cpu-cpu2"));
	f = advice_finding(&sc.a, "managed-irqs-nvme0");
	assert_non_null(f);
	assert_non_null(strstr(f->detail, "IRQD_AFFINITY_MANAGED"));
	assert_int_equal(sc.a.nsuggestions, 0);
	/* the admin queue's vector is not managed, the I/O ones are */
	assert_false(topology_irq(&sc.t, 40)->managed);
	assert_true(topology_irq(&sc.t, 43)->managed);
	unload(&sc);
}

/* The same HBA under mpt3sas, one vector per CPU, no debugfs: managed by
 * its driver, so no spread, and the finding says it is a guess and why. */
static void test_mpt3sas_managed(void **state)
{
	struct scenario sc;
	const struct finding *f;

	(void)state;
	load("mpt3sas-managed", &sc);
	assert_int_equal(sc.a.nfindings, 2);
	assert_non_null(advice_finding(&sc.a, "hot-cpu-cpu1"));
	f = advice_finding(&sc.a, "managed-irqs-host0");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "most likely kernel-managed"));
	assert_non_null(strstr(f->detail, "Guessed, not read: /sys/kernel/debug/irq/irqs/N"));
	assert_non_null(
	    strstr(f->detail, "driver mpt3sas with 8 vectors for 8 CPUs uses PCI_IRQ_AFFINITY"));
	assert_int_equal(sc.a.nsuggestions, 0);
	assert_true(topology_irq(&sc.t, 108)->managed);
	assert_false(topology_irq(&sc.t, 108)->managed_known);
	unload(&sc);
}

/* suggest_spread with every member of a multi-IRQ group guessed managed
 * (seed 002's host, its driver swapped in memory): no suggestion. */
static void test_spread_all_guessed_managed(void **state)
{
	struct scenario sc;
	const struct finding *f;

	(void)state;
	load("mpt2sas", &sc);
	for (size_t i = 0; i < sc.t.nirqs; i++) {
		struct topo_irq *q = &sc.t.irqs[i];

		if (q->irq < 107 || q->irq > 122)
			continue;
		q->managed = true;
		snprintf(q->managed_why, sizeof(q->managed_why),
			 "driver megaraid_sas allocates its vectors with PCI_IRQ_AFFINITY");
	}
	advice_free(&sc.a);
	assert_int_equal(
	    advise_run(&(struct advise_input){ .cur = &sc.s1, .m = &sc.m, .t = &sc.t }, &sc.a), 0);
	assert_null(advice_suggestion(&sc.a, "irq-spread-host0"));
	assert_int_equal(sc.a.nsuggestions, 0);
	f = advice_finding(&sc.a, "managed-irqs-host0");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "16 of its IRQs load cpu1 but are most likely"));
	assert_non_null(strstr(f->detail, "and driver megaraid_sas allocates"));
	/* half of them: the other half is spread, the notes name the ones left */
	for (size_t i = 0; i < sc.t.nirqs; i++)
		if (sc.t.irqs[i].irq >= 115)
			sc.t.irqs[i].managed = false;
	advice_free(&sc.a);
	assert_int_equal(
	    advise_run(&(struct advise_input){ .cur = &sc.s1, .m = &sc.m, .t = &sc.t }, &sc.a), 0);
	assert_int_equal(advice_suggestion(&sc.a, "irq-spread-host0")->nactions, 8);
	assert_non_null(
	    strstr(advice_suggestion(&sc.a, "irq-spread-host0")->notes,
		   "left alone (kernel-managed, guessed from the driver): IRQ 107 108 109"));
	unload(&sc);
}

static void test_guess_managed(void **state)
{
	char why[96];

	(void)state;
	assert_true(topology_guess_managed("nvme0q1", "nvme", 9, 8, why, sizeof(why)));
	assert_false(topology_guess_managed("nvme0q0", "nvme", 9, 8, why, sizeof(why)));
	assert_true(topology_guess_managed("virtio2-req.0", "virtio-pci", 3, 2, why, sizeof(why)));
	assert_true(topology_guess_managed("smartpqi", "smartpqi", 4, 16, why, sizeof(why)));
	assert_true(
	    topology_guess_managed("megasas0-msix3", "megaraid_sas", 4, 16, why, sizeof(why)));
	assert_string_equal(why, "driver megaraid_sas allocates its vectors with PCI_IRQ_AFFINITY");
	/* mpt3sas turns affinity off for an HBA with fewer vectors than CPUs */
	assert_true(topology_guess_managed("mpt3sas0-msix0", "mpt3sas", 16, 16, why, sizeof(why)));
	assert_false(topology_guess_managed("mpt3sas0-msix0", "mpt3sas", 8, 16, why, sizeof(why)));
	assert_false(topology_guess_managed("mpt3sas0-msix0", "mpt3sas", 8, 0, why, sizeof(why)));
	/* seed 002: the old standalone mpt2sas driver spreads nothing itself */
	assert_false(topology_guess_managed("mpt2sas0-msix0", "mpt2sas", 16, 8, why, sizeof(why)));
	assert_false(topology_guess_managed("eth0-TxRx-0", "ixgbe", 8, 8, why, sizeof(why)));
	assert_false(topology_guess_managed("mpt2sas0-msix0", "", 0, 8, why, sizeof(why)));
}

static void readvise(struct scenario *sc);
static void readvise_trace(struct scenario *sc, const struct trace_metrics *tm);

/* A full dirty page cache is told apart from a slow disk: its own finding,
 * and a sentence on the disk finding of the same sample. */
static void test_writeback_throttled(void **state)
{
	struct scenario sc;
	const struct finding *f;
	uint64_t kb;

	(void)state;
	load("writeback-throttled", &sc);
	assert_non_null(sc.m.workload);
	assert_int_equal(sc.m.workload->wb_state, WB_THROTTLED);
	kb = sc.s1.workload->writeback.page_size / 1024;
	assert_int_equal(sc.a.nfindings, 2);
	assert_int_equal(sc.a.nsuggestions, 0);
	f = advice_finding(&sc.a, "writeback-throttled");
	assert_non_null(f);
	assert_int_equal(f->kind, FIND_WRITEBACK_THROTTLED);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_string_equal(advise_kind_name(f->kind), "writeback_throttled");
	if (kb == 4) {
		assert_string_equal(
		    f->reason,
		    "dirty page cache full: nr_dirty 1640000 kB + nr_writeback 72000 kB = "
		    "1712000 kB, past 1415576 kB where writers are throttled "
		    "(nr_dirty_background_threshold 943716 kB, nr_dirty_threshold 1887436 kB): "
		    "writers sleep in balance_dirty_pages()");
	}
	assert_non_null(strstr(f->detail, "settings: vm.dirty_ratio=20, "
					  "vm.dirty_background_ratio=10, vm.dirty_bytes=0"));
	assert_non_null(strstr(f->detail, "vm.dirty_writeback_centisecs=500."));
	assert_non_null(strstr(f->detail, "No suggestion: vm.dirty_* is workload-specific"));
	f = advice_finding(&sc.a, "disk-saturated-sdb");
	assert_non_null(f);
	assert_non_null(strstr(f->detail, "Writers are also being throttled by the dirty page "
					  "cache (writeback-throttled)"));

	/* at the hard limit: the same finding, which says so */
	sc.m.workload->wb_state = WB_BLOCKED;
	readvise(&sc);
	assert_non_null(
	    strstr(advice_finding(&sc.a, "writeback-throttled")->reason, "at its hard limit"));
	/* background writeback only: writers are not throttled, nothing said */
	sc.m.workload->wb_state = WB_BACKGROUND;
	readvise(&sc);
	assert_null(advice_finding(&sc.a, "writeback-throttled"));
	assert_null(strstr(advice_finding(&sc.a, "disk-saturated-sdb")->detail, "Writers"));
	/* sysctls unreadable: the finding still stands, and says so */
	sc.m.workload->wb_state = WB_THROTTLED;
	memset(sc.s1.workload->writeback.has_sysctl, 0,
	       sizeof(sc.s1.workload->writeback.has_sysctl));
	readvise(&sc);
	assert_non_null(strstr(advice_finding(&sc.a, "writeback-throttled")->detail,
			       "settings: vm.dirty_* not readable."));
	unload(&sc);
}

static struct topo_irq *irq_of(struct scenario *sc, uint32_t irq)
{
	struct topo_irq *q = (struct topo_irq *)topology_irq(&sc->t, irq);

	assert_non_null(q);
	return q;
}

/* affinity_hint: the driver's choice wins when it meets the targets; a hint
 * on a CPU that is not a target (isolated here) is ignored. */
static void test_spread_affinity_hint(void **state)
{
	struct scenario sc;
	const struct suggestion *s;
	struct topo_irq *q;

	(void)state;
	load("mpt2sas", &sc);
	q = irq_of(&sc, 110);
	q->has_hint = true;
	memset(&q->hint, 0, sizeof(q->hint));
	cpuset_set(&q->hint, 5);
	q = irq_of(&sc, 111);
	q->has_hint = true;
	memset(&q->hint, 0, sizeof(q->hint));
	cpuset_set(&q->hint, 6);
	cpuset_set(&sc.t.isolated, 6);
	readvise(&sc);
	s = advice_suggestion(&sc.a, "irq-spread-host0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 16);
	assert_action(s, "proc/irq/107/smp_affinity_list", "0", "0-7");
	assert_action(s, "proc/irq/109/smp_affinity_list", "2", "0-7");
	/* the hinted IRQ takes its hint and does not use up a round-robin turn */
	assert_action(s, "proc/irq/110/smp_affinity_list", "5", "0-7");
	assert_action(s, "proc/irq/111/smp_affinity_list", "3", "0-7");
	assert_action(s, "proc/irq/112/smp_affinity_list", "4", "0-7");
	assert_action(s, "proc/irq/113/smp_affinity_list", "5", "0-7");
	assert_action(s, "proc/irq/114/smp_affinity_list", "7", "0-7");
	for (size_t i = 0; i < s->nactions; i++)
		assert_string_not_equal(s->actions[i].value, "6");
	unload(&sc);
}

/* An offline CPU inside the device's local_cpulist is never a target. */
static void test_spread_offline_cpu(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("mpt2sas", &sc);
	assert_true(cpuset_has(&sc.t.devs[0].local_cpus, 3));
	sc.t.online.w[0] &= ~(UINT64_C(1) << 3);
	readvise(&sc);
	s = advice_suggestion(&sc.a, "irq-spread-host0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 16);
	for (size_t i = 0; i < s->nactions; i++)
		assert_string_not_equal(s->actions[i].value, "3");
	assert_action(s, "proc/irq/109/smp_affinity_list", "2", "0-7");
	assert_action(s, "proc/irq/110/smp_affinity_list", "4", "0-7");
	assert_action(s, "proc/irq/114/smp_affinity_list", "0", "0-7");
	assert_non_null(strstr(s->reason, "over 0-2,4-7"));
	/* no online list at all: offline CPUs cannot be excluded, no suggestion */
	sc.t.has_online = false;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "irq-spread-host0"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu1")->detail,
			       "/sys/devices/system/cpu/online is missing"));
	unload(&sc);
}

/* nr-requests-X: a saturated SSD whose aqu-sz sits at its nr_requests. */
static void test_ssd_queue_full(void **state)
{
	struct scenario sc;
	const struct suggestion *s;
	struct topo_block *b;
	struct strbuf sb = { 0 };

	(void)state;
	load("ssd-queue-full", &sc);
	assert_int_equal(sc.a.nfindings, 1);
	assert_non_null(advice_finding(&sc.a, "disk-saturated-sde"));
	assert_int_equal(sc.a.nsuggestions, 1);
	s = advice_suggestion(&sc.a, "nr-requests-sde");
	assert_non_null(s);
	assert_string_equal(s->finding, "disk-saturated-sde");
	assert_int_equal(s->nactions, 1);
	assert_action(s, "sys/block/sde/queue/nr_requests", "128", "64");
	assert_string_equal(s->reason, "sde: aqu-sz 60.0 is at its queue limit nr_requests=64 on "
				       "a non-rotational device: requests wait for a tag");
	advise_commands(s, true, &sb);
	assert_string_equal(sb_cstr(&sb), "echo 64 > /sys/block/sde/queue/nr_requests\n");
	sb_free(&sb);
	/* below 90 % of the limit: the queue is not what waits */
	b = (struct topo_block *)topology_block(&sc.t, "sde");
	b->nr_requests = 128;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "nr-requests-sde"));
	/* already at 2048: no doubling past it */
	b->nr_requests = 2048;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "nr-requests-sde"));
	/* a spinning disk: never (its answer is the scheduler) */
	b->nr_requests = 64;
	b->rotational = 1;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "nr-requests-sde"));
	unload(&sc);
}

static void test_nic_single_queue(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("nic-single-queue", &sc);
	assert_non_null(advice_finding(&sc.a, "hot-cpu-cpu0"));
	assert_int_equal(sc.a.nsuggestions, 1);
	s = advice_suggestion(&sc.a, "rps-eth0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 3);
	assert_action(s, "sys/class/net/eth0/queues/rx-0/rps_cpus", "0000000f", "00000000");
	assert_action(s, "sys/class/net/eth0/queues/rx-0/rps_flow_cnt", "32768", "0");
	assert_action(s, "proc/sys/net/core/rps_sock_flow_entries", "32768", "0");
	assert_non_null(strstr(s->reason, "one receive queue"));
	/* no netlink answers in this tree: no ethtool -L, and the finding says why */
	assert_null(advice_suggestion(&sc.a, "channels-eth0"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu0")->detail,
			       "no ethtool -L suggestion for eth0: its channel counts are unknown "
			       "(no link list: netlink/rtnl/links.bin not recorded)"));
	unload(&sc);
}

static void test_nic_few_channels(void **state)
{
	struct scenario sc;
	const struct suggestion *s;
	struct strbuf sb = { 0 };

	(void)state;
	load("nic-few-channels", &sc);
	assert_int_equal(sc.a.nfindings, 1);
	assert_non_null(advice_finding(&sc.a, "hot-cpu-cpu0"));
	assert_int_equal(sc.a.nsuggestions, 2);
	/* both queue vectors sit on cpu0: spread them now ... */
	s = advice_suggestion(&sc.a, "irq-spread-eth0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 2);
	assert_action(s, "proc/irq/100/smp_affinity_list", "0", "0-7");
	assert_action(s, "proc/irq/101/smp_affinity_list", "1", "0-7");
	/* ... and give the NIC a queue per local CPU: min(max 8, 8 usable CPUs) */
	s = advice_suggestion(&sc.a, "channels-eth0");
	assert_non_null(s);
	assert_string_equal(s->finding, "hot-cpu-cpu0");
	assert_int_equal(s->severity, ADV_WARNING);
	assert_int_equal(s->nactions, 1);
	assert_action(s, "netlink/ethtool/eth0/channels/combined", "8", "2");
	assert_false(s->actions[0].is_irq);
	assert_string_equal(s->reason,
			    "eth0 has 2 of at most 8 combined channels for 8 usable local CPUs "
			    "(0-7); its interrupts (24000/s) and 99.5% of all NET_RX softirq work "
			    "(30000/s) land on cpu0: raise its channels to 8");
	assert_non_null(strstr(s->effect, "8 receive queues instead of 2"));
	assert_non_null(strstr(s->notes, "Apply this before irq-spread-eth0"));
	assert_non_null(strstr(s->notes, "CombinedChannels="));
	assert_null(strstr(s->notes, "irqbalance"));
	advise_commands(s, false, &sb);
	assert_string_equal(sb_cstr(&sb), "ethtool -L eth0 combined 8\n");
	sb_reset(&sb);
	advise_commands(s, true, &sb);
	assert_string_equal(sb_cstr(&sb), "ethtool -L eth0 combined 2\n");
	sb_free(&sb);
	/* a multi-queue NIC: never RPS */
	assert_null(advice_suggestion(&sc.a, "rps-eth0"));
	unload(&sc);
}

static void test_nic_one_channel(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("nic-one-channel", &sc);
	assert_int_equal(sc.a.nsuggestions, 1);
	s = advice_suggestion(&sc.a, "channels-eth0");
	assert_non_null(s);
	assert_action(s, "netlink/ethtool/eth0/channels/combined", "4", "1");
	assert_non_null(strstr(s->reason, "1 of at most 4 combined channels for 4 usable local"));
	/* one receive queue, but the hardware has more: channels, not RPS */
	assert_null(advice_suggestion(&sc.a, "rps-eth0"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu0")->detail,
			       "no RPS suggestion for eth0: channels-eth0"));
	unload(&sc);
}

/* The rule's other branches, from nic-one-channel with its recorded
 * channels changed: advise is pure, so the same sample advises again. */
static void readvise(struct scenario *sc)
{
	advice_free(&sc->a);
	assert_int_equal(
	    advise_run(&(struct advise_input){ .cur = &sc->s1, .m = &sc->m, .t = &sc->t }, &sc->a),
	    0);
}

static void test_channels_rules(void **state)
{
	struct scenario sc;
	struct nic_raw *n;
	struct workload_raw *workload;
	const char *detail;

	(void)state;
	load("nic-one-channel", &sc);
	assert_non_null(sc.s1.workload);
	n = (struct nic_raw *)nic_table_find(&sc.s1.workload->nics, "eth0");
	assert_non_null(n);
	assert_true(n->has_channels);

	/* at most one channel: RPS stays the answer */
	n->channels.combined_max = 1;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "channels-eth0"));
	assert_non_null(advice_suggestion(&sc.a, "rps-eth0"));
	detail = advice_finding(&sc.a, "hot-cpu-cpu0")->detail;
	assert_non_null(strstr(detail, "eth0 cannot have more than one channel"));

	/* already one channel per usable CPU: nothing to raise (max 8, 4 CPUs) */
	n->channels.combined_max = 8;
	n->channels.combined = 4;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "channels-eth0"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu0")->detail,
			       "eth0 already has 4 combined channels (at most 8) for 4 usable"));

	/* N = min(max, usable CPUs): an isolated CPU is not one */
	n->channels.combined = 1;
	cpuset_set(&sc.t.isolated, 3);
	readvise(&sc);
	assert_action(advice_suggestion(&sc.a, "channels-eth0"),
		      "netlink/ethtool/eth0/channels/combined", "3", "1");
	memset(&sc.t.isolated, 0, sizeof(sc.t.isolated));

	/* separate rx/tx channels: `combined N` is not the knob */
	n->channels.rx = n->channels.rx_max = 4;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "channels-eth0"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu0")->detail,
			       "it uses separate channels (rx 4 of 4"));
	n->channels.rx = n->channels.rx_max = 0;

	/* the driver refused the question: never a guess, the reason instead */
	n->has_channels = false;
	n->channels_status.err = -EOPNOTSUPP;
	snprintf(n->channels_status.reason, sizeof(n->channels_status.reason),
		 "channels: not supported by the driver");
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "channels-eth0"));
	assert_non_null(advice_suggestion(&sc.a, "rps-eth0"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu0")->detail,
			       "its channel counts are unknown (channels: not supported by the "
			       "driver)"));

	/* no NIC settings in the sample at all (collected with COLLECT_SKIP_EXT) */
	workload = sc.s1.workload;
	sc.s1.workload = NULL;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "channels-eth0"));
	assert_non_null(
	    strstr(advice_finding(&sc.a, "hot-cpu-cpu0")->detail, "(NIC settings not sampled)"));
	sc.s1.workload = workload;

	/* irqbalance running: the notes say who places the new IRQs */
	n->has_channels = true;
	sc.t.irqbalance.running = true;
	sc.t.irqbalance.pid = 812;
	readvise(&sc);
	assert_non_null(strstr(advice_suggestion(&sc.a, "channels-eth0")->notes,
			       "irqbalance (pid 812) is running: it places the new IRQs"));
	unload(&sc);
}

static void test_ethtool_path(void **state)
{
	char ifname[IOT_NAME_MAX];

	(void)state;
	assert_true(
	    advise_ethtool_path("netlink/ethtool/eth0/channels/combined", ifname, sizeof(ifname)));
	assert_string_equal(ifname, "eth0");
	assert_true(advise_ethtool_path("netlink/ethtool/enp3s0f1np1/channels/combined", NULL, 0));
	assert_false(advise_ethtool_path("netlink/ethtool//channels/combined", NULL, 0));
	assert_false(advise_ethtool_path("netlink/ethtool/../channels/combined", NULL, 0));
	assert_false(advise_ethtool_path("netlink/ethtool/a/b/channels/combined", NULL, 0));
	assert_false(advise_ethtool_path("netlink/ethtool/a b/channels/combined", NULL, 0));
	assert_false(
	    advise_ethtool_path("netlink/ethtool/sixteen-chars-xx/channels/combined", NULL, 0));
	assert_false(advise_ethtool_path("netlink/ethtool/eth0/channels/rx", NULL, 0));
	assert_false(advise_ethtool_path("sys/class/net/eth0/queues/rx-0/rps_cpus", NULL, 0));
}

static void test_irqbalance(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("irqbalance", &sc);
	assert_true(sc.t.irqbalance.running);
	assert_int_equal(sc.t.irqbalance.pid, 812);
	assert_true(cpuset_has(&sc.t.irqbalance.banned_cpus, 0));
	assert_non_null(advice_finding(&sc.a, "irqbalance-irqbalance"));
	s = advice_suggestion(&sc.a, "irq-spread-eth1");
	assert_non_null(s);
	/* CPU 0 is banned from irqbalance: targets 1-3; IRQ 62 already on 3 */
	assert_int_equal(s->nactions, 3);
	assert_action(s, "proc/irq/60/smp_affinity_list", "1", "3");
	assert_action(s, "proc/irq/61/smp_affinity_list", "2", "3");
	assert_action(s, "proc/irq/63/smp_affinity_list", "1", "3");
	assert_non_null(strstr(s->notes, "--banirq=60 --banirq=61 --banirq=62 --banirq=63"));
	assert_non_null(strstr(s->notes, "/etc/default/irqbalance"));
	unload(&sc);
}

static void test_isolated(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("isolated", &sc);
	s = advice_suggestion(&sc.a, "irq-spread-eth0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 3);
	assert_action(s, "proc/irq/71/smp_affinity_list", "1", "0");
	assert_action(s, "proc/irq/72/smp_affinity_list", "2", "0");
	assert_action(s, "proc/irq/73/smp_affinity_list", "3", "0");
	for (size_t i = 0; i < s->nactions; i++)
		assert_true(s->actions[i].value[0] < '4');
	unload(&sc);
}

/* The same host without the sysfs lists: isolcpus=/nohz_full= of
 * /proc/cmdline keep the spread off CPUs 4-7. */
static void test_isolated_cmdline(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("isolated-cmdline", &sc);
	assert_true(sc.t.isolated_from_cmdline);
	assert_null(advice_finding(&sc.a, "topology-missing-topology"));
	s = advice_suggestion(&sc.a, "irq-spread-eth0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 3);
	assert_action(s, "proc/irq/71/smp_affinity_list", "1", "0");
	assert_action(s, "proc/irq/73/smp_affinity_list", "3", "0");
	assert_non_null(strstr(s->reason, "over 0-3"));
	unload(&sc);
}

static void test_numa1(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("numa1", &sc);
	assert_int_equal(sc.t.nr_nodes, 2);
	s = advice_suggestion(&sc.a, "irq-spread-eth2");
	assert_non_null(s);
	assert_int_equal(s->nactions, 4);
	assert_action(s, "proc/irq/90/smp_affinity_list", "4", "0-7");
	assert_action(s, "proc/irq/93/smp_affinity_list", "7", "0-7");
	assert_non_null(strstr(s->reason, "over 4-7"));
	unload(&sc);
}

static void test_healthy(void **state)
{
	struct scenario sc;

	(void)state;
	load("healthy", &sc);
	assert_int_equal(sc.a.nfindings, 0);
	assert_int_equal(sc.a.nsuggestions, 0);
	unload(&sc);
}

static void test_disk_saturated(void **state)
{
	struct scenario sc;
	const struct finding *f;
	const struct suggestion *s;

	(void)state;
	load("disk-saturated", &sc);
	f = advice_finding(&sc.a, "disk-saturated-sdb");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "util 99.50%, aqu-sz 28.00"));
	assert_null(advice_finding(&sc.a, "disk-slow-sdb"));
	s = advice_suggestion(&sc.a, "scheduler-sdb");
	assert_non_null(s);
	assert_action(s, "sys/block/sdb/queue/scheduler", "mq-deadline", "none");
	assert_int_equal(sc.a.nsuggestions, 1);
	unload(&sc);
}

static void test_disk_slow(void **state)
{
	struct scenario sc;
	const struct finding *f;

	(void)state;
	load("disk-slow", &sc);
	f = advice_finding(&sc.a, "disk-slow-sdc");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "await 45.00 ms at util 15.00%"));
	assert_null(advice_finding(&sc.a, "disk-saturated-sdc"));
	assert_int_equal(sc.a.nsuggestions, 0);
	unload(&sc);
}

static void test_iostats_off(void **state)
{
	struct scenario sc;
	const struct suggestion *s;

	(void)state;
	load("iostats-off", &sc);
	assert_non_null(advice_finding(&sc.a, "iostats-off-sdd"));
	assert_null(advice_finding(&sc.a, "iostats-off-sda"));
	s = advice_suggestion(&sc.a, "iostats-sdd");
	assert_non_null(s);
	assert_action(s, "sys/block/sdd/queue/iostats", "1", "0");
	unload(&sc);
}

static void test_md_raid0(void **state)
{
	struct scenario sc;
	const struct finding *f;

	(void)state;
	load("md-raid0", &sc);
	f = advice_finding(&sc.a, "member-imbalance-md0-sdf");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "await 312.40 ms vs 132.60 ms median of the other 3"));
	assert_null(advice_finding(&sc.a, "member-imbalance-md0-sdc"));
	unload(&sc);
}

static void test_container(void **state)
{
	struct scenario sc;
	const struct finding *f;

	(void)state;
	load("container", &sc);
	f = advice_finding(&sc.a, "hot-cpu-cpu1");
	assert_non_null(f);
	assert_non_null(strstr(f->detail, "cannot be read"));
	f = advice_finding(&sc.a, "topology-missing-topology");
	assert_non_null(f);
	assert_non_null(strstr(f->detail, "/proc/irq"));
	assert_non_null(strstr(f->detail, "/sys/bus/pci/devices"));
	/* never a suggestion that could not be applied */
	assert_int_equal(sc.a.nsuggestions, 0);
	unload(&sc);
}

static void test_old_kernel(void **state)
{
	struct scenario sc;
	const struct suggestion *s;
	const struct finding *f;

	(void)state;
	load("old-kernel", &sc);
	/* no PCI, no /sys/kernel/irq: grouped by the /proc/interrupts names */
	s = advice_suggestion(&sc.a, "irq-spread-mpt2sas0-msix");
	assert_non_null(s);
	assert_int_equal(s->nactions, 16);
	assert_action(s, "proc/irq/107/smp_affinity_list", "0", "0-7");
	assert_action(s, "proc/irq/122/smp_affinity_list", "7", "0-7");
	f = advice_finding(&sc.a, "topology-missing-topology");
	assert_non_null(f);
	assert_non_null(strstr(f->detail, "/proc/irq/N/effective_affinity_list"));
	assert_non_null(strstr(f->detail, "/sys/kernel/irq/N"));
	assert_non_null(strstr(f->detail, "/sys/bus/pci/devices"));
	unload(&sc);
}

/* Issue 22's false critical: local-timer interrupts on a busy CPU are never
 * a hot core; the saturated disk under io pressure is the headline. */
static void test_loc_storm(void **state)
{
	struct scenario sc;

	(void)state;
	load("loc-storm", &sc);
	assert_int_equal(sc.a.nfindings, 1);
	assert_null(advice_finding(&sc.a, "hot-cpu-cpu0"));
	assert_string_equal(sc.a.findings[0].id, "disk-saturated-vda");
	assert_int_equal(sc.a.findings[0].severity, ADV_CRITICAL);
	assert_int_equal(sc.a.findings[0].rank, 1);
	assert_non_null(strstr(sc.a.findings[0].reason, "io pressure some 88% full 70%"));
	assert_non_null(strstr(sc.a.findings[0].detail, "No suggestion:"));
	/* the loop devices stacked beside it are idle: no finding */
	for (size_t i = 0; i < sc.a.nfindings; i++)
		assert_null(strstr(sc.a.findings[i].subject, "loop"));
	unload(&sc);
}

/* A lone, movable HBA vector on a 256-CPU host: rq_affinity=2 for the disks
 * behind it, the vector moved to the quietest CPU of its node, the driver's
 * setting named. */
static void test_hba_single_vector(void **state)
{
	const struct suggestion *s;
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("hba-single-vector", &sc);
	f = advice_finding(&sc.a, "hot-cpu-cpu200");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL); /* 85% irq+soft */
	assert_int_equal(f->rank, 1);
	assert_non_null(strstr(f->detail, "max_msix_vectors"));
	s = advice_suggestion(&sc.a, "rq-affinity-host7");
	assert_non_null(s);
	assert_int_equal(s->nactions, 4);
	assert_action(s, "sys/block/sda/queue/rq_affinity", "2", "1");
	assert_action(s, "sys/block/sdd/queue/rq_affinity", "2", "1");
	s = advice_suggestion(&sc.a, "irq-move-471");
	assert_non_null(s);
	assert_int_equal(s->nactions, 1);
	assert_action(s, "proc/irq/471/smp_affinity_list", "128", "200");
	assert_true(s->actions[0].is_irq);
	/* the core runs little else: the interrupt stays, and the finding says why */
	sc.m.cpus[200].usr = 1;
	sc.m.cpus[200].sys = 1;
	readvise(&sc);
	assert_null(advice_suggestion(&sc.a, "irq-move-471"));
	assert_non_null(advice_suggestion(&sc.a, "rq-affinity-host7"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu200")->detail,
			       "IRQ 471 is not moved: cpu200 runs little else"));
	unload(&sc);
}

/* CPU burners under nice: not "OK". */
static void test_cpu_nice(void **state)
{
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("cpu-nice", &sc);
	assert_int_equal(sc.a.nfindings, 1);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_int_equal(f->kind, FIND_CPU_SATURATED);
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_non_null(strstr(f->reason, "%nice 88.0"));
	assert_non_null(strstr(f->reason, "cpu pressure some 60%"));
	assert_non_null(strstr(f->detail, "Most of it is %nice"));
	assert_non_null(strstr(f->detail, "No suggestion applied:"));
	/* no cpu pressure: the CPUs are busy, nobody waits */
	sc.m.workload->psi[PSI_CPU].some_pct = 2;
	readvise(&sc);
	assert_null(advice_finding(&sc.a, "cpu-saturated-cpus"));
	unload(&sc);
}

/* Each row's role as the metrics give it (dbrole.h). */
static void roles(struct proc_metrics *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dbrole_of(rows[i].comm, rows[i].has_who, rows[i].cmdline, rows[i].user,
			  rows[i].unit, &rows[i].role);
}

/* A database's disk during a neighbour's load (tests/fixtures/victims):
 * the victim named in the finding and its headline words, the flushes'
 * wait said; the fix names the culprit's own unit or pid, never a
 * placeholder, and never throttles the database (issue 29). */
static void test_db_victims(void **state)
{
	struct proc_metrics rows[2] = {
		{ .pid = 14840,
		  .comm = "fio",
		  .wkb_s = 512000,
		  .has_who = true,
		  .user = "root",
		  .cmdline = "fio --name=neighbour --rw=write",
		  .unit = "/" },
		{ .pid = 812,
		  .comm = "postgres",
		  .wkb_s = 20480,
		  .has_who = true,
		  .user = "postgres",
		  .cmdline = "postgres: 15/main: checkpointer",
		  .unit = "postgresql@15-main.service" },
	};
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;
	char dir[512];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/victims", FIXTURES_DIR);
	load_dir(dir, 500, &sc);
	roles(rows, 2);
	f = advice_finding(&sc.a, "disk-saturated-sda");
	assert_non_null(f);
	assert_string_equal(f->victim, "postgresql@15-main.service io 61%");
	assert_non_null(strstr(f->detail, "Flushes wait 900 ms each (100.0 f/s, w_await 5.00 ms)"));
	assert_non_null(strstr(f->detail, "Who waits on io (share of the interval stalled): "
					  "postgresql@15-main.service some 61% full 40%."));
	/* the delegated subtree waits on cpu, not io: not this finding's */
	assert_null(strstr(f->detail, "user@1000"));
	/* a neighbour outside any unit: its pid, in a cgroup of its own (the
	 * fixture's disk has no scheduler file: ionice would not be honoured) */
	x = sc.m.workload;
	saved = *x;
	x->procs = rows;
	x->nprocs = 2;
	x->procs_valid = true;
	x->nby_io = 2;
	x->by_io[0] = 0;
	x->by_io[1] = 1;
	readvise(&sc);
	f = advice_finding(&sc.a, "disk-saturated-sda");
	assert_non_null(f);
	assert_null(strstr(f->detail, "UNIT"));
	assert_non_null(strstr(f->detail, "Fix: fio pid 14840 runs in no unit"));
	/* one unit, MB/s, in headline and culprit; the processes' own bytes
	 * are pages dirtied, far above what the disk wrote: said */
	assert_string_equal(f->who, "fio pid 14840 500 MB/s");
	assert_non_null(strstr(f->culprit,
			       "fio pid 14840 (user root, unit /, own words \"fio "
			       "--name=neighbour --rw=write\"): 0.0 MB/s read, 500 MB/s "
			       "written; pg checkpointer pid 812 (user postgres"));
	assert_non_null(strstr(f->culprit, "dirtied 520 MB/s; sda wrote 7.8 MB/s"));
	assert_true(f->culprit_dirtied);
	assert_non_null(strstr(f->detail, "echo \"8:0 262144000\" > "
					  "/sys/fs/cgroup/blkio/iotriage-throttle/"
					  "blkio.throttle.write_bps_device && echo 14840 > "));
	/* the same in a unit of its own: that unit in the command */
	snprintf(rows[0].unit, sizeof(rows[0].unit), "backup.service");
	readvise(&sc);
	f = advice_finding(&sc.a, "disk-saturated-sda");
	assert_non_null(strstr(f->detail, "systemctl set-property --runtime backup.service "
					  "IOWriteBandwidthMax=\"/dev/sda 250M\""));
	/* the database the culprit: its own settings, no throttle */
	x->by_io[0] = 1;
	x->by_io[1] = 0;
	readvise(&sc);
	f = advice_finding(&sc.a, "disk-saturated-sda");
	assert_non_null(strstr(f->detail, "checkpoint_completion_target"));
	assert_null(strstr(f->detail, "Fix:"));
	/* a MariaDB server: where in it the writes go, by its threads' roles */
	{
		struct proc_thread_metrics th[2] = {
			{ .pid = 900,
			  .db = PROC_DB_MARIADB,
			  .role = "page cleaner",
			  .tid = 912,
			  .n = 1,
			  .wkb_s = 38 * 1024 },
			{ .pid = 900, .db = PROC_DB_MARIADB, .tid = 930, .n = 1, .wkb_s = 2048 },
		};
		struct proc_metrics my = { .pid = 900,
					   .comm = "mariadbd",
					   .wkb_s = 84 * 1024,
					   .has_who = true,
					   .user = "mysql",
					   .cmdline = "/usr/sbin/mariadbd",
					   .unit = "mariadb.service" };

		roles(&my, 1);
		rows[1] = my;
		x->troles = th;
		x->ntroles = 2;
		readvise(&sc);
		f = advice_finding(&sc.a, "disk-saturated-sda");
		assert_non_null(strstr(f->culprit,
				       "mariadb server pid 900 (user mysql, unit "
				       "mariadb.service, own words \"/usr/sbin/mariadbd\"): "
				       "0.0 MB/s read, 84 MB/s written (its threads: page "
				       "cleaner 38 MB/s, thread 930 2.0 MB/s)"));
		assert_string_equal(f->culprits[0].threads,
				    "page cleaner 38 MB/s, thread 930 2.0 MB/s");
	}
	*x = saved;
	/* --trace: the flushes and the victim's own IO measured per request */
	{
		struct trace_disk_metrics td = { .major = 8, .minor = 0, .name = "sda" };
		struct trace_cg_metrics cg = { .path = "/system.slice/postgresql@15-main.service",
					       .major = 8,
					       .minor = 0 };
		struct trace_metrics tm = {
			.itv_s = 5, .ndisk = 1, .disks = &td, .has_cg = true, .ncg = 1, .cg = &cg
		};

		tm.on[TRACE_BLOCK] = true;
		td.has[TRACE_OP_FLUSH][TRACE_LAT_DEVICE] = true;
		td.lat[TRACE_OP_FLUSH][TRACE_LAT_DEVICE] =
		    (struct trace_lat_metrics){ .count = 500, .p50_us = 850000, .p99_us = 990000 };
		cg.has[TRACE_LAT_QUEUED] = cg.has[TRACE_LAT_DEVICE] = true;
		cg.lat[TRACE_LAT_QUEUED] =
		    (struct trace_lat_metrics){ .count = 4000, .p99_us = 400000 };
		cg.lat[TRACE_LAT_DEVICE] =
		    (struct trace_lat_metrics){ .count = 4000, .p50_us = 4000, .p99_us = 9000 };
		readvise_trace(&sc, &tm);
		f = advice_finding(&sc.a, "disk-saturated-sda");
		assert_non_null(f);
		assert_non_null(strstr(f->detail, "Measured at the device: flush p50 850.00 ms, "
						  "p99 990.00 ms over 500 flushes."));
		assert_non_null(strstr(f->detail, "postgresql@15-main.service some 61% full 40% "
						  "(its IO on sda: queued p99 400.00 ms, at the "
						  "device p50 4.00 ms p99 9.00 ms)"));
	}
	unload(&sc);
}

/* CPU saturation: processes of no unit reniced by their pids, a unit
 * capped by name, PostgreSQL's backends never reniced. */
static void test_cpu_remedy(void **state)
{
	struct proc_metrics rows[3] = {
		{ .pid = 6504,
		  .comm = "postgres",
		  .cpu_pct = 56,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "postgres",
		  .cmdline = "postgres: 15/main: postgres bench [local] SELECT",
		  .unit = "postgresql@15-main.service" },
		{ .pid = 4242,
		  .comm = "python3",
		  .cpu_pct = 50,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "root",
		  .cmdline = "python3 burn.py",
		  .unit = "/" },
		{ .pid = 99,
		  .comm = "backup",
		  .cpu_pct = 20,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "root",
		  .cmdline = "backup --all",
		  .unit = "backup.service" },
	};
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("cpu-nice", &sc);
	roles(rows, 3);
	x = sc.m.workload;
	saved = *x;
	x->procs = rows;
	x->nprocs = 3;
	x->procs_valid = true;
	x->nby_cpu = 3;
	for (size_t i = 0; i < 3; i++)
		x->by_cpu[i] = i;
	readvise(&sc);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_non_null(strstr(f->detail, "renice -n 19 -p 4242 (note"));
	assert_non_null(strstr(f->detail, "systemctl set-property --runtime backup.service "
					  "CPUQuota=50%"));
	assert_non_null(strstr(f->detail, "pg_stat_activity"));
	assert_null(strstr(f->detail, "6504"));
	assert_null(strstr(f->detail, "UNIT"));
	*x = saved;
	unload(&sc);
}

/* The culprit in a few words for the headline: a command's base name, a
 * title the process set (postgres), the comm of a kernel thread. */
static void test_cpu_who(void **state)
{
	struct proc_metrics rows[3] = {
		{ .pid = 812,
		  .comm = "postgres",
		  .cpu_pct = 90,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "postgres",
		  .cmdline = "postgres: 15/main: checkpointer",
		  .unit = "postgresql@15-main.service" },
		{ .pid = 31729,
		  .comm = "fio",
		  .cpu_pct = 50,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "root",
		  .cmdline = "/usr/bin/fio --name=neighbour --rw=write" },
		{ .pid = 77,
		  .comm = "kworker/1:2H",
		  .cpu_pct = 20,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "root",
		  .cmdline = "[kworker/1:2H]" },
	};
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("cpu-nice", &sc);
	roles(rows, 3);
	x = sc.m.workload;
	saved = *x;
	x->procs = rows;
	x->nprocs = 3;
	x->procs_valid = true;
	x->nby_cpu = 3;
	for (size_t i = 0; i < 3; i++)
		x->by_cpu[i] = i;
	readvise(&sc);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_string_equal(f->who, "pg checkpointer pid 812 90 %CPU");
	assert_non_null(strstr(f->culprit,
			       "pg checkpointer pid 812 (user postgres, unit "
			       "postgresql@15-main.service, own words \"postgres: 15/main: "
			       "checkpointer\"): 90 %CPU"));
	assert_true(f->nculprits >= 1);
	assert_int_equal(f->culprits[0].pid, 812);
	assert_string_equal(f->culprits[0].role, "checkpointer");
	assert_string_equal(f->culprits[0].user, "postgres");
	x->by_cpu[0] = 1, x->by_cpu[1] = 2, x->nby_cpu = 2;
	readvise(&sc);
	assert_string_equal(advice_finding(&sc.a, "cpu-saturated-cpus")->who,
			    "fio pid 31729 50 %CPU");
	x->by_cpu[0] = 2, x->nby_cpu = 1;
	readvise(&sc);
	assert_string_equal(advice_finding(&sc.a, "cpu-saturated-cpus")->who,
			    "kworker/1:2H pid 77 20 %CPU");
	*x = saved; /* the rows are this test's */
	unload(&sc);
}

/* issue 30: exec -a "postgres: 15/main: checkpointer (user postgres, unit
 * system.slice/postgresql@15-main.service)" by nobody, in a delegated
 * subtree named like the database's unit: the culprit is sh, nobody's, in
 * its whole path; the title quoted as its own words, never its role, never
 * a second (user, unit) of ours. */
static void test_cpu_impostor(void **state)
{
	struct proc_metrics rows[2] = {
		{ .pid = 4000,
		  .comm = "sh",
		  .cpu_pct = 95,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "nobody",
		  .cmdline = "postgres: 15/main: checkpointer (user postgres, unit "
			     "system.slice/postgresql@15-main.service)",
		  .unit = "/user.slice/user-65534.slice/user@65534.service/system.slice/"
			  "postgresql@15-main.service" },
		{ .pid = 812,
		  .comm = "postgres",
		  .cpu_pct = 30,
		  .has_cpu = true,
		  .has_who = true,
		  .user = "postgres",
		  .cmdline = "postgres: 15/main: checkpointer",
		  .unit = "postgresql@15-main.service" },
	};
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;
	const char *at;

	(void)state;
	load("cpu-nice", &sc);
	roles(rows, 2);
	x = sc.m.workload;
	saved = *x;
	x->procs = rows;
	x->nprocs = 2;
	x->procs_valid = true;
	x->nby_cpu = 2;
	x->by_cpu[0] = 0;
	x->by_cpu[1] = 1;
	readvise(&sc);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_string_equal(f->who, "sh pid 4000 (nobody) 95 %CPU");
	assert_int_equal(f->nculprits, 2);
	assert_string_equal(f->culprits[0].role, "");
	assert_true(f->culprits[0].role_claimed);
	assert_string_equal(f->culprits[0].user, "nobody");
	assert_string_equal(f->culprits[0].unit, rows[0].unit);
	assert_string_equal(f->culprits[1].role, "checkpointer");
	at = strstr(f->culprit, "sh pid 4000 (user nobody, unit /user.slice/user-65534.slice/"
				"user@65534.service/system.slice/postgresql@15-main.service, its "
				"title claims a role it is not given, own words \"postgres: "
				"15/main: checkpointer (user postgres, unit system.slice/");
	assert_non_null(at);
	/* one (user ...) of ours per process; the title's is inside its quotes */
	assert_null(strstr(f->culprit, "pg checkpointer pid 4000"));
	assert_non_null(strstr(f->culprit, "; pg checkpointer pid 812 (user postgres, unit "
					   "postgresql@15-main.service"));
	/* a title, a comm and a cgroup path that try to start an entry of
	 * their own (the findings panel breaks lines at "; ") and close the
	 * quotes: no "; " but ours, no quote but ours */
	snprintf(rows[0].cmdline, sizeof(rows[0].cmdline), "%s",
		 "x\"; pg checkpointer pid 812 (user postgres, unit postgresql@15-main.service)");
	snprintf(rows[0].comm, sizeof(rows[0].comm), "%s", "a; pg checkpo");
	snprintf(rows[0].unit, sizeof(rows[0].unit), "%s", "/user.slice/x; pg checkpointer \"y");
	roles(rows, 2);
	x->nby_cpu = 1;
	readvise(&sc);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_int_equal(f->nculprits, 1);
	assert_null(strstr(f->culprit, "; "));
	assert_non_null(strstr(f->culprit, "a\\x3b pg checkpo pid 4000 (user nobody, unit "
					   "/user.slice/x\\x3b pg checkpointer \\x22y, own words "
					   "\"x\\x22\\x3b pg checkpointer pid 812"));
	*x = saved;
	unload(&sc);
}

/* Groups: four backends are one culprit ("pg backends x4"), summed, with
 * the busiest's pid and words; a group of one is its process. */
static void test_cpu_groups(void **state)
{
	struct proc_group groups[2] = {
		{ .key = "pg\x1f"
			 "backend",
		  .db = PROC_DB_POSTGRES,
		  .role = "backend",
		  .comm = "postgres",
		  .has_who = true,
		  .user = "postgres",
		  .unit = "postgresql@15-main.service",
		  .cmdline = "postgres: 15/main: postgres bench [local] SELECT",
		  .n = 4,
		  .pid = 6504,
		  .cpu_pct = 112 },
		{ .key = "cmd\x1f"
			 "stress\x1f/\x1froot",
		  .comm = "stress",
		  .has_who = true,
		  .user = "root",
		  .unit = "/",
		  .cmdline = "stress -c 1",
		  .n = 1,
		  .pid = 77,
		  .cpu_pct = 40 },
	};
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("cpu-nice", &sc);
	x = sc.m.workload;
	saved = *x;
	x->procs_valid = true;
	x->nprocs = 0;
	x->groups = groups;
	x->ngroups = 2;
	x->ng_by_cpu = 2;
	x->g_by_cpu[0] = 0;
	x->g_by_cpu[1] = 1;
	readvise(&sc);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_string_equal(f->who, "pg backends x4 112 %CPU");
	assert_non_null(strstr(f->culprit,
			       "pg backends x4 (user postgres, unit "
			       "postgresql@15-main.service, busiest pid 6504, its own "
			       "words \"postgres: 15/main: postgres bench [local] "
			       "SELECT\"): 112 %CPU together; stress pid 77 (user root"));
	assert_int_equal(f->culprits[0].kind, CULPRIT_GROUP);
	assert_int_equal(f->culprits[0].count, 4);
	assert_int_equal(f->culprits[1].kind, CULPRIT_PROCESS);
	*x = saved;
	unload(&sc);
}

/* A group the culprit: the fix names every member measured (renice, the
 * cgroup's procs, ionice), not only its busiest, and none of them is the
 * finding's victim for waiting behind the others (issue 29). */
static void test_group_remedy(void **state)
{
	struct proc_group groups[2] = {
		{ .key = "cmd\x1f"
			 "burn\x1f/\x1froot",
		  .comm = "burn",
		  .has_who = true,
		  .user = "root",
		  .unit = "/",
		  .cmdline = "burn --hard",
		  .n = 3,
		  .pid = 4000,
		  .cpu_pct = 150,
		  .wkb_s = 300000 },
		{ .key = "pg\x1f"
			 "backend",
		  .db = PROC_DB_POSTGRES,
		  .role = "backend",
		  .comm = "postgres",
		  .has_who = true,
		  .user = "postgres",
		  .unit = "postgresql@15-main.service",
		  .cmdline = "postgres: 15/main: postgres bench [local] SELECT",
		  .n = 1,
		  .pid = 6504,
		  .cpu_pct = 5 },
	};
	struct proc_metrics rows[4] = {
		{ .pid = 4000, .comm = "burn", .cpu_pct = 60, .runq_pct = 45, .group = 0 },
		{ .pid = 4001, .comm = "burn", .cpu_pct = 50, .runq_pct = 50, .group = 0 },
		{ .pid = 4002, .comm = "burn", .cpu_pct = 40, .runq_pct = 48, .group = 0 },
		{ .pid = 6504,
		  .comm = "postgres",
		  .cpu_pct = 5,
		  .runq_pct = 40,
		  .group = 1,
		  .has_who = true,
		  .user = "postgres",
		  .cmdline = "postgres: 15/main: postgres bench [local] SELECT",
		  .unit = "postgresql@15-main.service" },
	};
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("cpu-nice", &sc);
	for (size_t i = 0; i < 4; i++) {
		rows[i].has_cpu = rows[i].has_runq = true;
		if (!rows[i].has_who) {
			rows[i].has_who = true;
			snprintf(rows[i].user, sizeof(rows[i].user), "root");
			snprintf(rows[i].unit, sizeof(rows[i].unit), "/");
		}
	}
	roles(rows, 4);
	x = sc.m.workload;
	saved = *x;
	x->procs = rows;
	x->nprocs = 4;
	x->procs_valid = true;
	x->groups = groups;
	x->ngroups = 2;
	x->ng_by_cpu = 2;
	x->g_by_cpu[0] = 0;
	x->g_by_cpu[1] = 1;
	x->nby_runq = 4;
	x->by_runq[0] = 1;
	x->by_runq[1] = 2;
	x->by_runq[2] = 0;
	x->by_runq[3] = 3;
	readvise(&sc);
	f = advice_finding(&sc.a, "cpu-saturated-cpus");
	assert_non_null(f);
	assert_string_equal(f->who, "burn x3 150 %CPU");
	assert_non_null(strstr(f->detail, "renice -n 19 -p 4000 4001 4002 (note"));
	/* the burners wait behind each other: not victims; the backend is */
	assert_non_null(strstr(f->detail, "Waiting for a CPU (run-queue wait, share of the "
					  "interval): pg backend pid 6504 40%."));
	assert_null(strstr(f->detail, "pid 4001 50%"));
	assert_string_equal(f->victim, "pg backend pid 6504 waits 40% for a CPU");
	/* never the database's backends */
	assert_null(strstr(f->detail, "6504 (note"));
	*x = saved;
	unload(&sc);
}

/* A group of eight writers outside any unit: the cgroup command moves
 * each (one loop) and is whole in the detail, its undo included. */
static void test_group_io_remedy(void **state)
{
	struct proc_group groups[1] = {
		{ .key = "cmd\x1f"
			 "fio\x1f/\x1froot",
		  .comm = "fio",
		  .has_who = true,
		  .user = "root",
		  .unit = "/",
		  .cmdline = "fio --name=neighbour --numjobs=8",
		  .n = 8,
		  .pid = 14840,
		  .wkb_s = 512000 },
	};
	struct proc_metrics rows[8];
	struct workload_metrics *x, saved;
	const struct finding *f;
	struct scenario sc;
	const char *fix;
	char dir[512];

	(void)state;
	memset(rows, 0, sizeof(rows));
	for (int i = 0; i < 8; i++) {
		rows[i].pid = 14840 + i;
		snprintf(rows[i].comm, sizeof(rows[i].comm), "fio");
		rows[i].wkb_s = 64000;
		rows[i].has_who = true;
		snprintf(rows[i].user, sizeof(rows[i].user), "root");
		snprintf(rows[i].unit, sizeof(rows[i].unit), "/");
	}
	snprintf(dir, sizeof(dir), "%s/victims", FIXTURES_DIR);
	load_dir(dir, 500, &sc);
	x = sc.m.workload;
	saved = *x;
	x->procs = rows;
	x->nprocs = 8;
	x->procs_valid = true;
	x->groups = groups;
	x->ngroups = 1;
	x->ng_by_io = 1;
	x->g_by_io[0] = 0;
	readvise(&sc);
	f = advice_finding(&sc.a, "disk-saturated-sda");
	assert_non_null(f);
	fix =
	    strstr(f->detail, "Fix: fio x8 (pids 14840 14841 14842 14843 14844 14845 14846 14847)");
	assert_non_null(fix);
	assert_non_null(strstr(fix, "&& for p in 14840 14841 14842 14843 14844 14845 14846 14847; "
				    "do echo $p > /sys/fs/cgroup/blkio/iotriage-throttle/"
				    "cgroup.procs; done (undo: for p in 14840"));
	assert_non_null(strstr(fix, "rmdir /sys/fs/cgroup/blkio/iotriage-throttle)."));
	*x = saved;
	unload(&sc);
}

static void test_steal(void **state)
{
	const struct finding *f;
	struct scenario sc;

	(void)state;
	load("steal", &sc);
	f = advice_finding(&sc.a, "steal-cpus");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_CRITICAL);
	assert_non_null(strstr(f->reason, "%steal 30.0"));
	assert_null(advice_finding(&sc.a, "cpu-saturated-cpus")); /* 80% busy */
	unload(&sc);
}

/* A copy of sc's advice (what advise_run gave), for advise_hold_step. */
static void advice_dup(const struct advice *a, struct advice *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->nfindings = ret->findings_cap = a->nfindings;
	ret->findings = calloc(a->nfindings ? a->nfindings : 1, sizeof(*ret->findings));
	assert_non_null(ret->findings);
	if (a->nfindings)
		memcpy(ret->findings, a->findings, a->nfindings * sizeof(*a->findings));
	ret->nsuggestions = ret->suggestions_cap = a->nsuggestions;
	ret->suggestions = calloc(a->nsuggestions ? a->nsuggestions : 1, sizeof(*ret->suggestions));
	assert_non_null(ret->suggestions);
	for (size_t i = 0; i < a->nsuggestions; i++)
		assert_int_equal(advise_suggestion_copy(&a->suggestions[i], &ret->suggestions[i]),
				 0);
}

/* One step of the hold over the scenario's advice (present) or none. */
static size_t hold_step(struct advise_hold *h, const struct advice *src, bool present,
			struct advice *out)
{
	struct advice empty = { 0 };

	advice_free(out);
	if (present)
		advice_dup(src, out);
	else
		*out = empty;
	assert_int_equal(advise_hold_step(h, out), 0);
	return out->nfindings;
}

/* Stable: a finding rises after ADV_RISE_SAMPLES samples in a row and clears
 * after ADV_CLEAR_SAMPLES absent in a row; a gap shorter than that does not
 * make it flicker; its suggestions come and go with it. */
static void test_hold(void **state)
{
	struct advise_hold h = { 0 };
	struct advice out = { 0 };
	struct scenario sc;

	(void)state;
	load("mpt2sas", &sc);
	assert_int_equal(ADV_RISE_SAMPLES, 2);
	assert_int_equal(hold_step(&h, &sc.a, true, &out), 0);
	assert_int_equal(out.nsuggestions, 0);
	assert_int_equal(out.nrising, 1); /* measured, rising: not "healthy" */
	/* one sample, then gone: never shown */
	assert_int_equal(hold_step(&h, &sc.a, false, &out), 0);
	assert_int_equal(hold_step(&h, &sc.a, true, &out), 0);
	assert_int_equal(hold_step(&h, &sc.a, true, &out), 1);
	assert_string_equal(out.findings[0].id, "hot-cpu-cpu1");
	assert_int_equal(out.findings[0].rank, 1);
	assert_int_equal(out.findings[0].held, 0);
	assert_non_null(advice_suggestion(&out, "irq-spread-host0"));
	/* gaps shorter than ADV_CLEAR_SAMPLES: shown throughout, as last seen */
	for (int round = 0; round < 3; round++) {
		for (unsigned k = 1; k < ADV_CLEAR_SAMPLES; k++) {
			assert_int_equal(hold_step(&h, &sc.a, false, &out), 1);
			assert_int_equal(out.findings[0].held, k);
			assert_non_null(advice_suggestion(&out, "irq-spread-host0"));
		}
		assert_int_equal(hold_step(&h, &sc.a, true, &out), 1);
		assert_int_equal(out.findings[0].held, 0);
	}
	/* ADV_CLEAR_SAMPLES in a row: cleared, suggestion too */
	for (unsigned k = 1; k < ADV_CLEAR_SAMPLES; k++)
		assert_int_equal(hold_step(&h, &sc.a, false, &out), 1);
	assert_int_equal(hold_step(&h, &sc.a, false, &out), 0);
	assert_int_equal(out.nsuggestions, 0);
	advice_free(&out);
	advise_hold_free(&h);
	unload(&sc);
}

/* ---- measured time (--trace): the advisor's input from the tracing stage ---- */

/* One IRQ line's hardirq time on one CPU, µs and handler runs in 1 s. */
struct tr_line {
	uint32_t irq;
	int cpu;
	uint64_t us, runs;
};

/*
 * The tracing stage's interval as metrics_trace_compute() makes it from two
 * reads of the maps 1 s apart (the first empty, as just after loading):
 * soft_us[cpu][vector], the lines (ascending, one CPU each), the latency
 * histograms (ascending by disk, op, stage). on[] says which probes ran.
 */
static void trace_build(const struct snapshot *cur, uint32_t ncpu,
			const uint64_t soft_us[][TRACE_NR_SOFTIRQS], const struct tr_line *lines,
			size_t nlines, const struct trace_lat_raw *lat, size_t nlat,
			const bool on[TRACE__COUNT], struct trace_metrics *ret)
{
	struct trace_raw p = { 0 }, c = { 0 };

	p.valid = c.valid = true;
	p.mono_ns = 1000000000;
	c.mono_ns = 2000000000;
	p.ncpu = c.ncpu = ncpu;
	/* attached, read or not in both reads (a probe off at the read is
	 * test_trace_probe_off's: m.off) */
	for (int k = 0; k < TRACE__COUNT; k++) {
		p.probe[k].read = c.probe[k].read = on[k];
		p.probe[k].on = c.probe[k].on = true;
	}
	p.soft_ns = calloc(ncpu * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	p.soft_count = calloc(ncpu * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	c.soft_ns = calloc(ncpu * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	c.soft_count = calloc(ncpu * TRACE_NR_SOFTIRQS, sizeof(uint64_t));
	c.irq = calloc(nlines + 1, sizeof(*c.irq));
	c.irq_ns = calloc((nlines + 1) * ncpu, sizeof(uint64_t));
	c.irq_count = calloc((nlines + 1) * ncpu, sizeof(uint64_t));
	c.lat = calloc(nlat + 1, sizeof(*c.lat));
	assert_true(p.soft_ns && p.soft_count && c.soft_ns && c.soft_count && c.irq && c.irq_ns &&
		    c.irq_count && c.lat);
	for (uint32_t cpu = 0; soft_us && cpu < ncpu; cpu++)
		for (unsigned v = 0; v < TRACE_NR_SOFTIRQS; v++)
			c.soft_ns[cpu * TRACE_NR_SOFTIRQS + v] = soft_us[cpu][v] * 1000;
	for (size_t i = 0; i < nlines; i++) {
		c.irq[i] = lines[i].irq;
		c.irq_ns[i * ncpu + (size_t)lines[i].cpu] = lines[i].us * 1000;
		c.irq_count[i * ncpu + (size_t)lines[i].cpu] = lines[i].runs;
	}
	c.nirq = nlines;
	if (nlat)
		memcpy(c.lat, lat, nlat * sizeof(*lat));
	c.nlat = nlat;
	memset(ret, 0, sizeof(*ret));
	assert_int_equal(metrics_trace_compute(&p, &c, &cur->disks, ret), 0);
	trace_raw_free(&p);
	trace_raw_free(&c);
}

/* The device-stage histogram of loop0's reads in the recorded run
 * (tests/fixtures/trace/loop-fio/trace.json: 9014 reads, mean 217.87 µs,
 * p99 3778 µs, 54.06% of the disk's completions remote), moved up by
 * shift log2 buckets (a device 2^shift times slower). */
static void recorded_reads(uint32_t major, uint32_t minor, unsigned shift, double remote_pct,
			   struct trace_lat_raw *ret)
{
	static const uint64_t hist[] = {
		0, 4, 40, 194, 2918, 2815, 1540, 763, 175, 88, 179, 246, 52
	};

	memset(ret, 0, sizeof(*ret));
	ret->major = major;
	ret->minor = minor;
	ret->op = TRACE_OP_READ;
	ret->kind = TRACE_LAT_DEVICE;
	for (size_t i = 0; i < sizeof(hist) / sizeof(hist[0]); i++) {
		ret->slots[i + shift] = hist[i];
		ret->count += hist[i];
	}
	assert_int_equal(ret->count, 9014);
	ret->sum_ns = (uint64_t)(217.87 * 1000 * 9014) << shift;
	ret->remote = (uint64_t)(remote_pct / 100 * 9014 + 0.5);
}

static void readvise_trace(struct scenario *sc, const struct trace_metrics *tm)
{
	advice_free(&sc->a);
	assert_int_equal(
	    advise_run(
		&(struct advise_input){ .cur = &sc->s1, .m = &sc->m, .trace = tm, .t = &sc->t },
		&sc->a),
	    0);
}

/*
 * virtio-time: by counts the USB line is cpu1's load and the one moved; by
 * measured time IRQ 31 (the disk's lone vector) and the BLOCK softirq take
 * the core: the finding says so and the suggestion moves IRQ 31, and
 * rq_affinity=2 comes only with completions measured away from their
 * submitter.
 */
static void test_trace_hot_by_time(void **state)
{
	static const bool all[TRACE__COUNT] = { true, true, true };
	/* cpu1: 112 ms/s hardirq (110 of them IRQ 31), 308 ms/s softirq (290 BLOCK) */
	static const uint64_t soft[4][TRACE_NR_SOFTIRQS] = {
		{ 0, 300, 0, 0, 0, 0, 0, 190, 0, 1800 },
		{ 0, 8000, 0, 0, 290000, 0, 0, 3000, 0, 7000 },
		{ 0, 300, 0, 0, 0, 0, 0, 190, 0, 1800 },
		{ 0, 300, 0, 0, 0, 0, 0, 190, 0, 1800 },
	};
	static const struct tr_line lines[] = {
		{ 30, 1, 2000, 20000 },
		{ 31, 1, 110000, 500 },
	};
	const struct suggestion *s;
	const struct finding *f;
	struct trace_lat_raw lat;
	struct trace_metrics tm;
	struct scenario sc;

	(void)state;
	load("virtio-time", &sc);
	/* counts alone (no trace): the line with the most interrupts is moved */
	f = advice_finding(&sc.a, "hot-cpu-cpu1");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "cpu1: %irq 15.00 + %soft 27.00 = 42.00%"));
	assert_non_null(advice_suggestion(&sc.a, "irq-move-30"));
	assert_null(advice_suggestion(&sc.a, "irq-move-31"));
	assert_null(advice_suggestion(&sc.a, "rq-affinity-0000:00:05.0"));

	/* measured: completions remote as in the recorded run */
	recorded_reads(254, 0, 0, 54.06, &lat);
	trace_build(&sc.s1, 4, soft, lines, 2, &lat, 1, all, &tm);
	readvise_trace(&sc, &tm);
	f = advice_finding(&sc.a, "hot-cpu-cpu1");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_non_null(strstr(f->reason, "cpu1 42% in IRQ 31 virtio1-req.0 + BLOCK softirq "
					  "(measured): hardirq 11.20% + softirq 30.80%"));
	assert_non_null(strstr(f->detail, "measured time on cpu1 (420.0 ms/s): IRQ 31 "
					  "virtio1-req.0 26.2%, BLOCK softirq 69.0%"));
	assert_null(advice_suggestion(&sc.a, "irq-move-30"));
	s = advice_suggestion(&sc.a, "irq-move-31");
	assert_non_null(s);
	assert_action(s, "proc/irq/31/smp_affinity_list", "0", "1");
	s = advice_suggestion(&sc.a, "rq-affinity-0000:00:05.0");
	assert_non_null(s);
	assert_int_equal(s->nactions, 1);
	assert_action(s, "sys/block/vda/queue/rq_affinity", "2", "1");
	assert_non_null(strstr(s->reason, "(vda 54% of 9014 completions, measured)"));
	metrics_trace_free(&tm);

	/* completions already on their submitter: rq_affinity=2 would move nothing */
	recorded_reads(254, 0, 0, 3.0, &lat);
	trace_build(&sc.s1, 4, soft, lines, 2, &lat, 1, all, &tm);
	readvise_trace(&sc, &tm);
	assert_null(advice_suggestion(&sc.a, "rq-affinity-0000:00:05.0"));
	assert_non_null(advice_suggestion(&sc.a, "irq-move-31"));
	assert_non_null(strstr(advice_finding(&sc.a, "hot-cpu-cpu1")->detail,
			       "no rq_affinity=2 for vda 3% remote: measured"));
	metrics_trace_free(&tm);

	/* a measured core at 85% is hurt now: critical, whatever mpstat says */
	{
		uint64_t hot[4][TRACE_NR_SOFTIRQS];

		memcpy(hot, soft, sizeof(hot));
		hot[1][4] = 720000;
		trace_build(&sc.s1, 4, hot, lines, 2, &lat, 1, all, &tm);
		readvise_trace(&sc, &tm);
		f = advice_finding(&sc.a, "hot-cpu-cpu1");
		assert_non_null(f);
		assert_int_equal(f->severity, ADV_CRITICAL);
		assert_non_null(strstr(f->reason, "cpu1 85% in IRQ 31"));
		metrics_trace_free(&tm);
	}
	unload(&sc);
}

/* The trace's NAPI rows (metrics_trace_compute makes them from the maps):
 * eth0's queue 0 on IRQ 40 with eth0_us of NET_RX a second, the backlog. */
static void trace_napi(struct trace_metrics *tm, double eth0_us)
{
	tm->has_napi = true;
	tm->napi = calloc(2, sizeof(*tm->napi));
	assert_non_null(tm->napi);
	tm->napi[0] = (struct trace_napi_metrics){
		.napi_id = 0, .irq = -1, .index = -1, .us_s = 9000, .polls_s = 50, .packets_s = 50
	};
	tm->napi[1] = (struct trace_napi_metrics){ .napi_id = 8193,
						   .irq = 40,
						   .index = 0,
						   .dev = "eth0",
						   .us_s = eth0_us,
						   .polls_s = 20000,
						   .packets_s = 400000 };
	tm->nnapi = 2;
}

/*
 * nic-one-channel with the trace: cpu0 hot by its NET_RX time, most of it
 * eth0's queue 0 (IRQ 40 lands on cpu0): the finding names the queue in its
 * detail and its who; a queue with less than half the core's NET_RX, or on
 * a kernel-managed line, is not named.
 */
static void test_trace_hot_napi(void **state)
{
	static const bool all[TRACE__COUNT] = { true, true, true };
	/* cpu0: 300 ms/s of NET_RX; the others idle */
	static const uint64_t soft[4][TRACE_NR_SOFTIRQS] = {
		{ 0, 300, 0, 300000, 0, 0, 0, 190, 0, 1800 },
		{ 0, 300, 0, 0, 0, 0, 0, 190, 0, 1800 },
		{ 0, 300, 0, 0, 0, 0, 0, 190, 0, 1800 },
		{ 0, 300, 0, 0, 0, 0, 0, 190, 0, 1800 },
	};
	static const struct tr_line lines[] = { { 40, 0, 20000, 50000 } };
	const struct finding *f;
	struct trace_metrics tm;
	struct scenario sc;
	struct topo_irq *ti;

	(void)state;
	load("nic-one-channel", &sc);
	f = advice_finding(&sc.a, "hot-cpu-cpu0");
	assert_non_null(f);
	assert_null(strstr(f->detail, "mostly one queue"));

	trace_build(&sc.s1, 4, soft, lines, 1, NULL, 0, all, &tm);
	trace_napi(&tm, 280000);
	readvise_trace(&sc, &tm);
	f = advice_finding(&sc.a, "hot-cpu-cpu0");
	assert_non_null(f);
	if (!strstr(f->detail, "NET_RX on cpu0 is mostly one queue: eth0 rx-0 NET_RX 28.0% of a "
			       "CPU (NAPI 8193, IRQ 40, 93% of the core's NET_RX time); moving IRQ "
			       "40 moves its polls."))
		fail_msg("detail: %s", f->detail);
	assert_string_equal(f->who, "eth0 rx-0 NET_RX 28 %");
	metrics_trace_free(&tm);

	/* a third of the core's NET_RX: not "mostly one queue" */
	trace_build(&sc.s1, 4, soft, lines, 1, NULL, 0, all, &tm);
	trace_napi(&tm, 100000);
	readvise_trace(&sc, &tm);
	f = advice_finding(&sc.a, "hot-cpu-cpu0");
	assert_non_null(f);
	assert_null(strstr(f->detail, "mostly one queue"));
	assert_string_equal(f->who, "");
	metrics_trace_free(&tm);

	/* a kernel-managed line cannot move: not named */
	ti = (struct topo_irq *)topology_irq(&sc.t, 40);
	assert_non_null(ti);
	ti->managed = true;
	trace_build(&sc.s1, 4, soft, lines, 1, NULL, 0, all, &tm);
	trace_napi(&tm, 280000);
	readvise_trace(&sc, &tm);
	f = advice_finding(&sc.a, "hot-cpu-cpu0");
	assert_non_null(f);
	assert_null(strstr(f->detail, "mostly one queue"));
	metrics_trace_free(&tm);
	unload(&sc);
}

static void assert_same_advice(const struct advice *x, const struct advice *y)
{
	assert_int_equal(x->nfindings, y->nfindings);
	assert_int_equal(x->nsuggestions, y->nsuggestions);
	for (size_t i = 0; i < x->nfindings; i++) {
		assert_string_equal(x->findings[i].id, y->findings[i].id);
		assert_int_equal(x->findings[i].severity, y->findings[i].severity);
		assert_string_equal(x->findings[i].reason, y->findings[i].reason);
		assert_string_equal(x->findings[i].detail, y->findings[i].detail);
	}
	for (size_t i = 0; i < x->nsuggestions; i++) {
		assert_string_equal(x->suggestions[i].id, y->suggestions[i].id);
		assert_string_equal(x->suggestions[i].reason, y->suggestions[i].reason);
		assert_int_equal(x->suggestions[i].nactions, y->suggestions[i].nactions);
	}
}

/* No trace, or its probes off: the judgement of counts, unchanged. */
static void test_trace_off_same(void **state)
{
	static const bool none[TRACE__COUNT] = { false, false, false };
	static const char *const names[] = { "hba-single-vector", "virtio-time", "healthy",
					     "disk-slow" };
	struct trace_metrics tm;
	struct advice before;
	struct scenario sc;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		load(names[i], &sc);
		advice_dup(&sc.a, &before);
		readvise_trace(&sc, NULL);
		assert_same_advice(&before, &sc.a);
		trace_build(&sc.s1, (uint32_t)sc.m.ncpu, NULL, NULL, 0, NULL, 0, none, &tm);
		readvise_trace(&sc, &tm);
		assert_same_advice(&before, &sc.a);
		metrics_trace_free(&tm);
		advice_free(&before);
		unload(&sc);
	}
}

/*
 * The softirq probe backing off over its budget (issue 30): the hot core
 * is judged by counts and says so in its detail, and an info finding says
 * for how long and what is judged by counts; the probes on: no word.
 */
static void test_trace_probe_off(void **state)
{
	static const bool soft_off[TRACE__COUNT] = { true, false, true };
	static const bool all[TRACE__COUNT] = { true, true, true };
	const struct finding *f;
	struct trace_metrics tm;
	struct scenario sc;

	(void)state;
	load("nic-one-channel", &sc);
	trace_build(&sc.s1, 4, NULL, NULL, 0, NULL, 0, soft_off, &tm);
	tm.off[TRACE_SOFTIRQ] = true;
	tm.over_budget[TRACE_SOFTIRQ] = true;
	tm.off_s[TRACE_SOFTIRQ] = 12.2;
	tm.budget_pct = 2;
	readvise_trace(&sc, &tm);
	f = advice_finding(&sc.a, "hot-cpu-cpu0");
	assert_non_null(f);
	if (!strstr(f->detail,
		    " Judged by counts: the softirq probe is off 12 s (over its 2 % budget)."))
		fail_msg("detail: %s", f->detail);
	f = advice_finding(&sc.a, "trace-off-softirq");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_INFO);
	assert_string_equal(f->reason, "tracing: softirq probe off 12 s (over its 2 % budget): "
				       "NET_RX and BLOCK judged by counts, cores by %soft");
	assert_null(advice_finding(&sc.a, "trace-off-hardirq"));
	assert_null(advice_finding(&sc.a, "trace-off-block"));
	/* what hurts ranks first: the info finding after the hot core */
	assert_string_equal(sc.a.findings[0].id, "hot-cpu-cpu0");
	metrics_trace_free(&tm);

	/* off for good (could not attach): said, without a period */
	trace_build(&sc.s1, 4, NULL, NULL, 0, NULL, 0, soft_off, &tm);
	tm.off[TRACE_SOFTIRQ] = true;
	readvise_trace(&sc, &tm);
	f = advice_finding(&sc.a, "trace-off-softirq");
	assert_non_null(f);
	assert_non_null(strstr(f->reason, "softirq probe off (trace.probes.softirq.reason"));
	metrics_trace_free(&tm);

	trace_build(&sc.s1, 4, NULL, NULL, 0, NULL, 0, all, &tm);
	readvise_trace(&sc, &tm);
	for (size_t i = 0; i < sc.a.nfindings; i++)
		assert_int_not_equal(sc.a.findings[i].kind, FIND_TRACE_OFF);
	metrics_trace_free(&tm);
	unload(&sc);
}

/* A disk slow by its tail: the mean and await say fine, p99 does not. */
static void test_trace_disk_tail(void **state)
{
	static const bool block[TRACE__COUNT] = { false, false, true };
	const struct finding *f;
	struct trace_lat_raw lat;
	struct trace_metrics tm;
	struct scenario sc;

	(void)state;
	load("healthy", &sc);
	assert_int_equal(sc.a.nfindings, 0);
	/* the recorded tail (p99 3.78 ms, 17x the mean): under the SSD's 10 ms */
	recorded_reads(259, 0, 0, 54.06, &lat);
	trace_build(&sc.s1, 4, NULL, NULL, 0, &lat, 1, block, &tm);
	readvise_trace(&sc, &tm);
	assert_int_equal(sc.a.nfindings, 0);
	metrics_trace_free(&tm);
	/* a device four times slower: p99 15 ms while await is 0.14 ms */
	recorded_reads(259, 0, 2, 54.06, &lat);
	trace_build(&sc.s1, 4, NULL, NULL, 0, &lat, 1, block, &tm);
	readvise_trace(&sc, &tm);
	assert_int_equal(sc.a.nfindings, 1);
	f = advice_finding(&sc.a, "disk-slow-nvme0n1");
	assert_non_null(f);
	assert_int_equal(f->severity, ADV_WARNING);
	assert_non_null(strstr(f->reason, "nvme0n1 slow by its tail: read p99 15.11 ms at the "
					  "device, 17.3x its mean 0.87 ms (measured, 9014 IOs)"));
	assert_non_null(strstr(f->detail, "Measured at the device: read p99 15.11 ms"));
	assert_int_equal(sc.a.nsuggestions, 0);
	metrics_trace_free(&tm);
	unload(&sc);
}

/* One step of the hold over the scenario's advice with finding id measured
 * at severity sev; returns the severity shown for it. */
static enum advise_severity hold_step_sev(struct advise_hold *h, const struct advice *src,
					  const char *id, enum advise_severity sev,
					  struct advice *out)
{
	const struct finding *f;

	advice_free(out);
	advice_dup(src, out);
	for (size_t i = 0; i < out->nfindings; i++)
		if (strcmp(out->findings[i].id, id) == 0)
			out->findings[i].severity = sev;
	assert_int_equal(advise_hold_step(h, out), 0);
	f = advice_finding(out, id);
	assert_non_null(f);
	return f->severity;
}

/* Stable severity: a shown finding's severity is a label of its /metrics
 * series and of its alert, so one that hovers at the critical threshold
 * must not flip it each sample (a new series restarts the alert's for:).
 * Up after ADV_RISE_SAMPLES in a row measured above, down after
 * ADV_CLEAR_SAMPLES below. */
static void test_hold_severity(void **state)
{
	const char *id = "hot-cpu-cpu1";
	struct advise_hold h = { 0 };
	struct advice out = { 0 };
	struct scenario sc;

	(void)state;
	load("mpt2sas", &sc);
	assert_non_null(advice_finding(&sc.a, id));
	assert_int_equal(hold_step(&h, &sc.a, true, &out), 0); /* rising */
	assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_CRITICAL, &out), ADV_CRITICAL);
	/* hovering: below for fewer than ADV_CLEAR_SAMPLES, then critical again */
	for (int round = 0; round < 3; round++) {
		for (unsigned k = 1; k < ADV_CLEAR_SAMPLES; k++)
			assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_WARNING, &out),
					 ADV_CRITICAL);
		assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_CRITICAL, &out), ADV_CRITICAL);
	}
	/* ADV_CLEAR_SAMPLES below in a row: down */
	for (unsigned k = 1; k < ADV_CLEAR_SAMPLES; k++)
		assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_WARNING, &out), ADV_CRITICAL);
	assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_WARNING, &out), ADV_WARNING);
	/* a one-sample spike above raises nothing; ADV_RISE_SAMPLES in a row do */
	assert_int_equal(ADV_RISE_SAMPLES, 2);
	assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_CRITICAL, &out), ADV_WARNING);
	assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_WARNING, &out), ADV_WARNING);
	assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_CRITICAL, &out), ADV_WARNING);
	assert_int_equal(hold_step_sev(&h, &sc.a, id, ADV_CRITICAL, &out), ADV_CRITICAL);
	advice_free(&out);
	advise_hold_free(&h);
	unload(&sc);
}

/* The one builder of printed commands (issue 24, R2): sysfs's '!' for '/',
 * and a path apply would refuse is never printed as a command. */
static void test_command_builder(void **state)
{
	static const struct {
		const char *path, *want;
	} cases[] = {
		{ "sys/block/cciss!c0d0/queue/iostats",
		  "echo 1 > '/sys/block/cciss!c0d0/queue/iostats'" },
		{ "sys/block/sdb/queue/iostats", "echo 1 > /sys/block/sdb/queue/iostats" },
		{ "sys/block/../../../../tmp/X/pwn/queue/iostats",
		  "# refused: not a file iotriage writes" },
		{ "sys/block/..!..!tmp!X!pwn/queue/iostats",
		  "# refused: not a file iotriage writes" },
		{ "sys/block/sda/device/delete", "# refused: not a file iotriage writes" },
		{ "sys/class/net/e\xc3\xa9"
		  "0/queues/rx-0/rps_cpus",
		  "echo 1 > '/sys/class/net/e\xc3\xa9"
		  "0/queues/rx-0/rps_cpus'" },
		{ "netlink/ethtool/eth0/channels/combined", "ethtool -L eth0 combined 1" },
		{ "netlink/ethtool/e\n0/channels/combined",
		  "# refused: not a file iotriage writes" },
	};
	struct strbuf sb = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sb_reset(&sb);
		advise_command_text(cases[i].path, "1", &sb);
		assert_string_equal(sb_cstr(&sb), cases[i].want);
	}
	sb_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpt2sas),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_hold_severity),
		cmocka_unit_test(test_loc_storm),
		cmocka_unit_test(test_hba_single_vector),
		cmocka_unit_test(test_cpu_nice),
		cmocka_unit_test(test_db_victims),
		cmocka_unit_test(test_cpu_remedy),
		cmocka_unit_test(test_cpu_who),
		cmocka_unit_test(test_cpu_impostor),
		cmocka_unit_test(test_cpu_groups),
		cmocka_unit_test(test_group_remedy),
		cmocka_unit_test(test_group_io_remedy),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_nvme_managed),
		cmocka_unit_test(test_nic_single_queue),
		cmocka_unit_test(test_irqbalance),
		cmocka_unit_test(test_isolated),
		cmocka_unit_test(test_numa1),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_disk_saturated),
		cmocka_unit_test(test_disk_slow),
		cmocka_unit_test(test_iostats_off),
		cmocka_unit_test(test_md_raid0),
		cmocka_unit_test(test_container),
		cmocka_unit_test(test_old_kernel),
		cmocka_unit_test(test_nic_few_channels),
		cmocka_unit_test(test_nic_one_channel),
		cmocka_unit_test(test_channels_rules),
		cmocka_unit_test(test_ethtool_path),
		cmocka_unit_test(test_mpt3sas_managed),
		cmocka_unit_test(test_spread_all_guessed_managed),
		cmocka_unit_test(test_guess_managed),
		cmocka_unit_test(test_writeback_throttled),
		cmocka_unit_test(test_spread_affinity_hint),
		cmocka_unit_test(test_spread_offline_cpu),
		cmocka_unit_test(test_ssd_queue_full),
		cmocka_unit_test(test_isolated_cmdline),
		cmocka_unit_test(test_command_builder),
		cmocka_unit_test(test_trace_hot_by_time),
		cmocka_unit_test(test_trace_hot_napi),
		cmocka_unit_test(test_trace_off_same),
		cmocka_unit_test(test_trace_probe_off),
		cmocka_unit_test(test_trace_disk_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
