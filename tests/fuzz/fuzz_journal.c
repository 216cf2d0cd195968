// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the undo journal parser. Whatever it accepts must only
 * name writable paths of the allowed set, with values apply could write. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apply_journal *j = malloc(sizeof(*j));

	if (!j)
		return 0;
	if (apply_journal_parse((const char *)data, size, j) == 0) {
		if (j->n == 0 || j->n > APPLY_MAX_WRITES || !j->id[0])
			abort();
		for (size_t i = 0; i < j->n; i++)
			if (!apply_path_allowed(j->writes[i].path) ||
			    strchr(j->writes[i].value, '\n') || strchr(j->writes[i].undo, '\t'))
				abort();
	}
	free(j);
	return 0;
}
