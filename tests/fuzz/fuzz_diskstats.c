// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: the diskstats parser on arbitrary bytes (no NUL
 * terminator), then every row looked up through the parser's index: the
 * first row with its major:minor must come back, as a linear search finds. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "diskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_error pe;
	struct disk_table t = { 0 };

	if (diskstats_parse((const char *)data, size, &t, &pe) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			const struct disk_raw *d =
			    disk_table_find(&t, t.rows[i].major, t.rows[i].minor, NULL);
			size_t first = 0;

			while (t.rows[first].major != t.rows[i].major ||
			       t.rows[first].minor != t.rows[i].minor)
				first++;
			if (d != &t.rows[first])
				abort();
		}
	}
	disk_table_free(&t);
	return 0;
}
