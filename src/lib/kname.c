// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which device and interface names may become part of a path (kname.h).
 * Pure: no allocation, no I/O.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kname.h"
#include "text.h"

/* A disk name's parts, split at '/' (/proc/diskstats) or '!' (sysfs): none
 * empty, "." or ".."; bytes printable ASCII but for ':' (not a kernel
 * disk name's, and the separator of major:minor). */
static bool disk_valid(const char *s, size_t n)
{
	size_t part = 0;

	if (n == 0 || n > KNAME_DISK_MAX)
		return false;
	for (size_t i = 0; i <= n; i++) {
		unsigned char ch = i < n ? (unsigned char)s[i] : '/';

		if (ch == '/' || ch == '!') {
			const char *p = s + i - part;

			if (part == 0 || (part == 1 && p[0] == '.') ||
			    (part == 2 && p[0] == '.' && p[1] == '.'))
				return false;
			part = 0;
			continue;
		}
		if (ch <= ' ' || ch >= 0x7f || ch == ':')
			return false;
		part++;
	}
	return true;
}

static bool iface_valid(const char *s, size_t n)
{
	if (n == 0 || n > KNAME_IFACE_MAX || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (size_t i = 0; i < n;) {
		unsigned char ch = (unsigned char)s[i];
		uint32_t cp;
		size_t k;

		if (ch < 0x80) {
			if (ch <= ' ' || ch == 0x7f || ch == '/' || ch == ':')
				return false;
			i++;
			continue;
		}
		/* well-formed UTF-8, no C1 control (a terminal's ESC [) */
		k = text_utf8_seq(s + i, n - i, &cp);
		if (k == 0 || cp < 0xa0)
			return false;
		i += k;
	}
	return true;
}

bool kname_valid(enum kname_kind kind, const char *name, size_t n)
{
	if (memchr(name, '\0', n))
		return false;
	switch (kind) {
	case KNAME_DISK:
		return disk_valid(name, n);
	case KNAME_IFACE:
		return iface_valid(name, n);
	}
	return false;
}

bool kname_ok(enum kname_kind kind, const char *name)
{
	return kname_valid(kind, name, strnlen(name, KNAME_DISK_MAX + 64));
}

int kname_sysfs(enum kname_kind kind, const char *name, char *buf, size_t size)
{
	size_t n = strnlen(name, KNAME_DISK_MAX + 64);

	if (!kname_valid(kind, name, n))
		return -EINVAL;
	if (n + 1 > size)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		buf[i] = name[i] == '/' ? '!' : name[i];
	buf[n] = '\0';
	return 0;
}

bool kname_virtual_disk(const char *name)
{
	return strncmp(name, "loop", 4) == 0 || strncmp(name, "zram", 4) == 0 ||
	       strncmp(name, "ram", 3) == 0;
}
