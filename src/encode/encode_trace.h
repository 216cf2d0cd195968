/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing stage's section of the JSON document (doc/json.md, "trace").
 */
#ifndef IOTRIAGE_ENCODE_TRACE_H
#define IOTRIAGE_ENCODE_TRACE_H

#include "metrics_trace.h"
#include "strbuf.h"

/*
 * Appends `"trace":{...},`: with why (tracing unavailable) only
 * {"available":false,"reason":why}; else the probes' states from raw and,
 * when m is not NULL (two reads), the interval's time and latency rows.
 */
void encode_trace(struct strbuf *sb, const char *why, const struct trace_raw *raw,
		  const struct trace_metrics *m);

#endif
