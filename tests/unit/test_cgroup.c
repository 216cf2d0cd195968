// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup IO attribution: io.stat and cgroup v1 blkio.throttle parsing on
 * bytes, the walk over the recorded tests/fixtures/cgroups (v2) and
 * cgroups-v1 trees (and hostile ones made here), the rates of
 * metrics_cgroup.c on the pairs, and the JSON they become.
 */
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

#include "cgroup.h"
#include "encode.h"
#include "metrics_proc.h"
#include "snapshot.h"
#include "tree_util.h"

#define CG   FIXTURES_DIR "/cgroups"
#define CGV1 FIXTURES_DIR "/cgroups-v1"
#define VIC  FIXTURES_DIR "/victims"

static int parse(const char *s, struct cgroup_io *io, size_t max, size_t *n)
{
	return cgroup_iostat_parse(s, strlen(s), io, max, n);
}

static void test_parse(void **state)
{
	struct cgroup_io io[4];
	size_t n = 99;

	(void)state;
	assert_int_equal(parse("", io, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(parse("8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=5 dios=6\n"
			       "259:1 rbytes=10 wbytes=20 rios=30 wios=40\n",
			       io, 4, &n),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(io[0].major, 8);
	assert_int_equal(io[0].minor, 0);
	assert_int_equal(io[0].rbytes, 1);
	assert_int_equal(io[0].dios, 6);
	assert_true(io[0].has_discard);
	assert_int_equal(io[1].major, 259);
	assert_int_equal(io[1].wios, 40);
	assert_false(io[1].has_discard); /* before 4.19: no dbytes/dios */
	/* iocost and io.latency keys are skipped, whatever their values */
	assert_int_equal(parse("8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0 "
			       "cost.vrate=100.00 depth=max avg_lat=0 use_delay=0\n",
			       io, 4, &n),
			 0);
	assert_int_equal(n, 1);
	/* no trailing newline: the last line still counts */
	assert_int_equal(parse("8:0 rbytes=1 wbytes=2 rios=3 wios=4", io, 4, &n), 0);
	assert_int_equal(n, 1);
	/* malformed */
	assert_int_equal(parse("8:0 rbytes=1 wbytes=2 rios=3\n", io, 4, &n), -EBADMSG);
	assert_int_equal(parse("8 rbytes=1 wbytes=2 rios=3 wios=4\n", io, 4, &n), -EBADMSG);
	assert_int_equal(parse("8:x rbytes=1 wbytes=2 rios=3 wios=4\n", io, 4, &n), -EBADMSG);
	assert_int_equal(parse("8:0 rbytes=-1 wbytes=2 rios=3 wios=4\n", io, 4, &n), -EBADMSG);
	assert_int_equal(parse("8:0 rbytes= wbytes=2 rios=3 wios=4\n", io, 4, &n), -EBADMSG);
	assert_int_equal(parse("8:0 rbytes=1 rbytes=1 wbytes=2 rios=3 wios=4\n", io, 4, &n),
			 -EBADMSG);
	assert_int_equal(
	    parse("8:0 rbytes=99999999999999999999 wbytes=2 rios=3 wios=4\n", io, 4, &n), -EBADMSG);
	assert_int_equal(parse("4294967296:0 rbytes=1 wbytes=2 rios=3 wios=4\n", io, 4, &n),
			 -EBADMSG);
	/* more lines than room */
	assert_int_equal(parse("8:0 rbytes=1 wbytes=2 rios=3 wios=4\n"
			       "8:1 rbytes=1 wbytes=2 rios=3 wios=4\n",
			       io, 1, &n),
			 -E2BIG);
}

static void test_walk_fixture(void **state)
{
	struct cgroup_table t = { 0 };
	const struct cgroup_raw *pg, *init;
	struct root r;

	(void)state;
	assert_int_equal(root_open(CG "/t1", &r), 0);
	assert_int_equal(cgroup_collect(&r, &t), 0);
	assert_int_equal(t.status.err, 0);
	assert_string_equal(t.top, "sys/fs/cgroup");
	assert_true(t.io_enabled);
	assert_int_equal(t.n, 6);
	assert_int_equal(t.skipped, 0);
	assert_string_equal(t.rows[0].path, ""); /* sorted: the top first */
	pg = cgroup_table_find(&t, "system.slice/postgresql.service");
	assert_non_null(pg);
	if (pg) {
		assert_true(pg->has_stat && pg->has_psi);
		assert_int_equal(pg->nio, 2);
		assert_int_equal(t.io[pg->io_off + 1].minor, 16);
		assert_int_equal(pg->some.total_us, 2250000);
	}
	init = cgroup_table_find(&t, "init.scope");
	assert_non_null(init);
	if (init) {
		assert_true(init->has_stat);
		assert_int_equal(init->nio, 0);
	}
	cgroup_table_free(&t);
	root_close(&r);
}

/* A hostile tree: a link to a directory outside, a FIFO as io.stat, a
 * malformed one. None is followed or blocks; each is counted. */
static void test_walk_hostile(void **state)
{
	struct cgroup_table t = { 0 };
	char dir[64], p[512];
	struct root r;

	(void)state;
	tree_new(dir, sizeof(dir), "cgroup");
	tree_mkdirs(dir, "sys/fs/cgroup/a");
	tree_put(dir, "sys/fs/cgroup/cgroup.controllers", "cpu io\n");
	tree_put(dir, "outside/x/io.stat", "8:0 rbytes=1 wbytes=2 rios=3 wios=4\n");
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/evil", dir);
	assert_int_equal(symlink("../../../outside/x", p), 0);
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/a/io.stat", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	tree_put(dir, "sys/fs/cgroup/b/io.stat", "garbage\n");
	assert_int_equal(root_open(dir, &r), 0);
	assert_int_equal(cgroup_collect(&r, &t), 0);
	assert_int_equal(t.status.err, 0);
	assert_null(cgroup_table_find(&t, "evil")); /* the link is not a cgroup */
	assert_null(cgroup_table_find(&t, "a"));
	assert_null(cgroup_table_find(&t, "b"));
	assert_int_equal(t.skipped, 2); /* the FIFO and the garbage */
	assert_non_null(strstr(t.status.reason, "2 cgroup(s) or file(s) not read"));
	cgroup_table_free(&t);
	root_close(&r);
	tree_remove(dir);
}

static void test_no_hierarchy(void **state)
{
	struct cgroup_table t = { 0 };
	struct root r;

	(void)state;
	assert_int_equal(root_open(FIXTURES_DIR "/edge-14field/t1", &r), 0);
	assert_int_equal(cgroup_collect(&r, &t), 0);
	assert_int_equal(t.status.err, -ENOENT);
	assert_non_null(strstr(t.status.reason, "no cgroup v2 hierarchy"));
	assert_non_null(strstr(t.status.reason, "no cgroup v1 blkio"));
	cgroup_table_free(&t);
	root_close(&r);
}

static int blkio(const char *bytes, const char *ios, struct cgroup_io *io, size_t max, size_t *n)
{
	return cgroup_blkio_parse(bytes, strlen(bytes), ios, strlen(ios), io, max, n);
}

/* blk-cgroup's blkg_rwstat print, as in blkio.throttle.io_service_bytes
 * and io_serviced: Read Write Sync Async [Discard] Total per device, then
 * the cgroup's Total. */
static void test_parse_blkio(void **state)
{
	static const char bytes[] = "8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 8192\n"
				    "8:0 Async 4096\n8:0 Discard 512\n8:0 Total 12800\n"
				    "259:1 Read 1\n259:1 Write 2\n259:1 Sync 2\n259:1 Async 1\n"
				    "259:1 Discard 0\n259:1 Total 3\nTotal 12803\n";
	static const char ios[] = "8:0 Read 1\n8:0 Write 2\n8:0 Sync 2\n8:0 Async 1\n"
				  "8:0 Discard 1\n8:0 Total 4\n259:1 Read 1\n259:1 Write 1\n"
				  "259:1 Sync 1\n259:1 Async 1\n259:1 Discard 0\n259:1 Total 2\n"
				  "Total 6\n";
	struct cgroup_io io[4];
	size_t n = 99;

	(void)state;
	assert_int_equal(blkio(bytes, ios, io, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(io[0].major, 8);
	assert_int_equal(io[0].rbytes, 4096);
	assert_int_equal(io[0].wbytes, 8192);
	assert_int_equal(io[0].dbytes, 512);
	assert_int_equal(io[0].rios, 1);
	assert_int_equal(io[0].wios, 2);
	assert_int_equal(io[0].dios, 1);
	assert_true(io[0].has_discard);
	assert_int_equal(io[1].major, 259);
	assert_int_equal(io[1].minor, 1);
	assert_int_equal(io[1].wios, 1);
	/* a cgroup without IO: the Total line alone; an empty file too */
	assert_int_equal(blkio("Total 0\n", "Total 0\n", io, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(blkio("", "", io, 4, &n), 0);
	assert_int_equal(n, 0);
	/* before 4.19: no Discard lines */
	assert_int_equal(
	    blkio("8:0 Read 1\n8:0 Write 2\nTotal 3", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_false(io[0].has_discard);
	/* a device the other file does not have, Read or Write missing */
	assert_int_equal(blkio("8:0 Read 1\n8:0 Write 2\n", "", io, 4, &n), -EBADMSG);
	assert_int_equal(blkio("8:0 Read 1\n", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n), -EBADMSG);
	/* Discard in one file only */
	assert_int_equal(blkio("8:0 Read 1\n8:0 Write 2\n8:0 Discard 0\n",
			       "8:0 Read 1\n8:0 Write 1\n", io, 4, &n),
			 -EBADMSG);
	/* malformed: a key twice, a device line after the Total, no number,
	 * a negative or overlong one, two Totals, a bad device, extra words */
	assert_int_equal(
	    blkio("8:0 Read 1\n8:0 Read 1\n8:0 Write 2\n", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n),
	    -EBADMSG);
	assert_int_equal(
	    blkio("Total 3\n8:0 Read 1\n8:0 Write 2\n", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n),
	    -EBADMSG);
	assert_int_equal(blkio("8:0 Read\n8:0 Write 2\n", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n),
			 -EBADMSG);
	assert_int_equal(
	    blkio("8:0 Read -1\n8:0 Write 2\n", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n), -EBADMSG);
	assert_int_equal(blkio("8:0 Read 99999999999999999999\n8:0 Write 2\n",
			       "8:0 Read 1\n8:0 Write 1\n", io, 4, &n),
			 -EBADMSG);
	assert_int_equal(blkio("Total 1\nTotal 1\n", "", io, 4, &n), -EBADMSG);
	assert_int_equal(blkio("8:x Read 1\n", "", io, 4, &n), -EBADMSG);
	assert_int_equal(
	    blkio("8:0 Read 1 2\n8:0 Write 2\n", "8:0 Read 1\n8:0 Write 1\n", io, 4, &n), -EBADMSG);
	/* more devices than room, in either file */
	assert_int_equal(blkio("8:0 Read 1\n8:0 Write 2\n8:1 Read 1\n8:1 Write 2\n", "", io, 1, &n),
			 -E2BIG);
	assert_int_equal(blkio("8:0 Read 1\n8:0 Write 2\n",
			       "8:0 Read 1\n8:0 Write 1\n8:1 Read 1\n8:1 Write 1\n", io, 1, &n),
			 -E2BIG);
}

/* The hybrid layout of a host whose io controller is on v1 (this VM's,
 * RHEL 8's legacy one without the unified part): blkio is read, each
 * cgroup's own IO; the v2 hierarchy without io is passed over. */
static void test_walk_blkio(void **state)
{
	struct cgroup_table t = { 0 };
	const struct cgroup_raw *pg, *cron, *sys;
	struct root r;

	(void)state;
	assert_int_equal(root_open(CGV1 "/t1", &r), 0);
	assert_int_equal(cgroup_collect(&r, &t), 0);
	assert_int_equal(t.status.err, 0);
	assert_string_equal(t.top, "sys/fs/cgroup/blkio");
	assert_true(cgroup_top_is_blkio(t.top));
	assert_true(t.io_enabled);
	assert_string_equal(t.status.reason, "");
	assert_int_equal(t.n, 5);
	assert_int_equal(t.skipped, 0);
	assert_string_equal(t.rows[0].path, "");
	pg = cgroup_table_find(&t, "system.slice/postgresql.service");
	cron = cgroup_table_find(&t, "system.slice/cron.service");
	sys = cgroup_table_find(&t, "system.slice");
	assert_non_null(pg);
	assert_non_null(cron);
	assert_non_null(sys);
	if (pg && cron && sys) {
		assert_true(pg->has_stat);
		assert_false(pg->has_psi); /* no io.pressure in v1 */
		assert_int_equal(pg->nio, 2);
		assert_int_equal(t.io[pg->io_off].rbytes, 150 << 20);
		assert_true(t.io[pg->io_off].has_discard);
		assert_int_equal(t.io[pg->io_off + 1].minor, 16);
		assert_int_equal(cron->nio, 1);
		assert_false(t.io[cron->io_off].has_discard);
		assert_int_equal(t.io[cron->io_off].rios, 425);
		assert_int_equal(sys->nio, 0); /* its own IO: none */
	}
	cgroup_table_free(&t);
	root_close(&r);
}

/* blkio's files malformed, a FIFO, a link, one missing; and a host with
 * neither v2 io nor blkio says why. */
static void test_walk_blkio_hostile(void **state)
{
	struct cgroup_table t = { 0 };
	char dir[64], p[512];
	struct root r;

	(void)state;
	tree_new(dir, sizeof(dir), "cgroupv1");
	tree_put(dir, "sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes", "Total 0\n");
	tree_put(dir, "sys/fs/cgroup/blkio/blkio.throttle.io_serviced", "Total 0\n");
	tree_put(dir, "sys/fs/cgroup/blkio/a/blkio.throttle.io_service_bytes", "garbage\n");
	tree_put(dir, "sys/fs/cgroup/blkio/a/blkio.throttle.io_serviced", "Total 0\n");
	tree_put(dir, "sys/fs/cgroup/blkio/b/blkio.throttle.io_service_bytes", "Total 0\n");
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/blkio/b/blkio.throttle.io_serviced", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	tree_put(dir, "outside/blkio.throttle.io_service_bytes", "Total 0\n");
	tree_put(dir, "outside/blkio.throttle.io_serviced", "Total 0\n");
	snprintf(p, sizeof(p), "%s/sys/fs/cgroup/blkio/evil", dir);
	assert_int_equal(symlink("../../../../outside", p), 0);
	tree_put(dir, "sys/fs/cgroup/blkio/c/blkio.throttle.io_service_bytes", "Total 0\n");
	assert_int_equal(root_open(dir, &r), 0);
	assert_int_equal(cgroup_collect(&r, &t), 0);
	assert_int_equal(t.status.err, 0);
	assert_true(cgroup_top_is_blkio(t.top));
	assert_int_equal(t.n, 1); /* the top alone */
	assert_null(cgroup_table_find(&t, "evil"));
	assert_int_equal(t.skipped, 2); /* a's garbage, b's FIFO; c's missing file is no error */
	cgroup_table_free(&t);
	root_close(&r);
	tree_remove(dir);

	/* v2 without io and no blkio: the v2 hierarchy, and why no IO */
	tree_new(dir, sizeof(dir), "cgroupv1");
	tree_put(dir, "sys/fs/cgroup/unified/cgroup.controllers", "hugetlb\n");
	tree_put(dir, "sys/fs/cgroup/unified/io.pressure",
		 "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"
		 "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
	assert_int_equal(root_open(dir, &r), 0);
	assert_int_equal(cgroup_collect(&r, &t), 0);
	assert_int_equal(t.status.err, 0);
	assert_string_equal(t.top, "sys/fs/cgroup/unified");
	assert_false(t.io_enabled);
	assert_non_null(strstr(t.status.reason, "neither in cgroup v2 nor a cgroup v1 blkio"));
	cgroup_table_free(&t);
	root_close(&r);
	tree_remove(dir);
}

static void near(double got, double want)
{
	if (got < want - 0.005 || got > want + 0.005)
		fail_msg("got %.4f, want %.4f", got, want);
}

static void test_rates(void **state)
{
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	const struct cgroup_metrics_set *x;
	const struct cgroup_metrics *top, *cron = NULL;
	const struct cgroup_dev_metrics *sda, *sdb;
	struct encode_opts eo = { 0 };
	struct strbuf sb = { 0 };
	uint64_t itv;

	(void)state;
	assert_int_equal(snapshot_load_tree(CG "/t0", &s0), 0);
	assert_int_equal(snapshot_load_tree(CG "/t1", &s1), 0);
	itv = metrics_interval_cs(&s0, &s1);
	assert_int_equal(itv, 500);
	assert_int_equal(metrics_compute(&s0, &s1, itv, &m), 0);
	assert_non_null(m.workload);
	assert_true(m.workload->cgroups_valid);
	x = &m.workload->cgroups;
	/* the top, system.slice, postgresql and cron moved; user.slice and
	 * init.scope did not (user.slice's pressure moved by 0) */
	assert_int_equal(x->active, 4);
	assert_int_equal(x->ntop, 4);
	/* hierarchical: the top and the slice first, then the service */
	top = &x->rows[x->top[2]];
	assert_string_equal(s1.workload->cgroups.rows[top->cur_index].path,
			    "system.slice/postgresql.service");
	assert_true(top->valid);
	near(top->rkb_s, 10240);
	near(top->wkb_s, 2560);
	near(top->r_s, 1280);
	near(top->w_s, 612);
	near(top->dkb_s, 1024);
	near(top->d_s, 10);
	near(top->some_pct, 25);
	near(top->full_pct, 10);
	assert_int_equal(top->ndev, 2);
	sda = &x->devs[top->dev_off];
	sdb = &x->devs[top->dev_off + 1];
	near(sda->wkb_s, 2048);
	near(sda->w_s, 512);
	near(sdb->wkb_s, 512);
	near(sdb->w_s, 100);
	for (size_t i = 0; i < x->ntop; i++)
		if (strcmp(s1.workload->cgroups.rows[x->rows[x->top[i]].cur_index].path,
			   "system.slice/cron.service") == 0)
			cron = &x->rows[x->top[i]];
	assert_non_null(cron);
	if (cron) {
		near(cron->rkb_s, 100);
		near(cron->r_s, 25);
	}
	/* the JSON of doc/json.md */
	encode_sample(&sb, &s1, &m, &eo);
	assert_int_equal(sb.err, 0);
	assert_non_null(strstr(sb.buf, "\"cgroup_io\":{\"available\":true}"));
	assert_non_null(strstr(sb.buf, "\"cgroups\":{\"hierarchy\":\"/sys/fs/cgroup\","
				       "\"io_controller\":true,\"count\":6,\"active\":4,"));
	assert_non_null(strstr(sb.buf, "\"version\":2}"));
	assert_non_null(strstr(sb.buf, "{\"path\":\"/system.slice/postgresql.service\","
				       "\"rkB/s\":10240.00,\"wkB/s\":2560.00,\"r/s\":1280.00,"
				       "\"w/s\":612.00,\"dkB/s\":1024.00,\"d/s\":10.00,"
				       "\"pressure\":{\"some%\":25.00,\"full%\":10.00},"
				       "\"devices\":[{\"dev\":\"8:0\",\"disk\":\"sda\","));
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
}

/* The v1 pair: the same rates, rows and keys as v2's io.stat gives. */
static void test_rates_blkio(void **state)
{
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	const struct cgroup_metrics_set *x;
	const struct cgroup_metrics *pg, *cron;
	struct encode_opts eo = { 0 };
	struct strbuf sb = { 0 };

	(void)state;
	assert_int_equal(snapshot_load_tree(CGV1 "/t0", &s0), 0);
	assert_int_equal(snapshot_load_tree(CGV1 "/t1", &s1), 0);
	assert_int_equal(metrics_compute(&s0, &s1, metrics_interval_cs(&s0, &s1), &m), 0);
	assert_non_null(m.workload);
	assert_true(m.workload->cgroups_valid);
	x = &m.workload->cgroups;
	/* own IO: postgresql and cron moved, nothing else */
	assert_int_equal(x->active, 2);
	assert_int_equal(x->ntop, 2);
	pg = &x->rows[x->top[0]];
	cron = &x->rows[x->top[1]];
	assert_string_equal(s1.workload->cgroups.rows[pg->cur_index].path,
			    "system.slice/postgresql.service");
	assert_string_equal(s1.workload->cgroups.rows[cron->cur_index].path,
			    "system.slice/cron.service");
	near(pg->rkb_s, 10240);
	near(pg->wkb_s, 2560);
	near(pg->r_s, 1280);
	near(pg->w_s, 612);
	near(pg->dkb_s, 1024);
	near(pg->d_s, 10);
	assert_false(pg->some_valid);
	assert_int_equal(pg->ndev, 2);
	near(x->devs[pg->dev_off + 1].wkb_s, 512);
	near(cron->rkb_s, 100);
	near(cron->r_s, 25);
	encode_sample(&sb, &s1, &m, &eo);
	assert_int_equal(sb.err, 0);
	assert_non_null(strstr(sb.buf, "\"cgroups\":{\"hierarchy\":\"/sys/fs/cgroup/blkio\","
				       "\"io_controller\":true,\"count\":5,\"active\":2,"));
	assert_non_null(strstr(sb.buf, "{\"path\":\"/system.slice/postgresql.service\","
				       "\"rkB/s\":10240.00,\"wkB/s\":2560.00,\"r/s\":1280.00,"
				       "\"w/s\":612.00,\"dkB/s\":1024.00,\"d/s\":10.00,"
				       "\"devices\":[{\"dev\":\"8:0\",\"disk\":\"sda\","));
	assert_non_null(strstr(sb.buf, "\"version\":1}"));
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
}

/* Who waits (tests/fixtures/victims/README.md): cpu and memory pressure
 * read from the v2 tree beside v1 blkio, ranked flat by the interval's
 * delta of total=, a parent left out when a descendant explains it. */
static void test_victims(void **state)
{
	static const struct {
		const char *path, *unit;
		enum cg_res res;
		double some, full;
	} want[] = {
		{ "system.slice/postgresql@15-main.service", "postgresql@15-main.service",
		  CG_RES_IO, 61, 40 },
		{ "user.slice/user-1000.slice/user@1000.service/app.slice/"
		  "postgresql@15-main.service",
		  "/user.slice/user-1000.slice/user@1000.service/app.slice/"
		  "postgresql@15-main.service",
		  CG_RES_CPU, 50, 0 },
		{ "system.slice/postgresql@15-main.service", "postgresql@15-main.service",
		  CG_RES_CPU, 10, 0 },
		{ "init.scope", "/init.scope", CG_RES_MEM, 2, 1 },
	};
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	const struct cgroup_metrics_set *x;
	struct encode_opts eo = { 0 };
	struct strbuf sb = { 0 };

	(void)state;
	assert_int_equal(snapshot_load_tree(VIC "/t0", &s0), 0);
	assert_int_equal(snapshot_load_tree(VIC "/t1", &s1), 0);
	assert_string_equal(s1.workload->cgroups.top, "sys/fs/cgroup/blkio");
	assert_string_equal(s1.workload->cgroups.psi_top, "sys/fs/cgroup/unified");
	assert_int_equal(metrics_compute(&s0, &s1, metrics_interval_cs(&s0, &s1), &m), 0);
	x = &m.workload->cgroups;
	assert_int_equal(x->nvictims, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < x->nvictims && i < sizeof(want) / sizeof(want[0]); i++) {
		const struct cgroup_victim *v = &x->victims[i];
		const char *path = s1.workload->cgroups.rows[x->rows[v->row].cur_index].path;
		char unit[CGROUP_PATH_MAX + 1];

		assert_string_equal(path, want[i].path);
		assert_int_equal(v->res, want[i].res);
		near(v->some_pct, want[i].some);
		near(v->full_pct, want[i].full);
		cgroup_unit_name(path, unit, sizeof(unit));
		assert_string_equal(unit, want[i].unit);
	}
	encode_sample(&sb, &s1, &m, &eo);
	assert_int_equal(sb.err, 0);
	assert_non_null(strstr(sb.buf, "\"victims\":[{\"path\":\"/system.slice/"
				       "postgresql@15-main.service\",\"unit\":\"postgresql@15-"
				       "main.service\",\"resource\":\"io\",\"some%\":61.00,"
				       "\"full%\":40.00},"));
	assert_non_null(strstr(sb.buf, "\"pressure_hierarchy\":\"/sys/fs/cgroup/unified\""));
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),	     cmocka_unit_test(test_walk_fixture),
		cmocka_unit_test(test_walk_hostile), cmocka_unit_test(test_no_hierarchy),
		cmocka_unit_test(test_rates),	     cmocka_unit_test(test_parse_blkio),
		cmocka_unit_test(test_walk_blkio),   cmocka_unit_test(test_walk_blkio_hostile),
		cmocka_unit_test(test_rates_blkio),  cmocka_unit_test(test_victims),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
