// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: taskstats netlink bytes decoded as an answer
 * (taskstats_parse) and as an exit notice (taskstats_exit_parse); the same
 * bytes as /proc/PID/stat, cmdline, cgroup, status and /etc/passwd text
 * (taskstats_stat_parse, procwho.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procwho.h"
#include "taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the collector's buffers are malloc'd: give the parser the same alignment */
	unsigned char *buf = malloc(size ? size : 1);
	struct taskstats_answer a;
	struct taskstats_exit_msg m;
	const char *what;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	taskstats_parse(buf, size, &a, &what);
	taskstats_exit_parse(buf, size, &m, &what);
	{
		struct proc_raw p = { 0 };
		char out[PROC_CMDLINE_MAX], unit[PROC_UNIT_MAX], user[PROC_USER_MAX];
		uint32_t uid = 0;

		taskstats_stat_parse((const char *)buf, size, &p);
		taskstats_schedstat_parse((const char *)buf, size, &p);
		procwho_cmdline((const char *)buf, size, out, sizeof(out));
		procwho_cgroup_unit((const char *)buf, size, unit, sizeof(unit));
		procwho_status_uid((const char *)buf, size, &uid);
		procwho_passwd_name((const char *)buf, size, 0, user, sizeof(user));
	}
	free(buf);
	return 0;
}
