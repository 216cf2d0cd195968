/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The runs a bench is made of, shared by `iotriage bench` and iotriaged's
 * worker: one run merged into one result, seed 001's precondition pass, and
 * the queue-depth sweep of seed 000 (one merged run per depth).
 */
#ifndef IOTRIAGE_WORKERS_RUNS_H
#define IOTRIAGE_WORKERS_RUNS_H

#include "job.h"

/* Runs spec and merges its threads into one result. 0 or -errno. */
int job_run_merged(const struct job_spec *spec, const struct job_target *t, struct job_control *ctl,
		   struct job_result *ret);

/* One sequential 1 MiB write pass over the target's region (seed 001
 * §2.5), before measuring. 0 or -errno; a thread's IO error is in *ret. */
int job_precondition(const struct job_spec *spec, const struct job_target *t,
		     struct job_control *ctl, struct job_result *ret);

/* Called before sweep point k (0-based) runs at iodepth. */
typedef void (*job_sweep_point_fn)(void *arg, unsigned k, unsigned iodepth);

/*
 * One merged run per depth of spec->sweep into points[0 .. nsweep), until
 * the list ends, ctl->stop is set, or a run fails: *ret_n is the number of
 * points run (the last one may carry a thread's error). Returns 0, or
 * -errno when a run could not start (points before it are kept). The caller
 * frees the *ret_n points.
 */
int job_sweep(const struct job_spec *spec, const struct job_target *t, struct job_control *ctl,
	      struct job_result *points, unsigned *ret_n, job_sweep_point_fn on_point, void *arg);

#endif
