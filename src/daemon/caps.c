// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iotriaged opens what needs privilege while it starts (the socket and its
 * group, the MSR devices, perf events, the taskstats socket) and keeps
 * afterwards only what a running daemon still uses. Raw capget/capset: the
 * two 32-bit words of _LINUX_CAPABILITY_VERSION_3, no library needed.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/* What the running daemon still uses, and why. */
static const struct {
	int cap;
	const char *name;
} kept[] = {
	/* the msr driver checks it on open: a CPU that comes online later */
	{ CAP_SYS_RAWIO, "cap_sys_rawio" },
	/* TASKSTATS_CMD_GET for per-process IO; RPS and ethtool -L in apply */
	{ CAP_NET_ADMIN, "cap_net_admin" },
	/* /proc/PID/io of other users' processes: the kernel's ptrace check on
	 * read, and the file is 0400 owned by that user: the open needs one of
	 * the DAC capabilities, this one reads and never writes. Kept where the
	 * daemon has them (a plain root start); the packaged unit bounds them
	 * away and those bytes come from taskstats instead (doc/security.md) */
	{ CAP_SYS_PTRACE, "cap_sys_ptrace" },
	{ CAP_DAC_READ_SEARCH, "cap_dac_read_search" },
	/* apply and worker.start act for a root peer on files root may not own */
	{ CAP_DAC_OVERRIDE, "cap_dac_override" },
	/* io_uring's registered buffers of a worker, beyond RLIMIT_MEMLOCK */
	{ CAP_IPC_LOCK, "cap_ipc_lock" },
	/* perf msr/power events of a CPU that comes online later */
	{ CAP_PERFMON, "cap_perfmon" },
};

static bool is_kept(int cap)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i].cap == cap)
			return true;
	return false;
}

int caps_drop(char *ret_kept, size_t size)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	uint64_t perm, keep = 0;
	size_t off = 0;

	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	perm = (uint64_t)data[1].permitted << 32 | data[0].permitted;
	for (int c = 0; c < 64; c++)
		if (is_kept(c) && (perm & (UINT64_C(1) << c)))
			keep |= UINT64_C(1) << c;
	/* the bounding set first: dropping from it needs CAP_SETPCAP, which
	 * the capset below takes away; a kernel without cap c says EINVAL */
	if (perm & (UINT64_C(1) << CAP_SETPCAP))
		for (int c = 0; c < 64; c++)
			if (!(keep & (UINT64_C(1) << c)) &&
			    prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0) == 1 &&
			    prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) < 0)
				return -errno;
	/* ambient capabilities would survive an exec; there is none to make */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = (uint32_t)keep;
	data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (size)
		ret_kept[0] = '\0';
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		int n;

		if (!(keep & (UINT64_C(1) << kept[i].cap)))
			continue;
		n = snprintf(ret_kept + off, size - off, "%s%s", off ? "," : "", kept[i].name);
		if (n < 0 || (size_t)n >= size - off)
			break;
		off += (size_t)n;
	}
	if (!off && size)
		snprintf(ret_kept, size, "none");
	return 0;
}
