// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness for the TUI's sample decoder (tui/model/model.c): any bytes as
 * the document a daemon pushed, applied to the view and the history alike. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m;
	int r;

	r = model_apply_text(&m, (const char *)data, size, MODEL_VIEW | MODEL_HISTORY);
	if (r < 0 && r != -EBADMSG && r != -ENOMEM)
		abort();
	/* what the views rely on */
	if (m.hist.n > MODEL_HIST_MAX || (m.ncpus && !m.cpus) || (m.ndisks && !m.disks))
		abort();
	for (size_t i = 0; i < m.nirqs; i++)
		if (m.irqs[i].ncpus && !m.irqs[i].cpus)
			abort();
	/* keep memory bounded across runs: start over now and then */
	if (m.hist.nseries >= MODEL_SERIES_MAX)
		model_free(&m);
	return 0;
}
