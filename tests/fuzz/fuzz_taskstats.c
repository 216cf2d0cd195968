// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: taskstats netlink bytes decoded as an answer
 * (taskstats_parse) and as an exit notice (taskstats_exit_parse). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	free(buf);
	return 0;
}
