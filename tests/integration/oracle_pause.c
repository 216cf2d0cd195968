// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for sysstat_roots.py: makes Debian's iostat and mpstat take
 * their two samples from two recorded trees. Their wait between samples is
 * alarm() then pause(); here alarm() does nothing and pause() runs
 * $IOTR_ORACLE_SWITCH (which rewrites the bind-mounted /proc files with the
 * AFTER tree) and returns at once, so the second read sees AFTER.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

unsigned int alarm(unsigned int seconds)
{
	(void)seconds;
	return 0;
}

int pause(void)
{
	const char *cmd = getenv("IOTR_ORACLE_SWITCH");

	if (cmd && system(cmd) != 0)
		abort(); /* a half-switched tree must not be measured */
	errno = EINTR;
	return -1;
}
