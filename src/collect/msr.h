/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * msr: read model-specific registers through /dev/cpu/N/msr under --root.
 * Owns the one difference between the live host and a recorded tree: the
 * character device is read at offset = address, a regular (sparse) fixture
 * file at 8 x address. Reads only; never writes a register, never prints.
 */
#ifndef IOTRIAGE_MSR_H
#define IOTRIAGE_MSR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "root.h"

/* Architectural and model-specific addresses turbostat reads (Intel SDM vol. 4, AMD PPR). */
enum {
	MSR_IA32_TSC = 0x10,
	MSR_SMI_COUNT = 0x34,
	MSR_PLATFORM_INFO = 0xce,
	MSR_IA32_MPERF = 0xe7,
	MSR_IA32_APERF = 0xe8,
	MSR_IA32_THERM_STATUS = 0x19c,
	MSR_IA32_TEMPERATURE_TARGET = 0x1a2,
	MSR_IA32_PACKAGE_THERM_STATUS = 0x1b1,
	MSR_PKG_C3_RESIDENCY = 0x3f8,
	MSR_PKG_C6_RESIDENCY = 0x3f9,
	MSR_PKG_C7_RESIDENCY = 0x3fa,
	MSR_CORE_C3_RESIDENCY = 0x3fc,
	MSR_CORE_C6_RESIDENCY = 0x3fd,
	MSR_CORE_C7_RESIDENCY = 0x3fe,
	MSR_PKG_C2_RESIDENCY = 0x60d,
	MSR_RAPL_POWER_UNIT = 0x606,
	MSR_PKG_ENERGY_STATUS = 0x611,
	MSR_PKG_PERF_STATUS = 0x613,
	MSR_PKG_POWER_INFO = 0x614,
	MSR_DRAM_ENERGY_STATUS = 0x619,
	MSR_DRAM_PERF_STATUS = 0x61b,
	MSR_PP0_ENERGY_STATUS = 0x639,
	MSR_AMD_RAPL_POWER_UNIT = 0xc0010299,
	MSR_AMD_CORE_ENERGY_STATUS = 0xc001029a,
	MSR_AMD_PKG_ENERGY_STATUS = 0xc001029b,
};

/* One CPU's register file, opened once and kept (the daemon opens it while
 * privileged). is_file: a recorded tree's sparse file, not the device. */
struct msr_dev {
	int fd;
	int cpu;
	bool is_file;
};

/*
 * Opens dev/cpu/<cpu>/msr under r. Returns 0, or -errno: -ENOENT (no msr
 * module, or a VM without it), -EACCES/-EPERM (needs CAP_SYS_RAWIO),
 * -EINVAL (on the host not the msr driver's character device, in a
 * recorded tree not a regular file: a FIFO there would block forever).
 */
int msr_open(const struct root *r, int cpu, struct msr_dev *ret_dev);

/*
 * Reads the 64-bit register addr. Returns 0, or -EIO (the CPU does not
 * implement it: the kernel's rdmsr faulted), -ENODATA (a recorded file ends
 * before the register: truncated), other -errno from pread.
 */
int msr_read(const struct msr_dev *d, uint32_t addr, uint64_t *ret_val);

/* Byte offset of addr in d's file: the only place the two forms differ. */
static inline uint64_t msr_offset(bool is_file, uint32_t addr)
{
	return is_file ? (uint64_t)addr * 8 : addr;
}

void msr_close(struct msr_dev *d);

/*
 * A batch of register reads done with one io_uring submission instead of one
 * pread each: a syscall costs more than the read itself, and a sample reads
 * several registers on every CPU. Without io_uring (disabled, old kernel)
 * the batch falls back to pread one by one. Each op gets val or err exactly
 * as msr_read() would give them.
 */
struct msr_op {
	const struct msr_dev *d;
	uint32_t addr;
	int err; /* 0, or -errno as msr_read() */
	uint64_t val;
	uint64_t buf; /* where the kernel writes the 8 bytes */
};

struct msr_batch {
	void *ring; /* struct io_uring, NULL: pread fallback */
	unsigned ring_entries;
	int ring_err; /* why there is no ring (for the benchmark's report) */
	struct msr_op *ops;
	size_t n, cap;
};

/* Sets up an empty batch; tries io_uring. 0 or -ENOMEM. */
int msr_batch_init(struct msr_batch *b);
/* Queues a read of addr on d. Returns the op's index or -ENOMEM. Op pointers
 * move when the batch grows: use the index. */
int msr_batch_add(struct msr_batch *b, const struct msr_dev *d, uint32_t addr);
/* Reads every queued op. 0, or -errno when io_uring itself failed (ops are
 * then read by pread, so their results are valid either way). */
int msr_batch_run(struct msr_batch *b);
/* Forgets the ops, keeps the storage and the ring. */
static inline void msr_batch_reset(struct msr_batch *b)
{
	b->n = 0;
}
void msr_batch_free(struct msr_batch *b);

/* Human reason for an msr_open/msr_read error, for "unavailable: ..." lines
 * ("needs root (CAP_SYS_RAWIO)"); never NULL. */
const char *msr_strerror(int err);

#endif
