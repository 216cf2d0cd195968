// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A source's status set in one place (src_status.h): the error and the
 * reason, for every collector. Knows no source.
 */
#include <stdarg.h>
#include <stdio.h>

#include "src_status.h"

void src_status_set(struct src_status *st, int err, const char *fmt, ...)
{
	va_list ap;

	st->err = err;
	st->reason[0] = '\0';
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(st->reason, sizeof(st->reason), fmt, ap);
	va_end(ap);
}
