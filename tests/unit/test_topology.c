// SPDX-License-Identifier: GPL-2.0-or-later
/* topology: cpulist/cpumask parsing and printing, the pure helpers, and
 * collection from the advise scenario trees (including a container tree). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "topology.h"

static void parse_list_ok(const char *s, const char *back)
{
	struct cpuset c;
	char buf[TOPO_LIST_MAX];

	assert_int_equal(cpuset_parse_list(s, strlen(s), &c), 0);
	assert_true(cpuset_format_list(&c, buf, sizeof(buf)) >= 0);
	assert_string_equal(buf, back);
}

static void test_cpulist(void **state)
{
	struct cpuset c;
	char buf[TOPO_LIST_MAX];

	(void)state;
	parse_list_ok("0-3,8,10-11\n", "0-3,8,10-11");
	parse_list_ok("5", "5");
	parse_list_ok("0,1,2,3", "0-3");
	parse_list_ok("", "");
	parse_list_ok("1023", "1023");
	assert_int_equal(cpuset_parse_list("3-1", 3, &c), -EINVAL);
	assert_int_equal(cpuset_parse_list("1,", 2, &c), -EINVAL);
	assert_int_equal(cpuset_parse_list("a", 1, &c), -EINVAL);
	assert_int_equal(cpuset_parse_list("1024", 4, &c), -EINVAL);
	assert_int_equal(cpuset_parse_list("0-99999999999", 13, &c), -EINVAL);
	assert_int_equal(cpuset_parse_list("1 2", 3, &c), -EINVAL);
	/* too small a buffer is an error, not a truncated list */
	assert_int_equal(cpuset_parse_list("0,2,4,6", 7, &c), 0);
	assert_int_equal(cpuset_format_list(&c, buf, 4), -ENOSPC);
}

static void test_cpumask(void **state)
{
	struct cpuset c;
	char buf[TOPO_LIST_MAX];

	(void)state;
	assert_int_equal(cpuset_parse_mask("00000000,0000ff0f\n", 18, &c), 0);
	assert_int_equal(cpuset_format_list(&c, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "0-3,8-15");
	assert_int_equal(cpuset_format_mask(&c, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "0000ff0f");
	assert_int_equal(cpuset_parse_mask("1,00000000", 10, &c), 0);
	assert_true(cpuset_has(&c, 32));
	assert_int_equal(cpuset_count(&c), 1);
	assert_int_equal(cpuset_format_mask(&c, buf, sizeof(buf)), 17);
	assert_string_equal(buf, "00000001,00000000");
	assert_int_equal(cpuset_parse_mask("0", 1, &c), 0);
	assert_true(cpuset_empty(&c));
	assert_int_equal(cpuset_format_mask(&c, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "00000000");
	assert_int_equal(cpuset_parse_mask("xyz", 3, &c), -EINVAL);
	assert_int_equal(cpuset_parse_mask(",", 1, &c), -EINVAL);
}

static void test_helpers(void **state)
{
	static const char managed[] = "dstate:   0x01601200\n            IRQD_ACTIVATED\n"
				      "            IRQD_AFFINITY_MANAGED\n";
	static const char plain[] = "dstate:   0x00401200\n            IRQD_ACTIVATED\n";
	struct topo_irqbalance ib = { 0 };
	char buf[64];
	static const char env[] = "PATH=/bin\0IRQBALANCE_BANNED_CPUS=00000003\0";
	static const char conf[] =
	    "# comment --banirq=9\nIRQBALANCE_ARGS=\"--banirq=44 --banirq=45\"\n"
	    "IRQBALANCE_BANNED_CPULIST=8-9\n";
	static const char cmdline[] = "/usr/sbin/irqbalance\0--banirq\0"
				      "46\0-i\0"
				      "47\0";

	(void)state;
	assert_int_equal(topology_parse_debugfs_managed(managed, strlen(managed)), 1);
	assert_int_equal(topology_parse_debugfs_managed(plain, strlen(plain)), 0);
	assert_int_equal(topology_parse_debugfs_managed("junk", 4), -ENOENT);
	assert_int_equal(topology_parse_scheduler("mq-deadline kyber [none]", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "none");
	assert_int_equal(topology_parse_scheduler("none", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(topology_parse_scheduler("[]", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(
	    topology_pci_from_link("../../devices/pci0000:00/0000:00:1c.0/0000:03:00.0/"
				   "host0/target0:0:0/0:0:0:0/block/sda",
				   buf, sizeof(buf)),
	    0);
	assert_string_equal(buf, "0000:03:00.0");
	assert_int_equal(
	    topology_pci_from_link("../../devices/virtual/block/loop0", buf, sizeof(buf)), -ENOENT);
	topology_parse_irqbalance(env, sizeof(env), &ib);
	topology_parse_irqbalance(conf, sizeof(conf) - 1, &ib);
	assert_true(cpuset_has(&ib.banned_cpus, 0) && cpuset_has(&ib.banned_cpus, 1));
	assert_true(cpuset_has(&ib.banned_cpus, 8) && cpuset_has(&ib.banned_cpus, 9));
	assert_int_equal(cpuset_count(&ib.banned_cpus), 4);
	assert_int_equal(ib.nbanned_irqs, 2); /* the commented one does not count */
	assert_int_equal(ib.banned_irqs[0], 44);
	assert_int_equal(ib.banned_irqs[1], 45);
	topology_parse_irqbalance(cmdline, sizeof(cmdline), &ib);
	assert_int_equal(ib.nbanned_irqs, 4);
	assert_int_equal(ib.banned_irqs[2], 46);
	assert_int_equal(ib.banned_irqs[3], 47);
}

static void collect(const char *scenario, struct topology *t)
{
	char dir[512];
	struct root r;

	snprintf(dir, sizeof(dir), "%s/advise/%s", FIXTURES_DIR, scenario);
	assert_int_equal(root_open(dir, &r), 0);
	assert_int_equal(topology_collect(&r, t), 0);
	root_close(&r);
}

static void test_collect_mpt2sas(void **state)
{
	struct topology t;
	const struct topo_irq *q;
	const struct topo_block *b;

	(void)state;
	collect("mpt2sas/t1", &t);
	assert_true(t.has_online && t.has_isolated);
	assert_int_equal(cpuset_count(&t.online), 8);
	assert_int_equal(t.nirqs, 16);
	q = topology_irq(&t, 107);
	assert_non_null(q);
	assert_true(q->has_smp && q->has_eff && q->has_hint && q->has_node);
	assert_string_equal(q->smp_list, "0-7");
	assert_true(cpuset_has(&q->effective, 1) && cpuset_count(&q->effective) == 1);
	assert_true(cpuset_empty(&q->hint));
	assert_string_equal(q->actions, "mpt2sas0-msix0");
	assert_false(q->managed);
	assert_int_equal(q->dev, 0);
	assert_int_equal(t.ndevs, 1);
	assert_string_equal(t.devs[0].pci, "0000:03:00.0");
	assert_string_equal(t.devs[0].driver, "mpt2sas");
	assert_string_equal(t.devs[0].name, "host0");
	assert_int_equal(t.devs[0].kind, TOPO_DEV_SCSI);
	assert_int_equal(t.devs[0].nirqs, 16);
	b = topology_block(&t, "sda");
	assert_non_null(b);
	assert_int_equal(b->dev, 0); /* through sys/dev/block/8:0 */
	assert_string_equal(b->scheduler, "none");
	assert_int_equal(b->nr_requests, 256);
	assert_int_equal(b->rotational, 0);
	assert_false(t.irqbalance.running);
	assert_int_equal(t.nmissing, 0);
	topology_free(&t);
}

static void test_collect_nic(void **state)
{
	struct topology t;

	(void)state;
	collect("nic-single-queue/t1", &t);
	assert_int_equal(t.nnets, 1);
	assert_string_equal(t.nets[0].ifname, "eth0");
	assert_int_equal(t.nets[0].dev, 0);
	assert_int_equal(t.nets[0].rx_queues, 1);
	assert_true(t.nets[0].has_rps && cpuset_empty(&t.nets[0].rps_cpus));
	assert_true(t.nets[0].has_flow_cnt);
	assert_int_equal(t.rps_sock_flow_entries, 0);
	topology_free(&t);
	collect("isolated/t1", &t);
	assert_true(cpuset_has(&t.isolated, 4) && cpuset_has(&t.nohz_full, 7));
	assert_int_equal(cpuset_count(&t.isolated), 4);
	topology_free(&t);
}

static void test_collect_container(void **state)
{
	struct topology t;

	(void)state;
	collect("container/t1", &t);
	assert_int_equal(t.nirqs, 0);
	assert_int_equal(t.ndevs, 0);
	assert_true(topology_missing(&t, "/proc/irq"));
	assert_true(topology_missing(&t, "/sys/bus/pci/devices"));
	assert_true(topology_missing(&t, "/sys/devices/system/cpu/isolated"));
	assert_false(t.has_isolated);
	topology_free(&t);
	/* an empty directory: everything missing, nothing invented */
	collect("..", &t); /* tests/fixtures/advise/.. has no proc/ or sys/ */
	assert_false(t.has_online);
	assert_int_equal(t.nirqs, 0);
	assert_int_equal(t.rps_sock_flow_entries, -1);
	topology_free(&t);
}

static void cmdline_ok(const char *line, const char *key, int want, const char *back)
{
	struct cpuset c;
	char buf[TOPO_LIST_MAX];

	assert_int_equal(topology_parse_cmdline_cpus(line, strlen(line), key, &c), want);
	assert_true(cpuset_format_list(&c, buf, sizeof(buf)) >= 0);
	assert_string_equal(buf, back);
}

/* isolcpus= and nohz_full= as housekeeping_isolcpus_setup() and
 * housekeeping_nohz_full_setup() take them. */
static void test_cmdline_cpus(void **state)
{
	struct cpuset c;
	const char *bad = "isolcpus=0-7:2/4";

	(void)state;
	cmdline_ok("ro quiet isolcpus=2-3\n", "isolcpus", 1, "2-3");
	cmdline_ok("isolcpus=managed_irq,domain,4-6 nohz_full=5-7", "isolcpus", 1, "4-6");
	cmdline_ok("isolcpus=managed_irq,domain,4-6 nohz_full=5-7", "nohz_full", 1, "5-7");
	cmdline_ok("isolcpus=nohz,1,3", "isolcpus", 1, "1,3");
	cmdline_ok("isolcpus=\"2,5\"", "isolcpus", 1, "2,5");
	/* every occurrence counts; a longer parameter name is another one */
	cmdline_ok("isolcpus=1 isolcpus=6 isolcpus_x=3", "isolcpus", 1, "1,6");
	/* absent, or an unknown flag (the kernel then ignores the parameter) */
	cmdline_ok("root=/dev/sda1 ro", "isolcpus", 0, "");
	cmdline_ok("isolcpus=bogus,2-3", "isolcpus", 0, "");
	cmdline_ok("nohz_full=", "nohz_full", 1, "");
	assert_int_equal(topology_parse_cmdline_cpus(bad, strlen(bad), "isolcpus", &c), -EINVAL);
}

/* No sysfs isolated/nohz_full lists: the boot line says which CPUs. */
static void test_collect_isolated_cmdline(void **state)
{
	struct topology t;
	char buf[TOPO_LIST_MAX];

	(void)state;
	collect("isolated-cmdline/t1", &t);
	assert_true(t.has_isolated);
	assert_true(t.isolated_from_cmdline);
	assert_true(t.nohz_full_from_cmdline);
	assert_false(topology_missing(&t, "/sys/devices/system/cpu/isolated"));
	cpuset_format_list(&t.isolated, buf, sizeof(buf));
	assert_string_equal(buf, "4-6");
	cpuset_format_list(&t.nohz_full, buf, sizeof(buf));
	assert_string_equal(buf, "5-7");
	topology_free(&t);
	/* with the sysfs list, the command line is not read */
	collect("isolated/t1", &t);
	assert_true(t.has_isolated);
	assert_false(t.isolated_from_cmdline);
	topology_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_cpumask),
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_collect_mpt2sas),
		cmocka_unit_test(test_collect_nic),
		cmocka_unit_test(test_collect_container),
		cmocka_unit_test(test_cmdline_cpus),
		cmocka_unit_test(test_collect_isolated_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
