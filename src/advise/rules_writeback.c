// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writeback: the dirty page cache past the point writers are throttled,
 * and the sentence that says so in a disk finding.
 */
#include "advise_int.h"

/* Writers are throttled by the dirty page cache: metrics_proc's state of the
 * current sample (dirty + writeback past the freerun midpoint, or blocked). */
bool wb_throttled(const struct ctx *c)
{
	const struct workload_metrics *x = c->m->workload;

	return x && c->cur->workload && c->cur->workload->writeback.has_vmstat &&
	       (x->wb_state == WB_THROTTLED || x->wb_state == WB_BLOCKED);
}

/* A slow or saturated disk in a sample where writers are throttled: its
 * latency is not the whole story of a write stall. */
void wb_sentence(const struct ctx *c, struct finding *f)
{
	if (!c->wb_throttled)
		return;
	str_cat(f->detail, sizeof(f->detail),
		"%sWriters are also being throttled by the dirty page cache (writeback-throttled): "
		"a write() stall is the kernel pacing writers to what writeback achieves, so this "
		"disk's latency is not the whole story.",
		f->detail[0] ? " " : "");
}

int find_writeback(struct ctx *c)
{
	const struct writeback_raw *w;
	uint64_t kb, dirty;
	struct finding *f;
	bool any = false;

	if (!c->wb_throttled)
		return 0;
	w = &c->cur->workload->writeback;
	kb = w->page_size >= 1024 ? w->page_size / 1024 : 4;
	dirty = w->nr_dirty + w->nr_writeback;
	f = add_finding(c->a, FIND_WRITEBACK_THROTTLED, ADV_WARNING, "writeback");
	if (!f)
		return -ENOMEM;
	str_fmt(f->id, sizeof(f->id), "writeback-throttled");
	snprintf(f->reason, sizeof(f->reason),
		 "dirty page cache %s: nr_dirty %llu kB + nr_writeback %llu kB = %llu kB, past "
		 "%llu kB where writers are throttled (nr_dirty_background_threshold %llu kB, "
		 "nr_dirty_threshold %llu kB): writers sleep in balance_dirty_pages()",
		 c->m->workload->wb_state == WB_BLOCKED ? "at its hard limit" : "full",
		 (unsigned long long)(w->nr_dirty * kb), (unsigned long long)(w->nr_writeback * kb),
		 (unsigned long long)(dirty * kb),
		 (unsigned long long)((w->nr_dirty_threshold + w->nr_dirty_bg_threshold) / 2 * kb),
		 (unsigned long long)(w->nr_dirty_bg_threshold * kb),
		 (unsigned long long)(w->nr_dirty_threshold * kb));
	for (int i = 0; i < WB__COUNT; i++) {
		if (!w->has_sysctl[i])
			continue;
		str_cat(f->detail, sizeof(f->detail), "%svm.%s=%llu",
			any ? ", " : "settings: ", writeback_sysctl_name((enum wb_sysctl)i),
			(unsigned long long)w->sysctl[i]);
		any = true;
	}
	str_cat(f->detail, sizeof(f->detail), "%s",
		any ? ". " : "settings: vm.dirty_* not readable. ");
	str_cat(f->detail, sizeof(f->detail),
		"A write stall now is the page cache making writers wait for writeback, not only a "
		"slow disk: the disks' await shows what writeback costs. No suggestion: vm.dirty_* "
		"is workload-specific. Seed 002's database profile (vm.dirty_background_ratio=5, "
		"vm.dirty_ratio=10, vm.dirty_writeback_centisecs=50, "
		"vm.dirty_expire_centisecs=100) starts writeback sooner and keeps each stall "
		"short; larger ratios absorb bursts but stall longer when full.");
	return 0;
}
