// SPDX-License-Identifier: GPL-2.0-or-later
/* sampler.c on a recorded tree the test rewrites between ticks: first tick
 * without rates, the second with them, interval from /proc/uptime or, when
 * that stands still, the clock; a missing root is an error, not a sample. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sampler.h"
#include "tree_util.h"

struct tree {
	char dir[64];
};

/* One state of the tree: uptime in cs, sda reads completed, cpu0 user ticks. */
static void write_state(const struct tree *t, unsigned uptime_cs, unsigned reads, unsigned user)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%u.%02u 100.00\n", uptime_cs / 100, uptime_cs % 100);
	tree_put(t->dir, "proc/uptime", buf);
	snprintf(buf, sizeof(buf),
		 "cpu  %u 0 0 %u 0 0 0 0 0 0\n"
		 "cpu0 %u 0 0 %u 0 0 0 0 0 0\n"
		 "intr 0\nctxt 0\nbtime 0\nprocesses 1\nprocs_running 1\nprocs_blocked 0\n"
		 "softirq 0 0 0 0 0 0 0 0 0 0 0\n",
		 user, 1000 - user, user, 1000 - user);
	tree_put(t->dir, "proc/stat", buf);
	snprintf(buf, sizeof(buf), "   8       0 sda %u 0 %u 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", reads,
		 reads * 8);
	tree_put(t->dir, "proc/diskstats", buf);
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	tree_new(t->dir, sizeof(t->dir), "sampler");
	tree_mkdirs(t->dir, "sys/block/sda");
	tree_put(t->dir, "proc/interrupts",
		 "           CPU0\n  0:         10   IO-APIC   2-edge      timer\n");
	tree_put(t->dir, "proc/softirqs", "                    CPU0\n          HI:          0\n");
	write_state(t, 10000, 0, 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;

	tree_remove(t->dir);
	free(t);
	return 0;
}

static void test_first_then_rates(void **state)
{
	struct tree *t = *state;
	struct sampler_opts o = { .root = t->dir, .host = "h", .mode = "daemon" };
	const struct metrics *m;
	struct sampler *s;
	const char *json;
	size_t len;

	assert_int_equal(sampler_open(&o, &s), 0);
	assert_null(sampler_json(s, NULL));
	assert_null(sampler_current(s));

	assert_int_equal(sampler_tick(s), 0);
	assert_int_equal(sampler_last_error(s), 0);
	json = sampler_json(s, &len);
	assert_non_null(json);
	assert_int_equal(strlen(json), len);
	assert_non_null(strstr(json, "\"mode\":\"daemon\""));
	assert_non_null(strstr(json, "\"sample\":1,"));
	assert_null(strstr(json, "\"disks\"")); /* no previous sample: no rates */
	assert_null(sampler_metrics(s));

	/* 2 s later: 200 reads of 8 sectors, cpu0 50% user */
	write_state(t, 10200, 200, 100);
	assert_int_equal(sampler_tick(s), 0);
	m = sampler_metrics(s);
	assert_non_null(m);
	assert_int_equal(m->itv_cs, 200);
	assert_false(sampler_interval_from_clock(s));
	assert_int_equal(m->ndisks, 1);
	assert_true(m->disks[0].valid);
	assert_true(m->disks[0].r_s > 99.99 && m->disks[0].r_s < 100.01);
	json = sampler_json(s, &len);
	assert_non_null(strstr(json, "\"sample\":2,"));
	assert_non_null(strstr(json, "\"interval_ms\":2000"));
	assert_non_null(strstr(json, "\"r/s\":100.00"));
	assert_non_null(strstr(json, "\"rkB/s\":400.00"));
	assert_int_equal(sampler_current(s)->id, 2);

	/* unchanged tree: /proc/uptime stands still, the clock gives the interval */
	assert_int_equal(sampler_tick(s), 0);
	assert_true(sampler_interval_from_clock(s));
	m = sampler_metrics(s);
	assert_non_null(m);
	assert_true(m->itv_cs >= 1);
	assert_true(m->disks[0].r_s == 0);
	sampler_close(s);
}

static void test_sources_fail(void **state)
{
	struct tree *t = *state;
	struct sampler_opts o = { .root = t->dir };
	char path[256];
	struct sampler *s;
	const char *json;

	snprintf(path, sizeof(path), "%s/proc/stat", t->dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/proc/diskstats", t->dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sampler_open(&o, &s), 0);
	/* a document still comes out, saying why */
	assert_int_equal(sampler_tick(s), 0);
	assert_int_equal(sampler_last_error(s), -ENOENT);
	json = sampler_json(s, NULL);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"stat\":{\"available\":false,\"reason\":"));
	assert_null(strstr(json, "\"host\""));
	sampler_close(s);
}

static void test_bad_root(void **state)
{
	struct sampler_opts o = { .root = "/nonexistent/iotriage-root" };
	struct sampler *s = (struct sampler *)0x1;

	(void)state;
	assert_int_equal(sampler_open(&o, &s), -ENOENT);
	assert_ptr_equal(s, (struct sampler *)0x1); /* untouched on failure */
	sampler_close(NULL);
}

/* proc/interrupts with lines 1 .. n, line i at i * k interrupts on CPU0,
 * each with /proc/irq/i/{smp_affinity_list,effective_affinity_list} */
static void write_irqs(const struct tree *t, unsigned n, unsigned k)
{
	size_t cap = 64 + (size_t)n * 80, len;
	char *buf = malloc(cap), rel[64];

	assert_non_null(buf);
	len = (size_t)snprintf(buf, cap, "           CPU0\n");
	for (unsigned i = 1; i <= n; i++)
		len += (size_t)snprintf(buf + len, cap - len,
					"%4u: %10u   PCI-MSI %u-edge      dev%u\n", i, i * k, i, i);
	tree_put(t->dir, "proc/interrupts", buf);
	free(buf);
	for (unsigned i = 1; i <= n && k == 0; i++) {
		snprintf(rel, sizeof(rel), "proc/irq/%u/smp_affinity_list", i);
		tree_put(t->dir, rel, i % 2 ? "0\n" : "0-1\n");
		snprintf(rel, sizeof(rel), "proc/irq/%u/effective_affinity_list", i);
		tree_put(t->dir, rel, "0\n");
	}
}

/* doc/json.md interrupts[] "affinity"/"effective": as the advisor's
 * topology read /proc/irq (one reader), for the ENCODE_AFFINITY_MAX
 * busiest lines that fired, none without a topology (no advice). */
static void test_irq_affinity(void **state)
{
	struct tree *t = *state;
	struct sampler_opts o = { .root = t->dir, .advise = true };
	struct sampler_opts core = { .root = t->dir };
	struct sampler *s, *c;
	const char *json, *p;
	size_t n = 0;

	write_irqs(t, 300, 0);
	assert_int_equal(sampler_open(&o, &s), 0);
	assert_int_equal(sampler_open(&core, &c), 0);
	assert_int_equal(sampler_tick(s), 0);
	assert_int_equal(sampler_tick(c), 0);
	write_state(t, 10200, 200, 100);
	write_irqs(t, 300, 10);
	assert_int_equal(sampler_tick(s), 0);
	assert_int_equal(sampler_tick(c), 0);
	assert_non_null(sampler_topology(s));
	json = sampler_json(s, NULL);
	assert_non_null(json);
	for (p = json; (p = strstr(p, "\"affinity\":")); p++)
		n++;
	assert_int_equal(n, 256);
	assert_non_null(
	    strstr(json, "{\"name\":\"300\",\"chip\":\"PCI-MSI\",\"hwirq\":\"300-edge\","
			 "\"actions\":\"dev300\",\"total/s\":1500.00,\"cpus\":{\"0\":1500.00},"
			 "\"affinity\":\"0-1\",\"effective\":\"0\"}"));
	assert_non_null(strstr(json,
			       "\"actions\":\"dev45\",\"total/s\":225.00,\"cpus\":{\"0\":225.00},"
			       "\"affinity\":\"0\",\"effective\":\"0\"}"));
	/* the 257th busiest and below: none */
	assert_non_null(
	    strstr(json, "\"actions\":\"dev44\",\"total/s\":220.00,\"cpus\":{\"0\":220.00}}"));
	json = sampler_json(c, NULL);
	assert_non_null(json);
	assert_non_null(strstr(json, "\"actions\":\"dev300\""));
	assert_null(strstr(json, "\"affinity\""));
	sampler_close(s);
	sampler_close(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_then_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sources_fail, setup, teardown),
		cmocka_unit_test(test_bad_root),
		cmocka_unit_test_setup_teardown(test_irq_affinity, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
