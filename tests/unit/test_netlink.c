// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Netlink answers as bytes (recorded ones from tests/fixtures/netlink-live
 * and ones built here with libnl), PSI/vmstat/proc-io parsing, and the rates
 * of metrics_proc.c on the recorded pair. No kernel is asked.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/ethtool_netlink.h>
#include <linux/taskstats.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "ethtool_nl.h"
#include "metrics_proc.h"
#include "pressure.h"
#include "rtnl.h"
#include "snapshot.h"
#include "procwho.h"
#include "taskstats.h"
#include "tree_util.h"
#include "writeback.h"

#define LIVE	   FIXTURES_DIR "/netlink-live"
#define DD_PID	   31933
#define DD_WRITTEN 23592960ull /* t1 - t0 write_bytes of dd (fixture README) */

/* Whole file into a malloc'd (so 4-aligned) buffer. */
static unsigned char *slurp(const char *path, size_t *ret_len)
{
	unsigned char *buf = malloc(1 << 20);

	assert_non_null(buf);
	*ret_len = tree_slurp(path, buf, 1 << 20);
	assert_true(*ret_len > 0);
	return buf;
}

/* The bytes of a built message, copied out so libnl's buffer can go. */
static unsigned char *bytes_of(struct nl_msg *msg, size_t *ret_len)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	unsigned char *b = malloc(h->nlmsg_len);

	assert_non_null(b);
	memcpy(b, h, h->nlmsg_len);
	*ret_len = h->nlmsg_len;
	nlmsg_free(msg);
	return b;
}

static struct nl_msg *ts_msg(int tgid_attr_len, bool with_stats, size_t stats_len, bool unknown)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct taskstats ts;
	struct nlattr *nest;

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 1, 7, 0x17, 0, 0, TASKSTATS_CMD_NEW, 1));
	if (unknown)
		assert_int_equal(nla_put_u32(msg, 200, 0xdead), 0);
	nest = nla_nest_start(msg, TASKSTATS_TYPE_AGGR_TGID);
	if (tgid_attr_len == 4)
		assert_int_equal(nla_put_u32(msg, TASKSTATS_TYPE_TGID, 4242), 0);
	else
		assert_int_equal(nla_put_u16(msg, TASKSTATS_TYPE_TGID, 4242), 0);
	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	ts.blkio_count = 12;
	ts.blkio_delay_total = 3000000;
	ts.read_bytes = 4096;
	snprintf(ts.ac_comm, sizeof(ts.ac_comm), "postgres");
	if (with_stats)
		assert_int_equal(nla_put(msg, TASKSTATS_TYPE_STATS, (int)stats_len, &ts), 0);
	if (unknown)
		assert_int_equal(nla_put_u64(msg, 99, 1), 0);
	nla_nest_end(msg, nest);
	return msg;
}

static unsigned char *error_msg(int err, size_t *ret_len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = { .error = err };

	assert_non_null(msg);
	assert_int_equal(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO), 0);
	return bytes_of(msg, ret_len);
}

static void test_taskstats_recorded(void **state)
{
	struct taskstats_answer a;
	const char *what = NULL;
	unsigned char *b;
	size_t len;

	(void)state;
	b = slurp(LIVE "/t1/netlink/taskstats/31933.bin", &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), 0);
	assert_int_equal(a.pid, DD_PID);
	assert_true(a.tgid);
	/* dd waited on O_DIRECT|O_DSYNC writes: delay accounting was on */
	assert_true(a.blkio_count > 0);
	assert_true(a.blkio_delay_ns > 0);
	/* every cut of the answer is refused, none read past the end */
	for (size_t n = 0; n < len; n++) {
		unsigned char *cut = malloc(n ? n : 1);

		memcpy(cut, b, n);
		assert_true(taskstats_parse(cut, n, &a, &what) < 0);
		free(cut);
	}
	free(b);
}

static void test_taskstats_built(void **state)
{
	struct taskstats_answer a;
	const char *what = NULL;
	unsigned char *b;
	size_t len;

	(void)state;
	/* unknown attributes are skipped, as netlink readers must */
	b = bytes_of(ts_msg(4, true, sizeof(struct taskstats), true), &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), 0);
	assert_int_equal(a.pid, 4242);
	assert_int_equal(a.blkio_count, 12);
	assert_int_equal(a.blkio_delay_ns, 3000000);
	assert_string_equal(a.comm, "postgres");
	free(b);
	/* an older, shorter struct taskstats still carrying IO accounting */
	b = bytes_of(ts_msg(4, true, offsetof(struct taskstats, nvcsw), false), &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), 0);
	assert_int_equal(a.read_bytes, 4096);
	free(b);
	/* known attribute of the wrong size */
	b = bytes_of(ts_msg(2, true, sizeof(struct taskstats), false), &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), -EBADMSG);
	assert_non_null(what);
	free(b);
	b = bytes_of(ts_msg(4, false, 0, false), &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), -EBADMSG);
	assert_string_equal(what, "no TASKSTATS_TYPE_STATS");
	free(b);
	b = bytes_of(ts_msg(4, true, 64, false), &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), -EBADMSG);
	free(b);
	/* kernel refusals come back as their errno */
	b = error_msg(-EPERM, &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), -EPERM);
	free(b);
	b = error_msg(-ESRCH, &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), -ESRCH);
	free(b);
	b = error_msg(12345, &len); /* not an errno */
	assert_int_equal(taskstats_parse(b, len, &a, &what), -EBADMSG);
	free(b);
}

static void test_ethtool_recorded(void **state)
{
	struct nic_channels ch;
	struct nic_coalesce co;
	const char *what = NULL;
	unsigned char *b;
	size_t len;

	(void)state;
	b = slurp(LIVE "/t1/netlink/ethtool/eth0/channels.bin", &len);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), 0);
	/* `ethtool -l eth0` on the recording VM: 1 combined of at most 1 */
	assert_int_equal(ch.combined, 1);
	assert_int_equal(ch.combined_max, 1);
	assert_int_equal(ch.rx + ch.tx + ch.other, 0);
	/* a coalesce answer is not a channels answer */
	free(b);
	b = slurp(LIVE "/t1/netlink/ethtool/eth0/coalesce.bin", &len);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), -EBADMSG);
	assert_int_equal(ethtool_nl_coalesce_parse(b, len, &co, &what), 0);
	assert_true(co.has_rx_frames);
	assert_int_equal(co.rx_frames, 1);
	assert_true(co.has_adaptive_rx);
	assert_false(co.adaptive_rx);
	for (size_t n = 0; n < len; n++)
		assert_true(ethtool_nl_coalesce_parse(b, n, &co, &what) < 0);
	free(b);
	/* ifb has no channels: the kernel's EOPNOTSUPP */
	b = slurp(LIVE "/t1/netlink/ethtool/ifb0/channels.bin", &len);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), -EOPNOTSUPP);
	free(b);
}

static void test_ethtool_built(void **state)
{
	struct nic_channels ch;
	const char *what = NULL;
	struct nlattr *hdr;
	struct nl_msg *msg;
	unsigned char *b;
	size_t len;

	(void)state;
	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 1, 0x15, 0, 0, ETHTOOL_MSG_CHANNELS_GET_REPLY, 1));
	hdr = nla_nest_start(msg, ETHTOOL_A_CHANNELS_HEADER);
	nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, "eth9");
	nla_nest_end(msg, hdr);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_MAX, 8);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 2);
	nla_put_u32(msg, 250, 7); /* from a newer kernel */
	b = bytes_of(msg, &len);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), 0);
	assert_int_equal(ch.combined, 2);
	assert_int_equal(ch.combined_max, 8);
	free(b);

	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 1, 0x15, 0, 0, ETHTOOL_MSG_CHANNELS_GET_REPLY, 1));
	hdr = nla_nest_start(msg, ETHTOOL_A_CHANNELS_HEADER);
	nla_put_u32(msg, ETHTOOL_A_HEADER_DEV_INDEX, 2);
	nla_nest_end(msg, hdr);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_MAX, 2);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 9);
	b = bytes_of(msg, &len);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), -EBADMSG);
	assert_string_equal(what, "channel count above its maximum");
	free(b);

	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 1, 0x15, 0, 0, ETHTOOL_MSG_CHANNELS_GET_REPLY, 1));
	nla_put_u8(msg, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 1); /* u8 where u32 is due */
	b = bytes_of(msg, &len);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), -EBADMSG);
	free(b);
}

/* apply's side of `ethtool -L`: the SET request, and a recorded answer
 * rewritten as the kernel would answer after it. */
static void test_ethtool_set(void **state)
{
	struct nlattr *tb[ETHTOOL_A_CHANNELS_MAX + 1], *hd[ETHTOOL_A_HEADER_MAX + 1];
	struct nic_channels ch;
	const char *what = NULL;
	struct nlattr *hdr;
	struct genlmsghdr *g;
	struct nl_msg *msg;
	unsigned char *b, *copy;
	size_t len;

	(void)state;
	msg = ethtool_nl_channels_set_request(0x15, "eth0", 8);
	assert_non_null(msg);
	assert_true(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_ACK); /* the ACK is the answer */
	g = nlmsg_data(nlmsg_hdr(msg));
	assert_int_equal(g->cmd, ETHTOOL_MSG_CHANNELS_SET);
	assert_int_equal(genlmsg_parse(nlmsg_hdr(msg), 0, tb, ETHTOOL_A_CHANNELS_MAX, NULL), 0);
	assert_non_null(tb[ETHTOOL_A_CHANNELS_COMBINED_COUNT]);
	assert_int_equal(nla_get_u32(tb[ETHTOOL_A_CHANNELS_COMBINED_COUNT]), 8);
	/* only the count asked for: the kernel keeps the other kinds */
	assert_null(tb[ETHTOOL_A_CHANNELS_RX_COUNT]);
	assert_null(tb[ETHTOOL_A_CHANNELS_COMBINED_MAX]);
	assert_int_equal(
	    nla_parse_nested(hd, ETHTOOL_A_HEADER_MAX, tb[ETHTOOL_A_CHANNELS_HEADER], NULL), 0);
	assert_string_equal(nla_get_string(hd[ETHTOOL_A_HEADER_DEV_NAME]), "eth0");
	nlmsg_free(msg);

	/* the recording VM's eth0: 1 of at most 1 */
	b = slurp(LIVE "/t1/netlink/ethtool/eth0/channels.bin", &len);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 1), 0);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 2), -EINVAL);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 0), -EINVAL);
	free(b);
	/* a driver without channels answered EOPNOTSUPP: nothing to rewrite */
	b = slurp(LIVE "/t1/netlink/ethtool/ifb0/channels.bin", &len);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 1), -EOPNOTSUPP);
	free(b);

	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 1, 0x15, 0, 0, ETHTOOL_MSG_CHANNELS_GET_REPLY, 1));
	hdr = nla_nest_start(msg, ETHTOOL_A_CHANNELS_HEADER);
	nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, "eth9");
	nla_nest_end(msg, hdr);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_OTHER_MAX, 1);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_OTHER_COUNT, 1);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_MAX, 8);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_COMBINED_COUNT, 2);
	b = bytes_of(msg, &len);
	copy = malloc(len);
	assert_non_null(copy);
	memcpy(copy, b, len);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 8), 0);
	assert_int_equal(ethtool_nl_channels_parse(b, len, &ch, &what), 0);
	assert_int_equal(ch.combined, 8);
	assert_int_equal(ch.combined_max, 8);
	assert_int_equal(ch.other, 1);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 2), 0);
	assert_memory_equal(b, copy, len); /* every other byte kept */
	assert_int_equal(ethtool_nl_channels_patch(b, len, 9), -EINVAL);
	for (size_t n = 0; n < len; n++)
		assert_true(ethtool_nl_channels_patch(b, n, 2) < 0);
	free(copy);
	free(b);

	/* rx/tx channels only: no combined count to set */
	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 1, 0x15, 0, 0, ETHTOOL_MSG_CHANNELS_GET_REPLY, 1));
	hdr = nla_nest_start(msg, ETHTOOL_A_CHANNELS_HEADER);
	nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, "eth9");
	nla_nest_end(msg, hdr);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_RX_MAX, 4);
	nla_put_u32(msg, ETHTOOL_A_CHANNELS_RX_COUNT, 4);
	b = bytes_of(msg, &len);
	assert_int_equal(ethtool_nl_channels_patch(b, len, 2), -ENODATA);
	free(b);
}

static void test_rtnl_recorded(void **state)
{
	struct nic_table t = { 0 };
	const struct nic_raw *n;
	const char *what = NULL;
	unsigned char *b;
	size_t len;

	(void)state;
	b = slurp(LIVE "/t1/netlink/rtnl/links.bin", &len);
	assert_int_equal(rtnl_links_parse(b, len, &t, &what), 0);
	assert_int_equal(t.n, 3); /* ifb0, ifb1, eth0; lo left out */
	assert_null(nic_table_find(&t, "lo"));
	n = nic_table_find(&t, "eth0");
	assert_non_null(n);
	assert_true(n->up && n->running && n->has_stats);
	assert_true(n->stats.rx_packets > 0 && n->stats.tx_packets > 0);
	assert_int_equal(n->num_rx_queues, 1);
	/* the advisor's view: channels of eth0 once ethtool filled them */
	{
		struct nic_table tt = t;
		struct nic_raw rows[3];
		struct nic_channels ch;

		memcpy(rows, t.rows, sizeof(rows));
		tt.rows = rows;
		rows[2].has_channels = true;
		rows[2].channels.combined = 3;
		rows[2].channels.combined_max = 8;
		rows[0].channels_status.err = -EOPNOTSUPP;
		assert_int_equal(nic_table_channels(&tt, rows[2].ifname, &ch), 0);
		assert_int_equal(ch.combined, 3);
		assert_int_equal(nic_table_channels(&tt, rows[0].ifname, &ch), -EOPNOTSUPP);
		assert_int_equal(nic_table_channels(&tt, "eth7", &ch), -ENOENT);
		tt.ethtool.err = -ENOENT;
		assert_int_equal(nic_table_channels(&tt, rows[2].ifname, &ch), -ENOENT);
	}
	/* the dump's NLMSG_DONE (20 bytes) cut off: truncated, not "3 links" */
	assert_int_equal(rtnl_links_parse(b, len - 20, &t, &what), -EBADMSG);
	assert_string_equal(what, "dump ends without NLMSG_DONE");
	for (size_t k = 1; k < len - 20; k += 7)
		assert_true(rtnl_links_parse(b, k, &t, &what) < 0);
	free(b);
	nic_table_free(&t);
}

static void test_text_parsers(void **state)
{
	const char io[] = "rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\n"
			  "write_bytes: 8192\ncancelled_write_bytes: 512\n";
	const char psi[] = "some avg10=1.50 avg60=0.20 avg300=0.00 total=123456\n"
			   "full avg10=0.00 avg60=0.00 avg300=0.00 total=42\n";
	const char vm[] = "nr_free_pages 1\nnr_dirty 100\nnr_writeback 3\n"
			  "nr_dirty_threshold 1000\nnr_dirty_background_threshold 500\n";
	const char *bad_psi[] = {
		"some avg10=1.50 avg60=0.20 avg300=0.00\n",	  /* no total */
		"some avg10=x avg60=0.20 avg300=0.00 total=1\n",  /* bad number */
		"some avg10=1.50 avg60=0.20 avg300=0.00 total=1", /* cut off */
		"half avg10=1.50 total=1\n",			  /* unknown line */
		"some total=1\nsome total=2\n",			  /* twice */
		"",
	};
	struct proc_raw p = { 0 };
	struct writeback_raw w = { 0 };
	struct psi_raw r;

	(void)state;
	assert_int_equal(taskstats_procio_parse(io, strlen(io), &p), 0);
	assert_int_equal(p.read_bytes, 4096);
	assert_int_equal(p.write_bytes, 8192);
	assert_int_equal(p.cancelled_write_bytes, 512);
	assert_int_equal(taskstats_procio_parse(io, 40, &p), -EBADMSG);
	assert_int_equal(taskstats_procio_parse("read_bytes: x\n", 14, &p), -EBADMSG);

	assert_int_equal(pressure_parse(psi, strlen(psi), &r), 0);
	assert_true(r.some.present && r.full.present);
	assert_true(r.some.avg10 > 1.49 && r.some.avg10 < 1.51);
	assert_int_equal(r.some.total_us, 123456);
	assert_int_equal(r.full.total_us, 42);
	/* /proc/pressure/irq has only a "full" line */
	assert_int_equal(pressure_parse(psi + 52, strlen(psi) - 52, &r), 0);
	assert_false(r.some.present);
	for (size_t i = 0; i < sizeof(bad_psi) / sizeof(bad_psi[0]); i++)
		assert_int_equal(pressure_parse(bad_psi[i], strlen(bad_psi[i]), &r), -EBADMSG);

	assert_int_equal(writeback_vmstat_parse(vm, strlen(vm), &w), 0);
	assert_int_equal(w.nr_dirty, 100);
	assert_int_equal(w.nr_writeback, 3);
	assert_true(w.has_thresholds);
	assert_int_equal(w.nr_dirty_bg_threshold, 500);
	assert_int_equal(writeback_vmstat_parse("nr_dirty 1\n", 11, &w), -EBADMSG);
	assert_int_equal(writeback_vmstat_parse("nr_dirty 1\nnr_writeback 2", 25, &w), -EBADMSG);
}

static void test_metrics_recorded(void **state)
{
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	const struct workload_metrics *x;
	const struct proc_metrics *dd = NULL;
	const struct nic_metrics *eth0 = NULL;
	uint64_t itv;

	(void)state;
	assert_int_equal(snapshot_load_tree(LIVE "/t0", &s0), 0);
	assert_int_equal(snapshot_load_tree(LIVE "/t1", &s1), 0);
	assert_non_null(s1.workload);
	assert_int_equal(s1.workload->procs.taskstats.err, 0);
	assert_int_equal(s1.workload->nics.rtnl.err, 0);
	itv = metrics_interval_cs(&s0, &s1);
	assert_int_equal(itv, 105); /* /proc/uptime 2479.45 -> 2480.50 */
	assert_int_equal(metrics_compute(&s0, &s1, itv, &m), 0);
	x = m.workload;
	assert_non_null(x);
	assert_true(x->procs_valid);
	assert_true(x->nby_io > 0);
	/* dd wrote the most: first by IO, and the only one with a delay */
	dd = &x->procs[x->by_io[0]];
	assert_int_equal(dd->pid, DD_PID);
	assert_string_equal(dd->comm, "dd");
	assert_true(dd->wkb_s > (double)DD_WRITTEN / 1.05 / 1024 - 0.01);
	assert_true(dd->wkb_s < (double)DD_WRITTEN / 1.05 / 1024 + 0.01);
	assert_true(dd->has_delay);
	assert_int_equal(x->nby_delay, 1);
	assert_int_equal(x->procs[x->by_delay[0]].pid, DD_PID);
	assert_true(dd->io_delay > 0 && dd->io_delay <= 100);
	/* eth0's three vectors, joined with /proc/interrupts */
	for (size_t i = 0; i < x->nnics; i++)
		if (strcmp(s1.workload->nics.rows[x->nics[i].cur_index].ifname, "eth0") == 0)
			eth0 = &x->nics[i];
	assert_non_null(eth0);
	if (eth0) { /* cmocka's assert does not tell the compiler it returns */
		assert_true(eth0->valid);
		assert_int_equal(eth0->nirqs, 3);
		for (size_t k = 0; k < eth0->nirqs; k++)
			assert_true(x->nic_irqs[eth0->irq_off + k].irq_row != SIZE_MAX);
	}
	assert_true(x->psi[PSI_IO].some_valid);
	assert_false(x->psi[PSI_IRQ].some_valid);
	assert_int_not_equal(x->wb_state, WB_UNKNOWN);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
}

/* Processes that come, go, or get their PID reused between two samples. */
static void test_metrics_churn(void **state)
{
	struct proc_raw prev_rows[] = {
		{ .pid = 10, .read_bytes = 1000 },		       /* keeps going */
		{ .pid = 11, .write_bytes = 5000 },		       /* exits */
		{ .pid = 12, .write_bytes = 9000 },		       /* PID reused */
		{ .pid = 13, .has_delay = true, .blkio_delay_ns = 0 }, /* delay only */
	};
	struct proc_raw cur_rows[] = {
		{ .pid = 10, .read_bytes = 1000 + 102400 },
		{ .pid = 12, .write_bytes = 10 },
		{ .pid = 13, .has_delay = true, .blkio_delay_ns = 500000000, .blkio_count = 5 },
		{ .pid = 14, .write_bytes = 2048 }, /* started during the interval */
	};
	struct workload_raw pe = { 0 }, ce = { 0 };
	struct snapshot prev = { .workload = &pe }, cur = { .workload = &ce };
	struct workload_metrics *x = NULL;

	(void)state;
	pe.procs.rows = prev_rows;
	pe.procs.n = 4;
	ce.procs.rows = cur_rows;
	ce.procs.n = 4;
	pe.nics.rtnl.err = ce.nics.rtnl.err = -ENOENT;
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_int_equal(x->exited, 1);
	assert_int_equal(x->nprocs, 3); /* 10, 13, 14; 12 went backwards */
	assert_int_equal(x->procs[0].pid, 10);
	assert_true(x->procs[0].rkb_s > 99.99 && x->procs[0].rkb_s < 100.01);
	assert_int_equal(x->procs[1].pid, 13);
	assert_true(x->procs[1].io_delay > 49.99 && x->procs[1].io_delay < 50.01);
	assert_true(x->procs[2].started);
	assert_int_equal(x->nby_io, 2);
	assert_int_equal(x->procs[x->by_io[0]].pid, 10);
	assert_int_equal(x->nby_delay, 1);
	/* an unreadable /proc in either sample: no rows rather than wrong ones */
	ce.procs.procfs.err = -EACCES;
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_false(x->procs_valid);
	assert_int_equal(x->nprocs, 0);
	assert_int_equal(metrics_proc_compute(&prev, &cur, 0, NULL, &x), -EINVAL);
	metrics_proc_free(x);
}

/* pidstat -u: %CPU of a process that did no IO, a new one behind a reused
 * PID (another start time), and the top-N by CPU. */
static void test_metrics_cpu(void **state)
{
	struct proc_raw prev_rows[] = {
		{ .pid = 20,
		  .has_stat = true,
		  .utime_ticks = 100,
		  .stime_ticks = 50,
		  .start_ticks = 7 },
		{ .pid = 21,
		  .has_stat = true,
		  .utime_ticks = 500,
		  .gtime_ticks = 100,
		  .start_ticks = 8 },
		{ .pid = 22, .has_stat = true, .utime_ticks = 9000, .start_ticks = 9 },
		{ .pid = 23, .has_stat = true, .utime_ticks = 10, .start_ticks = 9 }, /* idle */
	};
	struct proc_raw cur_rows[] = {
		{ .pid = 20,
		  .has_stat = true,
		  .utime_ticks = 250,
		  .stime_ticks = 100,
		  .start_ticks = 7,
		  .has_who = true,
		  .uid = 999,
		  .user = "pg",
		  .cmdline = "postgres: checkpointer",
		  .unit = "system.slice/postgresql@15-main.service" },
		{ .pid = 21,
		  .has_stat = true,
		  .utime_ticks = 600,
		  .gtime_ticks = 150,
		  .start_ticks = 8 },
		/* pid 22 reused: 30 ticks since its start, not 30 - 9000 */
		{ .pid = 22, .has_stat = true, .utime_ticks = 30, .start_ticks = 500 },
		{ .pid = 23, .has_stat = true, .utime_ticks = 10, .start_ticks = 9 },
	};
	struct workload_raw pe = { 0 }, ce = { 0 };
	struct snapshot prev = { .workload = &pe }, cur = { .workload = &ce };
	struct workload_metrics *x = NULL;
	const struct proc_metrics *m;

	(void)state;
	pe.procs.rows = prev_rows;
	pe.procs.n = 4;
	ce.procs.rows = cur_rows;
	ce.procs.n = 4;
	pe.nics.rtnl.err = ce.nics.rtnl.err = -ENOENT;
	/* two seconds */
	assert_int_equal(metrics_proc_compute(&prev, &cur, 200, NULL, &x), 0);
	assert_int_equal(x->nprocs, 3); /* no IO, but CPU: 20, 21, 22; not 23 */
	assert_int_equal(x->nby_io, 0);
	assert_int_equal(x->nby_cpu, 3);
	m = &x->procs[x->by_cpu[0]];
	assert_int_equal(m->pid, 20);
	assert_true(m->has_cpu && m->has_who);
	assert_true(m->cpu_pct > 99.99 && m->cpu_pct < 100.01); /* (150 + 50) / 2 s */
	assert_true(m->usr_pct > 74.99 && m->usr_pct < 75.01);
	assert_true(m->sys_pct > 24.99 && m->sys_pct < 25.01);
	assert_int_equal(m->uid, 999);
	assert_string_equal(m->user, "pg");
	assert_string_equal(m->cmdline, "postgres: checkpointer");
	assert_string_equal(m->unit, "system.slice/postgresql@15-main.service");
	m = &x->procs[x->by_cpu[1]];
	assert_int_equal(m->pid, 21); /* 100 ticks, half of them guest */
	assert_true(m->cpu_pct > 49.99 && m->cpu_pct < 50.01);
	assert_true(m->usr_pct > 24.99 && m->usr_pct < 25.01);
	m = &x->procs[x->by_cpu[2]];
	assert_int_equal(m->pid, 22);
	assert_true(m->started);
	assert_true(m->cpu_pct > 14.99 && m->cpu_pct < 15.01);
	metrics_proc_free(x);
}

/* Another user's process (/proc/PID/io refused): a first taskstats sum is
 * a baseline, not a burst; then its rate; a sum that went back (a thread
 * ended with its bytes) gives no IO rate but keeps the CPU. */
static void test_metrics_ts_bytes(void **state)
{
	struct proc_raw r0[] = {
		{ .pid = 30,
		  .has_stat = true,
		  .utime_ticks = 10,
		  .start_ticks = 5,
		  .io_unknown = true },
	};
	struct proc_raw r1[] = {
		{ .pid = 30,
		  .has_stat = true,
		  .utime_ticks = 20,
		  .start_ticks = 5,
		  .io_taskstats = true,
		  .write_bytes = 1u << 30 },
	};
	struct proc_raw r2[] = {
		{ .pid = 30,
		  .has_stat = true,
		  .utime_ticks = 30,
		  .start_ticks = 5,
		  .io_taskstats = true,
		  .write_bytes = (1u << 30) + 102400 },
	};
	struct proc_raw r3[] = {
		{ .pid = 30,
		  .has_stat = true,
		  .utime_ticks = 90,
		  .start_ticks = 5,
		  .io_taskstats = true,
		  .write_bytes = 4096 },
	};
	struct workload_raw a = { 0 }, b = { 0 };
	struct snapshot prev = { .workload = &a }, cur = { .workload = &b };
	struct workload_metrics *x = NULL;

	(void)state;
	a.nics.rtnl.err = b.nics.rtnl.err = -ENOENT;
	a.procs.rows = r0;
	a.procs.n = 1;
	b.procs.rows = r1;
	b.procs.n = 1;
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_int_equal(x->nby_io, 0); /* the baseline: not 1 GiB in a second */
	assert_int_equal(x->nby_cpu, 1);
	a.procs.rows = r1;
	b.procs.rows = r2;
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_int_equal(x->nby_io, 1);
	assert_true(x->procs[x->by_io[0]].wkb_s > 99.99 && x->procs[x->by_io[0]].wkb_s < 100.01);
	a.procs.rows = r2;
	b.procs.rows = r3;
	assert_int_equal(metrics_proc_compute(&prev, &cur, 100, NULL, &x), 0);
	assert_int_equal(x->nby_io, 0);
	assert_int_equal(x->nby_cpu, 1);
	assert_true(x->procs[x->by_cpu[0]].cpu_pct > 59.99 &&
		    x->procs[x->by_cpu[0]].cpu_pct < 60.01);
	metrics_proc_free(x);
}

/* /proc/PID/stat: a name with ") (" in it, a kernel thread's flags. */
static void test_stat_parse(void **state)
{
	static const char line[] =
	    "4242 (a) (b c) R 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 3 0 "
	    "98765 1000 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 7 89 0 0\n";
	static const char kthread[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 3 0 0 20 0 1 "
				      "0 2 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 "
				      "0 0 0 0 0 0 0 0 0\n";
	struct proc_raw p = { 0 };

	(void)state;
	assert_int_equal(taskstats_stat_parse(line, sizeof(line) - 1, &p), 0);
	assert_string_equal(p.comm, "a) (b c");
	assert_true(p.has_stat);
	assert_false(p.kthread);
	assert_int_equal(p.utime_ticks, 1234);
	assert_int_equal(p.stime_ticks, 567);
	assert_int_equal(p.start_ticks, 98765);
	assert_int_equal(p.gtime_ticks, 89);
	memset(&p, 0, sizeof(p));
	assert_int_equal(taskstats_stat_parse(kthread, sizeof(kthread) - 1, &p), 0);
	assert_true(p.kthread);
	assert_int_equal(p.stime_ticks, 3);
	/* cut before starttime */
	assert_int_equal(taskstats_stat_parse(line, 60, &p), -EBADMSG);
	assert_int_equal(taskstats_stat_parse("12 R 1", 6, &p), -EBADMSG);
	/* /proc/PID/schedstat: run ns, run-queue wait ns, slices */
	memset(&p, 0, sizeof(p));
	assert_int_equal(taskstats_schedstat_parse("184600339 11384959 398\n", 23, &p), 0);
	assert_true(p.has_sched);
	assert_int_equal(p.runq_ns, 11384959);
	memset(&p, 0, sizeof(p));
	assert_int_equal(taskstats_schedstat_parse("1 2", 3, &p), -EBADMSG);
	assert_int_equal(taskstats_schedstat_parse("1 x 3\n", 6, &p), -EBADMSG);
	assert_int_equal(taskstats_schedstat_parse("1 99999999999999999999 3\n", 25, &p), -EBADMSG);
	assert_false(p.has_sched);
}

/* Who a process is: cmdline escaped and bounded, the unit of v2 and v1
 * hosts, the uid and its name. */
static void test_procwho(void **state)
{
	static const char cmd[] = "postgres: 15/main: checkpointer\0\0\0";
	static const char evil[] = "sh\0-c\0echo \x1b[2J\\\n\xff\0";
	static const char v2[] = "0::/system.slice/postgresql@15-main.service\n";
	static const char v1[] = "12:pids:/user.slice\n4:cpu,cpuacct:/system.slice/mysql.service\n"
				 "3:blkio:/x/y/z\n1:name=systemd:/a/b\n";
	static const char v1b[] = "3:blkio:/a/b/c\n1:name=systemd:/d/e\n";
	static const char status[] = "Name:\tpostgres\nUmask:\t0077\nUid:\t105\t105\t105\t105\n";
	static const char passwd[] =
	    "root:x:0:0:root:/root:/bin/bash\n"
	    "broken line\n"
	    "postgres:x:105:111:PostgreSQL administrator:/var/lib/postgresql:/bin/bash\n";
	char out[PROC_CMDLINE_MAX], unit[PROC_UNIT_MAX], user[PROC_USER_MAX], big[400];
	uint32_t uid = 0;

	(void)state;
	assert_int_equal(procwho_cmdline(cmd, sizeof(cmd) - 1, out, sizeof(out)), 31);
	assert_string_equal(out, "postgres: 15/main: checkpointer");
	procwho_cmdline(evil, sizeof(evil) - 1, out, sizeof(out));
	assert_string_equal(out, "sh -c echo \\x1b[2J\\x5c\\x0a\\xff");
	assert_int_equal(procwho_cmdline("", 0, out, sizeof(out)), 0);
	/* bounded, never cut inside an escape */
	memset(big, '\n', sizeof(big));
	assert_true(procwho_cmdline(big, sizeof(big), out, sizeof(out)) <= PROC_CMDLINE_MAX - 1);
	assert_int_equal(strlen(out) % 4, 0);
	assert_int_equal(procwho_cgroup_unit(v2, sizeof(v2) - 1, unit, sizeof(unit)), 0);
	assert_string_equal(unit, "system.slice/postgresql@15-main.service");
	assert_int_equal(procwho_cgroup_unit(v1, sizeof(v1) - 1, unit, sizeof(unit)), 0);
	assert_string_equal(unit, "system.slice/mysql.service");
	assert_int_equal(procwho_cgroup_unit(v1b, sizeof(v1b) - 1, unit, sizeof(unit)), 0);
	assert_string_equal(unit, "b/c");
	assert_int_equal(procwho_cgroup_unit("0::/\n", 4, unit, sizeof(unit)), 0);
	assert_string_equal(unit, "/");
	assert_int_equal(procwho_cgroup_unit("garbage", 7, unit, sizeof(unit)), -ENOENT);
	assert_int_equal(procwho_status_uid(status, sizeof(status) - 1, &uid), 0);
	assert_int_equal(uid, 105);
	assert_int_equal(procwho_status_uid("Name: x\n", 8, &uid), -EBADMSG);
	assert_int_equal(procwho_passwd_name(passwd, sizeof(passwd) - 1, 105, user, sizeof(user)),
			 0);
	assert_string_equal(user, "postgres");
	assert_int_equal(procwho_passwd_name(passwd, sizeof(passwd) - 1, 4242, user, sizeof(user)),
			 -ENOENT);
	assert_string_equal(user, "4242");
}

/* One thread's answer (TASKSTATS_TYPE_AGGR_PID) carries its bytes. */
static void test_threads(void **state)
{
	struct proc_raw p0[] = { { .pid = 100, .write_bytes = 1024 }, { .pid = 101 } };
	struct proc_raw p1[] = {
		{ .pid = 100, .write_bytes = 1024 + 204800 },
		{ .pid = 102, .read_bytes = 1024 }, /* new thread; 101 ended */
	};
	struct thread_table t0 = { .pid = 7, .rows = p0, .n = 2 };
	struct thread_table t1 = { .pid = 7, .rows = p1, .n = 2 };
	struct taskstats_answer a;
	struct workload_metrics *x = NULL;
	const char *what = NULL;
	struct taskstats ts = { 0 };
	struct nlattr *nest;
	struct nl_msg *msg;
	unsigned char *b;
	size_t len;

	(void)state;
	msg = nlmsg_alloc();
	assert_non_null(genlmsg_put(msg, 1, 7, 0x17, 0, 0, TASKSTATS_CMD_NEW, 1));
	nest = nla_nest_start(msg, TASKSTATS_TYPE_AGGR_PID);
	nla_put_u32(msg, TASKSTATS_TYPE_PID, 101);
	ts.write_bytes = 8192;
	ts.cancelled_write_bytes = 4096;
	nla_put(msg, TASKSTATS_TYPE_STATS, sizeof(ts), &ts);
	nla_nest_end(msg, nest);
	b = bytes_of(msg, &len);
	assert_int_equal(taskstats_parse(b, len, &a, &what), 0);
	assert_false(a.tgid);
	assert_int_equal(a.pid, 101);
	assert_int_equal(a.write_bytes, 8192);
	assert_int_equal(a.cancelled_write_bytes, 4096);
	free(b);

	assert_int_equal(metrics_proc_threads(&t0, &t1, 200, &x), 0);
	assert_true(x->procs_valid);
	assert_int_equal(x->exited, 1);
	assert_int_equal(x->nby_io, 2);
	assert_int_equal(x->procs[x->by_io[0]].pid, 100);
	assert_true(x->procs[x->by_io[0]].wkb_s > 99.99 && x->procs[x->by_io[0]].wkb_s < 100.01);
	assert_true(x->procs[x->by_io[1]].started);
	/* the PID now names another process: no rates */
	t1.pid = 8;
	assert_int_equal(metrics_proc_threads(&t0, &t1, 200, &x), 0);
	assert_false(x->procs_valid);
	assert_int_equal(x->nby_io, 0);
	metrics_proc_free(x);
}

static unsigned count_fds(void)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* opendir's own */
}

/* /proc/PID/io descriptors are kept between samples, re-read, and all
 * closed by the collector's free. */
static void test_procio_fds(void **state)
{
	struct taskstats_collector tc = { 0 };
	struct proc_table a = { 0 }, b = { 0 };
	unsigned before = count_fds();
	struct root r;

	(void)state;
	assert_int_equal(root_open(LIVE "/t1", &r), 0);
	assert_int_equal(taskstats_collect(&tc, &r, &a), 0);
	assert_int_equal(a.n, 107);
	assert_true(count_fds() >= before + a.n);
	assert_int_equal(taskstats_collect(&tc, &r, &b), 0);
	assert_int_equal(b.n, a.n);
	assert_true(count_fds() < before + 2 * a.n); /* reused, not reopened */
	for (size_t i = 0; i < a.n; i++) {
		assert_int_equal(a.rows[i].pid, b.rows[i].pid);
		assert_int_equal(a.rows[i].write_bytes, b.rows[i].write_bytes);
	}
	taskstats_collector_free(&tc);
	root_close(&r);
	assert_int_equal(count_fds(), before);
	proc_table_free(&a);
	proc_table_free(&b);
}

/* A recorded answer must be a regular file of the tree: a FIFO would block
 * the sampler (-EISDIR said a directory only once read); no fd is kept. */
static void test_recorded_read(void **state)
{
	struct nlreply out = { 0 };
	unsigned before = count_fds();
	struct root r;

	(void)state;
	assert_int_equal(root_open(LIVE "/t1", &r), 0);
	for (int i = 0; i < 10; i++) {
		assert_true(netlink_read_recorded(&r, "netlink/taskstats/31933.bin", &out) > 0);
	}
	assert_int_equal(count_fds(), before + 1); /* the root's own */
	assert_int_equal(netlink_read_recorded(&r, "netlink/taskstats", &out), -ROOT_ENOTREG);
	assert_int_equal(netlink_read_recorded(&r, "netlink/none.bin", &out), -ENOENT);
	assert_int_equal(count_fds(), before + 1);
	root_close(&r);
	free(out.buf);
}

/* netlink_genl_first: the first message, its generic header and command. */
static void test_genl_first(void **state)
{
	const struct nlmsghdr *h = NULL;
	const char *what = NULL;
	unsigned char *b;
	size_t len;

	(void)state;
	b = bytes_of(ts_msg(4, true, sizeof(struct taskstats), false), &len);
	assert_int_equal(netlink_genl_first(b, len, TASKSTATS_CMD_NEW, &h, &what), 0);
	assert_ptr_equal(h, b);
	assert_int_equal(netlink_genl_first(b, len, TASKSTATS_CMD_GET, &h, &what), -EBADMSG);
	assert_string_equal(what, "answer to another command");
	assert_int_equal(netlink_genl_first(b, 10, TASKSTATS_CMD_NEW, &h, &what), -EBADMSG);
	assert_string_equal(what, "truncated netlink header");
	assert_int_equal(netlink_genl_first(b, 0, TASKSTATS_CMD_NEW, &h, NULL), -EBADMSG);
	/* a bare header: no room for struct genlmsghdr */
	((struct nlmsghdr *)b)->nlmsg_len = NLMSG_HDRLEN;
	assert_int_equal(netlink_genl_first(b, NLMSG_HDRLEN, TASKSTATS_CMD_NEW, &h, &what),
			 -EBADMSG);
	assert_string_equal(what, "no generic netlink header");
	free(b);
	b = error_msg(-EOPNOTSUPP, &len);
	assert_int_equal(netlink_genl_first(b, len, 1, &h, &what), -EOPNOTSUPP);
	free(b);
}

/* netlink_fetch from a tree: the recorded answer, kept again under capture;
 * a live fetch without a message is -ENOMEM before anything is sent. */
static void test_fetch_recorded(void **state)
{
	const char *rel = "netlink/taskstats/31933.bin";
	struct nlreply out = { 0 };
	struct nlconn none = { 0 };
	unsigned char *want, *got;
	char dir[64], path[128];
	size_t len, glen;
	struct root r;
	int dfd;

	(void)state;
	want = slurp(LIVE "/t1/netlink/taskstats/31933.bin", &len);
	tree_new(dir, sizeof(dir), "netlink-fetch");
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(root_open(LIVE "/t1", &r), 0);
	/* a message built for a live request is freed unsent (ASan: no leak) */
	assert_int_equal(netlink_fetch(NULL, nlmsg_alloc(), &r, rel, dfd, &out), (int)len);
	assert_memory_equal(out.buf, want, len);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	got = slurp(path, &glen);
	assert_int_equal(glen, len);
	assert_memory_equal(got, want, len);
	assert_int_equal(netlink_fetch(NULL, NULL, &r, "netlink/none.bin", dfd, &out), -ENOENT);
	snprintf(path, sizeof(path), "%s/netlink/none.bin", dir);
	assert_int_equal(access(path, F_OK), -1); /* nothing kept of a failure */
	assert_int_equal(netlink_fetch(NULL, NULL, &r, rel, -1, &out), (int)len);
	assert_int_equal(netlink_fetch(&none, NULL, &r, rel, dfd, &out), -ENOMEM);
	root_close(&r);
	close(dfd);
	tree_remove(dir);
	nlreply_free(&out);
	free(got);
	free(want);
}

static void test_writeback_state(void **state)
{
	struct workload_raw e = { 0 };
	struct snapshot s = { .workload = &e };
	struct workload_metrics *x = NULL;
	struct {
		uint64_t dirty, wb;
		enum wb_state want;
	} cases[] = {
		{ 100, 0, WB_BELOW_BACKGROUND },
		{ 600, 0, WB_BACKGROUND },
		{ 700, 100, WB_THROTTLED }, /* freerun = (1000 + 500) / 2 */
		{ 900, 100, WB_BLOCKED },
	};

	(void)state;
	e.procs.procfs.err = -ENOENT;
	e.nics.rtnl.err = -ENOENT;
	e.writeback.has_vmstat = e.writeback.has_thresholds = true;
	e.writeback.nr_dirty_threshold = 1000;
	e.writeback.nr_dirty_bg_threshold = 500;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e.writeback.nr_dirty = cases[i].dirty;
		e.writeback.nr_writeback = cases[i].wb;
		assert_int_equal(metrics_proc_compute(&s, &s, 100, NULL, &x), 0);
		assert_int_equal(x->wb_state, cases[i].want);
		assert_int_equal(x->wb_freerun_pages, 750);
	}
	metrics_proc_free(x);
}

/* An exit notice as the kernel sends it: AGGR_PID (PID + STATS), and for
 * the last thread of a multi-threaded group also AGGR_TGID. */
static struct nl_msg *exit_msg(uint32_t pid, uint32_t tgid, bool aggr_tgid, size_t stats_len)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct taskstats ts;
	struct nlattr *nest;

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 0, 0x17, 0, 0, TASKSTATS_CMD_NEW, 1));
	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	ts.ac_pid = pid;
	ts.ac_tgid = tgid;
	ts.read_bytes = 8192;
	ts.write_bytes = 16 << 20;
	ts.cancelled_write_bytes = 4096;
	snprintf(ts.ac_comm, sizeof(ts.ac_comm), pid == tgid ? "tar" : "tar-worker");
	nest = nla_nest_start(msg, TASKSTATS_TYPE_AGGR_PID);
	assert_int_equal(nla_put_u32(msg, TASKSTATS_TYPE_PID, pid), 0);
	assert_int_equal(nla_put(msg, TASKSTATS_TYPE_STATS, (int)stats_len, &ts), 0);
	nla_nest_end(msg, nest);
	if (aggr_tgid) {
		nest = nla_nest_start(msg, TASKSTATS_TYPE_AGGR_TGID);
		assert_int_equal(nla_put_u32(msg, TASKSTATS_TYPE_TGID, tgid), 0);
		assert_int_equal(nla_put(msg, TASKSTATS_TYPE_STATS, (int)stats_len, &ts), 0);
		nla_nest_end(msg, nest);
	}
	return msg;
}

static void test_taskstats_exit(void **state)
{
	struct taskstats_exit_msg m;
	const char *what = NULL;
	unsigned char *b;
	size_t len;

	(void)state;
	/* a single-threaded process: its leader, no AGGR_TGID */
	b = bytes_of(exit_msg(700, 700, false, sizeof(struct taskstats)), &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), 0);
	assert_int_equal(m.pid, 700);
	assert_int_equal(m.tgid, 700);
	assert_true(m.group_dead);
	assert_string_equal(m.comm, "tar");
	assert_int_equal(m.read_bytes, 8192);
	assert_int_equal(m.write_bytes, 16 << 20);
	assert_int_equal(m.cancelled_write_bytes, 4096);
	free(b);
	/* one thread of a group that goes on */
	b = bytes_of(exit_msg(701, 700, false, sizeof(struct taskstats)), &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), 0);
	assert_int_equal(m.tgid, 700);
	assert_false(m.group_dead);
	free(b);
	/* the last thread of a multi-threaded group, not its leader */
	b = bytes_of(exit_msg(702, 700, true, sizeof(struct taskstats)), &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), 0);
	assert_int_equal(m.pid, 702);
	assert_int_equal(m.tgid, 700);
	assert_true(m.group_dead);
	assert_string_equal(m.comm, "tar-worker");
	free(b);
	/* a kernel before ac_tgid cannot say whose thread it was */
	b = bytes_of(exit_msg(701, 700, false, offsetof(struct taskstats, ac_tgid)), &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), -EBADMSG);
	assert_non_null(what);
	free(b);
	/* no IO accounting at all */
	b = bytes_of(exit_msg(701, 700, true, 64), &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), -EBADMSG);
	free(b);
	/* a GET answer's TGID-only shape is not a notice */
	b = bytes_of(ts_msg(4, true, sizeof(struct taskstats), false), &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), -EBADMSG);
	assert_string_equal(what, "no TASKSTATS_TYPE_AGGR_PID");
	free(b);
	b = error_msg(-EPERM, &len);
	assert_int_equal(taskstats_exit_parse(b, len, &m, &what), -EPERM);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taskstats_recorded),
		cmocka_unit_test(test_taskstats_built),
		cmocka_unit_test(test_ethtool_recorded),
		cmocka_unit_test(test_ethtool_built),
		cmocka_unit_test(test_ethtool_set),
		cmocka_unit_test(test_rtnl_recorded),
		cmocka_unit_test(test_text_parsers),
		cmocka_unit_test(test_metrics_recorded),
		cmocka_unit_test(test_metrics_churn),
		cmocka_unit_test(test_writeback_state),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_procio_fds),
		cmocka_unit_test(test_recorded_read),
		cmocka_unit_test(test_genl_first),
		cmocka_unit_test(test_fetch_recorded),
		cmocka_unit_test(test_taskstats_exit),
		cmocka_unit_test(test_metrics_cpu),
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_metrics_ts_bytes),
		cmocka_unit_test(test_procwho),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
