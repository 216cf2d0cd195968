// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the undo journal parser. Whatever it accepts must only
 * name writable paths of the allowed set, with values apply could write:
 * no ".." or "." step, no empty one, no leading '/', and a file of the
 * writable set (never sys/block/X/device/delete or a driver's unbind). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The file names apply writes: an accepted path ends in one of them. */
static bool allowed_tail(const char *p)
{
	static const char *const tails[] = {
		"/smp_affinity_list",	  "/rps_cpus",	      "/rps_flow_cnt",
		"/rps_sock_flow_entries", "/queue/scheduler", "/nr_requests",
		"/read_ahead_kb",	  "/iostats",	      "/channels/combined",
	};
	size_t len = strlen(p);

	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		size_t n = strlen(tails[i]);

		if (len > n && strcmp(p + len - n, tails[i]) == 0)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apply_journal *j = malloc(sizeof(*j));

	if (!j)
		return 0;
	if (apply_journal_parse((const char *)data, size, j) == 0) {
		if (j->n == 0 || j->n > APPLY_MAX_WRITES || !j->id[0])
			abort();
		for (size_t i = 0; i < j->n; i++) {
			const char *p = j->writes[i].path;

			if (!apply_path_allowed(p) || strchr(j->writes[i].value, '\n') ||
			    strchr(j->writes[i].undo, '\t'))
				abort();
			if (p[0] == '/' || strstr(p, "/../") || strstr(p, "/./") ||
			    strstr(p, "//") || strncmp(p, "../", 3) == 0 || p[strlen(p) - 1] == '/')
				abort();
			if (!allowed_tail(p))
				abort();
		}
	}
	free(j);
	return 0;
}
