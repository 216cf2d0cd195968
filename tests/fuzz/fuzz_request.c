// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer harness for iotriaged's request reader: any bytes as one line. */
#include <stdint.h>
#include <stdlib.h>

#include "daemon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct json_tokener *tok;
	enum iot_proto_error code;
	struct request rq;
	char msg[256];
	int64_t v;

	if (size > IOT_PROTO_MAX_LINE)
		return 0;
	if (!tok)
		tok = json_tokener_new_ex(32);
	if (!tok)
		abort();
	if (request_parse(tok, (const char *)data, size, &rq, &code, msg, sizeof(msg)) == 0) {
		request_get_int(&rq, "since", 0, INT64_MAX, &v);
		request_get_int(&rq, "every", 1, 1000000, &v);
		if (!rq.cmd)
			abort();
	} else if ((unsigned)code >= IOT_ERR__COUNT) {
		abort();
	}
	request_free(&rq);
	return 0;
}
