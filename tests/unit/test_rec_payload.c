// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's payload beyond the core files (collect/rec_payload.c):
 * every section's raw table round-trips through its record, a section the
 * payload lacks stays absent, and a hostile record is refused (its source
 * unavailable) without reading outside its bytes or allocating past a bound.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rec_payload.h"
#include "snapshot.h"
#include "strbuf.h"
#include "turbo.h"
#include "workload.h"

static struct snapshot full_snapshot(void)
{
	struct snapshot s = { 0 };
	struct workload_raw *w = calloc(1, sizeof(*w));
	struct turbo_raw *t = calloc(1, sizeof(*t));
	struct proc_table *pt = &w->procs;

	assert_non_null(w);
	assert_non_null(t);
	pt->rows = calloc(4, sizeof(*pt->rows));
	pt->n = pt->cap = 4;
	pt->rows[0] = (struct proc_raw){ .pid = 1, .comm = "" };
	pt->rows[1] = (struct proc_raw){ .pid = 4242,
					 .comm = "a\tb\nc\\d",
					 .source = PROC_SRC_TASKSTATS,
					 .has_delay = true,
					 .read_bytes = 4096,
					 .write_bytes = UINT64_MAX,
					 .blkio_count = 3,
					 .blkio_delay_ns = 123456789 };
	/* a pid reused in the interval: an exited row, then the live one */
	pt->rows[2] =
	    (struct proc_raw){ .pid = 5000, .comm = "mount", .exited = true, .read_bytes = 35840 };
	pt->rows[3] = (struct proc_raw){ .pid = 5000, .comm = "0", .reaped_write_bytes = 7 };
	pt->delayacct = -1;
	pt->unreadable = 2;
	pt->exited_rows = 1;
	pt->scan_uptime_cs = 1234;
	pt->scan_cpu_ns = 8000000;
	pt->scan_every = 31;
	snprintf(pt->scan_why, sizeof(pt->scan_why), "cadence");
	pt->taskstats.err = -EPERM;
	snprintf(pt->taskstats.reason, sizeof(pt->taskstats.reason), "taskstats: no CAP_NET_ADMIN");

	w->cgroups.rows = calloc(2, sizeof(*w->cgroups.rows));
	w->cgroups.io = calloc(2, sizeof(*w->cgroups.io));
	w->cgroups.n = w->cgroups.cap = 2;
	w->cgroups.nio = w->cgroups.io_cap = 2;
	snprintf(w->cgroups.top, sizeof(w->cgroups.top), "sys/fs/cgroup");
	w->cgroups.io_enabled = true;
	w->cgroups.rows[0].has_psi = true;
	w->cgroups.rows[0].some = (struct psi_line){ true, 12.34, 0.05, 100.0, 987654321 };
	snprintf(w->cgroups.rows[1].path, sizeof(w->cgroups.rows[1].path), "system.slice/x y");
	w->cgroups.rows[1].has_stat = true;
	w->cgroups.rows[1].io_off = 0;
	w->cgroups.rows[1].nio = 2;
	w->cgroups.io[0] = (struct cgroup_io){ .major = 8, .minor = 0, .rbytes = 1, .wios = 9 };
	w->cgroups.io[1] =
	    (struct cgroup_io){ .major = 259, .minor = 1, .has_discard = true, .dbytes = 1 << 20 };

	w->nics.rows = calloc(1, sizeof(*w->nics.rows));
	w->nics.n = w->nics.cap = 1;
	snprintf(w->nics.rows[0].ifname, sizeof(w->nics.rows[0].ifname), "eth0");
	w->nics.rows[0].up = w->nics.rows[0].running = w->nics.rows[0].has_stats = true;
	w->nics.rows[0].stats.rx_bytes = 87271793;
	w->nics.rows[0].has_coalesce = true;
	w->nics.rows[0].coalesce.has_adaptive_tx = true;
	w->nics.rows[0].coalesce.adaptive_tx = true;
	w->nics.rows[0].coalesce.rx_usecs = 8;
	w->nics.rows[0].channels_status.err = -EOPNOTSUPP;
	snprintf(w->nics.rows[0].channels_status.reason, IOT_REASON_MAX, "channels: not supported");
	w->nics.rows[0].nirqs = 3;
	w->nics.rows[0].irqs[0] = 37;
	w->nics.rows[0].irqs[1] = 38;
	w->nics.rows[0].irqs[2] = 39;

	w->pressure.res[PSI_IO].some = (struct psi_line){ true, 1.72, 1.51, 2.52, 607293951 };
	w->pressure.res[PSI_IO].full = (struct psi_line){ true, 0.6, 0.34, 1.95, 427499077 };
	/* not the kernel's two decimals: kept to the bit all the same */
	w->pressure.res[PSI_CPU].some = (struct psi_line){ true, 1.0 / 3.0, 0, 0, 1 };
	w->pressure.res[PSI_IRQ].status.err = -ENOENT;
	snprintf(w->pressure.res[PSI_IRQ].status.reason, IOT_REASON_MAX, "/proc/pressure/irq: No");

	w->writeback.has_vmstat = true;
	w->writeback.nr_dirty = 8634;
	w->writeback.page_size = 4096;
	w->writeback.has_sysctl[WB_DIRTY_RATIO] = true;
	w->writeback.sysctl[WB_DIRTY_RATIO] = 20;
	s.workload = w;

	t->has_time = true;
	t->mono_ns = 12125483573010;
	t->energy_kind = TE_PERF;
	snprintf(t->info.vendor, sizeof(t->info.vendor), "GenuineIntel");
	t->info.base_mhz = 2100.5;
	t->info.energy_unit_j = 1.0 / 16384;
	t->info.nidle = 2;
	snprintf(t->info.idle_names[1], sizeof(t->info.idle_names[1]), "C1E");
	t->info.sources[TF_MSR].err = -ENODEV;
	snprintf(t->info.src[TC_TSC_MHZ].detail, sizeof(t->info.src[0].detail), "perf msr/tsc/");
	t->info.src[TC_TSC_MHZ].via = TV_PERF;
	t->cpus = calloc(2, sizeof(*t->cpus));
	t->ncpu = t->cpu_cap = 2;
	t->cpus[0] = (struct turbo_cpu_raw){ .cpu = 0,
					     .first_in_core = true,
					     .core_idx = 0,
					     .have = TR_TSC | TR_IDLE,
					     .tsc = 88391170774,
					     .idle_us = { 5, 8295060635 } };
	t->cpus[1] = (struct turbo_cpu_raw){ .cpu = 1,
					     .core_id = 1,
					     .core_idx = 1,
					     .err = -EIO,
					     .reason = "cpu1: EIO",
					     .core_temp_mc = -5000 };
	t->pkgs = calloc(1, sizeof(*t->pkgs));
	t->npkg = t->pkg_cap = 1;
	t->pkgs[0] = (struct turbo_pkg_raw){ .have = TP_E_PKG, .e_pkg = 77, .pkg_temp_mc = 51000 };
	s.turbo = t;

	s.mq.rows = calloc(1, sizeof(*s.mq.rows));
	s.mq.n = s.mq.cap = 1;
	snprintf(s.mq.rows[0].disk, sizeof(s.mq.rows[0].disk), "nvme0n1");
	snprintf(s.mq.rows[0].cpu_list, sizeof(s.mq.rows[0].cpu_list), "0-1");
	s.numa.rows = calloc(1, sizeof(*s.numa.rows));
	s.numa.n = s.numa.cap = 1;
	snprintf(s.numa.rows[0].cpu_list, sizeof(s.numa.rows[0].cpu_list), "0-1");
	return s;
}

/* Field by field: rows built from compound literals may differ in padding. */
static void proc_equal(const struct proc_raw *a, const struct proc_raw *b)
{
	assert_int_equal(a->pid, b->pid);
	assert_string_equal(a->comm, b->comm);
	assert_int_equal(a->source, b->source);
	assert_int_equal(a->has_delay, b->has_delay);
	assert_int_equal(a->exited, b->exited);
	assert_int_equal(a->read_bytes, b->read_bytes);
	assert_int_equal(a->write_bytes, b->write_bytes);
	assert_int_equal(a->cancelled_write_bytes, b->cancelled_write_bytes);
	assert_int_equal(a->blkio_count, b->blkio_count);
	assert_int_equal(a->blkio_delay_ns, b->blkio_delay_ns);
	assert_int_equal(a->reaped_read_bytes, b->reaped_read_bytes);
	assert_int_equal(a->reaped_write_bytes, b->reaped_write_bytes);
	assert_int_equal(a->reaped_cancelled_bytes, b->reaped_cancelled_bytes);
}

static void psi_equal(const struct psi_line *a, const struct psi_line *b)
{
	/* doubles compared to the bit */
	assert_int_equal(a->present, b->present);
	assert_memory_equal(&a->avg10, &b->avg10, sizeof(double));
	assert_memory_equal(&a->avg60, &b->avg60, sizeof(double));
	assert_memory_equal(&a->avg300, &b->avg300, sizeof(double));
	assert_int_equal(a->total_us, b->total_us);
}

static void cpu_equal(const struct turbo_cpu_raw *a, const struct turbo_cpu_raw *b)
{
	assert_int_equal(a->cpu, b->cpu);
	assert_int_equal(a->core_id, b->core_id);
	assert_int_equal(a->pkg_id, b->pkg_id);
	assert_int_equal(a->first_in_core, b->first_in_core);
	assert_int_equal(a->first_in_pkg, b->first_in_pkg);
	assert_int_equal(a->core_idx, b->core_idx);
	assert_int_equal(a->err, b->err);
	assert_string_equal(a->reason, b->reason);
	assert_int_equal(a->have, b->have);
	assert_int_equal(a->tsc, b->tsc);
	assert_int_equal(a->core_temp_mc, b->core_temp_mc);
	assert_memory_equal(a->idle_us, b->idle_us, sizeof(a->idle_us));
}

/* Every record of buf into s, as snapshot_collector_unpack() does. */
static int unpack_all(const struct strbuf *b, struct snapshot *s)
{
	bool had_turbo = false, had_workload = false;
	const char *pos = b->buf ? b->buf : "", *end = pos + b->len, *p;
	uint16_t tag;
	int32_t err;
	size_t l;
	int r = 0, e;

	rec_payload_unpack_begin(s);
	while ((e = rec_payload_next(&pos, end, &tag, &err, &p, &l)) > 0) {
		e = rec_payload_unpack_section(tag, p, l, s);
		if (e < 0 && !r)
			r = e;
		if (tag == REC_TAG_TURBO)
			had_turbo = e == 0;
		else if (tag >= REC_TAG_PROCS && tag <= REC_TAG_WRITEBACK)
			had_workload = true;
	}
	assert_int_equal(e, 0);
	rec_payload_unpack_end(s, had_turbo, had_workload);
	return r;
}

static void pack_all(const struct snapshot *s, struct strbuf *b)
{
	assert_int_equal(rec_payload_pack_sections(s, NULL, b), 0);
	assert_int_equal(rec_payload_pack_procs(s, b), 0);
}

static void test_roundtrip(void **state)
{
	struct snapshot a = full_snapshot(), b = { 0 };
	struct strbuf p = { 0 }, q = { 0 };
	const struct workload_raw *wa = a.workload, *wb;

	(void)state;
	a.cadence[CAD_NICS].carried = true;
	a.cadence[CAD_NICS].every = 12;
	a.cadence[CAD_NICS].age = 7;
	a.cadence[CAD_NICS].read_uptime_cs = 1473498;
	a.cadence[CAD_NICS].cpu_ns = 195000;
	snprintf(a.cadence[CAD_PRESSURE].why, sizeof(a.cadence[CAD_PRESSURE].why), "client");
	pack_all(&a, &p);
	assert_int_equal(unpack_all(&p, &b), 0);
	/* the cadence (version 3): a replay says what the daemon did */
	assert_memory_equal(b.cadence, a.cadence, sizeof(a.cadence));
	wb = b.workload;
	assert_non_null(wb);
	assert_non_null(b.turbo);
	/* rows are zeroed before they are read: whole structs compare */
	assert_int_equal(wb->procs.n, 4);
	for (int i = 0; i < 4; i++)
		proc_equal(&wb->procs.rows[i], &wa->procs.rows[i]);
	assert_int_equal(wb->procs.delayacct, -1);
	assert_int_equal(wb->procs.scan_every, 31);
	assert_string_equal(wb->procs.scan_why, "cadence");
	assert_int_equal(wb->procs.taskstats.err, -EPERM);
	assert_string_equal(wb->procs.taskstats.reason, wa->procs.taskstats.reason);
	assert_int_equal(wb->procs.procfs.err, 0);
	assert_int_equal(wb->cgroups.n, 2);
	psi_equal(&wb->cgroups.rows[0].some, &wa->cgroups.rows[0].some);
	assert_string_equal(wb->cgroups.rows[1].path, "system.slice/x y");
	assert_int_equal(wb->cgroups.rows[1].nio, 2);
	assert_int_equal(wb->cgroups.io[1].major, 259);
	assert_true(wb->cgroups.io[1].has_discard);
	assert_int_equal(wb->cgroups.io[1].dbytes, 1 << 20);
	assert_int_equal(wb->nics.n, 1);
	assert_memory_equal(wb->nics.rows, wa->nics.rows, sizeof(struct nic_raw));
	for (int i = 0; i < PSI__COUNT; i++) {
		psi_equal(&wb->pressure.res[i].some, &wa->pressure.res[i].some);
		psi_equal(&wb->pressure.res[i].full, &wa->pressure.res[i].full);
		assert_int_equal(wb->pressure.res[i].status.err, wa->pressure.res[i].status.err);
	}
	assert_memory_equal(&wb->writeback, &wa->writeback, sizeof(wa->writeback));
	assert_memory_equal(&b.turbo->info, &a.turbo->info, sizeof(a.turbo->info));
	assert_int_equal(b.turbo->ncpu, 2);
	cpu_equal(&b.turbo->cpus[0], &a.turbo->cpus[0]);
	cpu_equal(&b.turbo->cpus[1], &a.turbo->cpus[1]);
	assert_int_equal(b.turbo->pkgs[0].e_pkg, 77);
	assert_int_equal(b.turbo->pkgs[0].pkg_temp_mc, 51000);
	assert_int_equal(b.turbo->mono_ns, a.turbo->mono_ns);
	assert_int_equal(b.turbo->energy_kind, TE_PERF);
	assert_int_equal(b.mq.n, 1);
	assert_string_equal(b.mq.rows[0].disk, "nvme0n1");
	assert_int_equal(b.numa.n, 1);
	/* and packs back to the same bytes */
	pack_all(&b, &q);
	assert_int_equal(q.len, p.len);
	assert_memory_equal(q.buf, p.buf, p.len);

	/* a carried table: its header only, no rows, the flag set */
	a.workload->procs.carried = true;
	sb_reset(&p);
	pack_all(&a, &p);
	assert_int_equal(unpack_all(&p, &b), 0);
	assert_true(b.workload->procs.carried);
	assert_int_equal(b.workload->procs.n, 0);

	/* a payload without the sections (version 1, --core-only): absent, not zeros */
	sb_reset(&p);
	assert_int_equal(unpack_all(&p, &b), 0);
	assert_false(b.cadence[CAD_NICS].carried);
	assert_int_equal(b.cadence[CAD_NICS].every, 0);
	assert_null(b.workload);
	assert_null(b.turbo);
	assert_int_equal(b.mq.n, 0);
	snapshot_free(&a);
	snapshot_free(&b);
	sb_free(&p);
	sb_free(&q);
}

static void test_topology_roundtrip(void **state)
{
	struct topology t = { 0 }, u, v;
	struct strbuf p = { 0 }, q = { 0 };
	uint32_t irqs[] = { 37, 38 };

	(void)state;
	t.has_online = true;
	cpuset_set(&t.online, 0);
	cpuset_set(&t.online, 1000);
	t.rps_sock_flow_entries = -1;
	t.devs = calloc(1, sizeof(*t.devs));
	t.ndevs = t.devs_cap = 1;
	snprintf(t.devs[0].pci, sizeof(t.devs[0].pci), "0000:00:04.0");
	t.devs[0].kind = TOPO_DEV_NET;
	t.devs[0].numa_node = -1;
	t.devs[0].irqs = malloc(sizeof(irqs));
	memcpy(t.devs[0].irqs, irqs, sizeof(irqs));
	t.devs[0].nirqs = 2;
	t.irqs = calloc(2, sizeof(*t.irqs));
	t.nirqs = t.irqs_cap = 2;
	t.irqs[0] = (struct topo_irq){ .irq = 37,
				       .has_smp = true,
				       .smp_list = "0-1",
				       .node = -1,
				       .actions = "virtio3-rx",
				       .managed_known = true,
				       .dev = 0 };
	t.irqs[1] = (struct topo_irq){ .irq = 40, .node = 0, .dev = -1 };
	t.nets = calloc(1, sizeof(*t.nets));
	t.nnets = t.nets_cap = 1;
	snprintf(t.nets[0].ifname, sizeof(t.nets[0].ifname), "eth0");
	t.blocks = calloc(1, sizeof(*t.blocks));
	t.nblocks = t.blocks_cap = 1;
	t.blocks[0] = (struct topo_block){ .name = "vda",
					   .dev = -1,
					   .scheduler = "none",
					   .nr_requests = 256,
					   .read_ahead_kb = -1,
					   .rotational = 0 };
	snprintf(t.missing[0], sizeof(t.missing[0]), "/proc/irq/N/effective_affinity_list");
	t.nmissing = 1;
	assert_int_equal(rec_payload_pack_topology(&t, &p), 0);
	assert_int_equal(rec_payload_unpack_topology(p.buf + 12, p.len - 12, &u), 0);
	assert_true(cpuset_has(&u.online, 1000));
	assert_int_equal(u.nirqs, 2);
	assert_int_equal(u.irqs[0].irq, 37);
	assert_string_equal(u.irqs[0].smp_list, "0-1");
	assert_string_equal(u.irqs[0].actions, "virtio3-rx");
	assert_true(u.irqs[0].managed_known);
	assert_int_equal(u.irqs[0].dev, 0);
	assert_int_equal(u.irqs[1].dev, -1);
	assert_int_equal(u.irqs[1].node, 0);
	assert_int_equal(u.devs[0].nirqs, 2);
	assert_memory_equal(u.devs[0].irqs, irqs, sizeof(irqs));
	assert_string_equal(u.blocks[0].scheduler, "none");
	assert_int_equal(u.blocks[0].nr_requests, 256);
	assert_int_equal(u.blocks[0].read_ahead_kb, -1);
	assert_string_equal(u.missing[0], t.missing[0]);
	assert_int_equal(rec_payload_pack_topology(&u, &q), 0);
	assert_int_equal(q.len, p.len);
	assert_memory_equal(q.buf, p.buf, p.len);
	topology_free(&u);

	/* an IRQ pointing past the devices: refused, nothing returned */
	t.irqs[1].dev = 1;
	sb_reset(&p);
	assert_int_equal(rec_payload_pack_topology(&t, &p), 0);
	assert_int_equal(rec_payload_unpack_topology(p.buf + 12, p.len - 12, &v), -EBADMSG);
	topology_free(&t);
	sb_free(&p);
	sb_free(&q);
}

/* The recorder's memo gives the very bytes packing afresh gives: a carried
 * turbo reading from the memo, a new reading (another read time) and a
 * changed topology (topo_ok cleared, as the sampler does) packed again. */
static void test_memo(void **state)
{
	struct snapshot a = full_snapshot();
	struct rec_payload_memo m = { 0 };
	struct strbuf fresh = { 0 }, memo = { 0 };
	struct topology t = { 0 };

	(void)state;
	t.has_online = true;
	cpuset_set(&t.online, 3);
	for (int round = 0; round < 6; round++) {
		if (round == 2) {
			/* a new reading: other counters, another time */
			a.turbo->mono_ns += 1000000000;
			a.turbo->cpus[0].tsc += 12345;
		}
		if (round == 3) {
			/* the same reading, another CPU count (a hotplug between
			 * reads is a new reading too; the count guards the key) */
			a.turbo->ncpu = 1;
		}
		if (round == 4) {
			cpuset_set(&t.online, 7);
			m.topo_ok = false;
		}
		sb_reset(&fresh);
		sb_reset(&memo);
		assert_int_equal(rec_payload_pack_sections(&a, NULL, &fresh), 0);
		assert_int_equal(rec_payload_pack_topology(&t, &fresh), 0);
		assert_int_equal(rec_payload_pack_sections(&a, &m, &memo), 0);
		assert_int_equal(rec_payload_pack_topology_memo(&t, &m, &memo), 0);
		assert_int_equal(memo.len, fresh.len);
		assert_memory_equal(memo.buf, fresh.buf, fresh.len);
		assert_true(m.turbo_ok);
		assert_true(m.topo_ok);
	}
	rec_payload_memo_free(&m);
	snapshot_free(&a);
	sb_free(&fresh);
	sb_free(&memo);
}

/* One record of tag with body text into s. */
static int unpack_text(uint16_t tag, const char *text, struct snapshot *s)
{
	return rec_payload_unpack_section(tag, text, strlen(text), s);
}

static void test_hostile(void **state)
{
	struct snapshot s = { 0 };
	static const char *const bad_procs[] = {
		"h\t0\nw\t\ns\t0\t\ns\t0\t\n2147483647\t\n1\t\n",	  /* pid past INT32_MAX */
		"h\t0\nw\t\ns\t0\t\ns\t0\t\n1\tx\\x4\n",		  /* an escape cut short */
		"h\t0\nw\t\ns\t0\t\ns\t0\t\n1\tx\\q41\n",		  /* not an escape */
		"h\t0\nw\t\ns\t0\t\ns\t0\t\n1\t\t99999999999999999999\n", /* past UINT64_MAX */
		"h\t1\nw\t\ns\t0\t\ns\t0\t\n1\t\n", /* rows in a carried table */
		"h\t0\n",			    /* no statuses */
	};
	char nic[4096];
	int n;

	(void)state;
	rec_payload_unpack_begin(&s);
	for (size_t i = 0; i < sizeof(bad_procs) / sizeof(bad_procs[0]); i++) {
		assert_int_equal(unpack_text(REC_TAG_PROCS, bad_procs[i], &s), -EBADMSG);
		/* the source is unavailable, not a half table */
		assert_int_equal(s.workload->procs.n, 0);
		assert_int_equal(s.workload->procs.procfs.err, -ENODATA);
	}
	/* a NIC claiming more vectors than NIC_IRQ_MAX */
	n = snprintf(nic, sizeof(nic), "h\t0\t\t0\t\nn\teth0");
	for (int i = 0; i < 24; i++)
		n += snprintf(nic + n, sizeof(nic) - (size_t)n, "\t0");
	snprintf(nic + n, sizeof(nic) - (size_t)n, "\t%d\t1\n", NIC_IRQ_MAX + 1);
	assert_int_equal(unpack_text(REC_TAG_NICS, nic, &s), -EBADMSG);
	assert_int_equal(s.workload->nics.n, 0);
	assert_int_equal(s.workload->nics.rtnl.err, -ENODATA);
	/* io lines before any cgroup */
	assert_int_equal(unpack_text(REC_TAG_CGROUPS, "h\tsys/fs/cgroup\ni\t8\t0\n", &s), -EBADMSG);
	/* cgroups out of order: cgroup_table_find() would miss */
	assert_int_equal(unpack_text(REC_TAG_CGROUPS, "h\t\ng\tb\ng\ta\n", &s), -EBADMSG);
	/* a turbo CPU whose core index points outside: its own row instead */
	assert_int_equal(unpack_text(REC_TAG_TURBO, "c\t0\t0\t0\t1\t1\t7\n", &s), 0);
	assert_int_equal(s.turbo->cpus[0].core_idx, 0);
	assert_int_equal(unpack_text(REC_TAG_TURBO,
				     "i\tx\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0"
				     "\t0\t0\t9\n",
				     &s),
			 -EBADMSG); /* nidle past TURBO_IDLE_MAX */
	/* an unknown line kind and an unknown tag: skipped */
	assert_int_equal(unpack_text(REC_TAG_TURBO, "z\t1\t2\n", &s), 0);
	assert_int_equal(unpack_text(999, "anything", &s), 0);
	/* a topology with more missing patterns than TOPO_MISSING_MAX */
	{
		struct strbuf b = { 0 };
		struct topology t;

		for (int i = 0; i <= TOPO_MISSING_MAX; i++)
			sb_puts(&b, "m\tx\n");
		assert_int_equal(rec_payload_unpack_topology(b.buf, b.len, &t), -EBADMSG);
		sb_reset(&b);
		/* more vectors than REC_PAYLOAD_DEVIRQS_MAX, in one device or in all */
		sb_printf(&b, "d\tp\td\t0\tn\t-1\t0\t0\t0\t%u\n", REC_PAYLOAD_DEVIRQS_MAX + 1);
		assert_int_equal(rec_payload_unpack_topology(b.buf, b.len, &t), -EBADMSG);
		sb_reset(&b);
		for (int i = 0; i < 3; i++)
			sb_printf(&b, "d\tp\td\t0\tn\t-1\t0\t0\t0\t%u\n",
				  REC_PAYLOAD_DEVIRQS_MAX / 2);
		assert_int_equal(rec_payload_unpack_topology(b.buf, b.len, &t), -EBADMSG);
		sb_free(&b);
	}
	snapshot_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_topology_roundtrip),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
