// SPDX-License-Identifier: GPL-2.0-or-later
/* tui/model/model_sections.c: the turbostat, processes, nics, pressure and writeback
 * sections as the real encoders write them for recorded and generated trees
 * (the path of `iotriage compute T0 T1 --json`): the turbo trees of
 * tests/fixtures/turbo/make-trees.py against seed 002's turbostat table
 * and the AMD tree's numbers, the netlink-live recording against its own
 * /proc files; sections absent (first sample, core-only sampling) are "not
 * available" with the reason, never zeros; a malformed section is reported
 * and the others still decode. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "encode.h"
#include "metrics.h"
#include "model.h"
#include "model_sections.h"
#include "snapshot.h"
#include "strbuf.h"

static char turbo_dir[256]; /* the generated trees, "" when they could not be made */

/* The document `iotriage compute T0 T1 --json` prints, parsed. skip: the
 * collector's COLLECT_SKIP_* (iotriaged --core-only); no_metrics: the first
 * sample of a sampler (no interval yet). */
static struct json_object *compute_doc(const char *t0, const char *t1, unsigned skip,
				       bool no_metrics)
{
	struct snapshot s0 = { 0 }, s1 = { 0 };
	struct metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct snapshot_collector c;
	struct encode_opts o = { .host = "db1", .mode = "compute", .whole_only = true };
	struct json_object *doc;
	const char *dirs[2] = { t0, t1 };
	struct snapshot *ss[2] = { &s0, &s1 };

	for (int i = 0; i < 2; i++) {
		assert_int_equal(snapshot_collector_open(dirs[i], &c), 0);
		c.skip = skip;
		assert_int_equal(snapshot_collector_sample(&c, ss[i]), 0);
		snapshot_collector_close(&c);
	}
	assert_int_equal(metrics_compute(&s0, &s1, metrics_interval_cs(&s0, &s1), &m), 0);
	encode_sample(&sb, &s1, no_metrics ? NULL : &m, &o);
	assert_int_equal(sb.err, 0);
	doc = json_tokener_parse(sb.buf);
	assert_non_null(doc);
	sb_free(&sb);
	metrics_free(&m);
	snapshot_free(&s0);
	snapshot_free(&s1);
	return doc;
}

static void decode(struct json_object *doc, struct model_sections *x)
{
	assert_int_equal(model_sections_decode(doc, x), 0);
}

static void fixture(char *buf, size_t size, const char *rel)
{
	snprintf(buf, size, "%s/%s", FIXTURES_DIR, rel);
}

/* ---- turbostat on the generated trees ---- */

static int make_turbo_trees(void **state)
{
	char cmd[1024], amd_msr[300];
	struct stat st;

	(void)state;
	snprintf(turbo_dir, sizeof(turbo_dir), "/tmp/test_model_sections.XXXXXX");
	if (!mkdtemp(turbo_dir)) {
		turbo_dir[0] = '\0';
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "python3 %s/turbo/make-trees.py %s all >/dev/null 2>&1",
		 FIXTURES_DIR, turbo_dir);
	if (system(cmd) != 0) {
		print_message("make-trees.py failed (python3 missing?): turbo tests skipped\n");
		turbo_dir[0] = '\0';
		return 0;
	}
	/* the AMD registers sit 24 GiB into sparse files: a filesystem that
	 * does not keep holes would have filled the disk; make-trees wrote them */
	snprintf(amd_msr, sizeof(amd_msr), "%s/amd/t1/dev/cpu/0/msr", turbo_dir);
	if (stat(amd_msr, &st) < 0 || st.st_blocks > 64 * 1024 * 2)
		print_message("%s is not sparse here\n", amd_msr);
	return 0;
}

static int remove_turbo_trees(void **state)
{
	char cmd[400];

	(void)state;
	if (strncmp(turbo_dir, "/tmp/test_model_sections.", 20) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", turbo_dir);
		if (system(cmd) != 0)
			print_message("could not remove %s\n", turbo_dir);
	}
	return 0;
}

/* seed 002's table (turbostat's own output, whitespace-separated): the
 * header's column names and, per CPU ("-" is -1), the printed cells. A row
 * stops after its last column, as turbostat's does. */
struct seed {
	char hdr[32][16];
	int ncols;
	struct {
		int cpu;
		char cell[32][16];
		int n;
	} rows[64];
	int nrows;
};

static void seed_load(struct seed *s)
{
	char path[512], line[1024];
	FILE *f;

	memset(s, 0, sizeof(*s));
	fixture(path, sizeof(path), "turbo/seed002-turbostat.txt");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " \t\n", &save);
		int n = 0;

		if (!tok)
			continue;
		if (!s->ncols) {
			for (; tok && n < 32; tok = strtok_r(NULL, " \t\n", &save))
				snprintf(s->hdr[n++], sizeof(s->hdr[0]), "%s", tok);
			s->ncols = n;
			continue;
		}
		assert_true(s->nrows < 64);
		for (; tok && n < 32; tok = strtok_r(NULL, " \t\n", &save))
			snprintf(s->rows[s->nrows].cell[n++], sizeof(s->rows[0].cell[0]), "%s",
				 tok);
		s->rows[s->nrows].n = n;
		s->rows[s->nrows].cpu = strcmp(s->rows[s->nrows].cell[1], "-") == 0
					    ? -1
					    : atoi(s->rows[s->nrows].cell[1]);
		s->nrows++;
	}
	fclose(f);
	assert_true(s->nrows > 50);
}

/* The printed cell of a seed row under a column, NULL when the row stops before it. */
static const char *seed_cell(const struct seed *s, int row, const char *col)
{
	for (int c = 0; c < s->ncols; c++)
		if (strcmp(s->hdr[c], col) == 0)
			return c < s->rows[row].n ? s->rows[row].cell[c] : NULL;
	return NULL;
}

/* The seed's row of the first thread of row's core (the one printing
 * CPU%c7): in turbostat's order (package, core, CPU) a core's threads are
 * adjacent, its first thread first. */
static int seed_core_row(const struct seed *s, int row)
{
	for (int i = row; i > 0; i--)
		if (strcmp(s->rows[i].cell[0], s->rows[row].cell[0]) == 0 &&
		    seed_cell(s, i, "CPU%c7"))
			return i;
	return -1;
}

static void test_turbo_seed002(void **state)
{
	char t0[300], t1[300];
	struct json_object *doc;
	struct model_sections x;
	struct seed s;
	size_t matched = 0;

	(void)state;
	if (!turbo_dir[0])
		skip();
	snprintf(t0, sizeof(t0), "%s/intel/t0", turbo_dir);
	snprintf(t1, sizeof(t1), "%s/intel/t1", turbo_dir);
	doc = compute_doc(t0, t1, 0, false);
	decode(doc, &x);
	seed_load(&s);
	assert_string_equal(x.bad, "");
	assert_true(x.turbo.present);
	assert_true(fabs(x.turbo.interval_s - 5.0) < 1e-9);
	assert_int_equal(x.turbo.ncpus, 56);
	assert_true(x.turbo.any_busy && x.turbo.any_bzy && x.turbo.any_deep);
	assert_true(x.turbo.col[MT_BUSY].known && x.turbo.col[MT_BUSY].available);
	assert_string_equal(x.turbo.col[MT_BUSY].source, "msr");
	assert_string_equal(x.turbo.col[MT_BZY_MHZ].source, "msr");

	for (int i = 0; i < s.nrows; i++) {
		const struct model_turbo_cpu *r = model_sections_turbo_cpu(&x, s.rows[i].cpu);
		int core_row = s.rows[i].cpu < 0 ? i : seed_core_row(&s, i);

		assert_non_null(r);
		assert_true(r->valid);
		assert_true(r->has_busy && r->has_bzy && r->has_deep);
		/* Busy% is printed with two decimals, as the JSON; Bzy_MHz as %.0f */
		assert_true(fabs(r->busy_pct - atof(seed_cell(&s, i, "Busy%"))) < 0.0051);
		assert_true(fabs(r->bzy_mhz - atof(seed_cell(&s, i, "Bzy_MHz"))) <= 0.5);
		/* the deepest residency the core has, on each of its threads */
		assert_true(core_row > 0 || s.rows[i].cpu < 0);
		assert_string_equal(r->deep_name, "CPU%c7");
		assert_false(r->deep_cpuidle);
		assert_true(fabs(r->deep_pct - atof(seed_cell(&s, core_row, "CPU%c7"))) < 0.0051);
		matched++;
	}
	assert_int_equal(matched, 57);
	/* the header's numbers: the summary row's watts and temperatures */
	assert_true(x.turbo.has[MT_PKGWATT] && x.turbo.has[MT_RAMWATT]);
	assert_true(fabs(x.turbo.v[MT_PKGWATT] - atof(seed_cell(&s, 0, "PkgWatt"))) < 0.0051);
	assert_true(fabs(x.turbo.v[MT_RAMWATT] - atof(seed_cell(&s, 0, "RAMWatt"))) < 0.0051);
	assert_true(fabs(x.turbo.v[MT_PKGTMP] - atof(seed_cell(&s, 0, "PkgTmp"))) <= 0.5);
	assert_true(fabs(x.turbo.v[MT_CORETMP] - atof(seed_cell(&s, 0, "CoreTmp"))) <= 0.5);
	/* Broadwell-EP has no PP0 counter: CorWatt unavailable, with why */
	assert_false(x.turbo.has[MT_CORWATT]);
	assert_true(x.turbo.col[MT_CORWATT].known && !x.turbo.col[MT_CORWATT].available);
	assert_true(x.turbo.col[MT_CORWATT].reason[0] != '\0');
	assert_false(x.turbo.suspect);
	/* every column of "columns", in turbostat's order, for the sources view */
	assert_int_equal(x.turbo.ncols, 21);
	assert_string_equal(x.turbo.cols[0].name, "Avg_MHz");
	assert_string_equal(x.turbo.cols[2].name, "Bzy_MHz");
	assert_true(x.turbo.cols[2].st.available);
	assert_string_equal(x.turbo.cols[2].st.source, "msr");
	assert_string_equal(x.turbo.cols[2].st.detail, "MSR 0xE8 APERF / MSR 0xE7 MPERF");
	assert_string_equal(x.turbo.cols[4].name, "IRQ");
	assert_string_equal(x.turbo.cols[4].st.source, "proc");
	assert_string_equal(x.turbo.cols[15].name, "Pkg%pc7");
	assert_false(x.turbo.cols[15].st.available);
	assert_string_equal(x.turbo.cols[15].st.reason,
			    "no package C7 on this server model (turbostat)");
	assert_string_equal(x.turbo.cols[20].name, "RAM_%");
	/* the source families: msr works on the tree, perf only live */
	assert_string_equal(x.turbo.fam[0].name, "msr");
	assert_true(x.turbo.fam[0].listed && x.turbo.fam[0].available);
	assert_string_equal(x.turbo.fam[0].reason, "");
	assert_string_equal(x.turbo.fam[1].name, "perf");
	assert_true(x.turbo.fam[1].listed && !x.turbo.fam[1].available);
	assert_non_null(strstr(x.turbo.fam[1].reason, "live host"));
	{
		char why[128];

		model_sections_turbo_why(&x, true, why, sizeof(why));
		assert_string_equal(why, ""); /* there are watts to show */
	}
	model_sections_free(&x);
	assert_false(x.turbo.present);
	assert_null(x.turbo.cpus);
	json_object_put(doc);
}

static void test_turbo_amd_cpuidle(void **state)
{
	char t0[300], t1[300];
	struct json_object *doc;
	struct model_sections x;
	static const double busy[4] = { 50, 25, 100, 10 }, bzy[4] = { 3600, 2400, 3000, 1500 };

	(void)state;
	if (!turbo_dir[0])
		skip();
	snprintf(t0, sizeof(t0), "%s/amd/t0", turbo_dir);
	snprintf(t1, sizeof(t1), "%s/amd/t1", turbo_dir);
	doc = compute_doc(t0, t1, 0, false);
	decode(doc, &x);
	assert_string_equal(x.bad, "");
	assert_int_equal(x.turbo.ncpus, 4);
	for (int cpu = 0; cpu < 4; cpu++) {
		const struct model_turbo_cpu *r = model_sections_turbo_cpu(&x, cpu);

		assert_non_null(r);
		assert_true(fabs(r->busy_pct - busy[cpu]) < 1e-9);
		assert_true(fabs(r->bzy_mhz - bzy[cpu]) < 1e-9);
		/* no core C-state MSRs on AMD: the deepest cpuidle state, C2 */
		assert_true(r->has_deep && r->deep_cpuidle);
		assert_string_equal(r->deep_name, "C2");
		assert_true(fabs(r->deep_pct - 50.0) < 1e-9);
	}
	assert_null(model_sections_turbo_cpu(&x, 4));
	assert_true(x.turbo.col[MT_C6].known && !x.turbo.col[MT_C6].available);
	assert_non_null(strstr(x.turbo.col[MT_C6].reason, "cpuidle"));
	/* per-core energy summed in the summary row, k10temp's Tctl */
	assert_true(x.turbo.has[MT_CORWATT] && fabs(x.turbo.v[MT_CORWATT] - 14.5) < 1e-9);
	assert_true(x.turbo.has[MT_PKGWATT] && fabs(x.turbo.v[MT_PKGWATT] - 60.0) < 1e-9);
	assert_true(x.turbo.has[MT_PKGTMP] && fabs(x.turbo.v[MT_PKGTMP] - 55.0) < 1e-9);
	assert_false(x.turbo.has[MT_RAMWATT]);
	assert_false(x.turbo.has[MT_CORETMP]);
	model_sections_free(&x);
	json_object_put(doc);
}

/* ---- the netlink-live recording ---- */

/* A counter of a recorded /proc file: the number after "key" (or the
 * field-th number of the first line when key is NULL). */
static double tree_number(const char *tree, const char *file, const char *key)
{
	char path[512], line[256];
	double v = NAN;
	FILE *f;

	snprintf(path, sizeof(path), "%s/netlink-live/%s/%s", FIXTURES_DIR, tree, file);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t n = key ? strlen(key) : 0;

		if (!key) {
			v = atof(line);
			break;
		}
		if (strncmp(line, key, n) == 0) {
			v = atof(line + n);
			break;
		}
	}
	fclose(f);
	assert_false(isnan(v));
	return v;
}

static void test_netlink_live(void **state)
{
	char t0[300], t1[300];
	struct json_object *doc;
	struct model_sections x;
	const struct model_proc *dd = NULL;
	const struct model_nic *eth0 = NULL, *ifb0 = NULL;
	double itv, want_wr, dirty_pages;
	char why[MODEL_SECTIONS_REASON_MAX];

	(void)state;
	fixture(t0, sizeof(t0), "netlink-live/t0");
	fixture(t1, sizeof(t1), "netlink-live/t1");
	doc = compute_doc(t0, t1, 0, false);
	decode(doc, &x);
	assert_string_equal(x.bad, "");
	assert_true(x.sampled);

	/* dd wrote between the captures: its rate from its own io files */
	itv = tree_number("t1", "proc/uptime", NULL) - tree_number("t0", "proc/uptime", NULL);
	want_wr = (tree_number("t1", "proc/31933/io", "write_bytes: ") -
		   tree_number("t0", "proc/31933/io", "write_bytes: ")) /
		  1024.0 / itv;
	assert_true(x.procs.present && x.procs.has_rows);
	assert_string_equal(x.procs.bytes_source, "procfs");
	assert_string_equal(x.procs.delay_source, "taskstats");
	assert_string_equal(x.procs.delay_accounting, "on");
	assert_true(x.procs.count > 50);
	assert_true(x.procs.answers > 0 && x.procs.answers <= x.procs.queries);
	assert_true(x.procs.nio > 1 && x.procs.nio <= 10);
	dd = &x.procs.top_io[0];
	assert_int_equal(dd->pid, 31933);
	assert_string_equal(dd->comm, "dd");
	assert_true(fabs(dd->wr_kbs - want_wr) < 0.0051);
	assert_true(dd->rd_kbs == 0 && dd->ccwr_kbs == 0);
	assert_true(dd->has_delay && dd->io_delay_pct > 0);
	/* dd's group: itself, by IO first (processes.groups_io) */
	assert_true(x.procs.ngio > 0);
	assert_string_equal(x.procs.groups_io[0].comm, "dd");
	assert_int_equal(x.procs.groups_io[0].count, 1);
	assert_int_equal(x.procs.groups_io[0].pid, 31933);
	assert_true(fabs(x.procs.groups_io[0].wr_kbs - want_wr) < 0.0051);
	assert_string_equal(x.procs.groups_io[0].role, "");
	for (size_t i = 1; i < x.procs.nio; i++) {
		const struct model_proc *a = &x.procs.top_io[i - 1], *b = &x.procs.top_io[i];

		assert_true(a->rd_kbs + a->wr_kbs >= b->rd_kbs + b->wr_kbs);
	}
	/* a process that started in the interval has bytes and no delay */
	{
		bool started = false;

		for (size_t i = 0; i < x.procs.nio; i++)
			if (x.procs.top_io[i].started) {
				started = true;
				assert_false(x.procs.top_io[i].has_delay);
			}
		assert_true(started);
	}
	assert_true(x.procs.ndelay >= 1);
	assert_int_equal(x.procs.top_delay[0].pid, 31933);

	/* NICs: loopback left out by the encoder; eth0 virtio with 1/1 channels */
	assert_true(x.nics.present);
	assert_string_equal(x.nics.ethtool_reason, "");
	for (size_t i = 0; i < x.nics.n; i++) {
		assert_string_not_equal(x.nics.v[i].name, "lo");
		if (strcmp(x.nics.v[i].name, "eth0") == 0)
			eth0 = &x.nics.v[i];
		if (strcmp(x.nics.v[i].name, "ifb0") == 0)
			ifb0 = &x.nics.v[i];
	}
	assert_non_null(eth0);
	if (!eth0)
		return;
	assert_true(eth0->up && eth0->carrier && eth0->has_rates);
	assert_int_equal(eth0->channels, MN_SET);
	assert_int_equal(eth0->ch_combined, 1);
	assert_int_equal(eth0->ch_combined_max, 1);
	assert_int_equal(eth0->coalesce, MN_SET);
	assert_true(eth0->has_rx_usecs && eth0->has_rx_frames && eth0->has_adaptive_rx);
	assert_false(eth0->has_adaptive_tx);
	assert_int_equal(eth0->rx_frames, 1);
	assert_int_equal(eth0->nirqs, 3);
	assert_int_equal(eth0->irqs[1].irq, 38);
	assert_string_equal(eth0->irqs[1].actions, "virtio2-input.0");
	/* no interrupt in the interval: a rate of 0 and no busiest CPU */
	assert_true(eth0->irqs[1].has_rate && eth0->irqs[1].total_s == 0);
	assert_int_equal(eth0->irqs[1].busiest_cpu, -1);
	assert_non_null(ifb0);
	if (!ifb0)
		return;
	assert_false(ifb0->up);
	assert_int_equal(ifb0->channels, MN_UNAVAILABLE);
	assert_string_equal(ifb0->channels_reason, "channels: not supported by the driver");
	assert_int_equal(ifb0->coalesce, MN_UNAVAILABLE);
	assert_int_equal(ifb0->nirqs, 0);

	/* pressure: io and cpu recorded, irq not (kernel without it) */
	assert_true(x.psi[MP_IO].present && x.psi[MP_IO].some.present && x.psi[MP_IO].full.present);
	assert_true(fabs(x.psi[MP_IO].some.avg10 -
			 tree_number("t1", "proc/pressure/io", "some avg10=")) < 1e-9);
	assert_true(x.psi[MP_IO].some.has_stall && x.psi[MP_IO].some.stall_pct > 0);
	assert_true(x.psi[MP_CPU].present);
	assert_false(x.psi[MP_IRQ].present);
	assert_non_null(strstr(x.psi[MP_IRQ].reason, "proc/pressure/irq"));

	/* writeback: nr_dirty pages of t1 in kB (the host's page size, 4 kB here) */
	dirty_pages = tree_number("t1", "proc/vmstat", "nr_dirty ");
	assert_true(x.wb.present && x.wb.has_dirty && x.wb.has_thresholds && x.wb.has_freerun);
	assert_true(x.wb.dirty_kb % (uint64_t)dirty_pages == 0 &&
		    x.wb.dirty_kb / (uint64_t)dirty_pages >= 4);
	assert_true(x.wb.bg_threshold_kb < x.wb.freerun_kb && x.wb.freerun_kb < x.wb.threshold_kb);
	assert_string_equal(x.wb.state, "below_background");

	/* a tree without MSR files: turbostat is there, every column it could
	 * not measure says why, and the header says why in short */
	assert_true(x.turbo.present && x.turbo.sampled);
	assert_false(x.turbo.any_busy || x.turbo.any_bzy || x.turbo.any_deep);
	assert_true(x.turbo.col[MT_BUSY].known && !x.turbo.col[MT_BUSY].available);
	assert_non_null(strstr(x.turbo.col[MT_BZY_MHZ].reason, "not recorded in this tree; "));
	/* every column says why, but IRQ (from /proc/interrupts) */
	assert_int_equal(x.turbo.ncols, 21);
	for (size_t i = 0; i < x.turbo.ncols; i++) {
		const struct model_turbo_column *col = &x.turbo.cols[i];

		assert_int_equal(col->st.available, strcmp(col->name, "IRQ") == 0);
		if (!col->st.available)
			assert_non_null(strstr(col->st.reason, "dev/cpu/0/msr: not recorded"));
	}
	assert_true(x.turbo.fam[0].listed && !x.turbo.fam[0].available);
	assert_non_null(strstr(x.turbo.fam[0].reason, "dev/cpu/0/msr: not recorded"));
	for (int k = MT_PKGWATT; k <= MT_CORETMP; k++)
		assert_false(x.turbo.has[k]);
	model_sections_turbo_why(&x, true, why, sizeof(why));
	assert_non_null(strstr(why, "dev/cpu/0/msr: not recorded in this tree"));
	assert_null(strstr(why, ";"));
	assert_true(model_sections_turbo_cpu(&x, 0) && !model_sections_turbo_cpu(&x, 0)->has_busy);
	model_sections_free(&x);
	json_object_put(doc);
}

/* The first sample (no interval) and a core-only sampler: sections absent,
 * each said so, nothing shown as zero. */
static void test_absent(void **state)
{
	char t0[300], t1[300], why[MODEL_SECTIONS_REASON_MAX];
	struct json_object *doc;
	struct model_sections x;

	(void)state;
	fixture(t0, sizeof(t0), "netlink-live/t0");
	fixture(t1, sizeof(t1), "netlink-live/t1");

	doc = compute_doc(t0, t1, 0, true);
	decode(doc, &x);
	assert_false(x.turbo.present);
	model_sections_turbo_why(&x, false, why, sizeof(why));
	assert_string_equal(why, "waiting for a second sample");
	/* the first document carries sources and identity only: every section
	 * absent, yet sampled with no reason against it */
	assert_true(x.sampled && x.turbo.sampled);
	assert_int_equal(x.turbo.ncols, 0);
	assert_true(x.turbo.fam[0].listed); /* the sources view says what was probed */
	assert_false(x.procs.present || x.nics.present || x.wb.present || x.psi[MP_IO].present);
	assert_string_equal(x.procs.reason, "");
	assert_string_equal(x.nics.reason, "");
	assert_non_null(strstr(x.psi[MP_IRQ].reason, "proc/pressure/irq"));
	model_sections_free(&x);
	json_object_put(doc);

	doc = compute_doc(t0, t1, COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT, false);
	decode(doc, &x);
	assert_string_equal(x.bad, "");
	assert_false(x.sampled);
	assert_false(x.turbo.present || x.turbo.sampled);
	assert_false(x.procs.present || x.nics.present || x.wb.present);
	for (int i = 0; i < MP__COUNT; i++)
		assert_false(x.psi[i].present);
	model_sections_turbo_why(&x, true, why, sizeof(why));
	assert_string_equal(why, "not in the sample: iotriaged --core-only, or older");
	assert_null(model_sections_turbo_cpu(&x, -1));
	model_sections_free(&x);
	json_object_put(doc);
}

/* A section the client cannot read is named in bad and left out; the
 * other sections of the same document still decode. */
static void test_malformed(void **state)
{
	char t0[300], t1[300];
	struct json_object *doc, *nics, *procs, *top;
	struct model_sections x;

	(void)state;
	fixture(t0, sizeof(t0), "netlink-live/t0");
	fixture(t1, sizeof(t1), "netlink-live/t1");
	doc = compute_doc(t0, t1, 0, false);

	json_object_object_get_ex(doc, "nics", &nics);
	json_object_object_add(json_object_array_get_idx(nics, 2), "irqs",
			       json_object_new_string("37,38"));
	decode(doc, &x);
	assert_string_equal(x.bad, "nics[2]");
	assert_false(x.nics.present);
	assert_int_equal(x.nics.n, 0);
	assert_true(x.procs.present && x.procs.nio > 0);
	assert_true(x.wb.present && x.psi[MP_IO].present && x.turbo.present);
	model_sections_free(&x);

	json_object_object_get_ex(doc, "processes", &procs);
	json_object_object_get_ex(procs, "top_io", &top);
	json_object_object_add(json_object_array_get_idx(top, 1), "pid",
			       json_object_new_string("31925"));
	json_object_object_del(doc, "nics");
	decode(doc, &x);
	assert_string_equal(x.bad, "processes.top_io[1]");
	assert_false(x.procs.present);
	assert_int_equal(x.procs.nio, 0);
	assert_false(x.nics.present);
	assert_string_equal(x.nics.reason, ""); /* rtnetlink was fine: just not sent */
	assert_true(x.wb.present);
	model_sections_free(&x);

	/* a group of the wrong shape: the section goes, the others stay */
	json_object_put(doc);
	doc = compute_doc(t0, t1, 0, false);
	json_object_object_get_ex(doc, "processes", &procs);
	json_object_object_get_ex(procs, "groups_io", &top);
	json_object_object_add(json_object_array_get_idx(top, 0), "count",
			       json_object_new_string("4"));
	decode(doc, &x);
	assert_string_equal(x.bad, "processes.groups_io[0]");
	assert_false(x.procs.present);
	assert_true(x.wb.present);
	model_sections_free(&x);

	/* not an object at all: every section absent, nothing read */
	model_sections_free(NULL);
	json_object_put(doc);
	doc = json_tokener_parse("{\"turbostat\":[1],\"pressure\":{\"io\":{\"some\":{\"avg10\":"
				 "\"x\"}}},\"writeback\":{\"dirty_kB\":-4}}");
	assert_non_null(doc);
	decode(doc, &x);
	assert_false(x.turbo.present || x.wb.present || x.psi[MP_IO].present);
	assert_string_equal(x.bad, "writeback: a key of the wrong type"); /* the last one */
	model_sections_free(&x);
	json_object_put(doc);
}

/* Through the TUI's one decoder: model_apply keeps the sections with the
 * tables; a paused view (history only) keeps the previous ones. */
static void test_model_apply(void **state)
{
	char t0[300], t1[300];
	struct json_object *doc, *core;
	struct model m = { 0 };

	(void)state;
	fixture(t0, sizeof(t0), "netlink-live/t0");
	fixture(t1, sizeof(t1), "netlink-live/t1");
	doc = compute_doc(t0, t1, 0, false);
	core = compute_doc(t0, t1, COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT, false);
	assert_int_equal(model_apply(&m, doc, MODEL_VIEW | MODEL_HISTORY), 0);
	assert_true(m.sections.procs.present && m.sections.nics.present &&
		    m.sections.turbo.present);
	assert_int_equal(m.sections.procs.top_io[0].pid, 31933);
	/* paused: the history records, the view keeps what it shows */
	assert_int_equal(model_apply(&m, core, MODEL_HISTORY), 0);
	assert_true(m.sections.procs.present);
	assert_int_equal(model_apply(&m, core, MODEL_VIEW), 0);
	assert_false(m.sections.procs.present || m.sections.nics.present ||
		     m.sections.turbo.present);
	assert_false(m.sections.sampled);
	model_free(&m);
	assert_false(m.sections.procs.present);
	json_object_put(doc);
	json_object_put(core);
}

static void test_short_reason(void **state)
{
	char buf[64];

	(void)state;
	model_sections_short_reason("a: b; c; d", buf, sizeof(buf));
	assert_string_equal(buf, "a: b");
	model_sections_short_reason("no semicolon", buf, sizeof(buf));
	assert_string_equal(buf, "no semicolon");
	model_sections_short_reason("", buf, 4);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turbo_seed002), cmocka_unit_test(test_turbo_amd_cpuidle),
		cmocka_unit_test(test_netlink_live),  cmocka_unit_test(test_absent),
		cmocka_unit_test(test_malformed),     cmocka_unit_test(test_model_apply),
		cmocka_unit_test(test_short_reason),
	};

	return cmocka_run_group_tests(tests, make_turbo_trees, remove_turbo_trees);
}
