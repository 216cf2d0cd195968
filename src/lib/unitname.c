// SPDX-License-Identifier: GPL-2.0-or-later
/* The one rule of unitname.h. */
#include <string.h>

#include "unitname.h"

bool unit_system_service(const char *path, size_t len, const char **ret_name, size_t *ret_len)
{
	static const char slice[] = "system.slice/";
	size_t n = sizeof(slice) - 1;

	if (len && path[0] == '/') {
		path++;
		len--;
	}
	if (len <= n || memcmp(path, slice, n) != 0 || memchr(path + n, '/', len - n))
		return false;
	*ret_name = path + n;
	*ret_len = len - n;
	return true;
}
