// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: what a flight recording's frame holds, after its CRC
 * (a recording is hostile input: anyone who could write it could make the
 * CRC match). The first byte chooses: odd, the next two bytes are the
 * length of a previous payload, followed by it and a difference for
 * rec_diff_decode; else with bit 1 set, the bytes are a payload replayed
 * through the sampler (every section's record, the topology's, the
 * metrics, advice and document of two samples); else a payload for
 * snapshot_collector_unpack (the records and the /proc texts in them).
 */
#include <stddef.h>
#include <stdint.h>

#include "rec_diff.h"
#include "sampler.h"
#include "snapshot.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct snapshot_collector c;
	static int opened;
	struct snapshot s = { 0 };
	struct strbuf out = { 0 };
	size_t n;

	if (size < 3)
		return 0;
	if ((data[0] & 3) == 2) {
		/* no file is read either: advice on the recorded topology only */
		struct sampler_opts so = { .skip = COLLECT_SKIP_TURBO | COLLECT_SKIP_EXT,
					   .advise = true,
					   .topo_given = true };
		struct sampler *sm;

		if (sampler_open(&so, &sm) < 0)
			return 0;
		/* twice: the second has metrics, advice and every section */
		for (int i = 0; i < 2; i++)
			sampler_tick_recorded(sm, (uint64_t)i + 1, i * 1000000000LL,
					      i * 1000000000LL, data + 1, size - 1);
		sampler_close(sm);
		return 0;
	}
	if (!(data[0] & 1)) {
		/* no file is read: the collector only lends its buffers */
		if (!opened && snapshot_collector_open("/", &c) == 0)
			opened = 1;
		if (opened)
			snapshot_collector_unpack(&c, data + 1, size - 1, &s);
		snapshot_free(&s);
		return 0;
	}
	n = (size_t)data[1] | (size_t)data[2] << 8;
	if (n > size - 3)
		n = size - 3;
	rec_diff_decode((const char *)data + 3, n, (const char *)data + 3 + n, size - 3 - n,
			1 << 20, &out);
	sb_free(&out);
	return 0;
}
