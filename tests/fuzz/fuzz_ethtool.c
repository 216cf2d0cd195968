// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: ethtool channels and coalesce answers (netlink bytes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ethtool_nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf = malloc(size ? size : 1);
	struct nic_channels ch;
	struct nic_coalesce co;
	const char *what;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	ethtool_nl_channels_parse(buf, size, &ch, &what);
	ethtool_nl_coalesce_parse(buf, size, &co, &what);
	free(buf);
	return 0;
}
