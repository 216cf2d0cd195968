// SPDX-License-Identifier: GPL-2.0-or-later
/* metrics_turbo.c: turbostat's formulas on hand-made readings; cpuinfo parsing. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strbuf.h"
#include "encode_turbo.h"

#define BIT(c) (1u << (c))

/* Two readings of `n` CPUs (one package, core = cpu / 2), 1 s apart. */
struct pair {
	struct snapshot s0, s1;
	struct turbo_raw r0, r1;
	struct turbo_cpu_raw c0[4], c1[4];
	struct turbo_pkg_raw k0, k1;
};

static void info_intel(struct turbo_info *in)
{
	memset(in, 0, sizeof(*in));
	strcpy(in->vendor, "GenuineIntel");
	in->family = 6;
	in->model = 0x4f;
	in->base_mhz = 2400;
	in->energy_unit_j = 1.0 / 16384;
	in->dram_energy_unit_j = 15.3e-6;
	in->tdp_w = 120;
	for (int c = 0; c < TC__COUNT; c++)
		in->src[c].via = TV_MSR;
	in->src[TC_IRQ].via = TV_NONE;
	strcpy(in->src[TC_IRQ].reason, "not in this test");
}

static void pair_init(struct pair *p, int n)
{
	memset(p, 0, sizeof(*p));
	info_intel(&p->r0.info);
	p->r1.info = p->r0.info;
	for (int i = 0; i < n; i++) {
		struct turbo_cpu_raw *a = &p->c0[i], *b = &p->c1[i];

		a->cpu = b->cpu = i;
		a->core_id = b->core_id = i / 2;
		a->first_in_core = b->first_in_core = i % 2 == 0;
		a->first_in_pkg = b->first_in_pkg = i == 0;
		a->core_idx = b->core_idx = i / 2 * 2;
		a->have = b->have = TR_TSC | TR_APERF | TR_MPERF | TR_SMI |
				    (i % 2 == 0 ? TR_C3 | TR_C6 | TR_C7 : 0);
		a->tsc = 1000000000000ULL;
		a->aperf = 5000000000ULL;
		a->mperf = 7000000000ULL;
		/* 1 s at 2400 MHz: Busy 25 %, Bzy 3000 MHz, Avg 750 MHz */
		b->tsc = a->tsc + 2400000000ULL;
		b->mperf = a->mperf + 600000000ULL;
		b->aperf = a->aperf + 750000000ULL;
		b->c3 = a->c3 + 240000000ULL;  /* 10 % */
		b->c6 = a->c6 + 1200000000ULL; /* 50 % */
	}
	p->k0.have = p->k1.have = TP_E_PKG | TP_E_DRAM | TP_PC2;
	p->k0.e_pkg = 0xffffff00; /* wraps during the interval: 50 J */
	p->k1.e_pkg = (uint32_t)(0xffffff00u + 16384u * 50u);
	p->k0.e_dram = 1000;
	p->k1.e_dram = 1000 + 1000000; /* 15.3 J */
	p->k1.pc2 = 24000000;	       /* 1 % */
	p->r0.cpus = p->c0;
	p->r1.cpus = p->c1;
	p->r0.ncpu = p->r1.ncpu = (size_t)n;
	p->r0.pkgs = &p->k0;
	p->r1.pkgs = &p->k1;
	p->r0.npkg = p->r1.npkg = 1;
	p->r0.energy_kind = p->r1.energy_kind = TE_MSR32;
	p->s0.turbo = &p->r0;
	p->s1.turbo = &p->r1;
}

/* The row of cpu; a row marked missing (and failing every check) if absent. */
static const struct turbo_row *row_of(const struct turbo_metrics *m, int cpu)
{
	static const struct turbo_row missing = { .cpu = -999, .reason = "no such row" };

	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].cpu == cpu)
			return &m->rows[i];
	assert_true(cpu == -999);
	return &missing;
}

static void test_formulas(void **state)
{
	struct turbo_metrics m = { 0 };
	const struct turbo_row *r;
	struct pair *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	pair_init(p, 2);
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_true(m.available);
	r = row_of(&m, 0);
	assert_true(r->valid);
	assert_float_equal(r->v[TC_TSC_MHZ], 2400, 1e-9);
	assert_float_equal(r->v[TC_AVG_MHZ], 750, 1e-9);
	assert_float_equal(r->v[TC_BUSY], 25, 1e-9);
	/* has_base_hz: base x APERF/MPERF */
	assert_float_equal(r->v[TC_BZY_MHZ], 3000, 1e-9);
	assert_float_equal(r->v[TC_C3], 10, 1e-9);
	assert_float_equal(r->v[TC_C6], 50, 1e-9);
	/* C1 = TSC - MPERF - C3 - C6 - C7 */
	assert_float_equal(r->v[TC_C1], 15, 1e-9);
	/* 32-bit wrap: 50 J over 1 s */
	assert_float_equal(r->v[TC_PKGWATT], 50, 1e-9);
	assert_float_equal(r->v[TC_RAMWATT], 15.3, 1e-9);
	assert_float_equal(r->v[TC_PC2], 1, 1e-9);
	assert_int_equal(r->suspect, 0);
	/* the second thread: no core columns, same C1 from the shared core */
	r = row_of(&m, 1);
	assert_false(r->have & BIT(TC_C3));
	assert_float_equal(r->v[TC_C1], 15, 1e-9);
	assert_false(r->have & BIT(TC_PKGWATT));
	/* summary: averages, package watts summed */
	assert_float_equal(m.summary.v[TC_AVG_MHZ], 750, 1e-9);
	assert_float_equal(m.summary.v[TC_PKGWATT], 50, 1e-9);
	assert_float_equal(m.joule_range_s, 4294967295.0 / 16384 / 120, 1e-6);

	/* without a base frequency: TSC x APERF/MPERF / interval */
	p->r1.info.base_mhz = 0;
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_float_equal(row_of(&m, 0)->v[TC_BZY_MHZ], 3000, 1e-9);
	turbo_metrics_free(&m);
	free(p);
}

static void test_suspect_and_clamp(void **state)
{
	struct turbo_metrics m = { 0 };
	struct strbuf sb = { 0 };
	struct pair *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	pair_init(p, 2);
	/* an interval beyond 2^32 energy units at TDP (2184 s here) is suspect */
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 300000, &m), 0);
	assert_true(row_of(&m, 0)->suspect & BIT(TC_PKGWATT));
	assert_true(m.summary.suspect & BIT(TC_PKGWATT));
	encode_turbo_table(&sb, &m);
	assert_non_null(strstr(sb_cstr(&sb), "**"));
	sb_free(&sb);
	/* MPERF + C3 + C6 > TSC (non-atomic reads): C1 is 0, not negative */
	pair_init(p, 2);
	p->c1[0].c6 = p->c0[0].c6 + 2000000000ULL;
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_float_equal(row_of(&m, 0)->v[TC_C1], 0, 0);
	turbo_metrics_free(&m);
	free(p);
}

static void test_bad_rounds(void **state)
{
	struct turbo_metrics m = { 0 };
	const struct turbo_row *r;
	struct pair *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	pair_init(p, 4);
	p->c1[1].tsc = p->c0[1].tsc - 5;      /* backwards */
	p->c1[2].tsc = p->c0[2].tsc + 999999; /* < 1M cycles */
	p->c1[3].aperf = p->c0[3].aperf;      /* APERF stalled */
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	r = row_of(&m, 1);
	assert_false(r->valid);
	assert_non_null(strstr(r->reason, "backwards"));
	assert_int_equal(r->have, 0);
	r = row_of(&m, 2);
	assert_false(r->valid);
	assert_non_null(strstr(r->reason, "< 1M"));
	r = row_of(&m, 3);
	assert_true(r->valid);
	assert_false(r->have & BIT(TC_AVG_MHZ));
	assert_true(r->have & BIT(TC_TSC_MHZ));
	assert_non_null(strstr(r->reason, "APERF or MPERF"));
	assert_int_equal(m.invalid_rows, 2);
	/* a failed read names the CPU and register */
	pair_init(p, 2);
	p->c1[1].err = -ENODATA;
	strcpy(p->c1[1].reason, "cpu1: MSR 0xE8: truncated");
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_false(row_of(&m, 1)->valid);
	assert_string_equal(row_of(&m, 1)->reason, "cpu1: MSR 0xE8: truncated");
	assert_true(row_of(&m, 0)->valid);
	turbo_metrics_free(&m);
	free(p);
}

static void test_hotplug(void **state)
{
	struct turbo_metrics m = { 0 };
	struct pair *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	pair_init(p, 4);
	p->r1.ncpu = 3; /* cpu3 went offline */
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_int_equal(m.nrows, 4);
	assert_false(row_of(&m, 3)->valid);
	assert_non_null(strstr(row_of(&m, 3)->reason, "offline"));
	p->r1.ncpu = 4;
	p->r0.ncpu = 3; /* and back */
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_non_null(strstr(row_of(&m, 3)->reason, "online"));
	/* no reading at all: unavailable, with a reason */
	p->s0.turbo = NULL;
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_false(m.available);
	assert_non_null(strstr(m.reason, "previous"));
	turbo_metrics_free(&m);
	free(p);
}

static void test_powercap_wrap(void **state)
{
	struct turbo_metrics m = { 0 };
	struct pair *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	pair_init(p, 2);
	p->r0.energy_kind = p->r1.energy_kind = TE_POWERCAP;
	p->r1.info.powercap_range_uj[0] = 262143328850ULL;
	p->k0.have = p->k1.have = TP_E_PKG;
	p->k0.e_pkg = 262143328850ULL - 1000000; /* 1 J before the wrap */
	p->k1.e_pkg = 29000000;			 /* 29 J after it */
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_float_equal(row_of(&m, 0)->v[TC_PKGWATT], 30, 1e-9);
	turbo_metrics_free(&m);
	free(p);
}

static void test_views(void **state)
{
	struct turbo_metrics m = { 0 };
	struct turbo_cpu_view v;
	struct turbo_header_view h;
	struct pair *p = calloc(1, sizeof(*p));

	(void)state;
	assert_non_null(p);
	assert_int_equal(turbo_cpu_view(&m, 0, &v), -ENODATA);
	turbo_header_view(NULL, &h);
	assert_true(isnan(h.pkg_watt));
	pair_init(p, 2);
	p->k1.have |= TP_PKGTMP;
	p->k1.pkg_temp_mc = 61000;
	assert_int_equal(turbo_compute(&p->s0, &p->s1, 100, &m), 0);
	assert_int_equal(turbo_cpu_view(&m, 1, &v), 0);
	assert_float_equal(v.bzy_mhz, 3000, 1e-9);
	assert_float_equal(v.busy_pct, 25, 1e-9);
	/* deepest core state with a counter, shared from the core's first thread */
	assert_string_equal(v.deepest_name, "CPU%c7");
	assert_int_equal(turbo_cpu_view(&m, 9, &v), -ENOENT);
	turbo_header_view(&m, &h);
	assert_float_equal(h.pkg_watt, 50, 1e-9);
	assert_float_equal(h.pkg_tmp_c, 61, 1e-9);
	assert_true(isnan(h.core_tmp_c));
	assert_int_equal(h.npkg, 1);
	turbo_metrics_free(&m);
	free(p);
}

static void test_cpuinfo(void **state)
{
	static const char good[] = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
				   "model\t\t: 79\nmodel name\t: Intel(R) Xeon(R) CPU\n\n"
				   "processor\t: 1\nvendor_id\t: Other\n";
	static const char no_model[] = "vendor_id : AuthenticAMD\ncpu family : 23\n\n";
	static const char bad_num[] = "vendor_id : X\ncpu family : 6x\nmodel : 1\n";
	static const char long_vendor[] = "vendor_id : 0123456789abcdefghij\ncpu family : 6\n";
	struct turbo_info in;

	(void)state;
	memset(&in, 0, sizeof(in));
	assert_int_equal(turbo_cpuinfo_parse(good, strlen(good), &in), 0);
	assert_string_equal(in.vendor, "GenuineIntel");
	assert_int_equal(in.family, 6);
	assert_int_equal(in.model, 79); /* "model name" is not "model" */
	in.family = 99;
	assert_int_equal(turbo_cpuinfo_parse(no_model, strlen(no_model), &in), -ENOENT);
	assert_int_equal(in.family, 99);
	assert_int_equal(turbo_cpuinfo_parse(bad_num, strlen(bad_num), &in), -EBADMSG);
	assert_int_equal(turbo_cpuinfo_parse(long_vendor, strlen(long_vendor), &in), -EBADMSG);
	assert_int_equal(turbo_cpuinfo_parse("", 0, &in), -ENOENT);
	/* a buffer cut inside a line is read only up to its length */
	assert_int_equal(turbo_cpuinfo_parse(good, 20, &in), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formulas),      cmocka_unit_test(test_suspect_and_clamp),
		cmocka_unit_test(test_bad_rounds),    cmocka_unit_test(test_hotplug),
		cmocka_unit_test(test_powercap_wrap), cmocka_unit_test(test_views),
		cmocka_unit_test(test_cpuinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
