// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One run merged, the precondition pass and the queue-depth sweep: the
 * sequences of job_run() that `iotriage bench` and iotriaged's worker share.
 */
#include <errno.h>
#include <stdio.h>

#include "runs.h"

int job_run_merged(const struct job_spec *spec, const struct job_target *t, struct job_control *ctl,
		   struct job_result *ret)
{
	struct job_result *rs;
	int r;

	r = job_run(spec, t, ctl, &rs);
	if (r < 0)
		return r;
	r = job_results_merge(rs, spec->numjobs, ret);
	job_results_free(rs, spec->numjobs);
	return r;
}

int job_precondition(const struct job_spec *spec, const struct job_target *t,
		     struct job_control *ctl, struct job_result *ret)
{
	struct job_spec p = *spec;
	struct job_target pt = *t;
	const uint64_t mib = 1 << 20;

	p.rw = RW_WRITE;
	p.bs = pt.region_len >= mib ? mib : spec->bs;
	pt.region_len -= pt.region_len % p.bs;
	p.iodepth = spec->engine == ENGINE_PSYNC ? 1 : 32;
	p.numjobs = 1;
	p.runtime_ns = p.ramp_ns = 0;
	p.time_based = false;
	p.rate_iops = 0;
	p.fsync_every = 0;
	snprintf(p.name, sizeof(p.name), "precondition");
	return job_run_merged(&p, &pt, ctl, ret);
}

int job_sweep(const struct job_spec *spec, const struct job_target *t, struct job_control *ctl,
	      struct job_result *points, unsigned *ret_n, job_sweep_point_fn on_point, void *arg)
{
	unsigned n = 0;
	int r = 0;

	for (; n < spec->nsweep && !atomic_load(&ctl->stop); n++) {
		struct job_spec s = *spec;

		s.iodepth = spec->sweep[n];
		if (on_point)
			on_point(arg, n, s.iodepth);
		r = job_run_merged(&s, t, ctl, &points[n]);
		if (r < 0)
			break;
		if (points[n].error) {
			n++;
			break;
		}
	}
	*ret_n = n;
	return r;
}
