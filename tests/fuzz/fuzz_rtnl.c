// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: an rtnetlink link dump (netlink bytes) decoded by rtnl_links_parse(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rtnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct nic_table t = { 0 };
	const char *what;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rtnl_links_parse(buf, size, &t, &what);
	nic_table_free(&t);
	free(buf);
	return 0;
}
