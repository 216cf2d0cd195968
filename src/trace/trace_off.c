// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing stage of a build without it (meson -Dtrace=disabled, or no
 * clang/bpftool/libbpf/BTF on the build host): --trace says so, once.
 */
#include <errno.h>
#include <stdio.h>

#include "trace.h"

int trace_open(const struct trace_opts *o, struct trace **ret_t, char *why, size_t why_size)
{
	snprintf(why, why_size, "built without BPF tracing (meson -Dtrace)");
	return -EOPNOTSUPP;
}

void trace_close(struct trace *t)
{
}

int trace_read(struct trace *t, struct trace_raw *r)
{
	return -EOPNOTSUPP;
}
