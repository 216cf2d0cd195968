// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the bench's fio option parser (src/workers/fioopts.c)
 * on an argv built from the input, one argument per line (as a pasted fio
 * command line split by the shell), plus its size and time value parsers
 * on each argument. The daemon's worker.start feeds it client strings.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fioopts.h"

#define FUZZ_MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[FUZZ_MAX_ARGS];
	struct fioopts_error err;
	struct job_spec spec;
	uint64_t v;
	char *copy;
	int argc = 0;

	/* a private NUL-terminated copy: argv strings are C strings */
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *p = copy; argc < FUZZ_MAX_ARGS;) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	fioopts_parse(argc, argv, 0, &spec, &err);
	fioopts_parse(argc, argv, argc > 1 ? 1 : 0, &spec, &err);
	for (int i = 0; i < argc; i++) {
		fioopts_parse_size(argv[i], &v);
		fioopts_parse_time(argv[i], &v);
	}
	free(copy);
	return 0;
}
