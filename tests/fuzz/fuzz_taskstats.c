// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: taskstats netlink bytes decoded as an answer
 * (taskstats_parse) and as an exit notice (taskstats_exit_parse); the same
 * bytes as /proc/PID/stat, cmdline, cgroup, status and /etc/passwd text
 * (taskstats_stat_parse, procwho.h), and what a title or a performance_schema
 * NAME says of a role (dbrole.h, dbroles_name_role). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dbrole.h"
#include "dbroles.h"
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
		{
			char role[PROC_ROLE_MAX], state[PROC_STATE_MAX], name[256];
			struct proc_role r;
			size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;

			dbrole_pg_title(out, role, sizeof(role), state, sizeof(state));
			dbrole_of("postgres", true, out, user, unit, &r);
			memcpy(name, buf, n);
			name[n] = '\0';
			dbrole_mysql_thread(name, role, sizeof(role));
			dbroles_name_role(name, role, sizeof(role));
		}
	}
	free(buf);
	return 0;
}
