/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The JSON form of an advice: the "findings" and "suggestions" arrays of
 * doc/json.md, written into a sample's document by encode.c or alone by
 * `iotriage suggest --json`.
 */
#ifndef IOTRIAGE_ENCODE_ADVICE_H
#define IOTRIAGE_ENCODE_ADVICE_H

#include "advise.h"
#include "strbuf.h"

/* Appends "findings":[...],"suggestions":[...], (with the trailing comma the
 * encoder's object writer expects). */
void encode_advice(struct strbuf *sb, const struct advice *a);

#endif
