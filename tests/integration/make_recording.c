// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * make_recording DIR PAYLOAD...: writes a flight recording into DIR (made
 * 0700) with one frame a PAYLOAD file (or, with the one PAYLOAD "-", read
 * from stdin: a u32 count, then each payload as a u32 length and its
 * bytes, little-endian), one second apart, the last two seconds ago, through
 * the recorder's own writer (lib/recwriter.c), zstd level 1 as iotriaged's. For
 * tests that replay what a hostile recording decodes to: a payload is the
 * records doc/recording.md describes, built byte for byte by the test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "rec_file.h"
#include "rec_payload.h"
#include "root.h"
#include "strbuf.h"
#include "topology.h"

static char *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len == cap) {
			char *nb = realloc(buf, cap ? cap * 2 : 1 << 20);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 1 << 20;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	*ret_len = len;
	return buf;
}

/* stdin's next u32 (little-endian); false at EOF */
static bool read_u32(uint32_t *ret)
{
	unsigned char b[4];

	if (fread(b, 1, 4, stdin) != 4)
		return false;
	*ret = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return true;
}

/* The next payload from stdin (malloc'd), NULL at the end or on error. */
static char *read_frame(size_t *ret_len)
{
	uint32_t len;
	char *p;

	if (!read_u32(&len))
		return NULL;
	p = malloc(len ? len : 1);
	if (p && fread(p, 1, len, stdin) != len) {
		free(p);
		return NULL;
	}
	*ret_len = len;
	return p;
}

int main(int argc, char **argv)
{
	uint32_t nframes = 0;
	bool streamed;
	struct recwriter_opts o = { 0 };
	struct recwriter *w;
	int64_t real_ns;
	int dfd, r;

	struct strbuf topo = { 0 };

	/* -t ROOT: the advisor's topology read under ROOT recorded with every
	 * sample, as iotriaged records it (a frame without one had no advice) */
	if (argc > 3 && strcmp(argv[1], "-t") == 0) {
		struct topology t = { 0 };
		struct root rt;

		if (root_open(argv[2], &rt) < 0 || topology_collect(&rt, &t) < 0 ||
		    rec_payload_pack_topology(&t, &topo) < 0) {
			fprintf(stderr, "make_recording: the topology of %s\n", argv[2]);
			return 1;
		}
		topology_free(&t);
		root_close(&rt);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: make_recording [-t ROOT] DIR PAYLOAD...\n");
		return 2;
	}
	if (mkdir(argv[1], 0700) < 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		perror(argv[1]);
		return 1;
	}
	streamed = argc == 3 && strcmp(argv[2], "-") == 0;
	if (streamed && !read_u32(&nframes)) {
		fprintf(stderr, "make_recording: stdin: no frame count\n");
		return 1;
	}
	if (!streamed)
		nframes = (uint32_t)argc - 2;
	real_ns = clock_ns(CLOCK_REALTIME) - ((int64_t)nframes + 2) * 1000000000;
	o.dirfd = dfd;
	o.interval_ms = 1000;
	o.host = "made";
	o.mode = "daemon";
	o.boot_id = "00000000-0000-0000-0000-000000000000";
	o.run_id = 1;
	r = recwriter_open(&o, &w);
	if (r < 0) {
		fprintf(stderr, "make_recording: open: %s\n", strerror(-r));
		return 1;
	}
	for (uint32_t k = 0; k < nframes; k++) {
		const char *name = streamed ? "stdin" : argv[k + 2];
		size_t len = 0;
		char *p = streamed ? read_frame(&len) : slurp(name, &len);

		if (!p) {
			perror(name);
			return 1;
		}
		if (topo.len) {
			char *np = realloc(p, len + topo.len);

			if (!np) {
				free(p);
				return 1;
			}
			p = np;
			memcpy(p + len, topo.buf, topo.len);
			len += topo.len;
		}
		r = recwriter_append(w, (uint64_t)k + 1, ((int64_t)k + 1) * 1000000000,
				     real_ns + ((int64_t)k + 1) * 1000000000, p, len);
		free(p);
		if (r != 1) {
			fprintf(stderr, "make_recording: %s: %s\n", name,
				r < 0 ? strerror(-r) : "not written");
			return 1;
		}
	}
	recwriter_close(w);
	close(dfd);
	sb_free(&topo);
	return 0;
}
