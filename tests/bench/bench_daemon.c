// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_daemon SOCKET SUBSCRIBERS SECONDS: connects SUBSCRIBERS clients to a
 * running iotriaged, subscribes each to every sample, and for SECONDS
 * measures sample-to-subscriber latency: the wall clock when a sample's line
 * is complete at the client minus the sample's "timestamp_ms" (taken by the
 * daemon when it started collecting). timestamp_ms is truncated to the
 * millisecond, so each latency is an upper bound, at most 1 ms high.
 * Also the fan-out: how long after the first subscriber got a sample the
 * others got it (the daemon's delivery, without collection).
 * Prints one line: samples received, p50, p99, max latency in ms, and the
 * fan-out's p50, p99.
 * tests/bench/bench_daemon.sh drives it; doc/PERFORMANCE.md has the numbers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

struct sub {
	int fd;
	char *buf;
	size_t len, cap;
	unsigned long samples;
};

static double now_ms(clockid_t id)
{
	return (double)clock_ns(id) / 1e6;
}

/* First arrival of recent sample ids, for the fan-out. */
#define FIRST_SLOTS 256
static struct {
	unsigned long long id;
	double t;
} first[FIRST_SLOTS];

static double fanout_ms(unsigned long long id, double t)
{
	unsigned slot = (unsigned)(id % FIRST_SLOTS);

	if (first[slot].id != id) {
		first[slot].id = id;
		first[slot].t = t;
	}
	return t - first[slot].t;
}

static int push(double **arr, size_t *n, size_t *cap, double v)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;
		double *p = realloc(*arr, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*arr = p;
		*cap = ncap;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int connect_sub(const char *path)
{
	static const char req[] = "{\"cmd\":\"subscribe\"}\n";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(fd, req, sizeof(req) - 1) != (ssize_t)(sizeof(req) - 1)) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

int main(int argc, char **argv)
{
	double *lat = NULL, *fan = NULL, end_ms;
	size_t nlat = 0, lat_cap = 0, nfan = 0, fan_cap = 0;
	struct sub *subs;
	int nsubs, seconds, ep;

	if (argc != 4 || (nsubs = atoi(argv[2])) < 1 || (seconds = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: bench_daemon SOCKET SUBSCRIBERS SECONDS\n");
		return 2;
	}
	subs = calloc((size_t)nsubs, sizeof(*subs));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!subs || ep < 0) {
		perror("bench_daemon: setup");
		return 1;
	}
	for (int i = 0; i < nsubs; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &subs[i] };

		subs[i].fd = connect_sub(argv[1]);
		if (subs[i].fd < 0) {
			fprintf(stderr, "bench_daemon: %s: %s\n", argv[1], strerror(-subs[i].fd));
			return 1;
		}
		if (epoll_ctl(ep, EPOLL_CTL_ADD, subs[i].fd, &ev) < 0) {
			perror("bench_daemon: epoll_ctl");
			return 1;
		}
	}
	end_ms = now_ms(CLOCK_MONOTONIC) + seconds * 1000.0;
	while (now_ms(CLOCK_MONOTONIC) < end_ms) {
		struct epoll_event evs[64];
		int n = epoll_wait(ep, evs, 64, 100);

		for (int i = 0; i < n; i++) {
			struct sub *s = evs[i].data.ptr;
			ssize_t got;
			char *nl;

			if (s->cap - s->len < 65536) {
				size_t ncap = s->cap ? s->cap * 2 : 1 << 20;
				char *p = realloc(s->buf, ncap);

				if (!p) {
					fprintf(stderr, "bench_daemon: out of memory\n");
					return 1;
				}
				s->buf = p;
				s->cap = ncap;
			}
			got = read(s->fd, s->buf + s->len, s->cap - s->len);
			if (got <= 0) {
				fprintf(stderr, "bench_daemon: the daemon closed a subscriber\n");
				return 1;
			}
			s->len += (size_t)got;
			while ((nl = memchr(s->buf, '\n', s->len))) {
				double t = now_ms(CLOCK_REALTIME);
				size_t line = (size_t)(nl - s->buf) + 1;
				const char *ts;

				/* only pushed samples; the subscribe reply has no timestamp */
				ts = memmem(s->buf, line, "\"timestamp_ms\":", 15);
				if (ts && line > 18 &&
				    memcmp(s->buf, "{\"ok\":true,\"event\"", 18) == 0) {
					/* the event prefix is 37 bytes; the doc's own id follows */
					const char *id =
					    memmem(s->buf + 37, line - 37, "\"sample\":", 9);
					double sample_ms = strtod(ts + 15, NULL);
					int r = push(&lat, &nlat, &lat_cap, t - sample_ms);

					if (r >= 0 && id)
						r = push(&fan, &nfan, &fan_cap,
							 fanout_ms(strtoull(id + 9, NULL, 10), t));
					if (r < 0) {
						fprintf(stderr, "bench_daemon: out of memory\n");
						return 1;
					}
					s->samples++;
				}
				memmove(s->buf, s->buf + line, s->len - line);
				s->len -= line;
			}
		}
	}
	if (!nlat) {
		fprintf(stderr, "bench_daemon: no sample received\n");
		return 1;
	}
	qsort(lat, nlat, sizeof(*lat), cmp_double);
	qsort(fan, nfan, sizeof(*fan), cmp_double);
	printf("subscribers=%d samples=%zu per_subscriber=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f "
	       "fanout_p50_ms=%.2f fanout_p99_ms=%.2f\n",
	       nsubs, nlat, (double)nlat / nsubs, lat[nlat / 2], lat[(size_t)(nlat * 0.99)],
	       lat[nlat - 1], nfan ? fan[nfan / 2] : 0, nfan ? fan[(size_t)(nfan * 0.99)] : 0);
	for (int i = 0; i < nsubs; i++) {
		close(subs[i].fd);
		free(subs[i].buf);
	}
	free(subs);
	free(lat);
	free(fan);
	close(ep);
	return 0;
}
