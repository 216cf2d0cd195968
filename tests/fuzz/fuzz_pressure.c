// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the text parsers of the issue-8 sources on arbitrary
 * bytes (no NUL terminator): /proc/pressure/{io,cpu,irq}, /proc/vmstat's dirty
 * counters, /proc/PID/io.
 */
#include <stddef.h>
#include <stdint.h>

#include "pressure.h"
#include "taskstats.h"
#include "writeback.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct writeback_raw w = { 0 };
	struct proc_raw p = { 0 };
	struct psi_raw r;

	pressure_parse((const char *)data, size, &r);
	writeback_vmstat_parse((const char *)data, size, &w);
	taskstats_procio_parse((const char *)data, size, &p);
	return 0;
}
