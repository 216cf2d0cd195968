/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fio's command-line option names and value syntax -> struct job_spec.
 * Pure: no I/O, so it is unit-tested and fuzzed on argv arrays. Options fio
 * has but iotriage does not implement are refused by name, never ignored.
 */
#ifndef IOTRIAGE_WORKERS_FIOOPTS_H
#define IOTRIAGE_WORKERS_FIOOPTS_H

#include <stdint.h>

#include "job.h"

struct fioopts_error {
	char option[64];   /* "--log_avg_msec" (names longer than 60 are cut) */
	char message[256]; /* "is a fio option iotriage bench does not implement" */
};

/* fio's defaults: psync, read, 4k, iodepth 1, one job, buffered, normal output. */
void fioopts_defaults(struct job_spec *s);

/*
 * Parses argv[first..argc) (fio style: --opt=value, --opt value, -opt=value;
 * flags like --time_based take no value or =0/=1). Returns 0 with *ret_spec
 * filled, 1 when --help was asked, or -EINVAL with *err saying which option
 * and why. Checks the combination too (filename given, rwmixread range,
 * psync and a sweep, io_uring-only options with another engine).
 */
int fioopts_parse(int argc, const char *const *argv, int first, struct job_spec *ret_spec,
		  struct fioopts_error *err);

/* fio's integer-with-suffix (kb_base=1024: k = 1024, ki = 1000). 0 or -EINVAL/-ERANGE. */
int fioopts_parse_size(const char *s, uint64_t *ret_bytes);
/* fio's time value: default unit seconds; us/usec, ms/msec, s/sec, m, h, d. */
int fioopts_parse_time(const char *s, uint64_t *ret_ns);

#endif
