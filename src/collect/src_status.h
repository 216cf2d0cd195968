/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A source's status (struct src_status, iotriage/types.h) set in one
 * place: its error and the reason a person reads.
 */
#ifndef IOTRIAGE_SRC_STATUS_H
#define IOTRIAGE_SRC_STATUS_H

#include "iotriage/types.h"

/* st->err = err (0 or -errno) and st->reason printf's output, cut to fit;
 * fmt NULL: no reason. A reason with err 0 is a note on a working source. */
void src_status_set(struct src_status *st, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
