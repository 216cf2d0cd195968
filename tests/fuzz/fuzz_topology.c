// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness: topology's text parsers on arbitrary bytes — cpulists,
 * cpumasks (with a format round trip), irqbalance configuration, the debugfs
 * IRQ state, queue/scheduler, and a sysfs link target. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct topo_irqbalance ib = { 0 };
	struct cpuset a, b;
	char out[8192], *z;

	if (cpuset_parse_list(buf, size, &a) == 0 &&
	    cpuset_format_list(&a, out, sizeof(out)) >= 0) {
		/* what we print must parse back to the same set */
		if (cpuset_parse_list(out, strlen(out), &b) != 0 || !cpuset_equal(&a, &b))
			abort();
	}
	if (cpuset_parse_mask(buf, size, &a) == 0 &&
	    cpuset_format_mask(&a, out, sizeof(out)) >= 0) {
		if (cpuset_parse_mask(out, strlen(out), &b) != 0 || !cpuset_equal(&a, &b))
			abort();
	}
	topology_parse_irqbalance(buf, size, &ib);
	if (ib.nbanned_irqs > sizeof(ib.banned_irqs) / sizeof(ib.banned_irqs[0]))
		abort();
	topology_parse_debugfs_managed(buf, size);
	/* a boot line's isolcpus=/nohz_full=: what it found must print and
	 * parse back as the same set */
	if (topology_parse_cmdline_cpus(buf, size, "isolcpus", &a) == 1 &&
	    cpuset_format_list(&a, out, sizeof(out)) >= 0 && out[0]) {
		if (cpuset_parse_list(out, strlen(out), &b) != 0 || !cpuset_equal(&a, &b))
			abort();
	}
	topology_parse_cmdline_cpus(buf, size, "nohz_full", &a);
	/* the string helpers take NUL-terminated text, as read_small gives */
	z = malloc(size + 1);
	if (!z)
		return 0;
	memcpy(z, data, size);
	z[size] = '\0';
	topology_parse_scheduler(z, out, 32);
	topology_pci_from_link(z, out, 16);
	free(z);
	return 0;
}
